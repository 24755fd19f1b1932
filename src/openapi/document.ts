import { readFileSync } from 'node:fs';
import { errorBodySchema, secretParamsOf, type AuthMode, type ResponseSpec, type RouteDef } from '../http/route.js';
import { SchemaCatalog, type JsonSchema } from './json-schema.js';
import { webhooksOf, type WebhookDoc, type WebhookSection } from './webhooks.js';

export type { WebhookDoc } from './webhooks.js';

/** What `buildOpenApiDocument` produces: the document, plus what it had to paper over (tests demand none). */
export interface OpenApiBuild {
  document: OpenApiDocument;
  problems: string[];
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: Record<string, unknown>;
  servers: { url: string; description?: string }[];
  tags: { name: string }[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  /** OpenAPI 3.1 `webhooks`: the requests this server sends, one entry per event type. */
  webhooks?: WebhookSection;
  components: { schemas: Record<string, JsonSchema>; securitySchemes: Record<string, unknown>; headers: Record<string, unknown> };
}

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  security: Record<string, string[]>[];
  parameters?: Record<string, unknown>[];
  requestBody?: Record<string, unknown>;
  responses: Record<string, OpenApiResponse>;
  'x-hearth-auth': AuthMode;
  'x-hearth-role'?: string;
}

export interface OpenApiResponse {
  description: string;
  headers?: Record<string, unknown>;
  content?: { 'application/json': { schema: JsonSchema } };
}

export interface BuildOptions {
  /** The base URL clients call; defaults to the server the document was fetched from. */
  serverUrl?: string;
  version?: string;
  /** Outgoing requests to document in the `webhooks` section. */
  webhooks?: WebhookDoc[];
}

const JSON_MEDIA = 'application/json';
const METHODS_WITH_BODY = new Set(['post', 'put', 'patch']);

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

const API_DESCRIPTION = `Hearth is a multi-tenant headless content and engagement service. This reference is generated from the
route declarations of the running server (\`GET /openapi.json\`); it cannot drift from the code.

**Surfaces.** \`/external/*\` is the public surface a consumer site calls (content, submissions, appointments,
live chat). \`/admin/*\` is the CMS and agent-console side, authenticated with a team member's session.

**Credentials.**
- Workspace API key: \`X-Api-Key: sk_...\` (\`sk_\` followed by at least 32 random URL-safe characters). Keep it server-side.
  It resolves to exactly one workspace; no workspace id appears in \`/external\` URLs.
- Publishable key: \`X-Publishable-Key: pk_...\`, safe to embed in public pages; GET routes also accept it as the
  \`publishableKey\` query parameter (script tags and beacons cannot set headers). A URL never carries the workspace
  key: an \`sk_\` key in that parameter answers 401 \`wrong_credential_kind\` on every route.
- A credential of the wrong kind (an \`sk_\` key on a publishable-only route, a \`pk_\` key on a broad route, in either
  header) answers 401 with \`code: "wrong_credential_kind"\`.
- Path tokens (conversation token, cancellation token) are the credential of one resource and travel in the path.
- Admin routes: \`Authorization: Bearer <session token>\` from \`POST /admin/auth/login\`. A workspace the user is not a
  member of answers 404, as if it did not exist.

**Errors.** Every error is JSON \`{code, message, issues?}\` (schema \`Error\`): \`code\` is stable snake_case, \`issues\`
appears on 400 validation errors with one \`{path, message}\` entry per failing field (\`path\` dotted for nested fields,
e.g. \`visitor.externalId\`). Malformed JSON answers 400 \`malformed_json\`, a body over the size limit 413
\`payload_too_large\`; unknown routes answer 404 \`route_not_found\`; a 500 carries only a request id.
Text in a request body may hold any character but U+0000 (NUL), which PostgreSQL-backed storage cannot keep (one
rule on every engine): a string holding it is a 400 \`validation_failed\` on that field. Free-form JSON objects such
as \`metadata\` keep it, byte for byte; a visitor identity holding it is unreadable, so the chat or booking goes on
anonymously.

**Rate limits.** \`/external/*\` is limited per credential (key or path token, else client address) in fixed one-minute
windows shared by all server nodes (\`RATE_LIMIT_PER_MINUTE\`, default 600). Every answer carries \`RateLimit-Limit\`,
\`RateLimit-Remaining\` and \`RateLimit-Reset\`; excess answers 429 \`rate_limited\` with \`Retry-After\` (seconds).
New live-chat conversations are also limited per visitor session and per client address, in each workspace, per hour
(\`MAX_CONVERSATIONS_PER_SESSION\`, default 50; \`MAX_CONVERSATIONS_PER_ADDRESS\`, default 500): 429 \`rate_limited\`
likewise; resuming a conversation is never refused for this.

**Conventions.** Bodies are JSON (\`Content-Type: application/json\`); timestamps are ISO 8601 UTC strings; ids are
opaque strings. CORS: every \`/external/*\` answer carries \`Access-Control-Allow-Origin: *\`; preflights answer 204.
Answers vary on \`X-Api-Key, X-Publishable-Key\`, so shared caches key on the credential. Paths carry no version segment.`;

