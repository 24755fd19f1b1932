import { Schema, Types, type Connection } from 'mongoose';
import { defineModel, isDuplicateKeyError, nullOnDuplicate } from '../db/mongo.js';
import { loadJson, storeJson } from '../db/json-field.js';
import { isObjectIdHex } from '../shared/ids.js';

/* ------------------------------------------------------------------ post types */

export interface PostType {
  id: string;
  slug: string;
  name: string;
  defaultConfig: Record<string, unknown> | null;
  /** schema.org `@type` of the posts' `jsonLd`; null: no structured data unless a post brings its own. */
  jsonLdType: string | null;
  createdAt: Date;
}

interface PostTypeDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  slug: string;
  name: string;
  defaultConfigJson: string | null;
  jsonLdType: string | null;
  createdAt: Date;
}

const postTypeSchema = new Schema<PostTypeDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    slug: { type: String, required: true },
    name: { type: String, required: true },
    defaultConfigJson: { type: String, default: null },
    jsonLdType: { type: String, default: null },
  },
  { timestamps: { createdAt: true, updatedAt: false }, collection: 'post_types' },
);
// Type lookup by slug (post creation, `?type=`) and "one `blog` per workspace" under concurrent upserts.
postTypeSchema.index({ workspaceId: 1, slug: 1 }, { unique: true });

const PostTypes = defineModel('PostType', postTypeSchema);

function toPostType(doc: PostTypeDoc): PostType {
  return {
    id: doc._id.toHexString(),
    slug: doc.slug,
    name: doc.name,
    defaultConfig: loadJson(doc.defaultConfigJson),
    jsonLdType: doc.jsonLdType ?? null,
    createdAt: doc.createdAt,
  };
}

const oid = (id: string) => new Types.ObjectId(id);

export function postTypeStore(db: Connection) {
  const model = PostTypes(db);
  return {
    async list(workspaceId: string): Promise<PostType[]> {
      const docs = await model.find({ workspaceId: oid(workspaceId) }).sort({ _id: 1 }).lean<PostTypeDoc[]>();
      return docs.map(toPostType);
    },
    async bySlug(workspaceId: string, slug: string): Promise<PostType | null> {
      const doc = await model.findOne({ workspaceId: oid(workspaceId), slug }).lean<PostTypeDoc>();
      return doc ? toPostType(doc) : null;
    },
    async byIds(workspaceId: string, ids: string[]): Promise<PostType[]> {
      const docs = await model.find({ workspaceId: oid(workspaceId), _id: { $in: ids.filter(isObjectIdHex).map(oid) } }).lean<PostTypeDoc[]>();
      return docs.map(toPostType);
    },
    /** Creates the type unless it exists; returns the stored one either way (the unique index settles races). */
    async ensure(workspaceId: string, input: { slug: string; name: string; defaultConfig?: unknown; jsonLdType?: string | null }): Promise<PostType> {
      const filter = { workspaceId: oid(workspaceId), slug: input.slug };
      try {
        const doc = await model
          .findOneAndUpdate(
            filter,
            { $setOnInsert: { name: input.name, defaultConfigJson: storeJson(input.defaultConfig), jsonLdType: input.jsonLdType ?? null } },
            { upsert: true, returnDocument: 'after' },
          )
          .lean<PostTypeDoc>();
        return toPostType(doc!);
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        return toPostType((await model.findOne(filter).lean<PostTypeDoc>())!);
      }
    },
    /** Returns null when the slug is taken. */
    async create(workspaceId: string, input: { slug: string; name: string; defaultConfig?: unknown; jsonLdType?: string | null }): Promise<PostType | null> {
      try {
        const doc = await model.create({
          workspaceId: oid(workspaceId),
          slug: input.slug,
          name: input.name,
          defaultConfigJson: storeJson(input.defaultConfig),
          jsonLdType: input.jsonLdType ?? null,
        });
        return toPostType(doc.toObject());
      } catch (error) {
        if (isDuplicateKeyError(error)) return null;
        throw error;
      }
    },
  };
}

/* ------------------------------------------------------------------ categories */

export interface Category {
  id: string;
  slug: string;
  name: string;
}

interface CategoryDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  slug: string;
  name: string;
}

const categorySchema = new Schema<CategoryDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    slug: { type: String, required: true },
    name: { type: String, required: true },
  },
  { timestamps: true, collection: 'categories' },
);
// `GET /external/categories` and the admin list (sorted by slug); unique slug per workspace.
categorySchema.index({ workspaceId: 1, slug: 1 }, { unique: true });

const Categories = defineModel('Category', categorySchema);

