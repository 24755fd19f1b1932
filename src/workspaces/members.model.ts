import { Schema, Types, type Connection } from 'mongoose';
import { defineModel, nullOnDuplicate } from '../db/mongo.js';
import { tenantScope } from '../db/tenant-store.js';
import { ROLES, type Role } from '../shared/roles.js';

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
    role: { type: String, enum: ROLES, required: true },
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
  const tenant = tenantScope(model);
  const userIs = (userId: string) => ({ userId: new Types.ObjectId(userId) });
  return {
    async upsert(workspaceId: string, userId: string, role: Role): Promise<void> {
      // Keyed by (workspace, user), the membership's identity: its filter never names the `_id`.
      await tenant.write(`${workspaceId}:${userId}`, () => model.updateOne(tenant.filter(workspaceId, userIs(userId)), { $set: { role } }, { upsert: true }));
    },
    async role(workspaceId: string, userId: string): Promise<Role | null> {
      const doc = await tenant.findOne(workspaceId, userIs(userId));
      return doc?.role ?? null;
    },
    /** "My workspaces": the one read by user across workspaces. */
    async workspaceIdsOf(userId: string): Promise<string[]> {
      const docs = await model.find(userIs(userId)).lean<MembershipDoc[]>();
      return docs.map((doc) => doc.workspaceId.toHexString());
    },
    /** Oldest first. */
    async members(workspaceId: string): Promise<{ userId: string; role: Role; joinedAt: Date }[]> {
      const docs = await tenant.find(workspaceId, {}, { sort: { _id: 1 } });
      return docs.map((doc) => ({ userId: doc.userId.toHexString(), role: doc.role, joinedAt: doc.createdAt ?? doc._id.getTimestamp() }));
    },
    /** Creates the membership unless the user has one (whatever its role); true when it was created. The unique index decides. */
    async insertIfAbsent(workspaceId: string, userId: string, role: Role): Promise<boolean> {
      const created = await nullOnDuplicate(() => model.create({ workspaceId: new Types.ObjectId(workspaceId), ...userIs(userId), role }));
      return created !== null;
    },
    /** True when there was a membership to remove. */
    async remove(workspaceId: string, userId: string): Promise<boolean> {
      const result = await tenant.write(`${workspaceId}:${userId}`, () => model.deleteOne(tenant.filter(workspaceId, userIs(userId))));
      return result.deletedCount === 1;
    },
  };
}
