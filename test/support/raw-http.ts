import { request } from 'node:http';

export interface RawAnswer {
  status: number;
  headers: [string, string][];
  body: Buffer;
}

/** One request of `method` without a body, as wrk sends it (no Accept-Encoding), answer kept byte for byte. */
export function rawRequest(method: string, url: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const pairs: [string, string][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i], res.rawHeaders[i + 1]]);
        resolve({ status: res.statusCode!, headers: pairs, body: Buffer.concat(chunks) });
      });
    })
      .once('error', reject)
      .end();
  });
}

/** One GET, answer kept byte for byte. */
export const rawGet = (url: string, headers: Record<string, string> = {}) => rawRequest('GET', url, headers);
