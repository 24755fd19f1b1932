import { Schema, type Connection, type Types } from 'mongoose';
import { defineModel } from '../db/mongo.js';
import { workspaceDocument } from '../db/workspace-document.js';

/** Per local date ("YYYY-MM-DD"), ranges that replace that day's business hours; `[]` closes the day. */
export type DateOverrides = Record<string, [string, string][]>;

/** The booking rules beside the spec's plugin settings (a document of their own, so the spec's settings keep their exact shape). */
export interface BookingRules {
  dateOverrides: DateOverrides;
  bufferBeforeMinutes: number;
  bufferAfterMinutes: number;
  /** Confirmed appointments per local day; null: no limit. */
  maxPerDay: number | null;
  /** A visitor may cancel until this many hours before the start. */
  cancelNoticeHours: number;
  maxReschedules: number;
  /** Reminder mails, minutes before the start. */
  reminders: number[];
}

export const RULE_DEFAULTS: BookingRules = {
  dateOverrides: {},
  bufferBeforeMinutes: 0,
  bufferAfterMinutes: 0,
  maxPerDay: null,
  cancelNoticeHours: 24,
  maxReschedules: 3,
  reminders: [1440, 60],
};

interface RulesDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  // JSON text: the overrides are nested arrays (FerretDB 1.24 has none) and dates as keys.
  rulesJson: string;
  updatedAt: Date;
}

const rulesSchema = new Schema<RulesDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    rulesJson: { type: String, required: true },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'appointment_rules' },
);
// Every availability and booking call reads the workspace's rules; one document per workspace.
rulesSchema.index({ workspaceId: 1 }, { unique: true });

const Rules = defineModel('AppointmentRules', rulesSchema);

export function bookingRulesStore(db: Connection) {
  const rules = workspaceDocument(Rules(db));
  return {
    async get(workspaceId: string): Promise<BookingRules> {
      const doc = await rules.get(workspaceId);
      return { ...RULE_DEFAULTS, ...(doc ? (JSON.parse(doc.rulesJson) as Partial<BookingRules>) : {}) };
    },
    async put(workspaceId: string, input: BookingRules, at: Date): Promise<BookingRules> {
      const doc = await rules.set(workspaceId, { rulesJson: JSON.stringify(input), updatedAt: at });
      return { ...RULE_DEFAULTS, ...(JSON.parse(doc.rulesJson) as Partial<BookingRules>) };
    },
  };
}
