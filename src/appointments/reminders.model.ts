import { Schema, Types, type Connection } from 'mongoose';
import { defineModel, isDuplicateKeyError } from '../db/mongo.js';

// Sent reminders: one document per (appointment, start, offset). The unique index, not a field on the
// appointment, makes a reminder go out once: FerretDB has no transactions, and a claim written into the
// appointment document could race with a move of that same document.

interface SentDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  key: string;
  sentAt: Date;
}

const sentSchema = new Schema<SentDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    key: { type: String, required: true },
    sentAt: { type: Date, required: true },
  },
  { collection: 'appointment_reminders_sent' },
);
// The claim itself: a second insert of one key fails, whichever worker tries.
sentSchema.index({ workspaceId: 1, key: 1 }, { unique: true });

const Sent = defineModel('AppointmentReminderSent', sentSchema);

export function reminderClaims(db: Connection) {
  const model = Sent(db);
  return {
    /** True for the first caller of a key, false for every later one. */
    async claim(workspaceId: string, key: string, at: Date): Promise<boolean> {
      try {
        await model.create({ workspaceId: new Types.ObjectId(workspaceId), key, sentAt: at });
        return true;
      } catch (error) {
        if (isDuplicateKeyError(error)) return false;
        throw error;
      }
    },
  };
}
