import type { Deps } from '../deps.js';
import { isContentEvent, isDomainEvent, type ContentEvent, type FactHandler } from '../events/events.js';
import { pushLiveChat } from '../livechat/live-push.js';
import { recordEvent } from '../webhooks/webhooks.record.js';
import type { WebhookPipeline } from '../webhooks/webhooks.pipeline.js';
import { notifyTeamOfSubmission } from '../submissions/submissions.service.js';

/**
 * The one door out of the services: every listener of the bus, in the order each fact reaches them.
 * Publishers await the bus, so all of them have done their part before the request answers. Mails leave
 * later, as jobs: a listener here or the service that decides one queues it (`email/`, `livechat/followup.service.ts`).
 */
export function registerListeners(deps: Deps, parts: { webhooks: WebhookPipeline }): void {
  const listeners: FactHandler[] = [
    // The live-chat sockets, first: a chat message's insert stays the only engine command before its push.
    (fact) => pushLiveChat(deps, fact),
    // The published-content cache: every post, navigation and workspace event changes published content
    // (other writes call the cache themselves); what it changed goes on every node before it is answered:
    // a post's own answers and the lists, anything else every answer of the workspace.
    (fact) => (isContentEvent(fact) ? forgetPublished(deps, fact) : undefined),
    // The webhook recorder (the outbox): a webhook event's deliveries are stored before the request answers.
    (fact) => (isDomainEvent(fact) ? recordEvent(parts.webhooks, fact) : undefined),
    // The team's "new submission" mail, queued in the outbox (sent by its job).
    (fact) => (fact.event === 'submission.created' ? notifyTeamOfSubmission(deps, fact.workspaceId, fact.data.submissionId) : undefined),
  ];
  for (const listener of listeners) deps.events.listen(listener);
}

function forgetPublished(deps: Deps, fact: ContentEvent): Promise<void> {
  if ('translationGroupId' in fact && fact.translationGroupId) {
    const change = fact.event === 'post.published' ? 'replaced' : 'withdrawn';
    return deps.cache.invalidatePost(fact.workspaceId, { slug: fact.slug, translationGroupId: fact.translationGroupId }, change);
  }
  return deps.cache.invalidateWorkspace(fact.workspaceId);
}
