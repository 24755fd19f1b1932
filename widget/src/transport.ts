import type { ChatMessage, ReadChanged, TypingChanged } from '../../src/realtime/events.js';

/**
 * The widget's message transport, free of DOM and Socket.IO so it can be unit-tested in Node.
 *
 * Socket first: while the `/widget` socket is connected, pushes arrive live. When the socket cannot
 * connect (or drops), the transport polls `GET .../messages?after=` with a growing delay until the
 * socket is back, then catches up once with `after` so nothing pushed meanwhile is missed. Every
 * message is de-duplicated by id, so one that arrives both by push and by a fetch is shown once.
 */

/** A message as the widget gets it: pushed or fetched with `include=agentName`, an AGENT message names its author. */
export type ShownMessage = ChatMessage & { agentName?: string };

export interface MessagesPage {
  /** A `ConversationStatus`, or a newer one this widget does not know yet. */
  status: string;
  messages: ShownMessage[];
}

/** Callbacks the socket adapter calls; `index.ts` wires them to a real Socket.IO client. */
// Function properties, not methods: the socket adapter hands them to Socket.IO as they are.
export interface SocketHandlers {
  connected: () => void;
  disconnected: () => void;
  message: (message: ChatMessage, agentName?: string) => void;
  /** A `ConversationStatus`, or a newer one this widget does not know yet. */
  status: (status: string) => void;
  typing?: (payload: TypingChanged) => void;
  read?(payload: ReadChanged): void;
}

export interface SocketHandle {
  close(): void;
  /** Tells the team the visitor is typing (or stopped); dropped while disconnected. */
  typing?(on: boolean): void;
}

export type Schedule = (fn: () => void, ms: number) => () => void;

export type TransportMode = 'connecting' | 'live' | 'polling' | 'stopped';

export interface TransportOptions {
  token: string;
  fetchMessages: (token: string, after?: string) => Promise<MessagesPage>;
  /** Absent: polling only (for instance where Socket.IO is switched off). */
  connectSocket?(token: string, handlers: SocketHandlers): SocketHandle;
  /** New messages only, oldest first. */
  onMessages(messages: ShownMessage[]): void;
  onStatus(status: string): void;
  /** Live extras of the socket (never fetched): typing, the team's read cursor. */
  onTyping?(payload: TypingChanged): void;
  onRead?(payload: ReadChanged): void;
  /** The token no longer names a conversation (404): the widget forgets it. */
  onGone?(): void;
  onMode?(mode: TransportMode): void;
  schedule?: Schedule;
  /** First polling delay, and the delay again after anything new arrives. */
  pollMinMs?: number;
  pollMaxMs?: number;
  pollFactor?: number;
  /** How long to wait for the first socket connection before polling starts. */
  socketGraceMs?: number;
  /**
   * Catch-up asks for messages after (last seen - overlap): messages stamped in the same millisecond,
   * or by another node whose clock is slightly behind, are fetched again and dropped by id, never lost.
   */
  overlapMs?: number;
  /** The server's page size: a full page means more follow (the API's page is 500, oldest first). */
  pageSize?: number;
}

export const SERVER_PAGE_SIZE = 500;
const MAX_PAGES = 20;

/**
 * Everything after `after`, following full pages with the last `createdAt` of each (the server returns
 * at most one page per call, oldest first). Stops after 20 pages; the next poll continues from there.
 */
export async function fetchAllMessages(
  fetchMessages: TransportOptions['fetchMessages'],
  token: string,
  after: string | undefined,
  pageSize = SERVER_PAGE_SIZE,
): Promise<MessagesPage> {
  let page = await fetchMessages(token, after);
  const messages = [...(page.messages ?? [])];
  for (let pages = 1; page.messages?.length >= pageSize && pages < MAX_PAGES; pages += 1) {
    page = await fetchMessages(token, page.messages[page.messages.length - 1].createdAt);
    messages.push(...(page.messages ?? []));
  }
  return { status: page.status, messages };
}

const defaultSchedule: Schedule = (fn, ms) => {
  const handle = setTimeout(fn, ms);
  return () => clearTimeout(handle);
};

function time(message: ShownMessage): number {
  const value = Date.parse(message.createdAt);
  return Number.isNaN(value) ? 0 : value;
}

