import { Schema, Types, type Connection } from 'mongoose';
import { defineModel } from '../db/mongo.js';
import { loadJson, storeJson } from '../db/json-field.js';
import { tenantScope } from '../db/tenant-store.js';
import { bucketOf, sequenceStore } from '../db/newest-first.js';
import { constantTimeEqual } from '../shared/crypto.js';
import type { PageRequest } from '../shared/paging.js';
import { emailKeyOf, visitorRecordBranches, type PersonKeys } from '../shared/person-keys.js';
import { literalSearch, searchGramsOf } from '../shared/search-grams.js';
import type { ChatAttachment, ChatMessage, ConversationStatus } from '../realtime/events.js';
import type { Sender } from './messages.model.js';
import type { VerifiedVisitor } from '../identity/identity.schemas.js';
import type { Conversation, NewConversation, ReadCursor, VisitorFills } from './conversation-records.js';
export type { Conversation, NewConversation, ReadCursor, VisitorFills } from './conversation-records.js';

interface LastMessageDoc {
  id: string;
  sender: Sender;
  body: string;
  createdAt: Date;
  /** Only when the message carries files (the inbox names them; its body is then empty). */
  attachments?: ChatAttachment[];
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
  /** `emailKeyOf(visitorEmail)`, written with it (`person-keys.ts`); null without an address; absent on records stored before it was kept until the upgrade files it. */
  visitorEmailKey?: string | null;
  /** The grams of the visitor's name and e-mail (`search-grams.ts`), written with them; absent on records stored before them until the upgrade files them. */
  searchGrams?: string[];
  attributesJson: string | null;
  lastMessage: LastMessageDoc | null;
  /** createdAt (ms) of the newest message recorded here (inbox order and `lastMessage`). */
  lastMessageAtMs: number;
  /** seq of that message (absent on conversations recorded before it was kept: read as 0). */
  lastSeq?: number;
  /** visitorCount of that message (absent before 0.9). */
  lastVisitorCount?: number;
  lastActivityAt: Date;
  /** The inbox's bucket (`newest-first.ts`), taken whenever `lastActivityAt` moves; absent on conversations idle since before 0.9. */
  activityBucket?: number;
  closedAt: Date | null;
  createdAt: Date;
  assigneeUserId?: Types.ObjectId | null;
  readByVisitor?: ReadCursor | null;
  readByTeam?: ReadCursor | null;
  visitorMailedUpToMs?: number;
  visitorMailedAt?: Date | null;
}

const cursorSchema = new Schema<ReadCursor>({ messageId: String, createdAt: Date, visitorCount: Number }, { _id: false });

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
    visitorEmailKey: { type: String },
    searchGrams: { type: [String], default: undefined },
    attributesJson: { type: String, default: null },
    lastMessage: {
      type: new Schema<LastMessageDoc>(
        {
          id: String,
          sender: String,
          body: String,
          createdAt: Date,
          attachments: {
            type: [{ _id: false, id: String, name: String, contentType: String, size: Number, url: String, width: Number, height: Number }],
            default: undefined,
          },
        },
        { _id: false },
      ),
      default: null,
    },
    lastMessageAtMs: { type: Number, required: true },
    lastSeq: { type: Number, default: 0 },
    lastVisitorCount: { type: Number },
    lastActivityAt: { type: Date, required: true },
    activityBucket: { type: Number },
    closedAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
    assigneeUserId: { type: Schema.Types.ObjectId, default: null },
    readByVisitor: { type: cursorSchema, default: null },
    readByTeam: { type: cursorSchema, default: null },
    visitorMailedUpToMs: { type: Number, default: 0 },
    visitorMailedAt: { type: Date, default: null },
  },
  { collection: 'livechat_conversations' },
);
// The conversation token is the visitor's credential: message routes and widget sockets look it up by hash.
conversationSchema.index({ tokenHash: 1 }, { unique: true });
// Resume: the newest OPEN conversation of a verified externalId in a workspace. Its prefix also serves the
// person timeline's externalId branch (`ofPerson`).
conversationSchema.index({ workspaceId: 1, externalId: 1, status: 1, createdAt: -1 });
// Person timeline (`ofPerson`): a workspace's conversations of one widget session, newest first.
conversationSchema.index({ workspaceId: 1, visitorSessionId: 1, createdAt: -1 });
// Person timeline (`ofPerson`) by e-mail in any case, by its key.
conversationSchema.index({ workspaceId: 1, visitorEmailKey: 1, createdAt: -1 });
// Agent inbox's `q`: the conversations holding one gram of it (multikey).
conversationSchema.index({ workspaceId: 1, searchGrams: 1 });
// Agent inbox: a workspace's conversations by status, newest activity first, a bucket at a time (`list`).
conversationSchema.index({ workspaceId: 1, status: 1, activityBucket: -1, lastActivityAt: -1 });
// Agent inbox filtered by assignee ("mine"): a workspace's conversations of one assignee, newest activity first.
conversationSchema.index({ workspaceId: 1, assigneeUserId: 1, status: 1, activityBucket: -1, lastActivityAt: -1 });

