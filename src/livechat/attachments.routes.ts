import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import { route, type RouteDef } from '../http/route.js';
import { agentAttachment, postAgentAttachment, postVisitorAttachment, signedAttachment, visitorAttachment, type AttachmentFile } from './attachments.service.js';
import { agentAttachmentParams, chatMessageSchema, conversationParams, signedFileParams, tokenParams, visitorAttachmentParams } from './livechat.schemas.js';
import { FLOOD_LIMIT } from './messages.service.js';

const external = ['External: live chat'];
const admin = ['Live chat'];

const UPLOAD_RULES =
  'Body: `multipart/form-data` with the file in a part named `file` (its file name becomes the attachment\'s `name`). The file ' +
  'becomes a message of its own with an empty `body` and `attachments: [{id, name, contentType, size, url, width?, height?}]` ' +
  '(`width`/`height` for images), pushed as `message.created` like any message. Streamed: past `CHAT_ATTACHMENT_MAX_BYTES` ' +
  '(default 10 MB; exactly the limit passes) the upload is refused while it arrives (413) and nothing is kept. The type is read ' +
  'from the bytes, never the name or Content-Type: JPEG, PNG, WebP, AVIF, GIF and PDF are accepted, anything else (an HTML page ' +
  'named `.png`, SVG, ...) is 415. Images are re-encoded upright without metadata (EXIF, GPS, XMP dropped); a corrupt image is ' +
  '400 `corrupt_media`. The file is written whole to the store before the message is stored: a store that fails answers 503 ' +
  'with `Retry-After` and no message names the file. `url` is a signed, unguessable URL (`/chat-files/...`) that an `<img>` or ' +
  'a link opens without any other credential: it is given to the conversation\'s visitor and team (and their webhooks and mails).';

const FILE_ANSWER = 'The bytes, with their `Content-Type`, `X-Content-Type-Options: nosniff`, a sandboxing CSP; PDFs as downloads.';

/** One stored chat file as the answer: never sniffed, never run as a page; a PDF is a download. */
async function sendFile(res: Response, { attachment, object }: AttachmentFile): Promise<Record<string, never>> {
  if (attachment.contentType === 'application/pdf') res.attachment(attachment.name);
  res.set({
    'Content-Type': attachment.contentType,
    'Content-Length': String(object.size),
    // The file never changes under its URL; only the URL's holders may see it (no shared caches).
    'Cache-Control': 'private, max-age=31536000, immutable',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; sandbox",
    'Cross-Origin-Resource-Policy': 'cross-origin',
    'Referrer-Policy': 'no-referrer',
  });
  await pipeline(object.body, res.status(200));
  return {};
}

export const attachmentRoutes: RouteDef[] = [
  route({
    method: 'post',
    path: '/external/live-chat/conversations/:token/attachments',
    summary: 'Visitor sends a file (conversation token)',
    description:
      `The token in the path is the credential, as for a text message. ${UPLOAD_RULES} The flood guard counts it like a text ` +
      `message (more than ${FLOOD_LIMIT} messages a minute: 409 \`flood_limited\`); a closed conversation is 409 \`conversation_closed\`.`,
    tags: external,
    auth: 'conversationToken',
    params: tokenParams,
    responses: {
      201: { description: 'The stored message (`sender` VISITOR) with its `attachments`.', schema: chatMessageSchema },
      400: 'No `file` part, or a corrupt or oversized image.',
      404: 'Unknown token (`conversation_not_found`).',
      409: '`flood_limited` (with `Retry-After`) or `conversation_closed`.',
      413: 'Over `CHAT_ATTACHMENT_MAX_BYTES`.',
      415: 'Not an image or a PDF.',
      503: 'File storage unreachable, or the flood guard unavailable (`Retry-After`).',
    },
    handle: async ({ deps, params, req }) => ({ status: 201, body: await postVisitorAttachment(deps, params.token, req) }),
  }),
  route({
    method: 'get',
    path: '/external/live-chat/conversations/:token/messages/:mid/attachments/:aid',
    summary: 'A file of the conversation (conversation token)',
    description: "Only the token's own conversation: a file of another conversation answers 404 exactly as an unknown one.",
    tags: external,
    auth: 'conversationToken',
    params: visitorAttachmentParams,
    responses: { 200: FILE_ANSWER, 404: '`conversation_not_found` or `attachment_not_found`.' },
    handle: async ({ deps, params, res }) => sendFile(res, await visitorAttachment(deps, params.token, params.mid, params.aid)),
  }),
  route({
    method: 'post',
    path: '/admin/workspaces/:wid/conversations/:cid/attachments',
    summary: 'Send a file as the team (AGENT message)',
    description: `${UPLOAD_RULES} No flood guard applies to the team. A CLOSED conversation is 409.`,
    tags: admin,
    auth: 'member',
    params: conversationParams,
    responses: {
      201: { description: 'The stored message (`sender` AGENT) with its `attachments`.', schema: chatMessageSchema },
      400: 'No `file` part, or a corrupt or oversized image.',
      404: '`conversation_not_found`.',
      409: '`conversation_closed`.',
      413: 'Over `CHAT_ATTACHMENT_MAX_BYTES`.',
      415: 'Not an image or a PDF.',
      503: 'File storage unreachable (`Retry-After`).',
    },
    handle: async ({ deps, workspace, params, user, req }) => ({ status: 201, body: await postAgentAttachment(deps, workspace.id, params.cid, user.id, req) }),
  }),
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/conversations/:cid/messages/:mid/attachments/:aid',
    summary: 'A file of a conversation (team)',
    description: "A conversation of another workspace, or a file of another conversation, answers 404.",
    tags: admin,
    auth: 'member',
    params: agentAttachmentParams,
    responses: { 200: FILE_ANSWER, 404: '`conversation_not_found` or `attachment_not_found`.' },
    handle: async ({ deps, workspace, params, res }) => sendFile(res, await agentAttachment(deps, workspace.id, params.cid, params.mid, params.aid)),
  }),
  route({
    method: 'get',
    path: '/chat-files/:mid/:aid/:sig/:name',
    summary: 'A chat file by its signed URL',
    description:
      'The `url` of a message\'s attachment. Browsers cannot send a header with an `<img>` or a link, and the conversation token ' +
      'must not reach consoles, webhooks or mails, so the URL itself is the credential: `:aid` is random (128 bits) and `:sig` a ' +
      'MAC of the workspace, conversation, message and attachment ids under a server key. A wrong `:sig` answers 404 exactly as ' +
      'an unknown file; `:name` is for people and is not checked. `:sig` is never logged.',
    tags: admin,
    auth: 'none',
    params: signedFileParams,
    responses: { 200: FILE_ANSWER, 404: '`attachment_not_found`.' },
    handle: async ({ deps, params, res }) => sendFile(res, await signedAttachment(deps, params.mid, params.aid, params.sig)),
  }),
];
