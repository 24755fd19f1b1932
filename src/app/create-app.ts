import express, { type Express } from 'express';
import type { Deps } from '../deps.js';
import { mountRoutes } from '../http/mount.js';
import type { RouteDef } from '../http/route.js';
import { errorHandler, externalCors, notFoundHandler, varyByCredential } from '../http/middleware.js';
import { requestIds, requestLogger, urlRedactor, type RequestIds } from '../http/request-log.js';
import { requestAuthenticator } from '../access/authenticate.js';
import { fail } from '../shared/errors.js';
import { JSON_MAX_DEPTH, jsonDeeperThan } from '../shared/json-depth.js';
import { allRoutes } from './routes.js';

export interface AppOptions {
  routes?: RouteDef[];
  /** Extra non-JSON handlers (widget bundle, demo pages, API docs), mounted before the 404. */
  extras?: ((app: Express, deps: Deps) => void)[];
  /** The node's request ids, when something besides this app (the fast path) gives them too. */
  requestIdOf?: RequestIds;
}

/** Builds the HTTP app from its dependencies; `createNode` listens, tests build it with real parts. */
export function createApp(deps: Deps, options: AppOptions = {}): Express {
  const routes = options.routes ?? allRoutes;
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(requestLogger(deps.logger, urlRedactor(routes), options.requestIdOf ?? requestIds()));
  app.use('/external', externalCors);
  app.use(
    express.json({
      limit: `${deps.config.BODY_LIMIT_KB}kb`,
      strict: true,
      verify: (_req, _res, body) => {
        if (jsonDeeperThan(body)) throw fail('json_too_deep', `The JSON body is nested deeper than ${JSON_MAX_DEPTH} levels.`);
      },
    }),
  );
  app.use('/external', varyByCredential);
  mountRoutes(app, deps, routes, requestAuthenticator(deps));
  for (const extra of options.extras ?? []) extra(app, deps);
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger, deps.config.BODY_LIMIT_KB));
  return app;
}
