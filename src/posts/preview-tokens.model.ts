import { Schema, Types, type Connection } from 'mongoose';
import { defineModel } from '../db/mongo.js';

interface PreviewTokenDoc {
  /** SHA-256 hex of the token: the token itself is never stored. */
  _id: string;
  workspaceId: Types.ObjectId;
  postId: string;
  expiresAt: Date;
}

const previewTokenSchema = new Schema<PreviewTokenDoc>(
  {
    _id: { type: String, required: true },
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    postId: { type: String, required: true },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'post_preview_tokens', versionKey: false },
);
// Minting (replaces the post's token) and revoking find a post's tokens by workspace and post.
previewTokenSchema.index({ workspaceId: 1, postId: 1 });

const PreviewTokens = defineModel('PostPreviewToken', previewTokenSchema);

export interface PreviewGrant {
  workspaceId: string;
  postId: string;
  expiresAt: Date;
}

/** Draft preview grants (`post_preview_tokens`): one live token per post, looked up by its hash (`_id`). */
export function previewTokenStore(db: Connection) {
  const model = PreviewTokens(db);
  return {
    async replace(workspaceId: string, postId: string, tokenHash: string, expiresAt: Date): Promise<void> {
      await model.deleteMany({ workspaceId: new Types.ObjectId(workspaceId), postId });
      await model.create({ _id: tokenHash, workspaceId: new Types.ObjectId(workspaceId), postId, expiresAt });
    },
    async revoke(workspaceId: string, postId: string): Promise<void> {
      await model.deleteMany({ workspaceId: new Types.ObjectId(workspaceId), postId });
    },
    async byHash(tokenHash: string): Promise<PreviewGrant | null> {
      const doc = await model.findById(tokenHash).lean<PreviewTokenDoc>();
      return doc ? { workspaceId: doc.workspaceId.toHexString(), postId: doc.postId, expiresAt: doc.expiresAt } : null;
    },
  };
}
