import { useEffect, useState } from 'preact/hooks';
import { EVENT_NAMES } from '../../src/events/events.js';
import type { FieldIssue } from './api.js';
import { t } from './strings.js';
import * as settings from './settings.js';
import { Confirm, OnceSecret, OtherProblems, problemOf, SettingField, Status, useLoad } from './settings-form.js';
import { text, useSubmit, when } from './widgets.js';

/**
 * The workspace's webhook URL (the spec's content events) and its registered endpoints: each with its event
 * filter, its secret (shown once, at creation and rotation), a test event and its delivery log.
 */
export function WebhooksPanel() {
  const ready = useLoad(settings.loadWorkspace, settings.loadEndpoints);
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null);
  const workspace = settings.workspace.value;
  if (!ready || !workspace) return <p class="muted" aria-busy="true" />;
  const s = t.settingsText;
  return (
    <>
      <WebhookUrlForm current={workspace.webhookUrl} />
      {secret && (
        <OnceSecret
          label={secret.label}
          secret={secret.value}
          onDone={() => {
            setSecret(null);
            setTimeout(() => document.getElementById('endpoints-title')?.focus(), 0);
          }}
        />
      )}
      <h3 id="endpoints-title" tabIndex={-1}>
        {s.endpoints}
      </h3>
      <p class="muted">{s.endpointsHelp}</p>
      <ul id="endpoints" class="endpoints" aria-labelledby="endpoints-title">
        {settings.endpoints.value.map((endpoint) => (
          <EndpointEntry key={endpoint.id} endpoint={endpoint} onSecret={(value) => setSecret({ label: s.newSecretOf(endpoint.url), value })} />
        ))}
      </ul>
      {settings.endpoints.value.length === 0 && <p class="muted">{s.noEndpoints}</p>}
      <NewEndpoint onSecret={(url, value) => setSecret({ label: s.newSecretOf(url), value })} />
    </>
  );
}

function WebhookUrlForm({ current }: { current: string | null }) {
  const s = t.settingsText;
  const [done, setDone] = useState('');
  const form = useSubmit(
    (data) => {
      setDone('');
      return settings.saveWorkspace({ webhookUrl: text(data, 'webhookUrl').trim() || null });
    },
    () => setDone(s.saved),
  );
  return (
    <form id="webhook-url-form" class="stack" aria-labelledby="webhook-url-title" onSubmit={form.onSubmit} noValidate>
      <h3 id="webhook-url-title">{s.webhookUrl}</h3>
      <SettingField id="webhook-url" name="webhookUrl" kind="url" label={s.webhookUrlLabel} help={s.webhookUrlHelp} value={current} placeholder="https://example.com/hooks?secret=…" issues={form.issues} />
      <OtherProblems id="webhook-url-problem" issues={form.issues} message={form.message} names={['webhookUrl']} />
      <button type="submit" disabled={form.busy}>
        {s.save}
      </button>
      <Status id="webhook-url-status" text={done} />
    </form>
  );
}

/** Checkboxes of the event names (or every event, `*`), named `events`. */
function EventFilter({ id, chosen, issues }: { id: string; chosen: string[]; issues: FieldIssue[] }) {
  const s = t.settingsText;
  const problem = problemOf(issues, 'events');
  return (
    <fieldset id={id} class="events" aria-describedby={problem ? `${id}-problem` : undefined}>
      <legend>{s.events}</legend>
      <label>
        <input type="checkbox" name="events" value="*" defaultChecked={chosen.includes('*')} /> {s.allEvents}
      </label>
      {EVENT_NAMES.map((name) => (
        <label key={name}>
          <input type="checkbox" name="events" value={name} defaultChecked={chosen.includes(name)} /> {name}
        </label>
      ))}
      {problem && (
        <span id={`${id}-problem`} class="field-error">
          {problem}
        </span>
      )}
    </fieldset>
  );
}

const eventsOf = (data: FormData) => data.getAll('events').filter((value): value is string => typeof value === 'string');

