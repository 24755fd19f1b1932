import { expect, test } from '@jest/globals';
import { Types } from 'mongoose';
import { watchingCommands, type DriverCommand } from '../support/harness.js';
import { startServices, type ServiceHarness } from '../support/service-harness.js';
import { ManualClock } from '../../src/shared/clock.js';
import { deliveryStore } from '../../src/webhooks/webhooks.model.js';
import { engineTraits } from '../../src/db/engine-traits.js';
import { BLOCK_SIZE, blockOf } from '../../src/webhooks/delivery-log.model.js';
import type { Delivery } from '../../src/webhooks/delivery.js';
import { CATCH_UP_MAX_BLOCKS, pruneDeliveries } from '../../src/webhooks/webhooks.prune.js';
import { retryWorkspace } from '../../src/webhooks/webhooks.retries.js';
import { newDelivery } from '../../src/webhooks/webhooks.sealing.js';

/**
 * What the webhook work does on its own (the hourly pruning, the retry dispatcher, a start) reads only the
 * records concerned: FerretDB decodes every record a filter other than an equality lets through, and a busy
 * workspace keeps hundreds of thousands of them.
 */

const DAY = 24 * 60 * 60 * 1000;

/** The test engine's URI with the driver's command monitoring on. */
function monitored(uri: string | undefined): string {
  if (!uri) throw new Error('TEST_MONGODB_URI is not set');
  const scheme = uri.indexOf('://') + 3;
  if (uri.indexOf('?', scheme) >= 0) return `${uri}&monitorCommands=true`;
  return uri.indexOf('/', scheme) >= 0 ? `${uri}?monitorCommands=true` : `${uri}/?monitorCommands=true`;
}

async function withServices(env: Record<string, string>, work: (services: ServiceHarness, clock: ManualClock) => Promise<void>, dbName?: string, now = new Date('2025-03-01T00:00:00Z')): Promise<void> {
  const clock = new ManualClock(now);
  const services = await startServices({ clock, env, dbName, mongoUri: monitored(process.env.TEST_MONGODB_URI) });
  try {
    await work(services, clock);
  } finally {
    await services.close();
  }
}

/** The commands `work` sends to the delivery records. */
async function recordCommands(services: ServiceHarness, work: () => Promise<unknown>): Promise<DriverCommand[]> {
  const seen: DriverCommand[] = [];
  await watchingCommands(services, (event) => event.command[event.commandName] === 'webhook_deliveries' && seen.push(event), work);
  return seen;
}

/** The filters of those commands (a delete's statements each). */
const filtersOf = (commands: DriverCommand[]): Record<string, unknown>[] =>
  commands.flatMap((command): Record<string, unknown>[] => {
    if (command.commandName === 'find') return [command.command.filter as Record<string, unknown>];
    if (command.commandName === 'delete') return (command.command.deletes as { q: Record<string, unknown> }[]).map((statement) => statement.q);
    if (command.commandName === 'update') return (command.command.updates as { q: Record<string, unknown> }[]).map((statement) => statement.q);
    return [{ [`<${command.commandName}>`]: true }];
  });

const isObjectId = (value: unknown) => (value as { _bsontype?: string } | null)?._bsontype === 'ObjectId';
/**
 * A filter FerretDB narrows down before decoding anything else: one record's `_id`, or equality on the
 * workspace and one block of its log (anything else, as a range, `$in` or a sort, is applied within those).
 */
const narrow = (filter: Record<string, unknown>) => isObjectId(filter._id) || typeof filter._id === 'string' || (isObjectId(filter.workspaceId) && typeof filter.logBlock === 'number');

const finished = (services: ServiceHarness, workspaceId: string, count: number, tag: string): Delivery[] =>
  Array.from({ length: count }, (_, n) => newDelivery(services.deps, workspaceId, { event: 'post.published', webhookId: `${tag}${n}`, payload: {}, url: 'http://x.test/h', state: 'delivered' }));

