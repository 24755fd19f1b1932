/**
 * `npm run bench:media`: the media library of one node (production build, its own engine), on the disk under
 * a temporary DATA_DIR and, when versitygw is installed (`scripts/install-s3-server.sh`, as the tests use it),
 * the same again on S3 as a second row (`BENCH_MEDIA_S3=0` skips it).
 *
 * - Upload burst: BENCH_UPLOADS distinct JPEGs (default 100) of about 2 MB each (1600 x 1200 random noise at
 *   quality 95, made once with sharp in this process), sent BENCH_UPLOAD_CONCURRENCY at a time (default: all
 *   at once) to `POST /admin/workspaces/:wid/media` from this process (plain `node:http`, one connection each),
 *   never from the node's. Total time, uploads/s, MB/s, each upload's p50/p99 and the failures (anything but
 *   201). The node's RSS: idle (before its first upload loads sharp), just before the burst (after one
 *   warm-up upload), and its peak during it, read from `/proc/<pid>/status` (VmRSS)
 *   every 50 ms and, where the kernel lets us reset it (`clear_refs`), VmHWM, which no sample can miss; the
 *   issue's bar is 300 MB. The node's own `process.memoryUsage()` is asked every 250 ms as well, and the
 *   reading nearest the peak says how much of it is V8 heap and how much `external` / array buffers (the
 *   rest is native: libvips, malloc arenas, code).
 * - Warm variant: one image's WebP variant at w=320 (the allowed width nearest 400: 320 and 640 are the
 *   neighbours), rendered once first, then loaded like the content bench (wrk or autocannon in a child,
 *   BENCH_CONNECTIONS, BENCH_SECONDS) in turns with a bare `node:http` child answering the same status,
 *   headers and bytes, BENCH_ROUNDS rounds (default 5); rates, ratio, CPU per request.
 * - `db_ops_per_variant_request`: driver commands the node sent for 100 warm variant requests in series,
 *   divided by 100, less what it sends idle.
 *
 * Last line: the JSON figures (the S3 row's keys start with `s3_`).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { benchEngine, benchRedis, type BenchEngine } from './support/environment.js';
import { now, percentile, report, round, runBench } from './support/children.js';
import { opsPerRequest, startBare, startNode, type NodeChild } from './support/hearth.js';
import { rawGet } from '../test/support/raw-http.js';
import { CONNECTIONS, SECONDS, loadTool, measure, measurePaired, type LoadResult } from './support/load.js';
import { createWorkspace } from '../test/support/harness.js';
import { startS3Server } from '../test/support/services.js';

const UPLOADS = Number(process.env.BENCH_UPLOADS ?? 100);
const CONCURRENCY = Number(process.env.BENCH_UPLOAD_CONCURRENCY ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARM_SAMPLE = 100;
/** The allowed variant width nearest 400 px (the allowed ones are 160, 320, 640, 960, 1280, 1920). */
const VARIANT_WIDTH = 320;
const IMAGE = { width: 1600, height: 1200, quality: 95 };
const MB = 1024 * 1024;

/** Distinct noise JPEGs (no two alike, so no store or cache can share work between them), two encodes at a time. */
async function makeImages(count: number): Promise<Buffer[]> {
  const images: Buffer[] = [];
  let next = 0;
  await Promise.all(
    [0, 1].map(async () => {
      while (next < count) {
        const i = next++;
        images[i] = await sharp(randomBytes(IMAGE.width * IMAGE.height * 3), { raw: { width: IMAGE.width, height: IMAGE.height, channels: 3 } })
          .jpeg({ quality: IMAGE.quality })
          .toBuffer();
      }
    }),
  );
  return images;
}

