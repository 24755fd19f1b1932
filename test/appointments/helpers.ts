import { expect } from '@jest/globals';
import { request, type WorkspaceFixture } from '../support/harness.js';

export const everyDay = (ranges: [string, string][]) => ({ mon: ranges, tue: ranges, wed: ranges, thu: ranges, fri: ranges, sat: ranges, sun: ranges });

export const baseSettings = {
  enabled: true,
  timezone: 'UTC',
  slotDurationMinutes: 60,
  leadTimeHours: 0,
  bookingWindowDays: 30,
  policyText: 'Be on time.',
  businessHours: everyDay([['09:00', '17:00']]),
};

/** Sets the plugin through the admin API, as a CMS would. */
export async function configure(url: string, ws: WorkspaceFixture, overrides: Record<string, unknown> = {}) {
  const res = await request(url, `/admin/workspaces/${ws.id}/plugins/appointments`, { method: 'PUT', token: ws.token, body: { ...baseSettings, ...overrides } });
  expect(res.status).toBe(200);
  return res.body;
}

export const visitorBody = (requestedAt: string, extra: Record<string, unknown> = {}) => ({
  visitorName: 'Ada Lovelace',
  visitorEmail: 'ada@example.com',
  requestedAt,
  ...extra,
});

export async function book(url: string, ws: WorkspaceFixture, requestedAt: string, extra: Record<string, unknown> = {}) {
  const res = await request(url, '/external/appointments/requests', { apiKey: ws.apiKey, body: visitorBody(requestedAt, extra) });
  expect(res.status).toBe(201);
  return res.body as { id: string; cancellationToken: string; requestedAt: string; durationMinutes: number; identityVerified: boolean };
}

export const staff = (url: string, ws: WorkspaceFixture, path: string, body: unknown = {}) =>
  request(url, `/admin/workspaces/${ws.id}/appointments${path}`, { token: ws.token, body });

export const starts = (body: { slots: { start: string }[] }) => body.slots.map((slot) => slot.start);
