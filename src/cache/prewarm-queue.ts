import type { CachedAnswer } from './content-cache.js';

/** A kept answer built again without a reader: the answer to keep and what it depends on (`contentTag`). */
export interface Rebuilt {
  answer: CachedAnswer;
  dependsOn?: string[];
}

/**
 * Builds one kept answer again as its reader's request did (the route's handler under its workspace's
 * principal), without a request; undefined when there is nothing to keep (no longer a 200: a withdrawn post).
 */
export type Rebuild = () => Promise<Rebuilt | undefined>;

/** An answer a republish dropped that readers used: how to build it again, what it depended on, how recently it was used. */
export interface DroppedAnswer {
  rebuild: Rebuild;
  dependencies: string[];
  recency: number;
  /** When a reader last had it, at the latest (see `ContentCache.unreadPrewarms`). */
  readBy: number;
}

/**
 * How long a workspace's publishes must pause before its dropped answers are built again: a burst (a bulk
 * import, an editor publishing a series) is built after it, not once per publish, which each next publish
 * would throw away. A workspace that publishes again within `PREWARM_LONGEST_WAIT_MS` of its last build waits
 * twice as long for the next pause, up to that: however long an import runs, its answers are built at most
 * about once per that wait.
 */
export const PREWARM_QUIET_MS = 200;
export const PREWARM_LONGEST_WAIT_MS = 5_000;

/**
 * The answers republishes dropped, gathered per workspace until its publishes pause, then handed to `run`:
 * at most `max` of them, the most recently used first.
 */
export class PrewarmQueue {
  private readonly pending = new Map<string, { answers: Map<string, DroppedAnswer>; timer: NodeJS.Timeout }>();
  /** Each workspace's last build ahead and the pause it waits for now (longer while it keeps publishing). */
  private readonly paces = new Map<string, { flushedAt: number; wait: number }>();

  constructor(
    private readonly options: { max: number; quietMs: number; now: () => number; run: (workspaceId: string, key: string, dropped: DroppedAnswer) => void },
  ) {}

  add(workspaceId: string, key: string, dropped: DroppedAnswer): void {
    if (this.options.max <= 0) return;
    const batch = this.pending.get(workspaceId);
    clearTimeout(batch?.timer);
    const answers = batch?.answers ?? new Map<string, DroppedAnswer>();
    answers.set(key, dropped);
    const timer = setTimeout(() => this.flush(workspaceId), this.paces.get(workspaceId)?.wait ?? this.options.quietMs);
    timer.unref();
    this.pending.set(workspaceId, { answers, timer });
  }

  /** A post was withdrawn: nothing waiting that showed it (`dependency`, its slug or group) is built again. */
  forget(workspaceId: string, dependency: string): void {
    const batch = this.pending.get(workspaceId);
    if (!batch) return;
    for (const [key, { dependencies }] of batch.answers) if (dependencies.includes(dependency)) batch.answers.delete(key);
  }

  /** Everything of the workspace changed (settings): readers build what they need. */
  cancel(workspaceId: string): void {
    clearTimeout(this.pending.get(workspaceId)?.timer);
    this.pending.delete(workspaceId);
  }

  cancelAll(): void {
    for (const workspaceId of [...this.pending.keys()]) this.cancel(workspaceId);
  }

  private flush(workspaceId: string): void {
    const batch = this.pending.get(workspaceId);
    this.pending.delete(workspaceId);
    if (!batch) return;
    this.pace(workspaceId);
    const hottest = [...batch.answers].sort(([, a], [, b]) => b.recency - a.recency).slice(0, this.options.max);
    for (const [key, dropped] of hottest) this.options.run(workspaceId, key, dropped);
  }

  private pace(workspaceId: string): void {
    const now = this.options.now();
    for (const [id, { flushedAt }] of this.paces) if (now - flushedAt >= PREWARM_LONGEST_WAIT_MS) this.paces.delete(id);
    const last = this.paces.get(workspaceId);
    const wait = last ? Math.min(2 * last.wait, PREWARM_LONGEST_WAIT_MS) : this.options.quietMs;
    this.paces.set(workspaceId, { flushedAt: now, wait });
  }
}
