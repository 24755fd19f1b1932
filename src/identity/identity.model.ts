import { Schema, Types, type Connection } from 'mongoose';
import { defineModel } from '../db/mongo.js';

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
  const model = IdentitySecrets(db);
  return {
    async get(workspaceId: string): Promise<string | null> {
      const doc = await model.findOne({ workspaceId: new Types.ObjectId(workspaceId) }).lean<IdentitySecretDoc>();
      return doc?.sealed ?? null;
    },
    async set(workspaceId: string, sealed: string | null): Promise<void> {
      const filter = { workspaceId: new Types.ObjectId(workspaceId) };
      if (sealed === null) await model.deleteOne(filter);
      else await model.updateOne(filter, { $set: { sealed } }, { upsert: true });
    },
  };
}
