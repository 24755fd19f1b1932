import { z } from 'zod';
import { route, type RouteDef } from '../http/route.js';
import { SLUG_RULE } from '../shared/slug.js';
import { createPostTypeBody, postTypeSchema, widParams } from './posts.schemas.js';
import { createPostType, listPostTypes } from './post-types.service.js';

const adminTags = ['Content'];
const EDITORS_ONLY = 'Editors, owners and operators only (agents: 403).';

export const postTypeRoutes: RouteDef[] = [
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
    description: `\`defaultConfig\` becomes the \`customConfig\` of new posts of the type that bring none. \`jsonLdType\` (e.g. \`Recipe\`) makes the posts' \`jsonLd\` a schema.org object of that type. ${SLUG_RULE} ${EDITORS_ONLY}`,
    tags: adminTags,
    auth: 'member',
    role: 'editor',
    params: widParams,
    body: createPostTypeBody,
    responses: { 201: { description: 'Created.', schema: postTypeSchema }, 400: 'Invalid body.', 409: 'Slug taken.' },
    handle: async ({ deps, workspace, body }) => ({ status: 201, body: await createPostType(deps, workspace, body) }),
  }),
];