test('the hourly pruning reads the blocks it deletes from and one more, and nothing while nothing is due', async () => {
  const max = BLOCK_SIZE + 200;
  await withServices({ WEBHOOK_DELIVERY_MAX_PER_WORKSPACE: String(max) }, async (services, clock) => {
    const store = deliveryStore(services.deps.db);
    const ws = new Types.ObjectId().toHexString();
    const records = finished(services, ws, 2 * BLOCK_SIZE + 100, 'd');
    await store.completeFirstAttempts(records);

    const first = await recordCommands(services, async () => expect(await pruneDeliveries(services.deps)).toEqual({ byAge: 0, byCount: records.length - max }));
    expect(filtersOf(first).filter((filter) => !narrow(filter))).toEqual([]);
    const left = await store.list(ws, { limit: 100 });
    expect(left[0].webhookId).toBe(`d${records.length - 1}`);

    // An hour later, nothing new and nothing old yet: the pruning does not even read the records.
    clock.advance(60 * 60 * 1000);
    const idle = await recordCommands(services, async () => expect(await pruneDeliveries(services.deps)).toEqual({ byAge: 0, byCount: 0 }));
    expect(idle).toEqual([]);

    // What stays is the newest `max`, in order, and the next deliveries push the oldest of them out.
    const kept = await store.list(ws, { limit: 100, before: records[records.length - max + 100].id });
    expect(kept.map((delivery) => delivery.webhookId)).toEqual(Array.from({ length: 100 }, (_, n) => `d${records.length - max + 99 - n}`));
    await store.completeFirstAttempts(finished(services, ws, 10, 'e'));
    expect(await pruneDeliveries(services.deps)).toEqual({ byAge: 0, byCount: 10 });
    // Once past the retention time, they go by age.
    clock.advance(31 * DAY);
    expect(await pruneDeliveries(services.deps)).toEqual({ byAge: max, byCount: 0 });
    expect(await store.list(ws, { limit: 10 })).toEqual([]);
  });
}, 120_000);

test('a long history beyond the count goes with one delete where the engine serves its range, not one per block; what is waiting for a retry stays', async () => {
  await withServices({ WEBHOOK_DELIVERY_MAX_PER_WORKSPACE: '10' }, async (services) => {
    const store = deliveryStore(services.deps.db);
    const ws = new Types.ObjectId().toHexString();
    const waiting = newDelivery(services.deps, ws, { event: 'post.published', webhookId: 'waiting', payload: {}, url: 'http://x.test/h', state: 'scheduled', nextAttemptAt: new Date() });
    const records = [waiting, ...finished(services, ws, 9 * BLOCK_SIZE, 'd')];
    for (let from = 0; from < records.length; from += 2000) await store.completeFirstAttempts(records.slice(from, from + 2000));

    const commands = await recordCommands(services, async () => expect(await pruneDeliveries(services.deps)).toEqual({ byAge: 0, byCount: records.length - 11 }));
    const traits = engineTraits(services.deps.db);
    if (traits.rangePushdown || !traits.equalityPushdown) {
      // One delete and one look for what stayed across the eight blocks wholly beyond the count; the block where
      // what stays begins, read and deleted from.
      expect(commands.map((command) => command.commandName)).toEqual(['delete', 'find', 'find', 'delete']);
    } else {
      // FerretDB on PostgreSQL decodes the workspace's every record for a range: each block by its equality.
      expect(commands.map((command) => command.commandName)).toEqual(Array.from({ length: 9 }, () => ['find', 'delete']).flat());
      expect(filtersOf(commands).filter((filter) => !narrow(filter))).toEqual([]);
    }
    const left = await store.list(ws, { limit: 20 });
    expect(left.map((delivery) => delivery.webhookId)).toEqual([...Array.from({ length: 10 }, (_, n) => `d${9 * BLOCK_SIZE - 1 - n}`), 'waiting']);
  });
}, 180_000);