const Conversations = defineModel('LiveChatConversation', conversationSchema);

function toChatMessage(doc: LastMessageDoc): ChatMessage {
  const message: ChatMessage = { id: doc.id, sender: doc.sender, body: doc.body, createdAt: doc.createdAt.toISOString() };
  if (doc.attachments?.length) message.attachments = doc.attachments;
  return message;
}

function toCursor(cursor: ReadCursor | null | undefined): ReadCursor | null {
  return cursor?.messageId ? { messageId: cursor.messageId, createdAt: cursor.createdAt, visitorCount: cursor.visitorCount ?? null } : null;
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
    tokenHash: doc.tokenHash,
    recorded: { seq: doc.lastSeq ?? 0, createdAtMs: doc.lastMessageAtMs, visitorCount: doc.lastVisitorCount ?? (doc.lastMessageAtMs === 0 ? 0 : null) },
    assigneeUserId: doc.assigneeUserId ? doc.assigneeUserId.toHexString() : null,
    readByVisitor: toCursor(doc.readByVisitor),
    readByTeam: toCursor(doc.readByTeam),
    visitorMailedUpToMs: doc.visitorMailedUpToMs ?? 0,
    visitorMailedAt: doc.visitorMailedAt ?? null,
  };
}

const oid = (id: string) => new Types.ObjectId(id);

export const newConversationId = () => new Types.ObjectId().toHexString();

/** The sequence a workspace's conversations take their inbox bucket from, at each activity. */
export const activitySequence = (workspaceId: string) => `${workspaceId}:conversation-activity`;

