/**
 * The webhooks bench's receiver: a bare `node:http` endpoint in its own process, answering 200 at once
 * and noting when each post's event arrived (every arrival, so duplicates show).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { now, serve } from './children.js';

let receipts: Record<string, number[]> = {};
let distinct = 0;
let unreadable = 0;

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const at = now();
    try {
      const { postId } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { postId: string };
      if (!receipts[postId]) distinct += 1;
      (receipts[postId] ??= []).push(at);
    } catch {
      unreadable += 1;
    }
    res.writeHead(200).end();
  });
});

/** The receipts of the posts whose id starts with `prefix` (one burst). */
const receiptsOf = (prefix: string) => Object.fromEntries(Object.entries(receipts).filter(([postId]) => postId.startsWith(prefix)));
serve({
  // `distinct` is what the orchestrator polls while it waits: serializing every receipt on each poll would
  // take this process's CPU (and the machine's) away from receiving.
  distinct: () => ({ distinct }),
  receipts: (message) => ({ receipts: receiptsOf(String(message.prefix ?? '')), unreadable }),
  /** Everything received so far is forgotten (the bench's warm-up of this receiver). */
  forget: () => {
    receipts = {};
    distinct = 0;
    unreadable = 0;
    return {};
  },
});
server.listen(0, '127.0.0.1', () => process.send!({ type: 'ready', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
process.on('SIGTERM', () => (server.closeAllConnections(), server.close(() => process.exit(0))));
