import { Schema, Types, type Connection } from 'mongoose';
import { defineModel, isDuplicateKeyError } from '../db/mongo.js';
import { tenantScope } from '../db/tenant-store.js';
import { engineTraits } from '../db/engine-traits.js';
import { isObjectIdHex } from '../shared/ids.js';
import { offsetOf, type PageRequest } from '../shared/paging.js';
import { OLDER_BUCKET, bucketOf, sequenceStore } from '../db/newest-first.js';
import { postBodyStore, type PostBody } from './post-bodies.model.js';
import { postGroupStore } from './post-groups.model.js';
import { postSlugStore } from './post-slugs.model.js';
export type { PostBody } from './post-bodies.model.js';
import { bodyOf, contentFields, fromContent, fromPatch, toFields, type ContentDoc, type PostContent, type PostFields } from './post-content.model.js';
import { literalSearch, searchGramsOf } from '../shared/search-grams.js';
export { toFields, type PostContent, type PostFields } from './post-content.model.js';

/*
 * Layout, shaped by the local engine: FerretDB 1.24 (SQLite) pushes nothing down to SQLite except a filter
 * that is exactly `{_id: <value>}`; every other query reads and decodes the whole collection. So:
 * - `posts` holds everything but the bodies (small documents: scans for lists, categories, translations
 *   and navigations stay cheap), with the indexes MongoDB uses;
 * - `post_draft_bodies` and `post_published_bodies` hold the markdown/HTML of each post's draft and
 *   published snapshot, keyed by post id and read only when a caller needs them (`include=content`, the
 *   admin post, publish hashing). Two collections, because a FerretDB `_id` read still walks its whole
 *   table in SQLite (the `_id_` index expression differs from the one it queries by), so public reads
 *   should not pay for the drafts (`post-bodies.model.ts`);
 * - `post_groups` lists the post ids of each translation group (single-post `translations` by `_id`,
 *   `post-groups.model.ts`);
 * - `post_slugs` maps each published slug snapshot to its post, so `GET /external/posts/:slug` is `_id`
 *   lookups only (`post-slugs.model.ts`).
 * No transactions: the post document is the truth; a body or slug entry is written before the post
 * document that refers to it and removed after, and readers check the post they reach.
 */

export type PostState = 'DRAFT' | 'PUBLISHED' | 'UNPUBLISHED';

interface PostBase {
  id: string;
  workspaceId: string;
  type: string;
  postTypeId: string;
  locale: string;
  translationGroupId: string;
  state: PostState;
  publishedAt: Date | null;
  lastPublishedHash: string | null;
  /** Bumped by every change of the post (draft save, publish, unpublish): its `ETag`. */
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** A post with its bodies (admin answers, publish). */
export interface Post extends PostBase {
  draft: PostContent;
  /** What `/external` serves while `state` is PUBLISHED; kept apart so a half-edited draft never leaks. */
  published: PostContent | null;
}

/** A post without its bodies (lookups that need no markdown/HTML). `Post` is one too. */
export interface PostHead extends PostBase {
  draft: PostFields;
  published: PostFields | null;
}

export interface PostDoc extends ContentDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  type: string;
  postTypeId: string;
  locale: string;
  translationGroupId: string;
  state: PostState;
  pub: ContentDoc | null;
  publishedAt: Date | null;
  lastPublishedHash: string | null;
  version?: number;
  /** The admin list's bucket (`newest-first.ts`), taken when created; absent on posts stored before 0.9. */
  listBucket?: number;
  /** The draft title's and slug's grams (`search-grams.ts`); filed for posts stored before by an upgrade (`db/search-grams.ts`). */
  searchGrams?: string[];
  createdAt: Date;
  updatedAt: Date;
}

