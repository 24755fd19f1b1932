import type { Deps } from '../deps.js';
import { isDuplicateKeyError } from '../db/mongo.js';
import { fail, invalid } from '../shared/errors.js';
import type { ChatAttachment, ChatMessage } from '../realtime/events.js';
import { conversationStore, type VisitorFills } from './conversations.model.js';
import { messageStore, withoutStoredFields, type NewestMessage, type Sender } from './messages.model.js';
import type { VisitorMessageBody } from './livechat.schemas.js';
import { noteNewest, rememberedByToken, rememberedOf, type RememberedConversation } from './conversation-memo.service.js';
import { publishMessageStored, publishVisitorMessage } from './events.service.js';
import { agentDisplayName, teamReadFetched, withAgentNames } from './read.service.js';

/** Flood guard: more than this many visitor messages per conversation per minute are refused (`flood_limited`). */
export const FLOOD_LIMIT = 20;
const FLOOD_WINDOW_MS = 60_000;
/** Retry-After while the shared flood count is unavailable: about the longest Redis reconnect backoff. */
export const FLOOD_GUARD_RETRY_AFTER_SECONDS = 5;
/** Largest page of a messages poll; a client continues with `after` = the last `createdAt`. */
export const MESSAGES_PAGE = 500;
/**
 * An append gives up (`conversation_busy`) only once it has lost this many races to other nodes' writers
 * and kept trying for this long. Both: a loaded engine can take seconds over a single lost insert, which
 * says nothing about contention, and each lost race means another writer's message was stored.
 */
const APPEND_PATIENCE_MS = 5_000;
const APPEND_PATIENCE_RACES = 20;
/** Waits between the background retries of a conversation summary the engine refused after the push. */
const SUMMARY_RETRY_MS = [1_000, 2_000, 4_000, 8_000, 16_000];

/**
 * Bodies are text and kept exactly as sent, character for character (`<b>hi</b>` stays `<b>hi</b>`): every
 * client renders them as text, so rewriting them here would only lose what the person wrote.
 */
function checkedBody(body: string): string {
  if (!body.trim()) throw invalid([{ path: 'body', message: 'must contain text' }]);
  return body;
}

const closedError = () => fail('conversation_closed');

// ---------------------------------------------------------------------------------------------
// Appending
// ---------------------------------------------------------------------------------------------

/**
 * Appends of one conversation queue up inside this node (`deps.serial`), so only writers on different
 * nodes ever race for the same seq (and retry); without it a burst on one node would retry quadratically.
 */

type Draft = { sender: Sender; body: string; authorUserId: string | null; authorName?: string; id?: string; attachments?: ChatAttachment[] };

/**
 * Appends a message right after the conversation's newest one: seq = newest + 1 and createdAt = the later
 * of now and the newest createdAt + 1 ms. Both are unique per conversation, so when two writers race the
 * loser's insert is rejected and it retries after the winner's message. Hence a message is only ever
 * written once its predecessor is stored: createdAt is strictly increasing, commit order equals createdAt
 * order, and a poll with `after` can neither skip a message nor see one twice.
 *
 * The hot path (issue 13): the conversation comes from memory, and the insert is the only engine command
 * before the push. The summary (lastMessage, activity order, seq hint, fill-only visitor fields) is written
 * after the push and awaited before the answer, so a 201 means it is stored; should the engine refuse it,
 * the message (already stored and pushed) is still answered, and the summary is retried in the background
 * (logged; a later message's summary supersedes it anyway).
 */
