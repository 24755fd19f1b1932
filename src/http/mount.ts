import type { Express, Request, Response } from 'express';
import type { ZodType } from 'zod';
import type { Deps } from '../deps.js';
import { invalid, issuesFromZod } from '../shared/errors.js';
import { secretParamsOf, type Authenticator, type Reply, type RouteDef } from './route.js';
import { responseRecorder } from './recorder.js';
import { enforceRateLimit } from './rate-limit.js';
import { redactQuery } from './request-log.js';

function parse<T>(schema: ZodType<T> | undefined, value: unknown, where: string): T {
  if (!schema) return value as T;
  const result = schema.safeParse(value);
  if (!result.success) throw invalid(issuesFromZod(result.error.issues), `Invalid ${where}.`);
  return result.data;
}

function send(res: Response, reply: Reply): void {
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  const status = reply.status ?? 200;
  if (reply.body === undefined) res.status(status).end();
  else res.status(status).json(reply.body);
}

/** The URL as logs and recordings show it: the route's secret path parameters and key-bearing query values hidden. */
function redactedUrl(def: RouteDef, req: Request): string {
  const secrets = secretParamsOf(def);
  const path = def.path.replace(/:(\w+)/g, (_, name: string) => (secrets.includes(name) ? '[redacted]' : encodeURIComponent(String(req.params[name] ?? ''))));
  const query = req.originalUrl.indexOf('?');
  return path + (query >= 0 ? redactQuery(req.originalUrl.slice(query)) : '');
}

/**
 * Registers every declared route: authenticate (the injected `authenticate` resolves the declared auth
 * mode), rate limit by the credential it resolved, validate, call the handler, send its reply.
 */
export function mountRoutes(app: Express, deps: Deps, routes: RouteDef[], authenticate: Authenticator): void {
  const record = deps.config.RECORD_RESPONSES_DIR ? responseRecorder(deps.config.RECORD_RESPONSES_DIR) : undefined;
  for (const def of routes) {
    app[def.method](def.path, async (req: Request, res: Response) => {
      const url = redactedUrl(def, req);
      record?.(def, url, res);
      const auth = await authenticate(deps, def, req);
      if (auth.rateSubject) await enforceRateLimit(deps, auth.rateSubject, res);
      const params = parse(def.params, req.params, 'path parameters');
      const query = parse(def.query, { ...(req.query as object) }, 'query parameters');
      const body = parse(def.body, req.body ?? {}, 'body');
      const reply = await def.handle({ deps, req, res, params, query, body, ...auth.context } as never);
      if (!res.headersSent) send(res, reply);
    });
  }
}
