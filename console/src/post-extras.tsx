import { useEffect, useState } from 'preact/hooks';
import { attempt, type FieldIssue } from './api.js';
import { navigate } from './router.js';
import { t } from './strings.js';
import * as posts from './posts.js';
import { categories, categoriesLoaded, loadCategories } from './categories.js';
import { keptKey, type Draft } from './post-draft.js';
import { AskFirst, FormProblem } from './widgets.js';

const tagsOf = (typed: string) => [...new Set(typed.split(',').map((tag) => tag.trim()).filter(Boolean))];

/** The draft's category and tags, saved on their own (after what is typed in the text). */
export function Classification({ draft, post }: { draft: Draft; post: posts.AdminPost }) {
  const [categoryId, setCategoryId] = useState(post.categoryId ?? '');
  const [tags, setTags] = useState(post.tags.join(', '));
  const [issues, setIssues] = useState<FieldIssue[]>([]);
  const [problem, setProblem] = useState('');
  const [done, setDone] = useState('');
  useEffect(() => {
    if (!categoriesLoaded.value) void loadCategories();
  }, []);
  const save = async (event: Event) => {
    event.preventDefault();
    setDone('');
    setProblem('');
    await draft.save();
    const current = draft.base.value;
    if (!current || draft.dirty() || draft.conflict.value) return setProblem(t.unsaved);
    const outcome = await attempt(() => posts.classifyPost(post.id, current.version, { categoryId: categoryId || null, tags: tagsOf(tags) }));
    if (outcome.ok) {
      draft.adopt(outcome.value);
      setIssues([]);
      setDone(t.postClassificationSaved);
      return;
    }
    setIssues(outcome.issues);
    if (outcome.issues.length === 0) setProblem(outcome.message === 'offline' ? t.keptLocally : outcome.message);
  };
  // A 412 names no field: it is said as the form's problem.
  const problemOf = (path: string) => issues.find((issue) => issue.path === path || issue.path.startsWith(`${path}.`))?.message;
  const categoryProblem = problemOf('categoryId');
  const tagsProblem = problemOf('tags');
  return (
    <section aria-labelledby="classification-title">
      <h3 id="classification-title">{t.postClassification}</h3>
      <form id="classification" class="stack" onSubmit={(e) => void save(e)}>
        <p class="field">
          <label for="post-category">{t.postCategory}</label>
          <select id="post-category" value={categoryId} aria-invalid={categoryProblem ? 'true' : undefined} aria-describedby={categoryProblem ? 'post-category-problem' : undefined} onChange={(e) => setCategoryId(e.currentTarget.value)}>
            <option value="">{t.postNoCategory}</option>
            {categories.value.map((category) => (
              <option key={category.id} value={category.id}>
                {category.name}
              </option>
            ))}
          </select>
          {categoryProblem && (
            <span id="post-category-problem" class="field-error">
              {categoryProblem}
            </span>
          )}
        </p>
        <p class="field">
          <label for="post-tags">{t.postTags}</label>
          <input id="post-tags" type="text" value={tags} aria-invalid={tagsProblem ? 'true' : undefined} aria-describedby={tagsProblem ? 'post-tags-problem' : undefined} onInput={(e) => setTags(e.currentTarget.value)} />
          {tagsProblem && (
            <span id="post-tags-problem" class="field-error">
              {tagsProblem}
            </span>
          )}
        </p>
        <button type="submit">{t.postSaveClassification}</button>
      </form>
      <p id="classification-status" role="status" class="muted">
        {done}
      </p>
      {problem && <FormProblem id="classification-problem" message={problem} />}
    </section>
  );
}

/** Deleting asks first (`AskFirst`); a deleted post is neither saved again nor kept in this browser. */
export function DeletePost({ draft, post }: { draft: Draft; post: posts.AdminPost }) {
  const remove = async () => {
    const outcome = await attempt(() => posts.deletePost(post.id));
    if (!outcome.ok) return outcome.message;
    draft.close();
    localStorage.removeItem(keptKey(post.id));
    navigate('posts');
    return null;
  };
  return (
    <section aria-labelledby="delete-post-title">
      <h3 id="delete-post-title">{t.postDelete}</h3>
      <AskFirst id="delete-post" label={t.postDelete} question={t.postConfirmDelete(draft.fields.value.title || post.title)} yes={t.postYesDelete} keep={t.postKeep} onYes={remove} />
    </section>
  );
}