async function appendMessage(deps: Deps, conversation: RememberedConversation, input: Draft, fills: VisitorFills = {}): Promise<ChatMessage> {
  const { workspaceId, id } = conversation;
  const { message, position } = await deps.serial.run(id, () => insertNext(deps, conversation, input));
  await deps.events.publish({ event: 'chat.message', workspaceId, conversationId: id, message, agentName: input.authorName });
  // The push reaches other nodes' sockets through a Redis publish that the client writes on its next
  // setImmediate; yielding first lets it leave now instead of after the summary's query is built and sent.
  await new Promise((resolve) => setImmediate(resolve));
  const record = () => deps.serial.run(`summary:${id}`, () => conversationStore(deps.db).recordMessage(workspaceId, id, message, position, fills));
  await record().catch((error: unknown) => retrySummary(deps, record, { workspaceId, conversationId: id }, error));
  return message;
}

/** Background retries of a summary write: the request has its answer, the summary must not be lost. */
function retrySummary(deps: Deps, record: () => Promise<void>, where: Record<string, string>, error: unknown, attempt = 0): void {
  if (attempt >= SUMMARY_RETRY_MS.length) {
    deps.logger.error({ err: error, ...where }, 'live chat: conversation summary not updated');
    return;
  }
  deps.logger.warn({ err: error, ...where, attempt }, 'live chat: conversation summary refused; retrying');
  setTimeout(() => void record().catch((next: unknown) => retrySummary(deps, record, where, next, attempt + 1)), SUMMARY_RETRY_MS[attempt]).unref();
}

async function insertNext(deps: Deps, conversation: RememberedConversation, input: Draft): Promise<{ message: ChatMessage; position: NewestMessage }> {
  const messages = messageStore(deps.db);
  const { workspaceId, id } = conversation;
  const deadline = deps.clock.now().getTime() + APPEND_PATIENCE_MS;
  // First after the newest message this node knows of, without reading; a stale guess is refused by the
  // unique seq like any lost race, and the newest is read from then on.
  let newest: NewestMessage | null = conversation.newest;
  for (let attempt = 0; ; attempt += 1) {
    const guessed = newest !== null;
    newest ??= await messages.newest(workspaceId, id);
    const seq = newest.seq + 1;
    const createdAt = new Date(Math.max(deps.clock.now().getTime(), newest.createdAtMs + 1));
    const visitorCount = newest.visitorCount + (input.sender === 'VISITOR' ? 1 : 0);
    try {
      const message = await messages.insert(workspaceId, id, { ...input, seq, createdAt, visitorCount });
      const position = { seq, createdAtMs: createdAt.getTime(), visitorCount };
      noteNewest(deps, conversation, position);
      return { message, position };
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      if (attempt + 1 >= APPEND_PATIENCE_RACES && deps.clock.now().getTime() > deadline) throw fail('conversation_busy', undefined, { retryAfterSeconds: 1 });
      if (!guessed) await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(1 + attempt, 10)));
      newest = null;
    }
  }
}

async function readMessages(deps: Deps, conversation: RememberedConversation, after: string | undefined, readSide: Sender, agentNames = false) {
  const stored = await messageStore(deps.db).after(conversation.workspaceId, conversation.id, after ? new Date(after) : null, MESSAGES_PAGE);
  const last = stored.at(-1);
  if (last) await messageStore(deps.db).markRead(conversation.workspaceId, conversation.id, readSide, new Date(last.createdAt), deps.clock.now());
  const messages = agentNames ? await withAgentNames(deps, stored) : stored.map(withoutStoredFields);
  return { reply: { status: conversation.status, messages }, stored };
}

// ---------------------------------------------------------------------------------------------
// The visitor's side (conversation token)
// ---------------------------------------------------------------------------------------------

/**
 * The flood guard, for every visitor message (text or files). A sliding minute, recorded atomically in Redis
 * when configured (so every node shares it): no 60 seconds ever hold more than FLOOD_LIMIT accepted
 * messages, wherever they fall. While the configured Redis is away the post is refused rather than counted
 * per node, which would let a visitor send the limit once per node.
 */
