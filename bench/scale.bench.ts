/**
 * `npm run bench:scale`: does every path stay fast as one workspace's data grows (issue 29)?
 *
 * - A private engine (BENCH_HANDLER=postgresql|sqlite picks FerretDB's handler; default: PostgreSQL when
 *   127.0.0.1:5432 takes one, else SQLite; `MONGODB_URI` when set) and a private Redis.
 * - One workspace seeded in bulk by bench/scale-seed.ts: BENCH_POSTS (100,000), BENCH_APPOINTMENTS (50,000),
 *   BENCH_CONVERSATIONS (100,000) with BENCH_MESSAGES (1,000,000), BENCH_DELIVERIES (500,000); BENCH_SCALE
 *   (1) multiplies every default (0.1: one tenth).
 * - Then a fresh node (production mode, built `dist/`, a child; the content cache off, `CONTENT_CACHE_MB=0`,
 *   so every content read is cold) on that data, and from this process, one request at a time:
 *   - idle: BENCH_WINDOW_S (20) seconds at rest after BENCH_WARM_S (10) (BENCH_PRUNE_DUE=1: with the hourly
 *     webhook pruning due as the node starts, as after an hour; else it is due only if the node that made the
 *     workspace stopped before running it): CPU of the engine (FerretDB, plus on
 *     PostgreSQL the server processes serving the bench's database) and of the node, in % of one core, and
 *     the driver commands per second (the job queue's apart);
 *   - availability (the first, computed, and then the node's kept slots), a booking request, the team app's
 *     bookings screen (its pending requests, and this week's agenda of confirmed appointments), the person
 *     timeline beside an opened record (by e-mail in another case, and widget session), the inbox's first
 *     page (admin, waiting; and unfiltered) and its search by part of an e-mail, the external posts list page 1 and page 1,000 (or the last page when fewer
 *     posts; limit 10), and the admin posts list's `q` search: BENCH_SAMPLES (20) each; p50/p99/max and the
 *     driver commands per request (the node's idle commands over the same time taken off);
 *   - a burst of BENCH_PUBLISHES (2,000) `post.published` webhook events to a receiver in another process:
 *     time from the first publish to the last first receipt, publish-to-receipt p99, lost.
 * Last line: the JSON figures (`<operation>_p99_ms`, `<operation>_commands`, `idle_engine_cpu_pct`, ...).
 *
 * BENCH_ONLY=appointments: the appointments alone, for a quicker turn: only they are seeded (BENCH_APPOINTMENTS,
 * scaled), no idle window, no burst; availability (first and kept), booking and the bookings screen as above, then the staff confirm of
 * each booked request followed by the availability it makes recomputed (`availability_recomputed`), and the
 * calendar feed (`feed`). Same last JSON line, with those figures.
 */
import { spawnSync } from 'node:child_process';
import { MongoClient } from 'mongodb';
import { readFileSync } from 'node:fs';
import { benchEngine, benchRedis } from './support/environment.js';
import { now, percentile, report, round, runBench, spawnChild } from './support/children.js';
import { pool, postJson, startNode, type NodeChild } from './support/hearth.js';
import { countsFromEnv, seedScale } from './scale-seed.js';
import { createWorkspace, request, type ApiResponse } from '../test/support/harness.js';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 20);
const WARM_S = Number(process.env.BENCH_WARM_S ?? 10);
const WINDOW_S = Number(process.env.BENCH_WINDOW_S ?? 20);
const PUBLISHES = Number(process.env.BENCH_PUBLISHES ?? 2000);
const TIMEOUT_S = Number(process.env.BENCH_WEBHOOK_TIMEOUT ?? 300);
const HANDLER = process.env.BENCH_HANDLER;
const ONLY = process.env.BENCH_ONLY;
const PAGE_SIZE = 10;
/** After a burst's last receipt: time for the outcomes to be recorded. */
const SETTLE_MS = 3_000;
const DAY_MS = 24 * 3_600_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** CPU seconds a process has used (user + system), from /proc; 0 once it is gone. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/**
 * The PostgreSQL server processes serving this run's private database (test/support/services.ts names it
 * `hearth_test_<time>_<this pid>`): on that handler they do the engine's storage work.
 */
function postgresBackends(): number[] {
  const listed = spawnSync(
    'psql',
    ['-h', '127.0.0.1', '-U', 'postgres', '-d', 'postgres', '-Atqc', `SELECT pid FROM pg_stat_activity WHERE datname LIKE 'hearth\\_test\\_%\\_${process.pid}'`],
    { encoding: 'utf8' },
  );
  return listed.status === 0 ? listed.stdout.split('\n').filter(Boolean).map(Number) : [];
}

