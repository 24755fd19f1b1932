import type { Deps } from '../../src/deps.js';
import type { Workspace } from '../../src/workspaces/workspaces.service.js';
import { putSettings, type SettingsInput } from '../../src/appointments/settings.service.js';
import { createRequest } from '../../src/appointments/requests.service.js';
import { baseSettings } from './helpers.js';
import { Types } from 'mongoose';

/** Service-layer twins of helpers.ts: the same settings and visitor, straight through the services. */
export function configureService(deps: Deps, workspace: Workspace, overrides: Partial<SettingsInput> = {}) {
  return putSettings(deps, workspace.id, { ...(baseSettings as SettingsInput), ...overrides });
}

export function bookService(deps: Deps, workspace: Workspace, requestedAt: string, extra: { visitorPhone?: string; visitorMessage?: string } = {}) {
  return createRequest(deps, workspace, { visitorName: 'Ada Lovelace', visitorEmail: 'ada@example.com', requestedAt: new Date(requestedAt), ...extra }, 'service-test');
}

export const slotStarts = (answer: { slots: { start: string }[] }) => answer.slots.map((slot) => slot.start);

/**
 * A one-hour appointment scheduled at `start` as a version before the schedule keys stored it (no `scheduledDay`,
 * no `scheduledMonth`), written straight to the collection; its id.
 */
export async function storeAsEarlierVersion(deps: Deps, workspace: Workspace, status: 'CONFIRMED' | 'CANCELLED', start: Date, createdAt: Date): Promise<string> {
  const _id = new Types.ObjectId();
  await deps.db.collection('appointments').insertOne({
    _id,
    workspaceId: new Types.ObjectId(workspace.id),
    status,
    requestedAt: start,
    scheduledAt: start,
    scheduledEnd: new Date(start.getTime() + 60 * 60_000),
    durationMinutes: 60,
    timezone: 'UTC',
    visitorName: 'Grace Hopper',
    visitorEmail: 'grace@example.com',
    visitorPhone: null,
    visitorMessage: null,
    visitorSessionId: null,
    externalId: null,
    identityVerified: false,
    visitorAttributesJson: null,
    declineReason: null,
    rescheduleCount: 0,
    respondedAt: start,
    cancelledAt: status === 'CANCELLED' ? start : null,
    cancellationTokenHash: null,
    consumedTokenHash: null,
    manageTokenHash: null,
    cancelReason: null,
    locale: 'en',
    createdAt,
    __v: 0,
  });
  return _id.toHexString();
}
