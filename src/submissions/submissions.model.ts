import { Schema, Types, type Connection, type QueryFilter } from 'mongoose';
import { defineModel } from '../db/mongo.js';
import { loadJson, storeJson } from '../db/json-field.js';
import { tenantScope } from '../db/tenant-store.js';
import { bucketOf, sequenceStore } from '../db/newest-first.js';
import type { PageRequest } from '../shared/paging.js';
import { emailKeyOf } from '../shared/person-keys.js';
import { literalSearch, searchGramsOf } from '../shared/search-grams.js';

export interface Submission {
  id: string;
  name: string;
  email: string;
  message: string;
  phone: string | null;
  subject: string | null;
  source: string | null;
  metadata: Record<string, unknown> | null;
  createdAt: Date;
  /** When a member marked it handled (or answered it); null while it waits. */
  handledAt: Date | null;
  handledBy: SubmissionHandler | null;
}

/** Who handled a submission, with the name they had then (a removed member's work keeps its author). */
export interface SubmissionHandler {
  userId: string;
  name: string;
}

interface SubmissionDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  name: string;
  email: string;
  /** `emailKeyOf(email)` (`person-keys.ts`); absent on submissions stored before it was kept until the upgrade files it. */
  emailKey?: string;
  /** The grams of the name, e-mail and subject (`search-grams.ts`); absent on submissions stored before them until the upgrade files them. */
  searchGrams?: string[];
  message: string;
  phone: string | null;
  subject: string | null;
  source: string | null;
  // Free-form visitor JSON: kept as its text so any key (dots, `$`) survives verbatim.
  metadataJson: string | null;
  createdAt: Date;
  /** The inbox's bucket (`newest-first.ts`), taken when received; absent on submissions stored before 0.9. */
  listBucket?: number;
  handledAt?: Date | null;
  handledByUserId?: string | null;
  handledByName?: string | null;
}

const submissionSchema = new Schema<SubmissionDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    name: { type: String, required: true },
    email: { type: String, required: true },
    emailKey: { type: String },
    searchGrams: { type: [String], default: undefined },
    message: { type: String, required: true },
    phone: { type: String, default: null },
    subject: { type: String, default: null },
    source: { type: String, default: null },
    metadataJson: { type: String, default: null },
    createdAt: { type: Date, required: true },
    listBucket: { type: Number },
    handledAt: { type: Date, default: null },
    handledByUserId: { type: String, default: null },
    handledByName: { type: String, default: null },
  },
  { collection: 'submissions' },
);
// The admin inbox: newest first, paginated, per workspace, a bucket at a time (`list`).
submissionSchema.index({ workspaceId: 1, listBucket: -1, createdAt: -1, _id: -1 });
// Person timeline (`ofEmail`) by e-mail in any case, by its key.
submissionSchema.index({ workspaceId: 1, emailKey: 1, createdAt: -1 });
// The inbox's `q`: the submissions holding one gram of it (multikey).
submissionSchema.index({ workspaceId: 1, searchGrams: 1 });

const Submissions = defineModel('Submission', submissionSchema);

function toSubmission(doc: SubmissionDoc): Submission {
  return {
    id: doc._id.toHexString(),
    name: doc.name,
    email: doc.email,
    message: doc.message,
    phone: doc.phone ?? null,
    subject: doc.subject ?? null,
    source: doc.source ?? null,
    metadata: loadJson(doc.metadataJson),
    createdAt: doc.createdAt,
    handledAt: doc.handledAt ?? null,
    handledBy: doc.handledByUserId ? { userId: doc.handledByUserId, name: doc.handledByName ?? '' } : null,
  };
}

/** The inbox's filters: `open` (not handled yet) or `handled`; `q` a case-insensitive part of the name, e-mail or subject. */
export interface SubmissionFilter {
  state?: 'open' | 'handled';
  q?: string;
}

const SEARCHED_FIELDS = ['name', 'email', 'subject'];

function inboxFilter(filter: SubmissionFilter): QueryFilter<SubmissionDoc> {
  const where: QueryFilter<SubmissionDoc> = {};
  // Submissions stored before handling existed have no field: `null` matches them too.
  if (filter.state === 'open') where.handledAt = null;
  if (filter.state === 'handled') where.handledAt = { $ne: null };
  return filter.q ? { ...where, ...literalSearch(filter.q, SEARCHED_FIELDS) } : where;
}

export interface NewSubmission {
  name: string;
  email: string;
  message: string;
  phone?: string;
  subject?: string;
  source?: string;
  metadata?: Record<string, unknown>;
  createdAt: Date;
}

/** The sequence a workspace's submissions take their inbox bucket from. */
const listSequence = (workspaceId: string) => `${workspaceId}:submissions`;

