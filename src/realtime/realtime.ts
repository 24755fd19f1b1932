import type { Server as HttpServer } from 'node:http';
import { Server } from 'socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import type { Logger } from 'pino';
import { closeRedis, type RedisClient } from '../db/redis.js';

/**
 * The Socket.IO server of this node. With Redis, the adapter joins the rooms of every node, so an emit
 * on one node reaches sockets held by another. Namespaces are registered by the domains that own them.
 */
export interface Realtime {
  io: Server;
  close(): Promise<void>;
}

/** The largest frame a client may send: handshakes and pings only, so a few KiB. */
const MAX_CLIENT_FRAME_BYTES = 16 * 1024;

export async function createRealtime(options: { logger: Logger; redis?: RedisClient; requestsTimeoutMs?: number }): Promise<Realtime> {
  const io = new Server({
    cors: { origin: '*' },
    serveClient: false,
    // Memory per held socket (issue 13: at most 10 KiB per visitor): no compression state per socket, and
    // no client message is larger than a handshake (clients only listen), so big frames are refused early.
    perMessageDeflate: false,
    httpCompression: false,
    maxHttpBufferSize: MAX_CLIENT_FRAME_BYTES,
  });
  const extraClients: RedisClient[] = [];
  if (options.redis) {
    // The adapter's publishes queue while Redis is away (sockets of this node are served meanwhile).
    const pub = options.redis.duplicate({ disableOfflineQueue: false });
    const sub = options.redis.duplicate({ disableOfflineQueue: false });
    for (const [client, role] of [[pub, 'adapter-pub'], [sub, 'adapter-sub']] as const) {
      client.on('error', (error: Error) => options.logger.error({ err: error, client: role }, 'redis adapter error'));
    }
    await Promise.all([pub.connect(), sub.connect()]);
    extraClients.push(pub, sub);
    // The adapter publishes without awaiting; a failed publish (Redis away) must be logged, not become an
    // unhandled rejection. Local sockets are served before the publish, so this node keeps working.
    const publish = pub.publish.bind(pub);
    (pub as { publish: typeof pub.publish }).publish = ((...args: Parameters<typeof publish>) =>
      publish(...args).catch((error: unknown) => {
        options.logger.error({ err: error, client: 'adapter-pub' }, 'redis adapter publish failed');
        return 0;
      }));
    // The adapter's close unsubscribes without awaiting either: with Redis gone, those fail after the node
    // has stopped (unhandled rejections that could end the process).
    const unsubscribe = sub.unsubscribe.bind(sub);
    const pUnsubscribe = sub.pUnsubscribe.bind(sub);
    const unheard = (error: unknown) => options.logger.warn({ err: error, client: 'adapter-sub' }, 'redis adapter unsubscribe failed');
    (sub as { unsubscribe: typeof sub.unsubscribe }).unsubscribe = ((...args: Parameters<typeof unsubscribe>) => unsubscribe(...args).catch(unheard)) as typeof sub.unsubscribe;
    (sub as { pUnsubscribe: typeof sub.pUnsubscribe }).pUnsubscribe = ((...args: Parameters<typeof pUnsubscribe>) => pUnsubscribe(...args).catch(unheard)) as typeof sub.pUnsubscribe;
    // Cross-node requests (fetchSockets: is a visitor still connected?) give up quickly when a node does not answer.
    io.adapter(createAdapter(pub, sub, { requestsTimeout: options.requestsTimeoutMs ?? 1_000 }));
  }
  return {
    io,
    async close() {
      // Closing the adapter unsubscribes, which would wait for a Redis that is away: a client whose Redis is
      // away, or goes away meanwhile, is ended at once.
      const endAway = () => extraClients.forEach((client) => client.isOpen && !client.isReady && client.destroy());
      endAway();
      const watch = setInterval(endAway, 100);
      await new Promise<void>((resolve) => io.close(() => resolve()));
      clearInterval(watch);
      await Promise.all(extraClients.map((client) => closeRedis(client)));
    },
  };
}

export function attachRealtime(realtime: Realtime, server: HttpServer): void {
  realtime.io.attach(server);
  realtime.io.engine.on('connection', releaseUpgradeRequest);
}

/** The source of the `close` relay engine.io 6 puts on an upgraded TCP socket for its WebSocketResponse. */
const UPGRADE_CLOSE_RELAY = '() => this.emit("close")';

/** The name of the `error` listener engine.io 6 puts on a WebSocket until its transport takes over. */
const UPGRADE_ERROR_GUARD = 'onUpgradeError';

type Listener = ((...args: unknown[]) => void) & { listener?: (...args: unknown[]) => void };

interface RawSocket {
  request: unknown;
  transport?: NodeJS.EventEmitter & { name?: string; socket?: NodeJS.EventEmitter & { _socket?: NodeJS.EventEmitter } };
}

/**
 * Lets go of what only the handshake needed, once a socket is open (issue 13: memory per held socket):
 * - the upgrade request (headers, raw headers, stream state: about 1.8 KiB): engine.io keeps it as
 *   `request`, and its WebSocketResponse, which holds it too, stays reachable through a `close` relay on
 *   the TCP socket that no one needs after the handshake (no engine middleware listens). Namespaces
 *   authenticate from the handshake's `auth`, never from its headers.
 * - the no-op `error` guard engine.io sets on the WebSocket before the transport exists, and removes itself
 *   when a polling socket upgrades but not on a direct WebSocket connection; the transport's own `error`
 *   listener handles errors from here on (about 170 bytes: the guard, its context and a listener array).
 * - the `headers` relay engine.io sets on every new transport: only a polling transport emits `headers`
 *   (once per HTTP request), so on a WebSocket transport it is a dead closure and its context.
 * Should a later engine.io differ, nothing is removed and only the saving is lost.
 */
function releaseUpgradeRequest(raw: RawSocket): void {
  raw.request = null;
  if (raw.transport?.name === 'websocket') raw.transport.removeAllListeners('headers');
  const ws = raw.transport?.socket;
  if (!ws) return;
  for (const listener of ws.rawListeners('error') as Listener[]) {
    if (listener.name === UPGRADE_ERROR_GUARD && ws.listenerCount('error') > 1) ws.removeListener('error', listener);
  }
  const tcp = ws._socket;
  if (!tcp) return;
  for (const listener of tcp.rawListeners('close') as Listener[]) {
    if (String(listener.listener ?? listener) === UPGRADE_CLOSE_RELAY) tcp.removeListener('close', listener);
  }
}
