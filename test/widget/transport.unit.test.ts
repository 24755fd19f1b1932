import { describe, expect, test } from '@jest/globals';
import type { ChatMessage } from '../../src/realtime/events.js';
import {
  MessageLog,
  Transport,
  catchUpAfter,
  fetchAllMessages,
  nextPollDelay,
  type MessagesPage,
  type SocketHandlers,
  type TransportMode,
  type TransportOptions,
} from '../../widget/src/transport.js';

/**
 * Unit tests of the widget transport's catch-up logic. Time is a manual scheduler (no sleeps); the
 * "server" is an in-memory list answering `after` with strictly newer messages, as the API does.
 */

class ManualScheduler {
  tasks: { fn: () => void; ms: number; cancelled: boolean }[] = [];
  schedule = (fn: () => void, ms: number) => {
    const task = { fn, ms, cancelled: false };
    this.tasks.push(task);
    return () => {
      task.cancelled = true;
    };
  };
  pending() {
    return this.tasks.filter((t) => !t.cancelled);
  }
  /** Runs the one pending timer (the transport keeps at most one) and lets its fetch settle. */
  async fire(): Promise<number> {
    const pending = this.pending();
    expect(pending).toHaveLength(1);
    const task = pending[0];
    task.cancelled = true;
    task.fn();
    await settle();
    return task.ms;
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

const T0 = Date.parse('2030-01-01T10:00:00.000Z');
const msg = (id: string, offsetMs: number, sender: ChatMessage['sender'] = 'AGENT'): ChatMessage => ({
  id,
  sender,
  body: `body ${id}`,
  createdAt: new Date(T0 + offsetMs).toISOString(),
});

class FakeConversation {
  messages: ChatMessage[] = [];
  status = 'OPEN';
  calls: (string | undefined)[] = [];
  failWith: { status: number } | null = null;
  pageSize = Infinity;
  fetch = async (_token: string, after?: string): Promise<MessagesPage> => {
    this.calls.push(after);
    // The widget reads the HTTP status off what the fetcher throws.
    if (this.failWith) throw Object.assign(new Error(`HTTP ${this.failWith.status}`), this.failWith);
    const floor = after ? Date.parse(after) : -Infinity;
    return { status: this.status, messages: this.messages.filter((m) => Date.parse(m.createdAt) > floor).slice(0, this.pageSize) };
  };
}

class FakeSocket {
  handlers: SocketHandlers | null = null;
  opened = 0;
  closed = 0;
  connect = (_token: string, handlers: SocketHandlers) => {
    this.handlers = handlers;
    this.opened += 1;
    return { close: () => void (this.closed += 1) };
  };
}

function setup(overrides: Partial<TransportOptions> = {}, withSocket = true) {
  const server = new FakeConversation();
  const socket = new FakeSocket();
  const scheduler = new ManualScheduler();
  const shown: ChatMessage[] = [];
  const statuses: string[] = [];
  const modes: TransportMode[] = [];
  let gone = 0;
  const transport = new Transport({
    token: 'tok',
    fetchMessages: server.fetch,
    connectSocket: withSocket ? socket.connect : undefined,
    onMessages: (messages) => shown.push(...messages),
    onStatus: (status) => statuses.push(status),
    onGone: () => void (gone += 1),
    onMode: (mode) => modes.push(mode),
    schedule: scheduler.schedule,
    pollMinMs: 100,
    pollMaxMs: 800,
    pollFactor: 2,
    socketGraceMs: 50,
    overlapMs: 1_000,
    ...overrides,
  });
  return { server, socket, scheduler, shown, statuses, modes, transport, gone: () => gone };
}

const ids = (messages: ChatMessage[]) => messages.map((m) => m.id);

describe('building blocks', () => {
  test('the log keeps one copy per id and returns only new messages, oldest first', () => {
    const log = new MessageLog();
    expect(ids(log.add([msg('b', 20), msg('a', 10)]))).toEqual(['a', 'b']);
    expect(ids(log.add([msg('a', 10), msg('c', 30), msg('b', 20)]))).toEqual(['c']);
    expect(ids(log.all())).toEqual(['a', 'b', 'c']);
    expect(log.size).toBe(3);
  });

  test('messages stamped in the same millisecond are ordered by id', () => {
    const log = new MessageLog();
    log.add([msg('y', 5), msg('x', 5)]);
    expect(ids(log.all())).toEqual(['x', 'y']);
  });

  test('catch-up asks from the synced point minus the overlap, or for everything when nothing is synced', () => {
    expect(catchUpAfter(null, 1_000)).toBeUndefined();
    expect(catchUpAfter(T0, 1_000)).toBe(new Date(T0 - 1_000).toISOString());
    expect(catchUpAfter(T0, 0)).toBe(new Date(T0).toISOString());
  });

  test('the polling delay doubles up to the cap and falls back to the minimum when news arrive', () => {
    const options = { min: 100, max: 800, factor: 2 };
    expect(nextPollDelay(100, false, options)).toBe(200);
    expect(nextPollDelay(400, false, options)).toBe(800);
    expect(nextPollDelay(800, false, options)).toBe(800);
    expect(nextPollDelay(800, true, options)).toBe(100);
  });
});

describe('transport', () => {
  test('a socket that never connects gives way to polling after the grace period, with backoff', async () => {
    const { server, scheduler, shown, modes, transport } = setup();
    server.messages.push(msg('a', 0));
    transport.start();
    expect(transport.currentMode).toBe('connecting');
    expect(await scheduler.fire()).toBe(50); // grace
    expect(await scheduler.fire()).toBe(0); // first poll at once
    expect(server.calls).toEqual([undefined]);
    expect(ids(shown)).toEqual(['a']);
    // Nothing new: 100 (news reset) then 200, 400, 800, 800.
    const delays = [];
    for (let i = 0; i < 5; i += 1) delays.push(await scheduler.fire());
    expect(delays).toEqual([100, 200, 400, 800, 800]);
    // A reply arrives: shown once, and the pace returns to the minimum.
    server.messages.push(msg('b', 5_000));
    await scheduler.fire();
    expect(ids(shown)).toEqual(['a', 'b']);
    expect(scheduler.pending()[0].ms).toBe(100);
    expect(modes).toEqual(['polling']);
    // Every poll after the first asks from the last seen message minus the overlap.
    expect(server.calls.at(-1)).toBe(new Date(T0 - 1_000).toISOString());
  });

  test('after a drop, polling fills the gap; on reconnect one catch-up runs and nothing is shown twice', async () => {
    const { server, socket, scheduler, shown, transport } = setup();
    transport.start();
    socket.handlers!.connected();
    await settle();
    expect(transport.currentMode).toBe('live');
    expect(server.calls).toEqual([undefined]); // initial catch-up: the full history
    expect(scheduler.pending()).toHaveLength(0); // no polling while live

    // Live push.
    const a = msg('a', 1_000);
    server.messages.push(a);
    socket.handlers!.message(a);
    expect(ids(shown)).toEqual(['a']);

    // The socket drops; a message is stored meanwhile and only polling can see it.
    socket.handlers!.disconnected();
    expect(transport.currentMode).toBe('polling');
    server.messages.push(msg('b', 4_000));
    await scheduler.fire();
    expect(ids(shown)).toEqual(['a', 'b']);
    expect(server.calls.at(-1)).toBe(new Date(T0 + 1_000 - 1_000).toISOString());

    // Another message lands between the last poll and the reconnect.
    server.messages.push(msg('c', 9_000));
    socket.handlers!.connected();
    expect(scheduler.pending()).toHaveLength(0); // polling stopped
    // A push of c races the catch-up fetch that also returns c: shown once.
    socket.handlers!.message(server.messages[2]);
    await settle();
    expect(ids(shown)).toEqual(['a', 'b', 'c']);
    expect(server.calls.at(-1)).toBe(new Date(T0 + 4_000 - 1_000).toISOString());
    expect(transport.currentMode).toBe('live');
  });

  test('a message stamped in the same millisecond as the last one seen is not lost', async () => {
    const { server, socket, shown, transport } = setup({ overlapMs: 1 });
    transport.start();
    server.messages.push(msg('a', 2_000));
    socket.handlers!.connected();
    await settle();
    socket.handlers!.disconnected();
    // Stored in the same millisecond as `a`, by a node whose push never reached us.
    server.messages.push(msg('b', 2_000));
    socket.handlers!.connected();
    await settle();
    expect(ids(shown)).toEqual(['a', 'b']);
  });

  test("the visitor's own message does not move the cursor past a reply not yet fetched", async () => {
    const { server, scheduler, shown, transport } = setup({ overlapMs: 0 }, false);
    transport.start();
    server.messages.push(msg('a', 0));
    await scheduler.fire(); // poll: a
    server.messages.push(msg('reply', 8_000));
    const own = msg('own', 10_000, 'VISITOR');
    server.messages.push(own);
    transport.addOwn(own);
    transport.nudge();
    expect(scheduler.pending()[0].ms).toBe(100);
    await scheduler.fire();
    expect(ids(shown)).toEqual(['a', 'own', 'reply']);
    expect(server.calls.at(-1)).toBe(new Date(T0).toISOString());
  });

  test('a full page is followed with the last createdAt until a short page arrives', async () => {
    const { server, socket, shown, transport } = setup({ pageSize: 2 });
    server.pageSize = 2;
    for (let i = 0; i < 5; i += 1) server.messages.push(msg(`m${i}`, i * 10));
    transport.start();
    socket.handlers!.connected();
    await settle();
    expect(ids(shown)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
    expect(server.calls).toEqual([undefined, server.messages[1].createdAt, server.messages[3].createdAt]);
  });

  test('fetchAllMessages stops at a short page (exactly one page plus one)', async () => {
    const server = new FakeConversation();
    server.pageSize = 3;
    for (let i = 0; i < 4; i += 1) server.messages.push(msg(`m${i}`, i));
    const page = await fetchAllMessages(server.fetch, 'tok', undefined, 3);
    expect(ids(page.messages)).toEqual(['m0', 'm1', 'm2', 'm3']);
    expect(server.calls).toHaveLength(2);
    server.calls = [];
    server.messages.pop();
    // Exactly a full page: one more call finds nothing and stops.
    const exact = await fetchAllMessages(server.fetch, 'tok', undefined, 3);
    expect(exact.messages).toHaveLength(3);
    expect(server.calls).toHaveLength(2);
    server.calls = [];
    server.messages.pop();
    await fetchAllMessages(server.fetch, 'tok', undefined, 3);
    expect(server.calls).toHaveLength(1);
  });

  test('without a socket it polls from the start', async () => {
    const { server, scheduler, transport } = setup({}, false);
    transport.start();
    expect(transport.currentMode).toBe('polling');
    await scheduler.fire();
    expect(server.calls).toHaveLength(1);
  });

  test('a CLOSED status stops every timer and the socket', async () => {
    const { server, socket, scheduler, statuses, transport } = setup();
    transport.start();
    await scheduler.fire(); // grace
    server.status = 'CLOSED';
    await scheduler.fire(); // poll sees CLOSED
    expect(statuses).toEqual(['CLOSED']);
    expect(transport.currentMode).toBe('stopped');
    expect(scheduler.pending()).toHaveLength(0);
    expect(socket.closed).toBe(1);
  });

  test('a pushed conversation.updated CLOSED stops the transport too', async () => {
    const { socket, scheduler, statuses, transport } = setup();
    transport.start();
    socket.handlers!.connected();
    await settle();
    socket.handlers!.status('CLOSED');
    expect(statuses).toEqual(['OPEN', 'CLOSED']);
    expect(transport.currentMode).toBe('stopped');
    expect(scheduler.pending()).toHaveLength(0);
  });

  test('a 404 (conversation gone) reports once and stops', async () => {
    const { server, scheduler, transport, gone } = setup({}, false);
    server.failWith = { status: 404 };
    transport.start();
    await scheduler.fire();
    expect(gone()).toBe(1);
    expect(transport.currentMode).toBe('stopped');
    expect(scheduler.pending()).toHaveLength(0);
  });

  test('other fetch errors back off and keep polling', async () => {
    const { server, scheduler, transport } = setup({}, false);
    server.failWith = { status: 503 };
    transport.start();
    await scheduler.fire();
    expect(scheduler.pending()[0].ms).toBe(200);
    server.failWith = null;
    await scheduler.fire();
    expect(transport.currentMode).toBe('polling');
  });

  test('a failed catch-up on reconnect is retried instead of leaving a hole', async () => {
    const { server, socket, scheduler, shown, transport } = setup();
    transport.start();
    server.failWith = { status: 503 };
    server.messages.push(msg('a', 0));
    socket.handlers!.connected();
    await settle();
    expect(shown).toHaveLength(0);
    server.failWith = null;
    await scheduler.fire();
    expect(ids(shown)).toEqual(['a']);
  });

  test('stop() ignores late socket events and fetch answers', async () => {
    const { server, socket, scheduler, shown, transport } = setup();
    transport.start();
    server.messages.push(msg('a', 0));
    socket.handlers!.connected();
    transport.stop();
    await settle();
    socket.handlers!.message(msg('b', 1));
    socket.handlers!.disconnected();
    expect(shown).toHaveLength(0);
    expect(scheduler.pending()).toHaveLength(0);
  });
});
