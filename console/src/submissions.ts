import { batch, signal } from '@preact/signals';
import { ApiError, type FieldIssue, type Page } from './api.js';
import { alert } from './alerts.js';
import { afterFirstPaint, call, error, socketHooks, viewLoaders, whenSynced, workspaceId, ws } from './store.js';
import { t } from './strings.js';
import { route } from './router.js';

/** The admin API's submission (`Submission` in the OpenAPI document). */
export interface Submission {
  id: string;
  name: string;
  email: string;
  message: string;
  phone: string | null;
  subject: string | null;
  source: string | null;
  metadata: Record<string, unknown> | null;
  createdAt: string;
  handledAt: string | null;
  handledBy: { userId: string; name: string } | null;
}

export interface SubmissionReply {
  id: string;
  body: string;
  author: { userId: string; name: string };
  to: string;
  createdAt: string;
}

export type SubmissionDetail = Submission & { replies: SubmissionReply[] };
export type StateFilter = 'open' | 'handled' | 'all';

const PAGE = 50;

export const stateFilter = signal<StateFilter>('open');
export const query = signal('');
export const list = signal<Submission[]>([]);
export const total = signal(0);
/** Open (not handled) submissions of the workspace: the navigation's badge. */
export const waiting = signal(0);
export const detail = signal<SubmissionDetail | null>(null);

let listRequest = 0;
let listApplied = 0;

export async function loadSubmissions(more = false): Promise<void> {
  if (!workspaceId.value) return;
  const mine = ++listRequest;
  // Uncounted, as the chat list (`total` then counts one past the page).
  const params = new URLSearchParams({ limit: String(PAGE), page: String(more ? Math.floor(list.value.length / PAGE) + 1 : 1), total: 'false' });
  if (stateFilter.value !== 'all') params.set('state', stateFilter.value);
  if (query.value.trim()) params.set('q', query.value.trim());
  try {
    const res = await call<Page<Submission>>('GET', `${ws()}/submissions?${params}`);
    // An answer older than one already shown is stale; an older one that arrives first still paints.
    if (mine < listApplied) return;
    listApplied = mine;
    batch(() => {
      list.value = more ? [...list.value, ...res.items.filter((s) => !list.value.some((known) => known.id === s.id))] : res.items;
      total.value = res.pageInfo.total;
    });
  } catch (err) {
    report(err);
  }
}

viewLoaders.submissions = loadSubmissions;

export async function countWaiting(): Promise<void> {
  if (!workspaceId.value) return;
  try {
    waiting.value = (await call<Page<Submission>>('GET', `${ws()}/submissions?state=open&limit=1`)).pageInfo.total;
  } catch {
    // The badge is a hint; the list reports its own errors.
  }
}

export async function openSubmission(id: string): Promise<void> {
  if (detail.value?.id !== id) detail.value = null;
  try {
    detail.value = await call<SubmissionDetail>('GET', `${ws()}/submissions/${encodeURIComponent(id)}`);
  } catch (err) {
    report(err);
  }
}

/** Puts what the server stored into the open detail and the list. */
function applyStored(stored: Submission): void {
  batch(() => {
    if (detail.value?.id === stored.id) detail.value = { ...detail.value, ...stored };
    list.value = list.value.map((s) => (s.id === stored.id ? stored : s));
  });
  void countWaiting();
}

export async function setHandled(id: string, handled: boolean): Promise<void> {
  try {
    applyStored(await call<Submission>('PATCH', `${ws()}/submissions/${encodeURIComponent(id)}`, { handled }));
  } catch (err) {
    report(err);
  }
}

/** Sends an answer; the field's problems come back for the form to show beside the field (nothing typed is lost). */
export async function answer(id: string, body: string): Promise<{ ok: true } | { ok: false; issues: FieldIssue[] }> {
  try {
    await call('POST', `${ws()}/submissions/${encodeURIComponent(id)}/replies`, { body });
    await openSubmission(id);
    if (detail.value) applyStored(detail.value);
    return { ok: true };
  } catch (err) {
    if (err instanceof ApiError && err.issues.length) return { ok: false, issues: err.issues };
    report(err);
    return { ok: false, issues: [] };
  }
}

export function resetSubmissions(): void {
  batch(() => {
    list.value = [];
    total.value = 0;
    waiting.value = 0;
    detail.value = null;
  });
}

function report(err: unknown): void {
  error.value = err instanceof Error ? err.message : String(err);
}

socketHooks.push((socket) => {
  // The list is fetched where it is shown; every view keeps the badge's count.
  const shown = () => route.value.section === 'submissions';
  socket.on('connect', () =>
    afterFirstPaint(() => {
      void countWaiting();
      if (shown()) void loadSubmissions();
    }),
  );
  socket.on('submission.created', (event) =>
    whenSynced(() => {
      void countWaiting();
      if (shown()) void loadSubmissions();
      alert(t.newSubmission, t.newSubmissionFrom(event.name), `submission-${event.submissionId}`);
    }),
  );
});