function NewEndpoint({ onSecret }: { onSecret: (url: string, secret: string) => void }) {
  const s = t.settingsText;
  const form = useSubmit(
    async (data) => {
      const url = text(data, 'url').trim();
      return { url, secret: await settings.createEndpoint({ url, events: eventsOf(data), description: text(data, 'description').trim() || null }) };
    },
    ({ url, secret }, element) => {
      element.reset();
      onSecret(url, secret);
    },
  );
  return (
    <form id="create-endpoint" class="stack" aria-labelledby="new-endpoint-title" onSubmit={form.onSubmit} noValidate>
      <h3 id="new-endpoint-title">{s.newEndpoint}</h3>
      <SettingField id="endpoint-url" name="url" kind="url" label={s.endpointUrl} placeholder="https://example.com/hooks" issues={form.issues} />
      <SettingField id="endpoint-description" name="description" label={s.description} issues={form.issues} />
      <EventFilter id="endpoint-events" chosen={['*']} issues={form.issues} />
      <OtherProblems id="create-endpoint-problem" issues={form.issues} message={form.message} names={['url', 'description', 'events']} />
      <button type="submit" disabled={form.busy}>
        {s.addEndpoint}
      </button>
    </form>
  );
}

function EndpointEntry({ endpoint, onSecret }: { endpoint: settings.Endpoint; onSecret: (secret: string) => void }) {
  const s = t.settingsText;
  const [open, setOpen] = useState<'log' | 'filter' | null>(null);
  const [status, setStatus] = useState('');
  const [problem, setProblem] = useState('');
  const act = async (work: () => Promise<void>, done: string) => {
    setProblem('');
    setStatus('');
    try {
      await work();
      setStatus(done);
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
    }
  };
  const toggle = (what: 'log' | 'filter') => {
    const next = open === what ? null : what;
    setOpen(next);
    if (next === 'log') void act(() => settings.loadDeliveries(endpoint.id), '');
  };
  const health = !endpoint.enabled ? (endpoint.disabledReason ?? s.disabled) : endpoint.failingSince ? s.failingSince(when(endpoint.failingSince)) : s.healthy;
  const id = endpoint.id;
  return (
    <li id={`endpoint-${id}`} aria-labelledby={`endpoint-url-${id}`}>
      <p>
        <strong id={`endpoint-url-${id}`} class="url">
          {endpoint.url}
        </strong>
        {endpoint.description && <span class="muted">{` · ${endpoint.description}`}</span>}
      </p>
      <p class="muted">
        {s.eventsList(endpoint.events.includes('*') ? s.allEvents : endpoint.events.join(', '))} · <span data-health>{health}</span>
      </p>
      <div class="actions">
        <button type="button" id={`deliveries-${id}`} aria-expanded={open === 'log'} aria-controls={`log-${id}`} onClick={() => toggle('log')}>
          {s.deliveries}
        </button>
        <button type="button" id={`filter-${id}`} aria-expanded={open === 'filter'} onClick={() => toggle('filter')}>
          {s.editEvents}
        </button>
        <button
          type="button"
          id={`test-${id}`}
          onClick={() =>
            void act(async () => {
              await settings.sendTest(id);
              setOpen('log');
            }, s.testSent)
          }
        >
          {s.sendTest}
        </button>
        <button type="button" id={`toggle-${id}`} onClick={() => void act(() => settings.updateEndpoint(id, { enabled: !endpoint.enabled }), endpoint.enabled ? s.disabled : s.enabled)}>
          {endpoint.enabled ? s.disable : s.enable}
        </button>
        <Confirm id={`rotate-${id}`} label={s.rotateSecret} question={s.rotateSecretQuestion} yes={s.rotateKeyYes} onYes={() => act(async () => onSecret(await settings.rotateSecret(id)), s.secretRotated)} />
        <Confirm id={`delete-${id}`} label={s.deleteEndpoint} question={s.deleteEndpointQuestion} yes={s.deleteYes} onYes={() => act(() => settings.deleteEndpoint(id), '')} />
      </div>
      {problem && (
        <p role="alert" class="field-error">
          {problem}
        </p>
      )}
      <Status id={`endpoint-status-${id}`} text={status} />
      {open === 'filter' && <FilterForm endpoint={endpoint} onDone={() => setOpen(null)} />}
      {open === 'log' && <DeliveryLog endpointId={id} />}
    </li>
  );
}

