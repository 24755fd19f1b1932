import { z } from 'zod';
import { inputText } from '../shared/text.js';
import { pageInfoSchema, totalQuery } from '../shared/paging.js';
import { localeSchema } from '../workspaces/workspaces.schemas.js';
import { visitorIdentityField } from '../identity/identity.schemas.js';
import { ALL_LOCALES, WIDGET_STRING_KEYS } from './widget-strings.js';

const text = (max: number) => inputText().trim().min(1).max(max);
const localeMap = (max: number) =>
  z
    .record(localeSchema, text(max))
    .refine((map) => Object.keys(map).length <= 50, 'at most 50 locales');

// ---------------------------------------------------------------------------------------------
// Admin: plugin settings
// ---------------------------------------------------------------------------------------------

export const themeSchema = z
  .record(
    z.string().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, 'style-variable names are letters, digits, `-` and `_`'),
    inputText().max(200),
  )
  .refine((theme) => Object.keys(theme).length <= 50, 'at most 50 theme entries');

const widgetStringsSchema = z
  .record(
    z.union([z.literal(ALL_LOCALES), localeSchema]),
    z.partialRecord(z.enum(WIDGET_STRING_KEYS), text(500)).refine((strings) => Object.keys(strings).length > 0, 'at least one string'),
  )
  .refine((map) => Object.keys(map).length <= 50, 'at most 50 locales');

/** Opt-in extras of an answer whose spec'd shape stays exact without them: `include=a,b`. */
const includeOf = <const T extends string>(...names: [T, ...T[]]) =>
  z
    .string()
    .transform((value) => value.split(',').map((name) => name.trim()))
    .pipe(z.array(z.enum(names)))
    .optional();

export const putSettingsBody = z.object({
  enabled: z.boolean(),
  greeting: text(500).describe('Default greeting (used when no locale entry matches).'),
  greetings: localeMap(500).optional().describe('Greeting per BCP47 locale.'),
  offlineMessage: text(500).nullable().optional().describe('Default away text shown while no agent is online.'),
  offlineMessages: localeMap(500).optional(),
  theme: themeSchema.nullable().optional().describe('Style-variable name -> value, handed to the widget untouched.'),
  identitySecret: z
    .string()
    .min(16)
    .max(200)
    .nullable()
    .optional()
    .describe('Explicit identity signing secret, accepted in addition to the derived one. Omit to keep, null to clear. Never returned.'),
  forceOnline: z.boolean().nullable().optional().describe('true/false forces `online` in the widget config; null or omitted follows agent presence.'),
  widgetStrings: widgetStringsSchema
    .optional()
    .describe(
      'The workspace\'s own wording of the widget\'s built-in strings: locale (BCP47, or `*` for every locale) -> string name -> text ' +
        `(1 to 500 chars). Names: ${WIDGET_STRING_KEYS.join(', ')}. Resolved per string: exact tag, primary subtag, \`*\`, then the ` +
        'widget\'s own words for the visitor\'s language (en, de, fr, es; English otherwise). `newCount` shows `{n}` (the count) and ' +
        '`typing` shows `{name}` (the agent): a text without its placeholder is saved with a warning. Omitted: none.',
    ),
});
export type PutSettingsBody = z.infer<typeof putSettingsBody>;

export const settingsSchema = z
  .object({
    enabled: z.boolean(),
    greeting: z.string(),
    greetings: z.record(z.string(), z.string()),
    offlineMessage: z.string().nullable(),
    offlineMessages: z.record(z.string(), z.string()),
    theme: z.record(z.string(), z.string()).nullable(),
    forceOnline: z.boolean().nullable(),
    widgetStrings: z.record(z.string(), z.record(z.string(), z.string())),
    identitySecretConfigured: z.boolean(),
    activatedAt: z.string().nullable(),
    updatedAt: z.string(),
  })
  .meta({ id: 'LiveChatSettings' });

export const settingsReplySchema = z.object({ settings: settingsSchema, publishableKey: z.string().nullable() });
export const settingsPutReplySchema = settingsReplySchema.extend({
  warnings: z
    .array(z.string())
    .describe('Warnings about what was saved: theme colours below WCAG 4.5:1 contrast, widget strings without their placeholder; empty when none.'),
});
export const publishableKeyReplySchema = z.object({ publishableKey: z.string() });

// ---------------------------------------------------------------------------------------------
// External
// ---------------------------------------------------------------------------------------------

