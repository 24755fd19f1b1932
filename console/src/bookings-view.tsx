import { useEffect, useRef, useState } from 'preact/hooks';
import * as bookings from './bookings.js';
import type { Booking } from './bookings.js';
import { hrefOf, navigate, route } from './router.js';
import { t } from './strings.js';
import { DraftArea, drafts, FilterSelect } from './widgets.js';
import { PersonPanel } from './person-panel.js';
import { loadView } from './store.js';

export function BookingsView() {
  const id = route.value.id;
  useEffect(() => loadView(bookings.loadBookings), []);
  useEffect(() => {
    void bookings.select(id);
  }, [id]);
  return (
    <div class={id ? 'cols has-selection' : 'cols'}>
      <PendingQueue current={id} />
      {id ? <BookingDetail id={id} /> : <Agenda />}
    </div>
  );
}

function PendingQueue({ current }: { current: string | null }) {
  const items = bookings.pending.value;
  return (
    <section class="box inbox" aria-labelledby="pending-title">
      <h2 id="pending-title">{t.pending}</h2>
      <ul id="pending" class="entries" aria-label={t.pending}>
        {items.map((b) => (
          <li key={b.id}>
            <a href={hrefOf('bookings', b.id)} id={`booking-${b.id}`} aria-current={b.id === current ? 'true' : undefined}>
              <span class="who">{b.visitorName}</span>
              <span class="last">{` · ${bookings.whenLabel(b.requestedAt)}`}</span>
            </a>
          </li>
        ))}
      </ul>
      {items.length === 0 && <p class="muted">{t.noPending}</p>}
    </section>
  );
}

function Agenda() {
  const { from } = bookings.agendaWindow();
  const days = new Map<string, Booking[]>();
  for (const b of bookings.agenda.value) {
    const day = bookings.dayLabel(b.scheduledAt!);
    days.set(day, [...(days.get(day) ?? []), b]);
  }
  return (
    <section class="box" aria-labelledby="agenda-title">
      <h2 id="agenda-title">
        {t.agenda}: {bookings.dayLabel(from.toISO()!)}
      </h2>
      <div class="filters">
        <FilterSelect id="agenda-span" label={t.show} filter={bookings.span} options={{ day: t.day, week: t.week }} onChange={() => bookings.moveAgenda(0)} />
        <button type="button" onClick={() => bookings.moveAgenda(-1)}>
          {t.previous}
        </button>
        <button type="button" onClick={() => bookings.moveAgenda(0)}>
          {t.today}
        </button>
        <button type="button" onClick={() => bookings.moveAgenda(1)}>
          {t.next}
        </button>
      </div>
      <p class="muted">{t.timesIn(bookings.zone.value)}</p>
      <div id="agenda" aria-live="polite">
        {days.size === 0 && <p class="muted">{t.nothingScheduled}</p>}
        {[...days].map(([day, items]) => (
          <section key={day} aria-label={day}>
            <h3>{day}</h3>
            <ul class="entries">
              {items.map((b) => (
                <li key={b.id}>
                  <a href={hrefOf('bookings', b.id)}>
                    <span class="who">{`${bookings.timeLabel(b.scheduledAt!)} ${b.visitorName}`}</span>
                    <span class="last">{` · ${t.minutes(b.durationMinutes)}`}</span>
                  </a>
                </li>
              ))}
            </ul>
          </section>
        ))}
      </div>
    </section>
  );
}

function BookingDetail({ id }: { id: string }) {
  const b = bookings.selected.value;
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [b?.id]);
  if (!b || b.id !== id) return <p class="box placeholder muted" aria-busy="true" />;
  const back = () => {
    navigate('bookings');
    setTimeout(() => document.getElementById(`booking-${id}`)?.focus(), 0);
  };
  return (
    <section class="box conversation" aria-labelledby="booking-title">
      <div class="head">
        <button type="button" class="back" onClick={back}>
          {t.pickBooking}
        </button>
        <h2 id="booking-title" tabIndex={-1} ref={heading}>
          {b.visitorName}
        </h2>
      </div>
      <dl class="facts">
        <dt>{t.state}</dt>
        <dd id="booking-status">{t.status[b.status] ?? b.status}</dd>
        <dt>{b.scheduledAt ? t.scheduledFor : t.requestedFor}</dt>
        <dd id="booking-time">{`${bookings.whenLabel(b.scheduledAt ?? b.requestedAt)} (${t.minutes(b.durationMinutes)}, ${bookings.zone.value})`}</dd>
        <dt>{t.email}</dt>
        <dd>
          <a href={`mailto:${b.visitorEmail}`}>{b.visitorEmail}</a>
        </dd>
        {b.visitorPhone && (
          <>
            <dt>{t.phone}</dt>
            <dd>{b.visitorPhone}</dd>
          </>
        )}
        {b.visitorMessage && (
          <>
            <dt>{t.message}</dt>
            <dd class="message">{b.visitorMessage}</dd>
          </>
        )}
      </dl>
      {b.status === 'PENDING' && <Answer booking={b} />}
      {b.status === 'CONFIRMED' && <Reschedule booking={b} />}
      {b.status === 'CONFIRMED' && <Cancel booking={b} />}
      <PersonPanel keys={{ externalId: b.externalId, email: b.visitorEmail, visitorSessionId: b.visitorSessionId }} current={b.id} />
    </section>
  );
}