const toCategory = (doc: CategoryDoc): Category => ({ id: doc._id.toHexString(), slug: doc.slug, name: doc.name });

export function categoryStore(db: Connection) {
  const model = Categories(db);
  return {
    async list(workspaceId: string, onlyIds?: string[]): Promise<Category[]> {
      const filter: Record<string, unknown> = { workspaceId: oid(workspaceId) };
      if (onlyIds) filter._id = { $in: onlyIds.filter(isObjectIdHex).map(oid) };
      const docs = await model.find(filter).sort({ slug: 1 }).lean<CategoryDoc[]>();
      return docs.map(toCategory);
    },
    async byId(workspaceId: string, id: string): Promise<Category | null> {
      if (!isObjectIdHex(id)) return null;
      const doc = await model.findOne({ workspaceId: oid(workspaceId), _id: oid(id) }).lean<CategoryDoc>();
      return doc ? toCategory(doc) : null;
    },
    /** null when the slug is taken. */
    async create(workspaceId: string, input: { slug: string; name: string }): Promise<Category | null> {
      return nullOnDuplicate(async () => {
        const doc = await model.create({ workspaceId: oid(workspaceId), ...input });
        return toCategory(doc.toObject());
      });
    },
    /** undefined when missing, null when the new slug is taken. */
    async update(workspaceId: string, id: string, patch: { slug?: string; name?: string }): Promise<Category | null | undefined> {
      if (!isObjectIdHex(id)) return undefined;
      return nullOnDuplicate(async () => {
        const doc = await model
          .findOneAndUpdate({ workspaceId: oid(workspaceId), _id: oid(id) }, { $set: patch }, { returnDocument: 'after' })
          .lean<CategoryDoc>();
        return doc ? toCategory(doc) : undefined;
      });
    },
    async remove(workspaceId: string, id: string): Promise<boolean> {
      if (!isObjectIdHex(id)) return false;
      const result = await model.deleteOne({ workspaceId: oid(workspaceId), _id: oid(id) });
      return result.deletedCount === 1;
    },
  };
}

/* ------------------------------------------------------------------ posts */

/*
 * Layout, shaped by the local engine: FerretDB 1.24 (SQLite) pushes nothing down to SQLite except a filter
 * that is exactly `{_id: <value>}`; every other query reads and decodes the whole collection. So:
 * - `posts` holds everything but the bodies (small documents: scans for lists, categories, translations
 *   and navigations stay cheap), with the indexes MongoDB uses;
 * - `post_draft_bodies` and `post_published_bodies` hold the markdown/HTML of each post's draft and
 *   published snapshot, keyed by post id and read only when a caller needs them (`include=content`, the
 *   admin post, publish hashing). Two collections, because a FerretDB `_id` read still walks its whole
 *   table in SQLite (the `_id_` index expression differs from the one it queries by), so public reads
 *   should not pay for the drafts;
 * - `post_groups` lists the post ids of each translation group (single-post `translations` by `_id`);
 * - `post_slugs` maps each published slug snapshot to its post, so `GET /external/posts/:slug` is `_id`
 *   lookups only.
 * No transactions: the post document is the truth; a body or slug entry is written before the post
 * document that refers to it and removed after, and readers check the post they reach.
 */

export type PostState = 'DRAFT' | 'PUBLISHED' | 'UNPUBLISHED';

/** The fields a publish copies from the draft to the public snapshot (and hashes). */
export interface PostContent {
  slug: string;
  canonicalSlug: string;
  title: string;
  metaDescription: string;
  imageUrl: string;
  tags: string[];
  categoryId: string | null;
  authorName: string;
  customConfig: Record<string, unknown>;
  contentMarkdown: string | null;
  contentHtml: string | null;
  jsonLd: Record<string, unknown> | null;
}

/** The large part of a content snapshot, stored apart (`post_draft_bodies`, `post_published_bodies`). */
export type PostBody = Pick<PostContent, 'contentMarkdown' | 'contentHtml'>;
/** A content snapshot without its body: what the post document itself carries. */
export type PostFields = Omit<PostContent, 'contentMarkdown' | 'contentHtml'>;

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

interface ContentDoc {
  slug: string;
  canonicalSlug: string;
  title: string;
  metaDescription: string;
  imageUrl: string;
  tags: string[];
  categoryId: string | null;
  authorName: string;
  customConfigJson: string;
  jsonLdJson: string | null;
}

interface PostDoc extends ContentDoc {
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
  createdAt: Date;
  updatedAt: Date;
}

