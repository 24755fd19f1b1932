import { monotonicMs } from './lru.js';
import { settledWithin } from '../shared/settled-within.js';
import type { InvalidationBus } from './invalidation-bus.js';
import { parseContentTag } from './content-cache.js';

/** Where a workspace index reads its items: all at once, or one translation group's again. */
export interface IndexSource<T> {
  /** Every item of the workspace, by translation group. */
  loadAll(workspaceId: string): Promise<Map<string, T[]>>;
  /** The group's items as stored now (none when it has no published post left). */
  loadGroup(workspaceId: string, groupId: string): Promise<T[]>;
  /** About the memory the items take. */
  bytesOf(items: T[]): number;
}

/**
 * A workspace's items are used for the safety lifetime after their whole read ended, and for at least this
 * many times as long as that read took: a workspace read in 70 s (100,000 posts on FerretDB) would otherwise
 * be read again by every reader past the lifetime (30 s by default), so that no reader ever found it kept.
 */
export const LIFETIME_PER_READ_TIME = 10;

/**
 * How long a reader waits by default for a whole read under way before it answers from the database instead: a
 * small workspace is read whole sooner than one post is queried, but the first reader of one post of 100,000
 * after a start waited out the whole read (34 s on FerretDB over PostgreSQL, bench:scale). A reader whose
 * database answer would read every item anyway (a list on FerretDB) waits for the read instead.
 */
export const READ_WAITED_MS = 250;

interface Held<T> {
  groups: Map<string, T[]>;
  /** Groups a write changed since they were read, with a count that moves on each such write. */
  dirty: Map<string, number>;
  bytes: number;
  /** When the whole read ended, and how long the items are used after it (see LIFETIME_PER_READ_TIME). */
  loadedAt: number;
  lifetimeMs: number;
  ready: Promise<void>;
  /** Whether `ready` has settled: readers no longer wait for it. */
  settled: boolean;
  /** A change of unknown posts, a gap in invalidations, or over the memory bound: no longer used (the next read loads again). */
  discarded: boolean;
  refreshing: Map<string, Promise<void>>;
  /** The whole read that replaces these items once their lifetime is over; they answer until it ends. */
  successor?: Held<T>;
}

/**
 * Each workspace's published items kept whole in this node, read once and then kept current one translation
 * group at a time: a post's publish, change or withdrawal (`contentTag` `group:<id>`, on every node) marks its
 * group, which the next reader reads again before it answers. An invalidation of the workspace's posts that
 * names no group or a gap in the invalidations (`onResync`) drops the workspace's items, read whole again by
 * the next reader (a settings, category or navigation change keeps them: it changes no post, and a read of
 * 100,000 posts takes over a minute on FerretDB); past the safety lifetime they are read whole again in the
 * background, answering meanwhile. While the bus is not live nothing is used (`items` answers undefined and
 * the caller asks the database), as with every other cache of a node.
 *
 * What it is for: FerretDB sorts, counts and filters in its own process after decoding every post of the
 * workspace, so a public list page that misses the content cache cost a whole read of the posts, twice (the
 * page and `total`), and a publish drops every list page at once. Here a miss costs memory work only.
 */
export class WorkspaceIndex<T> {
  private readonly held = new Map<string, Held<T>>();
  private bytes = 0;
  /** Workspaces alone over the memory bound, until when they are not read whole again (each read asks the database). */
  private readonly tooBig = new Map<string, number>();

  constructor(
    private readonly bus: InvalidationBus,
    private readonly source: IndexSource<T>,
    private readonly options: { maxBytes: number; ttlMs: number; now?: () => number },
  ) {
    bus.onInvalidate((tags) => {
      const named = new Set<string>();
      const everyPost = new Set<string>();
      // A workspace's settings, categories or navigation (its `workspace:` tag) change no published post: the
      // answers built from the items go (the content cache hears that tag), the items stay.
      for (const tag of tags) {
        const content = parseContentTag(tag);
        const held = content && this.held.get(content.workspaceId);
        if (!content || !held) continue;
        if (content.dependency === 'posts') everyPost.add(content.workspaceId);
        if (content.dependency.startsWith('group:')) {
          const group = content.dependency.slice('group:'.length);
          // The read under way for the successor may have passed the group before this write.
          for (const marked of [held, held.successor]) marked?.dirty.set(group, (marked.dirty.get(group) ?? 0) + 1);
          named.add(content.workspaceId);
        }
      }
      // Every post of a workspace, with no group named: which items changed is unknown.
      for (const workspaceId of everyPost) if (!named.has(workspaceId)) this.discard(workspaceId);
    });
    bus.onResync(() => {
      for (const workspaceId of [...this.held.keys()]) this.discard(workspaceId);
    });
  }

