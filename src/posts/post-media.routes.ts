import { route, type RouteDef } from '../http/route.js';
import { mediaParams } from '../media/media.schemas.js';
import { deleteMediaUnlessPublished } from './post-media.service.js';

/**
 * The library's delete, declared here because its rule is about posts: a media item a published post shows
 * is kept (the media domain knows nothing of posts; posts refer to media).
 */
export const postMediaRoutes: RouteDef[] = [
  route({
    method: 'delete',
    path: '/admin/workspaces/:wid/media/:mid',
    summary: 'Delete a file',
    description:
      'The file and every variant of it leave the store; its URLs answer 404 from then on, and cached `/external` answers that ' +
      'showed it are dropped. Refused with 409 `media_in_use` while a PUBLISHED post shows it, as its image (`imageMediaId`) or in ' +
      'its body (`media:<id>`): the message names those posts and `issues` has one entry per post (`path` `posts.<postId>`, ' +
      '`message` how and where it is used). Unpublish those posts or change their image and body (and publish) first. A use by a ' +
      'draft (a never-published, unpublished or scheduled post, or the unpublished draft of a published one) does not keep the ' +
      'file: publishing that draft later answers 400 (`imageMediaId` or the body field: no such media item) until it is changed (a ' +
      'scheduled publish of it is logged and dropped). ' +
      'Editors, owners and operators only (agents: 403).',
    tags: ['Media'],
    auth: 'member',
    role: 'editor',
    params: mediaParams,
    responses: { 204: 'Deleted.', 404: 'No such file in this workspace.', 409: 'A published post shows the file (`media_in_use`); one issue per use, path `posts.<id>.image` or `posts.<id>.body`.' },
    handle: async ({ deps, workspace, params }) => {
      await deleteMediaUnlessPublished(deps, workspace, params.mid);
      return { status: 204 };
    },
  }),
];
