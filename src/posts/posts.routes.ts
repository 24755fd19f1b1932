import { z } from 'zod';
import { IF_MATCH_NOTE, VERSION_MISMATCH, ifMatchVersions, versioned } from '../http/versioned.js';
import { conditionalGet, CONDITIONAL_GET_NOTE, NOT_MODIFIED } from '../http/conditional-get.js';
import { route, type RouteDef } from '../http/route.js';
import { categorySchema } from '../categories/categories.schemas.js';
import { SLUG_RULE } from '../shared/slug.js';
import {
  adminPostListSchema,
  adminPostSchema,
  adminPostsQuery,
  categoriesQuery,
  changesQuery,
  createPostBody,
  listPostsQuery,
  patchPostBody,
  postListSchema,
  postChangesSchema,
  postParams,
  previewRenderBody,
  previewRenderSchema,
  previewTokenBody,
  previewTokenSchema,
  publicationBody,
  scheduleEntrySchema,
  scheduleListSchema,
  scheduleParams,
  singlePostQuery,
  singlePostSchema,
  slugParams,
  widParams,
} from './posts.schemas.js';
import { createPost, deletePost, editDraft, getPost, listPostsAdmin, toAdminPost } from './posts.service.js';
import { cancelSchedule, listSchedule, publishOrSchedule, toScheduleEntry, type PublicationOutcome } from './schedule.service.js';
import { listChanges } from './post-changes.service.js';
import { renderPreview } from './post-media.service.js';
import { mintPreviewToken, previewPost, revokePreviewToken } from './preview.service.js';
import { listPublicCategories, publicPostAnswer, publicPostsAnswer } from './public-posts.service.js';

const external = ['External: content'];
const adminTags = ['Content'];
const KEY_401 = 'Missing, unknown, revoked or wrong-kind key.';
const EDITORS_ONLY = 'Editors, owners and operators only (agents: 403).';
const MEDIA_NOTE =
  'Media: `imageMediaId` names an image of this workspace\'s media library as the post\'s image (it wins over `imageUrl` while set; `null` clears it). ' +
  'Body images refer to the library as markdown `![alt](media:<id>)` (or `<img src="media:<id>">` in given HTML); the body keeps the reference and `/external` resolves it. ' +
  'An unknown id, another workspace\'s file or a PDF is 400 with an issue on `imageMediaId` or on the body field. `bodyMediaIds` (read-only) lists the body\'s references. ' +
  'A file a published post shows cannot be deleted (409 `media_in_use`); a draft\'s use does not keep it.';
const SCHEDULING = [
  'Optional body `{at}` (ISO 8601 date-time with offset). Without it, or with no body, the change happens at once (200 with the post). `at` in the future schedules it instead: 202 with the schedule entry, listed by `GET .../posts/:pid/schedule` until it runs, cancelable with `DELETE .../posts/:pid/schedule[/:sid]`.',
  'An `at` that is now or already past is not an error: the change happens at once, as without `at` (a request that crossed its own deadline still does what was asked). A malformed `at` is 400 with issues.',
  'At `at` a job runs exactly this operation as of then (the draft as it is then, the same content-hash rule and events); if the post was deleted meanwhile it does nothing. Its result is not reported back: a publish that cannot happen then (another published post took the slug) is dropped and logged.',
].join('\n\n');

/** 200 with the post for a change made now, 202 with the schedule entry for a later one. */
function publicationReply(outcome: PublicationOutcome) {
  return 'scheduled' in outcome ? { status: 202, body: toScheduleEntry(outcome.scheduled) } : versioned(toAdminPost(outcome.post));
}

