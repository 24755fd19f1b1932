import { batch, signal } from '@preact/signals';
import type { Conversation } from './api.js';
import type { Booking } from './bookings.js';
import type { Submission } from './submissions.js';
import { afterFirstPaint, call, error, socketHooks, viewLoaders, whenSynced, workspaceId, ws } from './store.js';
import { route } from './router.js';

/** One entry of `GET .../inbox`: the record in the shape of its own admin list. */
export type InboxItem =
  | { kind: 'chat'; at: string; conversation: Conversation }
  | { kind: 'submission'; at: string; submission: Submission }
  | { kind: 'booking'; at: string; appointment: Booking };
export type KindFilter = 'all' | InboxItem['kind'];
export type StateFilter = 'waiting' | 'handled' | 'all';

const PAGE = 25;
/** The API's largest answer: "show more" asks for the newest this many at most. */
const MAX = 100;

export const kindFilter = signal<KindFilter>('all');
export const stateFilter = signal<StateFilter>('waiting');
export const query = signal('');
export const items = signal<InboxItem[]>([]);
/** Whether older items match than those shown. */
export const more = signal(false);
export const loaded = signal(false);

let listRequest = 0;
let listApplied = 0;

/** The newest items; `further` asks for the next page's worth on top (the list is newest-N, not paged). */
export async function loadInbox(further = false): Promise<void> {
  if (!workspaceId.value) return;
  const mine = ++listRequest;
  const limit = further ? Math.min(items.value.length + PAGE, MAX) : Math.max(PAGE, Math.min(items.value.length, MAX));
  const params = new URLSearchParams({ limit: String(limit) });
  if (kindFilter.value !== 'all') params.set('kind', kindFilter.value);
  if (stateFilter.value !== 'all') params.set('state', stateFilter.value);
  if (query.value.trim()) params.set('q', query.value.trim());
  try {
    const res = await call<{ items: InboxItem[]; more: boolean }>('GET', `${ws()}/inbox?${params}`);
    // An answer older than one already shown is stale; an older one that arrives first still paints.
    if (mine < listApplied) return;
    listApplied = mine;
    batch(() => {
      items.value = res.items;
      more.value = res.more;
      loaded.value = true;
    });
  } catch (err) {
    error.value = err instanceof Error ? err.message : String(err);
  }
}

viewLoaders.inbox = loadInbox;

export const canShowMore = () => more.value && items.value.length < MAX;

let refreshTimer: ReturnType<typeof setTimeout> | undefined;
/** Bursts of events refresh the shown list once. */
function refreshSoon(): void {
  if (route.value.section !== 'inbox') return;
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => void loadInbox(), 150);
}

socketHooks.push((socket) => {
  // Whatever a visitor sends reaches the inbox live; the alerts (sound, notification) are the kinds' own.
  socket.on('connect', () => afterFirstPaint(refreshSoon));
  socket.on('conversation.created', () => whenSynced(refreshSoon));
  socket.on('conversation.updated', () => whenSynced(refreshSoon));
  socket.on('message.created', () => whenSynced(refreshSoon));
  socket.on('submission.created', () => whenSynced(refreshSoon));
  socket.on('appointment.requested', () => whenSynced(refreshSoon));
});
