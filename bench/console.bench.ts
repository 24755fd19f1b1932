/**
 * `npm run bench:console`: the team app's (`/console`) first paint with realistic data, and its size.
 *
 * - One node in production mode (child, built `dist/`) on a private engine + Redis; the console bundle is
 *   built first (`buildConsole`, as the browser tests do) so the node serves the current sources.
 * - Seeded through the public and admin APIs as users would, BENCH_CONCURRENCY (default 8) at a time:
 *   BENCH_CONVERSATIONS (500) live chats with one visitor message each, BENCH_APPOINTMENTS (200) requests at
 *   distinct 30-minute slots from the next hour on (round-the-clock hours), the soonest half of them confirmed
 *   (so the week's agenda has content), BENCH_SUBMISSIONS (500) contact-form submissions, and a team of
 *   BENCH_MEMBERS (5) members, the operator (owner) included, and BENCH_POSTS (5000) posts in two locales: the
 *   first BENCH_API_POSTS (300) written through the admin API (every third one published), the rest imported
 *   published in bulk into the node's database (`importPublished`, as a migration would).
 * - Headless Chromium (found or installed as the test set-up does, see test/support/system-tools.ts). The
 *   operator logs in once through the form; every measured load is then a fresh tab of that browser context
 *   whose sessionStorage holds the session (the workspace is remembered in localStorage, the bundle is in the
 *   HTTP cache): a returning member opening the view. First paint is the time from `page.goto(<url>/console#/<view>)`
 *   until the view's first list entry is visible: inbox `#inbox-items li`, chats `#conversations li`, submissions `#submissions li`,
 *   bookings `#pending li`, team `#members li`, posts `#posts li`. After one warm-up load per view, BENCH_LOADS (5) rounds take
 *   the views in turn (so outside load on a shared machine falls on all alike); median and max per view.
 *   The human lines also show the in-page time (navigation start to the entry in the DOM, a MutationObserver)
 *   and the admin API calls of the median load (start after navigation, duration), to tell where time goes.
 * - Size: the console script the page names and every chunk it loads, at once or on demand (the post editor),
 *   gzipped here with zlib (level 9), and the build's own figure; the whole app is all of them together.
 *
 * Issue's bar: each view's first paint under 1 s, the whole app at most 150 KB gzipped.
 * Last line: the JSON figures.
 */
import { readFileSync } from 'node:fs';
import { createConnection } from 'mongoose';
import { dirname, join } from 'node:path';
import { constants, gzipSync } from 'node:zlib';
import type { Browser, BrowserContext } from 'playwright-core';
import { benchEngine, benchRedis } from './support/environment.js';
import { now, percentile, report, round, runBench } from './support/children.js';
import { pool, startNode } from './support/hearth.js';
import { OPERATOR, createWorkspace, request, type WorkspaceFixture } from '../test/support/harness.js';
import { ensureSystemTools } from '../test/support/system-tools.js';
import { launchChromium } from '../test/support/browser.js';
import { activateChat, startChat } from '../test/livechat/support.js';
import { buildConsole, CONSOLE_OUTFILE } from '../scripts/build-widget.mjs';
import { postStore } from '../src/posts/posts.model.js';
import { publishedForImport } from '../test/support/imported-posts.js';

// Page-side code (init scripts, evaluate) runs in the browser; this project's tsconfig has no DOM types.
declare const window: any;
declare const sessionStorage: any;

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 500);
const APPOINTMENTS = Number(process.env.BENCH_APPOINTMENTS ?? 200);
const SUBMISSIONS = Number(process.env.BENCH_SUBMISSIONS ?? 500);
const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 5);
const POSTS = Number(process.env.BENCH_POSTS ?? 5000);
/** Of the posts, how many are written through the admin API (the rest are imported in bulk). */
const API_POSTS = Number(process.env.BENCH_API_POSTS ?? 300);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const LOADS = Number(process.env.BENCH_LOADS ?? 5);
/** How long a view may take to show its first entry before it counts as not painted. */
const PAINT_TIMEOUT_MS = Number(process.env.BENCH_PAINT_TIMEOUT_MS ?? 15_000);
const BAR_MS = 1_000;
const BUDGET_KB = 150;

