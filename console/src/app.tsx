import { useEffect, useRef, useState } from 'preact/hooks';
import { useSignalEffect } from '@preact/signals';
import { messagePreview, visitorLabel, type Conversation } from './api.js';
import { askNotifications, notifyPermission, setSound, soundOn } from './alerts.js';
import * as store from './store.js';
import { agentStoppedTyping, agentTyped, assign, loadMe, me, typing } from './engagement.js';
import { hrefOf, navigate, route, SECTIONS, type Section } from './router.js';
import { t } from './strings.js';
import * as submissions from './submissions.js';
import * as bookings from './bookings.js';
import { SubmissionsView } from './submissions-view.js';
import { InboxView } from './inbox-view.js';
import { BookingsView } from './bookings-view.js';
import { AccountView, TeamView } from './team-view.js';
import { PostsView, sectionShown } from './posts-view.js';
import { SettingsSlot, settingsShown } from './settings-slot.js';
import { StructureSlot } from './structure-slot.js';
import { MediaSlot } from './media-slot.js';
import { PublicPage } from './auth-pages.js';
import { PersonPanel } from './person-panel.js';
import { FilterSelect, SearchBox } from './widgets.js';
import { AttachButton, Attachments } from './attachments.js';

const BASE_TITLE = t.appTitle;

export function App() {
  useSignalEffect(() => {
    const waiting = waitingTotal();
    document.title = waiting > 0 ? `(${waiting}) ${BASE_TITLE}` : BASE_TITLE;
  });
  return (
    <main>
      <h1>{BASE_TITLE}</h1>
      <ErrorNotice />
      {route.value.page ? <PublicPage /> : store.token.value ? <Console /> : <Login />}
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
            {t.dismiss}
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
        <label for="email">{t.email}</label>
        <input id="email" name="email" type="email" autocomplete="username" required />
      </p>
      <p>
        <label for="password">{t.password}</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
      </p>
      <button type="submit" disabled={busy}>
        {t.logIn}
      </button>
      <p>
        <a href={hrefOf('forgot-password')}>{t.forgotPassword}</a>
      </p>
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
      <View key={key} />
    </div>
  );
}

const VIEWS: Record<Section, () => preact.JSX.Element> = {
  inbox: InboxView,
  chats: ChatsView,
  submissions: SubmissionsView,
  bookings: BookingsView,
  posts: PostsView,
  media: MediaSlot,
  structure: StructureSlot,
  team: TeamView,
  account: AccountView,
  settings: SettingsSlot,
};

function View() {
  const Shown = VIEWS[route.value.section];
  return <Shown />;
}

/** Everything that waits for the team: unread chat messages, open submissions, unanswered booking requests. */
const waitingTotal = () => store.unreadTotal.value + submissions.waiting.value + bookings.pending.value.length;

const BADGES: Record<Section, () => number> = {
  inbox: waitingTotal,
  chats: () => store.unreadTotal.value,
  submissions: () => submissions.waiting.value,
  bookings: () => bookings.pending.value.length,
  posts: () => 0,
  media: () => 0,
  structure: () => 0,
  team: () => 0,
  account: () => 0,
  settings: () => 0,
};

