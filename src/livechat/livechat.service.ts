import { isDuplicateKeyError } from '../db/mongo.js';
import { type Workspace } from '../workspaces/workspaces.service.js';
import sanitizeHtml from 'sanitize-html';
import type { Deps } from '../deps.js';
import { randomToken, sha256Hex } from '../shared/crypto.js';
import { fail, invalid } from '../shared/errors.js';
import { ensureKey, revealKey, rotateKey } from '../credentials/credentials.service.js';
import { hasExplicitIdentitySecret, setExplicitIdentitySecret, verifyIdentityToken } from '../identity/identity.service.js';
import { visitorIdentitySchema } from '../identity/identity.schemas.js';
import type { ChatMessage } from '../realtime/events.js';
import {
  conversationStore,
  liveChatSettingsStore,
  newConversationId,
  messageStore,
  type Conversation,
  type LiveChatSettings,
  type NewConversation,
  type Sender,
} from './livechat.model.js';
import type { PutSettingsBody, StartConversationBody, VisitorMessageBody } from './livechat.schemas.js';
import { agentsOnline, push } from './livechat.socket.js';

/** Path of the widget bundle (served by the widget module). */
export const WIDGET_SCRIPT_PATH = '/widget/widget.js';
/** Flood guard: more than this many visitor messages per conversation per minute answer 409. */
export const FLOOD_LIMIT = 20;
const FLOOD_WINDOW_MS = 60_000;
/** Largest page of a messages poll; a client continues with `after` = the last `createdAt`. */
export const MESSAGES_PAGE = 500;
/** How long an append keeps retrying while other writers of the same conversation win the race. */
const APPEND_PATIENCE_MS = 5_000;

// ---------------------------------------------------------------------------------------------
// Settings
// ---------------------------------------------------------------------------------------------

export async function settingsView(deps: Deps, workspaceId: string, settings: LiveChatSettings | null) {
  const identitySecretConfigured = await hasExplicitIdentitySecret(deps, workspaceId);
  return {
    settings: {
      enabled: settings?.enabled ?? false,
      greeting: settings?.greeting ?? '',
      greetings: settings?.greetings ?? {},
      offlineMessage: settings?.offlineMessage ?? null,
      offlineMessages: settings?.offlineMessages ?? {},
      theme: settings?.theme ?? null,
      forceOnline: settings?.forceOnline ?? null,
      identitySecretConfigured,
      activatedAt: settings?.activatedAt?.toISOString() ?? null,
      updatedAt: (settings?.updatedAt ?? deps.clock.now()).toISOString(),
    },
    publishableKey: await revealKey(deps, workspaceId, 'publishable'),
  };
}

export async function getSettings(deps: Deps, workspaceId: string) {
  return settingsView(deps, workspaceId, await liveChatSettingsStore(deps.db).get(workspaceId));
}

/** Replaces the settings; the first save with `enabled: true` mints the publishable key, later saves keep it. */
export async function putSettings(deps: Deps, workspaceId: string, body: PutSettingsBody) {
  const settings = await liveChatSettingsStore(deps.db).put(
    workspaceId,
    {
      enabled: body.enabled,
      greeting: body.greeting,
      greetings: body.greetings ?? {},
      offlineMessage: body.offlineMessage ?? null,
      offlineMessages: body.offlineMessages ?? {},
      theme: body.theme ?? null,
      forceOnline: body.forceOnline ?? null,
    },
    deps.clock.now(),
  );
  if (body.identitySecret !== undefined) await setExplicitIdentitySecret(deps, workspaceId, body.identitySecret);
  if (body.enabled) await ensureKey(deps, workspaceId, 'publishable');
  return settingsView(deps, workspaceId, settings);
}

export async function rotatePublishableKey(deps: Deps, workspaceId: string): Promise<string> {
  return rotateKey(deps, workspaceId, 'publishable');
}

// ---------------------------------------------------------------------------------------------
// Widget config and bootstrap
// ---------------------------------------------------------------------------------------------

/** Exact tag (case-insensitive), then its primary subtag, then the default text. Never fails. */
export function localized<T extends string | null>(map: Record<string, string>, fallback: T, locale: string | undefined | null): string | T {
  if (!locale) return fallback;
  const entries = new Map(Object.entries(map).map(([tag, value]) => [tag.toLowerCase(), value]));
  const tag = locale.trim().toLowerCase();
  return entries.get(tag) ?? entries.get(tag.split(/[-_]/)[0]) ?? fallback;
}

async function activeSettings(deps: Deps, workspaceId: string): Promise<LiveChatSettings | null> {
  const settings = await liveChatSettingsStore(deps.db).get(workspaceId);
  return settings?.enabled ? settings : null;
}

