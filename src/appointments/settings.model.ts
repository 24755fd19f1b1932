import { Schema, type Connection, type Types } from 'mongoose';
import { defineModel } from '../db/mongo.js';
import { workspaceDocument } from '../db/workspace-document.js';

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
/** Per weekday, `[start, end]` ranges of local wall time ("HH:MM"). */
export type BusinessHours = Partial<Record<Weekday, [string, string][]>>;

export interface AppointmentSettings {
  workspaceId: string;
  enabled: boolean;
  timezone: string;
  slotDurationMinutes: number;
  leadTimeHours: number;
  bookingWindowDays: number;
  policyText: string | null;
  businessHours: BusinessHours;
  notificationEmail: string | null;
  updatedAt: Date;
}

interface SettingsDoc extends Omit<AppointmentSettings, 'workspaceId' | 'businessHours'> {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  // Stored as JSON text: FerretDB 1.24 has no nested arrays.
  businessHoursJson: string;
}

const settingsSchema = new Schema<SettingsDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    enabled: { type: Boolean, required: true },
    timezone: { type: String, required: true },
    slotDurationMinutes: { type: Number, required: true },
    leadTimeHours: { type: Number, required: true },
    bookingWindowDays: { type: Number, required: true },
    policyText: { type: String, default: null },
    businessHoursJson: { type: String, required: true },
    notificationEmail: { type: String, default: null },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'appointment_settings' },
);
// Every availability and request call reads the workspace's settings; one document per workspace.
settingsSchema.index({ workspaceId: 1 }, { unique: true });

const Settings = defineModel('AppointmentSettings', settingsSchema);

function toSettings(doc: SettingsDoc): AppointmentSettings {
  return {
    workspaceId: doc.workspaceId.toHexString(),
    enabled: doc.enabled,
    timezone: doc.timezone,
    slotDurationMinutes: doc.slotDurationMinutes,
    leadTimeHours: doc.leadTimeHours,
    bookingWindowDays: doc.bookingWindowDays,
    policyText: doc.policyText ?? null,
    businessHours: JSON.parse(doc.businessHoursJson) as BusinessHours,
    notificationEmail: doc.notificationEmail ?? null,
    updatedAt: doc.updatedAt,
  };
}

export function appointmentSettingsStore(db: Connection) {
  const settings = workspaceDocument(Settings(db));
  return {
    async get(workspaceId: string): Promise<AppointmentSettings | null> {
      const doc = await settings.get(workspaceId);
      return doc ? toSettings(doc) : null;
    },
    async put(workspaceId: string, input: Omit<AppointmentSettings, 'workspaceId'>): Promise<AppointmentSettings> {
      const { businessHours, ...rest } = input;
      return toSettings(await settings.set(workspaceId, { ...rest, businessHoursJson: JSON.stringify(businessHours) }));
    },
  };
}