/** What the PostgreSQL server processes of this run's database are running now (the idle window's culprits). */
function postgresActiveQueries(): string[] {
  const listed = spawnSync(
    'psql',
    [
      '-h', '127.0.0.1', '-U', 'postgres', '-d', 'postgres', '-Atqc',
      `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 160) FROM pg_stat_activity WHERE state = 'active' AND datname LIKE 'hearth\\_test\\_%\\_${process.pid}'`,
    ],
    { encoding: 'utf8' },
  );
  return listed.status === 0 ? listed.stdout.split('\n').filter(Boolean) : [];
}

interface Timing {
  p50: number;
  p99: number;
  max: number;
  commands: number;
}

await runBench(async (cleanup) => {
  if (HANDLER === 'sqlite') process.env.BENCH_ENGINE = 'sqlite';
  else if (HANDLER && HANDLER !== 'postgresql') throw new Error('BENCH_HANDLER is postgresql or sqlite');
  const engine = await benchEngine('scale', cleanup);
  if (HANDLER && engine.kind !== `ferretdb-${HANDLER}`) throw new Error(`BENCH_HANDLER=${HANDLER}, but the engine is ${engine.kind} (is PostgreSQL at 127.0.0.1:5432?)`);
  const redisUrl = await benchRedis(cleanup);
  if (ONLY && ONLY !== 'appointments') throw new Error('BENCH_ONLY is appointments (or unset)');
  const appointmentsOnly = ONLY === 'appointments';
  const counts = countsFromEnv();
  if (appointmentsOnly) Object.assign(counts, { posts: 0, conversations: 0, messages: 0, deliveries: 0 });
  console.log(`bench:scale on ${engine.kind}: ${JSON.stringify(counts)}`);

  const receiver = spawnChild('receiver');
  cleanup(() => receiver.stop());
  const { url: receiverUrl } = (await receiver.ready) as { url: string };
  // The receiver stands for a customer's long-running endpoint: its own warm-up is not Hearth's (see bench:webhooks).
  if (!appointmentsOnly) await pool(PUBLISHES, 8, async (i) => void (await postJson(`${receiverUrl}/hook?secret=bench`, undefined, { event: 'post.published', postId: `warm-${i}` })));
  await receiver.ask('forget');

  // BENCH_DELIVERY_MAX: the workspace may keep that many deliveries (default 10,000: the pruning then deletes the
  // seeded ones beyond it, a one-time catch-up), so the history is kept at rest.
  const nodeEnv = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', CONTENT_CACHE_MB: '0', ...(process.env.BENCH_DELIVERY_MAX ? { WEBHOOK_DELIVERY_MAX_PER_WORKSPACE: process.env.BENCH_DELIVERY_MAX } : {}) };
  let node: NodeChild = await startNode({ engine, redisUrl, env: nodeEnv });
  const ws = await createWorkspace(node.url, { locales: ['en'], defaultLocale: 'en' });
  const ok = async (what: string, answer: Promise<ApiResponse>, status = 200) => {
    const res = await answer;
    if (res.status !== status) throw new Error(`${what}: ${res.status} ${res.text.slice(0, 300)}`);
    return res.body as Record<string, any>;
  };
  const week = { mon: [['09:00', '17:00']], tue: [['09:00', '17:00']], wed: [['09:00', '17:00']], thu: [['09:00', '17:00']], fri: [['09:00', '17:00']], sat: [['09:00', '17:00']], sun: [['09:00', '17:00']] };
  await ok(
    'appointments plugin',
    request(node.url, `/admin/workspaces/${ws.id}/plugins/appointments`, {
      method: 'PUT',
      token: ws.token,
      body: { enabled: true, timezone: 'UTC', slotDurationMinutes: 60, leadTimeHours: 0, bookingWindowDays: 30, policyText: 'Be on time.', businessHours: week },
    }),
  );
  await ok('webhook URL', request(node.url, `/admin/workspaces/${ws.id}`, { method: 'PATCH', token: ws.token, body: { webhookUrl: `${receiverUrl}/hook?secret=bench` } }));
  const types = await ok('post types', request(node.url, `/admin/workspaces/${ws.id}/post-types`, { token: ws.token }));
  const blog = (types.items as { id: string; slug: string }[]).find((type) => type.slug === 'blog')!;
  await node.stop();

  const seedStarted = now();
  const seeded = await seedScale({ uri: engine.uri, dbName: engine.dbName, workspaceId: ws.id, postTypeId: blog.id, endpointUrl: `${receiverUrl}/hook?secret=***`, counts, log: console.log });
  const seedSeconds = (now() - seedStarted) / 1000;

  if (process.env.BENCH_PRUNE_DUE === '1') {
    const client = new MongoClient(engine.uri);
    await client.db(engine.dbName).collection('jobs').updateOne({ name: 'webhooks.prune' }, { $set: { nextRunAt: new Date(), lockedAt: null } });
    await client.close();
  }

  const starting = now();
  node = await startNode({ engine, redisUrl, env: nodeEnv });
  cleanup(() => node.stop());
  const readySeconds = (now() - starting) / 1000;

  // Idle: nobody uses the node.
  const ops = () => node.ask<{ commands: number; jobCommands: number; cpuMicros: number }>('ops');
  const idle = appointmentsOnly ? null : await idleWindow();
  const idleCommandsPerMs = (idle?.commandsPerSecond ?? 0) / 1000;

  /** `samples` requests one after the other: latency percentiles and driver commands per request. */
  const timed = async (name: string, samples: number, send: (i: number) => Promise<unknown>): Promise<Timing> => {
    const latencies: number[] = [];
    const before = (await ops()).commands;
    const from = now();
    for (let i = 0; i < samples; i += 1) {
      const started = now();
      await send(i);
      latencies.push(now() - started);
    }
    const elapsed = now() - from;
    const commands = Math.max(0, (await ops()).commands - before - idleCommandsPerMs * elapsed) / samples;
    latencies.sort((a, b) => a - b);
    const timing = { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1)!, commands };
    console.log(`  ${name.padEnd(18)} p50 ${round(timing.p50)} ms, p99 ${round(timing.p99)} ms, max ${round(timing.max)} ms; ${round(timing.commands, 2)} driver commands each (${samples} requests)`);
    return timing;
  };

  /** BENCH_WINDOW_S seconds at rest after BENCH_WARM_S: the engine's and the node's CPU, the driver commands. */
  async function idleWindow() {
    await sleep(WARM_S * 1000);
    const enginePids = () => [engine.pid, ...postgresBackends()].filter((pid): pid is number => typeof pid === 'number');
    const engineCpu = () => enginePids().reduce((sum, pid) => sum + cpuSeconds(pid), 0);
    const idleBefore = { engine: engineCpu(), pids: enginePids(), ops: await ops(), at: now() };
    // On PostgreSQL, what its processes run, once a second: the statements an idle node keeps the engine busy with.
    const seen = new Map<string, number>();
    for (let second = 0; second < WINDOW_S; second += 1) {
      await sleep(1000);
      for (const query of postgresActiveQueries()) seen.set(query, (seen.get(query) ?? 0) + 1);
    }
    // Server processes that began during the window count from zero; those that ended are not counted (none should).
    const pidsAfter = enginePids();
    const engineAfter = pidsAfter.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
    const idleAfter = { ops: await ops(), at: now() };
    const idleSeconds = (idleAfter.at - idleBefore.at) / 1000;
    const idle = {
      engineCpu: (100 * (engineAfter - idleBefore.engine)) / idleSeconds,
      nodeCpu: (idleAfter.ops.cpuMicros - idleBefore.ops.cpuMicros) / 1e4 / idleSeconds,
      commandsPerSecond: (idleAfter.ops.commands - idleBefore.ops.commands) / idleSeconds,
      jobCommandsPerSecond: (idleAfter.ops.jobCommands - idleBefore.ops.jobCommands) / idleSeconds,
    };
    console.log(
      `  idle: engine ${round(idle.engineCpu)}% of a core (${pidsAfter.length} processes), node ${round(idle.nodeCpu)}%, ${round(idle.commandsPerSecond, 2)} driver commands/s + ${round(idle.jobCommandsPerSecond, 2)}/s of the job queue; node ready in ${round(readySeconds)} s`,
    );
    for (const [query, times] of [...seen].sort((a, b) => b[1] - a[1]).slice(0, 5)) console.log(`    seen ${times} times in ${WINDOW_S} samples (parallel workers count apart): ${query}`);
    return idle;
  }

  const availabilityPath = '/external/appointments/availability';
  const firstAvailability = now();
  const slots = (await ok('availability', request(node.url, availabilityPath, { apiKey: ws.apiKey }))).slots as { start: string }[];
  const availabilityColdMs = now() - firstAvailability;
  if (slots.length === 0) throw new Error('availability: no free slot');
  console.log(`  availability (first, computed): ${round(availabilityColdMs)} ms, ${slots.length} free slots`);
  const results: Record<string, Timing> = {};
  results.availability = await timed('availability', SAMPLES, () => ok('availability', request(node.url, availabilityPath, { apiKey: ws.apiKey })));
  const booked: string[] = [];
  results.booking = await timed('booking', SAMPLES, async (i) => {
    const body = await ok('booking', request(node.url, '/external/appointments/requests', { apiKey: ws.apiKey, body: { visitorName: `Bench ${i}`, visitorEmail: `bench${i}@example.com`, requestedAt: slots[i % slots.length].start } }), 201);
    booked.push(body.id as string);
  });
  // The team app's bookings screen: the pending requests, and this week's agenda of confirmed appointments.
  const bookings = (query: Record<string, string>) => request(node.url, `/admin/workspaces/${ws.id}/appointments?${new URLSearchParams({ limit: '200', total: 'false', ...query })}`, { token: ws.token });
  results.bookings_pending = await timed('bookings pending', SAMPLES, () => ok('bookings pending', bookings({ status: 'PENDING' })));
  const weekStart = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);
  const agendaWeek = { status: 'CONFIRMED', from: weekStart.toISOString(), to: new Date(weekStart.getTime() + 7 * DAY_MS).toISOString() };
  results.bookings_agenda = await timed('bookings agenda', SAMPLES, async () => {
    const body = await ok('bookings agenda', bookings(agendaWeek));
    if ((body.items as unknown[]).length === 0) throw new Error('bookings agenda: this week holds no confirmed appointment');
  });
  // Beside an opened booking, conversation or submission: everything the workspace holds of that person.
  results.person_timeline = await timed('person timeline', SAMPLES, async (i) => {
    const body = await ok('person timeline', request(node.url, `/admin/workspaces/${ws.id}/people?${new URLSearchParams({ email: `VISITOR${i}@example.com`, visitorSessionId: `session-${i}` })}`, { token: ws.token }));
    if ((body.appointments as unknown[]).length === 0) throw new Error('person timeline: no booking found');
  });
  if (appointmentsOnly) {
    // Each confirm takes a slot, so the availability after it is computed again (the kept one is dropped).
    const confirms: number[] = [];
    const recomputed: number[] = [];
    for (const id of booked) {
      let started = now();
      await ok('confirm', request(node.url, `/admin/workspaces/${ws.id}/appointments/${id}/confirm`, { token: ws.token, body: {} }));
      confirms.push(now() - started);
      started = now();
      await ok('availability', request(node.url, availabilityPath, { apiKey: ws.apiKey }));
      recomputed.push(now() - started);
    }
    const timing = (latencies: number[]): Timing => {
      latencies.sort((a, b) => a - b);
      return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1)!, commands: NaN };
    };
    results.confirm = timing(confirms);
    results.availability_recomputed = timing(recomputed);
    for (const name of ['confirm', 'availability_recomputed']) {
      console.log(`  ${name.padEnd(18)} p50 ${round(results[name].p50)} ms, p99 ${round(results[name].p99)} ms, max ${round(results[name].max)} ms (${booked.length} requests)`);
    }
    const feed = await ok('feed token', request(node.url, `/admin/workspaces/${ws.id}/appointments/feed-token/rotate`, { token: ws.token, body: {} }));
    results.feed = await timed('feed', SAMPLES, () => ok('feed', request(node.url, `/admin/workspaces/${ws.id}/appointments.ics?token=${encodeURIComponent(feed.token as string)}`, {})));
    const figures: Record<string, unknown> = {};
    for (const [name, timing] of Object.entries(results)) {
      figures[`${name}_p50_ms`] = round(timing.p50);
      figures[`${name}_p99_ms`] = round(timing.p99);
      if (Number.isFinite(timing.commands)) figures[`${name}_commands`] = round(timing.commands, 2);
    }
    report([`  seeded in ${round(seedSeconds)} s (${JSON.stringify(seeded)})`], {
      bench: 'scale',
      only: 'appointments',
      appointments: counts.appointments,
      ready_s: round(readySeconds),
      availability_cold_ms: round(availabilityColdMs),
      ...figures,
      seed_s: round(seedSeconds),
      engine: engine.kind,
    });
    return;
  }
  results.inbox = await timed('inbox', SAMPLES, () => ok('inbox', request(node.url, `/admin/workspaces/${ws.id}/inbox?limit=25&state=waiting`, { token: ws.token })));
  // Its first screen before any filter: every kind, waiting or handled.
  results.inbox_all = await timed('inbox, all', SAMPLES, () => ok('inbox, all', request(node.url, `/admin/workspaces/${ws.id}/inbox?limit=25`, { token: ws.token })));
  // The inbox's search box, as a member types part of a visitor's e-mail.
  results.inbox_search = await timed('inbox search', SAMPLES, async (i) => {
    const body = await ok('inbox search', request(node.url, `/admin/workspaces/${ws.id}/inbox?limit=25&q=visitor${4000 + i}@`, { token: ws.token }));
    if ((body.items as unknown[]).length === 0) throw new Error('inbox search found nothing');
  });
  results.posts_page1 = await timed('posts page 1', SAMPLES, () => ok('posts page 1', request(node.url, `/external/posts?locale=en&limit=${PAGE_SIZE}&page=1`, { apiKey: ws.apiKey })));
  const deepPage = Math.min(1000, Math.ceil(counts.posts / PAGE_SIZE));
  results.posts_deep = await timed(`posts page ${deepPage}`, SAMPLES, async () => {
    const body = await ok('posts deep page', request(node.url, `/external/posts?locale=en&limit=${PAGE_SIZE}&page=${deepPage}`, { apiKey: ws.apiKey }));
    if ((body.items as unknown[]).length === 0) throw new Error(`posts page ${deepPage} is empty`);
  });
  // As the team app searches (the list's view=summary), and with the bodies of the page (the API's default view).
  for (const [key, label, view] of [['q_search', 'q search', '&view=summary'], ['q_search_full', 'q search, bodies', '']] as const) {
    results[key] = await timed(label, SAMPLES, async () => {
      const body = await ok(label, request(node.url, `/admin/workspaces/${ws.id}/posts?q=rhubarb&limit=25&page=1${view}`, { token: ws.token }));
      if ((body.items as unknown[]).length === 0) throw new Error(`${label} found nothing`);
    });
  }

  // The webhook burst, as bench:webhooks sends it.
  const burstBefore = await ops();
  const { publishedAt } = await node.ask<{ publishedAt: number[] }>('publish', { count: PUBLISHES, workspaceId: ws.id, prefix: 'scale' }, 600_000);
  const deadline = now() + TIMEOUT_S * 1000;
  while ((await receiver.ask<{ distinct: number }>('distinct')).distinct < PUBLISHES && now() <= deadline) await sleep(250);
  // The outcomes are recorded after the receipts: their commands are the burst's too.
  await sleep(SETTLE_MS);
  const burstAfter = await ops();
  const { receipts } = await receiver.ask<{ receipts: Record<string, number[]> }>('receipts', { prefix: 'scale' });
  const latencies = publishedAt.flatMap((at, i) => (receipts[`scale${i}`] ? [receipts[`scale${i}`][0] - at] : [])).sort((a, b) => a - b);
  const lastReceipt = Math.max(...Object.values(receipts).map((times) => times[0]));
  const burst = {
    allDeliveredMs: lastReceipt - Math.min(...publishedAt),
    p99: percentile(latencies, 99),
    lost: PUBLISHES - latencies.length,
    commands: (burstAfter.commands - burstBefore.commands) / Math.max(1, latencies.length),
  };
  console.log(`  webhook burst: ${latencies.length}/${PUBLISHES} delivered in ${round(burst.allDeliveredMs / 1000, 2)} s, publish-to-receipt p99 ${round(burst.p99)} ms, ${round(burst.commands, 2)} driver commands per delivery`);

  const figures: Record<string, unknown> = {};
  for (const [name, timing] of Object.entries(results)) {
    figures[`${name}_p50_ms`] = round(timing.p50);
    figures[`${name}_p99_ms`] = round(timing.p99);
    figures[`${name}_commands`] = round(timing.commands, 2);
  }
  report([`  seeded in ${round(seedSeconds)} s (${JSON.stringify(seeded)})`], {
    bench: 'scale',
    ...counts,
    posts_deep_page: deepPage,
    idle_engine_cpu_pct: round(idle!.engineCpu),
    idle_node_cpu_pct: round(idle!.nodeCpu),
    idle_commands_per_s: round(idle!.commandsPerSecond, 2),
    idle_job_commands_per_s: round(idle!.jobCommandsPerSecond, 2),
    ready_s: round(readySeconds),
    availability_cold_ms: round(availabilityColdMs),
    ...figures,
    webhook_burst_all_delivered_ms: round(burst.allDeliveredMs),
    webhook_burst_p99_ms: round(burst.p99),
    webhook_burst_lost: burst.lost,
    webhook_burst_commands: round(burst.commands, 2),
    seed_s: round(seedSeconds),
    engine: engine.kind,
  });
});
