import type { Deps } from '../deps.js';
import { type Workspace } from '../workspaces/workspaces.service.js';
import { randomToken, sha256Hex } from '../shared/crypto.js';
import { fail } from '../shared/errors.js';
import { checkVisitorIdentity } from '../identity/identity.service.js';
import type { VerifiedVisitor } from '../identity/identity.schemas.js';
import { conversationStore, newConversationId, type Conversation } from './conversations.model.js';
import type { StartConversationBody } from './livechat.schemas.js';
import { activeSettings, localized } from './settings.service.js';
import { publishConversation } from './events.service.js';
import { rememberConversation } from './conversation-memo.service.js';
import { admitNewConversation } from './conversation-limits.service.js';

export type { Conversation } from './conversations.model.js';

/** `ct_<conversation id>_<43 random URL-safe chars>`: the id makes the lookup a primary-key read. */
export const conversationToken = (conversationId: string) => randomToken(`ct_${conversationId}_`);

/** A verified identity, or null (anonymous). A failed verification is logged with the workspace id. */
async function verifiedIdentity(deps: Deps, workspaceId: string, visitor: unknown): Promise<VerifiedVisitor | null> {
  const checked = await checkVisitorIdentity(deps, workspaceId, visitor);
  if (checked && 'failure' in checked) {
    deps.logger.warn({ workspaceId, reason: checked.failure }, 'live chat: visitor identity not verified; conversation starts anonymously');
  }
  return checked && 'verified' in checked ? checked.verified : null;
}

/** `enabled: false` while the plugin is off; otherwise the conversation, `resumed: false` when it was just created. */
export type StartResult =
  | { enabled: false }
  | { enabled: true; conversationId: string; conversationToken: string; greeting: string; resumed: boolean };

/**
 * Starts or resumes a conversation. A token resumes its conversation only when it is OPEN, of this
 * workspace, and (with a verified identity) not another person's; otherwise the token is ignored and a
 * new conversation is made. Without a token, a verified identity resumes that person's newest OPEN one.
 * A new one is admitted against the visitor's caps first (`admitNewConversation`, from `address` when known).
 */
export async function startConversation(deps: Deps, workspace: Workspace, body: StartConversationBody, address?: string): Promise<StartResult> {
  const settings = await activeSettings(deps, workspace.id);
  if (!settings) return { enabled: false };
  const store = conversationStore(deps.db);
  const identity = await verifiedIdentity(deps, workspace.id, body.visitor);
  const greeting = localized(settings.greetings, settings.greeting, body.locale);
  const answer = (conversation: Conversation, token: string, resumed: boolean): StartResult => ({
    enabled: true,
    conversationId: conversation.id,
    conversationToken: token,
    greeting,
    resumed,
  });

  if (body.conversationToken) {
    const found = await store.byToken(body.conversationToken, sha256Hex(body.conversationToken));
    const usable =
      found &&
      found.workspaceId === workspace.id &&
      found.status === 'OPEN' &&
      (!identity || !found.identityVerified || found.externalId === identity.externalId);
    if (usable) {
      if (identity && !found.identityVerified) await store.attachIdentity(workspace.id, found.id, identity);
      return answer(found, body.conversationToken, true);
    }
  } else if (identity) {
    const newest = await store.newestOpenOf(workspace.id, identity.externalId);
    // The token is kept sealed besides its lookup hash, so another device of the person gets the same one.
    if (newest) return answer(newest, deps.secretBox.open(newest.sealedToken), true);
  }

  await admitNewConversation(deps, workspace.id, { visitorSessionId: body.visitorSessionId, address });
  const id = newConversationId();
  const token = conversationToken(id);
  const conversation = await store.create(
    workspace.id,
    {
      id,
      tokenHash: sha256Hex(token),
      sealedToken: deps.secretBox.seal(token),
      visitorSessionId: body.visitorSessionId,
      pageUrl: body.pageUrl ?? null,
      referrer: body.referrer ?? null,
      locale: body.locale ?? null,
      identity,
    },
    deps.clock.now(),
  );
  await rememberConversation(deps, conversation);
  await deps.events.publish({ event: 'chat.opened', workspaceId: workspace.id, conversationId: conversation.id });
  await publishConversation(deps, 'conversation.created', conversation);
  return answer(conversation, token, false);
}

/** A conversation of the team's workspace, read whole (the inbox; the message path uses `rememberedOf`). */
export async function conversationOf(deps: Deps, workspaceId: string, conversationId: string): Promise<Conversation> {
  const conversation = await conversationStore(deps.db).byId(workspaceId, conversationId);
  if (!conversation) throw fail('conversation_not_found', 'No such conversation in this workspace.');
  return conversation;
}
