import type { Deps } from '../deps.js';
import { deliveryStore, type LoggedRecord } from './webhooks.model.js';
import { BLOCK_SIZE, LEGACY_BLOCK, blockOf, deliveryLogStore, type LogPlace } from './delivery-log.model.js';
import { engineTraits } from '../db/engine-traits.js';

/**
 * The pruning of finished deliveries: those past `WEBHOOK_DELIVERY_RETENTION_DAYS`, then those beyond the
 * newest `WEBHOOK_DELIVERY_MAX_PER_WORKSPACE` of their workspace. Each workspace's log is walked from the
 * oldest block that may still hold records (its cursor), one block at a time, and the walk stops at the first
 * block holding a record that stays for both reasons: the blocks after it are newer. So a run reads the
 * blocks it deletes from and one more, whatever the history kept (`delivery-log.model.ts` says why).
 */

const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * From this many blocks wholly beyond the count on, they go with one delete of their range (see
 * `deleteFinishedInBlocks`) where the engine serves a range (MongoDB) or serves no filter but `_id` (FerretDB on
 * SQLite: one pass over the collection instead of one per block). FerretDB on PostgreSQL serves an equality
 * but decodes the workspace's every record for a range: there each block is read and deleted from by its own
 * equality, as the walk does anyway (a first pruning of 500,000 records: one pass instead of ten).
 */
const CATCH_UP_BLOCKS = 8;
/**
 * At most this many blocks (24,576 records) go with one delete: FerretDB 1.24 deletes what a filter matched by
 * listing their ids in one statement, which PostgreSQL refuses past 65,535 (SQLite past 32,766), so a longer
 * history never went.
 */
export const CATCH_UP_MAX_BLOCKS = 24;
const finished = (record: LoggedRecord) => record.state === 'delivered' || record.state === 'failed';

/** Finished deliveries past the retention time, then beyond the per-workspace maximum (newest kept). */
export async function pruneDeliveries(deps: Deps): Promise<{ byAge: number; byCount: number }> {
  const cutoff = new Date(deps.clock.now().getTime() - deps.config.WEBHOOK_DELIVERY_RETENTION_DAYS * DAY_MS);
  const pruned = { byAge: 0, byCount: 0 };
  for (const place of await deliveryLogStore(deps.db).places()) {
    const { byAge, byCount } = await pruneWorkspace(deps, place, cutoff, deps.config.WEBHOOK_DELIVERY_MAX_PER_WORKSPACE);
    pruned.byAge += byAge;
    pruned.byCount += byCount;
  }
  return pruned;
}

async function pruneWorkspace(deps: Deps, place: LogPlace, cutoff: Date, max: number): Promise<{ byAge: number; byCount: number }> {
  const pruned = { byAge: 0, byCount: 0 };
  const { workspaceId, taken } = place;
  // Nothing stored since that could push a kept record beyond the count, and none of them old yet: not even read.
  if (place.quiet && taken <= place.quiet.upTo && cutoff <= place.quiet.until) return pruned;
  const store = deliveryStore(deps.db);
  const traits = engineTraits(deps.db);
  const catchUp = traits.rangePushdown || !traits.equalityPushdown;
  // Numbers below this one are beyond the newest `max`.
  const keepFrom = taken - max + 1;
  const top = taken > 0 ? blockOf(taken) : LEGACY_BLOCK;
  let from = place.from;
  let emptyBelow = true;
  /** An unfinished record that is to go once finished: the workspace is walked again next time. */
  let waiting = false;
  /** Where the walk stopped: the kept records that are neither old nor beyond the count. */
  let stoppedAt: LoggedRecord[] | null = null;
  for (let block = place.from; block <= top; block += 1) {
    const beyond = keepFrom > 1 ? blockOf(keepFrom) : 0;
    if (catchUp && block >= 0 && beyond - block >= CATCH_UP_BLOCKS) {
      const upTo = Math.min(beyond, block + CATCH_UP_MAX_BLOCKS);
      const { deleted, left } = await store.deleteFinishedInBlocks(workspaceId, block, upTo);
      pruned.byCount += deleted;
      if (left.length) waiting = true;
      // Passed up to the first block with a record left, once all numbers below it were surely stored.
      const firstLeft = left.reduce((lowest, record) => Math.min(lowest, record.logBlock), upTo);
      if (emptyBelow) from = firstLeft * BLOCK_SIZE <= place.takenBefore ? firstLeft : block;
      emptyBelow &&= !left.length && upTo * BLOCK_SIZE <= place.takenBefore;
      block = upTo - 1;
      continue;
    }
    const records = await store.logBlock(workspaceId, block);
    // Records stored before the numbers are older than every numbered one; among them, the newest are kept by count.
    const ranked = block === LEGACY_BLOCK ? [...records].sort((a, b) => (a._id.toHexString() > b._id.toHexString() ? -1 : 1)) : records;
    const keptOfLegacy = Math.max(0, max - taken);
    const doomed: LoggedRecord[] = [];
    const young: LoggedRecord[] = [];
    ranked.forEach((record, rank) => {
      const beyondCount = block === LEGACY_BLOCK ? rank >= keptOfLegacy : (record.logSeq ?? 0) < keepFrom;
      const old = record.createdAt < cutoff;
      if (finished(record) && (old || beyondCount)) {
        doomed.push(record);
        if (old) pruned.byAge += 1;
        else pruned.byCount += 1;
      } else if (!old && !beyondCount) young.push(record);
      else waiting = true;
    });
    await store.deleteFromBlock(workspaceId, block, doomed.map((record) => record._id));
    // A block is passed for good once empty and all its numbers were taken before the previous run: a group
    // that took numbers since may not be stored yet.
    const settled = block === LEGACY_BLOCK || (block + 1) * BLOCK_SIZE <= place.takenBefore;
    emptyBelow &&= doomed.length === records.length && settled;
    if (emptyBelow) from = block + 1;
    if (young.length) {
      stoppedAt = young;
      break;
    }
  }
  await deliveryLogStore(deps.db).moveCursor(workspaceId, { from, takenBefore: taken, quiet: waiting ? null : quietAfter(stoppedAt, taken, max) });
  return pruned;
}

/**
 * Until when the workspace needs no look, after a walk that left only records to keep: until its counter
 * passes the number that puts the first of them beyond the count, or the cutoff passes the oldest of them.
 * The blocks after the walk's stop are newer. Records stored before the numbers are ranked among themselves:
 * any new record may push one out.
 */
function quietAfter(kept: LoggedRecord[] | null, taken: number, max: number): { upTo: number; until: Date } {
  if (!kept) return { upTo: taken, until: new Date(8.64e15) };
  const numbers = kept.map((record) => record.logSeq ?? 0);
  const upTo = numbers.some((number) => number === 0) ? taken : Math.min(...numbers) + max - 1;
  return { upTo, until: new Date(Math.min(...kept.map((record) => record.createdAt.getTime()))) };
}
