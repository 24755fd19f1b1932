import { Schema, Types, type Connection } from 'mongoose';
import { defineModel } from '../db/mongo.js';
import { loadJson, storeJson } from '../db/json-field.js';
import { workspaceDocument } from '../db/workspace-document.js';
import type { WidgetStringOverrides } from './widget-strings.js';

export interface LiveChatSettings {
  workspaceId: string;
  enabled: boolean;
  greeting: string;
  greetings: Record<string, string>;
  offlineMessage: string | null;
  offlineMessages: Record<string, string>;
  theme: Record<string, string> | null;
  forceOnline: boolean | null;
  widgetStrings: WidgetStringOverrides;
  activatedAt: Date | null;
  updatedAt: Date;
}

interface SettingsDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  enabled: boolean;
  greeting: string;
  // Locale maps, theme and widget strings are user-keyed objects: stored as JSON text (keys may hold `.` or `$`).
  greetingsJson: string | null;
  offlineMessage: string | null;
  offlineMessagesJson: string | null;
  themeJson: string | null;
  forceOnline: boolean | null;
  widgetStringsJson: string | null;
  activatedAt: Date | null;
  updatedAt: Date;
}

const settingsSchema = new Schema<SettingsDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    enabled: { type: Boolean, required: true },
    greeting: { type: String, required: true },
    greetingsJson: { type: String, default: null },
    offlineMessage: { type: String, default: null },
    offlineMessagesJson: { type: String, default: null },
    themeJson: { type: String, default: null },
    forceOnline: { type: Boolean, default: null },
    widgetStringsJson: { type: String, default: null },
    activatedAt: { type: Date, default: null },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'livechat_settings' },
);
// Every widget config / conversation start reads the workspace's settings; one document per workspace.
settingsSchema.index({ workspaceId: 1 }, { unique: true });

const Settings = defineModel('LiveChatSettings', settingsSchema);

function toSettings(doc: SettingsDoc): LiveChatSettings {
  return {
    workspaceId: doc.workspaceId.toHexString(),
    enabled: doc.enabled,
    greeting: doc.greeting,
    greetings: loadJson<Record<string, string>>(doc.greetingsJson) ?? {},
    offlineMessage: doc.offlineMessage ?? null,
    offlineMessages: loadJson<Record<string, string>>(doc.offlineMessagesJson) ?? {},
    theme: loadJson<Record<string, string>>(doc.themeJson),
    forceOnline: doc.forceOnline ?? null,
    widgetStrings: loadJson<WidgetStringOverrides>(doc.widgetStringsJson) ?? {},
    activatedAt: doc.activatedAt ?? null,
    updatedAt: doc.updatedAt,
  };
}

export type SettingsInput = Omit<LiveChatSettings, 'workspaceId' | 'activatedAt' | 'updatedAt'>;

export function liveChatSettingsStore(db: Connection) {
  const settings = workspaceDocument(Settings(db));
  return {
    async get(workspaceId: string): Promise<LiveChatSettings | null> {
      const doc = await settings.get(workspaceId);
      return doc ? toSettings(doc) : null;
    },
    /** Replaces the settings; `activatedAt` is stamped by the first save that enables the plugin. */
    async put(workspaceId: string, input: SettingsInput, now: Date): Promise<LiveChatSettings> {
      const saved = await settings.set(workspaceId, {
        enabled: input.enabled,
        greeting: input.greeting,
        greetingsJson: storeJson(input.greetings),
        offlineMessage: input.offlineMessage,
        offlineMessagesJson: storeJson(input.offlineMessages),
        themeJson: storeJson(input.theme),
        forceOnline: input.forceOnline,
        widgetStringsJson: storeJson(input.widgetStrings),
        updatedAt: now,
      });
      if (!input.enabled) return toSettings(saved);
      await settings.setIfNull(workspaceId, 'activatedAt', now);
      return (await this.get(workspaceId))!;
    },
  };
}
