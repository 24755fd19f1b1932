import { Schema, Types, type Connection } from 'mongoose';
import { defineModel } from '../db/mongo.js';
import { loadJson, storeJson } from '../db/json-field.js';
import { tenantScope } from '../db/tenant-store.js';
import type { PageRequest } from '../shared/paging.js';

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
}

interface SubmissionDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  name: string;
  email: string;
  message: string;
  phone: string | null;
  subject: string | null;
  source: string | null;
  // Free-form visitor JSON: kept as its text so any key (dots, `$`) survives verbatim.
  metadataJson: string | null;
  createdAt: Date;
}

const submissionSchema = new Schema<SubmissionDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    name: { type: String, required: true },
    email: { type: String, required: true },
    message: { type: String, required: true },
    phone: { type: String, default: null },
    subject: { type: String, default: null },
    source: { type: String, default: null },
    metadataJson: { type: String, default: null },
    createdAt: { type: Date, required: true },
  },
  { collection: 'submissions' },
);
// The admin inbox: newest first, paginated, per workspace.
submissionSchema.index({ workspaceId: 1, createdAt: -1, _id: -1 });

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
  };
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

export function submissionStore(db: Connection) {
  const model = Submissions(db);
  return {
    async create(workspaceId: string, input: NewSubmission): Promise<Submission> {
      const doc = await model.create({
        workspaceId: new Types.ObjectId(workspaceId),
        name: input.name,
        email: input.email,
        message: input.message,
        phone: input.phone ?? null,
        subject: input.subject ?? null,
        source: input.source ?? null,
        metadataJson: storeJson(input.metadata),
        createdAt: input.createdAt,
      });
      return toSubmission(doc.toObject());
    },
    async list(workspaceId: string, request: PageRequest): Promise<{ items: Submission[]; total: number }> {
      const { docs, total } = await tenantScope(model).page(workspaceId, {}, { createdAt: -1, _id: -1 }, request);
      return { items: docs.map(toSubmission), total };
    },
  };
}
