import type { Deps } from '../deps.js';
import { appointmentSettingsStore, type AppointmentSettings } from './settings.model.js';
import { bookingRulesStore, type BookingRules } from './rules.model.js';

export type { AppointmentSettings } from './settings.model.js';

/** What availability reports for a workspace that never activated the plugin. */
export const INACTIVE = { timezone: 'UTC', slotDurationMinutes: 30, leadTimeHours: 0, bookingWindowDays: 0, policyText: null } as const;

export type SettingsInput = Omit<AppointmentSettings, 'workspaceId' | 'updatedAt' | 'policyText' | 'notificationEmail'> & {
  policyText?: string | null;
  notificationEmail?: string | null;
};

export async function putSettings(deps: Deps, workspaceId: string, input: SettingsInput): Promise<AppointmentSettings> {
  const saved = await appointmentSettingsStore(deps.db).put(workspaceId, {
    ...input,
    policyText: input.policyText ?? null,
    notificationEmail: input.notificationEmail ?? null,
    updatedAt: deps.clock.now(),
  });
  // Availability is computed from the settings and kept (availability.service.ts).
  await deps.cache.invalidateAvailability(workspaceId);
  return saved;
}

export async function getSettings(deps: Deps, workspaceId: string): Promise<AppointmentSettings | null> {
  return appointmentSettingsStore(deps.db).get(workspaceId);
}

export function toSettingsView(settings: AppointmentSettings | null) {
  if (!settings) {
    return { enabled: false, ...INACTIVE, businessHours: {}, notificationEmail: null };
  }
  const { workspaceId: _w, updatedAt: _u, ...view } = settings;
  return view;
}

export async function putBookingRules(deps: Deps, workspaceId: string, input: BookingRules): Promise<BookingRules> {
  const saved = await bookingRulesStore(deps.db).put(workspaceId, input, deps.clock.now());
  await deps.cache.invalidateAvailability(workspaceId);
  return saved;
}
