import { Schema, type Connection } from 'mongoose';
import { defineModel, isDuplicateKeyError } from '../db/mongo.js';

/**
 * Where a delivery record sits in its workspace's log, so the pruning reads the few records it may delete
 * instead of the whole history. Why: FerretDB 1.x applies ranges, `$in`, sorts and limits in its own
 * process after decoding every record the equality filters let through, so "finished and older than 30
 * days" or "beyond the newest 10,000" decoded every record of every workspace once an hour (500,000 in one
 * busy workspace kept the engine at 50-80 % of a core).
 *
 * Each record gets a number from its workspace's counter when it is stored (`logSeq`, in event order within
 * a stored group) and a block of BLOCK_SIZE numbers (`logBlock`): a block is read or deleted with an
 * equality filter on `{workspaceId, logBlock}`, which MongoDB answers from an index and FerretDB on
 * PostgreSQL hands to its database. Records stored before the numbers are filed in LEGACY_BLOCK (once, by
 * `upgradeWebhookStorage`), older than every numbered one.
 */
export const BLOCK_SIZE = 1024;
export const LEGACY_BLOCK = -1;

/** The block of a number taken from a workspace's counter (numbers start at 1). */
export const blockOf = (logSeq: number): number => Math.floor((logSeq - 1) / BLOCK_SIZE);

/** A workspace's counter: how many numbers its records have taken. Only takers write it. */
interface CounterDoc {
  _id: string;
  taken: number;
}

/**
 * The pruning's place in a workspace's log; only the pruning writes it (a second writer of the counter's
 * document would lose updates on FerretDB, which runs an update as a read and a whole-document write).
 */
interface CursorDoc {
  _id: string;
  /** Every block below this one is empty: the pruning starts here. */
  from: number;
  /** The counter when the previous pruning ran: a block whose numbers were all taken by then has its records stored (or lost to a crash, whose resend takes new numbers). */
  takenBefore: number;
  /**
   * Nothing can be due before the counter passes `quietUpTo` (the count rule) or the retention cutoff passes
   * `quietUntil` (the oldest record kept): the pruning leaves the workspace unread until then.
   */
  quietUpTo?: number;
  quietUntil?: Date;
}

const Counters = defineModel(
  'WebhookDeliveryCounter',
  new Schema<CounterDoc>({ _id: { type: String, required: true }, taken: { type: Number, required: true } }, { collection: 'webhook_delivery_counters', versionKey: false }),
);
const Cursors = defineModel(
  'WebhookPruneCursor',
  new Schema<CursorDoc>(
    { _id: { type: String, required: true }, from: { type: Number, required: true }, takenBefore: { type: Number, required: true }, quietUpTo: Number, quietUntil: Date },
    { collection: 'webhook_prune_cursors', versionKey: false },
  ),
);

export interface LogPlace {
  workspaceId: string;
  taken: number;
  from: number;
  takenBefore: number;
  quiet: { upTo: number; until: Date } | null;
}

export function deliveryLogStore(db: Connection) {
  const counters = Counters(db);
  const cursors = Cursors(db);
  return {
    /**
     * Takes `count` numbers of the workspace's counter and answers the first. Racing takers on FerretDB (an
     * increment there is a read and a write) may be given the same numbers, and the counter may fall back
     * below numbers it gave (`newest-first.ts`): the pruning then keeps more for a while, never less (it
     * keeps what is above the counter, and passes a block only once the counter is past it).
     */
    async take(workspaceId: string, count: number): Promise<number> {
      for (let attempt = 0; ; attempt += 1) {
        try {
          const doc = await counters.findOneAndUpdate({ _id: workspaceId }, { $inc: { taken: count } }, { upsert: true, returnDocument: 'after' }).lean<CounterDoc>();
          return doc.taken - count + 1;
        } catch (error) {
          // Two first takers both tried to create the counter: the loser increments the winner's.
          if (!isDuplicateKeyError(error) || attempt > 0) throw error;
        }
      }
    },
    /**
     * Every workspace with a log and where its pruning stands. The counters are one small document per
     * workspace that ever had a delivery, read whole; the cursors by `_id`.
     */
    async places(): Promise<LogPlace[]> {
      const all = await counters.find().lean<CounterDoc[]>();
      return Promise.all(
        all.map(async ({ _id: workspaceId, taken }) => {
          const cursor = await cursors.findById(workspaceId).lean<CursorDoc>();
          const quiet = cursor?.quietUpTo !== undefined && cursor.quietUntil ? { upTo: cursor.quietUpTo, until: cursor.quietUntil } : null;
          // Only the upgrade files records below the numbered log, and it starts those workspaces' cursors there.
          return { workspaceId, taken, from: cursor?.from ?? 0, takenBefore: cursor?.takenBefore ?? 0, quiet };
        }),
      );
    },
    async moveCursor(workspaceId: string, place: Pick<LogPlace, 'from' | 'takenBefore' | 'quiet'>): Promise<void> {
      const quiet = place.quiet ? { quietUpTo: place.quiet.upTo, quietUntil: place.quiet.until } : {};
      await cursors.replaceOne({ _id: workspaceId }, { from: place.from, takenBefore: place.takenBefore, ...quiet }, { upsert: true });
    },
  };
}
