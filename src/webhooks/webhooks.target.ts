import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { urlToHttpOptions } from 'node:url';
import ipaddr from 'ipaddr.js';

/** The receiver's address is one a tenant must not reach (loopback, private, link-local, metadata...). */
export class TargetRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefused';
  }
}

/**
 * Only public unicast addresses are allowed, judged on every spelling an address can take. IPv4: the
 * `unicast` range only (no loopback, private, link-local, CGNAT, reserved...). IPv6 forms that carry an
 * IPv4 address are judged as the IPv4 they carry: IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated
 * `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`, 6to4 `2002:aabb:ccdd::` and Teredo `2001:0::` (its server
 * and its client, both). IPv4-compatible `::a.b.c.d` (deprecated, and `::`, `::1` among it) and the
 * local-use NAT64 prefix `64:ff9b:1::/48` (whose embedding is site-defined) are refused whatever they
 * carry. Any other IPv6 must be global unicast: inside 2000::/3 and in no special-purpose range.
 */
export function isBlockedAddress(address: string): boolean {
  const canonical = canonicalAddress(address);
  if (!canonical) return true;
  const parsed = ipaddr.parse(canonical);
  if (parsed.kind() === 'ipv4') return !isPublicIPv4(parsed as ipaddr.IPv4);
  const bytes = (parsed as ipaddr.IPv6).toByteArray();
  const carried = carriedIPv4(bytes);
  if (carried === 'refused') return true;
  if (carried) return !carried.every(isPublicIPv4);
  return (bytes[0] & 0xe0) !== 0x20 || parsed.range() !== 'unicast';
}

/**
 * The address as the WHATWG URL parser writes it (the parser that reads webhook URLs): IPv4 dotted
 * decimal, IPv6 in hexadecimal groups. ipaddr.js reads `::a.b.c.d` as `::ffff:a.b.c.d`, so it only ever
 * sees these canonical forms. Null when it is no IP address.
 */
function canonicalAddress(address: string): string | null {
  try {
    const host = new URL(`http://${address.includes(':') ? `[${address}]` : address}/`).hostname.replace(/^\[|\]$/g, '');
    return isIP(host) ? host : null;
  } catch {
    return null;
  }
}

const isPublicIPv4 = (address: ipaddr.IPv4) => address.range() === 'unicast';

const startsWith = (bytes: number[], prefix: number[]) => prefix.every((byte, index) => bytes[index] === byte);
const ipv4At = (bytes: number[], at: number) => new ipaddr.IPv4(bytes.slice(at, at + 4));
const ZEROS_80 = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0];

