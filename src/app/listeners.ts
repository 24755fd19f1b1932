import type { Deps } from '../deps.js';
import { isContentEvent, isDomainEvent, type FactHandler } from '../events/events.js';
import { pushLiveChat } from '../livechat/live-push.js';
import { recordEvent } from '../webhooks/webhooks.record.js';
import type { WebhookPipeline } from '../webhooks/webhooks.pipeline.js';

/**
 * The one door out of the services: every listener of the bus, in the order each fact reaches them.
 * Publishers await the bus, so all of them have done their part before the request answers. Mails are
 * not here: they leave later, as jobs their services queue (`email/`, `livechat/followup.service.ts`).
 */
export function registerListeners(deps: Deps, parts: { webhooks: WebhookPipeline }): void {
  const listeners: FactHandler[] = [
    // The live-chat sockets, first: a chat message's insert stays the only engine command before its push.
    (fact) => pushLiveChat(deps, fact),
    // The published-content cache: every post, navigation and workspace event changes published content
    // (other writes call the cache themselves); the workspace's answers go on every node before it is answered.
    (fact) => (isContentEvent(fact) ? deps.cache.invalidateWorkspace(fact.workspaceId) : undefined),
    // The webhook recorder (the outbox): a webhook event's deliveries are stored before the request answers.
    (fact) => (isDomainEvent(fact) ? recordEvent(parts.webhooks, fact) : undefined),
  ];
  for (const listener of listeners) deps.events.listen(listener);
}
