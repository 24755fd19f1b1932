import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { io as connectClient, type Socket } from 'socket.io-client';
import { createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { CLIENT_EVENTS, type EventAnswer } from '../../src/realtime/events.js';
import { activateChat, capturingLogger, startChat } from './support.js';

/**
 * The socket events under fuzz, as test/foundation/hostile-input.test.ts does the routes: every event name
 * the server handles and names it does not, with hostile payloads (wrong types, missing fields, huge strings,
 * deep nesting, `__proto__` keys, NUL and lone surrogates, binary, many arguments), with and without an
 * acknowledgement, from a visitor socket and an agent socket. The server never logs an error; an
 * acknowledgement always gets `{ok: true}` or an error body; the socket stays usable unless the server ends
 * it on purpose (a frame over its limit, a malformed packet); no other conversation or workspace hears
 * anything; nothing is stored. `npm test` replays one fixed sample; `FUZZ_RUNS` (`npm run fuzz`) draws more.
 */
const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 120);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : process.env.FUZZ_RUNS ? undefined : 20261123;
/** Longest wait for an acknowledgement or a disconnect; the server answers in milliseconds. */
const ANSWER_MS = 3_000;

const log = capturingLogger('warn');
let node: HearthNode;
let a: WorkspaceFixture;
let b: WorkspaceFixture;
/** Workspace A: the fuzzed conversation and a bystander one; workspace B: one conversation. */
const chats = { fuzzed: { id: '', token: '' }, bystander: { id: '', token: '' }, otherWorkspace: { id: '', token: '' } };
/** What every listening socket received, by who listens. */
const heard = new Map<string, { event: string; payload: unknown }[]>();
const listeners: Socket[] = [];
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);

function connect(namespace: '/widget' | '/agent', auth: Record<string, string>): Promise<Socket> {
  const socket = connectClient(node.url + namespace, { auth, transports: ['websocket'], reconnection: false, forceNew: true });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (error) => (socket.close(), reject(error)));
  });
}

async function listener(name: string, namespace: '/widget' | '/agent', auth: Record<string, string>): Promise<void> {
  const socket = await connect(namespace, auth);
  const seen: { event: string; payload: unknown }[] = [];
  socket.onAny((event: string, payload: unknown) => void seen.push({ event, payload }));
  heard.set(name, seen);
  listeners.push(socket);
}

const visitorAuth = () => ({ conversationToken: chats.fuzzed.token });
const agentAuth = () => ({ token: a.token, workspaceId: a.id });

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  process.on('uncaughtException', onUnhandled);
  node = await startTestNode({ redis: true, logger: log.logger, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
  a = await createWorkspace(node.url);
  b = await createWorkspace(node.url);
  const keyA = await activateChat(node.url, a);
  const keyB = await activateChat(node.url, b);
  for (const [name, key] of [['fuzzed', keyA], ['bystander', keyA], ['otherWorkspace', keyB]] as const) {
    const started = (await startChat(node.url, key)).body as { conversationId: string; conversationToken: string };
    chats[name] = { id: started.conversationId, token: started.conversationToken };
  }
  // Who may hear the fuzz: workspace A's other console (typing of the fuzzed conversation only). Who may not:
  // the bystander conversation, and workspace B's visitor and console.
  await listener('console A', '/agent', agentAuth());
  await listener('bystander visitor', '/widget', { conversationToken: chats.bystander.token });
  await listener('visitor B', '/widget', { conversationToken: chats.otherWorkspace.token });
  await listener('console B', '/agent', { token: b.token, workspaceId: b.id });
}, 60_000);

afterAll(async () => {
  for (const socket of listeners) socket.close();
  await node?.stop();
  process.off('unhandledRejection', onUnhandled);
  process.off('uncaughtException', onUnhandled);
});

type Outcome = { answer: unknown } | { disconnected: string } | { silent: true };

