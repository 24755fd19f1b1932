import { createClient } from 'redis';
import type { Logger } from 'pino';
import { settledWithin } from '../shared/settled-within.js';

export type RedisClient = ReturnType<typeof createClient>;

/**
 * Connects to Redis and keeps reconnecting forever; errors are logged, never thrown at the request path,
 * so a node keeps serving its own sockets while Redis is away.
 */
export async function connectRedis(url: string, logger: Logger, name = 'main'): Promise<RedisClient> {
  const client = createClient({
    url,
    // Fail fast while disconnected instead of queueing: callers fall back or report, never hang.
    disableOfflineQueue: true,
    socket: { reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 5_000), connectTimeout: 5_000 },
  });
  let lastError = '';
  client.on('error', (error: Error) => {
    // One line per distinct failure keeps the log readable while Redis is down.
    if (error.message !== lastError) logger.error({ err: error, client: name }, 'redis error');
    lastError = error.message;
  });
  client.on('ready', () => {
    if (lastError) logger.info({ client: name }, 'redis reconnected');
    lastError = '';
  });
  await client.connect();
  return client;
}

export async function pingRedis(client: RedisClient | undefined): Promise<boolean> {
  if (!client) return true;
  if (!client.isReady) return false;
  try {
    return (await Promise.race([client.ping(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 1_000))])) === 'PONG';
  } catch {
    return false;
  }
}

/** How long a shutdown waits for Redis to take a client's last commands. */
const REDIS_CLOSE_WITHIN_MS = 1_000;

/**
 * Ends a client: what it has sent is answered first while Redis answers, else (Redis away, or slower than
 * `withinMs`) it ends at once. A graceful close alone waits for the commands queued while Redis is away,
 * which would hold a node's shutdown until Redis came back.
 */
export async function closeRedis(client: RedisClient, withinMs = REDIS_CLOSE_WITHIN_MS): Promise<void> {
  if (!client.isOpen) return;
  if (client.isReady) {
    await settledWithin(client.close(), withinMs);
  }
  if (client.isOpen) client.destroy();
}
