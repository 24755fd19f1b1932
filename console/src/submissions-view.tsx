import { useEffect, useRef, useState } from 'preact/hooks';
import type { FieldIssue } from './api.js';
import { hrefOf, navigate, route } from './router.js';
import { t } from './strings.js';
import * as submissions from './submissions.js';
import { DraftArea, drafts, FilterSelect, SearchBox, when } from './widgets.js';
import { PersonPanel } from './person-panel.js';
import { loadView } from './store.js';

export function SubmissionsView() {
  const id = route.value.id;
  useEffect(() => loadView(submissions.loadSubmissions), []);
  useEffect(() => {
    if (id) void submissions.openSubmission(id);
  }, [id]);
  return (
    <div class={id ? 'cols has-selection' : 'cols'}>
      <SubmissionList current={id} />
      {id ? <SubmissionDetail id={id} /> : <p class="box placeholder muted">{t.pickSubmission}</p>}
    </div>
  );
}

function SubmissionList({ current }: { current: string | null }) {
  const items = submissions.list.value;
  return (
    <section class="box inbox" aria-labelledby="submissions-title">
      <h2 id="submissions-title">{t.submissions}</h2>
      <div class="filters">
        <FilterSelect
          id="submission-state"
          label={t.show}
          filter={submissions.stateFilter}
          options={{ open: t.open, handled: t.handled, all: t.all }}
          onChange={() => void submissions.loadSubmissions()}
        />
        <SearchBox id="submission-search" label={t.search} placeholder={t.searchSubmissions} text={submissions.query} onSearch={() => void submissions.loadSubmissions()} />
      </div>
      <ul id="submissions" class="entries" aria-label={t.submissions}>
        {items.map((s) => (
          <li key={s.id}>
            <a href={hrefOf('submissions', s.id)} id={`submission-${s.id}`} aria-current={s.id === current ? 'true' : undefined} data-handled={s.handledAt ? 'true' : 'false'}>
              <span class="who">{s.name}</span>
              <span class="last">{` · ${s.subject || t.noSubject} · ${when(s.createdAt)}`}</span>
            </a>
          </li>
        ))}
      </ul>
      {items.length === 0 && <p class="muted">{t.noSubmissions}</p>}
      {items.length < submissions.total.value && (
        <button type="button" onClick={() => void submissions.loadSubmissions(true)}>
          {t.showMore}
        </button>
      )}
    </section>
  );
}

function SubmissionDetail({ id }: { id: string }) {
  const s = submissions.detail.value;
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [s?.id]);
  if (!s || s.id !== id) return <p class="box placeholder muted" aria-busy="true" />;
  const back = () => {
    navigate('submissions');
    setTimeout(() => document.getElementById(`submission-${id}`)?.focus(), 0);
  };
  return (
    <section class="box conversation" aria-labelledby="submission-title">
      <div class="head">
        <button type="button" class="back" onClick={back}>
          {t.backToSubmissions}
        </button>
        <h2 id="submission-title" tabIndex={-1} ref={heading}>
          {s.subject || t.noSubject}
        </h2>
      </div>
      <dl class="facts">
        <dt>{t.name}</dt>
        <dd id="submission-name">{s.name}</dd>
        <dt>{t.email}</dt>
        <dd>
          <a href={`mailto:${s.email}`}>{s.email}</a>
        </dd>
        {s.phone && (
          <>
            <dt>{t.phone}</dt>
            <dd>{s.phone}</dd>
          </>
        )}
        {s.source && (
          <>
            <dt>{t.sentFrom}</dt>
            <dd>{s.source}</dd>
          </>
        )}
        <dt>{t.received}</dt>
        <dd>{when(s.createdAt)}</dd>
        <dt>{t.state}</dt>
        <dd id="submission-state-text">{s.handledAt ? t.handledBy(s.handledBy?.name ?? '', when(s.handledAt)) : t.notHandled}</dd>
      </dl>
      <p id="submission-message" class="message">
        {s.message}
      </p>
      {s.metadata && (
        <details>
          <summary>{t.details}</summary>
          <pre class="metadata">{JSON.stringify(s.metadata, null, 2)}</pre>
        </details>
      )}
      <p>
        <button type="button" id="toggle-handled" onClick={() => void submissions.setHandled(s.id, !s.handledAt)}>
          {s.handledAt ? t.markOpen : t.markHandled}
        </button>
      </p>
      {s.replies.length > 0 && (
        <section aria-labelledby="answers-title">
          <h3 id="answers-title">{t.answers}</h3>
          <ul id="answers" class="answers">
            {s.replies.map((r) => (
              <li key={r.id}>
                <span class="muted">{t.answeredBy(r.author.name, when(r.createdAt))}</span>
                <span class="message">{r.body}</span>
              </li>
            ))}
          </ul>
        </section>
      )}
      <AnswerForm id={s.id} to={s.email} />
      <PersonPanel keys={{ email: s.email }} current={s.id} />
    </section>
  );
}

function AnswerForm({ id, to }: { id: string; to: string }) {
  const [text, setText] = useState(drafts.get(`answer.${id}`));
  const [issues, setIssues] = useState<FieldIssue[]>([]);
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState(false);
  useEffect(() => {
    setText(drafts.get(`answer.${id}`));
    setIssues([]);
    setSent(false);
  }, [id]);
  const problem = issues.find((issue) => issue.path === 'body')?.message;
  const send = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    const result = await submissions.answer(id, text);
    setBusy(false);
    setSent(result.ok);
    setIssues(result.ok ? [] : result.issues);
    if (result.ok) {
      drafts.set(`answer.${id}`, '');
      setText('');
    }
  };
  return (
    <form id="answer" class="stack" onSubmit={send}>
      <DraftArea
        id="answer-body"
        problemId="answer-problem"
        label={t.answerByEmail(to)}
        draftKey={`answer.${id}`}
        rows={4}
        text={text}
        problem={problem ?? ''}
        onText={(value) => {
          setText(value);
          setSent(false);
        }}
      />
      <button type="submit" disabled={busy}>
        {t.sendAnswer}
      </button>
      <p role="status" class="muted">
        {sent ? t.answerSent : ''}
      </p>
    </form>
  );
}
