import { Schema, Types, type Connection } from 'mongoose';
import { defineModel } from '../db/mongo.js';
import { loadJson, storeJson } from '../db/json-field.js';
import { constantTimeEqual } from '../shared/crypto.js';
import type { ChatMessage, ConversationStatus } from '../realtime/events.js';
import { isObjectIdHex } from '../shared/ids.js';

export type Sender = ChatMessage['sender'];

// ---------------------------------------------------------------------------------------------
// Plugin settings
// ---------------------------------------------------------------------------------------------

export interface LiveChatSettings {
  workspaceId: string;
  enabled: boolean;
  greeting: string;
  greetings: Record<string, string>;
  offlineMessage: string | null;
  offlineMessages: Record<string, string>;
  theme: Record<string, string> | null;
  forceOnline: boolean | null;
  activatedAt: Date | null;
  updatedAt: Date;
}

interface SettingsDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  enabled: boolean;
  greeting: string;
  // Locale maps and theme are user-keyed objects: stored as JSON text (keys may hold `.` or `$`).
  greetingsJson: string | null;
  offlineMessage: string | null;
  offlineMessagesJson: string | null;
  themeJson: string | null;
  forceOnline: boolean | null;
  activatedAt: Date | null;
  updatedAt: Date;
}

const settingsSchema = new Schema<SettingsDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    enabled: { type: Boolean, required: true },
    greeting: { type: String, required: true },
    greetingsJson: { type: String, default: null },
    offlineMessage: { type: String, default: null },
    offlineMessagesJson: { type: String, default: null },
    themeJson: { type: String, default: null },
    forceOnline: { type: Boolean, default: null },
    activatedAt: { type: Date, default: null },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'livechat_settings' },
);
// Every widget config / conversation start reads the workspace's settings; one document per workspace.
settingsSchema.index({ workspaceId: 1 }, { unique: true });

const Settings = defineModel('LiveChatSettings', settingsSchema);

function toSettings(doc: SettingsDoc): LiveChatSettings {
  return {
    workspaceId: doc.workspaceId.toHexString(),
    enabled: doc.enabled,
    greeting: doc.greeting,
    greetings: loadJson<Record<string, string>>(doc.greetingsJson) ?? {},
    offlineMessage: doc.offlineMessage ?? null,
    offlineMessages: loadJson<Record<string, string>>(doc.offlineMessagesJson) ?? {},
    theme: loadJson<Record<string, string>>(doc.themeJson),
    forceOnline: doc.forceOnline ?? null,
    activatedAt: doc.activatedAt ?? null,
    updatedAt: doc.updatedAt,
  };
}

export type SettingsInput = Omit<LiveChatSettings, 'workspaceId' | 'activatedAt' | 'updatedAt'>;

