import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { postJson } from '../../src/webhooks/webhooks.target.js';
import { startReceiver } from './receiver.js';

// postJson hands `http.request` its headers as a raw list, so the headers `http.request` would add from
// the URL itself (Host, and Authorization for credentials in the URL) are its own to send.

let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.stop();
});

const send = (url: string, body: string, headers: Record<string, string> = {}) => postJson(url, body, headers, { timeoutMs: 3_000, allowPrivate: true });

test('the request carries the path and query, Host with the port, Content-Length of the UTF-8 body, and the given headers', async () => {
  const body = JSON.stringify({ title: 'Crème brûlée ☕' });
  const result = await send(`http://127.0.0.1:${receiver.port}/target-headers?secret=a%20b&x=1`, body, { 'Content-Type': 'application/json', 'Webhook-Id': 'msg_1' });
  expect(result).toMatchObject({ statusCode: 200, error: null, refused: false });
  const [got] = receiver.on('/target-headers');
  expect(got.method).toBe('POST');
  expect(got.query.get('secret')).toBe('a b');
  expect(got.query.get('x')).toBe('1');
  expect(got.headers.host).toBe(`127.0.0.1:${receiver.port}`);
  expect(got.headers['content-length']).toBe(String(Buffer.byteLength(body)));
  expect(got.headers['content-type']).toBe('application/json');
  expect(got.headers['webhook-id']).toBe('msg_1');
  expect(got.headers.authorization).toBeUndefined();
  expect(got.raw).toBe(body);
});

test('credentials in the URL are sent as Basic authorization, percent-escapes decoded, and never in the Host', async () => {
  const result = await send(`http://hook%40user:p%3Ass@127.0.0.1:${receiver.port}/target-auth`, '{}');
  expect(result.statusCode).toBe(200);
  const [got] = receiver.on('/target-auth');
  expect(got.headers.authorization).toBe(`Basic ${Buffer.from('hook@user:p:ss').toString('base64')}`);
  expect(got.headers.host).toBe(`127.0.0.1:${receiver.port}`);
});

test('a header value with a line break is refused before anything is sent', async () => {
  await expect(send(`http://127.0.0.1:${receiver.port}/target-injection`, '{}', { 'Webhook-Id': 'msg_1\r\nX-Injected: yes' })).rejects.toThrow(/Invalid character/);
  expect(receiver.on('/target-injection')).toHaveLength(0);
});
