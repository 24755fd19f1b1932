import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { z } from 'zod';
import { route, type Reply, type RouteDef } from '../http/route.js';
import {
  adminNavigationSchema,
  adminPostListSchema,
  adminPostSchema,
  adminPostsQuery,
  analyticsConfigSchema,
  categoriesQuery,
  categoryParams,
  categorySchema,
  createCategoryBody,
  createNavigationBody,
  createPostBody,
  createPostTypeBody,
  listPostsQuery,
  navigationKeyParams,
  navigationParams,
  navigationSchema,
  patchCategoryBody,
  patchNavigationBody,
  patchPostBody,
  postListSchema,
  postParams,
  postTypeSchema,
  replaceItemsBody,
  singlePostQuery,
  singlePostSchema,
  slugParams,
  widParams,
} from './content.schemas.js';
import {
  analyticsConfig,
  createCategory,
  createNavigation,
  createPost,
  createPostType,
  deleteCategory,
  deleteNavigation,
  deletePost,
  editDraft,
  getNavigation,
  getPost,
  getPublicNavigation,
  getPublicPost,
  listCategoriesAdmin,
  listNavigations,
  listPostsAdmin,
  listPostTypes,
  listPublicCategories,
  listPublicPosts,
  publishPost,
  renameNavigation,
  replaceNavigationItems,
  toAdminNavigation,
  toAdminPost,
  unpublishPost,
  updateCategory,
} from './content.service.js';

const external = ['External: content'];
const adminTags = ['Content'];

/**
 * Content answers carry a weak ETag (Express) and `Vary: X-Api-Key, X-Publishable-Key` (app); `no-cache`
 * lets consumer caches keep them but revalidate each time with `If-None-Match`, answered 304 when unchanged.
 */
const REVALIDATE = { 'Cache-Control': 'no-cache' };

/**
 * Answers a content GET with a weak ETag over the JSON body, or a bodiless 304 when `If-None-Match`
 * names it. Evaluated here rather than by Express's freshness check, which ignores `If-None-Match`
 * whenever the request says `Cache-Control: no-cache` (as Node's fetch does for conditional requests):
 * an origin server evaluates the condition regardless.
 */
function cacheable(req: Request, body: unknown): Reply {
  const json = JSON.stringify(body);
  const etag = `W/"${Buffer.byteLength(json).toString(16)}-${createHash('sha1').update(json).digest('base64url')}"`;
  const headers = { ...REVALIDATE, ETag: etag };
  const presented = req.get('if-none-match');
  if (presented) {
    const tags = presented.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
    if (tags.includes('*') || tags.includes(etag.slice(2))) return { status: 304, headers };
  }
  return { body, headers };
}
const CACHING = 'Answers carry a weak `ETag`, `Cache-Control: no-cache` and `Vary: X-Api-Key, X-Publishable-Key`; send `If-None-Match` to get a bodiless 304 when nothing changed.';
const KEY_401 = 'Missing, unknown, revoked or wrong-kind key.';