  /**
   * The workspace's items as of every invalidation this node has heard, or undefined when they cannot be
   * kept (bus not live, over the memory bound, dropped meanwhile) or their first read takes longer than
   * `waitMs`: the caller reads the database.
   */
  async items(workspaceId: string, waitMs = READ_WAITED_MS): Promise<T[] | undefined> {
    if (!this.bus.live || this.options.maxBytes === 0) return undefined;
    if ((this.tooBig.get(workspaceId) ?? 0) > this.now()) return undefined;
    let held = this.held.get(workspaceId);
    // Past their lifetime the items are read whole again, in the background: they answer, kept current as
    // before, until that read ends (75 s for 100,000 posts on FerretDB, which every reader waited out).
    if (held && !held.successor && this.now() - held.loadedAt > held.lifetimeMs) held.successor = this.reload(workspaceId, held);
    held ??= this.load(workspaceId);
    if (!held.settled && waitMs !== Infinity && !(await settledWithin(held.ready, waitMs))) return undefined;
    await held.ready;
    if (held.dirty.size) await Promise.all([...held.dirty.keys()].map((group) => this.refresh(workspaceId, held, group)));
    if (held.discarded || !this.bus.live) return undefined;
    this.touch(workspaceId, held);
    return [...held.groups.values()].flat();
  }

  private now(): number {
    return this.options.now?.() ?? monotonicMs();
  }

  stats(): { workspaces: number; bytes: number } {
    return { workspaces: this.held.size, bytes: this.bytes };
  }

  private load(workspaceId: string): Held<T> {
    const held = this.read(workspaceId);
    this.held.set(workspaceId, held);
    held.ready = held.ready.then(
      () => {
        if (held.discarded) return;
        this.bytes += held.bytes;
        this.evict(workspaceId);
      },
      (error: unknown) => {
        this.discard(workspaceId);
        throw error;
      },
    );
    return this.settling(held);
  }

  /** The items of `current` read whole again; they replace it when the read ends, unless it was dropped meanwhile. */
  private reload(workspaceId: string, current: Held<T>): Held<T> {
    const successor = this.read(workspaceId);
    successor.ready = successor.ready.then(
      () => {
        if (this.held.get(workspaceId) !== current) return;
        current.discarded = true;
        this.bytes += successor.bytes - current.bytes;
        this.held.set(workspaceId, successor);
        this.evict(workspaceId);
      },
      // The current items answer on; the next reader past their lifetime tries again.
      () => void (current.successor = undefined),
    );
    return this.settling(successor);
  }

  /** Marks `held` settled once its read ends (a reader that stopped waiting may no longer be there to hear a failure). */
  private settling(held: Held<T>): Held<T> {
    const settle = () => void (held.settled = true);
    held.ready.then(settle, settle);
    return held;
  }

  /** A whole read of the workspace's items, not yet counted in memory; readers wait for it (`ready`) rather than find it expired. */
  private read(workspaceId: string): Held<T> {
    const startedAt = this.now();
    const held: Held<T> = { groups: new Map(), dirty: new Map(), bytes: 0, loadedAt: startedAt, lifetimeMs: Infinity, ready: Promise.resolve(), settled: false, discarded: false, refreshing: new Map() };
    held.ready = this.source.loadAll(workspaceId).then((groups) => {
      held.loadedAt = this.now();
      held.lifetimeMs = Math.max(this.options.ttlMs, LIFETIME_PER_READ_TIME * (held.loadedAt - startedAt));
      // A group a write marked while the whole read ran stays marked: it may predate that write.
      for (const [group, items] of groups) {
        held.groups.set(group, items);
        held.bytes += this.source.bytesOf(items);
      }
    });
    return held;
  }

  /** Reads a marked group again (one read per group at a time); a write that came meanwhile leaves it marked. */
  private refresh(workspaceId: string, held: Held<T>, group: string): Promise<void> {
    const running = held.refreshing.get(group);
    if (running) return running;
    const mark = held.dirty.get(group);
    const done = this.source.loadGroup(workspaceId, group).then((items) => {
      if (held.discarded) return;
      this.resize(held, this.source.bytesOf(items) - (held.groups.has(group) ? this.source.bytesOf(held.groups.get(group)!) : 0));
      if (items.length) held.groups.set(group, items);
      else held.groups.delete(group);
      if (held.dirty.get(group) === mark) held.dirty.delete(group);
      this.evict(workspaceId);
    });
    const settled = () => held.refreshing.delete(group);
    done.then(settled, settled);
    held.refreshing.set(group, done);
    return done;
  }

  private resize(held: Held<T>, delta: number): void {
    held.bytes += delta;
    if (!held.discarded) this.bytes += delta;
  }

  /** Most recently read last, so the oldest go first when memory runs short. */
  private touch(workspaceId: string, held: Held<T>): void {
    this.held.delete(workspaceId);
    this.held.set(workspaceId, held);
  }

  /** Drops the least recently read workspaces while over the bound; one alone over it is not kept. */
  private evict(keep: string): void {
    for (const workspaceId of this.held.keys()) {
      if (this.bytes <= this.options.maxBytes) return;
      if (workspaceId !== keep) this.discard(workspaceId);
    }
    if (this.bytes > this.options.maxBytes) {
      this.discard(keep);
      this.tooBig.set(keep, this.now() + this.options.ttlMs);
      for (const [workspaceId, until] of this.tooBig) if (until <= this.now()) this.tooBig.delete(workspaceId);
    }
  }

  private discard(workspaceId: string): void {
    const held = this.held.get(workspaceId);
    if (!held) return;
    this.held.delete(workspaceId);
    this.bytes -= held.bytes;
    held.discarded = true;
  }
}
