import type { Deps } from '../deps.js';
import { fail } from '../shared/errors.js';
import { findUser } from '../auth/auth.service.js';
import { userTag } from '../cache/caches.js';
import type { ChatMessage, ReadChanged } from '../realtime/events.js';
import { conversationStore } from './conversations.model.js';
import { messageStore, withoutStoredFields, type AuthoredMessage, type Sender } from './messages.model.js';
import type { Conversation } from './conversations.service.js';
import { rememberedByToken, rememberedOf } from './conversation-memo.service.js';

/**
 * Read status: each side has one cursor on the conversation, the newest message it has read; every
 * message of the other side up to it counts as read (and is marked so, which keeps the inbox's unread
 * counts right). Cursors only move forward; each move is pushed as `conversation.read` to the visitor's
 * sockets and the agent consoles.
 */
type Reader = 'VISITOR' | 'AGENT';
/** What the read rules need of a conversation (a remembered one will do). */
type ConversationRef = Pick<Conversation, 'id' | 'workspaceId'>;

const sideOf = (reader: Reader) => (reader === 'VISITOR' ? 'readByVisitor' : 'readByTeam');
/** The messages a reader reads are the other side's. */
const readSender = (reader: Reader): Sender => (reader === 'VISITOR' ? 'AGENT' : 'VISITOR');

async function advance(deps: Deps, conversation: ConversationRef, reader: Reader, upTo: AuthoredMessage): Promise<ReadChanged> {
  const { workspaceId, id } = conversation;
  const createdAt = new Date(upTo.createdAt);
  const payload: ReadChanged = { conversationId: id, reader, messageId: upTo.id, createdAt: upTo.createdAt };
  await messageStore(deps.db).markRead(workspaceId, id, readSender(reader), createdAt, deps.clock.now());
  const moved = await conversationStore(deps.db).advanceRead(workspaceId, id, sideOf(reader), { messageId: upTo.id, createdAt, visitorCount: upTo.visitorCount });
  if (moved) await deps.events.publish({ event: 'chat.read', workspaceId, read: payload });
  return payload;
}

async function markRead(deps: Deps, conversation: ConversationRef, reader: Reader, messageId: string): Promise<ReadChanged> {
  const message = await messageStore(deps.db).byId(conversation.workspaceId, conversation.id, messageId);
  if (!message) throw fail('message_not_found');
  return advance(deps, conversation, reader, message);
}

/** The visitor has read up to `messageId` (the widget calls it while its panel shows the messages). */
export async function markVisitorRead(deps: Deps, token: string, messageId: string): Promise<ReadChanged> {
  return markRead(deps, await rememberedByToken(deps, token), 'VISITOR', messageId);
}

/** The team has read up to `messageId`. */
export async function markTeamRead(deps: Deps, workspaceId: string, conversationId: string, messageId: string): Promise<ReadChanged> {
  return markRead(deps, await rememberedOf(deps, workspaceId, conversationId), 'AGENT', messageId);
}

/** The team fetched these messages (the console fetches the conversation it shows): its cursor follows. */
export async function teamReadFetched(deps: Deps, conversation: ConversationRef, messages: AuthoredMessage[]): Promise<void> {
  const newest = messages.findLast((message) => message.sender === 'VISITOR');
  if (newest) await advance(deps, conversation, 'AGENT', newest);
}

/** A member's display name, remembered for a few seconds (a rename ends it on every node). */
export async function agentDisplayName(deps: Deps, userId: string): Promise<string | undefined> {
  const name = await deps.cache.memo.remember(
    `user-name:${userId}`,
    () => [userTag(userId)],
    async () => (await findUser(deps, userId))?.name ?? null,
  );
  return name ?? undefined;
}

/** Messages with their author's display name on AGENT messages whose author is known (one lookup per author). */
export async function withAgentNames(deps: Deps, stored: AuthoredMessage[]): Promise<(ChatMessage & { agentName?: string })[]> {
  const authors = [...new Set(stored.flatMap((message) => (message.authorUserId ? [message.authorUserId] : [])))];
  const names = new Map(await Promise.all(authors.map(async (userId) => [userId, await agentDisplayName(deps, userId)] as const)));
  return stored.map((each) => {
    const message = withoutStoredFields(each);
    const agentName = each.authorUserId ? names.get(each.authorUserId) : undefined;
    return agentName ? { ...message, agentName } : message;
  });
}

export const toReadCursor = (cursor: Conversation['readByTeam']) => (cursor ? { messageId: cursor.messageId, createdAt: cursor.createdAt.toISOString() } : null);
