import { useEffect, useRef, useState } from 'preact/hooks';
import { hrefOf, navigate, route } from './router.js';
import { t } from './strings.js';
import * as cats from './categories.js';
import * as navs from './navigations.js';
import { NavigationEditor } from './navigation-editor.js';
import { addStructureStyle } from './structure-style.js';
import { Field, FormProblem, text, useSubmit } from './widgets.js';

addStructureStyle();

/** Menus and categories (its own chunk): `#/structure` lists both, `#/structure/<navigationId>` edits one menu's items. */
export function StructureView() {
  const id = route.value.id;
  return id ? <NavigationEditor key={id} id={id} /> : <Overview />;
}

function Overview() {
  useEffect(() => {
    void navs.loadNavigations();
    void cats.loadCategories();
  }, []);
  return (
    <div class="structure">
      <Navigations />
      <Categories />
    </div>
  );
}

function Navigations() {
  const list = navs.navigations.value;
  const form = useSubmit(
    (data) => navs.createNavigation({ key: text(data, 'key'), name: text(data, 'name') }),
    (created) => navigate('structure', created.id),
  );
  return (
    <section class="box" aria-labelledby="navigations-title">
      <h2 id="navigations-title">{t.navigations}</h2>
      <ul id="navigations" class="entries" aria-label={t.navigations}>
        {list.map((navigation) => (
          <li key={navigation.id}>
            <a href={hrefOf('structure', navigation.id)} id={`navigation-${navigation.key}`}>
              <span class="who">{navigation.name}</span>
              <span class="last">{` · ${navigation.key} · ${t.navItemCount(navigation.items.length)}`}</span>
            </a>
          </li>
        ))}
      </ul>
      {navs.navigationsLoaded.value && list.length === 0 && <p class="muted">{t.noNavigations}</p>}
      <form id="new-navigation" class="stack" onSubmit={form.onSubmit} aria-labelledby="new-navigation-title">
        <h3 id="new-navigation-title">{t.newNavigation}</h3>
        <Field id="navigation-key" name="key" label={t.navigationKey} issues={form.issues} />
        <Field id="navigation-name" name="name" label={t.navigationName} issues={form.issues} />
        {form.message && <FormProblem id="new-navigation-problem" message={form.message} />}
        <button type="submit" disabled={form.busy}>
          {t.createNavigation}
        </button>
      </form>
    </section>
  );
}

function Categories() {
  const list = cats.categories.value;
  const [status, setStatus] = useState('');
  const form = useSubmit(
    (data) => cats.createCategory({ slug: text(data, 'slug'), name: text(data, 'name') }),
    (created, element) => {
      element.reset();
      setStatus(t.categoryDone(created.name));
    },
  );
  return (
    <section class="box" aria-labelledby="categories-title">
      <h2 id="categories-title" tabIndex={-1}>{t.categories}</h2>
      <ul id="categories" class="people" aria-label={t.categories}>
        {list.map((category) => (
          <CategoryRow key={category.id} category={category} onDone={setStatus} />
        ))}
      </ul>
      {cats.categoriesLoaded.value && list.length === 0 && <p class="muted">{t.noCategories}</p>}
      <p id="category-status" role="status" class="muted">
        {status}
      </p>
      <form id="new-category" class="stack" onSubmit={form.onSubmit} aria-labelledby="new-category-title">
        <h3 id="new-category-title">{t.newCategory}</h3>
        <Field id="category-name" name="name" label={t.categoryName} issues={form.issues} />
        <Field id="category-slug" name="slug" label={t.categorySlug} issues={form.issues} />
        {form.message && <FormProblem id="new-category-problem" message={form.message} />}
        <button type="submit" disabled={form.busy}>
          {t.createCategory}
        </button>
      </form>
    </section>
  );
}

function CategoryRow({ category, onDone }: { category: cats.Category; onDone: (status: string) => void }) {
  const [mode, setMode] = useState<'show' | 'rename' | 'delete'>('show');
  const [problem, setProblem] = useState('');
  const first = useRef<HTMLElement | null>(null);
  const back = useRef<HTMLButtonElement>(null);
  const rename = useSubmit(
    (data) => cats.renameCategory(category, { slug: text(data, 'slug'), name: text(data, 'name') }),
    (stored) => {
      setMode('show');
      onDone(t.categoryDone(stored.name));
    },
  );
  useEffect(() => {
    if (mode !== 'show') first.current?.focus();
  }, [mode]);
  const leave = () => {
    setMode('show');
    setTimeout(() => back.current?.focus(), 0);
  };
  const remove = async () => {
    setProblem('');
    try {
      await cats.deleteCategory(category);
      onDone(t.categoryDeleted(category.name));
      // The row is gone: the focus goes to the list's heading rather than to the page's start.
      document.getElementById('categories-title')?.focus();
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
    }
  };
  const base = `category-${category.id}`;
  return (
    <li id={base} data-slug={category.slug}>
      <span class="who">{category.name}</span>
      <span class="muted">{category.slug}</span>
      {mode === 'show' && (
        <span class="actions">
          <button type="button" id={`${base}-rename`} ref={back} onClick={() => setMode('rename')}>
            {t.categoryRename}
            <span class="visually-hidden">{` ${category.name}`}</span>
          </button>
          <button type="button" id={`${base}-delete`} onClick={() => setMode('delete')}>
            {t.categoryDelete}
            <span class="visually-hidden">{` ${category.name}`}</span>
          </button>
        </span>
      )}
      {mode === 'rename' && (
        <form id={`${base}-form`} class="stack" onSubmit={rename.onSubmit} aria-label={t.categoryRenameOf(category.name)}>
          <p class="field">
            <label for={`${base}-name`}>{t.categoryName}</label>
            <input
              id={`${base}-name`}
              name="name"
              defaultValue={category.name}
              ref={(element) => void (first.current = element)}
              aria-invalid={rename.issues.some((issue) => issue.path === 'name') ? 'true' : undefined}
              aria-describedby={rename.issues.some((issue) => issue.path === 'name') ? `${base}-name-problem` : undefined}
            />
            {rename.issues
              .filter((issue) => issue.path === 'name')
              .map((issue) => (
                <span id={`${base}-name-problem`} class="field-error">
                  {issue.message}
                </span>
              ))}
          </p>
          <Field id={`${base}-slug`} name="slug" label={t.categorySlug} issues={rename.issues} value={category.slug} />
          {rename.message && <FormProblem id={`${base}-problem`} message={rename.message} />}
          <p class="actions">
            <button type="submit" disabled={rename.busy}>
              {t.categorySave}
            </button>
            <button type="button" onClick={leave}>
              {t.categoryCancel}
            </button>
          </p>
        </form>
      )}
      {mode === 'delete' && (
        <div class="confirm" role="group" aria-label={t.categoryDeleteOf(category.name)}>
          <span>{t.categoryConfirmDelete(category.name)}</span>
          <button type="button" class="danger" id={`${base}-confirm`} onClick={() => void remove()}>
            {t.categoryYesDelete}
          </button>
          <button type="button" id={`${base}-keep`} ref={(element) => void (first.current = element)} onClick={leave}>
            {t.categoryKeep}
          </button>
          {problem && <FormProblem id={`${base}-problem`} message={problem} />}
        </div>
      )}
    </li>
  );
}