/** The IPv4 addresses an IPv6 address carries; undefined when none, 'refused' for forms never allowed. */
function carriedIPv4(bytes: number[]): ipaddr.IPv4[] | 'refused' | undefined {
  if (startsWith(bytes, [...ZEROS_80, 0xff, 0xff])) return [ipv4At(bytes, 12)]; // ::ffff:0:0/96 mapped
  if (startsWith(bytes, [0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0])) return [ipv4At(bytes, 12)]; // ::ffff:0:0:0/96 translated
  if (startsWith(bytes, [...ZEROS_80, 0, 0])) return 'refused'; // ::/96 compatible, with :: and ::1
  if (startsWith(bytes, [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0])) return [ipv4At(bytes, 12)]; // 64:ff9b::/96
  if (startsWith(bytes, [0, 0x64, 0xff, 0x9b, 0, 1])) return 'refused'; // 64:ff9b:1::/48 local-use NAT64
  if (startsWith(bytes, [0x20, 0x02])) return [ipv4At(bytes, 2)]; // 2002::/16 6to4
  if (startsWith(bytes, [0x20, 0x01, 0, 0])) {
    // 2001::/32 Teredo: the server's IPv4, then the client's, stored inverted.
    const client = ipv4At(bytes.map((byte, index) => (index >= 12 ? byte ^ 0xff : byte)), 12);
    return [ipv4At(bytes, 4), client];
  }
  return undefined;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for the HTTP agent that refuses blocked addresses: the check applies to the very address
 * the socket connects to, so a DNS answer that changes between check and connect cannot slip through.
 */
export function guardedLookup(hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback): void {
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

/**
 * Connections to receivers are kept alive and reused: a burst to one receiver pays the TCP (and TLS)
 * set-up once. Guarded and unguarded requests never share a pool, and every new connection of the
 * guarded pool resolves through `guardedLookup`, so a reused socket was checked when it connected.
 */
const agents = {
  guarded: { http: new http.Agent({ keepAlive: true, maxSockets: 64 }), https: new https.Agent({ keepAlive: true, maxSockets: 64 }) },
  open: { http: new http.Agent({ keepAlive: true, maxSockets: 64 }), https: new https.Agent({ keepAlive: true, maxSockets: 64 }) },
};

/**
 * A target URL read once: a dispatcher posts to the same few URLs thousands of times, so it keeps these
 * (see `OpenedTargets`) and hands them to `postJson` instead of the URL.
 */
export interface ParsedTarget {
  secure: boolean;
  /** The host as an address literal, when it is one. */
  literal: string | null;
  /** Where `http.request` connects, and the request line's path. */
  options: Pick<http.RequestOptions, 'protocol' | 'hostname' | 'port' | 'path'>;
  /**
   * The headers every request to the URL starts with (`Host`, and `Authorization` from credentials in the
   * URL): headers go as a raw name/value list, which spares `http.request` validating and storing each one
   * as an object header, a fifth of its cost per request, but also leaves these to us.
   */
  headers: string[];
}

export function parseTarget(url: string): ParsedTarget {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const { protocol, hostname, port, path, auth } = urlToHttpOptions(target);
  const headers = ['Host', target.host];
  if (auth) headers.push('Authorization', `Basic ${Buffer.from(auth).toString('base64')}`);
  return { secure: target.protocol === 'https:', literal: isIP(host) ? host : null, options: { protocol, hostname, port, path }, headers };
}

/**
 * One POST with a hard per-attempt timeout covering connect, upload and the whole answer. A caller that
 * posts to the same URL again hands it parsed (`parseTarget`) rather than have it parsed every time.
 */
export async function postJson(
  url: string | ParsedTarget,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const target = typeof url === 'string' ? parseTarget(url) : url;
  if (!options.allowPrivate && target.literal && isBlockedAddress(target.literal)) {
    return { statusCode: null, headers: {}, durationMs: 0, error: `target refused: ${target.literal} is not a public address`, refused: true };
  }
  const client = target.secure ? https : http;
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<PostResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: elapsed() });
    };
    const rawHeaders = [...target.headers, 'Content-Length', String(Buffer.byteLength(body))];
    for (const name in headers) rawHeaders.push(name, headers[name]);
    const req = client.request(
      {
        protocol: target.options.protocol,
        hostname: target.options.hostname,
        port: target.options.port,
        path: target.options.path,
        method: 'POST',
        headers: rawHeaders,
        lookup: options.allowPrivate ? undefined : (guardedLookup as never),
        agent: agents[options.allowPrivate ? 'open' : 'guarded'][target.secure ? 'https' : 'http'],
      },
      (res) => {
        // The answer body is not used; read (and drop) it so the attempt ends when the receiver is done.
        res.resume();
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

/**
 * The registration-time check of a target (the send-time guard still applies to every connection): a
 * literal non-public address, or a name that resolves to one, is refused. A name that does not resolve
 * now is accepted; its deliveries are judged when they connect.
 */
export async function nonPublicTarget(url: string): Promise<string | null> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return isBlockedAddress(host) ? `${host} is not a public address` : null;
  const addresses = await new Promise<LookupAddress[]>((resolve) => dnsLookup(host, { all: true }, (error, found) => resolve(error ? [] : found)));
  const blocked = addresses.find((entry) => isBlockedAddress(entry.address));
  return blocked ? `${host} resolves to a non-public address (${blocked.address})` : null;
}
