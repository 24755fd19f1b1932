import { type Connection } from 'mongoose';
import { tenantScope } from '../db/tenant-store.js';
import { offsetOf, type PageRequest } from '../shared/paging.js';
import { noBody, postBodyStore, type PostBody } from './post-bodies.model.js';
import { postGroupStore } from './post-groups.model.js';
import { postSlugStore } from './post-slugs.model.js';
import { Posts, toFields, type PostDoc, type PostFields } from './posts.model.js';

export interface PublicPostQuery extends PageRequest {
  type: string | null;
  locale: string | null;
  /** Already escaped: matched as a literal, case-insensitive substring. */
  qPattern: string | null;
  categoryId?: string;
  /** Every one must be among the post's tags. */
  tags?: string[];
  authorName?: string;
  /** Only posts whose snapshot was published at or after this time. */
  since?: Date;
  /** Default: `publishedAt` desc, then id desc. */
  sort?: { field: 'publishedAt' | 'title'; direction: 1 | -1 };
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

/** The draft fields are never shown publicly: left out of the reads of published posts. */
const PUBLIC_FIELDS = { slug: 0, title: 0, customConfigJson: 0, jsonLdJson: 0, metaDescription: 0 } as const;

/** The public side of posts: only PUBLISHED posts, only their snapshot; and the published-slug claims. */
export function publishedPostStore(db: Connection) {
  const model = Posts(db);
  const scope = tenantScope(model);
  const bodies = postBodyStore(db);
  const groups = postGroupStore(db);
  const slugs = postSlugStore(db);

  return {
    /**
     * Claims the published slug for a publish of `postId`: true when it is free, already this post's, or held
     * by an entry no live published post backs (an unpublished or re-slugged post, or a write cut short);
     * false when another PUBLISHED post serves this slug in this locale.
     */
    async claimSlug(workspaceId: string, locale: string, slug: string, postId: string): Promise<boolean> {
      for (let attempt = 0; attempt < 3; attempt += 1) {
        if (await slugs.insert(workspaceId, locale, slug, postId)) return true;
        const heldBy = await slugs.holder(workspaceId, locale, slug);
        if (!heldBy) continue;
        if (heldBy === postId) return true;
        const holder = await scope.byId(workspaceId, heldBy);
        if (holder && holder.state === 'PUBLISHED' && holder.locale === locale && holder.pub?.slug === slug) return false;
        if (await slugs.handOver(workspaceId, locale, slug, heldBy, postId)) return true;
      }
      throw new Error(`could not settle the published slug ${workspaceId}:${locale}:${slug}`);
    },
    /** Drops the entry if `postId` still holds it. */
    releaseSlug(workspaceId: string, locale: string, slug: string, postId: string): Promise<void> {
      return slugs.release(workspaceId, locale, slug, postId);
    },

    /** `publishedAt` desc, then id desc, unless `sort` says otherwise (ties always by id, same direction). */
    async list(workspaceId: string, query: PublicPostQuery): Promise<{ items: PublishedPost[]; total: number }> {
      const filter: Record<string, unknown> = { state: 'PUBLISHED' };
      if (query.type) filter.type = query.type;
      if (query.locale) filter.locale = query.locale;
      if (query.qPattern !== null) {
        filter.$or = [{ 'pub.title': { $regex: query.qPattern, $options: 'i' } }, { 'pub.slug': { $regex: query.qPattern, $options: 'i' } }];
      }
      if (query.categoryId) filter['pub.categoryId'] = query.categoryId;
      if (query.tags?.length) filter['pub.tags'] = { $all: query.tags };
      if (query.authorName !== undefined) filter['pub.authorName'] = query.authorName;
      if (query.since) filter.publishedAt = { $gte: query.since };
      const { field, direction } = query.sort ?? { field: 'publishedAt', direction: -1 };
      const order: Record<string, 1 | -1> = { [field === 'title' ? 'pub.title' : 'publishedAt']: direction, _id: direction };
      const where = scope.filter(workspaceId, filter);
      // In parallel: a page past the end is simply empty.
      const [total, docs] = await Promise.all([
        model.countDocuments(where),
        model.find(where, PUBLIC_FIELDS).sort(order).skip(offsetOf(query)).limit(query.limit).lean<PostDoc[]>(),
      ]);
      return { items: docs.map(toPublished), total };
    },
    /** Every published post of the workspace, with one read (what a node keeps of it: `keptPublished`). */
    async all(workspaceId: string): Promise<PublishedPost[]> {
      const docs = await model.find(scope.filter(workspaceId, { state: 'PUBLISHED' }), PUBLIC_FIELDS).lean<PostDoc[]>();
      return docs.map(toPublished);
    },
    /** The published bodies of these posts by post id (missing ones read as null bodies). */
    async bodies(workspaceId: string, postIds: string[]): Promise<Map<string, PostBody>> {
      const found = await bodies.of(workspaceId, 'published', postIds);
      return new Map(postIds.map((id) => [id, found.get(id) ?? noBody]));
    },
    /**
     * The published post with this slug in the first of `locales` that has one: per locale in turn, its slug
     * entry, then the post, by `_id` only; an entry is believed only if its post serves that slug. In turn,
     * not at once: most slugs are found in the first locale, and each locale tried costs a read.
     */
    async bySlugFirst(workspaceId: string, locales: string[], slug: string): Promise<PublishedPost | null> {
      for (const locale of new Set(locales)) {
        const postId = await slugs.holder(workspaceId, locale, slug);
        const doc = postId ? await scope.byId(workspaceId, postId) : null;
        if (doc && doc.state === 'PUBLISHED' && doc.locale === locale && doc.pub?.slug === slug) return toPublished(doc);
      }
      return null;
    },
    /**
     * The published posts of one translation group: its `post_groups` entry, then each post, by `_id` only;
     * `known` (a published member just read) is not read again.
     */
    async inGroup(workspaceId: string, translationGroupId: string, known?: PublishedPost): Promise<PublishedPost[]> {
      const postIds = await groups.members(workspaceId, translationGroupId);
      const docs = await Promise.all(postIds.filter((id) => id !== known?.id).map((id) => scope.byId(workspaceId, id)));
      const others = docs
        .filter((doc): doc is PostDoc => doc !== null && doc.state === 'PUBLISHED' && doc.translationGroupId === translationGroupId)
        .map(toPublished);
      return known && postIds.includes(known.id) ? [known, ...others] : others;
    },
    async inGroups(workspaceId: string, groupIds: string[]): Promise<PublishedPost[]> {
      if (groupIds.length === 0) return [];
      const docs = await scope.find(workspaceId, { translationGroupId: { $in: groupIds }, state: 'PUBLISHED' });
      return docs.map(toPublished);
    },
    /** The published posts that show this media item, and how (`image`, `body`). */
    async usingMedia(workspaceId: string, mediaId: string): Promise<{ id: string; title: string; locale: string; as: ('image' | 'body')[] }[]> {
      const docs = await scope.find(workspaceId, { state: 'PUBLISHED', $or: [{ 'pub.imageMediaId': mediaId }, { 'pub.bodyMediaIds': mediaId }] });
      return docs.map((doc) => ({
        id: doc._id.toHexString(),
        title: doc.pub?.title ?? '',
        locale: doc.locale,
        as: [...(doc.pub?.imageMediaId === mediaId ? (['image'] as const) : []), ...(doc.pub?.bodyMediaIds?.includes(mediaId) ? (['body'] as const) : [])],
      }));
    },
    async categoryIds(workspaceId: string, locale: string | null): Promise<string[]> {
      const filter: Record<string, unknown> = { state: 'PUBLISHED' };
      if (locale) filter.locale = locale;
      const ids: unknown[] = await model.distinct('pub.categoryId', scope.filter(workspaceId, filter));
      return ids.filter((id): id is string => typeof id === 'string');
    },
  };
}
