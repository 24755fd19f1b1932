import type { RouteDef } from '../http/route.js';
import { healthRoutes } from './health.routes.js';
import { authRoutes } from '../auth/auth.routes.js';
import { workspaceRoutes } from '../workspaces/workspaces.routes.js';
import { contentRoutes } from '../content/content.routes.js';
import { submissionRoutes } from '../submissions/submissions.routes.js';
import { appointmentsRoutes } from '../appointments/appointments.routes.js';
import { liveChatRoutes } from '../livechat/livechat.routes.js';
import { webhooksRoutes } from '../webhooks/webhooks.routes.js';
import { emailRoutes } from '../email/email.routes.js';

/** Every HTTP route of the service; Express and the OpenAPI document are both built from this list. */
export const allRoutes: RouteDef[] = [
  ...healthRoutes,
  ...authRoutes,
  ...workspaceRoutes,
  ...contentRoutes,
  ...submissionRoutes,
  ...appointmentsRoutes,
  ...liveChatRoutes,
  ...webhooksRoutes,
  ...emailRoutes,
];