const contentFields = {
  slug: { type: String, required: true },
  canonicalSlug: { type: String, required: true },
  title: { type: String, required: true },
  metaDescription: { type: String, default: '' },
  imageUrl: { type: String, default: '' },
  tags: { type: [String], default: [] },
  categoryId: { type: String, default: null },
  authorName: { type: String, default: '' },
  customConfigJson: { type: String, default: '{}' },
  jsonLdJson: { type: String, default: null },
};

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
// Translations of one post (single-post `translations`, navigation `post.locales`).
postSchema.index({ workspaceId: 1, translationGroupId: 1 });

const Posts = defineModel('Post', postSchema);

interface PostBodyDoc {
  /** The post id (hex). */
  _id: string;
  workspaceId: Types.ObjectId;
  contentMarkdown: string | null;
  contentHtml: string | null;
}

const postBodySchema = new Schema<PostBodyDoc>(
  {
    _id: { type: String, required: true },
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    contentMarkdown: { type: String, default: null },
    contentHtml: { type: String, default: null },
  },
  { versionKey: false },
);

// No secondary indexes: every read is by `_id`, one id (admin post, publish hashing) or a page of them
// (`include=content`, the admin list).
const PostBodies = {
  draft: defineModel('PostDraftBody', postBodySchema.clone().set('collection', 'post_draft_bodies')),
  published: defineModel('PostPublishedBody', postBodySchema.clone().set('collection', 'post_published_bodies')),
};

type BodySide = keyof typeof PostBodies;

interface PostGroupDoc {
  /** `${workspaceId}:${translationGroupId}` (`groupKey`). */
  _id: string;
  workspaceId: Types.ObjectId;
  postIds: string[];
}

const postGroupSchema = new Schema<PostGroupDoc>(
  {
    _id: { type: String, required: true },
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    postIds: { type: [String], default: [] },
  },
  { collection: 'post_groups', versionKey: false },
);
// No secondary index: `GET /external/posts/:slug` reads its post's group by `_id` for `translations`. A
// post id is added before the post is stored and removed after it is deleted; readers check each post.

const PostGroups = defineModel('PostGroup', postGroupSchema);

const groupKey = (workspaceId: string, translationGroupId: string) => `${workspaceId}:${translationGroupId}`;

interface PostSlugDoc {
  /** `${workspaceId}:${locale}:${slug}` of a published snapshot (`slugKey`). */
  _id: string;
  workspaceId: Types.ObjectId;
  postId: string;
}

const postSlugSchema = new Schema<PostSlugDoc>(
  {
    _id: { type: String, required: true },
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    postId: { type: String, required: true },
  },
  { collection: 'post_slugs', versionKey: false },
);
// No secondary index: `GET /external/posts/:slug` (and the publish clash check) read by `_id` only. The
// `_id` makes a published slug unique per (workspace, locale): a publish claims it by inserting.

const PostSlugs = defineModel('PostSlug', postSlugSchema);

const slugKey = (workspaceId: string, locale: string, slug: string) => `${workspaceId}:${locale}:${slug}`;

/**
 * Past this many ids one `$in` query (one scan on FerretDB, one index walk on MongoDB) beats parallel
 * point reads, each of which walks the table on FerretDB.
 */
const POINT_READS_MAX = 4;

function toFields(doc: ContentDoc): PostFields {
  return {
    slug: doc.slug,
    canonicalSlug: doc.canonicalSlug,
    title: doc.title,
    metaDescription: doc.metaDescription ?? '',
    imageUrl: doc.imageUrl ?? '',
    tags: doc.tags ?? [],
    categoryId: doc.categoryId ?? null,
    authorName: doc.authorName ?? '',
    customConfig: loadJson<Record<string, unknown>>(doc.customConfigJson) ?? {},
    jsonLd: loadJson<Record<string, unknown>>(doc.jsonLdJson),
  };
}

function fromContent(content: PostFields): ContentDoc {
  return {
    slug: content.slug,
    canonicalSlug: content.canonicalSlug,
    title: content.title,
    metaDescription: content.metaDescription,
    imageUrl: content.imageUrl,
    tags: content.tags,
    categoryId: content.categoryId,
    authorName: content.authorName,
    customConfigJson: storeJson(content.customConfig) ?? '{}',
    jsonLdJson: storeJson(content.jsonLd),
  };
}

const bodyOf = (content: PostContent): PostBody => ({ contentMarkdown: content.contentMarkdown, contentHtml: content.contentHtml });
const noBody: PostBody = { contentMarkdown: null, contentHtml: null };