export const configQuery = z.object({
  // Any string: an unknown or malformed locale falls back to the default text, never an error.
  locale: z.string().optional(),
  publishableKey: z.string().optional(),
  include: includeOf('strings').describe(
    '`strings`: add `strings`, the workspace\'s own wording of the widget\'s strings resolved for `locale` (only the overridden ones).',
  ),
});

export const bootstrapQuery = z.object({ locale: z.string().optional() });

export const chatAttachmentSchema = z
  .object({
    id: z.string().describe('Random (128 bits), unique within the conversation.'),
    name: z.string().describe('The file name the sender gave.'),
    contentType: z.enum(['image/jpeg', 'image/png', 'image/webp', 'image/avif', 'image/gif', 'application/pdf']).describe('Read from the bytes, never the name.'),
    size: z.number().int().describe('Bytes as stored (images are re-encoded).'),
    url: z
      .string()
      .describe('Signed, unguessable URL of the file (`/chat-files/...`): what an `<img>` or a link opens, with no other credential. Images inline, PDFs as downloads.'),
    width: z.number().int().optional().describe('Images only, in pixels.'),
    height: z.number().int().optional().describe('Images only, in pixels.'),
  })
  .meta({ id: 'ChatAttachment' });

export const chatMessageSchema = z
  .object({
    id: z.string(),
    sender: z.enum(['VISITOR', 'AGENT']),
    body: z.string().describe('Plain text, never HTML: exactly as sent, character for character; clients render it as text. Empty on a message that only carries files.'),
    createdAt: z.string().describe('ISO 8601 UTC with milliseconds; strictly increasing within a conversation.'),
    attachments: z.array(chatAttachmentSchema).optional().describe('Only on messages that carry files (absent on every other message).'),
  })
  .meta({ id: 'ChatMessage' });

export const visitorAttachmentParams = z.object({ token: z.string().min(1), mid: z.string(), aid: z.string() });
export const agentAttachmentParams = z.object({ wid: z.string(), cid: z.string(), mid: z.string(), aid: z.string() });
export const signedFileParams = z.object({ mid: z.string(), aid: z.string(), sig: z.string(), name: z.string() });

export const disabledSchema = z.object({ enabled: z.literal(false) });

export const widgetConfigSchema = z
  .union([
    z.object({
      enabled: z.literal(true),
      greeting: z.string(),
      offlineMessage: z.string().nullable(),
      theme: z.record(z.string(), z.string()).nullable(),
      online: z.boolean(),
      strings: z.record(z.string(), z.string()).optional().describe('Only with `include=strings`.'),
    }),
    disabledSchema,
  ])
  .meta({ id: 'LiveChatWidgetConfig' });

export const bootstrapSchema = z
  .union([
    z.object({
      enabled: z.literal(true),
      publishableKey: z.string(),
      greeting: z.string(),
      offlineMessage: z.string().nullable(),
      theme: z.record(z.string(), z.string()).nullable(),
      scriptPath: z.string(),
    }),
    disabledSchema,
  ])
  .meta({ id: 'LiveChatBootstrap' });

export const startConversationBody = z.object({
  visitorSessionId: inputText().min(1).max(120),
  // A token that matches no open conversation is ignored (a new one starts), whatever it looks like.
  conversationToken: z.string().nullable().optional(),
  pageUrl: inputText().max(2000).optional(),
  referrer: inputText().max(2000).optional(),
  locale: localeSchema.optional(),
  // An identity that does not verify starts the chat anonymously, never a 400.
  visitor: visitorIdentityField,
});
/** `visitor` as the service takes it: whatever was sent, checked there (see `checkVisitorIdentity`). */
export type StartConversationBody = Omit<z.infer<typeof startConversationBody>, 'visitor'> & { visitor?: unknown };

export const startResultSchema = z
  .union([
    z.object({
      enabled: z.literal(true),
      conversationId: z.string(),
      conversationToken: z.string(),
      greeting: z.string(),
      resumed: z.boolean(),
    }),
    disabledSchema,
  ])
  .meta({ id: 'LiveChatStartResult' });

export const tokenParams = z.object({ token: z.string().min(1) });

export const visitorMessageBody = z.object({
  body: inputText().max(2000),
  // Kept exactly as sent, like bodies; a name of nothing but whitespace is refused.
  visitorName: inputText()
    .max(120)
    .refine((name) => name.trim() !== '', 'must contain text')
    .optional(),
  visitorEmail: z.email().max(200).optional(),
});
export type VisitorMessageBody = z.infer<typeof visitorMessageBody>;

