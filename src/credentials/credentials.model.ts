import { Schema, Types, type Connection } from 'mongoose';
import { defineModel } from '../db/mongo.js';
import { tenantScope } from '../db/tenant-store.js';

export type CredentialKind = 'workspace' | 'publishable';

export interface Credential {
  id: string;
  workspaceId: string;
  kind: CredentialKind;
  sealed: string;
  createdAt: Date;
}

interface CredentialDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  kind: CredentialKind;
  hash: string;
  sealed: string;
  revokedAt: Date | null;
  createdAt: Date;
}

const credentialSchema = new Schema<CredentialDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    kind: { type: String, enum: ['workspace', 'publishable'], required: true },
    hash: { type: String, required: true },
    sealed: { type: String, required: true },
    revokedAt: { type: Date, default: null },
  },
  { timestamps: { createdAt: true, updatedAt: false }, collection: 'credentials' },
);
// Every /external request resolves its key by hash.
credentialSchema.index({ hash: 1 }, { unique: true });
// Reveal and rotate find the live key of a workspace.
credentialSchema.index({ workspaceId: 1, kind: 1, revokedAt: 1 });

const Credentials = defineModel('Credential', credentialSchema);

const toCredential = (doc: CredentialDoc): Credential => ({
  id: doc._id.toHexString(),
  workspaceId: doc.workspaceId.toHexString(),
  kind: doc.kind,
  sealed: doc.sealed,
  createdAt: doc.createdAt,
});

export function credentialStore(db: Connection) {
  const model = Credentials(db);
  const tenant = tenantScope(model);
  return {
    async insert(workspaceId: string, kind: CredentialKind, hash: string, sealed: string): Promise<void> {
      await model.create({ workspaceId: new Types.ObjectId(workspaceId), kind, hash, sealed, revokedAt: null });
    },
    /** Resolves a presented key to its workspace, so it is the one read not scoped by a workspace. */
    async liveByHash(hash: string): Promise<Credential | null> {
      const doc = await model.findOne({ hash, revokedAt: null }).lean<CredentialDoc>();
      return doc ? toCredential(doc) : null;
    },
    async live(workspaceId: string, kind: CredentialKind): Promise<Credential | null> {
      const doc = await tenant.findOne(workspaceId, { kind, revokedAt: null }, { _id: -1 });
      return doc ? toCredential(doc) : null;
    },
    async revokeAll(workspaceId: string, kind: CredentialKind, at: Date): Promise<void> {
      await model.updateMany(tenant.filter(workspaceId, { kind, revokedAt: null }), { $set: { revokedAt: at } });
    },
  };
}
