import { describe, expect, test } from '@jest/globals';
import { z } from 'zod';
import { Validator } from '@seriousme/openapi-schema-validator';
import { errorBodySchema, route, type AuthMode, type RouteDef } from '../../src/http/route.js';
import { buildOpenApiDocument, operationIdOf, toOpenApiPath } from '../../src/openapi/document.js';

// Generator rules on synthetic declarations: no database, no node.

const ok = async () => ({ body: {} });

function only(routes: RouteDef[]) {
  const built = buildOpenApiDocument(routes, { version: '1.0.0' });
  return { ...built, op: (path: string, method = 'get') => built.document.paths[path][method] };
}

async function expectValid(document: object) {
  const result = await new Validator().validate(document as Record<string, unknown>);
  expect(result.errors).toBeUndefined();
  expect(result.valid).toBe(true);
}

describe('paths and operation ids', () => {
  test('Express parameters become OpenAPI templates and every template parameter is a required path parameter', async () => {
    expect(toOpenApiPath('/admin/workspaces/:wid/posts/:pid')).toBe('/admin/workspaces/{wid}/posts/{pid}');
    expect(operationIdOf({ method: 'post', path: '/admin/workspaces/:wid/api-key/rotate' })).toBe('postAdminWorkspacesByWidApiKeyRotate');
    const { document, problems, op } = only([
      route({
        method: 'get',
        path: '/admin/workspaces/:wid/things/:tid',
        summary: 'x',
        tags: ['T'],
        auth: 'member',
        // `tid` is not declared: it must still be documented (OpenAPI requires every template parameter).
        params: z.object({ wid: z.string().describe('Workspace id.') }),
        responses: { 200: { description: 'ok', schema: z.object({}) } },
        handle: ok,
      }),
    ]);
    expect(problems).toEqual([]);
    const params = op('/admin/workspaces/{wid}/things/{tid}').parameters!;
    expect(params).toEqual([
      { name: 'wid', in: 'path', required: true, description: 'Workspace id.', schema: { type: 'string', description: 'Workspace id.' } },
      { name: 'tid', in: 'path', required: true, schema: { type: 'string' } },
    ]);
    await expectValid(document);
  });

  test('path tokens are described on the parameter and the operation needs no key', () => {
    const { op } = only([
      route({ method: 'get', path: '/external/live-chat/conversations/:token/messages', summary: 'x', tags: ['T'], auth: 'conversationToken', responses: { 200: { description: 'ok' } }, handle: ok }),
      route({ method: 'post', path: '/external/appointments/requests/:token/cancel', summary: 'x', tags: ['T'], auth: 'cancellationToken', responses: { 200: { description: 'ok' } }, handle: ok }),
    ]);
    const chat = op('/external/live-chat/conversations/{token}/messages');
    expect(chat.security).toEqual([]);
    expect(chat.parameters![0].description).toMatch(/^Conversation token/);
    expect(chat.description).toMatch(/`token` in the path is the credential/);
    expect(op('/external/appointments/requests/{token}/cancel', 'post').parameters![0].description).toMatch(/^Cancellation token/);
  });

  test('a route declared twice is reported, since Express only reaches the first', () => {
    const def = route({ method: 'get', path: '/x', summary: 'x', tags: ['T'], auth: 'none', responses: { 200: { description: 'ok' } }, handle: ok });
    expect(only([def, def]).problems).toEqual(['GET /x: declared twice; Express only ever reaches the first.']);
  });

  test('a route without a 2xx answer is reported', () => {
    const def = route({ method: 'get', path: '/x', summary: 'x', tags: ['T'], auth: 'none', responses: { 404: 'gone' }, handle: ok });
    expect(only([def]).problems).toEqual(['GET /x: declares no 2xx response.']);
  });
});