/** Each view, the element its first paint shows, and the admin list call (under the workspace) that entry comes from. */
const VIEWS = [
  { name: 'inbox', selector: '#inbox-items li', list: '/inbox?limit=25&state=waiting' },
  { name: 'chats', selector: '#conversations li', list: '/conversations?status=OPEN&limit=100&page=1&total=false' },
  { name: 'submissions', selector: '#submissions li', list: '/submissions?limit=50&page=1&total=false&state=open' },
  { name: 'bookings', selector: '#pending li', list: '/appointments?status=PENDING&limit=200&total=false' },
  { name: 'team', selector: '#members li', list: '/members' },
  { name: 'posts', selector: '#posts li', list: '/posts?view=summary&limit=25&page=1' },
] as const;
type ViewName = (typeof VIEWS)[number]['name'];

const HOUR = 3_600_000;
const SLOT = 30 * 60_000;
const everyDay = (ranges: [string, string][]) => ({ mon: ranges, tue: ranges, wed: ranges, thu: ranges, fri: ranges, sat: ranges, sun: ranges });

async function ok(what: string, answer: Promise<{ status: number; text: string; body: any }>, expected = [200, 201]): Promise<any> {
  const res = await answer;
  if (!expected.includes(res.status)) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res.body;
}

async function seed(url: string, ws: WorkspaceFixture, engine: { uri: string; dbName: string }): Promise<Record<string, number>> {
  const seconds: Record<string, number> = {};
  const timed = async (name: string, run: () => Promise<void>) => {
    const from = now();
    await run();
    seconds[name] = (now() - from) / 1000;
  };
  const person = (i: number) => ({ name: `Visitor ${i}`, email: `visitor-${i}@bench.test` });

  await timed('team', async () => {
    await pool(MEMBERS - 1, CONCURRENCY, async (i) => {
      const user = await ok('user', request(url, '/admin/users', { token: ws.token, body: { email: `member-${i}@bench.test`, name: `Member ${i}`, password: 'member-password' } }));
      await ok('member', request(url, `/admin/workspaces/${ws.id}/members`, { token: ws.token, body: { userId: user.id, role: i % 3 === 0 ? 'editor' : 'agent' } }));
    });
  });

  await timed('chats', async () => {
    const publishableKey = await activateChat(url, ws);
    await pool(CONVERSATIONS, CONCURRENCY, async (i) => {
      const started = await ok('conversation', startChat(url, publishableKey, { visitorSessionId: `bench-visitor-${i}`, pageUrl: `https://bakery.test/cakes/${i % 20}` }));
      const { name, email } = person(i);
      await ok(
        'visitor message',
        request(url, `/external/live-chat/conversations/${encodeURIComponent(started.conversationToken)}/messages`, {
          body: { body: `Hello, do you have cake number ${i} today?`, visitorName: name, visitorEmail: email },
        }),
      );
    });
  });

  await timed('bookings', async () => {
    await ok(
      'appointments settings',
      request(url, `/admin/workspaces/${ws.id}/plugins/appointments`, {
        method: 'PUT',
        token: ws.token,
        body: { enabled: true, timezone: 'UTC', slotDurationMinutes: 30, leadTimeHours: 0, bookingWindowDays: 30, policyText: 'Be on time.', businessHours: everyDay([['00:00', '24:00']]) },
      }),
    );
    // From the next whole hour but one, so no slot passes while seeding.
    const first = Math.ceil(Date.now() / HOUR) * HOUR + HOUR;
    const ids: string[] = new Array(APPOINTMENTS);
    await pool(APPOINTMENTS, CONCURRENCY, async (i) => {
      const { name, email } = person(i);
      const booked = await ok(
        'appointment request',
        request(url, '/external/appointments/requests', {
          apiKey: ws.apiKey,
          body: { visitorName: name, visitorEmail: email, visitorMessage: `Cake tasting for ${i % 12 + 2} people`, requestedAt: new Date(first + i * SLOT).toISOString() },
        }),
      );
      ids[i] = booked.id;
    });
    // The soonest half confirmed: they fill the agenda of the coming days; the rest waits in the queue.
    await pool(Math.floor(APPOINTMENTS / 2), CONCURRENCY, async (i) => {
      await ok('confirm', request(url, `/admin/workspaces/${ws.id}/appointments/${ids[i]}/confirm`, { token: ws.token, body: {} }));
    });
  });

  await timed('posts', async () => {
    // The first ones as editors write them (drafts, every third published); the rest imported in bulk, as a
    // migration would: through the API each create checks its slug by a scan on FerretDB, so thousands of
    // them take an hour, which says nothing about the list's first paint.
    const viaApi = Math.min(POSTS, API_POSTS);
    const markdown = (i: number) => `# Day ${i}\n\nRye, spelt and **sourdough**.`;
    const title = (i: number) => `Bake of the day ${i}`;
    await pool(viaApi, CONCURRENCY, async (i) => {
      const post = await ok(
        'post',
        request(url, `/admin/workspaces/${ws.id}/posts`, {
          token: ws.token,
          body: { locale: i % 2 ? 'de' : 'en', slug: `post-${i}`, title: title(i), metaDescription: `What we bake on day ${i}`, contentMarkdown: markdown(i) },
        }),
      );
      if (i % 3 === 0) await ok('publish', request(url, `/admin/workspaces/${ws.id}/posts/${post.id}/publish`, { token: ws.token, body: {} }));
    });
    if (POSTS <= viaApi) return;
    const types = await ok('post types', request(url, `/admin/workspaces/${ws.id}/post-types`, { token: ws.token }));
    const blog = (types.items as { id: string; slug: string }[]).find((type) => type.slug === 'blog')!;
    const db = await createConnection(engine.uri, { dbName: engine.dbName }).asPromise();
    try {
      const rows = Array.from({ length: POSTS - viaApi }, (_, n) => {
        const i = viaApi + n;
        const fields = { slug: `post-${i}`, title: title(i), metaDescription: `What we bake on day ${i}`, markdown: markdown(i) };
        return publishedForImport({ ...fields, postTypeId: blog.id, locale: i % 2 ? 'de' : 'en', publishedAt: new Date(Date.now() - n * 60_000) });
      });
      for (let from = 0; from < rows.length; from += 1000) await postStore(db).importPublished(ws.id, rows.slice(from, from + 1000));
    } finally {
      await db.close();
    }
  });

  await timed('submissions', async () => {
    await pool(SUBMISSIONS, CONCURRENCY, async (i) => {
      const { name, email } = person(i);
      await ok(
        'submission',
        request(url, '/external/submissions', {
          apiKey: ws.apiKey,
          body: { name, email, subject: `Order ${i}`, message: `I would like to order a cake for ${i % 30 + 1} June.\n\nThanks!`, source: 'contact-form' },
        }),
      );
    });
  });
  return seconds;
}

