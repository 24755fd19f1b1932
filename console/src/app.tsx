import { useEffect, useRef, useState } from 'preact/hooks';
import { useSignalEffect } from '@preact/signals';
import { visitorLabel, type Conversation } from './api.js';
import { askNotifications, notifyPermission, setSound, soundOn } from './alerts.js';
import * as store from './store.js';
import { agentStoppedTyping, agentTyped, assign, loadMe, me, typing } from './engagement.js';
import { hrefOf, navigate, route, SECTIONS, type Section } from './router.js';
import { t } from './strings.js';
import * as submissions from './submissions.js';
import * as bookings from './bookings.js';
import { SubmissionsView } from './submissions-view.js';
import { BookingsView } from './bookings-view.js';
import { FilterSelect, SearchBox } from './widgets.js';

const BASE_TITLE = 'Agent console';

export function App() {
  useSignalEffect(() => {
    // Everything that waits for the team: unread chat messages, open submissions, unanswered booking requests.
    const waiting = store.unreadTotal.value + submissions.waiting.value + bookings.pending.value.length;
    document.title = waiting > 0 ? `(${waiting}) ${BASE_TITLE}` : BASE_TITLE;
  });
  return (
    <main>
      <h1>{BASE_TITLE}</h1>
      <ErrorNotice />
      {store.token.value ? <Console /> : <Login />}
    </main>
  );
}

function ErrorNotice() {
  const text = store.error.value;
  return (
    <div role="alert" class="error">
      {text && (
        <p>
          <span id="error">{text}</span>{' '}
          <button type="button" onClick={() => (store.error.value = '')}>
            Dismiss
          </button>
        </p>
      )}
    </div>
  );
}

function Login() {
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    setBusy(true);
    // Both fields are text inputs: FormData gives their strings.
    await store.login(data.get('email') as string, data.get('password') as string);
    setBusy(false);
  };
  return (
    <form id="login" class="box" onSubmit={submit}>
      <p>
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required />
      </p>
      <p>
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
      </p>
      <button type="submit" disabled={busy}>
        Log in
      </button>
    </form>
  );
}

function Console() {
  useEffect(() => void loadMe(), []);
  const section = route.value.section;
  // A view loads for the workspace shown: picking another one mounts it afresh.
  const key = `${section}:${store.workspaceId.value ?? ''}`;
  return (
    <div class="console">
      <Toolbar />
      <SectionNav />
      {section === 'chats' ? <ChatsView key={key} /> : section === 'submissions' ? <SubmissionsView key={key} /> : <BookingsView key={key} />}
    </div>
  );
}

const BADGES: Record<Section, () => number> = {
  chats: () => store.unreadTotal.value,
  submissions: () => submissions.waiting.value,
  bookings: () => bookings.pending.value.length,
};

