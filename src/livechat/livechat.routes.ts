import { route, type RouteDef } from '../http/route.js';
import { workspaceIdParams } from '../workspaces/workspaces.schemas.js';
import {
  afterQuery,
  agentMessageBody,
  assignBody,
  markReadBody,
  readReplySchema,
  adminConversationSchema,
  bootstrapQuery,
  bootstrapSchema,
  chatMessageSchema,
  closeConversationBody,
  configQuery,
  conversationListSchema,
  conversationParams,
  listConversationsQuery,
  messagesReplySchema,
  publishableKeyReplySchema,
  putSettingsBody,
  settingsPutReplySchema,
  settingsReplySchema,
  startConversationBody,
  startResultSchema,
  tokenParams,
  visitorMessageBody,
  visitorMessagesQuery,
  widgetConfigSchema,
} from './livechat.schemas.js';
import { startConversation } from './conversations.service.js';
import { assignConversation, closeConversation, getConversation, listConversations } from './inbox.service.js';
import { markTeamRead, markVisitorRead } from './read.service.js';
import { FLOOD_GUARD_RETRY_AFTER_SECONDS, FLOOD_LIMIT, MESSAGES_PAGE, agentMessages, postAgentMessage, postVisitorMessage, visitorMessages } from './messages.service.js';
import { bootstrap, getSettings, putSettings, rotatePublishableKey, widgetConfig } from './settings.service.js';

const external = ['External: live chat'];
const admin = ['Live chat'];

const LOCALE_RULE =
  'Texts are resolved for `locale`: exact tag (case-insensitive), then its primary subtag (`de-CH` -> `de`), then the default text. ' +
  'An unknown or malformed locale yields the default text, never an error.';

const CURSOR_RULE =
  '`createdAt` carries milliseconds and is strictly increasing within a conversation: each message gets the later of now and ' +
  'the previous message + 1 ms, and writers of one conversation are serialised so a message is stored before the next one is ' +
  'dated. `after` = the last seen `createdAt` is therefore an exact cursor: even two messages sent in the same millisecond are ' +
  `each returned exactly once. At most ${MESSAGES_PAGE} messages per call, oldest first; when a page is full, call again with ` +
  'the last `createdAt`.';