export function liveChatSettingsStore(db: Connection) {
  const model = Settings(db);
  return {
    async get(workspaceId: string): Promise<LiveChatSettings | null> {
      const doc = await model.findOne({ workspaceId: new Types.ObjectId(workspaceId) }).lean<SettingsDoc>();
      return doc ? toSettings(doc) : null;
    },
    /** Replaces the settings; `activatedAt` is stamped by the first save that enables the plugin. */
    async put(workspaceId: string, input: SettingsInput, now: Date): Promise<LiveChatSettings> {
      const filter = { workspaceId: new Types.ObjectId(workspaceId) };
      await model.updateOne(
        filter,
        {
          $set: {
            enabled: input.enabled,
            greeting: input.greeting,
            greetingsJson: storeJson(input.greetings),
            offlineMessage: input.offlineMessage,
            offlineMessagesJson: storeJson(input.offlineMessages),
            themeJson: storeJson(input.theme),
            forceOnline: input.forceOnline,
            updatedAt: now,
          },
        },
        { upsert: true },
      );
      if (input.enabled) await model.updateOne({ ...filter, activatedAt: null }, { $set: { activatedAt: now } });
      return (await this.get(workspaceId))!;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Conversations
// ---------------------------------------------------------------------------------------------

export interface Conversation {
  id: string;
  workspaceId: string;
  status: ConversationStatus;
  visitorSessionId: string;
  pageUrl: string | null;
  referrer: string | null;
  locale: string | null;
  externalId: string | null;
  identityVerified: boolean;
  visitorName: string | null;
  visitorEmail: string | null;
  attributes: Record<string, string> | null;
  lastMessage: ChatMessage | null;
  lastActivityAt: Date;
  closedAt: Date | null;
  createdAt: Date;
  /** The conversation token, encrypted (resume by verified identity hands it out again). */
  sealedToken: string;
}

interface LastMessageDoc {
  id: string;
  sender: Sender;
  body: string;
  createdAt: Date;
}

interface ConversationDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  tokenHash: string;
  sealedToken: string;
  status: ConversationStatus;
  visitorSessionId: string;
  pageUrl: string | null;
  referrer: string | null;
  locale: string | null;
  externalId: string | null;
  identityVerified: boolean;
  visitorName: string | null;
  visitorEmail: string | null;
  attributesJson: string | null;
  lastMessage: LastMessageDoc | null;
  /** createdAt (ms) of the newest message recorded here (inbox order and `lastMessage`). */
  lastMessageAtMs: number;
  lastActivityAt: Date;
  closedAt: Date | null;
  createdAt: Date;
}

const conversationSchema = new Schema<ConversationDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    tokenHash: { type: String, required: true },
    sealedToken: { type: String, required: true },
    status: { type: String, enum: ['OPEN', 'CLOSED'], required: true },
    visitorSessionId: { type: String, required: true },
    pageUrl: { type: String, default: null },
    referrer: { type: String, default: null },
    locale: { type: String, default: null },
    externalId: { type: String, default: null },
    identityVerified: { type: Boolean, required: true },
    visitorName: { type: String, default: null },
    visitorEmail: { type: String, default: null },
    attributesJson: { type: String, default: null },
    lastMessage: {
      type: new Schema<LastMessageDoc>({ id: String, sender: String, body: String, createdAt: Date }, { _id: false }),
      default: null,
    },
    lastMessageAtMs: { type: Number, required: true },
    lastActivityAt: { type: Date, required: true },
    closedAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
  },
  { collection: 'livechat_conversations' },
);
// The conversation token is the visitor's credential: message routes and widget sockets look it up by hash.
conversationSchema.index({ tokenHash: 1 }, { unique: true });
// Resume: the newest OPEN conversation of a verified externalId in a workspace.
conversationSchema.index({ workspaceId: 1, externalId: 1, status: 1, createdAt: -1 });
// Agent inbox: a workspace's conversations by status, newest activity first.
conversationSchema.index({ workspaceId: 1, status: 1, lastActivityAt: -1 });

const Conversations = defineModel('LiveChatConversation', conversationSchema);

function toChatMessage(doc: LastMessageDoc): ChatMessage {
  return { id: doc.id, sender: doc.sender, body: doc.body, createdAt: doc.createdAt.toISOString() };
}

function toConversation(doc: ConversationDoc): Conversation {
  return {
    id: doc._id.toHexString(),
    workspaceId: doc.workspaceId.toHexString(),
    status: doc.status,
    visitorSessionId: doc.visitorSessionId,
    pageUrl: doc.pageUrl ?? null,
    referrer: doc.referrer ?? null,
    locale: doc.locale ?? null,
    externalId: doc.externalId ?? null,
    identityVerified: doc.identityVerified,
    visitorName: doc.visitorName ?? null,
    visitorEmail: doc.visitorEmail ?? null,
    attributes: loadJson<Record<string, string>>(doc.attributesJson),
    lastMessage: doc.lastMessage ? toChatMessage(doc.lastMessage) : null,
    lastActivityAt: doc.lastActivityAt,
    closedAt: doc.closedAt ?? null,
    createdAt: doc.createdAt,
    sealedToken: doc.sealedToken,
  };
}

export interface NewConversation {
  /** Pre-made (see `newConversationId`) so the token can name its conversation. */
  id: string;
  tokenHash: string;
  sealedToken: string;
  visitorSessionId: string;
  pageUrl: string | null;
  referrer: string | null;
  locale: string | null;
  identity: { externalId: string; name: string | null; email: string | null; attributes: Record<string, string> | null } | null;
}

const oid = (id: string) => new Types.ObjectId(id);

export const newConversationId = () => new Types.ObjectId().toHexString();

