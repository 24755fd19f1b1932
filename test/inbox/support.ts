import { createWorkspace, type WorkspaceFixture } from '../support/harness.js';
import { activateChat } from '../livechat/support.js';
import { configure, everyDay } from '../appointments/helpers.js';

/** A workspace visitors can reach every way: chat on, bookings open every day 09:00-17:00 UTC. */
export interface VisitorWorkspace extends WorkspaceFixture {
  publishableKey: string;
}

export async function visitorWorkspace(url: string): Promise<VisitorWorkspace> {
  const ws = await createWorkspace(url);
  const publishableKey = await activateChat(url, ws);
  await configure(url, ws, { timezone: 'UTC', businessHours: everyDay([['09:00', '17:00']]) });
  return { ...ws, publishableKey };
}
