import { useEffect, useState } from 'preact/hooks';
import type { Conversation } from './api.js';
import * as bookings from './bookings.js';
import type { Booking } from './bookings.js';
import { hrefOf } from './router.js';
import { call, openConversation, ws } from './store.js';
import { t } from './strings.js';
import type { Submission } from './submissions.js';
import { when } from './widgets.js';

/** The keys that tie one person's records together (`GET .../people`). */
export interface PersonKeys {
  externalId?: string | null;
  email?: string | null;
  visitorSessionId?: string | null;
}

type Key = 'externalId' | 'email' | 'visitorSessionId';
type Matched<T> = T & { matchedBy: Key[] };

interface Timeline {
  conversations: Matched<Conversation>[];
  appointments: Matched<Booking>[];
  submissions: Matched<Submission>[];
}

/**
 * Beside a conversation, a booking or a submission: everything else Hearth holds of that person (their other
 * chats, appointments with confirm and decline right here, submissions), each saying what linked it.
 */
export function PersonPanel({ keys, current }: { keys: PersonKeys; current: string }) {
  const query = new URLSearchParams(Object.entries(keys).filter((entry): entry is [string, string] => Boolean(entry[1]))).toString();
  const [timeline, setTimeline] = useState<Timeline | null>(null);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let shown = true;
    if (query) call<Timeline>('GET', `${ws()}/people?${query}`).then((found) => shown && setTimeline(found), () => shown && setTimeline(null));
    return () => void (shown = false);
  }, [query, version]);
  if (!query || !timeline) return null;
  const others = {
    conversations: timeline.conversations.filter((c) => c.id !== current),
    appointments: timeline.appointments.filter((b) => b.id !== current),
    submissions: timeline.submissions.filter((s) => s.id !== current),
  };
  const none = others.conversations.length + others.appointments.length + others.submissions.length === 0;
  return (
    <aside class="person" aria-labelledby="person-title">
      <h3 id="person-title">{t.person}</h3>
      {none && <p class="muted">{t.nothingElse}</p>}
      <PersonList title={t.chats} id="person-chats" items={others.conversations}>
        {(c) => (
          <a
            href={hrefOf('chats')}
            onClick={() => {
              // The conversation opens in the chats view even when the inbox's filter hides it.
              void openConversation(c.id);
            }}
          >
            {`${c.status === 'OPEN' ? t.open : t.closed}: ${when(c.lastActivityAt)}`}
          </a>
        )}
      </PersonList>
      <PersonList title={t.bookings} id="person-bookings" items={others.appointments}>
        {(b) => <PersonBooking booking={b} onAnswered={() => setVersion(version + 1)} />}
      </PersonList>
      <PersonList title={t.submissions} id="person-submissions" items={others.submissions}>
        {(s) => <a href={hrefOf('submissions', s.id)}>{`${s.subject ?? t.noSubject}: ${when(s.createdAt)}`}</a>}
      </PersonList>
    </aside>
  );
}

function PersonList<T extends { id: string; matchedBy: Key[] }>(props: { title: string; id: string; items: T[]; children: (item: T) => preact.JSX.Element }) {
  if (props.items.length === 0) return null;
  return (
    <section aria-labelledby={`${props.id}-title`}>
      <h4 id={`${props.id}-title`}>{props.title}</h4>
      <ul id={props.id} class="people">
        {props.items.map((item) => (
          <li key={item.id}>
            {props.children(item)}
            <span class="muted">{t.linkedBy(item.matchedBy.map((key) => t.keys[key]).join(', '))}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function PersonBooking({ booking: b, onAnswered }: { booking: Booking; onAnswered: () => void }) {
  const [problem, setProblem] = useState('');
  const answer = async (action: { confirmAt?: null } | { declineReason: string }) => {
    const outcome = await bookings.answer(b.id, action);
    if (outcome.ok) onAnswered();
    else setProblem(outcome.message);
  };
  return (
    <>
      <a href={hrefOf('bookings', b.id)}>{`${t.status[b.status] ?? b.status}: ${bookings.whenLabel(b.scheduledAt ?? b.requestedAt)}`}</a>
      {b.status === 'PENDING' && (
        <span class="confirm">
          <button type="button" onClick={() => void answer({ confirmAt: null })} aria-label={t.confirmFor(bookings.whenLabel(b.requestedAt))}>
            {t.confirm}
          </button>
          <button type="button" onClick={() => void answer({ declineReason: '' })} aria-label={t.declineFor(bookings.whenLabel(b.requestedAt))}>
            {t.decline}
          </button>
        </span>
      )}
      {problem && <span class="field-error">{problem}</span>}
    </>
  );
}