const postSchema = new Schema<PostDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    type: { type: String, required: true },
    postTypeId: { type: String, required: true },
    locale: { type: String, required: true },
    translationGroupId: { type: String, required: true },
    state: { type: String, required: true, enum: ['DRAFT', 'PUBLISHED', 'UNPUBLISHED'] },
    ...contentFields,
    pub: { type: new Schema(contentFields, { _id: false }), default: null },
    publishedAt: { type: Date, default: null },
    lastPublishedHash: { type: String, default: null },
    version: { type: Number, default: 0 },
    listBucket: { type: Number },
    searchGrams: { type: [String], default: undefined },
  },
  { timestamps: true, collection: 'posts' },
);
// Draft slugs are unique per (workspace, locale): admin create/rename answer 409 on a clash.
postSchema.index({ workspaceId: 1, locale: 1, slug: 1 }, { unique: true });
// Admin create/rename: is the slug another post's published snapshot (`slugUsedByOther`).
postSchema.index({ workspaceId: 1, locale: 1, 'pub.slug': 1 });
// `GET /external/posts` in its order (publishedAt desc, id desc), by type and state...
postSchema.index({ workspaceId: 1, type: 1, state: 1, publishedAt: -1, _id: -1 });
// ...and the same with `?locale=`, plus the categories filter (published categories per locale).
postSchema.index({ workspaceId: 1, type: 1, locale: 1, state: 1, publishedAt: -1, _id: -1 });
postSchema.index({ workspaceId: 1, state: 1, locale: 1, 'pub.categoryId': 1 });
// The admin list, newest created first, a bucket at a time (`list`).
postSchema.index({ workspaceId: 1, listBucket: -1, _id: -1 });
// Translations of one post (single-post `translations`, navigation `post.locales`).
postSchema.index({ workspaceId: 1, translationGroupId: 1 });
// The admin list's `q`: the posts holding one gram of it (multikey).
postSchema.index({ workspaceId: 1, searchGrams: 1 });

/** The sequence a workspace's posts take their admin-list bucket from. */
const listSequence = (workspaceId: string) => `${workspaceId}:posts`;

/** The `posts` collection; `published-posts.model.ts` reads it too. */
export const Posts = defineModel('Post', postSchema);

/** Field order of the answers: as `PostContent` declares it (bodies between `customConfig` and `jsonLd`). */
function withBody(fields: PostFields, body: PostBody | null): PostContent {
  const { jsonLd, ...rest } = fields;
  return { ...rest, contentMarkdown: body?.contentMarkdown ?? null, contentHtml: body?.contentHtml ?? null, jsonLd };
}

/** A summary (lists that show no text): the bodies left out as null. */
const withoutBodies = (head: PostHead): Post => ({ ...head, draft: withBody(head.draft, null), published: head.published ? withBody(head.published, null) : null });