/** Confirm (at the wished time or another one) or decline with a note; what the server refuses is said beside the form. */
function Answer({ booking }: { booking: Booking }) {
  const [otherTime, setOtherTime] = useState('');
  const [reason, setReason] = useState(drafts.get(`decline.${booking.id}`));
  const [problem, setProblem] = useState<{ field: 'time' | 'reason' | 'form'; message: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (action: Parameters<typeof bookings.answer>[1], field: 'time' | 'reason') => {
    setBusy(true);
    const outcome = await bookings.answer(booking.id, action);
    setBusy(false);
    if (outcome.ok) {
      drafts.set(`decline.${booking.id}`, '');
      return;
    }
    const issue = outcome.issues[0];
    setProblem(issue ? { field, message: issue.message } : { field: outcome.message ? field : 'form', message: outcome.message });
  };
  const problemOf = (field: 'time' | 'reason' | 'form') => (problem?.field === field ? problem.message : '');
  return (
    <div class="stack">
      <form
        id="confirm"
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void run({ confirmAt: otherTime || null }, 'time');
        }}
      >
        <label for="confirm-time">{t.otherTime(bookings.zone.value)}</label>
        <input
          id="confirm-time"
          type="datetime-local"
          value={otherTime}
          aria-invalid={problemOf('time') ? 'true' : undefined}
          aria-describedby={problemOf('time') ? 'confirm-problem' : undefined}
          onInput={(e) => setOtherTime(e.currentTarget.value)}
        />
        {problemOf('time') && (
          <p id="confirm-problem" class="field-error">
            {problemOf('time')}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {otherTime ? t.confirmAt : t.confirm}
        </button>
      </form>
      <form
        id="decline"
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void run({ declineReason: reason }, 'reason');
        }}
      >
        <DraftArea
          id="decline-reason"
          problemId="decline-problem"
          label={t.declineReason}
          draftKey={`decline.${booking.id}`}
          rows={2}
          text={reason}
          problem={problemOf('reason')}
          onText={setReason}
        />
        <button type="submit" class="danger" disabled={busy}>
          {t.decline}
        </button>
      </form>
    </div>
  );
}

/** Moves a confirmed appointment to another time of the plugin's zone; an overlap or a time outside the rules is said beside the field. */
function Reschedule({ booking }: { booking: Booking }) {
  const [time, setTime] = useState('');
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);
  const [moved, setMoved] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setMoved(false);
    const outcome = await bookings.answer(booking.id, { rescheduleAt: time });
    setBusy(false);
    setMoved(outcome.ok);
    setProblem(outcome.ok ? '' : (outcome.issues[0]?.message ?? outcome.message));
    if (outcome.ok) setTime('');
  };
  return (
    <form id="reschedule" class="stack" onSubmit={submit}>
      <label for="reschedule-time">{t.rescheduleTo(bookings.zone.value)}</label>
      <input
        id="reschedule-time"
        type="datetime-local"
        value={time}
        aria-invalid={problem ? 'true' : undefined}
        aria-describedby={problem ? 'reschedule-problem' : undefined}
        onInput={(e) => {
          setTime(e.currentTarget.value);
          setMoved(false);
        }}
      />
      {problem && (
        <p id="reschedule-problem" class="field-error">
          {problem}
        </p>
      )}
      <button type="submit" disabled={busy}>
        {t.reschedule}
      </button>
      <p role="status" class="muted">
        {moved ? t.rescheduled : ''}
      </p>
    </form>
  );
}

/** Calls a confirmed appointment off; the note goes to the visitor with the withdrawn invite. Typed text survives a reload. */
function Cancel({ booking }: { booking: Booking }) {
  const key = `cancel.${booking.id}`;
  const [reason, setReason] = useState(drafts.get(key));
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    const outcome = await bookings.answer(booking.id, { cancelReason: reason });
    setBusy(false);
    setProblem(outcome.ok ? '' : (outcome.issues[0]?.message ?? outcome.message));
    if (outcome.ok) drafts.set(key, '');
  };
  return (
    <form id="cancel" class="stack" onSubmit={submit}>
      <DraftArea id="cancel-reason" problemId="cancel-problem" label={t.cancelReason} draftKey={key} rows={2} text={reason} problem={problem} onText={setReason} />
      <button type="submit" class="danger" disabled={busy}>
        {t.cancelAppointment}
      </button>
    </form>
  );
}
