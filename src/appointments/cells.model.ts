import { Schema, Types, type Connection } from 'mongoose';
import { defineModel, isDuplicateInsert } from '../db/mongo.js';
import { tenantScope } from '../db/tenant-store.js';

// Reserved time cells: the database's guarantee that confirmed appointments never overlap.

/** Every confirmed appointment holds one document per 5-minute cell it covers. */
export const CELL_MINUTES = 5;

interface CellDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  start: Date;
  appointmentId: Types.ObjectId;
  /** One id per reservation attempt, so a failed attempt removes only what it inserted. */
  holdId: Types.ObjectId;
  reservedAt: Date;
}

const cellSchema = new Schema<CellDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    start: { type: Date, required: true },
    appointmentId: { type: Schema.Types.ObjectId, required: true },
    holdId: { type: Schema.Types.ObjectId, required: true },
    reservedAt: { type: Date, required: true },
  },
  { collection: 'appointment_cells' },
);
// The no-overlap rule itself: two confirmed appointments cannot hold the same cell of one workspace,
// whichever node inserts it. FerretDB has no transactions; this unique index is the arbiter.
cellSchema.index({ workspaceId: 1, start: 1 }, { unique: true });
// Releasing the cells of one appointment, and undoing one reservation attempt.
cellSchema.index({ workspaceId: 1, appointmentId: 1 });
cellSchema.index({ workspaceId: 1, holdId: 1 });

const Cells = defineModel('AppointmentCell', cellSchema);

export function cellStarts(start: Date, end: Date): Date[] {
  const cells: Date[] = [];
  for (let t = start.getTime(); t < end.getTime(); t += CELL_MINUTES * 60_000) cells.push(new Date(t));
  return cells;
}

const oid = (id: string) => new Types.ObjectId(id);

export function cellStore(db: Connection) {
  const model = Cells(db);
  const scope = tenantScope(model);
  return {
    /**
     * Inserts every cell or none: on a duplicate key (a cell held by another appointment) the cells this
     * call inserted are removed again and null is returned. The answer is the hold id, to undo the
     * reservation when the state change that follows it loses a race.
     */
    async reserve(workspaceId: string, appointmentId: string, starts: Date[], at: Date): Promise<string | null> {
      const wid = oid(workspaceId);
      const aid = oid(appointmentId);
      const holdId = new Types.ObjectId();
      if (starts.length === 0) return holdId.toHexString();
      try {
        await model.insertMany(
          starts.map((start) => ({ workspaceId: wid, start, appointmentId: aid, holdId, reservedAt: at })),
          { ordered: true },
        );
        return holdId.toHexString();
      } catch (error) {
        await model.deleteMany(scope.filter(workspaceId, { holdId }));
        if (isDuplicateInsert(error)) return null;
        throw error;
      }
    },
    /** Who holds these cells (to tell leftovers of an interrupted call from real reservations). */
    async holders(workspaceId: string, starts: Date[]): Promise<{ start: Date; appointmentId: string; holdId: string; reservedAt: Date }[]> {
      // One equality query per cell (an appointment covers at most 12), in parallel: FerretDB decodes every cell
      // of the workspace, all its appointments' past included, for `$in`, and only the matches for `start`.
      const docs = (await Promise.all(starts.map((start) => scope.find(workspaceId, { start })))).flat();
      return docs.map((d) => ({ start: d.start, appointmentId: d.appointmentId.toHexString(), holdId: d.holdId.toHexString(), reservedAt: d.reservedAt }));
    },
    /** Removes exactly one cell of one hold. */
    async removeCell(workspaceId: string, start: Date, holdId: string): Promise<void> {
      await model.deleteOne(scope.filter(workspaceId, { start, holdId: oid(holdId) }));
    },
    async undo(workspaceId: string, holdId: string): Promise<void> {
      await model.deleteMany(scope.filter(workspaceId, { holdId: oid(holdId) }));
    },
    async release(workspaceId: string, appointmentId: string, starts: Date[]): Promise<void> {
      if (starts.length === 0) return;
      await model.deleteMany(scope.filter(workspaceId, { appointmentId: oid(appointmentId), start: { $in: starts } }));
    },
  };
}
