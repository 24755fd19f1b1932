import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { pino } from 'pino';
import { createWorkspace, eventually, request, startTestNode } from '../support/harness.js';
import { startRedis, type RunningService } from '../support/services.js';
import type { HearthNode } from '../../src/app/node.js';
import type { MessageCreated } from '../../src/realtime/events.js';
import { activateChat, record, startChat, widgetSocket } from './support.js';

const logLines: string[] = [];
let redis: RunningService;
let node: HearthNode;

beforeAll(async () => {
  redis = await startRedis();
  node = await startTestNode({
    redis: redis.url,
    env: { LOG_LEVEL: 'warn' },
    logger: pino({ level: 'warn' }, new Writable({ write: (chunk, _enc, done) => (logLines.push(chunk.toString()), done()) })),
  });
});
afterAll(async () => {
  await node.stop();
  await redis.stop();
});

test('with Redis down the node keeps serving its own sockets, says so in the log and /readyz, and recovers', async () => {
  const ws = await createWorkspace(node.url);
  const key = await activateChat(node.url, ws);
  const { conversationToken: token, conversationId: cid } = (await startChat(node.url, key)).body;
  const visitor = await widgetSocket(node.url, token);
  const pushed = record<MessageCreated>(visitor, 'message.created');
  const reply = (body: string) => request(node.url, `/admin/workspaces/${ws.id}/conversations/${cid}/messages`, { token: ws.token, body: { body } });
  try {
    await redis.stop();
    await eventually(async () => (await request(node.url, '/readyz')).status === 503);
    expect((await request(node.url, '/readyz')).body.redis).toBe('down');

    // Agent replies on this node still work, and the reply is pushed at once. Visitor posts fail closed
    // until the shared flood count is back (test/livechat/flood-outage.test.ts).
    const sent = await request(node.url, `/external/live-chat/conversations/${token}/messages`, { body: { body: 'still there?' } });
    expect(sent.status).toBe(503);
    expect(sent.body.code).toBe('flood_guard_unavailable');
    expect((await reply('yes, on this node')).status).toBe(201);
    await eventually(() => pushed.some((event) => event.message.body === 'yes, on this node'));
    expect(logLines.join('\n')).toMatch(/redis/i);

    redis = await startRedis(redis.port);
    await eventually(async () => (await request(node.url, '/readyz')).status === 200, 15_000, 100);
    expect((await reply('Redis is back')).status).toBe(201);
    await eventually(() => pushed.some((event) => event.message.body === 'Redis is back'));
  } finally {
    visitor.close();
  }
});

test('a node stops while Redis is down: its shutdown does not wait for Redis to come back', async () => {
  const away = await startRedis();
  const stopping = await startTestNode({ redis: away.url });
  await away.stop();
  await eventually(async () => (await request(stopping.url, '/readyz')).status === 503);
  // Before, the chat adapter's unsubscribe and the clients' QUIT waited in Redis's offline queue: for ever.
  const outcome = await Promise.race([stopping.stop().then(() => 'stopped'), new Promise((resolve) => setTimeout(() => resolve('still stopping after 5 s'), 5_000))]);
  expect(outcome).toBe('stopped');
});
