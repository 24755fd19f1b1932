import { Schema, Types, type Connection } from 'mongoose';
import { defineModel, nullOnDuplicate } from '../db/mongo.js';
import { documentWrites } from '../db/document-locks.js';
import { isObjectIdHex } from '../shared/ids.js';

export interface User {
  id: string;
  email: string;
  name: string;
  isOperator: boolean;
}

interface UserDoc {
  _id: Types.ObjectId;
  email: string;
  name: string;
  passwordHash: string;
  isOperator: boolean;
  createdAt: Date;
}

interface SessionDoc {
  _id: Types.ObjectId;
  tokenHash: string;
  userId: Types.ObjectId;
  expiresAt: Date;
  revokedAt: Date | null;
}

const userSchema = new Schema<UserDoc>(
  {
    // Login looks users up by e-mail, stored lowercased so uniqueness is case-insensitive.
    email: { type: String, required: true, unique: true },
    name: { type: String, required: true },
    passwordHash: { type: String, required: true },
    isOperator: { type: Boolean, default: false },
  },
  { timestamps: { createdAt: true, updatedAt: false }, collection: 'users' },
);

const sessionSchema = new Schema<SessionDoc>(
  {
    tokenHash: { type: String, required: true },
    userId: { type: Schema.Types.ObjectId, required: true },
    expiresAt: { type: Date, required: true },
    revokedAt: { type: Date, default: null },
  },
  { collection: 'sessions' },
);
// Every admin request resolves its bearer token by hash.
sessionSchema.index({ tokenHash: 1 }, { unique: true });
// A password change or reset, and a user's last membership ending, revoke every session of the user.
sessionSchema.index({ userId: 1 });

const Users = defineModel('User', userSchema);
const Sessions = defineModel('Session', sessionSchema);

const toUser = (doc: UserDoc): User => ({ id: doc._id.toHexString(), email: doc.email, name: doc.name, isOperator: doc.isOperator });

export function userStore(db: Connection) {
  const model = Users(db);
  const guarded = documentWrites(model);
  return {
    /** null when the e-mail is taken. */
    async create(input: { email: string; name: string; passwordHash: string; isOperator: boolean }): Promise<User | null> {
      return nullOnDuplicate(async () => {
        const doc = await model.create({ ...input, email: input.email.toLowerCase() });
        return toUser(doc.toObject());
      });
    },
    async count(): Promise<number> {
      return model.countDocuments({});
    },
    async byEmailWithHash(email: string): Promise<(User & { passwordHash: string }) | null> {
      const doc = await model.findOne({ email: email.toLowerCase() }).lean<UserDoc>();
      return doc ? { ...toUser(doc), passwordHash: doc.passwordHash } : null;
    },
    async byId(id: string): Promise<User | null> {
      if (!isObjectIdHex(id)) return null;
      const doc = await model.findById(id).lean<UserDoc>();
      return doc ? toUser(doc) : null;
    },
    async byIdWithHash(id: string): Promise<(User & { passwordHash: string }) | null> {
      if (!isObjectIdHex(id)) return null;
      const doc = await model.findById(id).lean<UserDoc>();
      return doc ? { ...toUser(doc), passwordHash: doc.passwordHash } : null;
    },
    async byIds(ids: string[]): Promise<User[]> {
      const valid = ids.filter(isObjectIdHex);
      if (valid.length === 0) return [];
      const docs = await model.find({ _id: { $in: valid.map((id) => new Types.ObjectId(id)) } }).lean<UserDoc[]>();
      return docs.map(toUser);
    },
    /** False when no user has this id. */
    async setPasswordHash(id: string, passwordHash: string): Promise<boolean> {
      if (!isObjectIdHex(id)) return false;
      const result = await guarded.write(id, () => model.updateOne({ _id: id }, { $set: { passwordHash } }));
      return result.matchedCount === 1;
    },
  };
}

export function sessionStore(db: Connection) {
  const model = Sessions(db);
  return {
    async create(tokenHash: string, userId: string, expiresAt: Date): Promise<void> {
      await model.create({ tokenHash, userId: new Types.ObjectId(userId), expiresAt, revokedAt: null });
    },
    async live(tokenHash: string, now: Date): Promise<{ id: string; userId: string; expiresAt: Date } | null> {
      const doc = await model.findOne({ tokenHash, revokedAt: null, expiresAt: { $gt: now } }).lean<SessionDoc>();
      return doc ? { id: doc._id.toHexString(), userId: doc.userId.toHexString(), expiresAt: doc.expiresAt } : null;
    },
    /** The revoked session's id; null when no session has this hash. */
    async revoke(tokenHash: string, at: Date): Promise<string | null> {
      const doc = await model.findOneAndUpdate({ tokenHash }, { $set: { revokedAt: at } }).lean<SessionDoc>();
      return doc ? doc._id.toHexString() : null;
    },
    /**
     * Revokes every session of the user not revoked yet, but the one with id `except`; answers the ids it
     * revoked (their sockets' rooms). Only `revokedAt` is ever written, always to a time: two revocations
     * meeting on one session lose nothing.
     */
    async revokeAllOf(userId: string, at: Date, except?: string): Promise<string[]> {
      const docs = await model.find({ userId: new Types.ObjectId(userId), revokedAt: null }, { _id: 1 }).lean<Pick<SessionDoc, '_id'>[]>();
      const ids = docs.map((doc) => doc._id).filter((id) => id.toHexString() !== except);
      if (ids.length > 0) await model.updateMany({ _id: { $in: ids } }, { $set: { revokedAt: at } });
      return ids.map((id) => id.toHexString());
    },
  };
}
