import express, { type Express } from 'express';
import type { Deps } from '../shared/deps.js';
import { mountRoutes } from './mount.js';
import { allRoutes } from './routes.js';
import type { RouteDef } from './route.js';
import { errorHandler, externalCors, externalRateLimit, notFoundHandler, requestLogger } from './middleware.js';

export interface AppOptions {
  routes?: RouteDef[];
  /** Extra non-JSON handlers (widget bundle, demo pages, API docs), mounted before the 404. */
  extras?: ((app: Express, deps: Deps) => void)[];
}

/** Builds the HTTP app from its dependencies; `createNode` listens, tests build it with real parts. */
export function createApp(deps: Deps, options: AppOptions = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(requestLogger(deps));
  app.use('/external', externalCors);
  app.use('/external', externalRateLimit(deps));
  app.use(express.json({ limit: `${deps.config.BODY_LIMIT_KB}kb`, strict: true }));
  // Content answers differ per credential; shared caches must key on it.
  app.use('/external', (_req, res, next) => {
    res.setHeader('Vary', 'X-Api-Key, X-Publishable-Key');
    next();
  });
  mountRoutes(app, deps, options.routes ?? allRoutes);
  for (const extra of options.extras ?? []) extra(app, deps);
  app.use(notFoundHandler);
  app.use(errorHandler(deps));
  return app;
}