/** Field order of the answers: as `PostContent` declares it (bodies between `customConfig` and `jsonLd`). */
function withBody(fields: PostFields, body: PostBody | null): PostContent {
  const { jsonLd, ...rest } = fields;
  return { ...rest, contentMarkdown: body?.contentMarkdown ?? null, contentHtml: body?.contentHtml ?? null, jsonLd };
}

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
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

export interface PublicPostQuery {
  type: string | null;
  locale: string | null;
  /** Already escaped: matched as a literal, case-insensitive substring. */
  qPattern: string | null;
  skip: number;
  limit: number;
}

/** A published post as `/external` sees it: only the snapshot, without its body (`publishedBodies`). */
export interface PublishedPost {
  id: string;
  type: string;
  postTypeId: string;
  locale: string;
  translationGroupId: string;
  publishedAt: Date;
  content: PostFields;
}

function toPublished(doc: PostDoc): PublishedPost {
  return {
    id: doc._id.toHexString(),
    type: doc.type,
    postTypeId: doc.postTypeId,
    locale: doc.locale,
    translationGroupId: doc.translationGroupId,
    publishedAt: doc.publishedAt!,
    content: toFields(doc.pub!),
  };
}

export function postStore(db: Connection) {
  const model = Posts(db);
  const bodies = { draft: PostBodies.draft(db), published: PostBodies.published(db) };
  const slugs = PostSlugs(db);
  const groups = PostGroups(db);
  const ws = (workspaceId: string) => oid(workspaceId);
  const inWorkspace = (doc: { workspaceId: Types.ObjectId } | null, workspaceId: string) => !!doc && doc.workspaceId.toHexString() === workspaceId;

  /** Point read by `_id` alone (the only filter FerretDB serves without a scan); the tenant is checked here. */
  async function docById(workspaceId: string, id: string): Promise<PostDoc | null> {
    if (!isObjectIdHex(id)) return null;
    const doc = await model.findOne({ _id: oid(id) }).lean<PostDoc>();
    return inWorkspace(doc, workspaceId) ? doc : null;
  }

  /** Bodies of one side by post id; a missing body reads as null markdown and HTML. */
  async function bodiesOf(workspaceId: string, side: BodySide, postIds: string[]): Promise<Map<string, PostBody>> {
    const unique = [...new Set(postIds)];
    if (unique.length === 0) return new Map();
    const docs =
      unique.length <= POINT_READS_MAX
        ? await Promise.all(unique.map((id) => bodies[side].findOne({ _id: id }).lean<PostBodyDoc>()))
        : await bodies[side].find({ _id: { $in: unique } }).lean<PostBodyDoc[]>();
    const found = new Map<string, PostBody>();
    for (const doc of docs) {
      if (inWorkspace(doc, workspaceId)) found.set(doc!._id, { contentMarkdown: doc!.contentMarkdown ?? null, contentHtml: doc!.contentHtml ?? null });
    }
    return found;
  }

  async function writeBody(workspaceId: string, postId: string, side: BodySide, body: PostBody): Promise<void> {
    await bodies[side].updateOne({ _id: postId }, { $set: { workspaceId: ws(workspaceId), ...body } }, { upsert: true });
  }

  async function withBodies(workspaceId: string, heads: PostHead[]): Promise<Post[]> {
    const [drafts, published] = await Promise.all([
      bodiesOf(workspaceId, 'draft', heads.map((head) => head.id)),
      bodiesOf(workspaceId, 'published', heads.filter((head) => head.published).map((head) => head.id)),
    ]);
    return heads.map((head) => ({
      ...head,
      draft: withBody(head.draft, drafts.get(head.id) ?? null),
      published: head.published ? withBody(head.published, published.get(head.id) ?? null) : null,
    }));
  }
  const withBodiesOne = async (doc: PostDoc) => (await withBodies(doc.workspaceId.toHexString(), [toHead(doc)]))[0];

  /** Adds the post to its translation group's entry (before the post is stored). */
  async function joinGroup(workspaceId: string, translationGroupId: string, postIds: string[]): Promise<void> {
    await groups.updateOne(
      { _id: groupKey(workspaceId, translationGroupId) },
      { $set: { workspaceId: ws(workspaceId) }, $addToSet: { postIds: { $each: postIds } } },
      { upsert: true },
    );
  }

  return {
    /** null when (locale, slug) is taken. */
    async create(
      workspaceId: string,
      input: { type: string; postTypeId: string; locale: string; translationGroupId: string; draft: PostContent },
    ): Promise<Post | null> {
      const _id = new Types.ObjectId();
      // Body and group entry first: a post document never lacks them.
      await Promise.all([
        writeBody(workspaceId, _id.toHexString(), 'draft', bodyOf(input.draft)),
        joinGroup(workspaceId, input.translationGroupId, [_id.toHexString()]),
      ]);
      try {
        const doc = await model.create({
          _id,
          workspaceId: ws(workspaceId),
          type: input.type,
          postTypeId: input.postTypeId,
          locale: input.locale,
          translationGroupId: input.translationGroupId,
          state: 'DRAFT',
          ...fromContent(input.draft),
          pub: null,
          publishedAt: null,
          lastPublishedHash: null,
        });
        return { ...toHead(doc.toObject()), draft: input.draft, published: null };
      } catch (error) {
        await Promise.all([
          bodies.draft.deleteOne({ _id: _id.toHexString() }),
          groups.updateOne({ _id: groupKey(workspaceId, input.translationGroupId) }, { $pull: { postIds: _id.toHexString() } }),
        ]);
        if (isDuplicateKeyError(error)) return null;
        throw error;
      }
    },
    /**
     * Bulk import of already-published posts (benchmarks, migrations): a few inserts, no per-post checks,
     * so the caller guarantees unique slugs and valid categories.
     */
    async importPublished(
      workspaceId: string,
      posts: { type: string; postTypeId: string; locale: string; translationGroupId: string; content: PostContent; publishedAt: Date; hash: string }[],
    ): Promise<void> {
      const rows = posts.map((post) => ({ ...post, _id: new Types.ObjectId() }));
      for (const side of ['draft', 'published'] as const) {
        await bodies[side].insertMany(rows.map((row) => ({ _id: row._id.toHexString(), workspaceId: ws(workspaceId), ...bodyOf(row.content) })));
      }
      const members = new Map<string, string[]>();
      for (const row of rows) members.set(row.translationGroupId, [...(members.get(row.translationGroupId) ?? []), row._id.toHexString()]);
      for (const [groupId, postIds] of members) await joinGroup(workspaceId, groupId, postIds);
      await slugs.insertMany(rows.map((row) => ({ _id: slugKey(workspaceId, row.locale, row.content.slug), workspaceId: ws(workspaceId), postId: row._id.toHexString() })));
      await model.insertMany(
        rows.map((row) => ({
          _id: row._id,
          workspaceId: ws(workspaceId),
          type: row.type,
          postTypeId: row.postTypeId,
          locale: row.locale,
          translationGroupId: row.translationGroupId,
          state: 'PUBLISHED',
          ...fromContent(row.content),
          pub: fromContent(row.content),
          publishedAt: row.publishedAt,
          lastPublishedHash: row.hash,
        })),
      );
    },
    /** The post with both bodies. */
    async byId(workspaceId: string, id: string): Promise<Post | null> {
      const doc = await docById(workspaceId, id);
      return doc ? withBodiesOne(doc) : null;
    },
    /** Without bodies: point reads by `_id` for a few ids (navigations), one `$in` query for many. */
    async byIds(workspaceId: string, ids: string[]): Promise<PostHead[]> {
      const unique = [...new Set(ids.filter(isObjectIdHex))];
      const docs =
        unique.length <= POINT_READS_MAX
          ? await Promise.all(unique.map((id) => docById(workspaceId, id)))
          : await model.find({ workspaceId: ws(workspaceId), _id: { $in: unique.map(oid) } }).lean<PostDoc[]>();
      return docs.filter((doc): doc is PostDoc => doc !== null).map(toHead);
    },
    async inGroup(workspaceId: string, translationGroupId: string): Promise<PostHead[]> {
      const docs = await model.find({ workspaceId: ws(workspaceId), translationGroupId }).lean<PostDoc[]>();
      return docs.map(toHead);
    },
    /** Another post of the workspace whose draft or published slug is `slug` in `locale`. */
    async slugUsedByOther(workspaceId: string, locale: string, slug: string, exceptId: string | null): Promise<boolean> {
      const filter: Record<string, unknown> = { workspaceId: ws(workspaceId), locale, $or: [{ slug }, { 'pub.slug': slug }] };
      if (exceptId) filter._id = { $ne: oid(exceptId) };
      return (await model.exists(filter)) !== null;
    },
    async list(
      workspaceId: string,
      filter: { type?: string; locale?: string; state?: PostState },
      skip: number,
      limit: number,
    ): Promise<{ items: Post[]; total: number }> {
      const query: Record<string, unknown> = { workspaceId: ws(workspaceId) };
      if (filter.type) query.type = filter.type;
      if (filter.locale) query.locale = filter.locale;
      if (filter.state) query.state = filter.state;
      const [docs, total] = await Promise.all([
        model.find(query).sort({ _id: -1 }).skip(skip).limit(limit).lean<PostDoc[]>(),
        model.countDocuments(query),
      ]);
      return { items: await withBodies(workspaceId, docs.map(toHead)), total };
    },
    /** undefined when missing, null when the slug clashes. */
    async updateDraft(workspaceId: string, id: string, draft: PostContent): Promise<Post | null | undefined> {
      try {
        const doc = await model
          .findOneAndUpdate({ workspaceId: ws(workspaceId), _id: oid(id) }, { $set: fromContent(draft) }, { returnDocument: 'after' })
          .lean<PostDoc>();
        if (!doc) return undefined;
        await writeBody(workspaceId, id, 'draft', bodyOf(draft));
        return withBodiesOne(doc);
      } catch (error) {
        if (isDuplicateKeyError(error)) return null;
        throw error;
      }
    },
    /** The published body is written before the snapshot that goes with it. */
    async setPublished(workspaceId: string, id: string, snapshot: PostContent, publishedAt: Date, hash: string): Promise<Post | null> {
      await writeBody(workspaceId, id, 'published', bodyOf(snapshot));
      const doc = await model
        .findOneAndUpdate(
          { workspaceId: ws(workspaceId), _id: oid(id) },
          { $set: { state: 'PUBLISHED', pub: fromContent(snapshot), publishedAt, lastPublishedHash: hash } },
          { returnDocument: 'after' },
        )
        .lean<PostDoc>();
      return doc ? withBodiesOne(doc) : null;
    },
    /** Moves PUBLISHED to UNPUBLISHED; null when the post was not published (nothing changed). */
    async unpublish(workspaceId: string, id: string): Promise<Post | null> {
      const doc = await model
        .findOneAndUpdate({ workspaceId: ws(workspaceId), _id: oid(id), state: 'PUBLISHED' }, { $set: { state: 'UNPUBLISHED' } }, { returnDocument: 'after' })
        .lean<PostDoc>();
      return doc ? withBodiesOne(doc) : null;
    },
    /** Deletes the post, then its bodies, group membership and published slug entry. */
    async remove(workspaceId: string, id: string): Promise<PostHead | null> {
      if (!isObjectIdHex(id)) return null;
      const doc = await model.findOneAndDelete({ workspaceId: ws(workspaceId), _id: oid(id) }).lean<PostDoc>();
      if (!doc) return null;
      const head = toHead(doc);
      await Promise.all([
        bodies.draft.deleteOne({ _id: id }),
        bodies.published.deleteOne({ _id: id }),
        groups.updateOne({ _id: groupKey(workspaceId, head.translationGroupId) }, { $pull: { postIds: id } }),
        head.published ? slugs.deleteOne({ _id: slugKey(workspaceId, head.locale, head.published.slug), postId: id }) : null,
      ]);
      return head;
    },

    /* ---- published slugs (`post_slugs`): one entry per published snapshot, unique per (workspace, locale) ---- */

    /**
     * Claims the published slug for a publish of `postId`: true when it is free, already this post's, or held
     * by an entry no live published post backs (an unpublished or re-slugged post, or a write cut short);
     * false when another PUBLISHED post serves this slug in this locale.
     */
    async claimPublishedSlug(workspaceId: string, locale: string, slug: string, postId: string): Promise<boolean> {
      const _id = slugKey(workspaceId, locale, slug);
      for (let attempt = 0; attempt < 3; attempt += 1) {
        try {
          await slugs.create({ _id, workspaceId: ws(workspaceId), postId });
          return true;
        } catch (error) {
          if (!isDuplicateKeyError(error)) throw error;
        }
        const entry = await slugs.findOne({ _id }).lean<PostSlugDoc>();
        if (!entry) continue;
        if (entry.postId === postId) return true;
        const holder = await docById(workspaceId, entry.postId);
        if (holder && holder.state === 'PUBLISHED' && holder.locale === locale && holder.pub?.slug === slug) return false;
        const taken = await slugs.updateOne({ _id, postId: entry.postId }, { $set: { postId } });
        if (taken.modifiedCount === 1) return true;
      }
      throw new Error(`could not settle the published slug ${_id}`);
    },
    /** Drops the entry if `postId` still holds it. */
    async releasePublishedSlug(workspaceId: string, locale: string, slug: string, postId: string): Promise<void> {
      await slugs.deleteOne({ _id: slugKey(workspaceId, locale, slug), postId });
    },

    /* ---- public reads: only PUBLISHED posts, only their snapshot ---- */

    async listPublished(workspaceId: string, query: PublicPostQuery): Promise<{ items: PublishedPost[]; total: number }> {
      const filter: Record<string, unknown> = { workspaceId: ws(workspaceId), state: 'PUBLISHED' };
      if (query.type) filter.type = query.type;
      if (query.locale) filter.locale = query.locale;
      if (query.qPattern !== null) {
        filter.$or = [{ 'pub.title': { $regex: query.qPattern, $options: 'i' } }, { 'pub.slug': { $regex: query.qPattern, $options: 'i' } }];
      }
      const projection = { slug: 0, title: 0, customConfigJson: 0, jsonLdJson: 0, metaDescription: 0 } as const;
      // In parallel: a page past the end is simply empty.
      const [total, docs] = await Promise.all([
        model.countDocuments(filter),
        model.find(filter, projection).sort({ publishedAt: -1, _id: -1 }).skip(query.skip).limit(query.limit).lean<PostDoc[]>(),
      ]);
      return { items: docs.map(toPublished), total };
    },
    /** The published bodies of these posts by post id (missing ones read as null bodies). */
    async publishedBodies(workspaceId: string, postIds: string[]): Promise<Map<string, PostBody>> {
      const found = await bodiesOf(workspaceId, 'published', postIds);
      return new Map(postIds.map((id) => [id, found.get(id) ?? noBody]));
    },
    /**
     * The published posts with this slug in any of `locales` (the caller picks by locale order): a slug entry
     * per locale, then the post, by `_id` only; an entry is believed only if its post serves that slug.
     */
    async publishedBySlugIn(workspaceId: string, locales: string[], slug: string): Promise<PublishedPost[]> {
      const docs = await Promise.all(
        [...new Set(locales)].map(async (locale) => {
          const entry = await slugs.findOne({ _id: slugKey(workspaceId, locale, slug) }).lean<PostSlugDoc>();
          const doc = entry ? await docById(workspaceId, entry.postId) : null;
          return doc && doc.state === 'PUBLISHED' && doc.locale === locale && doc.pub?.slug === slug ? doc : null;
        }),
      );
      return docs.filter((doc): doc is PostDoc => doc !== null).map(toPublished);
    },
    /** The published posts of one translation group: its `post_groups` entry, then each post, by `_id` only. */
    async publishedInGroup(workspaceId: string, translationGroupId: string): Promise<PublishedPost[]> {
      const entry = await groups.findOne({ _id: groupKey(workspaceId, translationGroupId) }).lean<PostGroupDoc>();
      if (!inWorkspace(entry, workspaceId)) return [];
      const docs = await Promise.all([...new Set(entry!.postIds)].map((id) => docById(workspaceId, id)));
      return docs
        .filter((doc): doc is PostDoc => doc !== null && doc.state === 'PUBLISHED' && doc.translationGroupId === translationGroupId)
        .map(toPublished);
    },
    async publishedInGroups(workspaceId: string, groupIds: string[]): Promise<PublishedPost[]> {
      if (groupIds.length === 0) return [];
      const docs = await model.find({ workspaceId: ws(workspaceId), translationGroupId: { $in: groupIds }, state: 'PUBLISHED' }).lean<PostDoc[]>();
      return docs.map(toPublished);
    },
    async publishedCategoryIds(workspaceId: string, locale: string | null): Promise<string[]> {
      const filter: Record<string, unknown> = { workspaceId: ws(workspaceId), state: 'PUBLISHED' };
      if (locale) filter.locale = locale;
      const ids = (await model.distinct('pub.categoryId', filter)) as (string | null)[];
      return ids.filter((id): id is string => typeof id === 'string');
    },
  };
}

