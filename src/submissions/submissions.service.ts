import type { Deps } from '../deps.js';
import { pageOf } from '../shared/paging.js';
import { type Workspace } from '../workspaces/workspaces.service.js';
import { submissionStore, type NewSubmission, type Submission } from './submissions.model.js';

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

export async function inbox(deps: Deps, workspace: Workspace, query: { page?: number; limit?: number }) {
  const page = query.page ?? 1;
  const limit = Math.min(query.limit ?? 50, INBOX_MAX_PAGE_SIZE);
  const { items, total } = await submissionStore(deps.db).list(workspace.id, { page, limit });
  return pageOf({ page, limit }, items.map(toSubmissionBody), total);
}

export function toSubmissionBody(submission: Submission) {
  return { ...submission, createdAt: submission.createdAt.toISOString() };
}
