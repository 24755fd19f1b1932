import { Schema, Types, type Connection } from 'mongoose';
import { defineModel } from '../db/mongo.js';
import { tenantScope } from '../db/tenant-store.js';
import type { ChatAttachment, ChatMessage } from '../realtime/events.js';

export type Sender = ChatMessage['sender'];

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
  /**
   * `readAt` is null: what unread queries select by. Equality on a boolean narrows the read on every
   * engine; `readAt: null` makes FerretDB read every message of the workspace (null is never pushed down).
   */
  unread: boolean;
  /** Files sent with it; absent (not empty) on a message without files, so those stay as they always were. */
  attachments?: ChatAttachment[];
  /**
   * How many VISITOR messages the conversation holds up to and including this one: the team's unread count
   * is the newest message's minus the one its read cursor points at, with no query of the messages. Absent
   * on messages stored before 0.9 (see `newest`).
   */
  visitorCount?: number;
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
    unread: { type: Boolean, required: true },
    attachments: {
      type: [{ _id: false, id: String, name: String, contentType: String, size: Number, url: String, width: Number, height: Number }],
      default: undefined,
    },
    visitorCount: { type: Number },
  },
  { collection: 'livechat_messages' },
);
// Appending: the unique seq makes "insert the message after the newest one" atomic (the loser retries),
// so messages of a conversation are committed one after the other, in seq order.
messageSchema.index({ conversationId: 1, seq: 1 }, { unique: true });
// Polling with `after`: a conversation's messages by createdAt. Unique: createdAt is the cursor, so two
// messages of one conversation never share a millisecond.
messageSchema.index({ conversationId: 1, createdAt: 1 }, { unique: true });
// Unread visitor messages: per conversation of an inbox page (its unread counts), and the workspace's
// newest (the away digest), both among the unread only.
messageSchema.index({ workspaceId: 1, sender: 1, unread: 1, conversationId: 1 });

const Messages = defineModel('LiveChatMessage', messageSchema);

function toMessage(doc: MessageDoc): ChatMessage {
  const message: ChatMessage = { id: doc._id.toHexString(), sender: doc.sender, body: doc.body, createdAt: doc.createdAt.toISOString() };
  if (doc.attachments?.length) message.attachments = doc.attachments.map(toAttachment);
  return message;
}

/** The wire's field order, with `width`/`height` only for images. */
function toAttachment(stored: ChatAttachment): ChatAttachment {
  const { id, name, contentType, size, url, width, height } = stored;
  return { id, name, contentType, size, url, ...(typeof width === 'number' && typeof height === 'number' ? { width, height } : {}) };
}

/** A message as plain text for a mail: its body, then a line `name: url` per file it carries. */
export function messageText(message: Pick<ChatMessage, 'body' | 'attachments'>): string {
  return [message.body, ...(message.attachments ?? []).map((file) => `${file.name}: ${file.url}`)].filter(Boolean).join('\n');
}

/**
 * A message as stored: with the team member who wrote it (AGENT messages; null for visitors and unknown
 * authors) and its `visitorCount` (null when stored before it was kept). Neither goes on the wire.
 */
export type AuthoredMessage = ChatMessage & { authorUserId: string | null; visitorCount: number | null };

function toAuthoredMessage(doc: MessageDoc): AuthoredMessage {
  return { ...toMessage(doc), authorUserId: doc.authorUserId?.toHexString() ?? null, visitorCount: doc.visitorCount ?? null };
}

/** The message as the wire carries it. */
export function withoutStoredFields({ authorUserId: _author, visitorCount: _count, ...message }: AuthoredMessage): ChatMessage {
  return message;
}

/** Where a conversation's newest message stands: the next append's seq and createdAt follow it. */
export interface NewestMessage {
  seq: number;
  createdAtMs: number;
  /** Its `visitorCount` (0 for an empty conversation). */
  visitorCount: number;
}

const oid = (id: string) => new Types.ObjectId(id);

export interface NewMessage {
  /** Chosen by the caller when something refers to it before the insert (an attachment's URL). */
  id?: string;
  attachments?: ChatAttachment[];
  seq: number;
  sender: Sender;
  body: string;
  authorUserId: string | null;
  createdAt: Date;
  visitorCount: number;
}