export function conversationStore(db: Connection) {
  const model = Conversations(db);
  // FerretDB (SQLite) only serves a filter of exactly `{_id}` without scanning the collection; a compound
  // filter is evaluated document by document. So point reads go by `_id` alone and the tenant (or token)
  // is checked here, which keeps handshakes and replies O(1) with many conversations.
  const byPrimaryKey = (id: string) => model.findOne({ _id: oid(id) }).lean<ConversationDoc>();
  return {
    async create(workspaceId: string, input: NewConversation, now: Date): Promise<Conversation> {
      const doc = await model.create({
        _id: oid(input.id),
        workspaceId: oid(workspaceId),
        tokenHash: input.tokenHash,
        sealedToken: input.sealedToken,
        status: 'OPEN',
        visitorSessionId: input.visitorSessionId,
        pageUrl: input.pageUrl,
        referrer: input.referrer,
        locale: input.locale,
        externalId: input.identity?.externalId ?? null,
        identityVerified: input.identity !== null,
        visitorName: input.identity?.name ?? null,
        visitorEmail: input.identity?.email ?? null,
        attributesJson: storeJson(input.identity?.attributes ?? null),
        lastMessage: null,
        lastMessageAtMs: 0,
        lastActivityAt: now,
        closedAt: null,
        createdAt: now,
      });
      return toConversation(doc.toObject());
    },
    /**
     * Token lookup across workspaces (the token alone is the credential of the message routes). Tokens
     * name their conversation (`ct_<id>_<secret>`), so the lookup is by primary key, which every engine
     * serves without scanning; the hash of the whole token must match as well.
     */
    async byToken(token: string, tokenHash: string): Promise<Conversation | null> {
      const id = /^ct_([0-9a-f]{24})_/.exec(token)?.[1];
      if (!id) return null;
      const doc = await byPrimaryKey(id);
      return doc && constantTimeEqual(doc.tokenHash, tokenHash) ? toConversation(doc) : null;
    },
    async byId(workspaceId: string, id: string): Promise<Conversation | null> {
      if (!isObjectIdHex(id)) return null;
      const doc = await byPrimaryKey(id);
      return doc && doc.workspaceId.toHexString() === workspaceId ? toConversation(doc) : null;
    },
    async newestOpenOf(workspaceId: string, externalId: string): Promise<Conversation | null> {
      const doc = await model
        .findOne({ workspaceId: oid(workspaceId), externalId, identityVerified: true, status: 'OPEN' })
        .sort({ createdAt: -1, _id: -1 })
        .lean<ConversationDoc>();
      return doc ? toConversation(doc) : null;
    },
    /** Marks an anonymous conversation as belonging to a verified person (resume by token with identity). */
    async attachIdentity(workspaceId: string, id: string, identity: NonNullable<NewConversation['identity']>): Promise<Conversation | null> {
      const doc = await model
        .findOneAndUpdate(
          { _id: oid(id), workspaceId: oid(workspaceId), identityVerified: false },
          {
            $set: {
              externalId: identity.externalId,
              identityVerified: true,
              visitorName: identity.name,
              visitorEmail: identity.email,
              attributesJson: storeJson(identity.attributes),
            },
          },
          { returnDocument: 'after' },
        )
        .lean<ConversationDoc>();
      return doc ? toConversation(doc) : null;
    },
    async list(workspaceId: string, filter: { status?: ConversationStatus }, page: { skip: number; limit: number }): Promise<{ items: Conversation[]; total: number }> {
      const query = { workspaceId: oid(workspaceId), ...(filter.status ? { status: filter.status } : {}) };
      const [docs, total] = await Promise.all([
        model.find(query).sort({ lastActivityAt: -1, _id: -1 }).skip(page.skip).limit(page.limit).lean<ConversationDoc[]>(),
        model.countDocuments(query),
      ]);
      return { items: docs.map(toConversation), total };
    },
    /**
     * Records a stored message as the conversation's latest, unless a newer one is recorded already
     * (concurrent writers may finish out of order). Read and write go by `_id` (see `byPrimaryKey`); the
     * engine's own conditional update would be no more atomic and scans the collection.
     */
    async recordMessage(workspaceId: string, id: string, message: ChatMessage): Promise<void> {
      const createdAt = new Date(message.createdAt);
      const doc = await byPrimaryKey(id);
      if (!doc || doc.workspaceId.toHexString() !== workspaceId || doc.lastMessageAtMs >= createdAt.getTime()) return;
      await model.updateOne(
        { _id: oid(id) },
        {
          $set: {
            lastMessage: { id: message.id, sender: message.sender, body: message.body, createdAt },
            lastMessageAtMs: createdAt.getTime(),
            lastActivityAt: createdAt,
          },
        },
      );
    },
    /** Sets a visitor field only while it is unknown (never overwrites). */
    async fillVisitor(workspaceId: string, id: string, field: 'visitorName' | 'visitorEmail', value: string): Promise<void> {
      const doc = await byPrimaryKey(id);
      if (!doc || doc.workspaceId.toHexString() !== workspaceId || doc[field]) return;
      await model.updateOne({ _id: oid(id) }, { $set: { [field]: value } });
    },
    /** Closes an OPEN conversation; null when it was not OPEN (or not of this workspace). */
    async close(workspaceId: string, id: string, now: Date): Promise<Conversation | null> {
      const doc = await byPrimaryKey(id);
      if (!doc || doc.workspaceId.toHexString() !== workspaceId || doc.status !== 'OPEN') return null;
      await model.updateOne({ _id: oid(id) }, { $set: { status: 'CLOSED', closedAt: now, lastActivityAt: now } });
      return toConversation({ ...doc, status: 'CLOSED', closedAt: now, lastActivityAt: now });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------

interface MessageDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  conversationId: Types.ObjectId;
  /** 1, 2, 3... per conversation; unique, so only one writer can append after a given message. */
  seq: number;
  sender: Sender;
  body: string;
  authorUserId: Types.ObjectId | null;
  createdAt: Date;
  /** When the other side fetched it (team for VISITOR messages, visitor for AGENT messages). */
  readAt: Date | null;
}

const messageSchema = new Schema<MessageDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    conversationId: { type: Schema.Types.ObjectId, required: true },
    seq: { type: Number, required: true },
    sender: { type: String, enum: ['VISITOR', 'AGENT'], required: true },
    body: { type: String, required: true },
    authorUserId: { type: Schema.Types.ObjectId, default: null },
    createdAt: { type: Date, required: true },
    readAt: { type: Date, default: null },
  },
  { collection: 'livechat_messages' },
);
// Appending: the unique seq makes "insert the message after the newest one" atomic (the loser retries),
// so messages of a conversation are committed one after the other, in seq order.
messageSchema.index({ conversationId: 1, seq: 1 }, { unique: true });
// Polling with `after`: a conversation's messages by createdAt. Unique: createdAt is the cursor, so two
// messages of one conversation never share a millisecond.
messageSchema.index({ conversationId: 1, createdAt: 1 }, { unique: true });
// Unread counts of the agent inbox: unread visitor messages of a page of conversations.
messageSchema.index({ workspaceId: 1, conversationId: 1, sender: 1, readAt: 1 });

