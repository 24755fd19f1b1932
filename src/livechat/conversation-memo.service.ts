import type { Deps } from '../deps.js';
import { conversationTag } from '../cache/caches.js';
import { constantTimeEqual, sha256Hex } from '../shared/crypto.js';
import { fail } from '../shared/errors.js';
import { isObjectIdHex } from '../shared/ids.js';
import type { ConversationStatus } from '../realtime/events.js';
import { conversationStore, type Conversation } from './conversations.model.js';
import type { NewestMessage } from './messages.model.js';

/**
 * What the message path needs of a conversation: remembered per node (every node's memory gets it at
 * creation, see `rememberConversation`) so a visitor message, an agent reply or a widget handshake reads
 * nothing before the message insert. Only what changes with an
 * invalidation is kept (status, token hash); a close (or a reopen, or a new token) calls
 * `forgetConversation`, which drops it on every node before the change is answered.
 *
 * `newest` is the last message this node knows of (the conversation's recorded summary when loaded, then
 * each message this node appends): only a hint for the next seq, checked by the unique (conversation, seq)
 * index on insert and read again when it is stale. It is the one field changed in place.
 */
export interface RememberedConversation {
  id: string;
  workspaceId: string;
  status: ConversationStatus;
  tokenHash: string;
  /** Null when the summary cannot tell (its newest message was stored before visitorCount was kept). */
  newest: NewestMessage | null;
}

/**
 * How long a conversation is remembered. Every change of a remembered field is invalidated on every node; the
 * lifetime only bounds how long a missed invalidation could matter (and a node that cannot hear them
 * does not use the cache at all).
 */
const ROUTE_TTL_MS = 60_000;

/** Tokens name their conversation (`ct_<id>_<secret>`): the id is the cache key and the primary key. */
const TOKEN_ID = /^ct_([0-9a-f]{24})_/;
const memoKey = (id: string) => `conversation:${id}`;

function toRemembered(conversation: Conversation): RememberedConversation {
  const { id, workspaceId, status, tokenHash, recorded } = conversation;
  const { seq, createdAtMs, visitorCount } = recorded;
  return { id, workspaceId, status, tokenHash, newest: visitorCount === null ? null : { seq, createdAtMs, visitorCount } };
}

/** Conversation `id` (any workspace), remembered; null when there is none. */
function remembered(deps: Deps, id: string): Promise<RememberedConversation | null> {
  return deps.cache.memo.remember(
    memoKey(id),
    () => [conversationTag(id)],
    async () => {
      const conversation = await conversationStore(deps.db).byIdAnyWorkspace(id);
      return conversation ? toRemembered(conversation) : null;
    },
    ROUTE_TTL_MS,
  );
}

/** The visitor's conversation: the token alone is the credential, whatever the workspace. */
export async function rememberedByToken(deps: Deps, token: string): Promise<RememberedConversation> {
  const id = TOKEN_ID.exec(token)?.[1];
  const found = id ? await remembered(deps, id) : null;
  if (!found || !constantTimeEqual(found.tokenHash, sha256Hex(token))) throw fail('conversation_not_found', 'No conversation has this token.');
  return found;
}

/** A conversation of the team's workspace (another workspace's is not found, as if it did not exist). */
export async function rememberedOf(deps: Deps, workspaceId: string, conversationId: string): Promise<RememberedConversation> {
  const found = isObjectIdHex(conversationId) ? await remembered(deps, conversationId.toLowerCase()) : null;
  if (!found || found.workspaceId !== workspaceId) throw fail('conversation_not_found', 'No such conversation in this workspace.');
  return found;
}

/**
 * A conversation just created is remembered on every node without reading it: its first minute is when the
 * visitor's socket and the team's first replies arrive, each on whichever node the balancer picks, and
 * each would otherwise read it once per node before its message could be stored. Awaited before the
 * creation is answered, so no change of the conversation can reach a node before it.
 */
export async function rememberConversation(deps: Deps, conversation: Conversation): Promise<void> {
  await deps.cache.memo.share(memoKey(conversation.id), [conversationTag(conversation.id)], toRemembered(conversation), ROUTE_TTL_MS);
}

/** This node appended `newest`: the next append here starts after it (while the conversation is remembered). */
export function noteNewest(deps: Deps, conversation: RememberedConversation, newest: NewestMessage): void {
  for (const known of [conversation, deps.cache.memo.peek<RememberedConversation>(memoKey(conversation.id))]) {
    if (known && (known.newest === null || known.newest.seq < newest.seq)) known.newest = newest;
  }
}

/** Status or token of the conversation changed: every node looks it up again (awaited before answering). */
export function forgetConversation(deps: Deps, id: string): Promise<void> {
  return deps.cache.invalidateConversation(id);
}
