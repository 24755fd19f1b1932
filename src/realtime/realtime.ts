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

export async function createRealtime(options: { logger: Logger; redis?: RedisClient; requestsTimeoutMs?: number }): Promise<Realtime> {
  const io = new Server({ cors: { origin: '*' }, serveClient: false });
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
}