const QUIET_TIMEOUT_MS = 180_000;

/**
 * Waits until the mails the seeding queued (notifications, receipts: about 1,300) have left the queue, so their
 * sending does not share the node with the measured loads; answers how many are still queued at the deadline.
 */
async function mailsQueued(url: string, ws: WorkspaceFixture): Promise<number> {
  const deadline = now() + QUIET_TIMEOUT_MS;
  for (;;) {
    let queued = 0;
    let before: string | null = null;
    do {
      const page = await ok('outbox', request(url, `/admin/workspaces/${ws.id}/emails?limit=100${before ? `&before=${before}` : ''}`, { token: ws.token }));
      queued += (page.items as { state: string }[]).filter((mail) => mail.state === 'queued').length;
      before = page.nextBefore;
    } while (before);
    if (queued === 0 || now() > deadline) return queued;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
}

/** The operator logs in once through the form; answers the tab's sessionStorage, which every measured tab starts with. */
async function logIn(context: BrowserContext, url: string, ws: WorkspaceFixture): Promise<[string, string][]> {
  const page = await context.newPage();
  try {
    await page.goto(`${url}/console`);
    await page.locator('#email').fill(OPERATOR.email);
    await page.locator('#password').fill(OPERATOR.password);
    await page.locator('#password').press('Enter');
    await page.locator('#workspace').waitFor({ state: 'visible', timeout: 30_000 });
    if ((await page.locator('#workspace').inputValue()) !== ws.id) await page.locator('#workspace').selectOption(ws.id);
    await page.locator('#inbox-items li').first().waitFor({ state: 'visible', timeout: 30_000 });
    const entries: [string, string][] = await page.evaluate(() => Object.entries(sessionStorage));
    if (entries.length === 0) throw new Error('no session in sessionStorage after logging in');
    return entries;
  } finally {
    await page.close();
  }
}

interface Load {
  wallMs: number;
  /** Navigation start to the entry in the DOM, on the page's clock. */
  inPageMs: number | null;
  calls: { path: string; startMs: number; ms: number; status: number }[];
  errors: string[];
}

async function loadView(context: BrowserContext, url: string, view: (typeof VIEWS)[number]): Promise<Load> {
  const page = await context.newPage();
  const errors: string[] = [];
  const requests: { path: string; startTime: number; ms: number; status: number }[] = [];
  let inFlight = 0;
  let lastSettled = now();
  const isApi = (req: { url(): string }) => new URL(req.url()).pathname.startsWith('/admin/');
  const settled = () => ((inFlight -= 1), (lastSettled = now()));
  page.on('request', (req) => void (isApi(req) && (inFlight += 1)));
  page.on('requestfailed', (req) => void (isApi(req) && settled()));
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('requestfinished', (req) => {
    if (isApi(req)) settled();
    void req.response().then((res) => {
      const timing = req.timing();
      requests.push({ path: new URL(req.url()).pathname + new URL(req.url()).search, startTime: timing.startTime, ms: timing.responseEnd, status: res?.status() ?? 0 });
    });
  });
  // As source text: a function would be serialized with the `__name()` calls tsx adds to named functions.
  await page.addInitScript({
    content: `(() => {
      const selector = ${JSON.stringify(view.selector)};
      const observer = new MutationObserver(() => {
        if (!document.querySelector(selector)) return;
        window.__firstEntryAt = performance.now();
        observer.disconnect();
      });
      observer.observe(document, { childList: true, subtree: true });
    })();`,
  });
  try {
    const from = now();
    await page.goto(`${url}/console#/${view.name}`, { waitUntil: 'commit' });
    await page.locator(view.selector).first().waitFor({ state: 'visible', timeout: PAINT_TIMEOUT_MS });
    const wallMs = now() - from;
    const inPageMs = (await page.evaluate(() => window.__firstEntryAt as number | undefined)) ?? null;
    const origin = Math.min(...requests.map((r) => r.startTime));
    const calls = requests
      .filter((r) => r.path.startsWith('/admin/'))
      .map((r) => ({ path: r.path, startMs: r.startTime - origin, ms: r.ms, status: r.status }))
      .sort((a, b) => a.startMs - b.startMs);
    // The page's other start-up calls (badges, the other views' data) run to their end before the tab closes:
    // a closed tab's requests would still be worked on by the node during the next load.
    const until = now() + 30_000;
    while (now() < until && (inFlight > 0 || now() - lastSettled < 300)) await new Promise((resolve) => setTimeout(resolve, 50));
    return { wallMs, inPageMs, calls, errors };
  } finally {
    await page.close();
  }
}

/** The console script the page names and the chunks it loads (at once or on demand), gzipped here (level 9); and the build's own gzip figure. */
async function consoleSize(url: string, built: { file: string; gzipped: number }) {
  const html = await (await fetch(`${url}/console`)).text();
  const served = /\/console\/(console\.[0-9a-f]{16}\.js)/.exec(html)?.[1] ?? built.file;
  const gz = (bytes: Buffer) => gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION }).length;
  const read = (file: string) => readFileSync(join(dirname(CONSOLE_OUTFILE), file));
  const files = new Map<string, { bytes: number; gzipped: number; lazy: boolean }>();
  // Every file the entry names, followed through the chunks: `from"./x.js"` loads at once, `import("./x.js")` on demand.
  const visit = (file: string, lazy: boolean) => {
    const known = files.get(file);
    if (known && (lazy || !known.lazy)) return;
    const bytes = read(file);
    files.set(file, { bytes: bytes.length, gzipped: gz(bytes), lazy });
    const text = bytes.toString('utf8');
    for (const [, name] of text.matchAll(/from"\.\/([a-z0-9-]+\.[0-9a-f]{16}\.js)"/g)) visit(name, lazy);
    for (const [, name] of text.matchAll(/import\("\.\/([a-z0-9-]+\.[0-9a-f]{16}\.js)"\)/g)) visit(name, true);
  };
  visit(served, false);
  const sum = (pick: (file: { bytes: number; gzipped: number; lazy: boolean }) => boolean, key: 'bytes' | 'gzipped') => [...files.values()].filter(pick).reduce((total, file) => total + file[key], 0);
  const pageGzipped = gz(Buffer.from(html));
  return {
    served,
    builtFile: built.file,
    files: [...files.keys()],
    bytes: sum(() => true, 'bytes'),
    gzipped: sum(() => true, 'gzipped'),
    eagerGzipped: sum((file) => !file.lazy, 'gzipped'),
    lazyGzipped: sum((file) => file.lazy, 'gzipped'),
    pageGzipped,
    buildGzipped: built.gzipped,
  };
}

