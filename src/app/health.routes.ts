import { z } from 'zod';
import { route } from '../http/route.js';
import { pingMongo } from '../db/mongo.js';
import { pingRedis } from '../db/redis.js';

const tags = ['Health'];

export const healthRoutes = [
  route({
    method: 'get',
    path: '/healthz',
    summary: 'Liveness: the process answers',
    tags,
    auth: 'none',
    responses: { 200: { description: 'Alive.', schema: z.object({ status: z.literal('ok') }) } },
    handle: async () => ({ body: { status: 'ok' } }),
  }),
  route({
    method: 'get',
    path: '/readyz',
    summary: 'Readiness: MongoDB and (when configured) Redis reachable',
    description: '503 while a dependency is down; the node keeps serving what it can meanwhile.',
    tags,
    auth: 'none',
    responses: {
      200: {
        description: 'Ready.',
        schema: z.object({ status: z.enum(['ready', 'degraded']), mongodb: z.enum(['up', 'down']), redis: z.enum(['up', 'down', 'disabled']) }),
      },
      503: { description: 'A dependency is down (same body).' },
    },
    handle: async ({ deps }) => {
      const [mongoUp, redisUp] = await Promise.all([pingMongo(deps.db), pingRedis(deps.redis)]);
      const redis = deps.redis ? (redisUp ? 'up' : 'down') : 'disabled';
      const ready = mongoUp && redis !== 'down';
      return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'degraded', mongodb: mongoUp ? 'up' : 'down', redis } };
    },
  }),
  route({
    method: 'get',
    path: '/metrics',
    summary: 'Cache figures of this node',
    description:
      'Counters since the node started. `contentCache`: lookups of published-content answers (`hits`, `misses`, `hitRatio` = hits / lookups, 0 before the first), what the cache holds now (`entries`, `bytes`, bounded by `CONTENT_CACHE_MB`), and the answers a republish dropped that it built again before a reader asked (`prewarmBuilds`; `prewarmed`: those kept, see `CONTENT_PREWARM_MAX`). A node whose Redis subscription is down counts every lookup as a miss.',
    tags,
    auth: 'none',
    responses: {
      200: {
        description: 'The figures.',
        schema: z.object({
          contentCache: z.object({
            hits: z.number().int(),
            misses: z.number().int(),
            hitRatio: z.number().min(0).max(1),
            entries: z.number().int(),
            bytes: z.number().int(),
            prewarmBuilds: z.number().int(),
            prewarmed: z.number().int(),
          }),
        }),
      },
    },
    handle: async ({ deps }) => ({ body: { contentCache: deps.cache.content.stats() } }),
  }),
];