export async function widgetConfig(deps: Deps, workspace: Workspace | null, locale: string | undefined) {
  const settings = workspace ? await activeSettings(deps, workspace.id) : null;
  if (!workspace || !settings) return { enabled: false as const };
  const online = settings.forceOnline ?? (await agentsOnline(deps, workspace.id));
  return {
    enabled: true as const,
    greeting: localized(settings.greetings, settings.greeting, locale),
    offlineMessage: localized(settings.offlineMessages, settings.offlineMessage, locale),
    theme: settings.theme,
    online,
  };
}

export async function bootstrap(deps: Deps, workspace: Workspace, locale: string | undefined) {
  const settings = await activeSettings(deps, workspace.id);
  const publishableKey = settings ? await revealKey(deps, workspace.id, 'publishable') : null;
  if (!settings || !publishableKey) return { enabled: false as const };
  return {
    enabled: true as const,
    publishableKey,
    greeting: localized(settings.greetings, settings.greeting, locale),
    offlineMessage: localized(settings.offlineMessages, settings.offlineMessage, locale),
    theme: settings.theme,
    scriptPath: WIDGET_SCRIPT_PATH,
  };
}

// ---------------------------------------------------------------------------------------------
// Conversations
// ---------------------------------------------------------------------------------------------

/** `ct_<conversation id>_<43 random URL-safe chars>`: the id makes the lookup a primary-key read. */
export const conversationToken = (conversationId: string) => randomToken(`ct_${conversationId}_`);

type VerifiedIdentity = NonNullable<NewConversation['identity']>;

/** A verified identity, or null (anonymous). A failed verification is logged with the workspace id. */
async function verifiedIdentity(deps: Deps, workspaceId: string, visitor: unknown): Promise<VerifiedIdentity | null> {
  if (visitor === undefined || visitor === null) return null;
  const parsed = visitorIdentitySchema.safeParse(visitor);
  let reason: string | null = null;
  if (!parsed.success) reason = 'malformed identity payload';
  else if (!parsed.data.identityToken) reason = 'identity token missing';
  else if (!(await verifyIdentityToken(deps, workspaceId, parsed.data.externalId, parsed.data.identityToken))) reason = 'identity signature invalid';
  if (reason || !parsed.success) {
    deps.logger.warn({ workspaceId, reason }, 'live chat: visitor identity not verified; conversation starts anonymously');
    return null;
  }
  const { externalId, name, email, attributes } = parsed.data;
  return { externalId, name: name ?? null, email: email ?? null, attributes: attributes ?? null };
}

export type StartResult =
  | { status: 200; body: { enabled: false } }
  | { status: 200 | 201; body: { enabled: true; conversationId: string; conversationToken: string; greeting: string; resumed: boolean } };

/**
 * Starts or resumes a conversation. A token resumes its conversation only when it is OPEN, of this
 * workspace, and (with a verified identity) not another person's; otherwise the token is ignored and a
 * new conversation is made. Without a token, a verified identity resumes that person's newest OPEN one.
 */
export async function startConversation(deps: Deps, workspace: Workspace, body: StartConversationBody): Promise<StartResult> {
  const settings = await activeSettings(deps, workspace.id);
  if (!settings) return { status: 200, body: { enabled: false } };
  const store = conversationStore(deps.db);
  const identity = await verifiedIdentity(deps, workspace.id, body.visitor);
  const greeting = localized(settings.greetings, settings.greeting, body.locale);
  const answer = (conversation: Conversation, token: string, resumed: boolean): StartResult => ({
    status: resumed ? 200 : 201,
    body: { enabled: true, conversationId: conversation.id, conversationToken: token, greeting, resumed },
  });

  if (body.conversationToken) {
    const found = await store.byToken(body.conversationToken, sha256Hex(body.conversationToken));
    const usable =
      found &&
      found.workspaceId === workspace.id &&
      found.status === 'OPEN' &&
      (!identity || !found.identityVerified || found.externalId === identity.externalId);
    if (usable) {
      if (identity && !found.identityVerified) await store.attachIdentity(workspace.id, found.id, identity);
      return answer(found, body.conversationToken, true);
    }
  } else if (identity) {
    const newest = await store.newestOpenOf(workspace.id, identity.externalId);
    // The token is kept sealed besides its lookup hash, so another device of the person gets the same one.
    if (newest) return answer(newest, deps.secretBox.open(newest.sealedToken), true);
  }

  const id = newConversationId();
  const token = conversationToken(id);
  const conversation = await store.create(
    workspace.id,
    {
      id,
      tokenHash: sha256Hex(token),
      sealedToken: deps.secretBox.seal(token),
      visitorSessionId: body.visitorSessionId,
      pageUrl: body.pageUrl ?? null,
      referrer: body.referrer ?? null,
      locale: body.locale ?? null,
      identity,
    },
    deps.clock.now(),
  );
  push.created(deps, workspace.id, conversation.id);
  return answer(conversation, token, false);
}

