import type { Deps } from '../deps.js';
import { sha256Hex } from '../shared/crypto.js';
import type { ChatMessage } from '../realtime/events.js';
import { queueEmail } from '../email/email.service.js';
import { chatReplyMail } from '../email/chat.templates.js';
import { findWorkspace } from '../workspaces/workspaces.service.js';
import { conversationStore } from './conversations.model.js';
import { messageStore, messageText } from './messages.model.js';
import type { Conversation } from './conversations.service.js';
import { visitorConnected } from './presence.js';
import { withAgentNames } from './read.service.js';
import { scheduleTeamDigest } from './team-digest.service.js';

/**
 * E-mail continuity while the other side is away, through the outbox:
 * - a visitor writes while no team member is online: the workspace's away digest is due, one mail per
 *   member listing every conversation with new messages, at most one per workspace per interval
 *   (`team-digest.service.ts`);
 * - the team replies to a visitor who left an e-mail and holds no widget socket: the replies they have not
 *   read are mailed in one batch (`REPLY_MAIL_JOB`, one pending job per conversation), at most one mail
 *   per conversation per interval, with a link back to the page the chat started on.
 */
export const REPLY_MAIL_JOB = 'livechat.reply-mail';
export interface ReplyMailJobData {
  workspaceId: string;
  conversationId: string;
}

/** Replies in one mail at most; later ones go in the next. */
const REPLIES_PER_MAIL = 50;

const intervalMs = (deps: Deps) => deps.config.CHAT_EMAIL_INTERVAL_MINUTES * 60_000;
/** What the follow-up rules need of a conversation (a remembered one will do); the rest is read fresh. */
type ConversationRef = Pick<Conversation, 'id' | 'workspaceId'>;
/** Only a web page is linked in a mail (the URL came from the visitor's browser). */
const pageLink = (url: string | null) => (url && /^https?:\/\//i.test(url) ? url : null);

/**
 * After a message and its conversation summary are stored (the `chat.message.stored` listener, after the
 * answer): the away digest or the reply mail it makes due. Never rejects: trouble is logged.
 */
export async function followUpMessage(deps: Deps, conversation: ConversationRef, message: ChatMessage): Promise<void> {
  try {
    await (message.sender === 'VISITOR' ? scheduleTeamDigest(deps, conversation.workspaceId, message) : scheduleReplyMail(deps, conversation));
  } catch (error) {
    deps.logger.error({ err: error, workspaceId: conversation.workspaceId, conversationId: conversation.id }, 'live chat: away e-mail not queued');
  }
}

async function scheduleReplyMail(deps: Deps, conversation: ConversationRef): Promise<void> {
  // Presence first: while the visitor is connected (the usual case) a reply costs no engine read here.
  if (await visitorConnected(deps, conversation.id)) return;
  const fresh = await conversationStore(deps.db).byId(conversation.workspaceId, conversation.id);
  if (!fresh?.visitorEmail) return;
  const now = deps.clock.now().getTime();
  const due = Math.max(now + deps.config.CHAT_REPLY_MAIL_DELAY_SECONDS * 1000, (fresh.visitorMailedAt?.getTime() ?? 0) + intervalMs(deps));
  // insertOnly: a pending mail keeps its time, so a stream of replies cannot postpone it forever.
  const data: ReplyMailJobData = { workspaceId: fresh.workspaceId, conversationId: fresh.id };
  await deps.jobs.enqueueUnique(REPLY_MAIL_JOB, { ...data }, 'conversationId', { at: new Date(due), insertOnly: true });
}

/**
 * The reply mail job: the AGENT messages the visitor has neither read nor been mailed, in one mail. Nothing
 * when the visitor is back online (they read them live) or the conversation or address is gone.
 */
export async function sendReplyMail(deps: Deps, data: ReplyMailJobData): Promise<void> {
  const store = conversationStore(deps.db);
  const conversation = await store.byId(data.workspaceId, data.conversationId);
  if (!conversation?.visitorEmail || (await visitorConnected(deps, conversation.id))) return;
  const replies = await messageStore(deps.db).unreadOf(conversation.workspaceId, conversation.id, 'AGENT', conversation.visitorMailedUpToMs, REPLIES_PER_MAIL);
  if (replies.length === 0) return;
  const workspace = await findWorkspace(deps, conversation.workspaceId);
  if (!workspace) return;
  const named = (await withAgentNames(deps, replies)).map((reply) => ({ body: messageText(reply), agentName: reply.agentName ?? null }));
  const mail = chatReplyMail({
    workspaceName: workspace.name,
    locale: conversation.locale,
    visitorName: conversation.visitorName,
    replies: named,
    pageUrl: pageLink(conversation.pageUrl),
  });
  // Two runs of this job for one conversation (two replies enqueued it at once) read the same mark and make
  // this same mail: its id comes from the mark, so the outbox keeps one. (A conditional update cannot decide
  // the race on FerretDB, whose updates are a read and a write that two callers can interleave.)
  const onceId = sha256Hex(`reply-mail:${conversation.id}:${conversation.visitorMailedUpToMs}`).slice(0, 24);
  await queueEmail(deps, conversation.workspaceId, { to: conversation.visitorEmail, ...mail }, { cause: 'team', onceId });
  await store.recordVisitorMail(conversation.workspaceId, conversation.id, new Date(replies.at(-1)!.createdAt).getTime(), deps.clock.now());
}
