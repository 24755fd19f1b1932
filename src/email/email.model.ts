import { Schema, Types, type Connection, type Model } from 'mongoose';
import { defineModel, nullOnDuplicate } from '../db/mongo.js';
import { tenantScope, type TenantDoc } from '../db/tenant-store.js';
import { isObjectIdHex } from '../shared/ids.js';

/**
 * The outbox. `queued`: waiting for its send job (first try or a retry); `sent`: accepted by SMTP;
 * `unsent`: no SMTP server is configured, kept until a worker with one starts; `failed`: permanently
 * rejected or out of attempts.
 */
export type EmailState = 'queued' | 'sent' | 'unsent' | 'failed';

/** A file sent with the mail (e.g. a calendar invite), kept with it so a retry sends the same bytes. */
export interface MailAttachment {
  filename: string;
  contentType: string;
  content: string;
}

export interface OutboxEmail {
  id: string;
  /** null for an account mail (a password reset): no workspace's outbox lists it. */
  workspaceId: string | null;
  to: string;
  subject: string;
  text: string;
  html: string;
  attachments: MailAttachment[];
  state: EmailState;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: Date | null;
  sentAt: Date | null;
  messageId: string | null;
  /** The body carries a secret (a one-time link): it is blanked once the mail is settled (sent or failed). */
  sensitive: boolean;
  createdAt: Date;
  updatedAt: Date;
}

interface EmailDoc extends Omit<OutboxEmail, 'id' | 'workspaceId'> {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId | null;
}

const emailSchema = new Schema<EmailDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, default: null },
    to: { type: String, required: true },
    subject: { type: String, required: true },
    text: { type: String, required: true },
    html: { type: String, default: '' },
    attachments: { type: [{ _id: false, filename: String, contentType: String, content: String }], default: [] },
    state: { type: String, required: true },
    attempts: { type: Number, default: 0 },
    lastError: { type: String, default: null },
    nextAttemptAt: { type: Date, default: null },
    sentAt: { type: Date, default: null },
    messageId: { type: String, default: null },
    sensitive: { type: Boolean, default: false },
  },
  { timestamps: true, collection: 'email_outbox' },
);
// GET /admin/workspaces/:wid/emails: one workspace, newest first.
emailSchema.index({ workspaceId: 1, _id: -1 });
// Worker boot: re-enqueue mails that are still waiting (`queued`, `unsent`).
emailSchema.index({ state: 1 });

const Emails = defineModel('EmailOutbox', emailSchema);

/** What a settled sensitive mail keeps of its body. */
const REDACTED = '(removed once settled: it carried a one-time link)';

function toEmail(doc: EmailDoc): OutboxEmail {
  const { _id, ...rest } = doc;
  return {
    id: _id.toHexString(),
    workspaceId: rest.workspaceId?.toHexString() ?? null,
    to: rest.to,
    subject: rest.subject,
    text: rest.text,
    html: rest.html ?? '',
    attachments: (rest.attachments ?? []).map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content })),
    state: rest.state,
    attempts: rest.attempts ?? 0,
    lastError: rest.lastError ?? null,
    nextAttemptAt: rest.nextAttemptAt ?? null,
    sentAt: rest.sentAt ?? null,
    messageId: rest.messageId ?? null,
    sensitive: rest.sensitive ?? false,
    createdAt: rest.createdAt,
    updatedAt: rest.updatedAt,
  };
}

export function emailStore(db: Connection) {
  const model = Emails(db);
  // Listed per workspace only: the filter names the workspace, so an account mail (no workspace) is never listed.
  const tenant = tenantScope(model as unknown as Model<EmailDoc & TenantDoc>);
  return {
    /** With `id`, a mail of that id already in the outbox makes this a no-op (null): the unique `_id` decides. */
    async create(
      workspaceId: string | null,
      input: { to: string; subject: string; text: string; html: string; attachments?: MailAttachment[]; state: EmailState; sensitive?: boolean },
      id?: string,
    ): Promise<OutboxEmail | null> {
      const created = await nullOnDuplicate(() =>
        model.create({
          ...(id === undefined ? {} : { _id: new Types.ObjectId(id) }),
          ...input,
          attachments: input.attachments ?? [],
          sensitive: input.sensitive ?? false,
          workspaceId: workspaceId === null ? null : new Types.ObjectId(workspaceId),
          attempts: 0,
          lastError: null,
          nextAttemptAt: null,
          sentAt: null,
          messageId: null,
        }),
      );
      return created ? toEmail(created.toObject()) : null;
    },
    /** The send job's read: the job carries only the mail's id, whatever its workspace. */
    async byId(id: string): Promise<OutboxEmail | null> {
      if (!isObjectIdHex(id)) return null;
      const doc = await model.findById(id).lean<EmailDoc>();
      return doc ? toEmail(doc) : null;
    },
    /** Newest first, `limit` mails older than the mail `before` (when given). */
    async list(workspaceId: string, options: { limit: number; before?: string }): Promise<OutboxEmail[]> {
      const filter = options.before ? { _id: { $lt: new Types.ObjectId(options.before) } } : {};
      const docs = await tenant.find(workspaceId, filter, { sort: { _id: -1 }, limit: options.limit });
      return docs.map(toEmail);
    },
    /** Worker boot, across workspaces: mails still waiting to be sent. */
    async waiting(): Promise<OutboxEmail[]> {
      const docs = await model.find({ state: { $in: ['queued', 'unsent'] } }).sort({ _id: 1 }).limit(10_000).lean<EmailDoc[]>();
      return docs.map(toEmail);
    },
    async setQueued(id: string): Promise<void> {
      await tenant.write(id, () => model.updateOne({ _id: id, state: 'unsent' }, { $set: { state: 'queued' } }));
    },
    async recordAttempt(
      id: string,
      outcome: { state: EmailState; error: string | null; nextAttemptAt: Date | null; sentAt?: Date | null; messageId?: string | null; redact?: boolean },
    ): Promise<void> {
      const redacted = outcome.redact ? { text: REDACTED, html: '' } : {};
      await tenant.write(id, () =>
        model.updateOne(
          { _id: id },
          {
            $inc: { attempts: 1 },
            $set: {
              state: outcome.state,
              lastError: outcome.error,
              nextAttemptAt: outcome.nextAttemptAt,
              sentAt: outcome.sentAt ?? null,
              messageId: outcome.messageId ?? null,
              ...redacted,
            },
          },
        ),
      );
    },
  };
}