const externalRoutes: RouteDef[] = [
  route({
    method: 'get',
    path: '/external/posts',
    summary: 'Published posts, newest first',
    description: [
      'Only PUBLISHED posts, as of their last publish (draft edits never show). Order: `publishedAt` desc, then `postId` desc (stable across pages).',
      '`type` defaults to `blog`; `*` means every type; an unknown type gives an empty list. `locale` omitted: every locale.',
      '`page`, `limit`, `force_limit` must be positive integers (else 400). `limit` above 50 is clamped to 50; `force_limit=N` sets the page size to min(N, 1000) and `limit` is then ignored. `pageInfo.limit` is the size used.',
      '`totalPages` is ceil(total / limit) (0 when nothing matches); a page past the end answers 200 with no items, `hasNext` false and `hasPrev` true.',
      '`include=content` inlines `contentHtml` and `contentMarkdown` (otherwise null); any other `include` value is 400.',
      '`q` (at most 200 chars): case-insensitive literal substring of the title or slug; regex metacharacters in it match themselves.',
      '`category` is null for a post without one. `jsonLd` is a schema.org object built from the post (`@type` from the post type, `BlogPosting` for `blog`), overlaid with the post\'s own `jsonLd`; null when neither is configured.',
      CACHING,
    ].join('\n\n'),
    tags: external,
    auth: 'workspaceKey',
    query: listPostsQuery,
    responses: { 200: { description: 'A page of posts.', schema: postListSchema }, 304: 'Unchanged since the ETag in `If-None-Match`.', 400: 'Invalid query parameter.', 401: KEY_401 },
    handle: async ({ deps, req, workspace, query }) => cacheable(req, await listPublicPosts(deps, workspace, query)),
  }),
  route({
    method: 'get',
    path: '/external/posts/:slug',
    summary: 'One published post by its slug',
    description: [
      'With `locale`: the slug in that locale only, else 404. Without: the workspace `defaultLocale` first, then the other served locales in the order of `workspace.locales`.',
      '`translations` lists every published locale variant of the post (itself included) in workspace locale order. `locale` and `type` name the variant served.',
      'As in the list, `contentHtml`/`contentMarkdown` are null unless `include=content`. Drafts, unpublished and deleted posts answer 404 exactly as if they never existed.',
      CACHING,
    ].join('\n\n'),
    tags: external,
    auth: 'workspaceKey',
    params: slugParams,
    query: singlePostQuery,
    responses: { 200: { description: 'The post.', schema: singlePostSchema }, 304: 'Unchanged since the ETag in `If-None-Match`.', 400: 'Invalid query parameter.', 401: KEY_401, 404: 'No published post with this slug in the locale(s).' },
    handle: async ({ deps, req, workspace, params, query }) => cacheable(req, await getPublicPost(deps, workspace, params.slug, query)),
  }),
  route({
    method: 'get',
    path: '/external/categories',
    summary: 'Categories with published posts',
    description: `\`locale\` defaults to the workspace \`defaultLocale\`: only categories with at least one published post in that locale. \`locale=*\` lists every category. Sorted by slug.\n\n${CACHING}`,
    tags: external,
    auth: 'workspaceKey',
    query: categoriesQuery,
    responses: { 200: { description: 'Categories.', schema: z.object({ items: z.array(categorySchema) }) }, 304: 'Unchanged since the ETag in `If-None-Match`.', 400: 'Invalid locale.', 401: KEY_401 },
    handle: async ({ deps, req, workspace, query }) => cacheable(req, { items: await listPublicCategories(deps, workspace, query.locale) }),
  }),
  route({
    method: 'get',
    path: '/external/navigations/:key',
    summary: 'A navigation by key, as a flat item list',
    description: [
      'Items come in menu order (depth-first, siblings by `position`); nesting is expressed by `parentId` (null at top level).',
      'Unset `customUrl`, `imageUrl`, `customConfig`, `labels` are null; `hiddenLocales` is always an array: the locales in which consumers should not show the item (and its children).',
      '`post` is set on POST items: `locales` lists the published translations of the post (empty while none is published: consumers hide such items). POST items whose post was deleted are left out, with their children.',
      CACHING,
    ].join('\n\n'),
    tags: external,
    auth: 'workspaceKey',
    params: navigationKeyParams,
    responses: { 200: { description: 'The navigation.', schema: navigationSchema }, 304: 'Unchanged since the ETag in `If-None-Match`.', 401: KEY_401, 404: 'No navigation with this key.' },
    handle: async ({ deps, req, workspace, params }) => cacheable(req, await getPublicNavigation(deps, workspace, params.key)),
  }),
  route({
    method: 'get',
    path: '/external/analytics-config',
    summary: 'Analytics tracker configuration',
    description: `\`{enabled: true, websiteId, scriptUrl}\` when analytics is set up for the workspace (\`PATCH /admin/workspaces/:wid\` \`analytics\`); otherwise only \`{enabled: false}\`.\n\n${CACHING}`,
    tags: external,
    auth: 'workspaceKey',
    responses: { 200: { description: 'The tracker config.', schema: analyticsConfigSchema }, 304: 'Unchanged since the ETag in `If-None-Match`.', 401: KEY_401 },
    handle: async ({ req, workspace }) => cacheable(req, analyticsConfig(workspace)),
  }),
];

const OWNER_ONLY = 'Owners and operators only (agents: 403).';