/** Emits and waits for the acknowledgement (when asked for) or the server ending the socket. */
function send(socket: Socket, event: string, args: unknown[], withAck: boolean): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (withAck ? reject(new Error(`no acknowledgement of ${JSON.stringify(event)} in ${ANSWER_MS} ms`)) : resolve({ silent: true })), withAck ? ANSWER_MS : 20);
    const done = (outcome: Outcome) => {
      clearTimeout(timer);
      socket.off('disconnect', onDisconnect);
      resolve(outcome);
    };
    const onDisconnect = (reason: string) => done({ disconnected: reason });
    socket.once('disconnect', onDisconnect);
    if (withAck) socket.emit(event, ...args, (answer: unknown) => done({ answer }));
    else socket.emit(event, ...args);
  });
}

/** An acknowledgement is `{ok: true}` or an error body. */
function expectAnswer(answer: unknown): asserts answer is EventAnswer {
  const candidate = answer as Record<string, unknown>;
  if (candidate?.ok === true) return expect(candidate).toEqual({ ok: true });
  expect(candidate).toEqual({ ok: false, code: expect.any(String), message: expect.any(String), ...('issues' in candidate ? { issues: expect.any(Array) } : {}) });
  for (const issue of (candidate.issues as unknown[] | undefined) ?? []) expect(issue).toEqual({ path: expect.any(String), message: expect.any(String) });
}

/** The server may end a socket, never the client's own doing: the reasons a server-side close gives. */
const SERVER_ENDED = ['transport close', 'io server disconnect', 'transport error', 'parse error'];

// ------------------------------------------------------------------------------------ payloads

/**
 * A value built only when sent (`sendable`): fast-check prints a failing sample whole and recursively, which
 * deep nesting would overflow and a 20 kB buffer would flood; it prints the label instead.
 */
class Built {
  constructor(
    readonly label: string,
    readonly build: () => unknown,
  ) {}
  [fc.toStringMethod]() {
    return this.label;
  }
}
const nested = (levels: number) =>
  new Built(`nested(${levels})`, () => {
    let value: unknown = 1;
    for (let i = 0; i < levels; i += 1) value = i % 2 ? [value] : { a: value };
    return value;
  });
function sendable(value: unknown): unknown {
  if (value instanceof Built) return value.build();
  if (Array.isArray(value)) return value.map(sendable);
  if (value && typeof value === 'object' && !Buffer.isBuffer(value)) {
    const copy = Object.create(Object.getPrototypeOf(value) as object | null) as Record<string, unknown>;
    for (const key of Object.keys(value)) Object.defineProperty(copy, key, { value: sendable((value as Record<string, unknown>)[key]), enumerable: true, writable: true, configurable: true });
    return copy;
  }
  return value;
}
/** Objects whose own keys are `__proto__` / `constructor` (as JSON.parse makes them), not prototypes. */
const polluting = [
  JSON.parse('{"__proto__":{"typing":true,"polluted":true}}') as unknown,
  JSON.parse('{"typing":true,"constructor":{"prototype":{"polluted":true}}}') as unknown,
  JSON.parse('{"__proto__":{"conversationId":"0123456789abcdef01234567"},"typing":false}') as unknown,
];
const hostileStrings = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('\u0000', 'a\u0000b', '\uD800', 'x\uDFFF', '\uDBFF\uD800', '__proto__', 'constructor', 'true', '', ' ', '0123456789abcdef01234567'),
  fc.constantFrom(new Built("'x'.repeat(5_000)", () => 'x'.repeat(5_000)), new Built("'x'.repeat(20_000)", () => 'x'.repeat(20_000))),
);
const conversationIds = () => fc.constantFrom(chats.fuzzed.id, chats.otherWorkspace.id, chats.fuzzed.id.toUpperCase(), 'ffffffffffffffffffffffff', `${chats.fuzzed.id}x`);
const hostileValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileStrings,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constantFrom(null, undefined, Number.NaN, Infinity, -0),
    fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
    // The client library recurses over what it sends: deeper nesting goes as raw packets (below).
    fc.constantFrom(...polluting, nested(300), nested(1_000), new Built('Buffer.alloc(20_000)', () => Buffer.alloc(20_000))),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'prototype', 'typing', 'conversationId', 'toString')), tie('value'), { maxKeys: 4 }),
  ),
})).value;
/** Typing-shaped payloads: the fields right or wrong, present or missing, with extras. */
const typingLike = () =>
  fc.record(
    { typing: fc.oneof(fc.boolean(), hostileValue), conversationId: fc.oneof(conversationIds(), hostileValue), extra: hostileValue },
    { requiredKeys: [] },
  );
