import type { RouteDef } from '../http/route.js';
import { healthRoutes } from './health.routes.js';
import { authRoutes } from '../auth/auth.routes.js';
import { analyticsConfigRoutes, workspaceRoutes } from '../workspaces/workspaces.routes.js';
import { memberRoutes } from '../workspaces/members.routes.js';
import { invitationRoutes } from '../workspaces/invitations.routes.js';
import { postRoutes, publicPostRoutes } from '../posts/posts.routes.js';
import { postTypeRoutes } from '../posts/post-types.routes.js';
import { feedRoutes } from '../posts/feeds.routes.js';
import { categoryRoutes } from '../categories/categories.routes.js';
import { navigationRoutes, publicNavigationRoutes } from '../navigations/navigations.routes.js';
import { submissionRoutes } from '../submissions/submissions.routes.js';
import { appointmentsRoutes } from '../appointments/appointments.routes.js';
import { manageRoutes } from '../appointments/manage.routes.js';
import { liveChatRoutes } from '../livechat/livechat.routes.js';
import { attachmentRoutes } from '../livechat/attachments.routes.js';
import { peopleRoutes } from '../people/people.routes.js';
import { inboxRoutes } from '../inbox/inbox.routes.js';
import { webhooksRoutes } from '../webhooks/webhooks.routes.js';
import { endpointsRoutes } from '../webhooks/endpoints.routes.js';
import { webhookEventDocs } from '../webhooks/payloads.schemas.js';
import { emailRoutes } from '../email/email.routes.js';
import { mediaRoutes } from '../media/media.routes.js';
import { postMediaRoutes } from '../posts/post-media.routes.js';

/** Every HTTP route of the service; Express and the OpenAPI document are both built from this list. */
export const allRoutes: RouteDef[] = [
  ...healthRoutes,
  ...authRoutes,
  ...workspaceRoutes,
  ...memberRoutes,
  ...invitationRoutes,
  // Content: the public reads, then the admin side (the order of the OpenAPI document).
  ...publicPostRoutes,
  ...feedRoutes,
  ...publicNavigationRoutes,
  ...analyticsConfigRoutes,
  ...postTypeRoutes,
  ...categoryRoutes,
  ...postRoutes,
  ...navigationRoutes,
  ...mediaRoutes,
  ...postMediaRoutes,
  ...submissionRoutes,
  ...appointmentsRoutes,
  ...manageRoutes,
  ...liveChatRoutes,
  ...attachmentRoutes,
  ...peopleRoutes,
  ...inboxRoutes,
  ...webhooksRoutes,
  ...endpointsRoutes,
  ...emailRoutes,
];

/** Every event a registered webhook endpoint may receive: the OpenAPI document's `webhooks` section. */
export const allWebhookEvents = webhookEventDocs();
