import { Schema, Types, type Connection } from 'mongoose';
import { defineModel } from '../db/mongo.js';
import type { Role } from '../shared/roles.js';

interface MembershipDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  userId: Types.ObjectId;
  role: Role;
  createdAt: Date;
}

const membershipSchema = new Schema<MembershipDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    userId: { type: Schema.Types.ObjectId, required: true },
    role: { type: String, enum: ['owner', 'agent'], required: true },
  },
  { timestamps: { createdAt: true, updatedAt: false }, collection: 'memberships' },
);
// Access checks look up (workspace, user); one membership per pair.
membershipSchema.index({ workspaceId: 1, userId: 1 }, { unique: true });
// "My workspaces" lists a user's memberships.
membershipSchema.index({ userId: 1 });

const Memberships = defineModel('Membership', membershipSchema);

export function membershipStore(db: Connection) {
  const model = Memberships(db);
  return {
    async upsert(workspaceId: string, userId: string, role: Role): Promise<void> {
      await model.updateOne(
        { workspaceId: new Types.ObjectId(workspaceId), userId: new Types.ObjectId(userId) },
        { $set: { role } },
        { upsert: true },
      );
    },
    async role(workspaceId: string, userId: string): Promise<Role | null> {
      const doc = await model
        .findOne({ workspaceId: new Types.ObjectId(workspaceId), userId: new Types.ObjectId(userId) })
        .lean<MembershipDoc>();
      return doc?.role ?? null;
    },
    async workspaceIdsOf(userId: string): Promise<string[]> {
      const docs = await model.find({ userId: new Types.ObjectId(userId) }).lean<MembershipDoc[]>();
      return docs.map((doc) => doc.workspaceId.toHexString());
    },
    async members(workspaceId: string): Promise<{ userId: string; role: Role }[]> {
      const docs = await model.find({ workspaceId: new Types.ObjectId(workspaceId) }).sort({ _id: 1 }).lean<MembershipDoc[]>();
      return docs.map((doc) => ({ userId: doc.userId.toHexString(), role: doc.role }));
    },
  };
}