export const afterQuery = z.object({
  after: z.iso.datetime({ offset: true }).optional().describe('ISO timestamp of the last seen `createdAt`; only newer messages are returned.'),
  publishableKey: z.string().optional(),
});

export const visitorMessagesQuery = afterQuery.extend({
  include: includeOf('agentName').describe('`agentName`: AGENT messages carry `agentName`, the display name of the team member who wrote them.'),
});

export const messagesReplySchema = z.object({
  status: z.enum(['OPEN', 'CLOSED']),
  messages: z.array(chatMessageSchema.extend({ agentName: z.string().optional().describe('Only with `include=agentName`, on AGENT messages whose author is known.') })),
});

// ---------------------------------------------------------------------------------------------
// Admin: agent work
// ---------------------------------------------------------------------------------------------

export const conversationParams = z.object({ wid: z.string(), cid: z.string() });

export const listConversationsQuery = z.object({
  status: z.enum(['OPEN', 'CLOSED']).optional(),
  q: z.string().trim().min(1).max(200).optional().describe("Case-insensitive part of the visitor's name or e-mail, matched literally."),
  assignee: z
    .union([z.enum(['me', 'none']), z.string().regex(/^[0-9a-f]{24}$/, 'must be `me`, `none` or a user id')])
    .optional()
    .describe('`me`: assigned to the asking member; `none`: unassigned; a user id: assigned to that member.'),
  page: z.coerce.number().int().positive().default(1),
  limit: z.coerce.number().int().positive().max(100).default(50),
  total: totalQuery,
});

export const agentMessageBody = z.object({ body: inputText().max(2000) });

export const closeConversationBody = z.object({
  message: inputText()
    .max(2000)
    .refine((message) => message.trim() !== '', 'must contain text')
    .optional()
    .describe('A closing message, sent as an AGENT message (kept exactly as typed) before the conversation closes.'),
});

export const adminConversationSchema = z
  .object({
    id: z.string(),
    status: z.enum(['OPEN', 'CLOSED']),
    visitor: z.object({
      verified: z.boolean(),
      externalId: z.string().nullable(),
      name: z.string().nullable(),
      email: z.string().nullable(),
      attributes: z.record(z.string(), z.string()).nullable(),
      sessionId: z.string(),
    }),
    locale: z.string().nullable(),
    pageUrl: z.string().nullable(),
    referrer: z.string().nullable(),
    unreadCount: z.number().int(),
    lastMessage: chatMessageSchema.nullable(),
    lastActivityAt: z.string(),
    closedAt: z.string().nullable(),
    createdAt: z.string(),
    assignee: z.object({ userId: z.string(), name: z.string() }).nullable().describe('The member the conversation is assigned to.'),
    readByVisitor: z
      .object({ messageId: z.string(), createdAt: z.string() })
      .nullable()
      .describe('The newest message the visitor has read (every team message up to it is read).'),
    readByTeam: z
      .object({ messageId: z.string(), createdAt: z.string() })
      .nullable()
      .describe('The newest message the team has read (every visitor message up to it is read).'),
  })
  .meta({ id: 'AdminConversation' });

export const conversationListSchema = z.object({
  items: z.array(adminConversationSchema),
  pageInfo: pageInfoSchema,
});

// ---------------------------------------------------------------------------------------------
// Sockets, assignment and read status
// ---------------------------------------------------------------------------------------------

const objectId = z.string().regex(/^[0-9a-f]{24}$/, 'must be an id (24 hex characters)');

/** `typing` from a visitor socket: its conversation is the socket's (a `conversationId` sent is ignored). */
export const visitorTypingInput = z.object({ typing: z.boolean() });

/** `typing` from an agent socket: in which conversation of the socket's workspace. */
export const agentTypingInput = z.object({ typing: z.boolean(), conversationId: objectId });

export const assignBody = z.object({
  userId: objectId.nullable().describe('The member to assign the conversation to; null unassigns.'),
});

export const markReadBody = z.object({
  messageId: objectId.describe("The newest message of the other side that was read; every earlier one counts as read too."),
});

export const readReplySchema = z.object({
  conversationId: z.string(),
  reader: z.enum(['VISITOR', 'AGENT']),
  messageId: z.string(),
  createdAt: z.string(),
});