/* ------------------------------------------------------------------ navigations */

export type NavigationItemType = 'CUSTOM_URL' | 'POST' | 'HEADING';

export interface NavigationItem {
  id: string;
  parentId: string | null;
  position: number;
  type: NavigationItemType;
  customUrl: string | null;
  imageUrl: string | null;
  customConfig: Record<string, unknown> | null;
  labels: Record<string, string> | null;
  hiddenLocales: string[];
  postId: string | null;
}

export interface Navigation {
  id: string;
  key: string;
  name: string;
  items: NavigationItem[];
  createdAt: Date;
  updatedAt: Date;
}

interface NavigationItemDoc {
  id: string;
  parentId: string | null;
  position: number;
  type: NavigationItemType;
  customUrl: string | null;
  imageUrl: string | null;
  customConfigJson: string | null;
  // Locale codes as keys: stored as JSON text like every other user-keyed map.
  labelsJson: string | null;
  hiddenLocales: string[];
  postId: string | null;
}

interface NavigationDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  key: string;
  name: string;
  items: NavigationItemDoc[];
  createdAt: Date;
  updatedAt: Date;
}

const navigationItemSchema = new Schema<NavigationItemDoc>(
  {
    id: { type: String, required: true },
    parentId: { type: String, default: null },
    position: { type: Number, required: true },
    type: { type: String, required: true },
    customUrl: { type: String, default: null },
    imageUrl: { type: String, default: null },
    customConfigJson: { type: String, default: null },
    labelsJson: { type: String, default: null },
    hiddenLocales: { type: [String], default: [] },
    postId: { type: String, default: null },
  },
  { _id: false },
);

