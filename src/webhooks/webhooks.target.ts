import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The receiver's address is one a tenant must not reach (loopback, private, link-local, metadata...). */
export class TargetRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefused';
  }
}

/** Only public unicast addresses are allowed; IPv4-mapped IPv6 is judged as the IPv4 it carries. */
export function isBlockedAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() !== 'unicast';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for the HTTP agent that refuses blocked addresses: the check applies to the very address
 * the socket connects to, so a DNS answer that changes between check and connect cannot slip through.
 */
function guardedLookup(hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback): void {
  dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses) => {
    if (error) return callback(error, []);
    const blocked = addresses.find((entry) => isBlockedAddress(entry.address));
    if (blocked || addresses.length === 0) {
      return callback(Object.assign(new TargetRefused(`${hostname} resolves to a non-public address (${blocked?.address ?? 'none'})`), { code: 'ETARGETREFUSED' }), []);
    }
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
}

export interface PostResult {
  statusCode: number | null;
  headers: http.IncomingHttpHeaders;
  durationMs: number;
  /** Set when no HTTP answer came: timeout, connection error, or a refused target. */
  error: string | null;
  refused: boolean;
}

/** One POST with a hard per-attempt timeout covering connect, upload and the whole answer. */
export async function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowPrivate && isIP(host) && isBlockedAddress(host)) {
    return { statusCode: null, headers: {}, durationMs: 0, error: `target refused: ${host} is not a public address`, refused: true };
  }
  const client = target.protocol === 'https:' ? https : http;
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<PostResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: elapsed() });
    };
    const req = client.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        lookup: options.allowPrivate ? undefined : (guardedLookup as never),
        agent: false,
      },
      (res) => {
        // The answer body is not used; read (and drop) it so the attempt ends when the receiver is done.
        res.on('data', () => undefined);
        res.on('end', () => finish({ statusCode: res.statusCode ?? null, headers: res.headers, error: null, refused: false }));
        res.on('error', () => finish({ statusCode: res.statusCode ?? null, headers: res.headers, error: null, refused: false }));
      },
    );
    const timer = setTimeout(() => {
      finish({ statusCode: null, headers: {}, error: `timeout after ${options.timeoutMs} ms`, refused: false });
      req.destroy();
    }, options.timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => {
      const refused = error instanceof TargetRefused || error.code === 'ETARGETREFUSED';
      finish({ statusCode: null, headers: {}, error: refused ? `target refused: ${error.message}` : `${error.code ?? 'error'}: ${error.message}`, refused });
    });
    req.end(body);
  });
}
