import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { connect, type Socket } from 'node:net';
import { eventually, startTestNode } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';

/**
 * What one client can hold of a node: a request trickled a byte at a time is cut off when its headers or its
 * whole request take too long (408, closed), and one address holds at most MAX_CONNECTIONS_PER_ADDRESS
 * connections at once.
 */

let node: HearthNode;
let port: number;

beforeAll(async () => {
  node = await startTestNode({ env: { HTTP_HEADERS_TIMEOUT_SECONDS: '1', HTTP_REQUEST_TIMEOUT_SECONDS: '2' } });
  port = Number(new URL(node.url).port);
}, 60_000);

afterAll(async () => {
  await node?.stop();
});

interface Client {
  socket: Socket;
  received: () => string;
  closed: () => boolean;
}

async function open(to = port): Promise<Client> {
  const socket = connect(to, '127.0.0.1');
  let received = '';
  let closed = false;
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  socket.on('close', () => (closed = true));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { socket, received: () => received, closed: () => closed };
}

/** Writes `text` one byte per `everyMs` until the server closes the connection or the text runs out. */
async function trickle(client: Client, text: string, everyMs: number): Promise<number> {
  let sent = 0;
  for (const byte of text) {
    if (client.closed()) break;
    client.socket.write(byte);
    sent += 1;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return sent;
}

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`;

test('headers trickled past the headers timeout are answered 408 and the connection is closed', async () => {
  const client = await open();
  const headers = `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n${'X-Slow: a\r\n'.repeat(100)}\r\n`;
  const sent = await trickle(client, headers, 50);
  await eventually(() => client.closed(), 10_000);
  expect(sent).toBeLessThan(headers.length);
  expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
  expect(client.received()).toContain('"code":"request_timeout"');
}, 30_000);

test('a body trickled to the login past the request timeout is answered 408 and the connection is closed', async () => {
  const client = await open();
  const body = JSON.stringify({ email: 'someone@test.local', password: 'x'.repeat(200) });
  client.socket.write(`POST /admin/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
  const sent = await trickle(client, body, 50);
  await eventually(() => client.closed(), 10_000);
  expect(sent).toBeLessThan(body.length);
  expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
}, 30_000);

test('one address holds at most 5 connections: the 6th is closed unanswered, and a freed place is taken again', async () => {
  // Default timeouts here: the held connections stay open, idle, while the test runs.
  const capped = await startTestNode({ env: { MAX_CONNECTIONS_PER_ADDRESS: '5' } });
  const cappedPort = Number(new URL(capped.url).port);
  try {
    const held: Client[] = [];
    for (let i = 0; i < 5; i += 1) held.push(await open(cappedPort));
    const refused = await open(cappedPort);
    refused.socket.write(get('/healthz'));
    await eventually(() => refused.closed(), 5_000);
    expect(refused.received()).toBe('');

    held[1].socket.write(get('/healthz'));
    await eventually(() => held[1].received().startsWith('HTTP/1.1 200'), 5_000);
    held[0].socket.destroy();
    // The server sees the close a moment later; then the place is free.
    await eventually(async () => {
      const again = await open(cappedPort);
      again.socket.write(get('/healthz'));
      await eventually(() => again.received().startsWith('HTTP/1.1 200') || again.closed(), 5_000);
      held.push(again);
      return again.received().startsWith('HTTP/1.1 200');
    }, 5_000);
    for (const client of held) client.socket.destroy();
  } finally {
    await capped.stop();
  }
}, 60_000);