function SectionNav() {
  const current = route.value.section;
  return (
    <nav aria-label={t.sections} class="sections">
      <ul>
        {SECTIONS.filter((section) => sectionShown(section) && settingsShown(section)).map((section) => {
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
  // A mail's link names a conversation (`#/chats/<id>`, the away digest): it opens as a click in the inbox
  // would, once a workspace is shown (the view mounts again when it is).
  const linked = route.value.id;
  useEffect(() => {
    if (linked && store.workspaceId.peek() && linked !== store.selectedId.peek()) void store.openConversation(linked);
  }, [linked]);
  const hasSelection = store.selectedId.value !== null;
  return (
    <div class={hasSelection ? 'cols has-selection' : 'cols'}>
      <Inbox />
      {hasSelection ? <ConversationView /> : <p class="box placeholder muted">{t.pickConversation}</p>}
    </div>
  );
}

function Toolbar() {
  const permission = notifyPermission.value;
  return (
    <div class="toolbar">
      <label for="workspace">{t.workspace}</label>
      <select
        id="workspace"
        value={store.workspaceId.value ?? ''}
        onChange={(e) => {
          // Another workspace: its list of the same section (an open item belongs to the one left).
          if (e.currentTarget.value === store.workspaceId.value) return;
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
        {t.liveState[store.live.value]}
      </span>
      {permission === 'default' && (
        <button type="button" onClick={() => void askNotifications()}>
          {t.enableNotifications}
        </button>
      )}
      <label>
        <input type="checkbox" checked={soundOn.value} onChange={(e) => setSound(e.currentTarget.checked)} /> {t.sound}
      </label>
      <button type="button" onClick={store.logout}>
        {t.logOut}
      </button>
    </div>
  );
}

const reloadInbox = () => void store.loadConversations();

function Inbox() {
  const list = store.conversations.value;
  return (
    <section class="box inbox" aria-labelledby="inbox-title">
      <h2 id="inbox-title">{t.conversations}</h2>
      <div class="filters">
        <FilterSelect id="status" label={t.show} filter={store.statusFilter} options={{ OPEN: t.open, CLOSED: t.closed }} onChange={reloadInbox} />
        <FilterSelect id="assignee-filter" label={t.assigned} filter={store.assigneeFilter} options={{ all: t.anyone, me: t.mine }} onChange={reloadInbox} />
        <SearchBox id="search" label={t.search} placeholder={t.searchConversations} text={store.search} onSearch={reloadInbox} />
      </div>
      <ul id="conversations" aria-label={t.conversations}>
        {list.map((c) => (
          <ConversationEntry key={c.id} conversation={c} current={c.id === store.selectedId.value} />
        ))}
      </ul>
      {list.length === 0 && <p class="muted">{t.noConversations}</p>}
      {list.length < store.total.value && (
        <button type="button" onClick={() => void store.loadConversations(true)}>
          {t.showMore}
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
        {c.lastMessage && <span class="last">{` · ${messagePreview(c.lastMessage)}`}</span>}
        {c.assignee && <span class="last">{` · ${c.assignee.name || t.assignedShort}`}</span>}
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
          {t.backToConversations}
        </button>
        <h2 id="title">{visitorLabel(c)}</h2>
      </div>
      <p id="assignment">
        <span id="assignee">{c.assignee ? t.assignedTo(c.assignee.name) : t.unassigned}</span>{' '}
        {me.value && c.assignee?.userId !== me.value.id && (
          <button type="button" onClick={() => void assign(me.value!.id)}>
            {t.assignToMe}
          </button>
        )}{' '}
        {c.assignee && (
          <button type="button" onClick={() => void assign(null)}>
            {t.unassign}
          </button>
        )}
      </p>
      <div class="split">
        <div class="thread">
          <span id="from-VISITOR" hidden>
            {t.fromVisitor}
          </span>
          <span id="from-AGENT" hidden>
            {t.fromTeam}
          </span>
          <div class="log" role="log" aria-live="polite" aria-label={t.messages} ref={logRef} tabIndex={0}>
            <ol id="messages">
              {messages.map((m) => (
                <li key={m.id} class={m.sender} data-sender={m.sender} title={new Date(m.createdAt).toLocaleString()} aria-describedby={`from-${m.sender}`} data-seen={m.id === lastSeen ? t.seen : undefined}>
                  {m.body}
                  <Attachments message={m} />
                </li>
              ))}
            </ol>
          </div>
          <p id="typing" class="muted" aria-live="polite">
            {typingNow ? t.isTyping(typingNow) : ''}
          </p>
          {c.status === 'OPEN' ? <Reply /> : <p class="muted">{t.conversationClosed}</p>}
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
        <label for="body">{t.reply}</label>
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
        <AttachButton />
        <button type="submit">{t.send}</button>
      </form>
      <details class="close">
        <summary>{t.closeConversationMore}</summary>
        <form
          id="close"
          onSubmit={async (e) => {
            e.preventDefault();
            if (await store.closeConversation(closing)) setClosing('');
          }}
        >
          <label for="closing-message">{t.closingMessage}</label>
          <textarea id="closing-message" rows={2} maxLength={2000} value={closing} onInput={(e) => setClosing((e.currentTarget).value)} />
          <button type="submit">{t.closeConversation}</button>
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
      <h3 id="visitor-title">{t.visitor}</h3>
      <dl>
        <dt>{t.name}</dt>
        <dd id="visitor-name">
          {v.name ?? '—'} {v.verified && <span class="verified">{t.verified}</span>}
        </dd>
        <dt>{t.email}</dt>
        <dd id="visitor-email">{v.email ?? '—'}</dd>
        <dt>{t.page}</dt>
        <dd id="visitor-page">{c.pageUrl ?? '—'}</dd>
        <dt>{t.locale}</dt>
        <dd id="visitor-locale">{c.locale ?? '—'}</dd>
        <dt>{t.firstSeen}</dt>
        <dd>{when(c.createdAt)}</dd>
        <dt>{t.lastActivity}</dt>
        <dd>{when(c.lastActivityAt)}</dd>
        <dt>{t.state}</dt>
        <dd id="visitor-status">{c.status === 'OPEN' ? t.openLower : t.closedLower}</dd>
      </dl>
      <PersonPanel keys={{ externalId: v.verified ? v.externalId : null, email: v.email, visitorSessionId: v.sessionId }} current={c.id} />
    </aside>
  );
}
