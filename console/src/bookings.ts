import { batch, signal } from '@preact/signals';
import { DateTime } from 'luxon';
import { ApiError, type FieldIssue, type Page } from './api.js';
import { alert } from './alerts.js';
import { afterFirstPaint, call, error, socketHooks, viewLoaders, whenSynced, workspaceId, ws } from './store.js';
import { language, t } from './strings.js';
import { route } from './router.js';

/** The admin API's appointment (`StaffAppointment` in the OpenAPI document). */
export interface Booking {
  id: string;
  status: 'PENDING' | 'CONFIRMED' | 'REJECTED' | 'CANCELLED';
  requestedAt: string;
  scheduledAt: string | null;
  durationMinutes: number;
  declineReason: string | null;
  visitorName: string;
  visitorEmail: string;
  visitorPhone: string | null;
  visitorMessage: string | null;
  visitorSessionId: string | null;
  externalId: string | null;
}

export type AgendaSpan = 'day' | 'week';
/** The API's largest page: a week of a busy shop fits. */
const PAGE = 200;

/** The plugin's time zone: every time in the bookings view is shown in it (the business's clock, not the browser's). */
export const zone = signal('UTC');
export const pending = signal<Booking[]>([]);
export const agenda = signal<Booking[]>([]);
export const span = signal<AgendaSpan>('week');
/** The first day shown, as an ISO date of the plugin's zone. */
export const anchor = signal<string | null>(null);
export const selected = signal<Booking | null>(null);

/** An instant in the plugin's zone, in the browser's language. */
export const inZone = (iso: string) => DateTime.fromISO(iso, { zone: zone.value }).setLocale(language);
export const dayLabel = (iso: string) => inZone(iso).toLocaleString(DateTime.DATE_HUGE);
export const timeLabel = (iso: string) => inZone(iso).toLocaleString(DateTime.TIME_SIMPLE);
export const whenLabel = (iso: string) => inZone(iso).toLocaleString(DateTime.DATETIME_MED_WITH_WEEKDAY);

/** The agenda's window: [start of the anchor's day or week, one day or week later), in the plugin's zone. */
export function agendaWindow(): { from: DateTime; to: DateTime } {
  const start = (anchor.value ? DateTime.fromISO(anchor.value, { zone: zone.value }) : DateTime.now().setZone(zone.value)).startOf(span.value);
  return { from: start, to: start.plus(span.value === 'day' ? { days: 1 } : { weeks: 1 }) };
}

export function moveAgenda(step: -1 | 0 | 1): void {
  const { from } = agendaWindow();
  anchor.value = step === 0 ? null : from.plus(span.value === 'day' ? { days: step } : { weeks: step }).toISODate();
  void loadAgenda();
}

/** The queue and the agenda; the agenda's days are the plugin zone's, so it waits for the zone, the queue does not. */
export async function loadBookings(): Promise<void> {
  if (!workspaceId.value) return;
  const zoneThenAgenda = async () => {
    try {
      const settings = await call<{ timezone: string }>('GET', `${ws()}/plugins/appointments`);
      zone.value = settings.timezone || 'UTC';
    } catch (err) {
      report(err);
    }
    await loadAgenda();
  };
  await Promise.all([loadPending(), zoneThenAgenda()]);
}

viewLoaders.bookings = loadBookings;

export async function loadPending(): Promise<void> {
  try {
    const res = await call<Page<Booking>>('GET', `${ws()}/appointments?status=PENDING&limit=${PAGE}&total=false`);
    // The soonest wish first: that is the one to answer before its time passes.
    pending.value = [...res.items].sort((a, b) => a.requestedAt.localeCompare(b.requestedAt));
  } catch (err) {
    report(err);
  }
}

let agendaRequest = 0;

export async function loadAgenda(): Promise<void> {
  const mine = ++agendaRequest;
  const { from, to } = agendaWindow();
  const params = new URLSearchParams({ status: 'CONFIRMED', from: from.toUTC().toISO()!, to: to.toUTC().toISO()!, limit: String(PAGE), total: 'false' });
  try {
    const res = await call<Page<Booking>>('GET', `${ws()}/appointments?${params}`);
    if (mine === agendaRequest) agenda.value = res.items;
  } catch (err) {
    report(err);
  }
}

export async function select(id: string | null): Promise<void> {
  if (!id) {
    selected.value = null;
    return;
  }
  selected.value = pending.value.find((b) => b.id === id) ?? (selected.value?.id === id ? selected.value : null);
  try {
    selected.value = await call<Booking>('GET', `${ws()}/appointments/${encodeURIComponent(id)}`);
  } catch (err) {
    report(err);
  }
}

export type Outcome = { ok: true } | { ok: false; issues: FieldIssue[]; message: string };

/**
 * Confirm (at the requested time, or at `confirmAt`, a wall-clock time of the plugin's zone), decline with a
 * note, cancel a confirmed appointment with a note, or move it (`rescheduleAt`, a wall-clock time too). A refusal (the slot overlaps another confirmed appointment: 409) comes back in words for the form.
 */
export async function answer(
  id: string,
  action: { confirmAt?: string | null } | { declineReason: string } | { rescheduleAt: string } | { cancelReason: string },
): Promise<Outcome> {
  const path = `${ws()}/appointments/${encodeURIComponent(id)}`;
  const instant = (local: string) => DateTime.fromISO(local, { zone: zone.value }).toISO();
  try {
    const stored =
      'declineReason' in action
        ? await call<Booking>('POST', `${path}/decline`, { reason: action.declineReason.trim() || null })
        : 'cancelReason' in action
          ? await call<Booking>('POST', `${path}/cancel`, { reason: action.cancelReason.trim() || null })
          : 'rescheduleAt' in action
          ? await call<Booking>('POST', `${path}/reschedule`, { scheduledAt: action.rescheduleAt ? instant(action.rescheduleAt) : '' })
          : await call<Booking>('POST', `${path}/confirm`, action.confirmAt ? { scheduledAt: instant(action.confirmAt) } : {});
    batch(() => {
      selected.value = stored;
      pending.value = pending.value.filter((b) => b.id !== id);
    });
    void loadAgenda();
    return { ok: true };
  } catch (err) {
    if (err instanceof ApiError && err.status < 500) return { ok: false, issues: err.issues, message: err.message };
    report(err);
    return { ok: false, issues: [], message: '' };
  }
}

export function resetBookings(): void {
  batch(() => {
    pending.value = [];
    agenda.value = [];
    selected.value = null;
    anchor.value = null;
  });
}

function report(err: unknown): void {
  error.value = err instanceof Error ? err.message : String(err);
}

socketHooks.push((socket) => {
  // A (re)connect catches up on what the view shows; elsewhere only the queue, which is the badge.
  socket.on('connect', () => afterFirstPaint(() => void (route.value.section === 'bookings' ? loadBookings() : loadPending())));
  socket.on('appointment.requested', (event) =>
    whenSynced(() => {
      void loadPending();
      alert(t.newRequest, t.newRequestFrom(event.visitorName), `booking-${event.appointmentId}`);
    }),
  );
});
