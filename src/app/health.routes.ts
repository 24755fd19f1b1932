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
];