describe('security per auth mode', () => {
  const modes: [AuthMode, 'get' | 'post', unknown[]][] = [
    ['none', 'get', []],
    ['workspaceKey', 'get', [{ ApiKey: [] }]],
    ['publishableKey', 'get', [{ PublishableKey: [] }, { PublishableKeyQuery: [] }]],
    // The query form is for GET only (script tags and beacons); a POST must use the header.
    ['publishableKey', 'post', [{ PublishableKey: [] }]],
    ['publishableKeyOptional', 'get', [{ PublishableKey: [] }, { PublishableKeyQuery: [] }, {}]],
    ['workspaceOrPublishableKey', 'get', [{ ApiKey: [] }, { PublishableKey: [] }, { PublishableKeyQuery: [] }]],
    ['session', 'get', [{ Session: [] }]],
    ['member', 'get', [{ Session: [] }]],
  ];
  test.each(modes)('%s (%s)', (auth, method, security) => {
    const path = auth === 'member' ? '/admin/workspaces/:wid/x' : '/external/x';
    const { document } = only([route({ method, path, summary: 'x', tags: ['T'], auth, responses: { 200: { description: 'ok' } }, handle: ok })]);
    const operation = document.paths[toOpenApiPath(path)][method];
    expect(operation.security).toEqual(security);
    expect(operation['x-hearth-auth']).toBe(auth);
  });

  test('the schemes are the two key headers, the query form of the publishable key and the bearer session', () => {
    const { document } = only([]);
    expect(document.components.securitySchemes).toMatchObject({
      ApiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
      PublishableKey: { type: 'apiKey', in: 'header', name: 'X-Publishable-Key' },
      PublishableKeyQuery: { type: 'apiKey', in: 'query', name: 'publishableKey' },
      Session: { type: 'http', scheme: 'bearer' },
    });
  });
});

