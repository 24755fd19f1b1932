import type { Deps } from '../deps.js';
import type { Workspace } from '../workspaces/workspaces.service.js';
import { listConversations } from '../livechat/inbox.service.js';
import { inbox as submissionInbox } from '../submissions/submissions.service.js';
import { listForStaff } from '../appointments/staff.service.js';
import type { InboxKind } from './inbox.schemas.js';

export interface InboxQuery {
  kind?: InboxKind;
  state?: 'waiting' | 'handled';
  q?: string;
  limit: number;
}

const none = { items: [], pageInfo: { hasNext: false } };

/**
 * Everything visitors sent a workspace, newest first, in one list: chats, form submissions and booking
 * requests, each in the shape of its own admin list. Each kind's newest `limit` (its own list, its own
 * indexes) merged and cut to `limit` is exactly the newest `limit` of all, so no cursor spans collections.
 * Nothing is counted (each count scans on FerretDB): each kind's list reads one more to tell whether there is more.
 */
export async function visitorInbox(deps: Deps, workspace: Workspace, query: InboxQuery) {
  const wanted = (kind: InboxKind) => !query.kind || query.kind === kind;
  const { state, q, limit } = query;
  const first = { page: 1, limit, withTotal: false };
  const [chats, submissions, bookings] = await Promise.all([
    wanted('chat') ? listConversations(deps, workspace.id, { status: state && (state === 'waiting' ? 'OPEN' : 'CLOSED'), q, ...first }) : none,
    wanted('submission') ? submissionInbox(deps, workspace, { state: state && (state === 'waiting' ? 'open' : 'handled'), q, ...first }) : none,
    wanted('booking')
      ? listForStaff(deps, workspace.id, { status: state && (state === 'waiting' ? 'PENDING' : ['CONFIRMED', 'REJECTED', 'CANCELLED']), q, ...first })
      : none,
  ]);
  const items = [
    ...chats.items.map((conversation) => ({ kind: 'chat' as const, at: conversation.lastActivityAt, conversation })),
    ...submissions.items.map((submission) => ({ kind: 'submission' as const, at: submission.createdAt, submission })),
    ...bookings.items.map((appointment) => ({ kind: 'booking' as const, at: appointment.createdAt, appointment })),
  ];
  // ISO instants in UTC sort as text; a tie keeps chats, then submissions, then bookings.
  items.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  const more = items.length > limit || [chats, submissions, bookings].some((list) => list.pageInfo.hasNext);
  return { items: items.slice(0, limit), more };
}