// ---------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&amp;': '&', '&quot;': '"' };

/**
 * Message bodies are plain text: markup is removed (tags dropped, script and style content dropped, the
 * text kept), so no body ever carries HTML. Repeated until stable so that escaped markup cannot survive.
 */
export function plainText(input: string): string {
  let text = input;
  for (let round = 0; round < 3; round += 1) {
    const next = sanitizeHtml(text, { allowedTags: [], allowedAttributes: {} }).replace(/&(lt|gt|amp|quot);/g, (entity) => ENTITIES[entity]);
    if (next === text) break;
    text = next;
  }
  return text;
}

function cleanBody(raw: string): string {
  const body = plainText(raw);
  if (!body.trim()) throw invalid([{ path: 'body', message: 'must contain text' }]);
  return body;
}

async function conversationByToken(deps: Deps, token: string): Promise<Conversation> {
  const conversation = await conversationStore(deps.db).byToken(token, sha256Hex(token));
  if (!conversation) throw fail('conversation_not_found', 'No conversation has this token.');
  return conversation;
}

const closedError = () => fail('conversation_closed');

/**
 * Appends of one conversation queue up inside this process, so only writers on different nodes ever race
 * for the same seq (and retry); without it a burst on one node would retry quadratically.
 */
const appendQueues = new Map<string, Promise<unknown>>();

function queued<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = appendQueues.get(key) ?? Promise.resolve();
  const next = previous.then(work, work);
  const settled = next.catch(() => undefined);
  appendQueues.set(key, settled);
  void settled.then(() => {
    if (appendQueues.get(key) === settled) appendQueues.delete(key);
  });
  return next;
}

/**
 * Appends a message right after the conversation's newest one: seq = newest + 1 and createdAt = the later
 * of now and the newest createdAt + 1 ms. Both are unique per conversation, so when two writers race the
 * loser's insert is rejected and it retries after the winner's message. Hence a message is only ever
 * written once its predecessor is stored: createdAt is strictly increasing, commit order equals createdAt
 * order, and a poll with `after` can neither skip a message nor see one twice.
 */
async function appendMessage(
  deps: Deps,
  conversation: Conversation,
  input: { sender: Sender; body: string; authorUserId: string | null },
): Promise<ChatMessage> {
  const { workspaceId, id } = conversation;
  const message = await queued(id, () => insertNext(deps, conversation, input));
  push.message(deps, workspaceId, id, message);
  // The message is stored: failing the request now would make the client send it twice. The inbox
  // summary (lastMessage, activity order) is best effort and logged when it cannot be written.
  await conversationStore(deps.db)
    .recordMessage(workspaceId, id, message)
    .catch((error: unknown) => deps.logger.error({ err: error, workspaceId, conversationId: id }, 'live chat: conversation summary not updated'));
  return message;
}

async function insertNext(deps: Deps, conversation: Conversation, input: { sender: Sender; body: string; authorUserId: string | null }): Promise<ChatMessage> {
  const messages = messageStore(deps.db);
  const { workspaceId, id } = conversation;
  const deadline = Date.now() + APPEND_PATIENCE_MS;
  let message: ChatMessage | undefined;
  for (let attempt = 0; !message; attempt += 1) {
    const newest = await messages.newest(workspaceId, id);
    const createdAt = new Date(Math.max(deps.clock.now().getTime(), newest.createdAtMs + 1));
    try {
      message = await messages.insert(workspaceId, id, { ...input, seq: newest.seq + 1, createdAt });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      if (Date.now() > deadline) throw fail('conversation_busy', undefined, { retryAfterSeconds: 1 });
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(1 + attempt, 10)));
    }
  }
  return message;
}