export const liveChatRoutes: RouteDef[] = [
  // -------------------------------------------------------------------------------------------
  // External (widget and consumer servers)
  // -------------------------------------------------------------------------------------------
  route({
    method: 'get',
    path: '/external/live-chat/config',
    summary: 'Widget config (publishable key)',
    description:
      `${LOCALE_RULE} \`online\` is true while at least one team member (owner or agent; an operator outside the team does not count) holds an agent-console socket on any node, unless the ` +
      'settings force it. Resolved live on every call. A deactivated or disabled plugin, an unknown or revoked publishable key, or ' +
      'no key at all answer 200 `{"enabled": false}`; a workspace API key (`sk_`) answers 401 `wrong_credential_kind`. ' +
      '`include=strings` (the widget asks for it) adds `strings`: the workspace\'s own wording of the widget\'s built-in strings ' +
      '(`widgetStrings` of the plugin settings), resolved per string for `locale` (exact tag, primary subtag, `*`); only the ' +
      'overridden strings, `{}` when none. Without it the answer has exactly the spec\'s fields. An unknown `include` value is 400.',
    tags: external,
    auth: 'publishableKeyOptional',
    query: configQuery,
    responses: {
      200: { description: 'Widget config, or `{enabled:false}`.', schema: widgetConfigSchema },
      400: 'An unknown `include` value.',
      401: 'A credential of the wrong kind.',
    },
    handle: async ({ deps, workspace, query }) => ({ body: await widgetConfig(deps, workspace, query.locale, query.include) }),
  }),
  route({
    method: 'get',
    path: '/external/live-chat/bootstrap',
    summary: 'Server-side widget bootstrap (workspace key only)',
    description:
      `For the consumer's server to render the widget tag: the publishable key, texts and \`scriptPath\` (\`/widget/widget.js\`, ` +
      `relative to this service). ${LOCALE_RULE} When the plugin is not activated or is disabled: \`{"enabled": false}\`. ` +
      'A publishable key answers 401 `wrong_credential_kind`.',
    tags: external,
    auth: 'workspaceKey',
    query: bootstrapQuery,
    responses: { 200: { description: 'Bootstrap object, or `{enabled:false}`.', schema: bootstrapSchema }, 401: 'Missing, invalid or wrong-kind key.' },
    handle: async ({ deps, workspace, query }) => ({ body: await bootstrap(deps, workspace, query.locale) }),
  }),
  route({
    method: 'post',
    path: '/external/live-chat/conversations',
    summary: 'Start or resume a conversation (publishable key)',
    description:
      '201 with `resumed:false` when a conversation is created; 200 with `resumed:true` when one is resumed; 200 `{"enabled": false}` ' +
      'when the plugin is not activated or disabled. Resume order: (1) `conversationToken` of an OPEN conversation of this workspace ' +
      '(a token of another workspace, of a CLOSED conversation, unknown, or of another verified person is ignored and a new ' +
      'conversation is created); (2) without a token, a verified `visitor` resumes that `externalId`\'s newest OPEN conversation and ' +
      'gets its token. `visitor` is verified with `identityToken` (HMAC of `externalId`, derived or explicit secret): a verified ' +
      'identity marks the conversation verified and carries name, email and attributes. An identity that is malformed, over its ' +
      'bounds (externalId 128, name 120, email 200, 10 attributes of 40/100 chars), unsigned or wrongly signed is never an error: ' +
      'the conversation starts anonymously and the failure is logged with the workspace id. `greeting` follows `locale` as in the ' +
      'widget config. New conversations are pushed to agent consoles as `conversation.created`.',
    tags: external,
    auth: 'publishableKey',
    body: startConversationBody,
    responses: {
      200: { description: 'Resumed, or `{enabled:false}`.', schema: startResultSchema },
      201: { description: 'Created.', schema: startResultSchema },
      400: 'Invalid body (visitorSessionId 1-120, pageUrl/referrer at most 2000, locale BCP47 at most 35).',
      401: 'Missing, unknown or wrong-kind key.',
      429: 'Rate limited (`rate_limited`, with `Retry-After`): the address\'s `/external` budget, or too many new conversations from this visitor session or client address in the last hour (`MAX_CONVERSATIONS_PER_SESSION`, `MAX_CONVERSATIONS_PER_ADDRESS`). Resuming is never refused for this.',
    },
    handle: async ({ deps, workspace, body, req }) => {
      const result = await startConversation(deps, workspace, body, req.ip);
      return { status: result.enabled && !result.resumed ? 201 : 200, body: result };
    },
  }),
  route({
    method: 'post',
    path: '/external/live-chat/conversations/:token/messages',
    summary: 'Visitor sends a message (conversation token)',
    description:
      'The token in the path is the credential. `body` is plain text (1 to 2000 chars, not only whitespace), stored and returned ' +
      'exactly as sent: nothing is stripped or rewritten (`<b>hi</b>` stays `<b>hi</b>`) and every client renders it as text. ' +
      '`visitorName` (at most 120, not only whitespace, kept as sent) and `visitorEmail` (valid, at most 200) only fill values not known yet ' +
      `(from verified identity or an earlier message); they never overwrite. Flood guard: more than ${FLOOD_LIMIT} messages per ` +
      'minute per conversation answer 409 `flood_limited` with `Retry-After` (a sliding minute: no 60 seconds ever hold more than ' +
      `${FLOOD_LIMIT} accepted messages; refused attempts take no slot; recorded atomically and shared by all nodes through Redis). ` +
      'The bound is global and fails closed: while the configured Redis is ' +
      `unreachable, posts answer 503 \`flood_guard_unavailable\` with \`Retry-After: ${FLOOD_GUARD_RETRY_AFTER_SECONDS}\` instead of being ` +
      'counted per node (which would multiply the limit by the number of nodes); a single node without `REDIS_URL` counts in ' +
      'its own memory. A conversation closed by the team answers 409 `conversation_closed`. ' +
      'The message is pushed to agent consoles as `message.created`.',
    tags: external,
    auth: 'conversationToken',
    params: tokenParams,
    body: visitorMessageBody,
    responses: {
      201: { description: 'The stored message (`sender` VISITOR).', schema: chatMessageSchema },
      400: 'Empty, whitespace-only, non-string or oversize body; invalid visitorName/visitorEmail.',
      404: 'Unknown token (`conversation_not_found`).',
      409: '`flood_limited` (with `Retry-After`: seconds until a slot frees) or `conversation_closed`.',
      503: '`flood_guard_unavailable` (Redis configured but unreachable), with `Retry-After`.',
    },
    handle: async ({ deps, params, body }) => ({ status: 201, body: await postVisitorMessage(deps, params.token, body) }),
  }),
  route({
    method: 'get',
    path: '/external/live-chat/conversations/:token/messages',
    summary: 'Visitor polls messages (conversation token)',
    description:
      `Only messages newer than \`after\` (all when omitted), oldest first, senders VISITOR and AGENT, with the conversation ` +
      `\`status\` (OPEN or CLOSED). ${CURSOR_RULE} Fetching marks the returned team (AGENT) messages read. Bodies are plain text, ` +
      'never HTML, returned exactly as they were sent. A malformed `after` is 400. `include=agentName` (the widget asks for it) ' +
      'adds `agentName` to AGENT messages whose author is known, so history loaded after a reload names the agents as live ' +
      'pushes do; without it the messages have exactly the four fields of the spec. An unknown `include` value is 400.',
    tags: external,
    auth: 'conversationToken',
    params: tokenParams,
    query: visitorMessagesQuery,
    responses: {
      200: { description: 'Status and messages.', schema: messagesReplySchema },
      400: 'Malformed `after`, or an unknown `include` value.',
      404: 'Unknown token (`conversation_not_found`).',
    },
    handle: async ({ deps, params, query }) => ({ body: await visitorMessages(deps, params.token, query.after, query.include) }),
  }),
  route({
    method: 'post',
    path: '/external/live-chat/conversations/:token/read',
    summary: 'Visitor has read up to a message (conversation token)',
    description:
      'Moves the visitor\'s read cursor to `messageId` (a message of this conversation): every AGENT message up to it is read. ' +
      'The cursor only moves forward (an older message answers the cursor as it stays). A move is pushed as `conversation.read` ' +
      '(`reader` VISITOR) to the agent consoles and the visitor\'s other sockets. The widget calls it while its panel shows ' +
      'the messages; polling the messages alone does not move this cursor. Unknown message: 404 `message_not_found`.',
    tags: external,
    auth: 'conversationToken',
    params: tokenParams,
    body: markReadBody,
    responses: {
      200: { description: 'The read cursor that was set.', schema: readReplySchema },
      400: 'Malformed `messageId`.',
      404: '`conversation_not_found` or `message_not_found`.',
    },
    handle: async ({ deps, params, body }) => ({ body: await markVisitorRead(deps, params.token, body.messageId) }),
  }),

  // -------------------------------------------------------------------------------------------
  // Admin: plugin settings
  // -------------------------------------------------------------------------------------------
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/plugins/live-chat',
    summary: 'Live-chat settings and publishable key',
    description: 'Before the first save: defaults with `enabled:false` and `publishableKey: null`. The identity secret is never returned, only whether one is configured.',
    tags: admin,
    auth: 'member',
    params: workspaceIdParams,
    responses: { 200: { description: 'Settings.', schema: settingsReplySchema }, 404: 'Not a member, or no such workspace.' },
    handle: async ({ deps, workspace }) => ({ body: await getSettings(deps, workspace.id) }),
  }),
  route({
    method: 'put',
    path: '/admin/workspaces/:wid/plugins/live-chat',
    summary: 'Save live-chat settings (owners)',
    description:
      'Replaces the settings. The first save with `enabled:true` mints the publishable key; later saves keep it (rotate it ' +
      'explicitly). `warnings` lists theme colours whose contrast is below WCAG AA 4.5:1 (saved anyway). `greetings` / `offlineMessages` map BCP47 locales to texts (at most 500 chars, 50 locales). `identitySecret`: ' +
      'omitted keeps the current one, null clears it, a string (16-200 chars) sets it; it is stored encrypted and accepted in ' +
      'addition to the derived secret. `forceOnline` true/false overrides agent presence in the widget config.',
    tags: admin,
    auth: 'member',
    role: 'owner',
    params: workspaceIdParams,
    body: putSettingsBody,
    responses: { 200: { description: 'Saved settings.', schema: settingsPutReplySchema }, 400: 'Invalid body.', 403: 'Agents and editors may not change settings.' },
    handle: async ({ deps, workspace, body }) => ({ body: await putSettings(deps, workspace.id, body) }),
  }),
  route({
    method: 'post',
    path: '/admin/workspaces/:wid/plugins/live-chat/publishable-key/rotate',
    summary: 'Rotate the publishable key (owners)',
    description: 'The old publishable key stops working at once (its widget config answers `{enabled:false}`).',
    tags: admin,
    auth: 'member',
    role: 'owner',
    params: workspaceIdParams,
    responses: { 200: { description: 'The new key.', schema: publishableKeyReplySchema }, 403: 'Agents and editors may not rotate keys.' },
    handle: async ({ deps, workspace }) => ({ body: { publishableKey: await rotatePublishableKey(deps, workspace.id) } }),
  }),

  // -------------------------------------------------------------------------------------------
  // Admin: agent work
  // -------------------------------------------------------------------------------------------
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/conversations',
    summary: 'Conversations, newest activity first',
    description:
      'Optional `status` (OPEN or CLOSED) and `q` (1-200 chars: a case-insensitive part of the visitor\'s name or e-mail, taken ' +
      'literally), `assignee` (`me`, `none` or a user id). Each item carries the `assignee` (null when unassigned), the read cursors ' +
      '`readByVisitor` / `readByTeam`, the visitor identity (`verified` true only for a verified ' +
      '`identityToken`), `unreadCount` (visitor messages the team has not fetched yet) and `lastMessage`. Paginated with ' +
      '`page` and `limit` (default 50, at most 100).',
    tags: admin,
    auth: 'member',
    params: workspaceIdParams,
    query: listConversationsQuery,
    responses: { 200: { description: 'A page of conversations.', schema: conversationListSchema } },
    handle: async ({ deps, workspace, user, query }) => ({ body: await listConversations(deps, workspace.id, { ...query, withTotal: query.total }, user.id) }),
  }),
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/conversations/:cid',
    summary: 'One conversation',
    tags: admin,
    auth: 'member',
    params: conversationParams,
    responses: { 200: { description: 'The conversation.', schema: adminConversationSchema }, 404: '`conversation_not_found`.' },
    handle: async ({ deps, workspace, params }) => ({ body: await getConversation(deps, workspace.id, params.cid) }),
  }),
  route({
    method: 'get',
    path: '/admin/workspaces/:wid/conversations/:cid/messages',
    summary: "A conversation's messages",
    description:
      `Same cursor as the visitor's poll. ${CURSOR_RULE} Fetching marks the returned visitor messages read (unread count) and ` +
      "moves the team's read cursor to the newest of them (pushed as `conversation.read`, `reader` AGENT).",
    tags: admin,
    auth: 'member',
    params: conversationParams,
    query: afterQuery,
    responses: { 200: { description: 'Status and messages.', schema: messagesReplySchema }, 400: 'Malformed `after`.', 404: '`conversation_not_found`.' },
    handle: async ({ deps, workspace, params, query }) => ({ body: await agentMessages(deps, workspace.id, params.cid, query.after) }),
  }),
  route({
    method: 'post',
    path: '/admin/workspaces/:wid/conversations/:cid/messages',
    summary: 'Reply as the team (AGENT message)',
    description:
      'Plain text (1 to 2000 chars, not only whitespace), stored exactly as sent (never rewritten). Stored, then pushed at once as `message.created` to the visitor\'s ' +
      '`/widget` sockets and the `/agent` consoles on every node. No flood guard applies to the team. A CLOSED conversation is 409.',
    tags: admin,
    auth: 'member',
    params: conversationParams,
    body: agentMessageBody,
    responses: {
      201: { description: 'The stored message (`sender` AGENT).', schema: chatMessageSchema },
      400: 'Empty, whitespace-only or oversize body.',
      404: '`conversation_not_found`.',
      409: '`conversation_closed`.',
    },
    handle: async ({ deps, workspace, params, user, body }) => ({
      status: 201,
      body: await postAgentMessage(deps, workspace.id, params.cid, user.id, body.body),
    }),
  }),
  route({
    method: 'post',
    path: '/admin/workspaces/:wid/conversations/:cid/read',
    summary: 'The team has read up to a message',
    description:
      "Moves the team's read cursor to `messageId` (a message of this conversation): every VISITOR message up to it is read " +
      '(unread count). Forward only; a move is pushed as `conversation.read` (`reader` AGENT) to the visitor and the consoles.',
    tags: admin,
    auth: 'member',
    params: conversationParams,
    body: markReadBody,
    responses: {
      200: { description: 'The read cursor that was set.', schema: readReplySchema },
      400: 'Malformed `messageId`.',
      404: '`conversation_not_found` or `message_not_found`.',
    },
    handle: async ({ deps, workspace, params, body }) => ({ body: await markTeamRead(deps, workspace.id, params.cid, body.messageId) }),
  }),
  route({
    method: 'post',
    path: '/admin/workspaces/:wid/conversations/:cid/assign',
    summary: 'Assign a conversation to a member (or unassign)',
    description:
      '`userId`: a member of the workspace (any role, oneself included), or null to unassign. Idempotent. Pushed to the consoles ' +
      'as `conversation.assigned` `{conversationId, assignee: {userId, name} | null}`. A user who is not a member: 400 ' +
      '`assignee_not_member`. Filter the inbox with `assignee=me`.',
    tags: admin,
    auth: 'member',
    params: conversationParams,
    body: assignBody,
    responses: {
      200: { description: 'The conversation.', schema: adminConversationSchema },
      400: 'Malformed `userId`, or not a member (`assignee_not_member`).',
      404: '`conversation_not_found`.',
    },
    handle: async ({ deps, workspace, params, body }) => ({ body: await assignConversation(deps, workspace.id, params.cid, body.userId) }),
  }),
  route({
    method: 'post',
    path: '/admin/workspaces/:wid/conversations/:cid/close',
    summary: 'Close a conversation',
    description:
      'Sets the status to CLOSED (idempotent) and pushes `conversation.updated` to the visitor and the consoles. Afterwards the ' +
      'visitor\'s posts answer 409 `conversation_closed` and a start with its token creates a new conversation. An optional ' +
      '`message` (1 to 2000 chars, not only whitespace, kept exactly as typed) is first stored and pushed as an AGENT reply, so ' +
      'the visitor reads it before the conversation closes; with a `message`, an already CLOSED conversation answers 409 ' +
      '`conversation_closed` (the message cannot be delivered).',
    tags: admin,
    auth: 'member',
    params: conversationParams,
    body: closeConversationBody,
    responses: {
      200: { description: 'The closed conversation.', schema: adminConversationSchema },
      400: 'Empty, whitespace-only or oversize `message`.',
      404: '`conversation_not_found`.',
      409: '`conversation_closed`: a `message` for a conversation already closed.',
    },
    handle: async ({ deps, workspace, params, user, body }) => ({
      body: await closeConversation(deps, workspace.id, params.cid, body.message === undefined ? undefined : { userId: user.id, message: body.message }),
    }),
  }),
];