const SECURITY_SCHEMES = {
  ApiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Api-Key',
    description: 'Workspace API key (`sk_...`). Server-side only; reveal or rotate it in the CMS (rotation revokes the old key at once).',
  },
  PublishableKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Publishable-Key',
    description: 'Publishable key (`pk_...`), minted when live chat is first activated; safe to embed in public pages.',
  },
  PublishableKeyQuery: {
    type: 'apiKey',
    in: 'query',
    name: 'publishableKey',
    description: 'The publishable key as a query parameter, accepted on GET routes only (for script tags and beacons).',
  },
  Session: {
    type: 'http',
    scheme: 'bearer',
    description: 'A team member session token from `POST /admin/auth/login`, sent as `Authorization: Bearer <token>`.',
  },
};

const HEADERS = {
  RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
  RateLimitLimit: { description: 'Requests allowed per one-minute window for this credential.', schema: { type: 'integer' } },
  RateLimitRemaining: { description: 'Requests left in the current window.', schema: { type: 'integer', minimum: 0 } },
  RateLimitReset: { description: 'Seconds until the window resets.', schema: { type: 'integer', minimum: 1 } },
};

const AUTH_TEXT: Record<AuthMode, string> = {
  none: 'None.',
  workspaceKey: 'Workspace API key in `X-Api-Key`. A publishable (`pk_`) key answers 401 `wrong_credential_kind`.',
  publishableKey:
    'Publishable key in `X-Publishable-Key` (GET routes also accept the `publishableKey` query parameter). A workspace (`sk_`) key answers 401 `wrong_credential_kind`.',
  publishableKeyOptional:
    'Publishable key in `X-Publishable-Key` (GET routes also accept the `publishableKey` query parameter). A missing or unknown key is not an error (the answer says `enabled: false`); a workspace (`sk_`) key answers 401 `wrong_credential_kind`.',
  workspaceOrPublishableKey:
    'Either the workspace API key in `X-Api-Key` or the publishable key in `X-Publishable-Key` (GET routes also accept the `publishableKey` query parameter).',
  session: 'A team member session: `Authorization: Bearer <token>`.',
  member: 'A team member session (`Authorization: Bearer <token>`) of a member of the workspace `wid`; operators reach every workspace.',
  conversationToken: 'The `token` in the path is the credential; no key header is needed.',
  cancellationToken: 'The `token` in the path is the credential; no key header is needed.',
  manageToken: 'The `token` in the path is the credential; no key header is needed.',
};

const PATH_TOKEN_TEXT: Partial<Record<AuthMode, string>> = {
  conversationToken:
    'Conversation token returned by conversation start: the credential for reading and sending the messages of that one conversation. Unknown or malformed tokens answer 404 `conversation_not_found`.',
  cancellationToken:
    'Cancellation token returned on appointment request creation: the credential of that one request. It is revoked once the customer confirms or declines, and consumed on cancel.',
  manageToken:
    "Manage token minted when an appointment is confirmed and sent in the visitor's confirmation mail: the credential for viewing, cancelling and moving that one appointment until it has ended.",
};

