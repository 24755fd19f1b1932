/**
 * `BENCH_TRACE=1` on the chat bench: each node child notes, per reply body, when the stages of the hot path
 * happened on its clock (`performance.timeOrigin + performance.now()`, comparable across the bench's
 * processes), so the bench can print where a reply's latency goes. Observation only: listeners on the
 * HTTP server and the driver, and wrappers around the widget namespace's adapter.
 */
import type { HearthNode } from '../../src/app/node.js';
import { now } from './children.js';

export type Stage = 'arrived' | 'insertSent' | 'inserted' | 'pushed' | 'flushed' | 'relayed' | 'answered';
export type Trace = Record<string, Partial<Record<Stage, number>> & { before?: string[] }>;

export function traceChat(node: HearthNode): () => Trace {
  const trace: Trace = {};
  const stage = (body: string, name: Stage, at = now()) => ((trace[body] ??= {})[name] ??= at);
  // Replies are posted one at a time (10/s, answered in a few ms), so the insert belongs to the latest arrival.
  let arrival: { at: number; body?: string; before: string[] } | undefined;
  const started = new Map<number, { name: string; at: number }>();
  (node.server).prependListener('request', (req, res) => {
    if (req.method !== 'POST' || !req.url?.includes('/conversations/')) return;
    const current: { at: number; body?: string; before: string[] } = { at: now(), before: [] };
    arrival = current;
    res.once('finish', () => current.body && stage(current.body, 'answered'));
  });
  const inserts = new Map<number, string>();
  const client = node.deps.db.getClient();
  client.on('commandStarted', (event) => {
    if (arrival && !arrival.body) started.set(event.requestId, { name: `${event.commandName} ${event.command[event.commandName]}`, at: now() });
    if (event.commandName !== 'insert' || event.command.insert !== 'livechat_messages') return;
    const body = (event.command.documents as { body: string }[])[0].body;
    inserts.set(event.requestId, body);
    if (arrival && !arrival.body) {
      arrival.body = body;
      stage(body, 'arrived', arrival.at);
      trace[body].before = arrival.before;
    }
    stage(body, 'insertSent');
  });
  client.on('commandSucceeded', (event) => {
    const read = started.get(event.requestId);
    if (read) {
      started.delete(event.requestId);
      arrival?.before.push(`${read.name} ${(now() - read.at).toFixed(1)}`);
    }
    const body = inserts.get(event.requestId);
    if (body === undefined) return;
    inserts.delete(event.requestId);
    stage(body, 'inserted');
  });
  const adapter = node.deps.realtime.io.of('/widget').adapter as unknown as {
    broadcast(packet: { data: [string, { message?: { body: string } }] }, opts: unknown): void;
    onmessage?: (pattern: unknown, channel: string | Buffer, msg: Buffer) => void;
    rooms: Map<string, Set<string>>;
    parser?: { decode(msg: Buffer): [string, { data: [string, { message?: { body: string } }] }] };
  };
  const broadcast = adapter.broadcast.bind(adapter);
  adapter.broadcast = (packet, opts) => {
    const body = packet.data[1]?.message?.body;
    const pushed = packet.data[0] === 'message.created' && body !== undefined;
    if (pushed) stage(body, 'pushed');
    broadcast(packet, opts);
    // The Redis client writes its queued commands in a setImmediate; this one runs right after that write.
    if (pushed) setImmediate(() => stage(body, 'flushed'));
  };
  const onmessage = adapter.onmessage?.bind(adapter);
  if (onmessage && adapter.parser) {
    const parser = adapter.parser;
    adapter.onmessage = (pattern, channel, msg) => {
      const at = now();
      onmessage(pattern, channel, msg);
      const room = channel.toString().split('#').at(-2) ?? '';
      if (!adapter.rooms.has(room)) return;
      const [, packet] = parser.decode(msg);
      const body = packet.data?.[1]?.message?.body;
      if (packet.data?.[0] === 'message.created' && body !== undefined) stage(body, 'relayed', at);
    };
  }
  return () => trace;
}
