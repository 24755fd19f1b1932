/**
 * The yardstick: a bare `node:http` server in its own process answering every request with the bytes
 * a Hearth answer had (same status, same headers, same body), so a ratio to it measures what Hearth
 * adds, not what JSON over HTTP costs. Node itself writes Date, Connection and Keep-Alive, as for Hearth.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { serve } from './children.js';

const PER_CONNECTION = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
const sample = JSON.parse(readFileSync(process.argv[2], 'utf8')) as { status: number; headers: [string, string][]; body: string };
const body = Buffer.from(sample.body, 'base64');
const headers = sample.headers.filter(([name]) => !PER_CONNECTION.has(name.toLowerCase())).flat();

const server = createServer((_req, res) => {
  res.writeHead(sample.status, headers);
  res.end(body);
});
serve({
  ops: () => {
    const { user, system } = process.cpuUsage();
    return { cpuMicros: user + system };
  },
});
server.listen(0, '127.0.0.1', () => process.send!({ type: 'ready', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
process.on('SIGTERM', () => (server.closeAllConnections(), server.close(() => process.exit(0))));