function authText(def: RouteDef): string {
  return AUTH_TEXT[def.auth];
}

/** Express path (`/posts/:slug`) to OpenAPI path template (`/posts/{slug}`). */
export function toOpenApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

function pathParamNames(expressPath: string): string[] {
  return [...expressPath.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1]);
}

function pascal(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');
}

/** `post /admin/workspaces/:wid/posts` -> `postAdminWorkspacesByWidPosts`: stable, readable, unique per route. */
export function operationIdOf(def: Pick<RouteDef, 'method' | 'path'>): string {
  const parts = def.path
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith(':') ? `By${pascal(segment.slice(1))}` : pascal(segment)));
  return def.method + (parts.join('') || 'Root');
}

function securityOf(def: RouteDef): Record<string, string[]>[] {
  const publishable: Record<string, string[]>[] = def.method === 'get' ? [{ PublishableKey: [] }, { PublishableKeyQuery: [] }] : [{ PublishableKey: [] }];
  switch (def.auth) {
    case 'none':
    case 'conversationToken':
    case 'cancellationToken':
    case 'manageToken':
      return [];
    case 'workspaceKey':
      return [{ ApiKey: [] }];
    case 'publishableKey':
      return publishable;
    case 'publishableKeyOptional':
      return [...publishable, {}];
    case 'workspaceOrPublishableKey':
      return [{ ApiKey: [] }, ...publishable];
    case 'session':
    case 'member':
      return [{ Session: [] }];
  }
}

/** What a path token is, from where it sits: the spec's conversation and cancellation tokens. */
function pathTokenText(def: RouteDef, name: string): string | undefined {
  return secretParamsOf(def).includes(name) ? PATH_TOKEN_TEXT[def.auth] : undefined;
}

function errorResponse(description: string): OpenApiResponse {
  return { description, content: { [JSON_MEDIA]: { schema: { $ref: '#/components/schemas/Error' } } } };
}

/** The answers the mount and middleware give on their own, whatever the handler does. */
function implicitResponses(def: RouteDef): Record<number, string> {
  const implicit: Record<number, string> = {};
  const external = def.path.startsWith('/external/');
  const where = [def.params && 'path parameters', def.query && 'query parameters', def.body && 'body'].filter(Boolean).join(', ');
  const faults: string[] = [];
  if (where) faults.push(`Invalid ${where}: \`validation_failed\` with one \`issues\` entry per failing field.`);
  if (def.params) faults.push('A path that is not validly percent-encoded: `malformed_path`.');
  if (METHODS_WITH_BODY.has(def.method)) {
    faults.push(
      'A body that is not valid JSON: `malformed_json`; nested deeper than 64 levels: `json_too_deep`; corrupt compression: `malformed_body`.',
    );
    implicit[413] = 'The body exceeds the configured size limit (`BODY_LIMIT_KB`): `payload_too_large`.';
    implicit[415] = 'An unsupported `Content-Encoding` or charset: `unsupported_media_type`.';
  }
  if (faults.length > 0) implicit[400] = faults.join(' ');
  switch (def.auth) {
    case 'none':
    case 'conversationToken':
    case 'cancellationToken':
    case 'manageToken':
      break;
    case 'publishableKeyOptional':
      implicit[401] = 'A credential of the wrong kind (`wrong_credential_kind`).';
      break;
    case 'session':
      implicit[401] = 'Missing (`missing_session`), unknown, expired or revoked session (`invalid_session`).';
      break;
    case 'member':
      implicit[401] = 'Missing (`missing_session`), unknown, expired or revoked session (`invalid_session`).';
      implicit[404] = 'No such workspace, or the caller is not a member of it (`workspace_not_found`): the two are indistinguishable.';
      if (def.role === 'owner') implicit[403] = 'The caller is an agent or editor of the workspace; this action needs an owner or operator (`forbidden`).';
      if (def.role === 'editor') implicit[403] = 'The caller is an agent of the workspace; this action needs an editor, owner or operator (`forbidden`).';
      break;
    default:
      implicit[401] =
        'Missing (`missing_credential`), unknown or revoked (`invalid_credential`) key, or a key of the wrong kind (`wrong_credential_kind`).';
  }
  if (external) implicit[429] = 'Rate limited (`rate_limited`): too many requests with this credential, or too many unknown keys from this address; `Retry-After` says when to retry.';
  if (def.method === 'get' && !def.responses[304]) implicit[304] = 'Not modified: the answer still has the ETag sent in `If-None-Match` (every JSON answer carries an `ETag`).';
  implicit[500] = 'A fault on our side (`internal_error`); the message carries a request id, nothing internal.';
  if (def.auth !== 'none' || where) implicit[503] = 'The database is unreachable (`database_unavailable`); `Retry-After` says when to retry.';
  return implicit;
}

