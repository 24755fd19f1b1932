import { Schema, Types, type Connection } from 'mongoose';
import { defineModel } from '../db/mongo.js';
import { documentWrites } from '../db/document-locks.js';
import { isObjectIdHex } from '../shared/ids.js';

/** A mailed password-reset link: only its token's SHA-256 hash is stored. Spent (deleted) when used. */
export interface PasswordReset {
  id: string;
  userId: string;
  expiresAt: Date;
}

interface PasswordResetDoc {
  _id: Types.ObjectId;
  tokenHash: string;
  userId: Types.ObjectId;
  expiresAt: Date;
  createdAt: Date;
}

const passwordResetSchema = new Schema<PasswordResetDoc>(
  {
    tokenHash: { type: String, required: true },
    userId: { type: Schema.Types.ObjectId, required: true },
    expiresAt: { type: Date, required: true },
    createdAt: { type: Date, required: true },
  },
  { collection: 'password_resets', versionKey: false },
);
// Completing a reset finds the link by its token's hash.
passwordResetSchema.index({ tokenHash: 1 }, { unique: true });
// A completed reset or a password change spends every other open link of the user.
passwordResetSchema.index({ userId: 1 });

const PasswordResets = defineModel('PasswordReset', passwordResetSchema);

const toReset = (doc: PasswordResetDoc): PasswordReset => ({ id: doc._id.toHexString(), userId: doc.userId.toHexString(), expiresAt: doc.expiresAt });

export function passwordResetStore(db: Connection) {
  const model = PasswordResets(db);
  const guarded = documentWrites(model);
  return {
    /** Runs `work` as the only user of the link with this id: the read, the decision and the spending. */
    exclusive: guarded.transition,
    async create(input: { tokenHash: string; userId: string; expiresAt: Date; createdAt: Date }): Promise<void> {
      await model.create({ ...input, userId: new Types.ObjectId(input.userId) });
    },
    async byHash(tokenHash: string): Promise<PasswordReset | null> {
      const doc = await model.findOne({ tokenHash }).lean<PasswordResetDoc>();
      return doc ? toReset(doc) : null;
    },
    async byId(id: string): Promise<PasswordReset | null> {
      if (!isObjectIdHex(id)) return null;
      const doc = await model.findById(id).lean<PasswordResetDoc>();
      return doc ? toReset(doc) : null;
    },
    async remove(id: string): Promise<void> {
      await guarded.write(id, () => model.deleteOne({ _id: id }));
    },
    /** Every link of the user; a deletion written twice loses nothing, so no lock is needed. */
    async removeAllOf(userId: string): Promise<void> {
      await model.deleteMany({ userId: new Types.ObjectId(userId) });
    },
  };
}
