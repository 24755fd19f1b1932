import type { Deps } from '../../src/deps.js';
import type { Workspace } from '../../src/workspaces/workspaces.service.js';
import { putSettings, type SettingsInput } from '../../src/appointments/settings.service.js';
import { createRequest } from '../../src/appointments/requests.service.js';
import { baseSettings } from './helpers.js';

/** Service-layer twins of helpers.ts: the same settings and visitor, straight through the services. */
export function configureService(deps: Deps, workspace: Workspace, overrides: Partial<SettingsInput> = {}) {
  return putSettings(deps, workspace.id, { ...(baseSettings as SettingsInput), ...overrides });
}

export function bookService(deps: Deps, workspace: Workspace, requestedAt: string, extra: { visitorPhone?: string; visitorMessage?: string } = {}) {
  return createRequest(deps, workspace, { visitorName: 'Ada Lovelace', visitorEmail: 'ada@example.com', requestedAt: new Date(requestedAt), ...extra }, 'service-test');
}

export const slotStarts = (answer: { slots: { start: string }[] }) => answer.slots.map((slot) => slot.start);