describe('responses', () => {
  test('declared errors use the Error schema; the mount and middleware answers are added', () => {
    const { op } = only([
      route({
        method: 'post',
        path: '/external/things',
        summary: 'x',
        tags: ['T'],
        auth: 'workspaceKey',
        body: z.object({ name: z.string() }),
        responses: { 201: { description: 'made', schema: z.object({ id: z.string() }) }, 409: 'Taken.' },
        handle: ok,
      }),
    ]);
    const responses = op('/external/things', 'post').responses;
    expect(Object.keys(responses)).toEqual(['201', '400', '401', '409', '413', '415', '429', '500', '503']);
    for (const status of ['400', '401', '409', '413', '415', '429', '500', '503']) {
      expect(responses[status].content!['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    }
    expect(responses['409'].description).toBe('Taken.');
    expect(responses['400'].description).toMatch(/validation_failed.*malformed_json.*json_too_deep.*malformed_body/);
    expect(responses['415'].description).toMatch(/unsupported_media_type/);
    expect(responses['429'].headers!['Retry-After']).toEqual({ $ref: '#/components/headers/RetryAfter' });
    expect(responses['503'].description).toMatch(/database_unavailable/);
    expect(responses['503'].headers!['Retry-After']).toEqual({ $ref: '#/components/headers/RetryAfter' });
    expect(responses['201'].headers!['RateLimit-Remaining']).toBeDefined();
  });

  test('member routes answer 404 for non-members and, when owners only, 403 for agents', () => {
    const { op } = only([
      route({ method: 'get', path: '/admin/workspaces/:wid/a', summary: 'x', tags: ['T'], auth: 'member', responses: { 200: { description: 'ok' } }, handle: ok }),
      route({ method: 'get', path: '/admin/workspaces/:wid/b', summary: 'x', tags: ['T'], auth: 'member', role: 'owner', responses: { 200: { description: 'ok' } }, handle: ok }),
    ]);
    expect(Object.keys(op('/admin/workspaces/{wid}/a').responses)).toEqual(['200', '304', '401', '404', '500', '503']);
    expect(Object.keys(op('/admin/workspaces/{wid}/b').responses)).toEqual(['200', '304', '401', '403', '404', '500', '503']);
    expect(op('/admin/workspaces/{wid}/b')['x-hearth-role']).toBe('owner');
  });

  test('a declared status also produced by the mount keeps both explanations', () => {
    const { op } = only([
      route({ method: 'get', path: '/external/x', summary: 'x', tags: ['T'], auth: 'workspaceKey', responses: { 200: { description: 'ok' }, 401: 'Wrong key.' }, handle: ok }),
    ]);
    expect(op('/external/x').responses['401'].description).toMatch(/^Wrong key\. Missing/);
  });
});

describe('schemas', () => {
  test('requests use the input form and responses the output form; transforms and dates do not break the document', async () => {
    const { document, problems, op } = only([
      route({
        method: 'post',
        path: '/x',
        summary: 'x',
        tags: ['T'],
        auth: 'none',
        body: z.object({ count: z.coerce.number().int().min(1).max(1000), at: z.iso.datetime(), name: z.string().trim().transform((s) => s.length) }),
        responses: { 200: { description: 'ok', schema: z.object({ length: z.string().transform((s) => s.length), when: z.date() }) } },
        handle: ok,
      }),
    ]);
    expect(problems).toEqual([]);
    const body = op('/x', 'post').requestBody!.content as Record<string, { schema: { properties: Record<string, unknown> } }>;
    expect(body['application/json'].schema.properties.count).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000 });
    expect(body['application/json'].schema.properties.name).toEqual({ type: 'string' });
    const answer = op('/x', 'post').responses['200'].content!['application/json'].schema as { properties: Record<string, unknown>; additionalProperties: boolean };
    // What a transform or a Date turns into cannot be said in JSON Schema: any value, never a crash.
    expect(answer.properties).toEqual({ length: {}, when: {} });
    // Responses are closed: a field the declaration does not name is drift, and the contract test sees it.
    expect(answer.additionalProperties).toBe(false);
    await expectValid(document);
  });

  test('.meta({id}) schemas become components; an id whose input form differs is published twice', async () => {
    const Status = z.enum(['OPEN', 'CLOSED']).meta({ id: 'Status' });
    const Thing = z.object({ name: z.string().max(10), status: Status, note: z.string().default('') }).meta({ id: 'Thing' });
    const { document, op } = only([
      route({ method: 'post', path: '/things', summary: 'x', tags: ['T'], auth: 'none', body: Thing, responses: { 201: { description: 'ok', schema: Thing } }, handle: ok }),
      route({ method: 'get', path: '/things', summary: 'x', tags: ['T'], auth: 'none', query: z.object({ status: Status.optional() }), responses: { 200: { description: 'ok', schema: z.object({ items: z.array(Thing) }) } }, handle: ok }),
    ]);
    expect(Object.keys(document.components.schemas).sort()).toEqual(['Error', 'Status', 'Thing', 'ThingInput']);
    expect(document.components.schemas.Thing.required).toEqual(['name', 'status', 'note']);
    expect(document.components.schemas.ThingInput.required).toEqual(['name', 'status']);
    expect(op('/things', 'post').requestBody!.content).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/ThingInput' } } });
    expect(op('/things').parameters).toEqual([{ name: 'status', in: 'query', required: false, schema: { $ref: '#/components/schemas/Status' } }]);
    await expectValid(document);
  });

  test('two different schemas with one id are reported, not silently merged', () => {
    const a = z.object({ a: z.string() }).meta({ id: 'Same' });
    const b = z.object({ b: z.string() }).meta({ id: 'Same' });
    const { problems } = only([
      route({ method: 'get', path: '/a', summary: 'x', tags: ['T'], auth: 'none', responses: { 200: { description: 'ok', schema: a } }, handle: ok }),
      route({ method: 'get', path: '/b', summary: 'x', tags: ['T'], auth: 'none', responses: { 200: { description: 'ok', schema: b } }, handle: ok }),
    ]);
    expect(problems).toEqual(['getBResponse200: two different schemas declare the component id "Same"; ids must be unique.']);
  });

  test('recursive schemas become components that refer to themselves', async () => {
    interface Node {
      name: string;
      children: Node[];
    }
    const node: z.ZodType<Node> = z.lazy(() => z.object({ name: z.string(), children: z.array(node) }));
    const { document, problems, op } = only([
      route({ method: 'get', path: '/tree', summary: 'x', tags: ['T'], auth: 'none', responses: { 200: { description: 'ok', schema: node } }, handle: ok }),
    ]);
    expect(problems).toEqual([]);
    expect(op('/tree').responses['200'].content!['application/json'].schema).toEqual({ $ref: '#/components/schemas/getTreeResponse200' });
    expect(JSON.stringify(document.components.schemas.getTreeResponse200)).toContain('#/components/schemas/getTreeResponse200');
    await expectValid(document);
  });

  test('query objects become one parameter per field with requiredness and defaults; a body that accepts {} is optional', () => {
    const { op } = only([
      route({
        method: 'post',
        path: '/q',
        summary: 'x',
        tags: ['T'],
        auth: 'none',
        query: z.object({ page: z.coerce.number().int().min(1).default(1), q: z.string().describe('Search text.'), include: z.enum(['content']).optional() }),
        body: z.object({ reason: z.string().max(500).optional() }),
        responses: { 200: { description: 'ok' } },
        handle: ok,
      }),
    ]);
    const operation = op('/q', 'post');
    expect(operation.parameters!.map((p) => [p.name, p.in, p.required])).toEqual([
      ['page', 'query', false],
      ['q', 'query', true],
      ['include', 'query', false],
    ]);
    expect(operation.parameters![0].schema).toMatchObject({ type: 'integer', default: 1, minimum: 1 });
    expect(operation.parameters![1].description).toBe('Search text.');
    expect(operation.requestBody!.required).toBe(false);
  });

  test('the Error component is the error body every error answer uses', () => {
    const { document } = only([]);
    expect(document.components.schemas.Error).toMatchObject({ type: 'object', required: ['code', 'message'] });
    expect(errorBodySchema.safeParse({ code: 'x', message: 'y' }).success).toBe(true);
  });
});