const RESERVED = new Set(['connect', 'connect_error', 'disconnect', 'disconnecting', 'newListener', 'removeListener']);
const eventNames = fc.oneof(
  fc.constantFrom(...CLIENT_EVENTS),
  fc.constantFrom(...CLIENT_EVENTS),
  fc.constantFrom('message', 'message.created', 'typing.changed', 'conversation.read', 'join', 'leave', 'error', '__proto__', 'constructor', 'toString', 'hasOwnProperty', '', 'TYPING', 'typing\u0000', ' typing'),
  fc.string().filter((name) => !RESERVED.has(name)),
);

// ------------------------------------------------------------------------------------ the fuzz

describe('the socket events under fuzz', () => {
  test(`every event name and hostile payloads, from a visitor and an agent (${FUZZ_RUNS} runs): no error, every ack answered, nothing leaks or is stored`, async () => {
    const sockets: Record<'visitor' | 'agent', Socket | null> = { visitor: null, agent: null };
    const endedBy = new Map<Socket, string>();
    const socketOf = async (side: 'visitor' | 'agent') => {
      if (sockets[side]) return sockets[side];
      const socket = await (side === 'visitor' ? connect('/widget', visitorAuth()) : connect('/agent', agentAuth()));
      socket.once('disconnect', (reason) => void endedBy.set(socket, reason));
      return (sockets[side] = socket);
    };

    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('visitor' as const, 'agent' as const),
        eventNames,
        fc.oneof(fc.array(hostileValue, { maxLength: 12 }), typingLike().map((payload) => [payload]), fc.tuple(typingLike(), hostileValue)),
        fc.boolean(),
        async (side, event, args, withAck) => {
          const socket = await socketOf(side);
          const outcome = await send(socket, event, args.map(sendable), withAck);
          if ('answer' in outcome) expectAnswer(outcome.answer);
          // Still usable: a valid event is acknowledged. Or ended by the server on purpose (a frame over its
          // limit), perhaps only now: then a new socket is served at once.
          const check = socket.connected ? await send(socket, 'typing', [side === 'visitor' ? { typing: false } : { typing: false, conversationId: chats.fuzzed.id }], true) : null;
          if (socket.connected) return expect(check).toEqual({ answer: { ok: true } });
          await eventually(() => endedBy.has(socket));
          expect(SERVER_ENDED).toContain(endedBy.get(socket));
          sockets[side] = null;
        },
      ),
      { numRuns: FUZZ_RUNS, seed: SEED, verbose: 1 },
    );

    // Afterwards: both sides work, live, end to end.
    const visitor = await socketOf('visitor');
    const agent = await socketOf('agent');
    const agentHeard: { event: string; payload: unknown }[] = [];
    agent.onAny((event: string, payload: unknown) => void agentHeard.push({ event, payload }));
    expect(await send(visitor, 'typing', [{ typing: true }], true)).toEqual({ answer: { ok: true } });
    const sent = await request(node.url, `/external/live-chat/conversations/${chats.fuzzed.token}/messages`, { body: { body: 'still here' } });
    expect(sent.status).toBe(201);
    await eventually(() => agentHeard.some(({ event, payload }) => event === 'message.created' && (payload as { message: { body: string } }).message.body === 'still here'));
    visitor.close();
    agent.close();

    // Nothing stored: the one message above is the fuzzed conversation's only one, and the workspaces hold
    // the conversations they started with.
    const messages = await request(node.url, `/external/live-chat/conversations/${chats.fuzzed.token}/messages`);
    expect(messages.body.messages.map((message: { body: string }) => message.body)).toEqual(['still here']);
    expect((await request(node.url, `/admin/workspaces/${a.id}/conversations`, { token: a.token })).body.pageInfo.total).toBe(2);
    expect((await request(node.url, `/admin/workspaces/${b.id}/conversations`, { token: b.token })).body.pageInfo.total).toBe(1);

    // Nothing leaked: workspace A's other console heard only the fuzzed conversation; no one else heard a thing.
    expect(heard.get('bystander visitor')).toEqual([]);
    expect(heard.get('visitor B')).toEqual([]);
    expect(heard.get('console B')).toEqual([]);
    const consoleA = heard.get('console A')!;
    expect(consoleA.every(({ payload }) => (payload as { conversationId?: string }).conversationId === chats.fuzzed.id)).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();

    // Not even a warning: a refused event is the client's fault, answered to it, never the log's business.
    expect(log.lines().filter((line) => Number(line.level) >= 40)).toEqual([]);
    expect(unhandled).toEqual([]);
  }, 600_000);
});

