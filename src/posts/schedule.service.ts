import type { Deps } from '../deps.js';
import { AppError, fail } from '../shared/errors.js';
import { findWorkspace, type Workspace } from '../workspaces/workspaces.service.js';
import { postStore, type Post } from './posts.model.js';
import { postScheduleStore, type ScheduledAction, type ScheduleEntry } from './post-schedules.model.js';
import { publishPost, unpublishPost } from './publication.service.js';

// Scheduled publishing: a publish or unpublish asked for a future `at` is kept as a schedule entry plus
// one Agenda job due at `at`. The job applies the change through the manual publish/unpublish functions,
// so the content hash rule, the events (webhook, cache invalidation) and the change log are theirs.

export const SCHEDULED_CHANGE_JOB = 'posts.scheduled-change';

export interface ScheduledChangeJobData {
  scheduleId: string;
  workspaceId: string;
}

export type PublicationOutcome = { post: Post } | { scheduled: ScheduleEntry };

async function requirePost(deps: Deps, workspace: Workspace, postId: string): Promise<void> {
  if (!(await postStore(deps.db).byId(workspace.id, postId))) throw fail('post_not_found');
}

function enqueue(deps: Deps, entry: ScheduleEntry, insertOnly = false): Promise<void> {
  const data: ScheduledChangeJobData = { scheduleId: entry.id, workspaceId: entry.workspaceId };
  return deps.jobs.enqueueUnique(SCHEDULED_CHANGE_JOB, { ...data }, 'scheduleId', { at: entry.at, insertOnly });
}

/**
 * `POST .../publish|unpublish` with an optional `at`: without one, or with one not after now, the change
 * happens at once exactly as a manual publish/unpublish; a later `at` stores a schedule entry and its job.
 */
export async function publishOrSchedule(deps: Deps, workspace: Workspace, postId: string, action: ScheduledAction, at?: Date): Promise<PublicationOutcome> {
  const now = deps.clock.now();
  if (!at || at.getTime() <= now.getTime()) {
    return { post: action === 'publish' ? (await publishPost(deps, workspace, postId)).post : await unpublishPost(deps, workspace, postId) };
  }
  await requirePost(deps, workspace, postId);
  const store = postScheduleStore(deps.db);
  const entry = await store.add(workspace.id, postId, action, at, now);
  try {
    await enqueue(deps, entry);
  } catch (error) {
    await store.remove(workspace.id, entry.id);
    throw error;
  }
  return { scheduled: entry };
}

export async function listSchedule(deps: Deps, workspace: Workspace, postId: string): Promise<ScheduleEntry[]> {
  await requirePost(deps, workspace, postId);
  return postScheduleStore(deps.db).ofPost(workspace.id, postId);
}

/** Cancels one pending change of the post (`scheduleId`) or all of them; answers what was cancelled. */
export async function cancelSchedule(deps: Deps, workspace: Workspace, postId: string, scheduleId?: string): Promise<ScheduleEntry[]> {
  await requirePost(deps, workspace, postId);
  const store = postScheduleStore(deps.db);
  const pending = await store.ofPost(workspace.id, postId);
  const targets = scheduleId === undefined ? pending : pending.filter((entry) => entry.id === scheduleId);
  if (scheduleId !== undefined && targets.length === 0) throw fail('schedule_not_found');
  const cancelled: ScheduleEntry[] = [];
  for (const entry of targets) {
    // The entry goes first: a job that starts meanwhile finds nothing to do.
    if (await store.remove(workspace.id, entry.id)) cancelled.push(entry);
    await deps.jobs.agenda.cancel({ name: SCHEDULED_CHANGE_JOB, data: { scheduleId: entry.id } });
  }
  return cancelled;
}

/**
 * The job. A cancelled entry, a deleted workspace or post end it quietly; a change that can no longer
 * apply (its slug was published by another post meanwhile) is logged and dropped. The entry is removed
 * only after the change: a worker killed in between leaves the job to the next worker, whose publish of
 * the same content is the no-op republish (no second event), and whose unpublish of an unpublished post
 * changes nothing.
 */
export async function runScheduledChange(deps: Deps, data: ScheduledChangeJobData): Promise<void> {
  const store = postScheduleStore(deps.db);
  const entry = await store.byId(data.workspaceId, data.scheduleId);
  if (!entry) return;
  const workspace = await findWorkspace(deps, entry.workspaceId);
  if (workspace) {
    try {
      if (entry.action === 'publish') await publishPost(deps, workspace, entry.postId);
      else await unpublishPost(deps, workspace, entry.postId);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      if (error.errorName !== 'post_not_found') {
        deps.logger.warn({ err: error, workspaceId: entry.workspaceId, postId: entry.postId, action: entry.action }, 'scheduled post change not applied');
      }
    }
  }
  await store.remove(entry.workspaceId, entry.id);
}

/** Gives every pending entry its job again (an entry stored by a node that died before enqueueing it). */
export async function recoverSchedules(deps: Deps): Promise<number> {
  const entries = await postScheduleStore(deps.db).all();
  for (const entry of entries) await enqueue(deps, entry, true);
  return entries.length;
}

export function toScheduleEntry(entry: ScheduleEntry) {
  return { id: entry.id, postId: entry.postId, action: entry.action, at: entry.at.toISOString(), createdAt: entry.createdAt.toISOString() };
}