/** The public reads; `GET /external/categories` too: it lists the categories published posts use. */
export const publicPostRoutes: RouteDef[] = [
  route({
    method: 'get',
    path: '/external/posts',
    cache: 'published',
    summary: 'Published posts, newest first',
    description: [
      'Only PUBLISHED posts, as of their last publish (draft edits never show). Order: `publishedAt` desc, then `postId` desc (stable across pages).',
      '`type` defaults to `blog`; `*` means every type; an unknown type gives an empty list; it is NFC-normalized and lowercased like every slug (one that breaks the slug rule is 400). `locale` omitted: every locale.',
      '`page`, `limit`, `force_limit` must be positive integers (else 400). `limit` above 50 is clamped to 50; `force_limit=N` sets the page size to min(N, 1000) and `limit` is then ignored. `pageInfo.limit` is the size used.',
      '`totalPages` is ceil(total / limit) (0 when nothing matches); a page past the end answers 200 with no items, `hasNext` false and `hasPrev` true.',
      '`include=content` inlines `contentHtml` and `contentMarkdown` (otherwise null); any other `include` value is 400.',
      '`q` (at most 200 chars): case-insensitive literal substring of the title or slug; regex metacharacters in it match themselves.',
      'Filters (combined with AND): `category=<slug>` (an unknown slug gives an empty list); `tag=<tag>`, repeatable up to 10 times (`?tag=a&tag=b`): the post must carry EVERY tag given (exact, case-sensitive); `author=<authorName>` (exact, 1 to 200 chars); `updatedSince=<ISO 8601 date-time with offset>`: only posts published or changed at or after that time (`publishedAt` is re-stamped on every public change).',
      '`sort`: `-publishedAt` (default, the order above), `publishedAt`, `title`, `-title` (binary order of the title), `updatedAt`, `-updatedAt` (when the public snapshot last changed, which is `publishedAt`: draft edits never count). Ties are broken by `postId` in the same direction, so pages are stable.',
      '`fields=slug,title,...`: a sparse fieldset over the list-item fields (`postId`, `slug`, `canonicalSlug`, `title`, `metaDescription`, `imageUrl`, `tags`, `category`, `authorName`, `customConfig`, `publishedAt`, `contentHtml`, `contentMarkdown`, `jsonLd`): each item carries only those, in that order; `pageInfo` is unchanged. The bodies still need `include=content`. An unknown or empty name is 400.',
      'Any other bad value (unknown `sort`, 11 tags, a malformed date) is 400 with issues; unknown parameters are ignored.',
      '`category` is null for a post without one. `jsonLd` is a schema.org object built from the post (`@type` from the post type, `BlogPosting` for `blog`), overlaid with the post\'s own `jsonLd`; null when neither is configured.',
      CONDITIONAL_GET_NOTE,
    ].join('\n\n'),
    tags: external,
    auth: 'workspaceKey',
    query: listPostsQuery,
    responses: { 200: { description: 'A page of posts.', schema: postListSchema }, 304: NOT_MODIFIED, 400: 'Invalid query parameter.', 401: KEY_401 },
    handle: async ({ deps, req, workspace, query }) => {
      const { list, dependsOn } = await publicPostsAnswer(deps, workspace, query);
      return { ...conditionalGet(req, list), dependsOn };
    },
  }),
  // Not under `/external/posts/`, where it would shadow a post slugged `changes`.
  route({
    method: 'get',
    path: '/external/changes',
    cache: 'published',
    summary: 'What changed publicly since a point (incremental sync)',
    description: [
      'The public changes of posts in order: `published` (first publish, republish with new content, or a new slug: key your copy by `postId`), `unpublished`, `deleted` (a post that was once published; never-published drafts never appear). `slug` and `locale` are the ones the post was served under.',
      '`since`: an ISO 8601 date-time (changes at or after it) or the `next` cursor of a previous answer (changes strictly after it); omitted: from the beginning. Anything else is 400.',
      '`limit`: 1 to 500 (default 500; above 500 is 400). `hasMore` says another page follows at once. Pass `next` as `since` on the next sync; with no new change it is returned unchanged.',
      CONDITIONAL_GET_NOTE,
    ].join('\n\n'),
    tags: external,
    auth: 'workspaceKey',
    query: changesQuery,
    responses: { 200: { description: 'A page of changes, oldest first.', schema: postChangesSchema }, 304: NOT_MODIFIED, 400: 'Invalid since or limit.', 401: KEY_401 },
    handle: async ({ deps, req, workspace, query }) => ({ ...conditionalGet(req, await listChanges(deps, workspace.id, query)), dependsOn: ['posts'] }),
  }),
  route({
    method: 'get',
    path: '/external/posts/:slug',
    cache: 'published',
    summary: 'One published post by its slug',
    description: [
      'With `locale`: the slug in that locale only, else 404. Without: the workspace `defaultLocale` first, then the other served locales in the order of `workspace.locales`.',
      '`:slug` is the percent-decoded path segment, NFC-normalized and lowercased like a stored slug: `/external/posts/caf%C3%A9` and `/external/posts/CAF%C3%89` both find `café`. A segment that cannot be a slug (a control character, over 200 characters, ...) answers 404 `post_not_found` like any unknown slug.',
      '`translations` lists every published locale variant of the post (itself included) in workspace locale order. `locale` and `type` name the variant served.',
      'Beyond the list item: `image`, the post\'s image in full when it is a media item of the library (`{id, url, width, height, alt, srcset: [{width, url}]}`, `alt` in the post\'s locale, else its language, else the workspace default locale, else empty; `srcset` over the fixed variant widths not larger than the original), else null; and `images`, the same for each media item the body shows, in order. With a media image, `imageUrl` (here and in lists) is its absolute `url`; bodies get each `media:<id>` resolved to that URL (with `srcset`, `width`/`height`, and the media\'s alt where the body gave none).',
      'As in the list, `contentHtml`/`contentMarkdown` are null unless `include=content`. Drafts, unpublished and deleted posts answer 404 exactly as if they never existed.',
      '`preview=<token>` (minted by `POST /admin/workspaces/:wid/posts/:pid/preview-token`): the current DRAFT of that one post, when `:slug` is its draft slug (and `locale`, if given, its locale); `publishedAt` is its last publish, or now for a post never published. Answered `Cache-Control: no-store`, never from or into the content cache. A wrong, revoked or expired token, or another post\'s slug, is 404 as if the draft did not exist. The token is redacted from logs.',
      CONDITIONAL_GET_NOTE,
    ].join('\n\n'),
    tags: external,
    auth: 'workspaceKey',
    params: slugParams,
    query: singlePostQuery,
    responses: { 200: { description: 'The post.', schema: singlePostSchema }, 304: NOT_MODIFIED, 400: 'Invalid query parameter.', 401: KEY_401, 404: 'No published post with this slug in the locale(s).' },
    bypassCache: (query) => query.preview !== undefined,
    handle: async ({ deps, req, workspace, params, query }) => {
      if (query.preview !== undefined) return { body: await previewPost(deps, workspace, params.slug, query.preview, query), headers: { 'Cache-Control': 'no-store' } };
      const { post, dependsOn } = await publicPostAnswer(deps, workspace, params.slug, query);
      return { ...conditionalGet(req, post), dependsOn };
    },
  }),
  route({
    method: 'get',
    path: '/external/categories',
    cache: 'published',
    summary: 'Categories with published posts',
    description: `\`locale\` defaults to the workspace \`defaultLocale\`: only categories with at least one published post in that locale. \`locale=*\` lists every category. Sorted by slug.\n\n${CONDITIONAL_GET_NOTE}`,
    tags: external,
    auth: 'workspaceKey',
    query: categoriesQuery,
    responses: { 200: { description: 'Categories.', schema: z.object({ items: z.array(categorySchema) }) }, 304: NOT_MODIFIED, 400: 'Invalid locale.', 401: KEY_401 },
    handle: async ({ deps, req, workspace, query }) => ({ ...conditionalGet(req, { items: await listPublicCategories(deps, workspace, query.locale) }), dependsOn: ['posts'] }),
  }),
];