export function conversationStore(db: Connection) {
  const model = Conversations(db);
  // FerretDB (SQLite) only serves a filter of exactly `{_id}` without scanning the collection; a compound
  // filter is evaluated document by document. So point reads go by `_id` alone (`scope.byId`, which
  // checks the tenant here) and so do the writes that follow them, which keeps handshakes and replies
  // O(1) with many conversations.
  const scope = tenantScope(model);
  const sequences = sequenceStore(db);
  const byPrimaryKey = (id: string) => model.findOne({ _id: oid(id) }).lean<ConversationDoc>();
  const setById = (id: string, fields: Partial<ConversationDoc>) => model.updateOne({ _id: oid(id) }, { $set: fields });
  // Every write of a conversation is guarded (`document-locks.ts`): the read-then-write summaries and cursors
  // where the engine needs it, the status changes always (a close must not be undone by a message's write).
  const { write, transition } = scope;
  return {
    async create(workspaceId: string, input: NewConversation, now: Date): Promise<Conversation> {
      const activityBucket = bucketOf(await sequences.take(activitySequence(workspaceId)));
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
        visitorEmailKey: input.identity?.email ? emailKeyOf(input.identity.email) : null,
        searchGrams: searchGramsOf(input.identity?.name, input.identity?.email),
        attributesJson: storeJson(input.identity?.attributes ?? null),
        lastMessage: null,
        lastMessageAtMs: 0,
        lastSeq: 0,
        lastVisitorCount: 0,
        lastActivityAt: now,
        activityBucket,
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
    /** By primary key alone: the caller checks the tenant (or the token) in code. */
    async byIdAnyWorkspace(id: string): Promise<Conversation | null> {
      const doc = await byPrimaryKey(id);
      return doc ? toConversation(doc) : null;
    },
    async byId(workspaceId: string, id: string): Promise<Conversation | null> {
      const doc = await scope.byId(workspaceId, id);
      return doc ? toConversation(doc) : null;
    },
    async newestOpenOf(workspaceId: string, externalId: string): Promise<Conversation | null> {
      const doc = await scope.findOne(workspaceId, { externalId, identityVerified: true, status: 'OPEN' }, { createdAt: -1, _id: -1 });
      return doc ? toConversation(doc) : null;
    },
    /**
     * Marks an anonymous conversation as belonging to a verified person (resume by token with identity).
     * The verified name, e-mail and attributes replace what the visitor typed; ones the identity leaves
     * out keep what the conversation already knows.
     */
    async attachIdentity(workspaceId: string, id: string, identity: VerifiedVisitor): Promise<Conversation | null> {
      const doc = await transition(id, async () => {
        const attached = await model
          .findOneAndUpdate(
            scope.filter(workspaceId, { _id: oid(id), identityVerified: false }),
            {
              $set: {
                externalId: identity.externalId,
                identityVerified: true,
                ...(identity.name !== null && { visitorName: identity.name }),
                ...(identity.email !== null && { visitorEmail: identity.email, visitorEmailKey: emailKeyOf(identity.email) }),
                ...(identity.attributes !== null && { attributesJson: storeJson(identity.attributes) }),
              },
            },
            { returnDocument: 'after' },
          )
          .lean<ConversationDoc>();
        // The grams of the name and e-mail as they are now: the identity may have replaced one and kept the other.
        if (attached && (identity.name !== null || identity.email !== null)) await setById(id, { searchGrams: searchGramsOf(attached.visitorName, attached.visitorEmail) });
        return attached;
      });
      return doc ? toConversation(doc) : null;
    },
    /**
     * The person timeline: the workspace's conversations carrying any of `keys` (a verified externalId, the
     * visitor's e-mail in any case, verified or typed, or the widget session), newest first.
     */
    async ofPerson(workspaceId: string, keys: PersonKeys, limit: number): Promise<Conversation[]> {
      const docs = await scope.findAny(workspaceId, visitorRecordBranches(keys), { sort: { createdAt: -1, _id: -1 }, limit });
      return docs.map(toConversation);
    },
    /** `q`: a case-insensitive substring of the visitor's name or e-mail, matched literally (no pattern syntax). */
    async list(
      workspaceId: string,
      filter: { status?: ConversationStatus; q?: string; assigneeUserId?: string | null },
      request: PageRequest,
    ): Promise<{ items: Conversation[]; total: number }> {
      const where: Record<string, unknown> = filter.status ? { status: filter.status } : {};
      if (filter.assigneeUserId !== undefined) where.assigneeUserId = filter.assigneeUserId ? oid(filter.assigneeUserId) : null;
      if (filter.q) Object.assign(where, literalSearch(filter.q, ['visitorName', 'visitorEmail']));
      const newest = { field: 'activityBucket', sequence: activitySequence(workspaceId), sort: { lastActivityAt: -1, _id: -1 } } as const;
      const { docs, total } = await scope.newestPage(workspaceId, where, newest, request);
      return { items: docs.map(toConversation), total };
    },
    /**
     * Records a stored message (with its seq) as the conversation's latest, unless a newer one is recorded
     * already (concurrent writers may finish out of order), and sets the given visitor fields that are still
     * unknown (never overwrites): one read and at most one write, both by `_id` (see above); the engine's own
     * conditional update would be no more atomic and scans the collection. The inbox bucket's number is
     * taken alongside the read, used only when the activity moves.
     */
    async recordMessage(workspaceId: string, id: string, message: ChatMessage, position: { seq: number; visitorCount: number }, fills: VisitorFills = {}): Promise<void> {
      await write(id, async () => {
        const createdAt = new Date(message.createdAt);
        const [doc, taken] = await Promise.all([scope.byId(workspaceId, id), sequences.take(activitySequence(workspaceId))]);
        if (!doc) return;
        const fields: Partial<ConversationDoc> = {};
        if (doc.lastMessageAtMs < createdAt.getTime()) {
          Object.assign(fields, {
            lastMessage: { id: message.id, sender: message.sender, body: message.body, createdAt, ...(message.attachments ? { attachments: message.attachments } : {}) },
            lastMessageAtMs: createdAt.getTime(),
            lastSeq: position.seq,
            lastVisitorCount: position.visitorCount,
            lastActivityAt: createdAt,
            activityBucket: bucketOf(taken),
          });
        }
        if (fills.visitorName && !doc.visitorName) fields.visitorName = fills.visitorName;
        if (fills.visitorEmail && !doc.visitorEmail) Object.assign(fields, { visitorEmail: fills.visitorEmail, visitorEmailKey: emailKeyOf(fills.visitorEmail) });
        if (fields.visitorName || fields.visitorEmail) fields.searchGrams = searchGramsOf(fields.visitorName ?? doc.visitorName, fields.visitorEmail ?? doc.visitorEmail);
        if (Object.keys(fields).length > 0) await setById(id, fields);
      });
    },
    async assign(workspaceId: string, id: string, userId: string | null): Promise<boolean> {
      return write(id, async () => {
        const doc = await scope.byId(workspaceId, id);
        if (!doc) return false;
        await setById(id, { assigneeUserId: userId ? oid(userId) : null });
        return true;
      });
    },
    /**
     * Moves a side's read cursor forward (never back); true when it moved. Read then write by `_id`: two
     * racing marks of one side may both write, and the later write wins; a read cursor going back one
     * message for a moment is harmless, and the next mark fixes it.
     */
    async advanceRead(workspaceId: string, id: string, side: 'readByVisitor' | 'readByTeam', cursor: ReadCursor): Promise<boolean> {
      return write(id, async () => {
        const doc = await scope.byId(workspaceId, id);
        if (!doc) return false;
        const current = doc[side];
        if (current?.createdAt && current.createdAt.getTime() >= cursor.createdAt.getTime()) return false;
        await setById(id, { [side]: cursor });
        return true;
      });
    },
    /** Records that the visitor was mailed the AGENT messages up to `upToMs`. */
    async recordVisitorMail(workspaceId: string, id: string, upToMs: number, at: Date): Promise<void> {
      await write(id, async () => {
        const doc = await scope.byId(workspaceId, id);
        if (!doc) return;
        await setById(id, { visitorMailedUpToMs: Math.max(upToMs, doc.visitorMailedUpToMs ?? 0), visitorMailedAt: at });
      });
    },
    /**
     * Closes an OPEN conversation, as one transition: of racing closes the first closes it, the others find
     * it CLOSED. Null when it was not OPEN (or not of this workspace).
     */
    async close(workspaceId: string, id: string, now: Date): Promise<Conversation | null> {
      return transition(id, async () => {
        const doc = await scope.byId(workspaceId, id);
        if (!doc || doc.status !== 'OPEN') return null;
        await setById(id, { status: 'CLOSED', closedAt: now, lastActivityAt: now, activityBucket: bucketOf(await sequences.take(activitySequence(workspaceId))) });
        const stored = await scope.byId(workspaceId, id);
        return stored ? toConversation(stored) : null;
      });
    },
  };
}