export function compareMessages(a: ShownMessage, b: ShownMessage): number {
  return time(a) - time(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Every message seen once, by id, in `createdAt` order. */
export class MessageLog {
  private readonly byId = new Map<string, ShownMessage>();

  /** Adds the messages not seen yet and returns those, oldest first. */
  add(messages: readonly ShownMessage[]): ShownMessage[] {
    const fresh: ShownMessage[] = [];
    for (const message of messages) {
      if (!message || typeof message.id !== 'string' || this.byId.has(message.id)) continue;
      this.byId.set(message.id, message);
      fresh.push(message);
    }
    return fresh.sort(compareMessages);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  all(): ShownMessage[] {
    return [...this.byId.values()].sort(compareMessages);
  }

  get size(): number {
    return this.byId.size;
  }
}

/** The `after` value of a catch-up: the synced point minus the overlap, or none for the full history. */
export function catchUpAfter(syncedUntilMs: number | null, overlapMs: number): string | undefined {
  if (syncedUntilMs === null) return undefined;
  return new Date(Math.max(0, syncedUntilMs - overlapMs)).toISOString();
}

/** The next polling delay: back to the minimum when something arrived, else multiplied up to the cap. */
export function nextPollDelay(current: number, gotNews: boolean, options: { min: number; max: number; factor: number }): number {
  if (gotNews) return options.min;
  return Math.min(options.max, Math.max(options.min, Math.round(current * options.factor)));
}

export class Transport {
  readonly log = new MessageLog();
  private mode: TransportMode = 'connecting';
  /**
   * Up to when the history is known without holes. Advanced only by fetches (complete up to the moment
   * they ran) and by pushes while the socket is live and caught up; the visitor's own POST answers do
   * not move it, or a reply stamped between two of the visitor's messages could be skipped.
   */
  private syncedUntil: number | null = null;
  private socket: SocketHandle | null = null;
  private cancelTimer: (() => void) | null = null;
  private pollDelay: number;
  private caughtUp = false;
  private generation = 0;
  private status: string | null = null;
  private readonly schedule: Schedule;
  private readonly min: number;
  private readonly max: number;
  private readonly factor: number;
  private readonly overlap: number;
  private readonly grace: number;
  private readonly pageSize: number;

  constructor(private readonly options: TransportOptions) {
    this.schedule = options.schedule ?? defaultSchedule;
    this.min = options.pollMinMs ?? 2_000;
    this.max = options.pollMaxMs ?? 30_000;
    this.factor = options.pollFactor ?? 2;
    this.overlap = options.overlapMs ?? 2_000;
    this.grace = options.socketGraceMs ?? 4_000;
    this.pageSize = options.pageSize ?? SERVER_PAGE_SIZE;
    this.pollDelay = this.min;
  }

  get currentMode(): TransportMode {
    return this.mode;
  }

  /** Seeds the log with history already loaded (for instance on resume), as a complete fetch. */
  seed(page: MessagesPage): void {
    this.accept(page, true);
  }

  start(): void {
    if (this.mode === 'stopped') return;
    this.setMode('connecting');
    if (this.options.connectSocket) {
      const generation = this.generation;
      const guard = (fn: () => void) => () => {
        if (generation === this.generation && this.mode !== 'stopped') fn();
      };
      this.socket = this.options.connectSocket(this.options.token, {
        connected: guard(() => this.onSocketConnected()),
        disconnected: guard(() => this.onSocketLost()),
        message: (message, agentName) => guard(() => this.onPush(agentName ? { ...message, agentName } : message))(),
        status: (status) => guard(() => this.applyStatus(status))(),
        typing: (payload) => guard(() => this.options.onTyping?.(payload))(),
        read: (payload) => guard(() => this.options.onRead?.(payload))(),
      });
      this.arm(this.grace, () => {
        if (this.mode === 'connecting') this.startPolling(0);
      });
    } else {
      this.startPolling(0);
    }
  }

  stop(): void {
    this.generation += 1;
    this.setMode('stopped');
    this.cancelTimer?.();
    this.cancelTimer = null;
    this.socket?.close();
    this.socket = null;
  }

  typing(on: boolean): void {
    if (this.mode === 'live') this.socket?.typing?.(on);
  }

  /** The visitor just sent something: a reply is likely soon, so poll at the fastest pace again. */
  nudge(): void {
    if (this.mode !== 'polling') return;
    this.pollDelay = this.min;
    this.arm(this.min, () => void this.poll());
  }

  /** A message the widget got by itself (the answer to its POST): shown once; moves the cursor only while live. */
  addOwn(message: ShownMessage): void {
    const fresh = this.log.add([message]);
    if (this.mode === 'live' && this.caughtUp) this.advance([message]);
    if (fresh.length) this.options.onMessages(fresh);
  }

  private setMode(mode: TransportMode): void {
    if (this.mode === mode) return;
    this.mode = mode;
    this.options.onMode?.(mode);
  }

  private arm(ms: number, fn: () => void): void {
    this.cancelTimer?.();
    const generation = this.generation;
    this.cancelTimer = this.schedule(() => {
      this.cancelTimer = null;
      if (generation === this.generation && this.mode !== 'stopped') fn();
    }, ms);
  }

  private onSocketConnected(): void {
    this.cancelTimer?.();
    this.cancelTimer = null;
    this.setMode('live');
    this.caughtUp = false;
    void this.catchUp();
  }

  private onSocketLost(): void {
    this.caughtUp = false;
    if (this.mode === 'live' || this.mode === 'connecting') this.startPolling(0);
  }

  private onPush(message: ShownMessage): void {
    const fresh = this.log.add([message]);
    // Live and caught up: pushes arrive in order, so the synced point may follow them.
    if (this.mode === 'live' && this.caughtUp) this.advance([message]);
    if (fresh.length) this.options.onMessages(fresh);
  }

  private async catchUp(): Promise<void> {
    const generation = this.generation;
    const after = catchUpAfter(this.syncedUntil, this.overlap);
    try {
      const page = await this.fetchFrom(after);
      if (generation !== this.generation || this.mode !== 'live') return;
      this.accept(page, true);
      // The fetch covers everything up to when it ran and pushes everything since the join (which came
      // first), so every message known now lies in a hole-free history.
      this.advance(this.log.all());
      this.caughtUp = true;
    } catch (error) {
      if (generation !== this.generation) return;
      if (this.handleGone(error)) return;
      // The push channel is up but the catch-up failed: retry shortly rather than risk a hole.
      this.arm(this.min, () => {
        if (this.mode === 'live') void this.catchUp();
      });
    }
  }

  private startPolling(delay: number): void {
    this.setMode('polling');
    this.pollDelay = this.min;
    this.arm(delay, () => void this.poll());
  }

  private async poll(): Promise<void> {
    const generation = this.generation;
    let gotNews = false;
    try {
      const page = await this.fetchFrom(catchUpAfter(this.syncedUntil, this.overlap));
      if (generation !== this.generation || this.mode !== 'polling') return;
      gotNews = this.accept(page, true) > 0;
    } catch (error) {
      if (generation !== this.generation) return;
      if (this.handleGone(error)) return;
    }
    if (this.mode !== 'polling') return;
    this.pollDelay = nextPollDelay(this.pollDelay, gotNews, { min: this.min, max: this.max, factor: this.factor });
    this.arm(this.pollDelay, () => void this.poll());
  }

  private fetchFrom(after: string | undefined): Promise<MessagesPage> {
    return fetchAllMessages(this.options.fetchMessages, this.options.token, after, this.pageSize);
  }

  /** Merges a complete page (everything after its `after`); returns how many messages were new. */
  private accept(page: MessagesPage, complete: boolean): number {
    const messages = Array.isArray(page.messages) ? page.messages : [];
    const fresh = this.log.add(messages);
    if (complete) this.advance(messages);
    if (fresh.length) this.options.onMessages(fresh);
    if (page.status) this.applyStatus(page.status);
    return fresh.length;
  }

  private advance(messages: readonly ShownMessage[]): void {
    for (const message of messages) {
      const t = time(message);
      if (this.syncedUntil === null || t > this.syncedUntil) this.syncedUntil = t;
    }
  }

  private applyStatus(status: string): void {
    if (status === this.status) return;
    this.status = status;
    this.options.onStatus(status);
    // A closed conversation receives nothing more: stop spending requests on it.
    if (status === 'CLOSED') this.stop();
  }

  private handleGone(error: unknown): boolean {
    if ((error as { status?: number })?.status !== 404) return false;
    this.stop();
    this.options.onGone?.();
    return true;
  }
}
