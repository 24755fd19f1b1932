import { Schema, Types, type Connection } from 'mongoose';
import { defineModel } from '../db/mongo.js';
import { workspaceDocument } from '../db/workspace-document.js';

/** Who hears of a new contact-form submission. */
export interface SubmissionSettings {
  /** Mail the team on every new submission (default on: a form that mails nobody goes unanswered). */
  notifyTeam: boolean;
  /** Where the mail goes; null: every owner of the workspace. */
  notificationEmail: string | null;
}

export const DEFAULT_SUBMISSION_SETTINGS: SubmissionSettings = { notifyTeam: true, notificationEmail: null };

interface SettingsDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  notifyTeam: boolean;
  notificationEmail: string | null;
  updatedAt: Date;
}

const settingsSchema = new Schema<SettingsDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    notifyTeam: { type: Boolean, required: true },
    notificationEmail: { type: String, default: null },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'submission_settings' },
);
// Every new submission reads its workspace's settings; one document per workspace.
settingsSchema.index({ workspaceId: 1 }, { unique: true });

const Settings = defineModel('SubmissionSettings', settingsSchema);

const toSettings = (doc: SettingsDoc | null): SubmissionSettings =>
  doc ? { notifyTeam: doc.notifyTeam, notificationEmail: doc.notificationEmail ?? null } : DEFAULT_SUBMISSION_SETTINGS;

export function submissionSettingsStore(db: Connection) {
  const settings = workspaceDocument(Settings(db));
  return {
    async get(workspaceId: string): Promise<SubmissionSettings> {
      return toSettings(await settings.get(workspaceId));
    },
    async put(workspaceId: string, input: SubmissionSettings, now: Date): Promise<SubmissionSettings> {
      return toSettings(await settings.set(workspaceId, { ...input, updatedAt: now }));
    },
  };
}
