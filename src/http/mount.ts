import type { Express, Request, Response } from 'express';
import type { ZodType } from 'zod';
import type { Deps } from '../shared/deps.js';
import { accessWorkspace, resolveSession } from '../auth/auth.service.js';
import { credentialKindOf, resolveKey } from '../credentials/credentials.service.js';
import type { CredentialKind } from '../credentials/credentials.model.js';
import { workspaceStore, type Workspace } from '../workspaces/workspaces.model.js';
import { issuesFromZod, unauthorized, validation, wrongCredentialKind } from './errors.js';
import type { AuthMode, RouteDef } from './route.js';
import { responseRecorder } from '../openapi/recorder.js';

function header(req: Request, name: string): string | undefined {
  const value = req.get(name);
  return value && value.trim() ? value.trim() : undefined;
}

/** The key a request presents, from either header (or the `publishableKey` query on GET). */
function presentedKey(req: Request): string | undefined {
  const fromQuery = req.method === 'GET' && typeof req.query.publishableKey === 'string' ? req.query.publishableKey : undefined;
  return header(req, 'x-api-key') ?? header(req, 'x-publishable-key') ?? fromQuery;
}

const ACCEPTS: Record<string, CredentialKind[]> = {
  workspaceKey: ['workspace'],
  publishableKey: ['publishable'],
  publishableKeyOptional: ['publishable'],
  workspaceOrPublishableKey: ['workspace', 'publishable'],
};

async function resolveWorkspaceCredential(deps: Deps, req: Request, mode: AuthMode): Promise<{ workspace: Workspace | null; credentialKind: CredentialKind | null }> {
  const accepted = ACCEPTS[mode];
  const key = presentedKey(req);
  const lenient = mode === 'publishableKeyOptional';
  if (!key) {
    if (lenient) return { workspace: null, credentialKind: null };
    throw unauthorized('missing_credential', 'A workspace credential is required.');
  }
  const kind = credentialKindOf(key);
  if (kind && !accepted.includes(kind)) throw wrongCredentialKind();
  const resolved = await resolveKey(deps, key);
  const workspace = resolved ? await workspaceStore(deps.db).byId(resolved.workspaceId) : null;
  if (!resolved || !workspace) {
    if (lenient) return { workspace: null, credentialKind: null };
    throw unauthorized('invalid_credential', 'The credential is unknown or revoked.');
  }
  return { workspace, credentialKind: resolved.kind };
}

function bearerToken(req: Request): string {
  const match = /^Bearer\s+(\S+)$/i.exec(header(req, 'authorization') ?? '');
  if (!match) throw unauthorized('missing_session', 'An `Authorization: Bearer <token>` session is required.');
  return match[1];
}

async function authenticate(deps: Deps, def: RouteDef, req: Request): Promise<Record<string, unknown>> {
  switch (def.auth) {
    case 'none':
      return {};
    case 'session':
    case 'member': {
      const user = await resolveSession(deps, bearerToken(req));
      if (!user) throw unauthorized('invalid_session', 'The session is unknown, expired or revoked.');
      if (def.auth === 'session') return { user };
      const access = await accessWorkspace(deps, user, String(req.params.wid), def.role ?? 'agent');
      return { user, ...access };
    }
    default:
      return resolveWorkspaceCredential(deps, req, def.auth);
  }
}

function parse<T>(schema: ZodType<T> | undefined, value: unknown, where: string): T {
  if (!schema) return value as T;
  const result = schema.safeParse(value);
  if (!result.success) {
    throw validation(issuesFromZod(result.error.issues), `Invalid ${where}.`);
  }
  return result.data;
}

function send(res: Response, reply: { status?: number; body?: unknown; headers?: Record<string, string> }): void {
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  const status = reply.status ?? 200;
  if (reply.body === undefined) res.status(status).end();
  else res.status(status).json(reply.body);
}

/** Registers every declared route on the app: authenticate, validate, call the handler, send its reply. */
export function mountRoutes(app: Express, deps: Deps, routes: RouteDef[]): void {
  const record = deps.config.RECORD_RESPONSES_DIR ? responseRecorder(deps.config.RECORD_RESPONSES_DIR) : undefined;
  for (const def of routes) {
    app[def.method](def.path, async (req: Request, res: Response) => {
      record?.(def, req, res);
      const auth = await authenticate(deps, def, req);
      const params = parse(def.params, req.params, 'path parameters');
      const query = parse(def.query, { ...(req.query as object) }, 'query parameters');
      const body = parse(def.body, req.body ?? {}, 'body');
      const reply = await def.handle({ deps, req, res, params, query, body, ...auth } as never);
      if (!res.headersSent) send(res, reply);
    });
  }
}