const Messages = defineModel('LiveChatMessage', messageSchema);

function toMessage(doc: MessageDoc): ChatMessage {
  return { id: doc._id.toHexString(), sender: doc.sender, body: doc.body, createdAt: doc.createdAt.toISOString() };
}

export function messageStore(db: Connection) {
  const model = Messages(db);
  return {
    /** The newest message's seq and createdAt (ms), or zeros for an empty conversation. */
    async newest(workspaceId: string, conversationId: string): Promise<{ seq: number; createdAtMs: number }> {
      const doc = await model
        .findOne({ workspaceId: oid(workspaceId), conversationId: oid(conversationId) })
        .sort({ seq: -1 })
        .select({ seq: 1, createdAt: 1 })
        .lean<Pick<MessageDoc, 'seq' | 'createdAt'>>();
      return doc ? { seq: doc.seq, createdAtMs: doc.createdAt.getTime() } : { seq: 0, createdAtMs: 0 };
    },
    /** Inserts; a duplicate seq or createdAt (another writer appended first) rejects with code 11000. */
    async insert(
      workspaceId: string,
      conversationId: string,
      input: { seq: number; sender: Sender; body: string; authorUserId: string | null; createdAt: Date },
    ): Promise<ChatMessage> {
      const doc = await model.create({
        workspaceId: oid(workspaceId),
        conversationId: oid(conversationId),
        seq: input.seq,
        sender: input.sender,
        body: input.body,
        authorUserId: input.authorUserId ? oid(input.authorUserId) : null,
        createdAt: input.createdAt,
        readAt: null,
      });
      return toMessage(doc.toObject());
    },
    /** Messages strictly after `after`, oldest first, at most `limit`. */
    async after(workspaceId: string, conversationId: string, after: Date | null, limit: number): Promise<ChatMessage[]> {
      const docs = await model
        .find({ workspaceId: oid(workspaceId), conversationId: oid(conversationId), ...(after ? { createdAt: { $gt: after } } : {}) })
        .sort({ createdAt: 1 })
        .limit(limit)
        .lean<MessageDoc[]>();
      return docs.map(toMessage);
    },
    /** Marks the given side's messages up to `upTo` as read. */
    async markRead(workspaceId: string, conversationId: string, sender: Sender, upTo: Date, now: Date): Promise<void> {
      await model.updateMany(
        { workspaceId: oid(workspaceId), conversationId: oid(conversationId), sender, readAt: null, createdAt: { $lte: upTo } },
        { $set: { readAt: now } },
      );
    },
    /** Unread VISITOR messages per conversation (the team has not fetched them yet). */
    async unreadByTeam(workspaceId: string, conversationIds: string[]): Promise<Map<string, number>> {
      if (conversationIds.length === 0) return new Map();
      const rows = await model.aggregate<{ _id: Types.ObjectId; n: number }>([
        { $match: { workspaceId: oid(workspaceId), conversationId: { $in: conversationIds.map(oid) }, sender: 'VISITOR', readAt: null } },
        { $group: { _id: '$conversationId', n: { $sum: 1 } } },
      ]);
      return new Map(rows.map((row) => [row._id.toHexString(), row.n]));
    },
  };
}