export async function admitVisitorMessage(deps: Deps, conversation: Pick<RememberedConversation, 'id'>): Promise<void> {
  const admission = await deps.counters.admitWithin(`chat-flood:${conversation.id}`, FLOOD_WINDOW_MS, FLOOD_LIMIT);
  if (!admission) throw fail('flood_guard_unavailable', undefined, { retryAfterSeconds: FLOOD_GUARD_RETRY_AFTER_SECONDS });
  if (!admission.admitted) {
    throw fail('flood_limited', `More than ${FLOOD_LIMIT} messages per minute in this conversation; wait a moment.`, {
      retryAfterSeconds: Math.max(1, Math.ceil(admission.retryInMs / 1000)),
    });
  }
}

/** Refuses a post to a conversation the team closed (`conversation_closed`). */
export function assertOpen(conversation: Pick<RememberedConversation, 'status'>): void {
  if (conversation.status !== 'OPEN') throw closedError();
}

/**
 * A message carrying files already stored (`attachments.service.ts`), with `id` chosen beforehand (their
 * URLs name it). The visitor's passed the flood guard there; it reaches the same listeners as a text.
 */
export async function appendFilesMessage(
  deps: Deps,
  conversation: RememberedConversation,
  draft: { id: string; sender: Sender; attachments: ChatAttachment[]; authorUserId: string | null },
): Promise<ChatMessage> {
  const authorName = draft.authorUserId ? await agentDisplayName(deps, draft.authorUserId) : undefined;
  const message = await appendMessage(deps, conversation, { ...draft, body: '', authorName });
  await publishVisitorMessage(deps, conversation, message);
  await publishMessageStored(deps, conversation, message);
  return message;
}

export async function postVisitorMessage(deps: Deps, token: string, input: VisitorMessageBody): Promise<ChatMessage> {
  const conversation = await rememberedByToken(deps, token);
  if (conversation.status !== 'OPEN') throw closedError();
  const body = checkedBody(input.body);
  await admitVisitorMessage(deps, conversation);
  // visitorName / visitorEmail only fill values not known yet (verified identity or an earlier message):
  // written with the summary, after the push.
  const message = await appendMessage(deps, conversation, { sender: 'VISITOR', body, authorUserId: null }, { visitorName: input.visitorName, visitorEmail: input.visitorEmail });
  await publishVisitorMessage(deps, conversation, message);
  await publishMessageStored(deps, conversation, message);
  return message;
}

/**
 * The visitor's poll: newer messages oldest first; fetching marks the team's messages read. With
 * `include=agentName`, AGENT messages name their author, as their live push does.
 */
export async function visitorMessages(deps: Deps, token: string, after: string | undefined, include: readonly string[] = []) {
  return (await readMessages(deps, await rememberedByToken(deps, token), after, 'AGENT', include.includes('agentName'))).reply;
}

// ---------------------------------------------------------------------------------------------
// The team's side
// ---------------------------------------------------------------------------------------------

/** The team's read: newer messages oldest first; fetching marks the visitor's messages read. */
export async function agentMessages(deps: Deps, workspaceId: string, conversationId: string, after: string | undefined) {
  const conversation = await rememberedOf(deps, workspaceId, conversationId);
  const { reply, stored } = await readMessages(deps, conversation, after, 'VISITOR');
  await teamReadFetched(deps, conversation, stored);
  return reply;
}

/** An AGENT reply: stored, then pushed at once to the visitor's sockets and the agent consoles. */
export async function postAgentMessage(deps: Deps, workspaceId: string, conversationId: string, userId: string, rawBody: string): Promise<ChatMessage> {
  const [conversation, authorName] = await Promise.all([rememberedOf(deps, workspaceId, conversationId), agentDisplayName(deps, userId)]);
  if (conversation.status !== 'OPEN') throw closedError();
  const message = await appendMessage(deps, conversation, { sender: 'AGENT', body: checkedBody(rawBody), authorUserId: userId, authorName });
  await publishMessageStored(deps, conversation, message);
  return message;
}
