import { Schema, Types, type Connection } from 'mongoose';
import { defineModel } from '../db/mongo.js';
import { documentWrites } from '../db/document-locks.js';
import { sha256Hex } from '../shared/crypto.js';

/** One pending request an address made, counted until it is answered, cancelled or its time has come. */
export interface Hold {
  appointmentId: string;
  /** The requested start: past it, the request no longer counts. */
  until: Date;
  /** When it was counted (the request is stored just after). */
  at: Date;
}

/**
 * The pending requests one client address holds in one workspace (`MAX_PENDING_BOOKINGS_PER_ADDRESS`).
 * One document per workspace and address, named by both, so every read and write of it is by `_id`
 * (FerretDB scans any other filter) and its lock (`document-locks.ts`) serializes one address's bookings
 * on every node. The address is kept as a hash: the ledger needs to tell addresses apart, not know them.
 */
interface HoldsDoc {
  _id: string;
  workspaceId: Types.ObjectId;
  holds: Hold[];
  updatedAt: Date;
}

const holdsSchema = new Schema<HoldsDoc>(
  {
    _id: { type: String, required: true },
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    holds: { type: [new Schema<Hold>({ appointmentId: { type: String, required: true }, until: { type: Date, required: true }, at: { type: Date, required: true } }, { _id: false })], default: [] },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'appointment_address_holds' },
);
// No secondary index: the one query is by `_id`.

const Holds = defineModel('AppointmentAddressHolds', holdsSchema);

const holdsId = (workspaceId: string, address: string) => `${workspaceId}:${sha256Hex(address)}`;

export function addressHoldStore(db: Connection) {
  const model = Holds(db);
  const { transition } = documentWrites(model);
  return {
    /**
     * Replaces the address's holds in the workspace with what `decide` makes of the stored ones, as their
     * only writer on every node (`decide` may throw: nothing is written then).
     */
    async update(workspaceId: string, address: string, at: Date, decide: (holds: Hold[]) => Promise<Hold[]>): Promise<void> {
      const _id = holdsId(workspaceId, address);
      await transition(_id, async () => {
        const doc = await model.findOne({ _id }).lean<HoldsDoc>();
        const holds = await decide(doc?.holds ?? []);
        await model.updateOne({ _id }, { $set: { workspaceId: new Types.ObjectId(workspaceId), holds, updatedAt: at } }, { upsert: true });
      });
    },
  };
}