function toHead(doc: PostDoc): PostHead {
  return {
    id: doc._id.toHexString(),
    workspaceId: doc.workspaceId.toHexString(),
    type: doc.type,
    postTypeId: doc.postTypeId,
    locale: doc.locale,
    translationGroupId: doc.translationGroupId,
    state: doc.state,
    draft: toFields(doc),
    published: doc.pub ? toFields(doc.pub) : null,
    publishedAt: doc.publishedAt ?? null,
    lastPublishedHash: doc.lastPublishedHash ?? null,
    version: doc.version ?? 0,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

export interface NewPost {
  type: string;
  postTypeId: string;
  locale: string;
  translationGroupId: string;
  draft: PostContent;
}

export interface ImportedPost {
  type: string;
  postTypeId: string;
  locale: string;
  translationGroupId: string;
  content: PostContent;
  publishedAt: Date;
  hash: string;
}

/** `q`: a literal part of the draft title or slug, any case. */
export type AdminPostFilter = Partial<{ type: string; locale: string; state: PostState; translationGroupId: string; q: string; ids: string[] }>;

/** The posts as the admin side sees them: drafts, states and both snapshots. */
export function postStore(db: Connection) {
  const model = Posts(db);
  const scope = tenantScope(model);
  const sequences = sequenceStore(db);
  const bodies = postBodyStore(db);
  const groups = postGroupStore(db);
  const slugs = postSlugStore(db);

  async function withBodies(workspaceId: string, heads: PostHead[]): Promise<Post[]> {
    const [drafts, published] = await Promise.all([
      bodies.of(workspaceId, 'draft', heads.map((head) => head.id)),
      bodies.of(workspaceId, 'published', heads.filter((head) => head.published).map((head) => head.id)),
    ]);
    return heads.map((head) => ({
      ...head,
      draft: withBody(head.draft, drafts.get(head.id) ?? null),
      published: head.published ? withBody(head.published, published.get(head.id) ?? null) : null,
    }));
  }
  const withBodiesOne = async (doc: PostDoc) => (await withBodies(doc.workspaceId.toHexString(), [toHead(doc)]))[0];
  /** The post as just written, with the bodies the writer knows it has (read before the write, or written with it). */
  const withKnownBodies = (doc: PostDoc, known: { draft: PostBody; published: PostBody | null }): Post => {
    const head = toHead(doc);
    return { ...head, draft: withBody(head.draft, known.draft), published: head.published ? withBody(head.published, known.published) : null };
  };

  /**
   * A page of a search, in the admin list's order: its matches (few, read by a gram) are read once, their ids
   * and buckets only, ordered and counted here; then the page's posts, by the search again within the page's
   * range of buckets (reads by `_id` alone walk the whole table on FerretDB). A bucket walk would read the
   * matches bucket by bucket and a count once more; a whole-post read of a search that matches most posts
   * would hold them all in memory.
   */
  async function searchPage(workspaceId: string, query: Record<string, unknown>, request: PageRequest, summary: boolean): Promise<{ items: Post[]; total: number }> {
    const matches = await model.find(scope.filter(workspaceId, query), { _id: 1, listBucket: 1 }).lean<{ _id: Types.ObjectId; listBucket?: number }[]>();
    const bucket = (match: { listBucket?: number }) => match.listBucket ?? OLDER_BUCKET;
    matches.sort((a, b) => bucket(b) - bucket(a) || (b._id.toHexString() < a._id.toHexString() ? -1 : 1));
    const offset = offsetOf(request);
    // A summary reads one more than the page (whether a next page exists) and counts what it read.
    const wanted = matches.slice(offset, offset + request.limit + (summary ? 1 : 0));
    const buckets = wanted.map(bucket);
    // Between the page's lowest and highest bucket lie only its own matches, and a few more at the two edges.
    const inRange = wanted.length ? await scope.find(workspaceId, { ...query, listBucket: { $gte: Math.min(...buckets), $lte: Math.max(...buckets) } }) : [];
    const byId = new Map(inRange.map((doc) => [doc._id.toHexString(), doc]));
    const heads = wanted.flatMap((match) => byId.get(match._id.toHexString()) ?? []).map(toHead);
    if (summary) return { items: heads.map(withoutBodies), total: Math.min(matches.length, offset + request.limit + 1) };
    return { items: await withBodies(workspaceId, heads), total: matches.length };
  }

  return {
    /** null when (locale, slug) is taken. */
    async create(workspaceId: string, input: NewPost): Promise<Post | null> {
      const _id = new Types.ObjectId();
      const postId = _id.toHexString();
      // Body and group entry first: a post document never lacks them.
      await Promise.all([bodies.write(workspaceId, postId, 'draft', bodyOf(input.draft)), groups.join(workspaceId, input.translationGroupId, [postId])]);
      try {
        const doc = await model.create({
          _id,
          workspaceId: new Types.ObjectId(workspaceId),
          listBucket: bucketOf(await sequences.take(listSequence(workspaceId))),
          type: input.type,
          postTypeId: input.postTypeId,
          locale: input.locale,
          translationGroupId: input.translationGroupId,
          state: 'DRAFT',
          ...fromContent(input.draft),
          searchGrams: searchGramsOf(input.draft.title, input.draft.slug),
          pub: null,
          publishedAt: null,
          lastPublishedHash: null,
        });
        return { ...toHead(doc.toObject()), draft: input.draft, published: null };
      } catch (error) {
        await Promise.all([bodies.remove(postId, ['draft']), groups.leave(workspaceId, input.translationGroupId, postId)]);
        if (isDuplicateKeyError(error)) return null;
        throw error;
      }
    },
    /**
     * Bulk import of already-published posts (benchmarks, migrations): a few inserts, no per-post checks,
     * so the caller guarantees unique slugs and valid categories.
     */
    async importPublished(workspaceId: string, posts: ImportedPost[]): Promise<void> {
      const last = await sequences.take(listSequence(workspaceId), posts.length);
      const rows = posts.map((post, index) => ({ ...post, _id: new Types.ObjectId(), listBucket: bucketOf(last - posts.length + 1 + index) }));
      for (const side of ['draft', 'published'] as const) {
        await bodies.insertMany(workspaceId, side, rows.map((row) => ({ postId: row._id.toHexString(), body: bodyOf(row.content) })));
      }
      const members = new Map<string, string[]>();
      for (const row of rows) members.set(row.translationGroupId, [...(members.get(row.translationGroupId) ?? []), row._id.toHexString()]);
      await groups.joinAll(workspaceId, members);
      await slugs.insertMany(workspaceId, rows.map((row) => ({ locale: row.locale, slug: row.content.slug, postId: row._id.toHexString() })));
      await model.insertMany(
        rows.map((row) => ({
          _id: row._id,
          workspaceId: new Types.ObjectId(workspaceId),
          type: row.type,
          postTypeId: row.postTypeId,
          locale: row.locale,
          translationGroupId: row.translationGroupId,
          state: 'PUBLISHED',
          ...fromContent(row.content),
          searchGrams: searchGramsOf(row.content.title, row.content.slug),
          pub: fromContent(row.content),
          publishedAt: row.publishedAt,
          lastPublishedHash: row.hash,
          listBucket: row.listBucket,
        })),
      );
    },
    /** The post with both bodies. */
    async byId(workspaceId: string, id: string): Promise<Post | null> {
      const doc = await scope.byId(workspaceId, id);
      return doc ? withBodiesOne(doc) : null;
    },
    /** Without bodies (navigations). */
    async byIds(workspaceId: string, ids: string[]): Promise<PostHead[]> {
      return (await scope.byIds(workspaceId, ids)).map(toHead);
    },
    async inGroup(workspaceId: string, translationGroupId: string): Promise<PostHead[]> {
      const docs = await scope.find(workspaceId, { translationGroupId });
      return docs.map(toHead);
    },
    /**
     * Another post of the workspace whose draft or published slug is `slug` in `locale`. Two equality reads
     * (each from its index; on FerretDB over PostgreSQL from its matches alone), not one `$or`, for which
     * FerretDB decodes every post of the workspace; over SQLite, where any filter but `_id` does, one read.
     */
    async slugUsedByOther(workspaceId: string, locale: string, slug: string, exceptId: string | null): Promise<boolean> {
      // At most the post itself and one other: two are enough to tell.
      const read = (filter: Record<string, unknown>) => model.find(scope.filter(workspaceId, { locale, ...filter }), { _id: 1 }).limit(2).lean<{ _id: Types.ObjectId }[]>();
      const byOther = (docs: { _id: Types.ObjectId }[]) => docs.some((doc) => doc._id.toHexString() !== exceptId);
      if (!engineTraits(db).equalityPushdown) return byOther(await read({ $or: [{ slug }, { 'pub.slug': slug }] }));
      const [drafts, published] = await Promise.all([read({ slug }), read({ 'pub.slug': slug })]);
      return byOther(drafts) || byOther(published);
    },
    /**
     * Newest created first; `q` matches the draft title or slug (read by one of its grams, matched whole
     * among those), `ids` limits to those posts. `summary`: without bodies or a count, reading one post more
     * than the page (`total` counts what was read).
     */
    async list(workspaceId: string, filter: AdminPostFilter, request: PageRequest, summary = false): Promise<{ items: Post[]; total: number }> {
      const query: Record<string, unknown> = {};
      if (filter.type) query.type = filter.type;
      if (filter.locale) query.locale = filter.locale;
      if (filter.state) query.state = filter.state;
      if (filter.translationGroupId) query.translationGroupId = filter.translationGroupId;
      if (filter.ids) query._id = { $in: filter.ids.filter(isObjectIdHex).map((id) => new Types.ObjectId(id)) };
      if (filter.q) return searchPage(workspaceId, { ...query, ...literalSearch(filter.q, ['title', 'slug']) }, request, summary);
      const newest = { field: 'listBucket', sequence: listSequence(workspaceId), sort: { _id: -1 } } as const;
      if (summary) {
        const { docs, total } = await scope.newestPage(workspaceId, query, newest, { ...request, withTotal: false });
        return { items: docs.map((doc) => withoutBodies(toHead(doc))), total };
      }
      const { docs, total } = await scope.newestPage(workspaceId, query, newest, request);
      return { items: await withBodies(workspaceId, docs.map(toHead)), total };
    },
    /** Runs `work` as the only writer of the post (`document-locks.ts`): every change of a post is one. */
    exclusive<T>(id: string, work: () => Promise<T>): Promise<T> {
      return scope.transition(id, work);
    },
    /**
     * Writes the draft fields `patch` names, only those (and `body`, the whole draft body); null when missing,
     * `'taken'` on a slug clash. `current`: the post as read within the same transition (the caller holds its
     * lock): its draft's title and slug make the search grams of a rename, its bodies are the answer's but for `body`.
     */
    async updateDraft(workspaceId: string, current: Post, patch: Partial<PostContent>, body: PostBody | null): Promise<Post | null | 'taken'> {
      const set: Record<string, unknown> = fromPatch(patch);
      if (patch.title !== undefined || patch.slug !== undefined) set.searchGrams = searchGramsOf(patch.title ?? current.draft.title, patch.slug ?? current.draft.slug);
      try {
        const doc = await scope.updateOwnedById(workspaceId, current, { $set: set, $inc: { version: 1 } });
        if (!doc) return null;
        if (body) await bodies.write(workspaceId, current.id, 'draft', body);
        return withKnownBodies(doc, { draft: body ?? bodyOf(current.draft), published: current.published && bodyOf(current.published) });
      } catch (error) {
        if (isDuplicateKeyError(error)) return 'taken';
        throw error;
      }
    },
    /**
     * Publishes `current` (the post as read within the same transition) with its draft as the snapshot. The
     * published body is written before the snapshot that goes with it.
     */
    async setPublished(workspaceId: string, current: Post, publishedAt: Date, hash: string): Promise<Post | null> {
      const snapshot = current.draft;
      await bodies.write(workspaceId, current.id, 'published', bodyOf(snapshot));
      const doc = await scope.updateOwnedById(workspaceId, current, {
        $set: { state: 'PUBLISHED', pub: fromContent(snapshot), publishedAt, lastPublishedHash: hash },
        $inc: { version: 1 },
      });
      return doc ? withKnownBodies(doc, { draft: bodyOf(snapshot), published: bodyOf(snapshot) }) : null;
    },
    /** Moves PUBLISHED to UNPUBLISHED; null when the post was not published (nothing changed). */
    async unpublish(workspaceId: string, id: string): Promise<Post | null> {
      const doc = await scope.updateById(workspaceId, id, { $set: { state: 'UNPUBLISHED' }, $inc: { version: 1 } }, { state: 'PUBLISHED' });
      return doc ? withBodiesOne(doc) : null;
    },
    /** Deletes the post, then its bodies, group membership and published slug entry. */
    async remove(workspaceId: string, id: string): Promise<PostHead | null> {
      if (!isObjectIdHex(id)) return null;
      const doc = await scope.write(id, () => model.findOneAndDelete(scope.filter(workspaceId, { _id: new Types.ObjectId(id) })).lean<PostDoc>());
      if (!doc) return null;
      const head = toHead(doc);
      await Promise.all([
        bodies.remove(id, ['draft', 'published']),
        groups.leave(workspaceId, head.translationGroupId, id),
        head.published ? slugs.release(workspaceId, head.locale, head.published.slug, id) : null,
      ]);
      return head;
    },
  };
}