function responsesOf(def: RouteDef, catalog: SchemaCatalog, operationId: string): Record<string, OpenApiResponse> {
  const responses: Record<string, OpenApiResponse> = {};
  const implicit = implicitResponses(def);
  const statuses = [...new Set([...Object.keys(def.responses), ...Object.keys(implicit)].map(Number))].sort((a, b) => a - b);
  for (const status of statuses) {
    const declared: ResponseSpec | undefined = def.responses[status];
    const extra = implicit[status];
    let response: OpenApiResponse;
    if (declared === undefined) response = status >= 400 ? errorResponse(extra) : { description: extra };
    else if (typeof declared === 'string') {
      const text = extra && extra !== declared ? `${declared} ${extra}` : declared;
      response = status >= 400 ? errorResponse(text) : { description: text };
    } else {
      response = { description: extra && status >= 400 ? `${declared.description} ${extra}` : declared.description };
      if (declared.schema) response.content = { [JSON_MEDIA]: { schema: catalog.convert(declared.schema, 'output', `${operationId}Response${status}`) } };
      else if (status >= 400 && extra) response.content = errorResponse('').content;
    }
    const headers: Record<string, unknown> = {};
    if (status === 429 || status === 503) headers['Retry-After'] = { $ref: '#/components/headers/RetryAfter' };
    if (def.path.startsWith('/external/')) {
      headers['RateLimit-Limit'] = { $ref: '#/components/headers/RateLimitLimit' };
      headers['RateLimit-Remaining'] = { $ref: '#/components/headers/RateLimitRemaining' };
      headers['RateLimit-Reset'] = { $ref: '#/components/headers/RateLimitReset' };
    }
    if (Object.keys(headers).length) response.headers = headers;
    responses[String(status)] = response;
  }
  return responses;
}

function objectProperties(json: JsonSchema): { properties: Record<string, JsonSchema>; required: string[] } | undefined {
  if (json.type !== 'object' || typeof json.properties !== 'object' || !json.properties) return undefined;
  return { properties: json.properties as Record<string, JsonSchema>, required: (json.required as string[] | undefined) ?? [] };
}

function parametersOf(def: RouteDef, catalog: SchemaCatalog, operationId: string, problems: string[]): Record<string, unknown>[] {
  const parameters: Record<string, unknown>[] = [];
  const names = pathParamNames(def.path);
  const declaredParams = def.params ? catalog.convert(def.params, 'input', `${operationId}Params`) : undefined;
  const paramShape = declaredParams ? objectProperties(declaredParams) : undefined;
  if (declaredParams && !paramShape) problems.push(`${def.method.toUpperCase()} ${def.path}: \`params\` must be a plain z.object to be documented.`);
  for (const name of names) {
    const schema = { ...(paramShape?.properties[name] ?? { type: 'string' }) };
    const description = (schema.description as string | undefined) ?? pathTokenText(def, name);
    parameters.push({ name, in: 'path', required: true, ...(description ? { description } : {}), schema });
  }
  if (def.query) {
    const query = catalog.convert(def.query, 'input', `${operationId}Query`);
    const shape = objectProperties(query);
    if (shape) {
      for (const [name, schema] of Object.entries(shape.properties)) {
        const description = schema.description as string | undefined;
        parameters.push({ name, in: 'query', required: shape.required.includes(name), ...(description ? { description } : {}), schema });
      }
    } else {
      // Not a plain object (a union, a ref): one form-exploded object parameter keeps it accurate.
      parameters.push({ name: 'query', in: 'query', style: 'form', explode: true, schema: query });
    }
  }
  return parameters;
}

