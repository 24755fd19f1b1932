import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { Types } from 'mongoose';
import type { Deps } from '../deps.js';
import type { StoredObject } from '../db/object-storage.js';
import { constantTimeEqual } from '../shared/crypto.js';
import { fail } from '../shared/errors.js';
import { publicBase } from '../shared/links.js';
import type { ChatAttachment, ChatMessage } from '../realtime/events.js';
import { withCleanUpload, type CleanFile } from '../media/media.service.js';
import { messageStore, type Sender } from './messages.model.js';
import { rememberedByToken, rememberedOf, type RememberedConversation } from './conversation-memo.service.js';
import { admitVisitorMessage, appendFilesMessage, assertOpen } from './messages.service.js';

/**
 * Chat attachments: a file sent in a conversation is a message of its own (`attachments`, empty `body`).
 * The upload goes through the media library's intake (streamed under `CHAT_ATTACHMENT_MAX_BYTES`, type read
 * from the bytes, images re-encoded without metadata), is written whole to the object store, and only then
 * is the message inserted: no message ever names an object that is not there, and a refused, dropped or
 * failed upload leaves nothing behind (a store that fails is a 503 with `Retry-After`, and no message).
 *
 * How a browser opens one: an `<img>` or a link cannot send a header, and the conversation token must not
 * travel into agents' consoles, webhooks or mails. So each attachment's `url` is a capability: its path
 * names the message, a random 128-bit attachment id, and a MAC over the workspace, conversation, message
 * and attachment ids under a key derived from `KEY_ENCRYPTION_SECRET` (`/chat-files/:mid/:aid/:sig/:name`).
 * Whoever holds the URL (the visitor, the team, the workspace's webhooks and mails) can open the file;
 * nobody can make one up. API clients also have credentialed routes: the conversation token's (another
 * conversation's token answers 404) and the team's (`member`, 404 across workspaces).
 */

/** Where a chat file lies in the object store: by tenant, conversation and message, so they go together. */
const storageKey = (workspaceId: string, conversationId: string, messageId: string, attachmentId: string) =>
  `chat/${workspaceId}/${conversationId}/${messageId}/${attachmentId}`;

const signature = (deps: Deps, workspaceId: string, conversationId: string, messageId: string, attachmentId: string) =>
  deps.secretBox.sign(`chat-attachment:v1:${workspaceId}:${conversationId}:${messageId}:${attachmentId}`);

function signedUrl(deps: Deps, conversation: RememberedConversation, messageId: string, attachmentId: string, name: string): string {
  const sig = signature(deps, conversation.workspaceId, conversation.id, messageId, attachmentId);
  return `${publicBase(deps.config)}/chat-files/${messageId}/${attachmentId}/${sig}/${encodeURIComponent(name)}`;
}

/** Stores the cleaned file, then appends its message; the object goes again when the message was not written. */
async function storeAndAppend(
  deps: Deps,
  conversation: RememberedConversation,
  file: CleanFile,
  author: { sender: Sender; authorUserId: string | null },
): Promise<ChatMessage> {
  const messageId = new Types.ObjectId().toHexString();
  const attachmentId = randomBytes(16).toString('hex');
  const key = storageKey(conversation.workspaceId, conversation.id, messageId, attachmentId);
  await deps.storage.put(key, createReadStream(file.path), file);
  const attachment: ChatAttachment = {
    id: attachmentId,
    name: file.name,
    contentType: file.contentType,
    size: file.size,
    url: signedUrl(deps, conversation, messageId, attachmentId, file.name),
    ...(file.width !== null && file.height !== null ? { width: file.width, height: file.height } : {}),
  };
  try {
    return await appendFilesMessage(deps, conversation, { id: messageId, ...author, attachments: [attachment] });
  } catch (error) {
    // Removed only when its message is surely not stored (a failure after the insert leaves a message that
    // names it); when that cannot be told, an unreferenced file is kept rather than a reference broken.
    const stored = await messageStore(deps.db)
      .byId(conversation.workspaceId, conversation.id, messageId)
      .catch(() => 'unknown' as const);
    if (stored === null) await deps.storage.delete(key).catch((cause: unknown) => deps.logger.warn({ err: cause, key }, 'live chat: orphan attachment not removed'));
    throw error;
  }
}

/** A visitor sends a file (conversation token): counted by the flood guard like any message. */
export async function postVisitorAttachment(deps: Deps, token: string, req: IncomingMessage): Promise<ChatMessage> {
  const conversation = await rememberedByToken(deps, token);
  assertOpen(conversation);
  return withCleanUpload(req, deps.config.CHAT_ATTACHMENT_MAX_BYTES, async (file) => {
    await admitVisitorMessage(deps, conversation);
    return storeAndAppend(deps, conversation, file, { sender: 'VISITOR', authorUserId: null });
  });
}

/** A team member sends a file; no flood guard applies to the team. */
export async function postAgentAttachment(deps: Deps, workspaceId: string, conversationId: string, userId: string, req: IncomingMessage): Promise<ChatMessage> {
  const conversation = await rememberedOf(deps, workspaceId, conversationId);
  assertOpen(conversation);
  return withCleanUpload(req, deps.config.CHAT_ATTACHMENT_MAX_BYTES, (file) => storeAndAppend(deps, conversation, file, { sender: 'AGENT', authorUserId: userId }));
}

export interface AttachmentFile {
  attachment: ChatAttachment;
  object: StoredObject;
}

async function openFile(deps: Deps, workspaceId: string, conversationId: string, messageId: string, attachmentId: string): Promise<AttachmentFile> {
  const message = await messageStore(deps.db).byId(workspaceId, conversationId, messageId);
  const attachment = message?.attachments?.find((candidate) => candidate.id === attachmentId);
  if (!attachment) throw fail('attachment_not_found');
  const object = await deps.storage.get(storageKey(workspaceId, conversationId, messageId, attachmentId));
  if (!object) throw fail('attachment_not_found');
  return { attachment, object };
}

/** The visitor's read: only a file of the token's own conversation; any other answers 404. */
export async function visitorAttachment(deps: Deps, token: string, messageId: string, attachmentId: string): Promise<AttachmentFile> {
  const conversation = await rememberedByToken(deps, token);
  return openFile(deps, conversation.workspaceId, conversation.id, messageId, attachmentId);
}

/** The team's read (membership checked at the edge; another workspace's conversation answers 404). */
export async function agentAttachment(deps: Deps, workspaceId: string, conversationId: string, messageId: string, attachmentId: string): Promise<AttachmentFile> {
  const conversation = await rememberedOf(deps, workspaceId, conversationId);
  return openFile(deps, conversation.workspaceId, conversation.id, messageId, attachmentId);
}

/** The signed URL's read: a signature that does not match answers exactly as an unknown file. */
export async function signedAttachment(deps: Deps, messageId: string, attachmentId: string, sig: string): Promise<AttachmentFile> {
  const found = await messageStore(deps.db).attachmentAnywhere(messageId, attachmentId);
  if (!found || !constantTimeEqual(sig, signature(deps, found.workspaceId, found.conversationId, messageId, attachmentId))) throw fail('attachment_not_found');
  return openFile(deps, found.workspaceId, found.conversationId, messageId, attachmentId);
}