export function submissionStore(db: Connection) {
  const model = Submissions(db);
  const scope = tenantScope(model);
  const sequences = sequenceStore(db);
  return {
    async create(workspaceId: string, input: NewSubmission): Promise<Submission> {
      const doc = await model.create({
        workspaceId: new Types.ObjectId(workspaceId),
        name: input.name,
        email: input.email,
        emailKey: emailKeyOf(input.email),
        searchGrams: searchGramsOf(input.name, input.email, input.subject),
        message: input.message,
        phone: input.phone ?? null,
        subject: input.subject ?? null,
        source: input.source ?? null,
        metadataJson: storeJson(input.metadata),
        createdAt: input.createdAt,
        listBucket: bucketOf(await sequences.take(listSequence(workspaceId))),
      });
      return toSubmission(doc.toObject());
    },
    async list(workspaceId: string, filter: SubmissionFilter, request: PageRequest): Promise<{ items: Submission[]; total: number }> {
      const newest = { field: 'listBucket', sequence: listSequence(workspaceId), sort: { createdAt: -1, _id: -1 } } as const;
      const { docs, total } = await scope.newestPage(workspaceId, inboxFilter(filter), newest, request);
      return { items: docs.map(toSubmission), total };
    },
    async byId(workspaceId: string, id: string): Promise<Submission | null> {
      const doc = await scope.byId(workspaceId, id);
      return doc && toSubmission(doc);
    },
    /** The person timeline: the workspace's submissions sent with this e-mail (any case), newest first. One query. */
    async ofEmail(workspaceId: string, email: string, limit: number): Promise<Submission[]> {
      const docs = await scope.find(workspaceId, { emailKey: emailKeyOf(email) }, { sort: { createdAt: -1, _id: -1 }, limit });
      return docs.map(toSubmission);
    },
    /** Marks it handled by `by` (or open again with null); the submission as stored, or null when there is none. */
    async setHandled(workspaceId: string, id: string, by: SubmissionHandler | null, at: Date): Promise<Submission | null> {
      const fields = by ? { handledAt: at, handledByUserId: by.userId, handledByName: by.name } : { handledAt: null, handledByUserId: null, handledByName: null };
      const doc = await scope.updateById(workspaceId, id, { $set: fields });
      return doc && toSubmission(doc);
    },
  };
}

// ------------------------------------------------------------------------------------------- replies

/** A member's answer to a submission, mailed to its sender and kept with it. */
export interface SubmissionReply {
  id: string;
  submissionId: string;
  body: string;
  author: SubmissionHandler;
  to: string;
  createdAt: Date;
}

interface ReplyDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  submissionId: Types.ObjectId;
  body: string;
  authorUserId: string;
  authorName: string;
  to: string;
  createdAt: Date;
}

// Replies are documents of their own, never an array in the submission: two members answering at once
// insert two documents, where pushing into one document loses one on FerretDB (read, then whole write).
const replySchema = new Schema<ReplyDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    submissionId: { type: Schema.Types.ObjectId, required: true },
    body: { type: String, required: true },
    authorUserId: { type: String, required: true },
    authorName: { type: String, required: true },
    to: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { collection: 'submission_replies' },
);
// A submission's replies, oldest first.
replySchema.index({ workspaceId: 1, submissionId: 1, createdAt: 1 });

const Replies = defineModel('SubmissionReply', replySchema);

const toReply = (doc: ReplyDoc): SubmissionReply => ({
  id: doc._id.toHexString(),
  submissionId: doc.submissionId.toHexString(),
  body: doc.body,
  author: { userId: doc.authorUserId, name: doc.authorName },
  to: doc.to,
  createdAt: doc.createdAt,
});

/** At most this many replies are shown with a submission (a conversation by mail is short). */
const REPLIES_SHOWN = 200;

export function submissionReplyStore(db: Connection) {
  const model = Replies(db);
  const scope = tenantScope(model);
  return {
    async create(workspaceId: string, reply: Omit<SubmissionReply, 'id'>): Promise<SubmissionReply> {
      const doc = await model.create({
        workspaceId: new Types.ObjectId(workspaceId),
        submissionId: new Types.ObjectId(reply.submissionId),
        body: reply.body,
        authorUserId: reply.author.userId,
        authorName: reply.author.name,
        to: reply.to,
        createdAt: reply.createdAt,
      });
      return toReply(doc.toObject());
    },
    async of(workspaceId: string, submissionId: string): Promise<SubmissionReply[]> {
      const docs = await scope.find(workspaceId, { submissionId: new Types.ObjectId(submissionId) }, { sort: { createdAt: 1, _id: 1 }, limit: REPLIES_SHOWN });
      return docs.map(toReply);
    },
  };
}
