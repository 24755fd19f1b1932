import { z } from 'zod';
import { conditionalGet, CONDITIONAL_GET_NOTE, NOT_MODIFIED } from '../http/conditional-get.js';
import { route, type RouteDef } from '../http/route.js';
import { IF_MATCH_NOTE, VERSION_MISMATCH, ifMatchVersions, versioned } from '../http/versioned.js';
import {
  adminNavigationSchema,
  createNavigationBody,
  navigationKeyParams,
  navigationParams,
  navigationSchema,
  patchNavigationBody,
  replaceItemsBody,
  widParams,
} from './navigations.schemas.js';
import {
  createNavigation,
  deleteNavigation,
  getNavigation,
  getPublicNavigation,
  listNavigations,
  renameNavigation,
  replaceNavigationItems,
  toAdminNavigation,
} from './navigations.service.js';

const external = ['External: content'];
const adminTags = ['Content'];
const KEY_401 = 'Missing, unknown, revoked or wrong-kind key.';
const EDITORS_ONLY = 'Editors, owners and operators only (agents: 403).';

export const publicNavigationRoutes: RouteDef[] = [
  route({
    method: 'get',
    path: '/external/navigations/:key',
    cache: 'published',
    summary: 'A navigation by key, as a flat item list',
    description: [
      'Items come in menu order (depth-first, siblings by `position`); nesting is expressed by `parentId` (null at top level).',
      'Unset `customUrl`, `imageUrl`, `customConfig`, `labels` are null; `hiddenLocales` is always an array: the locales in which consumers should not show the item (and its children).',
      '`post` is set on POST items: `locales` lists the published translations of the post. POST items whose post has no published translation (a draft, unpublished or deleted post) are left out, with their children, until one is published.',
      CONDITIONAL_GET_NOTE,
    ].join('\n\n'),
    tags: external,
    auth: 'workspaceKey',
    params: navigationKeyParams,
    responses: { 200: { description: 'The navigation.', schema: navigationSchema }, 304: NOT_MODIFIED, 401: KEY_401, 404: 'No navigation with this key (also for a segment no key can be, e.g. with a control character).' },
    // Items may name posts (their slugs and titles).
    handle: async ({ deps, req, workspace, params }) => ({ ...conditionalGet(req, await getPublicNavigation(deps, workspace, params.key)), dependsOn: ['posts'] }),
  }),
];

export const navigationRoutes: RouteDef[] = [
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
    description: `Emits \`navigation.created\`. \`key\`: lowercase letters, digits, \`-\`, \`_\`. ${EDITORS_ONLY}`,
    tags: adminTags,
    auth: 'member',
    role: 'editor',
    params: widParams,
    body: createNavigationBody,
    responses: { 201: { description: 'Created (no items).', schema: adminNavigationSchema }, 400: 'Invalid body.', 409: 'Key taken.' },
    handle: async ({ deps, workspace, body }) => versioned(toAdminNavigation(await createNavigation(deps, workspace, body)), 201),
  }),
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/navigations/:nid',
    summary: 'One navigation',
    tags: adminTags,
    auth: 'member',
    params: navigationParams,
    responses: { 200: { description: 'The navigation.', schema: adminNavigationSchema }, 404: 'No such navigation.' },
    handle: async ({ deps, workspace, params }) => versioned(toAdminNavigation(await getNavigation(deps, workspace, params.nid))),
  }),
  route({
    method: 'patch',
    path: '/admin/workspaces/:wid/navigations/:nid',
    summary: 'Rename or re-key a navigation',
    description: `Emits \`navigation.updated\` when the key or name changed.\n\n${IF_MATCH_NOTE}\n\n${EDITORS_ONLY}`,
    tags: adminTags,
    auth: 'member',
    role: 'editor',
    params: navigationParams,
    body: patchNavigationBody,
    responses: { 200: { description: 'Updated.', schema: adminNavigationSchema }, 400: 'Invalid body.', 404: 'No such navigation.', 409: 'Key taken.', 412: VERSION_MISMATCH },
    handle: async ({ deps, req, workspace, params, body }) => versioned(toAdminNavigation(await renameNavigation(deps, workspace, params.nid, body, ifMatchVersions(req)))),
  }),
  route({
    method: 'delete',
    path: '/admin/workspaces/:wid/navigations/:nid',
    summary: 'Delete a navigation',
    description: `Emits \`navigation.deleted\`. ${EDITORS_ONLY}`,
    tags: adminTags,
    auth: 'member',
    role: 'editor',
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
      `Emits \`navigation.items.replaced\`.`,
      IF_MATCH_NOTE,
      EDITORS_ONLY,
    ].join('\n\n'),
    tags: adminTags,
    auth: 'member',
    role: 'editor',
    params: navigationParams,
    body: replaceItemsBody,
    responses: { 200: { description: 'The navigation with its stored items (menu order).', schema: adminNavigationSchema }, 400: 'Invalid items.', 404: 'No such navigation.', 412: VERSION_MISMATCH },
    handle: async ({ deps, req, workspace, params, body }) => versioned(toAdminNavigation(await replaceNavigationItems(deps, workspace, params.nid, body.items, ifMatchVersions(req)))),
  }),
];
