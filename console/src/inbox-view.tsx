import { useEffect } from 'preact/hooks';
import { messagePreview, visitorLabel } from './api.js';
import * as inbox from './inbox.js';
import type { InboxItem } from './inbox.js';
import { hrefOf } from './router.js';
import { loadView, openConversation } from './store.js';
import { t } from './strings.js';
import { FilterSelect, SearchBox, when } from './widgets.js';

const reload = () => void inbox.loadInbox();

/** Everything visitors sent, newest first: each entry opens in its own view. */
export function InboxView() {
  useEffect(() => loadView(inbox.loadInbox), []);
  const items = inbox.items.value;
  return (
    <section class="box inbox" aria-labelledby="inbox-title">
      <h2 id="inbox-title">{t.inbox}</h2>
      <div class="filters">
        <FilterSelect
          id="inbox-kind"
          label={t.kind}
          filter={inbox.kindFilter}
          options={{ all: t.everything, chat: t.chats, submission: t.submissions, booking: t.bookingRequests }}
          onChange={reload}
        />
        <FilterSelect id="inbox-state" label={t.show} filter={inbox.stateFilter} options={{ waiting: t.waitingState, handled: t.handled, all: t.all }} onChange={reload} />
        <SearchBox id="inbox-search" label={t.search} placeholder={t.searchConversations} text={inbox.query} onSearch={reload} />
      </div>
      <ul id="inbox-items" class="entries" aria-label={t.inbox}>
        {items.map((item) => (
          <li key={`${item.kind}-${idOf(item)}`}>
            <Entry item={item} />
          </li>
        ))}
      </ul>
      {inbox.loaded.value && items.length === 0 && <p class="muted">{t.inboxEmpty}</p>}
      {inbox.canShowMore() && (
        <button type="button" onClick={() => void inbox.loadInbox(true)}>
          {t.showMore}
        </button>
      )}
    </section>
  );
}

const idOf = (item: InboxItem) => (item.kind === 'chat' ? item.conversation.id : item.kind === 'submission' ? item.submission.id : item.appointment.id);

/** One line a screen reader reads whole: kind, who, what, state, when. */
function Entry({ item }: { item: InboxItem }) {
  switch (item.kind) {
    case 'chat': {
      const c = item.conversation;
      return (
        <a href={hrefOf('chats')} id={`inbox-chat-${c.id}`} data-waiting={c.status === 'OPEN' ? 'true' : 'false'} onClick={() => void openConversation(c.id)}>
          <span class="kind">{t.kindChat}</span>
          <span class="who">{` · ${visitorLabel(c)}`}</span>
          {c.unreadCount > 0 && <span class="badge">{` (${c.unreadCount})`}</span>}
          <span class="last">{` · ${c.lastMessage ? messagePreview(c.lastMessage) : ''} · ${c.status === 'OPEN' ? t.openLower : t.closedLower} · ${when(item.at)}`}</span>
        </a>
      );
    }
    case 'submission': {
      const s = item.submission;
      return (
        <a href={hrefOf('submissions', s.id)} id={`inbox-submission-${s.id}`} data-waiting={s.handledAt ? 'false' : 'true'}>
          <span class="kind">{t.kindSubmission}</span>
          <span class="who">{` · ${s.name}`}</span>
          <span class="last">{` · ${s.subject || t.noSubject} · ${s.handledAt ? t.handledLower : t.openLower} · ${when(item.at)}`}</span>
        </a>
      );
    }
    case 'booking': {
      const b = item.appointment;
      return (
        <a href={hrefOf('bookings', b.id)} id={`inbox-booking-${b.id}`} data-waiting={b.status === 'PENDING' ? 'true' : 'false'}>
          <span class="kind">{t.kindBooking}</span>
          <span class="who">{` · ${b.visitorName}`}</span>
          <span class="last">{` · ${t.requestedFor} ${when(b.requestedAt)} · ${t.status[b.status]} · ${when(item.at)}`}</span>
        </a>
      );
    }
  }
}
