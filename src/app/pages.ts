import type { Express } from 'express';
import type { Deps } from '../deps.js';
import { apiReference } from '../openapi/reference.js';
import { widgetHost } from '../widget-host/widget-host.js';
import { allRoutes, allWebhookEvents } from './routes.js';
import { DEMO_SLUG } from './seed.js';

/** Non-JSON handlers: the widget bundle, the demo and console pages, the API reference of this server's routes. */
export const pageExtras: ((app: Express, deps: Deps) => void)[] = [
  apiReference(() => allRoutes, () => allWebhookEvents),
  (app, deps) => widgetHost(app, deps, { demoSlug: DEMO_SLUG }),
];
