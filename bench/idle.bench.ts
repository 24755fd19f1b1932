/**
 * `npm run bench:idle`: what a node and its engine cost while nobody uses them, with many appointment
 * reminders planned (issue: 20,000 appointments kept the embedded engine above 90% CPU at rest).
 *
 * - One worker node in production mode (child, built `dist/`) on a private engine; no requests at all.
 * - BENCH_REMINDERS (40,000: 20,000 confirmed appointments with the default two reminders) planned days to
 *   weeks ahead, stored in bulk two ways, one after the other on the same engine:
 *   - `jobs`: one Agenda job each, as reminders were planned before the sweep (a node still runs those);
 *   - `sweep`: rows of `appointment_reminders` under their due minute, as they are planned now.
 * - For each, after BENCH_WARM_S (5) seconds, BENCH_WINDOW_S (20) seconds of rest: CPU of the engine process
 *   (FerretDB; on the PostgreSQL handler PostgreSQL does part of the work in its own processes, not counted)
 *   and of the node, in % of one core; the job queue's engine commands per second; and how long the node took
 *   from its start to ready (a worker is ready once its jobs are recovered and the queue runs).
 * Last line: the JSON figures, with the ratio sweep/jobs of the engine's CPU.
 */
import { readFileSync } from 'node:fs';
import { MongoClient, type Document } from 'mongodb';
import { benchEngine } from './support/environment.js';
import { now, report, round, runBench } from './support/children.js';
import { startNode } from './support/hearth.js';
import { REMINDER_JOB } from '../src/appointments/reminders.service.js';

const REMINDERS = Number(process.env.BENCH_REMINDERS ?? 40_000);
const WARM_S = Number(process.env.BENCH_WARM_S ?? 5);
const WINDOW_S = Number(process.env.BENCH_WINDOW_S ?? 20);
const MINUTE = 60_000;

/** CPU seconds a process has used (user + system), from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command name.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reminders due from tomorrow on, spread over four weeks, for appointments two per id. */
function planned(index: number) {
  const appointmentId = (index >> 1).toString(16).padStart(24, '0');
  const minutes = index % 2 === 0 ? 1440 : 60;
  const start = new Date(Date.now() + 2 * 86_400_000 + (index >> 1) * 2 * MINUTE);
  return { appointmentId, minutes, start, dueAt: new Date(start.getTime() - minutes * MINUTE) };
}

function asJobs(from: number, to: number): Document[] {
  const docs: Document[] = [];
  for (let i = from; i < to; i += 1) {
    const { appointmentId, minutes, start, dueAt } = planned(i);
    docs.push({
      name: REMINDER_JOB,
      data: { key: `${appointmentId}:${minutes}`, workspaceId: 'f'.repeat(24), appointmentId, start: start.toISOString(), minutes },
      priority: 0,
      type: 'normal',
      nextRunAt: dueAt,
      lastModifiedBy: null,
      lockedAt: null,
      lastRunAt: null,
      lastFinishedAt: null,
      disabled: false,
    });
  }
  return docs;
}

function asRows(from: number, to: number): Document[] {
  const docs: Document[] = [];
  for (let i = from; i < to; i += 1) {
    const { appointmentId, minutes, start, dueAt } = planned(i);
    docs.push({ _id: `${appointmentId}:${minutes}` as never, workspaceId: 'f'.repeat(24), appointmentId, start, minutes, dueAt, dueMinute: Math.floor(dueAt.getTime() / MINUTE) });
  }
  return docs;
}

await runBench(async (cleanup) => {
  const engine = await benchEngine('idle', cleanup);
  if (engine.pid === null) throw new Error('bench:idle reads the engine process CPU: run it on the engine it starts (no MONGODB_URI)');
  const client = await MongoClient.connect(engine.uri);
  cleanup(() => client.close());
  const db = client.db(engine.dbName);

  async function measure(name: string, collection: string, docs: (from: number, to: number) => Document[]) {
    for (let from = 0; from < REMINDERS; from += 2_000) await db.collection(collection).insertMany(docs(from, Math.min(REMINDERS, from + 2_000)), { ordered: false });
    const starting = now();
    const node = await startNode({ engine, role: 'worker' });
    const readySeconds = (now() - starting) / 1000;
    await sleep(WARM_S * 1000);
    const nodePid = node.process.pid!;
    const jobCommands = async () => (await node.ask<{ jobCommands: number }>('ops')).jobCommands;
    const before = { engine: cpuSeconds(engine.pid!), node: cpuSeconds(nodePid), jobs: await jobCommands() };
    await sleep(WINDOW_S * 1000);
    const after = { engine: cpuSeconds(engine.pid!), node: cpuSeconds(nodePid), jobs: await jobCommands() };
    await node.stop();
    await db.collection(collection).deleteMany({});
    const figures = {
      engineCpu: (100 * (after.engine - before.engine)) / WINDOW_S,
      nodeCpu: (100 * (after.node - before.node)) / WINDOW_S,
      jobCommandsPerSecond: (after.jobs - before.jobs) / WINDOW_S,
      readySeconds,
    };
    console.log(
      `  ${name.padEnd(6)} engine ${round(figures.engineCpu)}% of a core, node ${round(figures.nodeCpu)}%, job queue ${round(figures.jobCommandsPerSecond)} engine commands/s; ready in ${round(readySeconds)} s`,
    );
    return figures;
  }

  console.log(`bench:idle: ${REMINDERS} reminders planned, a worker node at rest (${engine.kind}), ${WINDOW_S} s each`);
  const jobs = await measure('jobs', 'jobs', asJobs);
  const sweep = await measure('sweep', 'appointment_reminders', asRows);
  report([`  engine CPU at rest, sweep / jobs: ${round(sweep.engineCpu / jobs.engineCpu, 3)}`], {
    bench: 'idle',
    reminders: REMINDERS,
    jobs_engine_cpu_pct: round(jobs.engineCpu),
    jobs_node_cpu_pct: round(jobs.nodeCpu),
    jobs_queue_commands_per_s: round(jobs.jobCommandsPerSecond),
    jobs_ready_s: round(jobs.readySeconds),
    sweep_engine_cpu_pct: round(sweep.engineCpu),
    sweep_node_cpu_pct: round(sweep.nodeCpu),
    sweep_queue_commands_per_s: round(sweep.jobCommandsPerSecond),
    sweep_ready_s: round(sweep.readySeconds),
    engine_cpu_ratio: round(sweep.engineCpu / jobs.engineCpu, 3),
    engine: engine.kind,
  });
});
