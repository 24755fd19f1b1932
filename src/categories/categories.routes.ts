import { z } from 'zod';
import { route, type RouteDef } from '../http/route.js';
import { SLUG_RULE } from '../shared/slug.js';
import { categoryParams, categorySchema, createCategoryBody, patchCategoryBody, widParams } from './categories.schemas.js';
import { createCategory, deleteCategory, listCategories, updateCategory } from './categories.service.js';

// `GET /external/categories` lists the categories that published posts use: a view of posts, declared with them.

const adminTags = ['Content'];
const EDITORS_ONLY = 'Editors, owners and operators only (agents: 403).';

export const categoryRoutes: RouteDef[] = [
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/categories',
    summary: 'All categories',
    tags: adminTags,
    auth: 'member',
    params: widParams,
    responses: { 200: { description: 'Categories by slug.', schema: z.object({ items: z.array(categorySchema) }) } },
    handle: async ({ deps, workspace }) => ({ body: { items: await listCategories(deps, workspace) } }),
  }),
  route({
    method: 'post',
    path: '/admin/workspaces/:wid/categories',
    summary: 'Create a category',
    description: `${SLUG_RULE} ${EDITORS_ONLY}`,
    tags: adminTags,
    auth: 'member',
    role: 'editor',
    params: widParams,
    body: createCategoryBody,
    responses: { 201: { description: 'Created.', schema: categorySchema }, 400: 'Invalid body.', 409: 'Slug taken.' },
    handle: async ({ deps, workspace, body }) => ({ status: 201, body: await createCategory(deps, workspace, body) }),
  }),
  route({
    method: 'patch',
    path: '/admin/workspaces/:wid/categories/:cid',
    summary: 'Rename a category',
    description: `Takes effect publicly at once (categories are not drafted). ${SLUG_RULE} ${EDITORS_ONLY}`,
    tags: adminTags,
    auth: 'member',
    role: 'editor',
    params: categoryParams,
    body: patchCategoryBody,
    responses: { 200: { description: 'Updated.', schema: categorySchema }, 400: 'Invalid body.', 404: 'No such category.', 409: 'Slug taken.' },
    handle: async ({ deps, workspace, params, body }) => ({ body: await updateCategory(deps, workspace, params.cid, body) }),
  }),
  route({
    method: 'delete',
    path: '/admin/workspaces/:wid/categories/:cid',
    summary: 'Delete a category',
    description: `Posts that used it answer \`category: null\` from then on. ${EDITORS_ONLY}`,
    tags: adminTags,
    auth: 'member',
    role: 'editor',
    params: categoryParams,
    responses: { 204: 'Deleted.', 404: 'No such category.' },
    handle: async ({ deps, workspace, params }) => {
      await deleteCategory(deps, workspace, params.cid);
      return { status: 204 };
    },
  }),
];