/** A whole `multipart/form-data` body with the image in the part `file`. */
function multipart(image: Buffer, name: string): { body: Buffer; contentType: string } {
  const boundary = `----hearth-bench-${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: image/jpeg\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { body: Buffer.concat([head, image, tail]), contentType: `multipart/form-data; boundary=${boundary}` };
}

interface Upload {
  status: number;
  ms: number;
  body: string;
}

/** One upload on a connection of its own, timed from before the request to the answer's last byte. */
function upload(url: string, token: string, form: { body: Buffer; contentType: string }, agent: Agent): Promise<Upload> {
  const from = now();
  return new Promise((resolve) => {
    const req = httpRequest(url, { method: 'POST', agent, headers: { Authorization: `Bearer ${token}`, 'Content-Type': form.contentType, 'Content-Length': form.body.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, ms: now() - from, body: Buffer.concat(chunks).toString('utf8') }));
      res.once('error', (error) => resolve({ status: 0, ms: now() - from, body: String(error) }));
    });
    req.once('error', (error) => resolve({ status: 0, ms: now() - from, body: String(error) }));
    req.end(form.body);
  });
}

const procField = (pid: number, field: 'VmRSS' | 'VmHWM') => {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : NaN;
};

/** Resets the process's VmHWM to its current RSS (Linux, needs the right to write `clear_refs`). */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

interface Memory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
}

interface RowFigures {
  label: string;
  uploadSeconds: number;
  uploadLatencies: number[];
  failures: number;
  firstFailure?: string;
  rssIdle: number;
  rssBefore: number;
  rssPeakSampled: number;
  rssPeakHwm: number | null;
  rssAfter: number;
  memoryAtPeak: Memory | null;
  samples: number;
  firstRenderMs: number;
  variantBytes: number;
  ops: number;
  load: LoadResult;
  bare: LoadResult;
  roundRatios: number[];
}

async function runRow(label: string, engine: BenchEngine, redisUrl: string, images: Buffer[], env: Record<string, string>, cleanup: (step: () => Promise<unknown>) => void): Promise<RowFigures> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-bench-media-'));
  cleanup(async () => rmSync(dataDir, { recursive: true, force: true }));
  const node = await startNode({ engine, redisUrl, role: 'api', env: { DATA_DIR: dataDir, ...env } });
  cleanup(() => node.stop());
  const pid = node.process.pid!;
  const ws = await createWorkspace(node.url, { slug: `media-${label}`, name: `Media ${label}` });
  const uploadUrl = `${node.url}/admin/workspaces/${ws.id}/media`;
  const rssIdle = procField(pid, 'VmRSS');
  const forms = images.map((image, i) => multipart(image, `noise-${i}.jpg`));

  // One upload first, not counted: sharp and file-type are loaded on first use, which a burst should not include.
  const warm = await upload(uploadUrl, ws.token, multipart(images[0], 'warm-up.jpg'), new Agent({ keepAlive: false }));
  if (warm.status !== 201) throw new Error(`${label}: warm-up upload: ${warm.status} ${warm.body}`);
  await new Promise((resolve) => setTimeout(resolve, 1_000));

  const rssBefore = procField(pid, 'VmRSS');
  const hwmReset = resetPeak(pid);
  let rssPeakSampled = rssBefore;
  let samples = 0;
  const sampler = setInterval(() => {
    samples += 1;
    rssPeakSampled = Math.max(rssPeakSampled, procField(pid, 'VmRSS'));
  }, 50);
  let memoryAtPeak: Memory | null = null;
  let asking = false;
  const memorySampler = setInterval(() => {
    if (asking) return;
    asking = true;
    node
      .ask<Memory>('memory', {}, 30_000)
      .then((memory) => {
        if (!memoryAtPeak || memory.rss > memoryAtPeak.rss) memoryAtPeak = memory;
      })
      .catch(() => undefined)
      .finally(() => (asking = false));
  }, 250);

  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const results: Upload[] = [];
  let next = 0;
  const from = now();
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENCY, forms.length) }, async () => {
      while (next < forms.length) {
        const i = next++;
        results[i] = await upload(uploadUrl, ws.token, forms[i], agent);
      }
    }),
  );
  const uploadSeconds = (now() - from) / 1000;
  clearInterval(sampler);
  clearInterval(memorySampler);
  rssPeakSampled = Math.max(rssPeakSampled, procField(pid, 'VmRSS'));
  const rssPeakHwm = hwmReset ? procField(pid, 'VmHWM') : null;
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const rssAfter = procField(pid, 'VmRSS');

  const failed = results.filter((result) => result.status !== 201);
  const stored = results.find((result) => result.status === 201);
  if (!stored) throw new Error(`${label}: no upload succeeded: ${failed[0]?.status} ${failed[0]?.body}`);
  const media = JSON.parse(stored.body) as { url: string; width: number; height: number };
  const libraryUrl = new URL(media.url);
  const path = `${libraryUrl.pathname}${libraryUrl.search}${libraryUrl.search ? '&' : '?'}w=${VARIANT_WIDTH}&fm=webp`;

  // The variant rendered (and stored) once: the first request; every later one is warm.
  const renderFrom = now();
  const first = await rawGet(node.url + path);
  const firstRenderMs = now() - renderFrom;
  const answer = await rawGet(node.url + path);
  const type = answer.headers.find(([name]) => name.toLowerCase() === 'content-type')?.[1];
  if (first.status !== 200 || answer.status !== 200 || type !== 'image/webp') throw new Error(`${label}: ${path}: ${answer.status} ${type} ${answer.body.subarray(0, 200).toString('utf8')}`);

  const ops = await opsPerRequest(node, WARM_SAMPLE, async () => {
    const res = await fetch(node.url + path);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  });

  const bare = await startBare(answer);
  cleanup(() => bare.stop());
  await measure(bare.url + path, {}, 1);
  await measure(node.url + path, {}, 1);
  const cpuOf = (child: { ask: NodeChild['ask'] }) => async () => (await child.ask<{ cpuMicros: number }>('ops')).cpuMicros;
  const paired = await measurePaired({ url: node.url + path, cpuMicros: cpuOf(node) }, { url: bare.url + path, cpuMicros: cpuOf(bare) }, ROUNDS);
  await bare.stop();
  await node.stop();

  return {
    label,
    uploadSeconds,
    uploadLatencies: results.map((result) => result.ms).sort((a, b) => a - b),
    failures: failed.length,
    firstFailure: failed[0] ? `${failed[0].status} ${failed[0].body.slice(0, 200)}` : undefined,
    rssIdle,
    rssBefore,
    rssPeakSampled,
    rssPeakHwm,
    rssAfter,
    memoryAtPeak,
    samples,
    firstRenderMs,
    variantBytes: answer.body.length,
    ops,
    load: paired.subject,
    bare: paired.yardstick,
    roundRatios: paired.roundRatios,
  };
}

const mb = (bytes: number) => bytes / MB;

function lines(row: RowFigures, totalMb: number): string[] {
  const peak = Math.max(row.rssPeakSampled, row.rssPeakHwm ?? 0);
  const at = row.memoryAtPeak;
  const { load, bare } = row;
  return [
    `  [${row.label}] upload ${UPLOADS} x ${(totalMb / UPLOADS).toFixed(2)} MB, ${Math.min(CONCURRENCY, UPLOADS)} at once: ${row.uploadSeconds.toFixed(1)} s, ${(UPLOADS / row.uploadSeconds).toFixed(1)} uploads/s, ${(totalMb / row.uploadSeconds).toFixed(1)} MB/s | per upload p50 ${(percentile(row.uploadLatencies, 50) / 1000).toFixed(2)} s, p99 ${(percentile(row.uploadLatencies, 99) / 1000).toFixed(2)} s | failures ${row.failures}${row.firstFailure ? ` (first: ${row.firstFailure})` : ''}`,
    `  [${row.label}] node RSS: idle ${mb(row.rssIdle).toFixed(0)} MB, after one upload (sharp loaded) and before the burst ${mb(row.rssBefore).toFixed(0)} MB, peak ${mb(peak).toFixed(0)} MB (VmRSS every 50 ms: ${mb(row.rssPeakSampled).toFixed(0)} MB over ${row.samples} samples; VmHWM: ${row.rssPeakHwm === null ? 'not resettable' : `${mb(row.rssPeakHwm).toFixed(0)} MB`}), 2 s after ${mb(row.rssAfter).toFixed(0)} MB${peak > 300 * MB ? '  OVER the 300 MB bar' : ''}` +
      (at ? ` | at the highest self-reading (rss ${mb(at.rss).toFixed(0)} MB): V8 heap ${mb(at.heapUsed).toFixed(0)}/${mb(at.heapTotal).toFixed(0)} MB, external ${mb(at.external).toFixed(0)} MB (array buffers ${mb(at.arrayBuffers).toFixed(0)}), native rest ${mb(at.rss - at.heapTotal - at.external).toFixed(0)} MB` : ''),
    `  [${row.label}] GET variant w=${VARIANT_WIDTH} fm=webp (${(row.variantBytes / 1024).toFixed(1)} KiB, first render ${row.firstRenderMs.toFixed(0)} ms) ${load.rps.toFixed(0).padStart(7)} req/s  p50 ${load.p50Ms.toFixed(1)} ms  p99 ${load.p99Ms.toFixed(1)} ms | bare ${bare.rps.toFixed(0)} req/s | ratio ${(load.rps / bare.rps).toFixed(3)} (rounds ${row.roundRatios.map((ratio) => ratio.toFixed(2)).join(' ')}) | CPU ${load.cpuUsPerRequest!.toFixed(1)} µs/req, bare ${bare.cpuUsPerRequest!.toFixed(1)}: ratio ${(bare.cpuUsPerRequest! / load.cpuUsPerRequest!).toFixed(3)} | ${row.ops.toFixed(2)} db ops/req`,
    ...(load.failures + bare.failures ? [`  [${row.label}] WARNING: ${load.failures} failed variant requests, ${bare.failures} bare`] : []),
  ];
}

function figures(row: RowFigures, totalMb: number, prefix: string): Record<string, unknown> {
  const peak = Math.max(row.rssPeakSampled, row.rssPeakHwm ?? 0);
  return {
    [`${prefix}upload_s`]: round(row.uploadSeconds, 2),
    [`${prefix}uploads_per_s`]: round(UPLOADS / row.uploadSeconds, 1),
    [`${prefix}upload_mb_per_s`]: round(totalMb / row.uploadSeconds, 1),
    [`${prefix}upload_p50_ms`]: round(percentile(row.uploadLatencies, 50), 0),
    [`${prefix}upload_p99_ms`]: round(percentile(row.uploadLatencies, 99), 0),
    [`${prefix}upload_failures`]: row.failures,
    [`${prefix}rss_idle_mb`]: round(mb(row.rssIdle), 0),
    [`${prefix}rss_before_mb`]: round(mb(row.rssBefore), 0),
    [`${prefix}peak_rss_mb`]: round(mb(peak), 0),
    [`${prefix}rss_after_mb`]: round(mb(row.rssAfter), 0),
    [`${prefix}variant_first_render_ms`]: round(row.firstRenderMs, 0),
    [`${prefix}variant_rps`]: round(row.load.rps, 0),
    [`${prefix}bare_rps`]: round(row.bare.rps, 0),
    [`${prefix}variant_ratio`]: round(row.load.rps / row.bare.rps, 3),
    [`${prefix}variant_cpu_us`]: round(row.load.cpuUsPerRequest!, 1),
    [`${prefix}bare_cpu_us`]: round(row.bare.cpuUsPerRequest!, 1),
    [`${prefix}variant_cpu_ratio`]: round(row.bare.cpuUsPerRequest! / row.load.cpuUsPerRequest!, 3),
    [`${prefix}db_ops_per_variant_request`]: round(row.ops, 2),
    ...(row.load.failures + row.bare.failures ? { [`${prefix}failed_requests`]: row.load.failures + row.bare.failures } : {}),
  };
}

await runBench(async (cleanup) => {
  const engine = await benchEngine('bench_media', cleanup);
  const redisUrl = await benchRedis(cleanup);
  const made = now();
  const images = await makeImages(UPLOADS);
  const totalMb = mb(images.reduce((sum, image) => sum + image.length, 0));
  console.log(
    `media bench on ${engine.kind}: ${UPLOADS} noise JPEGs ${IMAGE.width}x${IMAGE.height} q${IMAGE.quality}, ${(totalMb / UPLOADS).toFixed(2)} MB each on average, made in ${((now() - made) / 1000).toFixed(1)} s; ` +
      `variant load by ${loadTool()}, 1 thread, ${CONNECTIONS} connections, ${SECONDS} s in ${ROUNDS} rounds`,
  );

  const rows: RowFigures[] = [await runRow('disk', engine, redisUrl, images, {}, cleanup)];
  let s3Note: string | undefined;
  if (process.env.BENCH_MEDIA_S3 !== '0') {
    try {
      const s3 = await startS3Server();
      cleanup(() => s3.stop());
      rows.push(await runRow('s3', engine, redisUrl, images, s3.env, cleanup));
    } catch (error) {
      s3Note = `S3 row skipped: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
    }
  }

  const [disk, s3] = rows;
  const tool = disk.load.tool;
  report(
    [...rows.flatMap((row) => lines(row, totalMb)), ...(s3Note ? [`  ${s3Note}`] : [])],
    {
      bench: 'media',
      uploads: UPLOADS,
      upload_concurrency: Math.min(CONCURRENCY, UPLOADS),
      upload_mb_each: round(totalMb / UPLOADS, 2),
      variant: `w=${VARIANT_WIDTH}&fm=webp`,
      ...figures(disk, totalMb, ''),
      ...(s3 ? figures(s3, totalMb, 's3_') : {}),
      engine: engine.kind,
      ...(tool === 'wrk' ? {} : { load: tool }),
    },
  );
});
