import express, { type Express } from 'express';
import type { Deps } from '../deps.js';
import { mountRoutes } from '../http/mount.js';
import type { NodeAuthenticator, RouteDef } from '../http/route.js';
import { errorHandler, externalCors, notFoundHandler, varyByCredential } from '../http/middleware.js';
import { requestIds } from '../http/request-log.js';
import { routeTable, type RouteTable } from '../http/route-table.js';
import { answerWriter, type AnswerWriter } from '../http/answer-writer.js';
import { nodeAuthenticator } from '../access/authenticate.js';
import { fail } from '../shared/errors.js';
import { JSON_MAX_DEPTH, jsonDeeperThan } from '../shared/json-depth.js';
import { allRoutes } from './routes.js';

export interface AppOptions {
  routes?: RouteDef[];
  /** Extra non-JSON handlers (widget bundle, demo pages, API docs), mounted before the 404. */
  extras?: ((app: Express, deps: Deps) => void)[];
}

/**
 * One node's request pipeline: its route table, its one auth resolution and its one response writer (ids,
 * log line, recording, kept answers). The Express app and the fast path in front of it share it.
 */
export interface HttpPipeline {
  table: RouteTable;
  auth: NodeAuthenticator;
  writer: AnswerWriter;
}

export function httpPipeline(deps: Deps, routes: RouteDef[] = allRoutes): HttpPipeline {
  const table = routeTable(routes);
  const writer = answerWriter({
    logger: deps.logger,
    redact: table.redact,
    requestIdOf: requestIds(),
    rateLimit: deps.config.RATE_LIMIT_PER_MINUTE,
    recordDir: deps.config.RECORD_RESPONSES_DIR,
  });
  return { table, auth: nodeAuthenticator(deps), writer };
}

/** Builds the HTTP app of a node's pipeline; `createNode` listens, tests build it with real parts. */
export function createApp(deps: Deps, pipeline: HttpPipeline, options: AppOptions = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use((req, res, next) => {
    pipeline.writer.open(req, res);
    next();
  });
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
  mountRoutes(app, deps, pipeline);
  for (const extra of options.extras ?? []) extra(app, deps);
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger, deps.config.BODY_LIMIT_KB));
  return app;
}