export const postRoutes: RouteDef[] = [
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/posts',
    summary: 'Posts with their state',
    description: [
      'Drafts, published and unpublished posts, newest created first; `page`, `limit` (at most 100, default 50). Each item carries `scheduled`, its pending scheduled publishes and unpublishes.',
      'Filters (combined with AND): `type`, `locale`, `translationGroupId` (the locale variants of one post), `state` (`DRAFT`, `PUBLISHED`, `UNPUBLISHED`, or `SCHEDULED`: posts with a scheduled publish waiting, whatever their state), `q` (1 to 200 characters: a case-insensitive literal part of the draft title or slug).',
      '`view=summary` (what a list screen needs, fast on any number of posts): the bodies are left out (`contentMarkdown` and `contentHtml` null, in `published` too), `hasUnpublishedChanges` is null (it needs them) and nothing is counted: `pageInfo.total` is the posts before this page plus those read, one more than the page holds when another page follows (`hasNext`).',
    ].join('\n\n'),
    tags: adminTags,
    auth: 'member',
    params: widParams,
    query: adminPostsQuery,
    responses: { 200: { description: 'A page of posts.', schema: adminPostListSchema }, 400: 'Invalid query parameter.' },
    handle: async ({ deps, workspace, query }) => {
      const { items, summary, pageInfo } = await listPostsAdmin(deps, workspace, query);
      const item = ({ post, scheduled }: (typeof items)[number]) => ({ ...toAdminPost(post), ...(summary ? { hasUnpublishedChanges: null } : {}), scheduled: scheduled.map(toScheduleEntry) });
      return { body: { items: items.map(item), pageInfo } };
    },
  }),
  route({
    method: 'post',
    path: '/admin/workspaces/:wid/posts/preview-render',
    summary: 'Render markdown as a post would be (live preview)',
    description: `The HTML a draft with this \`contentMarkdown\` would get: the same renderer (GitHub-flavoured \`marked\`) and sanitizer (\`sanitize-html\`) as a save. Images \`![alt](media:<id>)\` of this workspace's library are shown as \`/external\` will show them (the file's URL, \`srcset\`, size, the alt text of \`locale\`, default the workspace's default locale); a saved draft keeps the \`media:<id>\` reference. Nothing is stored. At most 500,000 characters, as a post's markdown. ${EDITORS_ONLY}`,
    tags: adminTags,
    auth: 'member',
    role: 'editor',
    params: widParams,
    body: previewRenderBody,
    responses: { 200: { description: 'The sanitized HTML.', schema: previewRenderSchema }, 400: 'Invalid body.' },
    handle: async ({ deps, workspace, body }) => ({ body: { contentHtml: await renderPreview(deps, workspace, body.contentMarkdown, body.locale) } }),
  }),
  route({
    method: 'post',
    path: '/admin/workspaces/:wid/posts',
    summary: 'Create a post (as a draft)',
    description: [
      '`type` defaults to `blog`. `locale` must be one of the workspace locales. `translationOf` joins that post\'s translation group and takes its `canonicalSlug` (a different one is 400; a second post of the same locale in the group is 409 `translation_exists`). Without it a new group starts and `canonicalSlug` defaults to `slug`.',
      '`(locale, slug)` is unique in the workspace, drafts included: 409 `slug_taken`. `customConfig` defaults to the type\'s `defaultConfig`.',
      SLUG_RULE,
      'Markdown alone renders the HTML (GitHub-flavoured `marked`); given HTML is kept. Either way the HTML is sanitized (`sanitize-html`: no scripts, event handlers or `javascript:` links).',
      MEDIA_NOTE,
      EDITORS_ONLY,
    ].join('\n\n'),
    tags: adminTags,
    auth: 'member',
    role: 'editor',
    params: widParams,
    body: createPostBody,
    responses: { 201: { description: 'The draft.', schema: adminPostSchema }, 400: 'Invalid body.', 409: 'Slug taken or translation exists.' },
    handle: async ({ deps, workspace, body }) => versioned(toAdminPost(await createPost(deps, workspace, body)), 201),
  }),
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/posts/:pid',
    summary: 'One post (draft and published snapshot)',
    tags: adminTags,
    auth: 'member',
    params: postParams,
    responses: { 200: { description: 'The post.', schema: adminPostSchema }, 404: 'No such post.' },
    handle: async ({ deps, workspace, params }) => versioned(toAdminPost(await getPost(deps, workspace, params.pid))),
  }),
  route({
    method: 'patch',
    path: '/admin/workspaces/:wid/posts/:pid',
    summary: 'Edit the draft',
    description: `Changes only the draft: nothing changes publicly until publish. \`type\`, \`locale\` and \`canonicalSlug\` are fixed at creation (unknown fields are 400). New markdown without HTML re-renders the HTML. ${SLUG_RULE}\n\n${MEDIA_NOTE}\n\n${IF_MATCH_NOTE}\n\n${EDITORS_ONLY}`,
    tags: adminTags,
    auth: 'member',
    role: 'editor',
    params: postParams,
    body: patchPostBody,
    responses: { 200: { description: 'The post.', schema: adminPostSchema }, 400: 'Invalid body.', 404: 'No such post.', 409: 'Slug taken.', 412: VERSION_MISMATCH },
    handle: async ({ deps, req, workspace, params, body }) => versioned(toAdminPost(await editDraft(deps, workspace, params.pid, body, ifMatchVersions(req)))),
  }),
  route({
    method: 'post',
    path: '/admin/workspaces/:wid/posts/:pid/publish',
    summary: 'Publish the draft (now or at a given time)',
    description: [
      'Copies the draft to the public snapshot. `publishedAt` is re-stamped and `post.published` emitted on the first publish, after an unpublish (even with identical content), and when the content hash of the published fields differs from the last publish.',
      'Publishing identical content again is a no-op: 200, `publishedAt` unchanged, no event. 409 `slug_taken` when another published post holds the slug in this locale. 400 with issues (`imageMediaId`, or the body field) when the draft refers to a media item deleted since it was saved.',
      SCHEDULING,
      EDITORS_ONLY,
    ].join('\n\n'),
    tags: adminTags,
    auth: 'member',
    role: 'editor',
    params: postParams,
    body: publicationBody,
    responses: {
      200: { description: 'The post, published now.', schema: adminPostSchema },
      202: { description: 'The scheduled change (`at` in the future).', schema: scheduleEntrySchema },
      400: 'Invalid `at`, or the draft refers to a deleted media item.',
      404: 'No such post.',
      409: 'Slug taken.',
    },
    handle: async ({ deps, workspace, params, body }) => publicationReply(await publishOrSchedule(deps, workspace, params.pid, 'publish', body.at)),
  }),
  route({
    method: 'post',
    path: '/admin/workspaces/:wid/posts/:pid/unpublish',
    summary: 'Unpublish (now or at a given time)',
    description: `Hides the post publicly and emits \`post.unpublished\`. Idempotent: a post that is not published is returned unchanged, without an event.\n\n${SCHEDULING}\n\n${EDITORS_ONLY}`,
    tags: adminTags,
    auth: 'member',
    role: 'editor',
    params: postParams,
    body: publicationBody,
    responses: {
      200: { description: 'The post, unpublished now.', schema: adminPostSchema },
      202: { description: 'The scheduled change (`at` in the future).', schema: scheduleEntrySchema },
      400: 'Invalid `at`.',
      404: 'No such post.',
    },
    handle: async ({ deps, workspace, params, body }) => publicationReply(await publishOrSchedule(deps, workspace, params.pid, 'unpublish', body.at)),
  }),
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/posts/:pid/schedule',
    summary: 'Pending scheduled publishes and unpublishes of a post',
    description: 'The changes asked for with a future `at` that have not run yet, soonest first. A change leaves the list when it runs or is cancelled.',
    tags: adminTags,
    auth: 'member',
    params: postParams,
    responses: { 200: { description: 'Pending changes.', schema: scheduleListSchema }, 404: 'No such post.' },
    handle: async ({ deps, workspace, params }) => ({ body: { items: (await listSchedule(deps, workspace, params.pid)).map(toScheduleEntry) } }),
  }),
  route({
    method: 'delete',
    path: '/admin/workspaces/:wid/posts/:pid/schedule',
    summary: 'Cancel every pending scheduled change of a post',
    description: `Cancelled changes never run. Answers the cancelled entries (an empty list when none was pending). ${EDITORS_ONLY}`,
    tags: adminTags,
    auth: 'member',
    role: 'editor',
    params: postParams,
    responses: { 200: { description: 'The cancelled changes.', schema: scheduleListSchema }, 404: 'No such post.' },
    handle: async ({ deps, workspace, params }) => ({ body: { items: (await cancelSchedule(deps, workspace, params.pid)).map(toScheduleEntry) } }),
  }),
  route({
    method: 'delete',
    path: '/admin/workspaces/:wid/posts/:pid/schedule/:sid',
    summary: 'Cancel one pending scheduled change',
    description: `The change never runs. 404 \`schedule_not_found\` when it is not pending for this post (already run, cancelled, or unknown). ${EDITORS_ONLY}`,
    tags: adminTags,
    auth: 'member',
    role: 'editor',
    params: scheduleParams,
    responses: { 204: 'Cancelled.', 404: 'No such post or pending change.' },
    handle: async ({ deps, workspace, params }) => {
      await cancelSchedule(deps, workspace, params.pid, params.sid);
      return { status: 204 };
    },
  }),
  route({
    method: 'post',
    path: '/admin/workspaces/:wid/posts/:pid/preview-token',
    summary: 'Mint a draft preview token',
    description: `The token lets \`GET /external/posts/:slug?preview=<token>\` (with the workspace key) read this post's current draft until \`expiresAt\` (\`expiresInMinutes\`, default 24 h, 1 to 10080). One token per post: minting again replaces the previous one. Only its SHA-256 hash is stored. ${EDITORS_ONLY}`,
    tags: adminTags,
    auth: 'member',
    role: 'editor',
    params: postParams,
    body: previewTokenBody,
    responses: { 201: { description: 'The token (shown once).', schema: previewTokenSchema }, 400: 'Invalid body.', 404: 'No such post.' },
    handle: async ({ deps, workspace, params, body }) => ({ status: 201, body: await mintPreviewToken(deps, workspace, params.pid, body.expiresInMinutes) }),
  }),
  route({
    method: 'delete',
    path: '/admin/workspaces/:wid/posts/:pid/preview-token',
    summary: 'Revoke the draft preview token',
    description: `The post's preview token stops working at once (idempotent). ${EDITORS_ONLY}`,
    tags: adminTags,
    auth: 'member',
    role: 'editor',
    params: postParams,
    responses: { 204: 'Revoked.', 404: 'No such post.' },
    handle: async ({ deps, workspace, params }) => {
      await revokePreviewToken(deps, workspace, params.pid);
      return { status: 204 };
    },
  }),
  route({
    method: 'delete',
    path: '/admin/workspaces/:wid/posts/:pid',
    summary: 'Delete a post',
    description: `Emits \`post.unpublished\` when the post was published. Navigation items pointing at it disappear from the public navigation. ${EDITORS_ONLY}`,
    tags: adminTags,
    auth: 'member',
    role: 'editor',
    params: postParams,
    responses: { 204: 'Deleted.', 404: 'No such post.' },
    handle: async ({ deps, workspace, params }) => {
      await deletePost(deps, workspace, params.pid);
      return { status: 204 };
    },
  }),
];
