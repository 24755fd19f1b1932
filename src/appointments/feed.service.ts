import { timingSafeEqual } from 'node:crypto';
import type { Deps } from '../deps.js';
import { findWorkspace } from '../workspaces/workspaces.service.js';
import { fail } from '../shared/errors.js';
import { parseObjectId } from '../shared/ids.js';
import { randomToken, sha256Hex } from '../shared/crypto.js';
import { appointmentStore } from './appointments.model.js';
import { feedIcs } from './calendar.js';
import { feedStore } from './feed.model.js';
import { getSettings } from './settings.service.js';

const DAY = 86_400_000;
/** The feed covers confirmed appointments from a month back to a year ahead. */
const FEED_PAST_DAYS = 31;
const FEED_FUTURE_DAYS = 366;

export function feedPath(workspaceId: string): string {
  return `/admin/workspaces/${workspaceId}/appointments.ics`;
}

/** A new feed token; the previous one stops working at once. Shown once. */
export async function rotateFeedToken(deps: Deps, workspaceId: string) {
  const token = randomToken('cf_');
  await feedStore(deps.db).rotate(workspaceId, sha256Hex(token), deps.clock.now());
  const base = (deps.config.PUBLIC_URL ?? `http://localhost:${deps.config.PORT}`).replace(/\/+$/, '');
  return { token, url: `${base}${feedPath(workspaceId)}?token=${encodeURIComponent(token)}` };
}

function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** The subscription feed: the token is the only credential (calendar apps send no headers). */
export async function feedCalendar(deps: Deps, workspaceId: string, token: string | undefined): Promise<string> {
  if (!token || !parseObjectId(workspaceId)) throw fail('invalid_feed_token');
  const stored = await feedStore(deps.db).tokenHash(workspaceId);
  if (!stored || !sameHash(stored, sha256Hex(token))) throw fail('invalid_feed_token');
  const workspace = await findWorkspace(deps, workspaceId);
  if (!workspace) throw fail('invalid_feed_token');
  const now = deps.clock.now().getTime();
  const appointments = await appointmentStore(deps.db).confirmedOverlapping(workspaceId, new Date(now - FEED_PAST_DAYS * DAY), new Date(now + FEED_FUTURE_DAYS * DAY));
  appointments.sort((a, b) => a.scheduledAt!.getTime() - b.scheduledAt!.getTime());
  const settings = await getSettings(deps, workspaceId);
  return feedIcs(workspace, appointments, deps.config.MAIL_FROM, settings?.timezone ?? 'UTC');
}