const navigationSchema = new Schema<NavigationDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    key: { type: String, required: true },
    name: { type: String, required: true },
    items: { type: [navigationItemSchema], default: [] },
  },
  { timestamps: true, collection: 'navigations' },
);
// `GET /external/navigations/:key`; one navigation per key in a workspace (re-key answers 409 on a clash).
navigationSchema.index({ workspaceId: 1, key: 1 }, { unique: true });

const Navigations = defineModel('Navigation', navigationSchema);

function toNavigation(doc: NavigationDoc): Navigation {
  return {
    id: doc._id.toHexString(),
    key: doc.key,
    name: doc.name,
    items: (doc.items ?? []).map((item) => ({
      id: item.id,
      parentId: item.parentId ?? null,
      position: item.position,
      type: item.type,
      customUrl: item.customUrl ?? null,
      imageUrl: item.imageUrl ?? null,
      customConfig: loadJson(item.customConfigJson),
      labels: loadJson(item.labelsJson),
      hiddenLocales: item.hiddenLocales ?? [],
      postId: item.postId ?? null,
    })),
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

export function navigationStore(db: Connection) {
  const model = Navigations(db);
  return {
    async list(workspaceId: string): Promise<Navigation[]> {
      const docs = await model.find({ workspaceId: oid(workspaceId) }).sort({ key: 1 }).lean<NavigationDoc[]>();
      return docs.map(toNavigation);
    },
    async byId(workspaceId: string, id: string): Promise<Navigation | null> {
      if (!isObjectIdHex(id)) return null;
      const doc = await model.findOne({ workspaceId: oid(workspaceId), _id: oid(id) }).lean<NavigationDoc>();
      return doc ? toNavigation(doc) : null;
    },
    async byKey(workspaceId: string, key: string): Promise<Navigation | null> {
      const doc = await model.findOne({ workspaceId: oid(workspaceId), key }).lean<NavigationDoc>();
      return doc ? toNavigation(doc) : null;
    },
    /** null when the key is taken. */
    async create(workspaceId: string, input: { key: string; name: string }): Promise<Navigation | null> {
      return nullOnDuplicate(async () => {
        const doc = await model.create({ workspaceId: oid(workspaceId), ...input, items: [] });
        return toNavigation(doc.toObject());
      });
    },
    /** undefined when missing, null when the new key is taken. */
    async rename(workspaceId: string, id: string, patch: { key?: string; name?: string }): Promise<Navigation | null | undefined> {
      if (!isObjectIdHex(id)) return undefined;
      return nullOnDuplicate(async () => {
        const doc = await model
          .findOneAndUpdate({ workspaceId: oid(workspaceId), _id: oid(id) }, { $set: patch }, { returnDocument: 'after' })
          .lean<NavigationDoc>();
        return doc ? toNavigation(doc) : undefined;
      });
    },
    async replaceItems(workspaceId: string, id: string, items: NavigationItem[]): Promise<Navigation | null> {
      const stored: NavigationItemDoc[] = items.map((item) => ({
        id: item.id,
        parentId: item.parentId,
        position: item.position,
        type: item.type,
        customUrl: item.customUrl,
        imageUrl: item.imageUrl,
        customConfigJson: storeJson(item.customConfig),
        labelsJson: storeJson(item.labels),
        hiddenLocales: item.hiddenLocales,
        postId: item.postId,
      }));
      const doc = await model
        .findOneAndUpdate({ workspaceId: oid(workspaceId), _id: oid(id) }, { $set: { items: stored } }, { returnDocument: 'after' })
        .lean<NavigationDoc>();
      return doc ? toNavigation(doc) : null;
    },
    async remove(workspaceId: string, id: string): Promise<Navigation | null> {
      if (!isObjectIdHex(id)) return null;
      const doc = await model.findOneAndDelete({ workspaceId: oid(workspaceId), _id: oid(id) }).lean<NavigationDoc>();
      return doc ? toNavigation(doc) : null;
    },
  };
}