function SectionNav() {
  const current = route.value.section;
  return (
    <nav aria-label={t.sections} class="sections">
      <ul>
        {SECTIONS.map((section) => {
          const count = BADGES[section]();
          return (
            <li key={section}>
              <a href={hrefOf(section)} id={`nav-${section}`} aria-current={section === current ? 'page' : undefined}>
                {t[section]}
                {count > 0 && <span class="badge">{` (${t.waiting(count)})`}</span>}
              </a>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

function ChatsView() {
  const hasSelection = store.selectedId.value !== null;
  return (
    <div class={hasSelection ? 'cols has-selection' : 'cols'}>
      <Inbox />
      {hasSelection ? <ConversationView /> : <p class="box placeholder muted">Pick a conversation.</p>}
    </div>
  );
}

function Toolbar() {
  const permission = notifyPermission.value;
  return (
    <div class="toolbar">
      <label for="workspace">Workspace</label>
      <select
        id="workspace"
        value={store.workspaceId.value ?? ''}
        onChange={(e) => {
          store.pickWorkspace(e.currentTarget.value);
          navigate(route.value.section);
        }}
      >
        {store.workspaces.value.map((w) => (
          <option key={w.id} value={w.id}>
            {`${w.name} (${w.slug})`}
          </option>
        ))}
      </select>
      <span id="live" class="muted" role="status">
        {store.live.value === 'live' ? 'live' : store.live.value === 'connecting' ? 'connecting…' : 'offline, reconnecting…'}
      </span>
      {permission === 'default' && (
        <button type="button" onClick={() => void askNotifications()}>
          Enable notifications
        </button>
      )}
      <label>
        <input type="checkbox" checked={soundOn.value} onChange={(e) => setSound((e.currentTarget).checked)} /> Sound
      </label>
      <button type="button" onClick={store.logout}>
        Log out
      </button>
    </div>
  );
}

const reloadInbox = () => void store.loadConversations();

function Inbox() {
  const list = store.conversations.value;
  return (
    <section class="box inbox" aria-labelledby="inbox-title">
      <h2 id="inbox-title">Conversations</h2>
      <div class="filters">
        <FilterSelect id="status" label="Show" filter={store.statusFilter} options={{ OPEN: 'Open', CLOSED: 'Closed' }} onChange={reloadInbox} />
        <FilterSelect id="assignee-filter" label="Assigned" filter={store.assigneeFilter} options={{ all: 'Anyone', me: 'Mine' }} onChange={reloadInbox} />
        <SearchBox id="search" label="Search" placeholder="Visitor name or e-mail" text={store.search} onSearch={reloadInbox} />
      </div>
      <ul id="conversations" aria-label="Conversations">
        {list.map((c) => (
          <ConversationEntry key={c.id} conversation={c} current={c.id === store.selectedId.value} />
        ))}
      </ul>
      {list.length === 0 && <p class="muted">No conversations.</p>}
      {list.length < store.total.value && (
        <button type="button" onClick={() => void store.loadConversations(true)}>
          Show more
        </button>
      )}
    </section>
  );
}

function ConversationEntry({ conversation: c, current }: { conversation: Conversation; current: boolean }) {
  // The button's text is exactly "name (unread) · last message": screen readers read it as one line.
  return (
    <li>
      <button type="button" id={`conv-${c.id}`} aria-current={current ? 'true' : undefined} data-status={c.status} onClick={() => void store.openConversation(c.id)}>
        <span class="who">{visitorLabel(c)}</span>
        {c.unreadCount > 0 && <span class="badge">{` (${c.unreadCount})`}</span>}
        {c.lastMessage && <span class="last">{` · ${c.lastMessage.body.slice(0, 60)}`}</span>}
        {c.assignee && <span class="last">{` · ${c.assignee.name || 'assigned'}`}</span>}
      </button>
    </li>
  );
}

function ConversationView() {
  const c = store.selected.value;
  const logRef = useRef<HTMLDivElement>(null);
  const messages = store.messages.value;
  useEffect(() => {
    const log = logRef.current;
    if (log) log.scrollTop = log.scrollHeight;
  }, [messages.length]);
  useEffect(() => {
    document.getElementById('body')?.focus();
  }, [store.selectedId.value]);
  if (!c) return null;
  const seenAt = c.readByVisitor?.createdAt ?? '';
  const lastSeen = seenAt ? messages.filter((m) => m.sender === 'AGENT' && m.createdAt <= seenAt).pop()?.id : undefined;
  const typingNow = typing.value[c.id];
  const back = () => {
    const id = c.id;
    store.closeView();
    // The list is shown again on a narrow screen: the focus returns to the entry it came from.
    setTimeout(() => document.getElementById(`conv-${id}`)?.focus(), 0);
  };
  return (
    <section class="box conversation" aria-labelledby="title">
      <div class="head">
        <button type="button" class="back" onClick={back}>
          Back to conversations
        </button>
        <h2 id="title">{visitorLabel(c)}</h2>
      </div>
      <p id="assignment">
        <span id="assignee">{c.assignee ? `Assigned to ${c.assignee.name || 'a member'}` : 'Unassigned'}</span>{' '}
        {me.value && c.assignee?.userId !== me.value.id && (
          <button type="button" onClick={() => void assign(me.value!.id)}>
            Assign to me
          </button>
        )}{' '}
        {c.assignee && (
          <button type="button" onClick={() => void assign(null)}>
            Unassign
          </button>
        )}
      </p>
      <div class="split">
        <div class="thread">
          <span id="from-VISITOR" hidden>
            From the visitor
          </span>
          <span id="from-AGENT" hidden>
            From the team
          </span>
          <div class="log" role="log" aria-live="polite" aria-label="Messages" ref={logRef} tabIndex={0}>
            <ol id="messages">
              {messages.map((m) => (
                <li key={m.id} class={m.sender} data-sender={m.sender} title={new Date(m.createdAt).toLocaleString()} aria-describedby={`from-${m.sender}`} data-seen={m.id === lastSeen ? 'Seen' : undefined}>
                  {m.body}
                </li>
              ))}
            </ol>
          </div>
          <p id="typing" class="muted" aria-live="polite">
            {typingNow ? `${typingNow} is typing…` : ''}
          </p>
          {c.status === 'OPEN' ? <Reply /> : <p class="muted">This conversation is closed.</p>}
        </div>
        <VisitorPanel conversation={c} />
      </div>
    </section>
  );
}

function Reply() {
  const [text, setText] = useState('');
  const [closing, setClosing] = useState('');
  const send = async (event?: Event) => {
    event?.preventDefault();
    agentStoppedTyping();
    if (await store.sendReply(text)) setText('');
  };
  return (
    <>
      <form id="reply" class="row" onSubmit={send}>
        <label for="body">Reply</label>
        <textarea
          id="body"
          rows={2}
          maxLength={2000}
          value={text}
          onInput={(e) => {
            setText((e.currentTarget).value);
            agentTyped();
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey) void send(e);
          }}
        />
        <button type="submit">Send</button>
      </form>
      <details class="close">
        <summary>Close conversation…</summary>
        <form
          id="close"
          onSubmit={async (e) => {
            e.preventDefault();
            if (await store.closeConversation(closing)) setClosing('');
          }}
        >
          <label for="closing-message">Closing message to the visitor (optional)</label>
          <textarea id="closing-message" rows={2} maxLength={2000} value={closing} onInput={(e) => setClosing((e.currentTarget).value)} />
          <button type="submit">Close conversation</button>
        </form>
      </details>
    </>
  );
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

function VisitorPanel({ conversation: c }: { conversation: Conversation }) {
  const v = c.visitor;
  return (
    <aside class="visitor" aria-labelledby="visitor-title">
      <h3 id="visitor-title">Visitor</h3>
      <dl>
        <dt>Name</dt>
        <dd id="visitor-name">
          {v.name ?? '—'} {v.verified && <span class="verified">verified</span>}
        </dd>
        <dt>E-mail</dt>
        <dd id="visitor-email">{v.email ?? '—'}</dd>
        <dt>Page</dt>
        <dd id="visitor-page">{c.pageUrl ?? '—'}</dd>
        <dt>Locale</dt>
        <dd id="visitor-locale">{c.locale ?? '—'}</dd>
        <dt>First seen</dt>
        <dd>{when(c.createdAt)}</dd>
        <dt>Last activity</dt>
        <dd>{when(c.lastActivityAt)}</dd>
        <dt>Status</dt>
        <dd id="visitor-status">{c.status === 'OPEN' ? 'open' : 'closed'}</dd>
      </dl>
    </aside>
  );
}
