import { signal } from '@preact/signals';
import type { Workspace } from './api.js';
import { ApiError } from './api.js';
import { call, workspaces, ws } from './store.js';
import { versionedCall } from './posts.js';

/**
 * The owners' settings (its own chunk, with the views): the workspace, its keys, the two plugins and the
 * webhooks. Each call is the admin API's; the server checks the role and every field, the views only show
 * what it answered (a 400's issues beside their fields).
 */

/** The admin API's workspace (`AdminWorkspace`), as far as the settings show it. */
export interface WorkspaceSettings {
  id: string;
  name: string;
  locales: string[];
  defaultLocale: string;
  siteUrl: string | null;
  webhookUrl: string | null;
  version: number;
}

export interface ChatSettings {
  enabled: boolean;
  greeting: string;
  greetings: Record<string, string>;
  offlineMessage: string | null;
  offlineMessages: Record<string, string>;
  theme: Record<string, string> | null;
  forceOnline: boolean | null;
  widgetStrings: Record<string, Record<string, string>>;
  identitySecretConfigured: boolean;
}

export type Range = [string, string];
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface AppointmentSettings {
  enabled: boolean;
  timezone: string;
  slotDurationMinutes: number;
  leadTimeHours: number;
  bookingWindowDays: number;
  policyText: string | null;
  businessHours: Partial<Record<Weekday, Range[]>>;
  notificationEmail: string | null;
}

export interface BookingRules {
  dateOverrides: Record<string, Range[]>;
  bufferBeforeMinutes: number;
  bufferAfterMinutes: number;
  maxPerDay: number | null;
  cancelNoticeHours: number;
  maxReschedules: number;
  reminders: number[];
}

export interface Endpoint {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  failingSince: string | null;
  disabledAt: string | null;
  disabledReason: string | null;
}

export interface Attempt {
  number: number;
  at: string;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  outcome: string;
}

export interface Delivery {
  id: string;
  event: string;
  state: 'pending' | 'scheduled' | 'delivered' | 'failed';
  finalReason: string | null;
  nextAttemptAt: string | null;
  attempts: Attempt[];
  redeliveryOf: string | null;
  createdAt: string;
}

export const workspace = signal<WorkspaceSettings | null>(null);
export const chat = signal<{ settings: ChatSettings; publishableKey: string | null } | null>(null);
export const appointments = signal<AppointmentSettings | null>(null);
export const rules = signal<BookingRules | null>(null);
export const endpoints = signal<Endpoint[]>([]);
/** Each shown endpoint's newest deliveries (the first page, and the older pages asked for). */
export const deliveries = signal<Record<string, Delivery[]>>({});
/** Per endpoint: where its older deliveries start, or null when the log shows them all. */
export const olderDeliveries = signal<Record<string, string | null>>({});

const DELIVERY_PAGE = 20;
/** The server's page cap: a refresh reads what is shown again, up to it. */
const DELIVERY_PAGE_MAX = 100;

// ---- the workspace

export async function loadWorkspace(): Promise<void> {
  workspace.value = await call<WorkspaceSettings>('GET', ws());
}

/**
 * Saves over the version shown (`If-Match`). A 412 means someone saved meanwhile: the newest version is read
 * (fields not typed in show it; typed ones keep what was typed) and the next save goes over it.
 */
export async function saveWorkspace(patch: Partial<Omit<WorkspaceSettings, 'id' | 'version'>>): Promise<void> {
  const current = workspace.value;
  try {
    workspace.value = current ? await versionedCall<WorkspaceSettings>('PATCH', ws(), patch, current.version) : await call<WorkspaceSettings>('PATCH', ws(), patch);
  } catch (err) {
    if (err instanceof ApiError && err.status === 412) await loadWorkspace();
    throw err;
  }
  // The toolbar's workspace list shows the name.
  if (patch.name !== undefined) workspaces.value = workspaces.value.map((w): Workspace => (w.id === workspace.value?.id ? { ...w, name: workspace.value.name } : w));
}

// ---- keys

export const revealKey = () => call<{ apiKey: string }>('GET', `${ws()}/api-key`).then((res) => res.apiKey);
export const rotateKey = () => call<{ apiKey: string }>('POST', `${ws()}/api-key/rotate`).then((res) => res.apiKey);

export async function rotatePublishableKey(): Promise<string> {
  const res = await call<{ publishableKey: string }>('POST', `${ws()}/plugins/live-chat/publishable-key/rotate`);
  if (chat.value) chat.value = { ...chat.value, publishableKey: res.publishableKey };
  return res.publishableKey;
}

// ---- live chat

export async function loadChat(): Promise<void> {
  chat.value = await call<{ settings: ChatSettings; publishableKey: string | null }>('GET', `${ws()}/plugins/live-chat`);
}

/** Saves the whole settings (the identity secret is left as it is); answers the server's warnings. */
export async function saveChat(body: Omit<ChatSettings, 'identitySecretConfigured'>): Promise<string[]> {
  const res = await call<{ settings: ChatSettings; publishableKey: string | null; warnings: string[] }>('PUT', `${ws()}/plugins/live-chat`, body);
  chat.value = { settings: res.settings, publishableKey: res.publishableKey };
  return res.warnings;
}

// ---- appointments