// ------------------------------------------------------------------------------------ raw packets

/**
 * What the client library refuses to send, written as raw Socket.IO packets: reserved event names, payloads
 * that are not an event array, acknowledgements of nothing, a binary event whose attachment never comes.
 * Each either is ignored (the socket goes on working) or ends that connection; the node serves the next.
 */
const RAW_TEXT_PACKETS = [
  '2/widget,["disconnect"]',
  '2/widget,["newListener","typing"]',
  '2/widget,["connect_error",{}]',
  '2/widget,not json',
  '2/widget,{"typing":true}',
  '2/widget,[]',
  '2/widget,[42,{"typing":true}]',
  '27/widget,["typing"',
  '2/widget,99999999999999999999["typing",{"typing":true}]',
  '3/widget,12345[{"ok":true}]',
  '51-/widget,["typing",{"_placeholder":true,"num":0}]',
  '51-/widget,["typing",{"_placeholder":true,"num":7}]',
  '0/widget,{"conversationToken":"ct_nope"}',
  '0/agent,{"token":"nope","workspaceId":"nope"}',
  '2/agent,["typing",{"typing":true,"conversationId":"0123456789abcdef01234567"}]',
  // The client's own namespace disconnect: that socket is gone (the library, bypassed, does not know).
  '1/widget,',
  '9/widget,[]',
  '2/nope,["typing"]',
];
const DEEP = 6_000;
const RAW_PACKETS: [label: string, frames: (string | Buffer)[]][] = [
  ...RAW_TEXT_PACKETS.map((packet): [string, string[]] => [packet, [packet]]),
  [`an event nested ${DEEP} levels deep`, [`2/widget,["typing",${'['.repeat(DEEP)}${']'.repeat(DEEP)}]`]],
  [`a binary event nested ${DEEP} levels deep`, [`51-/widget,["typing",${'['.repeat(DEEP)}{"_placeholder":true,"num":0}${']'.repeat(DEEP)}]`, Buffer.from([1, 2, 3])]],
  ['a frame over the limit', [`2/widget,["typing","${'x'.repeat(20_000)}"]`]],
];

describe('raw packets the client library would not send', () => {
  test.each(RAW_PACKETS)('%s: ignored or that connection ended; the node serves the next socket', async (packet, frames) => {
    const socket = await connect('/widget', visitorAuth());
    try {
      const ended = new Promise<string>((resolve) => socket.once('disconnect', resolve));
      for (const frame of frames) (socket.io.engine as unknown as { write(data: string | Buffer): void }).write(frame);
      if (!packet.startsWith('1/')) {
        const outcome = await Promise.race([ended.then((reason) => ({ disconnected: reason })), send(socket, 'typing', [{ typing: false }], true)]);
        if ('answer' in outcome) expect(outcome.answer).toEqual({ ok: true });
        else expect(SERVER_ENDED).toContain((outcome as { disconnected: string }).disconnected);
      }
    } finally {
      socket.close();
    }
    const next = await connect('/widget', visitorAuth());
    try {
      expect(await send(next, 'typing', [{ typing: false }], true)).toEqual({ answer: { ok: true } });
    } finally {
      next.close();
    }
    expect(log.lines().filter((line) => Number(line.level) >= 40)).toEqual([]);
    expect(unhandled).toEqual([]);
  });
});