test('a history of more records beyond the count than one delete may name goes in deletes of at most 24 blocks', async () => {
  await withServices({ WEBHOOK_DELIVERY_MAX_PER_WORKSPACE: '10' }, async (services) => {
    const ws = new Types.ObjectId();
    // 66 blocks: more than the 65,535 ids FerretDB on PostgreSQL may list in one delete. Stored as the store
    // numbers its log, in bulk (a long history a node kept while pruning was failing).
    const total = 66 * BLOCK_SIZE;
    const at = new Date('2025-02-27T00:00:00Z');
    const record = (n: number) => ({ workspaceId: ws, event: 'post.published', webhookId: `d${n}`, payloadJson: '{}', url: 'http://x.test/h', state: 'delivered', attempts: [], logSeq: n + 1, logBlock: blockOf(n + 1), createdAt: at, updatedAt: at });
    for (let from = 0; from < total; from += 4_000) {
      await services.deps.db.collection('webhook_deliveries').insertMany(Array.from({ length: Math.min(4_000, total - from) }, (_, i) => record(from + i)), { ordered: false });
    }
    await services.deps.db.collection<{ _id: string; taken: number }>('webhook_delivery_counters').insertOne({ _id: ws.toHexString(), taken: total });

    const commands = await recordCommands(services, async () => expect(await pruneDeliveries(services.deps)).toEqual({ byAge: 0, byCount: total - 10 }));
    const spans = filtersOf(commands.filter((command) => command.commandName === 'delete'))
      .map((filter) => filter.logBlock as { $gte?: number; $lt?: number } | number)
      .map((blocks) => (typeof blocks === 'number' ? 1 : blocks.$lt! - blocks.$gte!));
    expect(Math.max(...spans)).toBeLessThanOrEqual(CATCH_UP_MAX_BLOCKS);
    expect((await deliveryStore(services.deps.db).list(ws.toHexString(), { limit: 20 })).map((delivery) => delivery.webhookId)).toEqual(Array.from({ length: 10 }, (_, n) => `d${total - 1 - n}`));
  });
}, 240_000);

test('pruning by age goes block by block from the oldest and stops at the first young record', async () => {
  await withServices({ WEBHOOK_DELIVERY_RETENTION_DAYS: '30' }, async (services, clock) => {
    const store = deliveryStore(services.deps.db);
    const ws = new Types.ObjectId().toHexString();
    const old = finished(services, ws, BLOCK_SIZE + 10, 'old');
    const waiting = newDelivery(services.deps, ws, { event: 'post.published', webhookId: 'waiting', payload: {}, url: 'http://x.test/h', state: 'scheduled', nextAttemptAt: new Date(clock.now().getTime() + 40 * DAY) });
    await store.completeFirstAttempts([...old, waiting]);
    clock.advance(10 * DAY);
    const young = finished(services, ws, 5, 'young');
    await store.completeFirstAttempts(young);

    clock.advance(25 * DAY);
    const commands = await recordCommands(services, async () => expect(await pruneDeliveries(services.deps)).toEqual({ byAge: old.length, byCount: 0 }));
    expect(filtersOf(commands).filter((filter) => !narrow(filter))).toEqual([]);
    expect((await store.list(ws, { limit: 100 })).map((delivery) => delivery.webhookId)).toEqual(['young4', 'young3', 'young2', 'young1', 'young0', 'waiting']);
  });
}, 120_000);

