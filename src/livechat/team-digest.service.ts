import type { Deps } from '../deps.js';
import { sha256Hex } from '../shared/crypto.js';
import { teamAppLink } from '../shared/links.js';
import type { ChatMessage } from '../realtime/events.js';
import { queueEmail } from '../email/email.service.js';
import { chatTeamDigestMail, type DigestConversation } from '../email/chat.templates.js';
import { memberEmails } from '../workspaces/members.service.js';
import { findWorkspace } from '../workspaces/workspaces.service.js';
import { conversationStore } from './conversations.model.js';
import { messageStore, messageText } from './messages.model.js';
import { teamDigestStore } from './team-digest.model.js';
import { agentsOnline } from './presence.js';

/**
 * The team's away digest. While no member of a workspace is online, its first visitor message schedules the
 * workspace's one digest job (`TEAM_DIGEST_JOB`, one per workspace, kept between runs); after
 * CHAT_TEAM_DIGEST_DELAY_SECONDS of gathering it mails every member ONE mail listing the conversations with
 * visitor messages the team has not read since the last digest, at most one digest per workspace per
 * CHAT_EMAIL_INTERVAL_MINUTES. One visitor opening ten conversations makes one mail per member, not ten.
 *
 * What members expect, and so what the digest leaves out:
 * - messages the team has read by the time it is sent (someone answered from the console): they need no mail;
 * - everything, when a member is online at sending time: that member sees the conversations, unread counts
 *   and all, in the console, and a mail to everyone else about work being done would be noise. The digest's
 *   mark still moves past those messages, so a later digest does not bring them up again;
 * - any message already listed by an earlier digest: it is news once. A conversation the visitor writes in
 *   again is listed again, with the newer message.
 */
export const TEAM_DIGEST_JOB = 'livechat.team-digest';
export interface TeamDigestJobData {
  workspaceId: string;
}

/** Conversations listed in one digest; the rest are counted and left to the console. */
const LISTED_CONVERSATIONS = 20;
/** Newest unread visitor messages one digest reads (one visitor's flood must not make it read them all). */
const MESSAGES_READ = 500;
/** How far before the message that asks for a workspace's first digest that digest looks. */
const FIRST_DIGEST_MARGIN_MS = 60_000;

const intervalMs = (deps: Deps) => deps.config.CHAT_EMAIL_INTERVAL_MINUTES * 60_000;
const delayMs = (deps: Deps) => deps.config.CHAT_TEAM_DIGEST_DELAY_SECONDS * 1000;

/** When the next digest of a workspace may go: after the gathering delay, and not inside the interval of the last one. */
function dueAfter(deps: Deps, sentAt: Date | null): Date {
  return new Date(Math.max(deps.clock.now().getTime() + delayMs(deps), (sentAt?.getTime() ?? 0) + intervalMs(deps)));
}

/**
 * After a visitor message: while nobody of the team is online, the workspace's digest is due (made or left
 * as it is). Cheapest first: presence, then one counter per gathering delay, so the messages of a burst after
 * the first cost the workspace no engine command here.
 */
export async function scheduleTeamDigest(deps: Deps, workspaceId: string, message: ChatMessage): Promise<void> {
  if (await agentsOnline(deps, workspaceId)) return;
  const { count } = await deps.counters.hit(`chat-team-digest:${workspaceId}`, Math.max(1_000, delayMs(deps)));
  if (count !== 1) return;
  // The first digest of a workspace starts about when the message that asked for it was written, not with
  // every message its team ever left unread; later ones start where the last one ended (unread messages
  // written meanwhile, while a member was online, are still waiting, and are listed). The margin: messages
  // sent at once reach this point in any order, so the one that asks is not always the oldest.
  const state = await teamDigestStore(deps.db).open(workspaceId, new Date(message.createdAt).getTime() - FIRST_DIGEST_MARGIN_MS);
  await deps.jobs.enqueueNoLaterThan(TEAM_DIGEST_JOB, { workspaceId }, 'workspaceId', dueAfter(deps, state.sentAt));
}

/**
 * Once a digest run has ended (and Agenda has stored its end): messages that arrived while it ran, or that
 * it left for the next interval, get their digest. A message arriving after this finds the job idle and
 * schedules it itself, so none waits for a later visitor to be mentioned.
 */
export async function followUpTeamDigest(deps: Deps, workspaceId: string): Promise<void> {
  const state = await teamDigestStore(deps.db).get(workspaceId);
  if (!state) return;
  const [pending] = await messageStore(deps.db).unreadFromVisitors(workspaceId, state.sinceMs, 1);
  if (pending) await deps.jobs.enqueueNoLaterThan(TEAM_DIGEST_JOB, { workspaceId }, 'workspaceId', dueAfter(deps, state.sentAt));
}

/**
 * The digest job. Answers when it must run again (a run inside the interval of the last digest waits for
 * its end), or null. Two runs at once (the queue's lock is a conditional update FerretDB lets two callers
 * win) read the same mark and make the same mails: their ids come from the mark, so each member gets one.
 */
export async function sendTeamDigest(deps: Deps, data: TeamDigestJobData): Promise<Date | null> {
  const { workspaceId } = data;
  const store = teamDigestStore(deps.db);
  const state = await store.get(workspaceId);
  if (!state) return null;
  const notBefore = (state.sentAt?.getTime() ?? 0) + intervalMs(deps);
  if (deps.clock.now().getTime() < notBefore) return new Date(notBefore);
  const unread = await messageStore(deps.db).unreadFromVisitors(workspaceId, state.sinceMs, MESSAGES_READ);
  if (unread.length === 0) return null;
  const upToMs = new Date(unread[0].createdAt).getTime();
  if (await agentsOnline(deps, workspaceId)) {
    await store.record(workspaceId, { sinceMs: upToMs, sentAt: state.sentAt });
    return null;
  }
  const workspace = await findWorkspace(deps, workspaceId);
  if (!workspace) return null;
  // Newest first: a conversation's first message here is its newest; the list starts with the latest news.
  const byConversation = new Map<string, { newest: string; count: number }>();
  for (const message of unread) {
    const seen = byConversation.get(message.conversationId);
    if (seen) seen.count += 1;
    else byConversation.set(message.conversationId, { newest: messageText(message), count: 1 });
  }
  const listed = [...byConversation.entries()].slice(0, LISTED_CONVERSATIONS);
  const conversations = await Promise.all(
    listed.map(async ([conversationId, news]): Promise<DigestConversation> => {
      const conversation = await conversationStore(deps.db).byId(workspaceId, conversationId);
      return {
        visitorName: conversation?.visitorName ?? null,
        visitorEmail: conversation?.visitorEmail ?? null,
        newMessages: news.count,
        newest: news.newest,
        link: teamAppLink(deps.config, `chats/${conversationId}`),
      };
    }),
  );
  const mail = chatTeamDigestMail({
    workspaceName: workspace.name,
    locale: workspace.defaultLocale,
    conversations,
    more: byConversation.size - listed.length,
    consoleUrl: teamAppLink(deps.config, 'chats'),
  });
  // The whole team: every role works chats.
  for (const to of new Set(await memberEmails(deps, workspaceId))) {
    const onceId = sha256Hex(`team-digest:${workspaceId}:${state.sinceMs}:${to}`).slice(0, 24);
    await queueEmail(deps, workspaceId, { to, ...mail }, { cause: 'visitor', onceId });
  }
  await store.record(workspaceId, { sinceMs: upToMs, sentAt: deps.clock.now() });
  return null;
}
