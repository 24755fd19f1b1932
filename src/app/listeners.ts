import type { Deps } from '../deps.js';
import { isContentEvent, isDomainEvent, type ContentEvent, type Fact } from '../events/events.js';
import { pushLiveChat } from '../livechat/live-push.js';
import { followUpMessage } from '../livechat/followup.service.js';
import { recordEvent } from '../webhooks/webhooks.record.js';
import type { WebhookPipeline } from '../webhooks/webhooks.pipeline.js';
import { notifyTeamOfSubmission } from '../submissions/submissions.service.js';

/**
 * When a listener runs. `before the answer`: the publisher awaits it, so it has done its part before the
 * request answers (and its failure fails the request). `after the answer`: started when the fact is
 * published, never awaited; the request answers without it, and it logs its own trouble.
 */
type When = 'before the answer' | 'after the answer';

interface Listener {
  when: When;
  react: (fact: Fact) => Promise<void> | void;
}

/**
 * The one door out of the services: every listener of the bus, in the order each fact reaches them.
 * Mails leave as jobs: a listener here or the service that decides one queues it (`email/`, `livechat/followup.service.ts`).
 */
export function registerListeners(deps: Deps, parts: { webhooks: WebhookPipeline }): void {
  const listeners: Listener[] = [
    // The live-chat sockets, first: a chat message's insert stays the only engine command before its push.
    { when: 'before the answer', react: (fact) => pushLiveChat(deps, fact) },
    // The published-content cache: every post, navigation and workspace event changes published content
    // (other writes call the cache themselves); what it changed goes on every node before it is answered:
    // a post's own answers and the lists, anything else every answer of the workspace.
    { when: 'before the answer', react: (fact) => (isContentEvent(fact) ? forgetPublished(deps, fact) : undefined) },
    // The webhook recorder (the outbox): a webhook event's deliveries are stored before the request answers.
    { when: 'before the answer', react: (fact) => (isDomainEvent(fact) ? recordEvent(parts.webhooks, fact) : undefined) },
    // The team's "new submission" mail, stored in the outbox before the answer (sent by its job).
    { when: 'before the answer', react: (fact) => (fact.event === 'submission.created' ? notifyTeamOfSubmission(deps, fact.workspaceId, fact.data.submissionId) : undefined) },
    // A stored chat message's follow-up mail (the team's away digest, or the replies to an absent visitor),
    // made due once the message's summary has filled the visitor's name and e-mail.
    {
      when: 'after the answer',
      react: (fact) => (fact.event === 'chat.message.stored' ? followUpMessage(deps, { id: fact.conversationId, workspaceId: fact.workspaceId }, fact.message) : undefined),
    },
  ];
  for (const { when, react } of listeners) {
    if (when === 'before the answer') deps.events.listen(react);
    else deps.events.listen((fact) => void Promise.resolve(react(fact)).catch((error: unknown) => deps.logger.error({ err: error, event: fact.event }, 'listener after the answer failed')));
  }
}

function forgetPublished(deps: Deps, fact: ContentEvent): Promise<void> {
  if ('translationGroupId' in fact && fact.translationGroupId) {
    const change = fact.event === 'post.published' ? 'replaced' : 'withdrawn';
    return deps.cache.invalidatePost(fact.workspaceId, { slug: fact.slug, translationGroupId: fact.translationGroupId }, change);
  }
  return deps.cache.invalidateWorkspace(fact.workspaceId);
}