test('the retry dispatcher reads the retries to come and their records by id; a retry entry a crash left behind goes without a send', async () => {
  await withServices({}, async (services, clock) => {
    const store = deliveryStore(services.deps.db);
    const ws = new Types.ObjectId().toHexString();
    await store.completeFirstAttempts(finished(services, ws, 50, 'history'));
    // A retry due now to a closed port (refused: retried), and a record finished by a run that crashed before its entry went.
    const due = newDelivery(services.deps, ws, { event: 'post.published', webhookId: 'due', payload: {}, url: 'http://127.0.0.1:9/h', state: 'scheduled', nextAttemptAt: clock.now() });
    const crashed = newDelivery(services.deps, ws, { event: 'post.published', webhookId: 'crashed', payload: {}, url: 'http://127.0.0.1:9/h', state: 'scheduled', nextAttemptAt: clock.now() });
    await store.create(due);
    await store.create(crashed);
    await services.deps.db.collection('webhook_deliveries').updateOne({ _id: new Types.ObjectId(crashed.id) }, { $set: { state: 'delivered', nextAttemptAt: null } });
    expect(await store.workspacesWithRetries()).toContain(ws);

    const commands = await recordCommands(services, () => retryWorkspace(services.deps, ws, async () => undefined));
    expect(filtersOf(commands).every(narrow)).toBe(true);
    expect((await store.byId(due.id))!.attempts).toHaveLength(1);
    expect((await store.byId(crashed.id))!.attempts).toHaveLength(0);
    // The due one waits for its next attempt; the crashed one's entry is gone.
    expect(await store.nextRetryAt(ws)).toEqual((await store.byId(due.id))!.nextAttemptAt);
    expect(await store.dueRetries(ws, new Date(Date.now() + DAY), 10)).toEqual([expect.objectContaining({ id: due.id })]);
  }, undefined, new Date());
}, 120_000);

test('records stored before the log numbers and retries waiting since then are still pruned and retried after the upgrade', async () => {
  const dbName = `s_idle_${Date.now().toString(36)}`;
  const ws = new Types.ObjectId();
  const at = new Date('2025-03-01T00:00:00Z');
  await withServices({}, async (services) => {
    // As an earlier version stored them: no log numbers, no retry entries, and no record of the upgrades.
    const legacy = (n: number, state: string, createdAt: Date) => ({
      _id: Types.ObjectId.createFromTime(Math.floor(createdAt.getTime() / 1000) + n),
      workspaceId: ws,
      event: 'post.published',
      webhookId: `legacy${n}`,
      payloadJson: '{}',
      url: 'http://127.0.0.1:9/h',
      sealedUrl: null,
      state,
      attempts: [],
      nextAttemptAt: state === 'scheduled' ? createdAt : null,
      finalReason: null,
      redeliveryOf: null,
      endpointId: null,
      createdAt,
      updatedAt: createdAt,
    });
    await services.deps.db.collection('webhook_deliveries').insertMany([
      legacy(0, 'delivered', new Date(at.getTime() - 40 * DAY)),
      legacy(1, 'delivered', new Date(at.getTime() - 40 * DAY)),
      legacy(2, 'scheduled', new Date(at.getTime() - DAY)),
      legacy(3, 'delivered', new Date(at.getTime() - DAY)),
    ]);
    await services.deps.db.collection<{ _id: string }>('once_claims').deleteMany({ _id: { $in: ['upgrade:webhook-retries-entered', 'upgrade:webhook-delivery-log-numbers'] } });
  }, dbName);
  await withServices({ WEBHOOK_DELIVERY_RETENTION_DAYS: '30', WEBHOOK_DELIVERY_MAX_PER_WORKSPACE: '3' }, async (services) => {
    const store = deliveryStore(services.deps.db);
    expect(await store.workspacesWithRetries()).toEqual([ws.toHexString()]);
    expect((await store.dueRetries(ws.toHexString(), new Date(), 10)).map((delivery) => delivery.webhookId)).toEqual(['legacy2']);
    expect(await pruneDeliveries(services.deps)).toEqual({ byAge: 2, byCount: 0 });
    expect((await store.list(ws.toHexString(), { limit: 10 })).map((delivery) => delivery.webhookId)).toEqual(['legacy3', 'legacy2']);
    // Older than every numbered record: the first beyond the newest 3 once three new ones are stored (the waiting one stays).
    await store.completeFirstAttempts(finished(services, ws.toHexString(), 3, 'new'));
    expect(await pruneDeliveries(services.deps)).toEqual({ byAge: 0, byCount: 1 });
    expect((await store.list(ws.toHexString(), { limit: 10 })).map((delivery) => delivery.webhookId)).toEqual(['new2', 'new1', 'new0', 'legacy2']);
  }, dbName);
}, 120_000);
