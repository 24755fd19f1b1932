import type { Server as HttpServer } from 'node:http';
import { Server } from 'socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import type { Logger } from 'pino';
import type { RedisClient } from '../db/redis.js';

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
      })) as typeof pub.publish;
    // Cross-node requests (fetchSockets for agent presence) give up quickly when a node does not answer.
    io.adapter(createAdapter(pub, sub, { requestsTimeout: options.requestsTimeoutMs ?? 1_000 }));
  }
  return {
    io,
    async close() {
      await new Promise<void>((resolve) => io.close(() => resolve()));
      await Promise.all(extraClients.map((client) => client.quit().catch(() => undefined)));
    },
  };
}

export function attachRealtime(realtime: Realtime, server: HttpServer): void {
  realtime.io.attach(server);
  realtime.io.engine.on('connection', releaseUpgradeRequest);
}

/** The source of the `close` relay engine.io 6 puts on an upgraded TCP socket for its WebSocketResponse. */
const UPGRADE_CLOSE_RELAY = '() => this.emit("close")';

type Listener = ((...args: unknown[]) => void) & { listener?: (...args: unknown[]) => void };

/**
 * Lets the upgrade request (headers, raw headers, stream state: about 1.8 KiB) go once a socket is open:
 * engine.io keeps it as `request`, and its WebSocketResponse, which holds it too, stays reachable through a
 * `close` relay on the TCP socket that no one needs after the handshake (no engine middleware listens).
 * Namespaces authenticate from the handshake's `auth`, never from its headers. Should a later engine.io
 * differ, nothing is removed and only the saving is lost.
 */
function releaseUpgradeRequest(raw: { request: unknown; transport?: { socket?: { _socket?: NodeJS.EventEmitter } } }): void {
  raw.request = null;
  const tcp = raw.transport?.socket?._socket;
  if (!tcp) return;
  for (const listener of tcp.rawListeners('close') as Listener[]) {
    if (String(listener.listener ?? listener) === UPGRADE_CLOSE_RELAY) tcp.removeListener('close', listener);
  }
}
