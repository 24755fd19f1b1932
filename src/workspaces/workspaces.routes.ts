import { z } from 'zod';
import { conditionalGet, CONDITIONAL_GET_NOTE, NOT_MODIFIED } from '../http/conditional-get.js';
import { IF_MATCH_NOTE, VERSION_MISMATCH, ifMatchVersions, versioned } from '../http/versioned.js';
import { route } from '../http/route.js';
import { fail } from '../shared/errors.js';
import { requireOperator } from '../auth/auth.service.js';
import { revealKey, rotateKey } from '../credentials/credentials.service.js';
import {
  adminWorkspaceSchema,
  apiKeySchema,
  createWorkspaceBody,
  patchWorkspaceBody,
  workspaceIdParams,
  workspaceSchema,
} from './workspaces.schemas.js';
import { createWorkspace, toAdminWorkspace, toPublicWorkspace, updateWorkspace, workspacesOf } from './workspaces.service.js';
import { analyticsConfigSchema } from './analytics.schemas.js';
import { analyticsConfig } from './analytics.service.js';

const tags = ['Workspaces'];

const WEBHOOK_SECRET_NOTE =
  '`webhookUrl` carries the webhook secret in its `secret` query parameter: owners and operators see it whole; agents and editors see it with the secret (and any user-info password) replaced by `***`.';

export const workspaceRoutes = [
  route({
    method: 'get',
    path: '/external/workspace',
    cache: 'published',
    summary: 'The workspace the API key belongs to',
    description: `\`customConfig\` and \`schemaOrg\` are returned byte-for-byte as stored.\n\n${CONDITIONAL_GET_NOTE}`,
    tags: ['External: content'],
    auth: 'workspaceKey',
    responses: { 200: { description: 'The workspace.', schema: workspaceSchema }, 304: NOT_MODIFIED, 401: 'Missing, unknown, revoked or wrong-kind key.' },
    // Settings only: no post changes it.
    handle: async ({ req, workspace }) => ({ ...conditionalGet(req, toPublicWorkspace(workspace)), dependsOn: [] }),
  }),
  route({
    method: 'post',
    path: '/admin/workspaces',
    summary: 'Create a workspace (operators)',
    description: 'The creator becomes its owner. The answer carries the workspace API key once; Reveal shows it later.',
    tags,
    auth: 'session',
    body: createWorkspaceBody,
    responses: {
      201: { description: 'Created.', schema: z.object({ workspace: adminWorkspaceSchema, apiKey: z.string() }) },
      400: 'Invalid body.',
      403: 'Not an operator.',
      409: 'Slug taken.',
    },
    handle: async ({ deps, user, body }) => {
      requireOperator(user);
      const { workspace, apiKey } = await createWorkspace(deps, user, body);
      return { status: 201, body: { workspace: toAdminWorkspace(workspace, 'operator'), apiKey } };
    },
  }),
  route({
    method: 'get',
    path: '/admin/workspaces',
    summary: "The caller's workspaces",
    description: WEBHOOK_SECRET_NOTE,
    tags,
    auth: 'session',
    responses: { 200: { description: 'Workspaces the caller is a member of (all, for operators).', schema: z.object({ items: z.array(adminWorkspaceSchema) }) } },
    handle: async ({ deps, user }) => ({ body: { items: (await workspacesOf(deps, user)).map(({ workspace, role }) => toAdminWorkspace(workspace, role)) } }),
  }),
  route({
    method: 'get',
    path: '/admin/workspaces/:wid',
    summary: 'One workspace',
    description: WEBHOOK_SECRET_NOTE,
    tags,
    auth: 'member',
    params: workspaceIdParams,
    responses: { 200: { description: 'The workspace.', schema: adminWorkspaceSchema }, 404: 'Not a member, or no such workspace.' },
    handle: async ({ workspace, role }) => versioned(toAdminWorkspace(workspace, role)),
  }),
  route({
    method: 'patch',
    path: '/admin/workspaces/:wid',
    summary: 'Change workspace settings (owners)',
    description:
      'Emits the `workspace.updated` webhook event. `webhookUrl` carries the webhook secret in its `secret` query parameter. `siteUrl` (absolute http(s), no query or fragment, trailing `/` dropped; null clears it) is the base of post links in `/external/feed.xml`, `/external/sitemap.xml` and preview links (`${siteUrl}/${locale}/${slug}`); it is admin-only and never part of `GET /external/workspace`.\n\n' + IF_MATCH_NOTE,
    tags,
    auth: 'member',
    role: 'owner',
    params: workspaceIdParams,
    body: patchWorkspaceBody,
    responses: { 200: { description: 'The updated workspace.', schema: adminWorkspaceSchema }, 400: 'Invalid body.', 403: 'Agents and editors may not change settings.', 412: VERSION_MISMATCH },
    handle: async ({ deps, req, workspace, role, body }) => versioned(toAdminWorkspace(await updateWorkspace(deps, workspace, body, ifMatchVersions(req)), role)),
  }),
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/api-key',
    summary: 'Reveal the workspace API key (owners)',
    tags,
    auth: 'member',
    role: 'owner',
    params: workspaceIdParams,
    responses: { 200: { description: 'The live key.', schema: apiKeySchema } },
    handle: async ({ deps, workspace }) => {
      const apiKey = await revealKey(deps, workspace.id, 'workspace');
      if (!apiKey) throw fail('api_key_not_found');
      return { body: { apiKey } };
    },
  }),
  route({
    method: 'post',
    path: '/admin/workspaces/:wid/api-key/rotate',
    summary: 'Rotate the workspace API key (owners)',
    description: 'The old key stops working at once on every node (keys are resolved from the database on each request).',
    tags,
    auth: 'member',
    role: 'owner',
    params: workspaceIdParams,
    responses: { 200: { description: 'The new key.', schema: apiKeySchema } },
    handle: async ({ deps, workspace }) => ({ body: { apiKey: await rotateKey(deps, workspace.id, 'workspace') } }),
  }),
];

/** The workspace's analytics settings as consumers read them (listed after the content reads). */
export const analyticsConfigRoutes = [
  route({
    method: 'get',
    path: '/external/analytics-config',
    cache: 'published',
    summary: 'Analytics tracker configuration',
    description: `\`{enabled: true, websiteId, scriptUrl}\` when analytics is set up for the workspace (\`PATCH /admin/workspaces/:wid\` \`analytics\`); otherwise only \`{enabled: false}\`.\n\n${CONDITIONAL_GET_NOTE}`,
    tags: ['External: content'],
    auth: 'workspaceKey',
    responses: { 200: { description: 'The tracker config.', schema: analyticsConfigSchema }, 304: NOT_MODIFIED, 401: 'Missing, unknown, revoked or wrong-kind key.' },
    handle: async ({ req, workspace }) => ({ ...conditionalGet(req, analyticsConfig(workspace)), dependsOn: [] }),
  }),
];