export function messageStore(db: Connection) {
  const model = Messages(db);
  const scope = tenantScope(model);
  const ofConversation = (workspaceId: string, conversationId: string, filter: Record<string, unknown> = {}) =>
    scope.filter(workspaceId, { conversationId: oid(conversationId), ...filter });
  return {
    /**
     * The newest message's seq, createdAt (ms) and visitorCount, or zeros for an empty conversation. A
     * newest message stored before visitorCount was kept has its visitor messages counted (once: the next
     * message is stored with its count).
     */
    async newest(workspaceId: string, conversationId: string): Promise<NewestMessage> {
      const doc = await model
        .findOne(ofConversation(workspaceId, conversationId))
        .sort({ seq: -1 })
        .select({ seq: 1, createdAt: 1, visitorCount: 1 })
        .lean<Pick<MessageDoc, 'seq' | 'createdAt' | 'visitorCount'>>();
      if (!doc) return { seq: 0, createdAtMs: 0, visitorCount: 0 };
      const visitorCount = doc.visitorCount ?? (await model.countDocuments(ofConversation(workspaceId, conversationId, { sender: 'VISITOR', seq: { $lte: doc.seq } })));
      return { seq: doc.seq, createdAtMs: doc.createdAt.getTime(), visitorCount };
    },
    /**
     * Inserts; a duplicate seq or createdAt (another writer appended first) rejects with code 11000. The one
     * engine write before a chat push: the document is built complete and typed here, so it goes to the
     * driver directly rather than through a mongoose document (casting, validation, hooks).
     */
    async insert(workspaceId: string, conversationId: string, input: NewMessage): Promise<ChatMessage> {
      const doc: MessageDoc = {
        _id: input.id ? oid(input.id) : new Types.ObjectId(),
        workspaceId: oid(workspaceId),
        conversationId: oid(conversationId),
        seq: input.seq,
        sender: input.sender,
        body: input.body,
        authorUserId: input.authorUserId ? oid(input.authorUserId) : null,
        createdAt: input.createdAt,
        readAt: null,
        unread: true,
        ...(input.attachments?.length ? { attachments: input.attachments } : {}),
        visitorCount: input.visitorCount,
      };
      await model.collection.insertOne(doc);
      return toMessage(doc);
    },
    /** Messages strictly after `after`, oldest first, at most `limit`. */
    async after(workspaceId: string, conversationId: string, after: Date | null, limit: number): Promise<AuthoredMessage[]> {
      const filter = { conversationId: oid(conversationId), ...(after ? { createdAt: { $gt: after } } : {}) };
      const docs = await scope.find(workspaceId, filter, { sort: { createdAt: 1 }, limit });
      return docs.map(toAuthoredMessage);
    },
    /** One message of the conversation, or null (unknown, or of another conversation). */
    async byId(workspaceId: string, conversationId: string, messageId: string): Promise<AuthoredMessage | null> {
      const doc = await scope.byId(workspaceId, messageId);
      if (!doc || !doc.conversationId.equals(oid(conversationId))) return null;
      return toAuthoredMessage(doc);
    },
    /**
     * Where an attachment lies, by its message's id alone (a signed URL names no workspace): the message's
     * tenant and conversation and the attachment; null when either is unknown.
     */
    async attachmentAnywhere(messageId: string, attachmentId: string): Promise<{ workspaceId: string; conversationId: string; attachment: ChatAttachment } | null> {
      if (!Types.ObjectId.isValid(messageId) || !/^[0-9a-f]{24}$/.test(messageId)) return null;
      const doc = await model.findById(messageId).select({ workspaceId: 1, conversationId: 1, attachments: 1 }).lean<Pick<MessageDoc, 'workspaceId' | 'conversationId' | 'attachments'>>();
      const attachment = doc?.attachments?.find((candidate) => candidate.id === attachmentId);
      return doc && attachment ? { workspaceId: doc.workspaceId.toHexString(), conversationId: doc.conversationId.toHexString(), attachment: toAttachment(attachment) } : null;
    },
    /** A side's messages newer than `afterMs` that the other side has not read, oldest first. */
    async unreadOf(workspaceId: string, conversationId: string, sender: Sender, afterMs: number, limit: number): Promise<AuthoredMessage[]> {
      const docs = await scope.find(workspaceId, { conversationId: oid(conversationId), sender, unread: true, createdAt: { $gt: new Date(afterMs) } }, { sort: { createdAt: 1 }, limit });
      return docs.map(toAuthoredMessage);
    },
    /**
     * The workspace's visitor messages newer than `afterMs` that the team has not read, newest first, at most
     * `limit` (the away digest, once per interval at most): read among the unread only, whatever the history.
     */
    async unreadFromVisitors(workspaceId: string, afterMs: number, limit: number): Promise<(ChatMessage & { conversationId: string })[]> {
      const docs = await scope.find(workspaceId, { sender: 'VISITOR', unread: true, createdAt: { $gt: new Date(afterMs) } }, { sort: { createdAt: -1 }, limit });
      return docs.map((doc) => ({ ...toMessage(doc), conversationId: doc.conversationId.toHexString() }));
    },
    /** Marks the given side's messages up to `upTo` as read. */
    async markRead(workspaceId: string, conversationId: string, sender: Sender, upTo: Date, now: Date): Promise<void> {
      await model.updateMany(ofConversation(workspaceId, conversationId, { sender, unread: true, createdAt: { $lte: upTo } }), { $set: { readAt: now, unread: false } });
    },
    /** Flags the messages stored before `unread` was (as their `readAt` says); the number flagged. */
    async flagUnreadOfEarlierVersions(): Promise<number> {
      const earlier = { unread: { $exists: false } };
      const unread = await model.collection.updateMany({ ...earlier, readAt: null }, { $set: { unread: true } });
      const read = await model.collection.updateMany(earlier, { $set: { unread: false } });
      return unread.modifiedCount + read.modifiedCount;
    },
    /** Unread VISITOR messages per conversation (the team has not fetched them yet). */
    async unreadByTeam(workspaceId: string, conversationIds: string[]): Promise<Map<string, number>> {
      if (conversationIds.length === 0) return new Map();
      const rows = await model.aggregate<{ _id: Types.ObjectId; n: number }>([
        { $match: scope.filter(workspaceId, { sender: 'VISITOR', unread: true, conversationId: { $in: conversationIds.map(oid) } }) },
        { $group: { _id: '$conversationId', n: { $sum: 1 } } },
      ]);
      return new Map(rows.map((row) => [row._id.toHexString(), row.n]));
    },
  };
}
