import { Schema, type Connection, type Types } from 'mongoose';
import { defineModel } from '../db/mongo.js';
import { workspaceDocument } from '../db/workspace-document.js';

interface IdentitySecretDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  sealed: string;
}

const identitySecretSchema = new Schema<IdentitySecretDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    sealed: { type: String, required: true },
  },
  { collection: 'identity_secrets' },
);
// Identity verification reads the workspace's explicit secret.
identitySecretSchema.index({ workspaceId: 1 }, { unique: true });

const IdentitySecrets = defineModel('IdentitySecret', identitySecretSchema);

export function identitySecretStore(db: Connection) {
  const secrets = workspaceDocument(IdentitySecrets(db));
  return {
    async get(workspaceId: string): Promise<string | null> {
      return (await secrets.get(workspaceId))?.sealed ?? null;
    },
    async set(workspaceId: string, sealed: string | null): Promise<void> {
      if (sealed === null) await secrets.remove(workspaceId);
      else await secrets.set(workspaceId, { sealed });
    },
  };
}