export async function loadAppointments(): Promise<void> {
  const [settings, stored] = await Promise.all([
    call<AppointmentSettings>('GET', `${ws()}/plugins/appointments`),
    call<BookingRules>('GET', `${ws()}/plugins/appointments/rules`),
  ]);
  appointments.value = settings;
  rules.value = stored;
}

export async function saveAppointments(body: unknown): Promise<void> {
  appointments.value = await call<AppointmentSettings>('PUT', `${ws()}/plugins/appointments`, body);
}

export async function saveRules(body: unknown): Promise<void> {
  rules.value = await call<BookingRules>('PUT', `${ws()}/plugins/appointments/rules`, body);
}

/** "09:00-12:00, 13:00-17:00" as ranges; what does not split is sent as typed, for the server to name. */
export function parseRanges(text: string): Range[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [from = '', to = ''] = part.split(/\s*[-–]\s*/);
      return [from, to];
    });
}

export const formatRanges = (ranges: Range[] | undefined) => (ranges ?? []).map(([from, to]) => `${from}-${to}`).join(', ');

/** One line per date: `2026-12-24: 09:00-12:00` (or `closed`). */
export function parseOverrides(text: string): Record<string, Range[]> {
  const overrides: Record<string, Range[]> = {};
  for (const line of text.split('\n')) {
    const at = line.indexOf(':');
    if (!line.trim()) continue;
    const date = (at < 0 ? line : line.slice(0, at)).trim();
    const hours = at < 0 ? '' : line.slice(at + 1).trim();
    overrides[date] = /^(closed|geschlossen)?$/i.test(hours) ? [] : parseRanges(hours);
  }
  return overrides;
}

export const formatOverrides = (overrides: Record<string, Range[]>) =>
  Object.entries(overrides)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([date, ranges]) => `${date}: ${ranges.length ? formatRanges(ranges) : 'closed'}`)
    .join('\n');

/** A number field's text: a number when it is one, else the text itself (the server names the problem). */
export const numberOf = (text: string): number | string => (text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text);

// ---- webhooks

const endpointPath = (id: string) => `${ws()}/webhook-endpoints/${encodeURIComponent(id)}`;

export async function loadEndpoints(): Promise<void> {
  endpoints.value = (await call<{ items: Endpoint[] }>('GET', `${ws()}/webhook-endpoints`)).items;
}

const replace = (stored: Endpoint) => (endpoints.value = endpoints.value.map((e) => (e.id === stored.id ? stored : e)));

/** The new endpoint's signing secret is in this answer only. */
export async function createEndpoint(body: { url: string; events: string[]; description: string | null }): Promise<string> {
  const created = await call<Endpoint & { secret: string }>('POST', `${ws()}/webhook-endpoints`, body);
  const { secret, ...endpoint } = created;
  endpoints.value = [...endpoints.value, endpoint];
  return secret;
}

export async function updateEndpoint(id: string, patch: { url?: string; events?: string[]; description?: string | null; enabled?: boolean }): Promise<void> {
  replace(await call<Endpoint>('PATCH', endpointPath(id), patch));
}

export async function rotateSecret(id: string): Promise<string> {
  const rotated = await call<Endpoint & { secret: string }>('POST', `${endpointPath(id)}/rotate-secret`);
  const { secret, ...endpoint } = rotated;
  replace(endpoint);
  return secret;
}

export async function deleteEndpoint(id: string): Promise<void> {
  await call('DELETE', endpointPath(id));
  endpoints.value = endpoints.value.filter((e) => e.id !== id);
}

/** The newest deliveries again, as many as are shown (at least a page): a refresh keeps older pages open. */
export async function loadDeliveries(id: string): Promise<void> {
  const limit = Math.min(DELIVERY_PAGE_MAX, Math.max(DELIVERY_PAGE, deliveries.value[id]?.length ?? 0));
  const page = await call<{ items: Delivery[]; nextBefore: string | null }>('GET', `${endpointPath(id)}/deliveries?limit=${limit}`);
  deliveries.value = { ...deliveries.value, [id]: page.items };
  olderDeliveries.value = { ...olderDeliveries.value, [id]: page.nextBefore };
}

/** The next page of older deliveries, after those shown. */
export async function loadOlderDeliveries(id: string): Promise<void> {
  const before = olderDeliveries.value[id];
  if (!before) return;
  const page = await call<{ items: Delivery[]; nextBefore: string | null }>('GET', `${endpointPath(id)}/deliveries?limit=${DELIVERY_PAGE}&before=${encodeURIComponent(before)}`);
  const shown = deliveries.value[id] ?? [];
  const known = new Set(shown.map((delivery) => delivery.id));
  deliveries.value = { ...deliveries.value, [id]: [...shown, ...page.items.filter((delivery) => !known.has(delivery.id))] };
  olderDeliveries.value = { ...olderDeliveries.value, [id]: page.nextBefore };
}

export async function redeliver(endpointId: string, deliveryId: string): Promise<void> {
  await call('POST', `${endpointPath(endpointId)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`);
  await loadDeliveries(endpointId);
}

export async function sendTest(endpointId: string): Promise<void> {
  await call('POST', `${endpointPath(endpointId)}/test`);
  await loadDeliveries(endpointId);
}

