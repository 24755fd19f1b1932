import { randomBytes } from 'node:crypto';
import { findWorkspace } from '../workspaces/workspaces.service.js';
import { isContentEvent, type DomainEvent } from '../events/events.js';
import { endpointsFor, type WebhookEndpoint } from './endpoints.service.js';
import { deliveryStore } from './webhooks.model.js';
import type { Delivery } from './delivery.js';
import { envelopeOf, payloadOf } from './webhooks.payload.js';
import { newDelivery, storedTarget, type StoredTarget } from './webhooks.sealing.js';
import { leaseTtl } from './webhooks.schedule.js';
import type { Queued, WebhookPipeline } from './webhooks.pipeline.js';
import { dispatchWorkspace, ensureDispatchJob } from './webhooks.dispatch.js';

/**
 * The recording half of the first-attempt pipeline: publishing stores the deliveries (concurrent publishes
 * share one insert) and hands them to their workspace's dispatcher (`webhooks.dispatch.ts`).
 */

/** Events recorded with one insert at most. */
const INSERT_BATCH = 200;

/**
 * Subscriber of the event bus: stores the deliveries (one to the spec's `webhookUrl` for content events,
 * one per enabled endpoint subscribed to the event) before the publisher's request answers, then wakes a
 * dispatcher. Resolves to the `webhookUrl` delivery, if any. A business event of a workspace without a
 * subscribed endpoint costs one in-memory lookup.
 */
export async function recordEvent(node: WebhookPipeline, event: DomainEvent): Promise<Delivery | null> {
  if (!isContentEvent(event) && (await endpointsFor(node.deps, event)).length === 0) return null;
  return new Promise<Delivery | null>((done, fail) => {
    node.queued.push({ event, done, fail });
    node.recording.set(event.workspaceId, (node.recording.get(event.workspaceId) ?? 0) + 1);
    if (!node.writing) void writeQueued(node);
  });
}

/**
 * Group commit of recorded events: whatever queued while the previous insert ran goes in with the next
 * one, with one workspace read per workspace of the group.
 */
async function writeQueued(node: WebhookPipeline): Promise<void> {
  const { deps } = node;
  node.writing = true;
  try {
    while (node.queued.length) {
      const group = node.queued.splice(0, INSERT_BATCH);
      const batchId = randomBytes(6).toString('hex');
      // One draw of randomness and one sealing per target for the whole group, not one per event.
      const random = randomBytes(16 * group.length);
      const targets = new Map<string, StoredTarget>();
      const sealed = (url: string) => targets.get(url) ?? targets.set(url, storedTarget(deps, url)).get(url)!;
      const made: Delivery[] = [];
      try {
        const ids = [...new Set(group.map((entry) => entry.event.workspaceId))];
        const workspaces = new Map(await Promise.all(ids.map(async (id) => [id, await findWorkspace(deps, id)] as const)));
        // One look-up per workspace and event name: the endpoints' memo is dropped by every content event,
        // so during a burst a look-up per event would read the endpoints once per event.
        const lookups = new Map<string, Promise<WebhookEndpoint[]>>();
        const subscribed = (event: DomainEvent) => {
          const key = `${event.workspaceId}:${event.event}`;
          return lookups.get(key) ?? lookups.set(key, endpointsFor(deps, event)).get(key)!;
        };
        const endpoints = await Promise.all(group.map((entry) => subscribed(entry.event)));
        const results = group.map((entry, index) => {
          const workspace = workspaces.get(entry.event.workspaceId);
          if (!workspace) return null;
          const webhookId = `msg_${random.toString('hex', 16 * index, 16 * index + 16)}`;
          const batch = `${batchId}.${workspace.id}`;
          const add = (delivery: Delivery) => {
            delivery.batch = batch;
            made.push(delivery);
            return delivery;
          };
          const base = { event: entry.event.event, webhookId, state: 'pending' as const };
          // The spec's URL keeps the spec's events and payload; delivery ids keep the event order per target.
          const spec =
            isContentEvent(entry.event) && workspace.webhookUrl
              ? add(newDelivery(deps, workspace.id, { ...base, payload: payloadOf(entry.event), url: sealed(workspace.webhookUrl) }))
              : null;
          for (const endpoint of endpoints[index]) {
            add(newDelivery(deps, workspace.id, { ...base, payload: envelopeOf(entry.event, webhookId), url: sealed(endpoint.url), endpointId: endpoint.id }));
          }
          return spec;
        });
        await deliveryStore(deps.db).addPending(made);
        const byWorkspace = new Map<string, Delivery[]>();
        for (const delivery of made) {
          const deliveries = byWorkspace.get(delivery.workspaceId);
          if (deliveries) deliveries.push(delivery);
          else byWorkspace.set(delivery.workspaceId, [delivery]);
        }
        await Promise.all([...byWorkspace].map(([workspaceId, deliveries]) => afterRecorded(node, workspaceId, deliveries)));
        group.forEach((entry, index) => entry.done(results[index]));
      } catch (error) {
        for (const entry of group) entry.fail(error);
      }
      recorded(node, group);
    }
  } finally {
    node.writing = false;
  }
}

/** A group is stored (or failed): a dispatcher waiting for its workspace's events decides again. */
function recorded(node: WebhookPipeline, group: Queued[]): void {
  for (const { event } of group) {
    const left = (node.recording.get(event.workspaceId) ?? 1) - 1;
    if (left > 0) node.recording.set(event.workspaceId, left);
    else if (node.recording.delete(event.workspaceId)) node.active.get(event.workspaceId)?.wake();
  }
}

async function afterRecorded(node: WebhookPipeline, workspaceId: string, deliveries: Delivery[]): Promise<void> {
  const { deps } = node;
  const running = node.active.get(workspaceId);
  if (running) {
    // That dispatcher keeps the safety-net job alive and looks for new deliveries before it stops.
    running.offer(deliveries);
    return;
  }
  if (deps.jobs.running) {
    void dispatchWorkspace(node, workspaceId, async () => undefined, deliveries).catch((error: unknown) =>
      deps.logger.error({ err: error, workspaceId }, 'webhook dispatch failed; the dispatch job will retry'),
    );
  }
  try {
    await ensureDispatchJob(deps, workspaceId, deps.jobs.running ? leaseTtl(deps) : 0);
  } catch (error) {
    // The delivery is stored: the next event of the workspace or the next worker start dispatches it.
    deps.logger.error({ err: error, workspaceId }, 'could not enqueue webhook dispatch');
  }
}