export async function postVisitorMessage(deps: Deps, token: string, input: VisitorMessageBody): Promise<ChatMessage> {
  const conversation = await conversationByToken(deps, token);
  if (conversation.status !== 'OPEN') throw closedError();
  const body = cleanBody(input.body);
  // Counted atomically (Redis INCR when configured, so every node shares the count); attempts over the
  // limit count too, so a client hammering the endpoint stays limited until the window ends.
  const { count } = await deps.counters.hit(`chat-flood:${conversation.id}`, FLOOD_WINDOW_MS);
  if (count > FLOOD_LIMIT) throw fail('flood_limited', `More than ${FLOOD_LIMIT} messages per minute in this conversation; wait a moment.`);
  const message = await appendMessage(deps, conversation, { sender: 'VISITOR', body, authorUserId: null });
  // visitorName / visitorEmail only fill values not known yet (verified identity or an earlier message).
  // Like the summary, logged rather than failing a request whose message is already stored.
  const store = conversationStore(deps.db);
  const fills: ['visitorName' | 'visitorEmail', string | undefined, string | null][] = [
    ['visitorName', input.visitorName, conversation.visitorName],
    ['visitorEmail', input.visitorEmail, conversation.visitorEmail],
  ];
  for (const [field, value, known] of fills) {
    if (!value || known) continue;
    await store
      .fillVisitor(conversation.workspaceId, conversation.id, field, value)
      .catch((error: unknown) => deps.logger.error({ err: error, workspaceId: conversation.workspaceId, field }, 'live chat: visitor field not filled'));
  }
  return message;
}

async function readMessages(deps: Deps, conversation: Conversation, after: string | undefined, readSide: Sender) {
  const messages = await messageStore(deps.db).after(conversation.workspaceId, conversation.id, after ? new Date(after) : null, MESSAGES_PAGE);
  const last = messages.at(-1);
  if (last) await messageStore(deps.db).markRead(conversation.workspaceId, conversation.id, readSide, new Date(last.createdAt), deps.clock.now());
  return { status: conversation.status, messages };
}

/** The visitor's poll: newer messages oldest first; fetching marks the team's messages read. */
export async function visitorMessages(deps: Deps, token: string, after: string | undefined) {
  return readMessages(deps, await conversationByToken(deps, token), after, 'AGENT');
}

// ---------------------------------------------------------------------------------------------
// Agent work
// ---------------------------------------------------------------------------------------------

async function conversationOf(deps: Deps, workspaceId: string, conversationId: string): Promise<Conversation> {
  const conversation = await conversationStore(deps.db).byId(workspaceId, conversationId);
  if (!conversation) throw fail('conversation_not_found', 'No such conversation in this workspace.');
  return conversation;
}

function toAdminConversation(conversation: Conversation, unreadCount: number) {
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
  };
}

export async function listConversations(deps: Deps, workspaceId: string, query: { status?: 'OPEN' | 'CLOSED'; page: number; limit: number }) {
  const { items, total } = await conversationStore(deps.db).list(workspaceId, { status: query.status }, { skip: (query.page - 1) * query.limit, limit: query.limit });
  const unread = await messageStore(deps.db).unreadByTeam(workspaceId, items.map((item) => item.id));
  const totalPages = Math.ceil(total / query.limit);
  return {
    items: items.map((item) => toAdminConversation(item, unread.get(item.id) ?? 0)),
    pageInfo: { page: query.page, limit: query.limit, total, totalPages, hasNext: query.page < totalPages, hasPrev: query.page > 1 },
  };
}

export async function getConversation(deps: Deps, workspaceId: string, conversationId: string) {
  const conversation = await conversationOf(deps, workspaceId, conversationId);
  const unread = await messageStore(deps.db).unreadByTeam(workspaceId, [conversation.id]);
  return toAdminConversation(conversation, unread.get(conversation.id) ?? 0);
}

/** The team's read: newer messages oldest first; fetching marks the visitor's messages read. */
export async function agentMessages(deps: Deps, workspaceId: string, conversationId: string, after: string | undefined) {
  return readMessages(deps, await conversationOf(deps, workspaceId, conversationId), after, 'VISITOR');
}

/** An AGENT reply: stored, then pushed at once to the visitor's sockets and the agent consoles. */
export async function postAgentMessage(deps: Deps, workspaceId: string, conversationId: string, userId: string, rawBody: string): Promise<ChatMessage> {
  const conversation = await conversationOf(deps, workspaceId, conversationId);
  if (conversation.status !== 'OPEN') throw closedError();
  return appendMessage(deps, conversation, { sender: 'AGENT', body: cleanBody(rawBody), authorUserId: userId });
}

/** Closes the conversation (idempotent); the status is pushed to the visitor and the consoles. */
export async function closeConversation(deps: Deps, workspaceId: string, conversationId: string) {
  const conversation = await conversationOf(deps, workspaceId, conversationId);
  // Only the request that actually closes it pushes the change.
  const closed = await conversationStore(deps.db).close(workspaceId, conversation.id, deps.clock.now());
  if (closed) push.status(deps, workspaceId, conversation.id, 'CLOSED');
  return getConversation(deps, workspaceId, conversation.id);
}