const adminRoutes: RouteDef[] = [
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/post-types',
    summary: 'Post types',
    description: '`blog` is always present.',
    tags: adminTags,
    auth: 'member',
    params: widParams,
    responses: { 200: { description: 'Post types, oldest first.', schema: z.object({ items: z.array(postTypeSchema) }) } },
    handle: async ({ deps, workspace }) => ({ body: { items: await listPostTypes(deps, workspace) } }),
  }),
  route({
    method: 'post',
    path: '/admin/workspaces/:wid/post-types',
    summary: 'Create a post type',
    description: `\`defaultConfig\` becomes the \`customConfig\` of new posts of the type that bring none. \`jsonLdType\` (e.g. \`Recipe\`) makes the posts' \`jsonLd\` a schema.org object of that type. ${OWNER_ONLY}`,
    tags: adminTags,
    auth: 'member',
    role: 'owner',
    params: widParams,
    body: createPostTypeBody,
    responses: { 201: { description: 'Created.', schema: postTypeSchema }, 400: 'Invalid body.', 409: 'Slug taken.' },
    handle: async ({ deps, workspace, body }) => ({ status: 201, body: await createPostType(deps, workspace, body) }),
  }),
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/categories',
    summary: 'All categories',
    tags: adminTags,
    auth: 'member',
    params: widParams,
    responses: { 200: { description: 'Categories by slug.', schema: z.object({ items: z.array(categorySchema) }) } },
    handle: async ({ deps, workspace }) => ({ body: { items: await listCategoriesAdmin(deps, workspace) } }),
  }),
  route({
    method: 'post',
    path: '/admin/workspaces/:wid/categories',
    summary: 'Create a category',
    description: OWNER_ONLY,
    tags: adminTags,
    auth: 'member',
    role: 'owner',
    params: widParams,
    body: createCategoryBody,
    responses: { 201: { description: 'Created.', schema: categorySchema }, 400: 'Invalid body.', 409: 'Slug taken.' },
    handle: async ({ deps, workspace, body }) => ({ status: 201, body: await createCategory(deps, workspace, body) }),
  }),
  route({
    method: 'patch',
    path: '/admin/workspaces/:wid/categories/:cid',
    summary: 'Rename a category',
    description: `Takes effect publicly at once (categories are not drafted). ${OWNER_ONLY}`,
    tags: adminTags,
    auth: 'member',
    role: 'owner',
    params: categoryParams,
    body: patchCategoryBody,
    responses: { 200: { description: 'Updated.', schema: categorySchema }, 404: 'No such category.', 409: 'Slug taken.' },
    handle: async ({ deps, workspace, params, body }) => ({ body: await updateCategory(deps, workspace, params.cid, body) }),
  }),
  route({
    method: 'delete',
    path: '/admin/workspaces/:wid/categories/:cid',
    summary: 'Delete a category',
    description: `Posts that used it answer \`category: null\` from then on. ${OWNER_ONLY}`,
    tags: adminTags,
    auth: 'member',
    role: 'owner',
    params: categoryParams,
    responses: { 204: 'Deleted.', 404: 'No such category.' },
    handle: async ({ deps, workspace, params }) => {
      await deleteCategory(deps, workspace, params.cid);
      return { status: 204 };
    },
  }),
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/posts',
    summary: 'Posts with their state',
    description: 'Drafts, published and unpublished posts, newest created first; filters `type`, `locale`, `state`; `page`, `limit` (at most 100, default 50).',
    tags: adminTags,
    auth: 'member',
    params: widParams,
    query: adminPostsQuery,
    responses: { 200: { description: 'A page of posts.', schema: adminPostListSchema } },
    handle: async ({ deps, workspace, query }) => {
      const { items, pageInfo } = await listPostsAdmin(deps, workspace, query);
      return { body: { items: items.map(toAdminPost), pageInfo } };
    },
  }),
  route({
    method: 'post',
    path: '/admin/workspaces/:wid/posts',
    summary: 'Create a post (as a draft)',
    description: [
      '`type` defaults to `blog`. `locale` must be one of the workspace locales. `translationOf` joins that post\'s translation group and takes its `canonicalSlug` (a different one is 400; a second post of the same locale in the group is 409 `translation_exists`). Without it a new group starts and `canonicalSlug` defaults to `slug`.',
      '`(locale, slug)` is unique in the workspace, drafts included: 409 `slug_taken`. `customConfig` defaults to the type\'s `defaultConfig`.',
      'Markdown alone renders the HTML (GitHub-flavoured `marked`); given HTML is kept. Either way the HTML is sanitized (`sanitize-html`: no scripts, event handlers or `javascript:` links).',
      OWNER_ONLY,
    ].join('\n\n'),
    tags: adminTags,
    auth: 'member',
    role: 'owner',
    params: widParams,
    body: createPostBody,
    responses: { 201: { description: 'The draft.', schema: adminPostSchema }, 400: 'Invalid body.', 409: 'Slug taken or translation exists.' },
    handle: async ({ deps, workspace, body }) => ({ status: 201, body: toAdminPost(await createPost(deps, workspace, body)) }),
  }),
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/posts/:pid',
    summary: 'One post (draft and published snapshot)',
    tags: adminTags,
    auth: 'member',
    params: postParams,
    responses: { 200: { description: 'The post.', schema: adminPostSchema }, 404: 'No such post.' },
    handle: async ({ deps, workspace, params }) => ({ body: toAdminPost(await getPost(deps, workspace, params.pid)) }),
  }),
  route({
    method: 'patch',
    path: '/admin/workspaces/:wid/posts/:pid',
    summary: 'Edit the draft',
    description: `Changes only the draft: nothing changes publicly until publish. \`type\`, \`locale\` and \`canonicalSlug\` are fixed at creation (unknown fields are 400). New markdown without HTML re-renders the HTML. ${OWNER_ONLY}`,
    tags: adminTags,
    auth: 'member',
    role: 'owner',
    params: postParams,
    body: patchPostBody,
    responses: { 200: { description: 'The post.', schema: adminPostSchema }, 400: 'Invalid body.', 404: 'No such post.', 409: 'Slug taken.' },
    handle: async ({ deps, workspace, params, body }) => ({ body: toAdminPost(await editDraft(deps, workspace, params.pid, body)) }),
  }),
  route({
    method: 'post',
    path: '/admin/workspaces/:wid/posts/:pid/publish',
    summary: 'Publish the draft',
    description: [
      'Copies the draft to the public snapshot. `publishedAt` is re-stamped and `post.published` emitted on the first publish, after an unpublish (even with identical content), and when the content hash of the published fields differs from the last publish.',
      'Publishing identical content again is a no-op: 200, `publishedAt` unchanged, no event. 409 `slug_taken` when another published post holds the slug in this locale.',
      OWNER_ONLY,
    ].join('\n\n'),
    tags: adminTags,
    auth: 'member',
    role: 'owner',
    params: postParams,
    responses: { 200: { description: 'The post.', schema: adminPostSchema }, 404: 'No such post.', 409: 'Slug taken.' },
    handle: async ({ deps, workspace, params }) => ({ body: toAdminPost((await publishPost(deps, workspace, params.pid)).post) }),
  }),
  route({
    method: 'post',
    path: '/admin/workspaces/:wid/posts/:pid/unpublish',
    summary: 'Unpublish',
    description: `Hides the post publicly and emits \`post.unpublished\`. Idempotent: a post that is not published is returned unchanged, without an event. ${OWNER_ONLY}`,
    tags: adminTags,
    auth: 'member',
    role: 'owner',
    params: postParams,
    responses: { 200: { description: 'The post.', schema: adminPostSchema }, 404: 'No such post.' },
    handle: async ({ deps, workspace, params }) => ({ body: toAdminPost(await unpublishPost(deps, workspace, params.pid)) }),
  }),
  route({
    method: 'delete',
    path: '/admin/workspaces/:wid/posts/:pid',
    summary: 'Delete a post',
    description: `Emits \`post.unpublished\` when the post was published. Navigation items pointing at it disappear from the public navigation. ${OWNER_ONLY}`,
    tags: adminTags,
    auth: 'member',
    role: 'owner',
    params: postParams,
    responses: { 204: 'Deleted.', 404: 'No such post.' },
    handle: async ({ deps, workspace, params }) => {
      await deletePost(deps, workspace, params.pid);
      return { status: 204 };
    },
  }),
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/navigations',
    summary: 'Navigations',
    tags: adminTags,
    auth: 'member',
    params: widParams,
    responses: { 200: { description: 'Navigations by key.', schema: z.object({ items: z.array(adminNavigationSchema) }) } },
    handle: async ({ deps, workspace }) => ({ body: { items: (await listNavigations(deps, workspace)).map(toAdminNavigation) } }),
  }),
  route({
    method: 'post',
    path: '/admin/workspaces/:wid/navigations',
    summary: 'Create a navigation',
    description: `Emits \`navigation.created\`. \`key\`: lowercase letters, digits, \`-\`, \`_\`. ${OWNER_ONLY}`,
    tags: adminTags,
    auth: 'member',
    role: 'owner',
    params: widParams,
    body: createNavigationBody,
    responses: { 201: { description: 'Created (no items).', schema: adminNavigationSchema }, 400: 'Invalid body.', 409: 'Key taken.' },
    handle: async ({ deps, workspace, body }) => ({ status: 201, body: toAdminNavigation(await createNavigation(deps, workspace, body)) }),
  }),
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/navigations/:nid',
    summary: 'One navigation',
    tags: adminTags,
    auth: 'member',
    params: navigationParams,
    responses: { 200: { description: 'The navigation.', schema: adminNavigationSchema }, 404: 'No such navigation.' },
    handle: async ({ deps, workspace, params }) => ({ body: toAdminNavigation(await getNavigation(deps, workspace, params.nid)) }),
  }),
  route({
    method: 'patch',
    path: '/admin/workspaces/:wid/navigations/:nid',
    summary: 'Rename or re-key a navigation',
    description: `Emits \`navigation.updated\` when the key or name changed. ${OWNER_ONLY}`,
    tags: adminTags,
    auth: 'member',
    role: 'owner',
    params: navigationParams,
    body: patchNavigationBody,
    responses: { 200: { description: 'Updated.', schema: adminNavigationSchema }, 400: 'Invalid body.', 404: 'No such navigation.', 409: 'Key taken.' },
    handle: async ({ deps, workspace, params, body }) => ({ body: toAdminNavigation(await renameNavigation(deps, workspace, params.nid, body)) }),
  }),
  route({
    method: 'delete',
    path: '/admin/workspaces/:wid/navigations/:nid',
    summary: 'Delete a navigation',
    description: `Emits \`navigation.deleted\`. ${OWNER_ONLY}`,
    tags: adminTags,
    auth: 'member',
    role: 'owner',
    params: navigationParams,
    responses: { 204: 'Deleted.', 404: 'No such navigation.' },
    handle: async ({ deps, workspace, params }) => {
      await deleteNavigation(deps, workspace, params.nid);
      return { status: 204 };
    },
  }),
  route({
    method: 'put',
    path: '/admin/workspaces/:wid/navigations/:nid/items',
    summary: 'Replace the item tree',
    description: [
      'Replaces every item at once (at most 500). `id`/`parentId` may be client ids referring to other items of the request; ids of this navigation\'s current items are kept, others are replaced by server ids.',
      'Each rule failure is a 400 with an issue at `items.<index>.<field>`: CUSTOM_URL needs `customUrl` (absolute http(s), `/path`, `#anchor`, `mailto:` or `tel:`) and at least one label; HEADING needs a label; POST needs `postId` of a post of this workspace; only CUSTOM_URL has `customUrl` and only POST has `postId`; ids unique; `parentId` names another item of the request; no cycles; `position` unique among siblings.',
      `Emits \`navigation.items.replaced\`. ${OWNER_ONLY}`,
    ].join('\n\n'),
    tags: adminTags,
    auth: 'member',
    role: 'owner',
    params: navigationParams,
    body: replaceItemsBody,
    responses: { 200: { description: 'The navigation with its stored items (menu order).', schema: adminNavigationSchema }, 400: 'Invalid items.', 404: 'No such navigation.' },
    handle: async ({ deps, workspace, params, body }) => ({
      body: toAdminNavigation(await replaceNavigationItems(deps, workspace, params.nid, body.items)),
    }),
  }),
];

export const contentRoutes: RouteDef[] = [...externalRoutes, ...adminRoutes];