function requestBodyOf(def: RouteDef, catalog: SchemaCatalog, operationId: string): Record<string, unknown> | undefined {
  if (!def.body) return undefined;
  // The mount reads a missing body as `{}`: the body is optional exactly when `{}` is acceptable.
  const required = !(def.body).safeParse({}).success;
  return { required, content: { [JSON_MEDIA]: { schema: catalog.convert(def.body, 'input', `${operationId}Body`) } } };
}

/** Builds the OpenAPI 3.1 document from route declarations; nothing in it is written by hand per route. */
export function buildOpenApiDocument(routes: RouteDef[], options: BuildOptions = {}): OpenApiBuild {
  const catalog = new SchemaCatalog();
  const problems: string[] = [];
  const paths: OpenApiDocument['paths'] = {};
  const tags: string[] = [];
  const operationIds = new Set<string>();

  for (const def of routes) {
    const where = `${def.method.toUpperCase()} ${def.path}`;
    const path = toOpenApiPath(def.path);
    if (/[*?()]|\{[^}]*:/.test(path)) problems.push(`${where}: the path uses Express syntax OpenAPI cannot express.`);
    paths[path] ??= {};
    if (paths[path][def.method]) {
      problems.push(`${where}: declared twice; Express only ever reaches the first.`);
      continue;
    }
    let operationId = operationIdOf(def);
    for (let n = 2; operationIds.has(operationId); n += 1) operationId = `${operationIdOf(def)}${n}`;
    operationIds.add(operationId);
    for (const tag of def.tags) if (!tags.includes(tag)) tags.push(tag);

    const roleText = def.auth === 'member' ? ` Least role: ${def.role ?? 'agent'}.` : '';
    const operation: OpenApiOperation = {
      operationId,
      summary: def.summary,
      description: [def.description, `**Authentication:** ${authText(def)}${roleText}`].filter(Boolean).join('\n\n'),
      tags: def.tags,
      security: securityOf(def),
      responses: {},
      'x-hearth-auth': def.auth,
      ...(def.auth === 'member' ? { 'x-hearth-role': def.role ?? 'agent' } : {}),
    };
    const parameters = parametersOf(def, catalog, operationId, problems);
    if (parameters.length) operation.parameters = parameters;
    const requestBody = requestBodyOf(def, catalog, operationId);
    if (requestBody) operation.requestBody = requestBody;
    operation.responses = responsesOf(def, catalog, operationId);
    if (!Object.keys(def.responses).some((status) => Number(status) >= 200 && Number(status) < 300)) {
      problems.push(`${where}: declares no 2xx response.`);
    }
    paths[path][def.method] = operation;
  }

  // The error body is referenced by name everywhere; make sure it exists even if no route converted it.
  catalog.convert(errorBodySchema, 'output', 'Error');
  const webhooks = options.webhooks?.length ? webhooksOf(options.webhooks, catalog) : undefined;
  const document: OpenApiDocument = {
    openapi: '3.1.0',
    info: {
      title: 'Hearth API',
      version: options.version ?? packageVersion(),
      description: API_DESCRIPTION,
    },
    servers: [{ url: options.serverUrl ?? '/', description: 'This server' }],
    tags: tags.map((name) => ({ name })),
    paths,
    ...(webhooks ? { webhooks } : {}),
    components: { schemas: {}, securitySchemes: SECURITY_SCHEMES, headers: HEADERS },
  };
  document.components.schemas = catalog.finish(document);
  return { document, problems: [...problems, ...catalog.problems] };
}
