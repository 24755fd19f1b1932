import type { Deps } from '../deps.js';
import { pageOf, type PageRequest } from '../shared/paging.js';
import { fail } from '../shared/errors.js';
import { matchedBy, type PersonKeys } from '../shared/person-keys.js';
import { teamAppLink } from '../shared/links.js';
import type { User } from '../auth/auth.service.js';
import { findWorkspace, type Workspace } from '../workspaces/workspaces.service.js';
import { memberEmails } from '../workspaces/members.service.js';
import { queueEmail } from '../email/email.service.js';
import { submissionReplyMail, submissionTeamMail, type SubmissionMailData } from '../email/submission.templates.js';
import {
  submissionReplyStore,
  submissionStore,
  type NewSubmission,
  type Submission,
  type SubmissionFilter,
  type SubmissionReply,
} from './submissions.model.js';
import { submissionSettingsStore, type SubmissionSettings } from './settings.model.js';

export const INBOX_MAX_PAGE_SIZE = 100;

export async function submit(deps: Deps, workspace: Workspace, input: Omit<NewSubmission, 'createdAt'>): Promise<Submission> {
  const submission = await submissionStore(deps.db).create(workspace.id, { ...input, createdAt: deps.clock.now() });
  const { id: submissionId, name, email, subject, message, phone, source } = submission;
  await deps.events.publish({
    event: 'submission.created',
    workspaceId: workspace.id,
    at: submission.createdAt.toISOString(),
    data: { submissionId, name, email, subject, message, phone, source, createdAt: submission.createdAt.toISOString() },
  });
  return submission;
}

export async function inbox(deps: Deps, workspace: Workspace, query: SubmissionFilter & Partial<PageRequest>) {
  const page = query.page ?? 1;
  const limit = Math.min(query.limit ?? 50, INBOX_MAX_PAGE_SIZE);
  const { items, total } = await submissionStore(deps.db).list(workspace.id, { state: query.state, q: query.q }, { page, limit, withTotal: query.withTotal });
  return pageOf({ page, limit }, items.map(toSubmissionBody), total);
}

/**
 * A person's submissions (the person timeline), newest first, at most `limit`: as the inbox answers them,
 * each with the keys that linked it. A submission carries only an e-mail: without one asked for, none.
 */
export async function submissionsOfPerson(deps: Deps, workspaceId: string, keys: PersonKeys, limit: number) {
  if (keys.email === undefined) return [];
  const items = await submissionStore(deps.db).ofEmail(workspaceId, keys.email, limit);
  return items.map((item) => ({ ...toSubmissionBody(item), matchedBy: matchedBy(keys, { externalId: null, email: item.email, visitorSessionId: null }) }));
}

async function existing(deps: Deps, workspace: Workspace, id: string): Promise<Submission> {
  const submission = await submissionStore(deps.db).byId(workspace.id, id);
  if (!submission) throw fail('submission_not_found');
  return submission;
}

/** One submission with the answers the team mailed to its sender, oldest first. */
export async function submissionWithReplies(deps: Deps, workspace: Workspace, id: string) {
  const submission = await existing(deps, workspace, id);
  const replies = await submissionReplyStore(deps.db).of(workspace.id, id);
  return { ...toSubmissionBody(submission), replies: replies.map(toReplyBody) };
}

/** Marks a submission handled by `user` (or open again); answers it as stored. */
export async function markHandled(deps: Deps, workspace: Workspace, id: string, user: User, handled: boolean) {
  const by = handled ? { userId: user.id, name: user.name } : null;
  const saved = await submissionStore(deps.db).setHandled(workspace.id, id, by, deps.clock.now());
  if (!saved) throw fail('submission_not_found');
  return toSubmissionBody(saved);
}

/**
 * A member answers the sender by e-mail: the answer is stored with the submission, mailed (through the
 * outbox, so SMTP trouble is retried) and the submission counts as handled.
 */
export async function replyToSubmission(deps: Deps, workspace: Workspace, id: string, user: User, body: string) {
  const submission = await existing(deps, workspace, id);
  const author = { userId: user.id, name: user.name };
  const reply = await submissionReplyStore(deps.db).create(workspace.id, { submissionId: id, body, author, to: submission.email, createdAt: deps.clock.now() });
  await queueEmail(deps, workspace.id, { to: submission.email, ...submissionReplyMail({ ...mailData(workspace, submission), reply: body }) }, { cause: 'team' });
  if (!submission.handledAt) await submissionStore(deps.db).setHandled(workspace.id, id, author, reply.createdAt);
  return toReplyBody(reply);
}

export function submissionSettings(deps: Deps, workspace: Workspace): Promise<SubmissionSettings> {
  return submissionSettingsStore(deps.db).get(workspace.id);
}

export function saveSubmissionSettings(deps: Deps, workspace: Workspace, input: SubmissionSettings): Promise<SubmissionSettings> {
  return submissionSettingsStore(deps.db).put(workspace.id, input, deps.clock.now());
}

/**
 * The team hears of a new submission by mail (unless the workspace turned it off), with a link to it in the
 * app. A mail never decides the answer: trouble is logged, the submission stays stored.
 */
export async function notifyTeamOfSubmission(deps: Deps, workspaceId: string, submissionId: string): Promise<void> {
  try {
    await mailTeam(deps, workspaceId, submissionId);
  } catch (error) {
    deps.logger.error({ err: error, workspaceId, submissionId }, 'new-submission mail could not be queued');
  }
}

async function mailTeam(deps: Deps, workspaceId: string, submissionId: string): Promise<void> {
  const settings = await submissionSettingsStore(deps.db).get(workspaceId);
  if (!settings.notifyTeam) return;
  const [workspace, submission] = await Promise.all([findWorkspace(deps, workspaceId), submissionStore(deps.db).byId(workspaceId, submissionId)]);
  if (!workspace || !submission) return;
  const recipients = settings.notificationEmail ? [settings.notificationEmail] : await memberEmails(deps, workspace.id, 'owner');
  const appUrl = teamAppLink(deps.config, `submissions/${submissionId}`);
  const mail = submissionTeamMail({ ...mailData(workspace, submission), locale: workspace.defaultLocale, appUrl });
  // The sender of the form is anyone with the page: counted against the workspace's ceiling.
  for (const to of recipients) await queueEmail(deps, workspace.id, { to, ...mail }, { cause: 'visitor' });
}

function mailData(workspace: Workspace, submission: Submission): SubmissionMailData {
  const { name, email, phone, subject, source, message } = submission;
  return { workspaceName: workspace.name, locale: workspace.defaultLocale, name, email, phone, subject, source, message };
}

export function toSubmissionBody(submission: Submission) {
  return { ...submission, createdAt: submission.createdAt.toISOString(), handledAt: submission.handledAt?.toISOString() ?? null };
}

const toReplyBody = (reply: SubmissionReply) => ({ ...reply, createdAt: reply.createdAt.toISOString() });
