import { signal } from '@preact/signals';
import { ApiError } from './api.js';
import { call, error, ws } from './store.js';

/** The admin API's category (`Category` in the OpenAPI document): one name, for every language. */
export interface Category {
  id: string;
  slug: string;
  name: string;
}

/** The workspace's categories, by slug (the server's order). */
export const categories = signal<Category[]>([]);
export const categoriesLoaded = signal(false);

const categoryPath = (id: string) => `${ws()}/categories/${encodeURIComponent(id)}`;

export async function loadCategories(): Promise<void> {
  try {
    categories.value = (await call<{ items: Category[] }>('GET', `${ws()}/categories`)).items;
    categoriesLoaded.value = true;
  } catch (err) {
    error.value = err instanceof Error ? err.message : String(err);
  }
}

/** A taken slug (409) belongs beside the slug field, as a 400's issue would. */
async function slugChecked<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof ApiError && err.status === 409) throw new ApiError(409, err.message, [{ path: 'slug', message: err.message }]);
    throw err;
  }
}

export async function createCategory(fields: { slug: string; name: string }): Promise<Category> {
  const created = await slugChecked(() => call<Category>('POST', `${ws()}/categories`, fields));
  await loadCategories();
  return created;
}

/** Only what changed is sent (the server refuses a body with neither field). */
export async function renameCategory(category: Category, fields: { slug: string; name: string }): Promise<Category> {
  const patch: Partial<Category> = {};
  if (fields.name !== category.name) patch.name = fields.name;
  if (fields.slug !== category.slug) patch.slug = fields.slug;
  if (Object.keys(patch).length === 0) return category;
  const stored = await slugChecked(() => call<Category>('PATCH', categoryPath(category.id), patch));
  await loadCategories();
  return stored;
}

export async function deleteCategory(category: Category): Promise<void> {
  await call('DELETE', categoryPath(category.id));
  await loadCategories();
}