await runBench(async (cleanup) => {
  process.env.CHROMIUM_PATH = ensureSystemTools().chromium;
  const built = await buildConsole();
  const engine = await benchEngine('bench_console', cleanup);
  const redisUrl = await benchRedis(cleanup);
  // `error`: each seeded mail otherwise logs a warning (no SMTP server here, kept as unsent).
  const node = await startNode({ engine, redisUrl, env: { LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'error' } });
  cleanup(() => node.stop());
  const url = node.url;

  const ws = await createWorkspace(url, { slug: 'bench-bakery', name: 'Bench Bakery' });
  const seedFrom = now();
  const seeded = await seed(url, ws, engine);
  console.log(
    `console bench on ${engine.kind}: seeded ${CONVERSATIONS} chats, ${APPOINTMENTS} appointment requests (${Math.floor(APPOINTMENTS / 2)} confirmed), ` +
      `${SUBMISSIONS} submissions, ${POSTS} posts, ${MEMBERS} members in ${((now() - seedFrom) / 1000).toFixed(1)} s ` +
      `(${Object.entries(seeded).map(([name, s]) => `${name} ${s.toFixed(1)} s`).join(', ')}), ${CONCURRENCY} at a time`,
  );

  const quietFrom = now();
  const queued = await mailsQueued(url, ws);
  console.log(`  outbox drained in ${((now() - quietFrom) / 1000).toFixed(1)} s${queued ? ` (${queued} mails still queued after ${QUIET_TIMEOUT_MS / 1000} s)` : ''}`);

  const browser: Browser = await launchChromium();
  cleanup(() => browser.close());
  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 800 } });
  const session = await logIn(context, url, ws);
  await context.addInitScript({
    content: `if (location.origin === ${JSON.stringify(new URL(url).origin)}) for (const [key, value] of ${JSON.stringify(session)}) sessionStorage.setItem(key, value);`,
  });

  const loads = Object.fromEntries(VIEWS.map((view) => [view.name, [] as Load[]])) as Record<ViewName, Load[]>;
  const failures: Partial<Record<ViewName, string>> = {};
  const measure = async (view: (typeof VIEWS)[number], keep: boolean) => {
    if (failures[view.name]) return;
    try {
      const load = await loadView(context, url, view);
      if (keep) loads[view.name].push(load);
    } catch (error) {
      failures[view.name] = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    }
  };
  for (const view of VIEWS) await measure(view, false);
  for (let turn = 0; turn < LOADS; turn += 1) for (const view of VIEWS) await measure(view, true);

  // The list call each view paints from, alone (in series, nothing else in flight): the server's share.
  const alone: Partial<Record<ViewName, number>> = {};
  for (const view of VIEWS) {
    const times: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const from = now();
      const res = await request(url, `/admin/workspaces/${ws.id}${view.list}`, { token: ws.token });
      times.push(res.status === 200 ? now() - from : NaN);
    }
    alone[view.name] = percentile(times.sort((a, b) => a - b), 50);
  }

  const size = await consoleSize(url, built);
  const kb = (bytes: number) => bytes / 1024;

  const lines: string[] = [];
  const result: Record<string, unknown> = { bench: 'console' };
  const over: string[] = [];
  for (const view of VIEWS) {
    const measured = loads[view.name];
    const wall = measured.map((load) => load.wallMs).sort((a, b) => a - b);
    const median = percentile(wall, 50);
    const max = wall.at(-1) ?? NaN;
    result[`${view.name}_first_paint_ms`] = round(median, 0);
    result[`${view.name}_first_paint_max_ms`] = round(max, 0);
    if (failures[view.name] && measured.length === 0) {
      lines.push(`  ${view.name.padEnd(12)} NOT PAINTED (${view.selector}): ${failures[view.name]}`);
      continue;
    }
    if (median >= BAR_MS) over.push(view.name);
    const medianLoad = measured.find((load) => load.wallMs === median)!;
    const inPage = measured.map((load) => load.inPageMs).filter((ms): ms is number => ms !== null).sort((a, b) => a - b);
    const errors = [...new Set(measured.flatMap((load) => load.errors))];
    lines.push(
      `  ${view.name.padEnd(12)} first paint median ${median.toFixed(0).padStart(5)} ms, max ${max.toFixed(0).padStart(5)} ms ` +
        `(loads ${measured.map((load) => load.wallMs.toFixed(0)).join(' ')}) | in page median ${percentile(inPage, 50).toFixed(0)} ms | ` +
        `its list call alone ${alone[view.name]?.toFixed(0)} ms` +
        `${median >= BAR_MS ? '  OVER 1 s' : ''}${failures[view.name] ? ` | a later load failed: ${failures[view.name]}` : ''}`,
    );
    lines.push(`  ${''.padEnd(12)} API calls of the median load (start after navigation + duration): ${medianLoad.calls.map((c) => `${c.path} @${c.startMs.toFixed(0)}+${c.ms.toFixed(0)}${c.status >= 400 ? ` [${c.status}]` : ''}`).join(', ') || 'none'}`);
    if (errors.length) lines.push(`  ${''.padEnd(12)} page errors: ${errors.join(' | ')}`);
  }
  lines.push(
    `  console app ${size.served} + ${size.files.length - 1} chunk(s): ${kb(size.bytes).toFixed(1)} KB minified, ${kb(size.gzipped).toFixed(1)} KB gzip in all ` +
      `(loaded at once ${kb(size.eagerGzipped).toFixed(1)} KB, on demand ${kb(size.lazyGzipped).toFixed(1)} KB; zlib level 9${size.served === size.builtFile ? `; the build's .gz ${kb(size.buildGzipped).toFixed(1)} KB` : ''}), ` +
      `page HTML ${kb(size.pageGzipped).toFixed(1)} KB gzip; budget ${BUDGET_KB} KB${kb(size.gzipped + size.pageGzipped) > BUDGET_KB ? '  OVER BUDGET' : ''}`,
  );
  if (size.served !== size.builtFile) lines.push(`  note: the page names ${size.served}, this bench built ${size.builtFile} (${kb(size.buildGzipped).toFixed(1)} KB gzip): the console was rebuilt from newer sources meanwhile, the figure is the served one's`);
  const unpainted = VIEWS.filter((view) => loads[view.name].length === 0).map((view) => `${view.name}: not painted`);
  lines.push(`  bar: every view under ${BAR_MS} ms: ${over.length || unpainted.length ? `NO (${[...over, ...unpainted].join(', ')})` : 'yes'}`);

  report(lines, {
    ...result,
    console_gzip_kb: round(kb(size.gzipped), 1),
    console_eager_gzip_kb: round(kb(size.eagerGzipped), 1),
    console_lazy_gzip_kb: round(kb(size.lazyGzipped), 1),
    console_page_gzip_kb: round(kb(size.pageGzipped), 1),
    conversations: CONVERSATIONS,
    appointments: APPOINTMENTS,
    submissions: SUBMISSIONS,
    posts: POSTS,
    loads: LOADS,
    engine: engine.kind,
    ...(Object.keys(failures).length ? { not_painted: Object.keys(failures) } : {}),
  });
});
