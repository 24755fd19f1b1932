import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the receiver does with one request: answer a status, `429:<seconds>` with Retry-After, 200 after `delay:<ms>`, hang, or close the socket. */
export type Behaviour = number | `429:${number}` | `delay:${number}` | 'hang' | 'close';

export interface Received {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  raw: string;
  body: any;
  at: number;
}

/**
 * A real HTTP receiver. Each path (one per test) has a script of behaviours used in order; the last
 * one repeats. Unscripted paths answer 200.
 */
export async function startReceiver() {
  const scripts = new Map<string, Behaviour[]>();
  const received: Received[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://receiver');
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      received.push({ method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, raw, body, at: Date.now() });
      const script = scripts.get(url.pathname) ?? [200];
      const behaviour = script.length > 1 ? script.shift()! : script[0];
      if (behaviour === 'hang') {
        hanging.add(res);
        return;
      }
      if (behaviour === 'close') {
        req.socket.destroy();
        return;
      }
      if (typeof behaviour === 'string' && behaviour.startsWith('delay:')) {
        setTimeout(() => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok'), Number(behaviour.slice('delay:'.length)));
        return;
      }
      if (typeof behaviour === 'string') {
        res.writeHead(429, { 'Retry-After': behaviour.split(':')[1] }).end();
        return;
      }
      res.writeHead(behaviour, { 'Content-Type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    received,
    url: (path: string, secret = 's3cret') => `http://127.0.0.1:${port}${path}?secret=${encodeURIComponent(secret)}`,
    script(path: string, behaviours: Behaviour[]) {
      scripts.set(path, [...behaviours]);
    },
    on(path: string) {
      return received.filter((r) => r.path === path);
    },
    async stop() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