function FilterForm({ endpoint, onDone }: { endpoint: settings.Endpoint; onDone: () => void }) {
  const s = t.settingsText;
  const form = useSubmit((data) => settings.updateEndpoint(endpoint.id, { events: eventsOf(data) }), onDone);
  return (
    <form id={`filter-form-${endpoint.id}`} class="stack" onSubmit={form.onSubmit} noValidate>
      <EventFilter id={`events-${endpoint.id}`} chosen={endpoint.events} issues={form.issues} />
      <OtherProblems id={`filter-problem-${endpoint.id}`} issues={form.issues} message={form.message} names={['events']} />
      <button type="submit" disabled={form.busy}>
        {s.save}
      </button>
    </form>
  );
}

/** How often an open log with unfinished deliveries is read again. */
const REFRESH_MS = 5_000;

function DeliveryLog({ endpointId }: { endpointId: string }) {
  const s = t.settingsText;
  const [problem, setProblem] = useState('');
  const items = settings.deliveries.value[endpointId];
  // While a delivery waits for an attempt, the log reads itself again now and then: retries show as they happen.
  const unfinished = (items ?? []).some((delivery) => delivery.state === 'pending' || delivery.state === 'scheduled');
  useEffect(() => {
    if (!unfinished) return;
    const timer = setInterval(() => void settings.loadDeliveries(endpointId).catch(() => undefined), REFRESH_MS);
    return () => clearInterval(timer);
  }, [unfinished, endpointId]);
  const run = (work: () => Promise<void>) =>
    void work().then(
      () => setProblem(''),
      (err: unknown) => setProblem(err instanceof Error ? err.message : String(err)),
    );
  return (
    <section id={`log-${endpointId}`} class="log-panel" aria-labelledby={`log-title-${endpointId}`}>
      <h4 id={`log-title-${endpointId}`}>{s.deliveryLog}</h4>
      <button type="button" id={`refresh-${endpointId}`} onClick={() => run(() => settings.loadDeliveries(endpointId))}>
        {s.refresh}
      </button>
      {problem && (
        <p role="alert" class="field-error">
          {problem}
        </p>
      )}
      {items && items.length === 0 && <p class="muted">{s.noDeliveries}</p>}
      <ol class="deliveries" aria-live="polite">
        {(items ?? []).map((delivery) => (
          <li key={delivery.id} id={`delivery-${delivery.id}`} data-state={delivery.state} data-event={delivery.event}>
            <p>
              <strong>{delivery.event}</strong> · {s.deliveryStates[delivery.state]} · {when(delivery.createdAt)}
              {delivery.redeliveryOf && <span class="muted">{` · ${s.redelivery}`}</span>}
            </p>
            {delivery.finalReason && <p class="muted">{delivery.finalReason}</p>}
            <ul class="attempts" aria-label={s.attemptsOf(delivery.event)}>
              {delivery.attempts.map((attempt) => (
                <li key={attempt.number} data-status={attempt.statusCode ?? ''}>
                  {s.attempt(attempt.number, attempt.statusCode === null ? (attempt.error ?? s.noAnswer) : String(attempt.statusCode), when(attempt.at), attempt.durationMs)}
                </li>
              ))}
              {delivery.attempts.length === 0 && <li class="muted">{delivery.nextAttemptAt ? s.nextAttempt(when(delivery.nextAttemptAt)) : s.notYet}</li>}
            </ul>
            <button type="button" id={`redeliver-${delivery.id}`} onClick={() => run(() => settings.redeliver(endpointId, delivery.id))}>
              {s.redeliver}
            </button>
          </li>
        ))}
      </ol>
      {settings.olderDeliveries.value[endpointId] && (
        <button type="button" id={`older-${endpointId}`} onClick={() => run(() => settings.loadOlderDeliveries(endpointId))}>
          {s.olderDeliveries}
        </button>
      )}
    </section>
  );
}
