import type { Deps } from '../deps.js';
import { pageOf, type PageRequest } from '../shared/paging.js';
import type { ConversationStatus } from '../realtime/events.js';
import { conversationStore } from './conversations.model.js';
import { messageStore } from './messages.model.js';
import { conversationOf, type Conversation } from './conversations.service.js';
import { forgetConversation } from './conversation-memo.service.js';
import { postAgentMessage } from './messages.service.js';
import { publishConversation } from './events.service.js';
import { agentDisplayName, toReadCursor } from './read.service.js';
import { canWorkIn } from '../workspaces/members.service.js';
import { fail } from '../shared/errors.js';
import { matchedBy, type PersonKeys } from '../shared/person-keys.js';
import type { Assignee } from '../realtime/events.js';

async function assigneeOf(deps: Deps, userId: string | null): Promise<Assignee | null> {
  return userId ? { userId, name: (await agentDisplayName(deps, userId)) ?? '' } : null;
}

/** The agent console's view of a conversation. */
function toAdminConversation(conversation: Conversation, unreadCount: number, assignee: Assignee | null) {
  return {
    id: conversation.id,
    status: conversation.status,
    visitor: {
      verified: conversation.identityVerified,
      externalId: conversation.externalId,
      name: conversation.visitorName,
      email: conversation.visitorEmail,
      attributes: conversation.attributes,
      sessionId: conversation.visitorSessionId,
    },
    locale: conversation.locale,
    pageUrl: conversation.pageUrl,
    referrer: conversation.referrer,
    unreadCount,
    lastMessage: conversation.lastMessage,
    lastActivityAt: conversation.lastActivityAt.toISOString(),
    closedAt: conversation.closedAt?.toISOString() ?? null,
    createdAt: conversation.createdAt.toISOString(),
    assignee,
    readByVisitor: toReadCursor(conversation.readByVisitor),
    readByTeam: toReadCursor(conversation.readByTeam),
  };
}

/** `assignee`: `me` (the asking member), `none` (unassigned) or a member's user id. */
export async function listConversations(
  deps: Deps,
  workspaceId: string,
  query: { status?: ConversationStatus; q?: string; assignee?: string } & PageRequest,
  viewerId?: string,
) {
  const request = { page: query.page, limit: query.limit, withTotal: query.withTotal };
  const assigneeUserId = query.assignee === undefined ? undefined : query.assignee === 'me' ? (viewerId ?? null) : query.assignee === 'none' ? null : query.assignee;
  const { items, total } = await conversationStore(deps.db).list(workspaceId, { status: query.status, q: query.q, assigneeUserId }, request);
  return pageOf(request, await toAdminConversations(deps, workspaceId, items), total);
}

/**
 * The team's unread count of each conversation: how many visitor messages its newest message closes (its
 * visitorCount) minus how many the team's read cursor covers, read off the conversations alone. Only those
 * whose newest message or cursor was stored before these counts were kept are counted among the unread
 * messages (one query for all of them).
 */
async function unreadByTeam(deps: Deps, workspaceId: string, items: Conversation[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const uncounted: string[] = [];
  for (const item of items) {
    const newest = item.recorded.visitorCount;
    const read = item.readByTeam ? item.readByTeam.visitorCount : 0;
    // A read cursor may pass the summary for a moment (it is written when the team fetches a message
    // whose summary is still being written): never below zero.
    if (newest !== null && read !== null) counts.set(item.id, Math.max(0, newest - read));
    else uncounted.push(item.id);
  }
  for (const [id, count] of await messageStore(deps.db).unreadByTeam(workspaceId, uncounted)) counts.set(id, count);
  return counts;
}

/** The console's view of several conversations: their unread counts, each assignee's name once. */
async function toAdminConversations(deps: Deps, workspaceId: string, items: Conversation[]) {
  const unread = await unreadByTeam(deps, workspaceId, items);
  const assignees = new Map<string, Assignee | null>();
  for (const id of new Set(items.flatMap((item) => (item.assigneeUserId ? [item.assigneeUserId] : [])))) assignees.set(id, await assigneeOf(deps, id));
  return items.map((item) => toAdminConversation(item, unread.get(item.id) ?? 0, item.assigneeUserId ? (assignees.get(item.assigneeUserId) ?? null) : null));
}

/**
 * A person's conversations (the person timeline), newest first, at most `limit`: as the inbox answers them,
 * each with the keys that linked it. An e-mail links whether the identity carried it or the visitor typed it.
 */
export async function conversationsOfPerson(deps: Deps, workspaceId: string, keys: PersonKeys, limit: number) {
  const items = await conversationStore(deps.db).ofPerson(workspaceId, keys, limit);
  const views = await toAdminConversations(deps, workspaceId, items);
  return views.map((view, index) => {
    const item = items[index];
    const fields = { externalId: item.identityVerified ? item.externalId : null, email: item.visitorEmail, visitorSessionId: item.visitorSessionId };
    return { ...view, matchedBy: matchedBy(keys, fields) };
  });
}

export async function getConversation(deps: Deps, workspaceId: string, conversationId: string) {
  const [view] = await toAdminConversations(deps, workspaceId, [await conversationOf(deps, workspaceId, conversationId)]);
  return view;
}

/**
 * Assigns the conversation to a member of the workspace (any member may assign anyone, themselves
 * included), or unassigns it with null; pushed to the consoles as `conversation.assigned`. Idempotent.
 */
export async function assignConversation(deps: Deps, workspaceId: string, conversationId: string, userId: string | null) {
  const conversation = await conversationOf(deps, workspaceId, conversationId);
  if (userId && !(await canWorkIn(deps, workspaceId, userId))) throw fail('assignee_not_member');
  await conversationStore(deps.db).assign(workspaceId, conversation.id, userId);
  await deps.events.publish({ event: 'chat.assigned', workspaceId, assignment: { conversationId: conversation.id, assignee: await assigneeOf(deps, userId) } });
  return getConversation(deps, workspaceId, conversation.id);
}

/**
 * Closes the conversation (idempotent); the status is pushed to the visitor and the consoles. A closing
 * `message` is stored and pushed as the agent's reply first, so the visitor reads it before the status
 * changes; on a conversation that is already closed it cannot be delivered and is refused like any reply.
 */
export async function closeConversation(deps: Deps, workspaceId: string, conversationId: string, closing?: { userId: string; message: string }) {
  const conversation = await conversationOf(deps, workspaceId, conversationId);
  if (closing) await postAgentMessage(deps, workspaceId, conversation.id, closing.userId, closing.message);
  // Only the request that actually closes it pushes the change.
  const closed = await conversationStore(deps.db).close(workspaceId, conversation.id, deps.clock.now());
  if (closed) {
    // Every node forgets it as OPEN before the close is answered or pushed: posts after it are refused.
    await forgetConversation(deps, conversation.id);
    await deps.events.publish({ event: 'chat.status', workspaceId, conversationId: conversation.id, status: 'CLOSED' });
    await publishConversation(deps, 'conversation.closed', closed);
  }
  // A close that lost the race ran after the winner's (a transition): it reads the stored CLOSED.
  return getConversation(deps, workspaceId, conversation.id);
}
