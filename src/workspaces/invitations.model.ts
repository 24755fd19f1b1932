import { Schema, Types, type Connection } from 'mongoose';
import { defineModel } from '../db/mongo.js';
import { tenantScope, type TenantDoc } from '../db/tenant-store.js';
import { isObjectIdHex } from '../shared/ids.js';
import { ROLES, type Role } from '../shared/roles.js';

/**
 * An open invitation into a workspace's team: only its token's SHA-256 hash is stored. It is deleted when
 * it is accepted, revoked or replaced by a newer one to the same address; an expired one stays until then
 * but is never found as open.
 */
export interface Invitation {
  id: string;
  workspaceId: string;
  /** Lowercased. */
  email: string;
  role: Role;
  invitedBy: { id: string; name: string };
  expiresAt: Date;
  createdAt: Date;
}

interface InvitationDoc extends TenantDoc {
  email: string;
  role: Role;
  tokenHash: string;
  invitedBy: { userId: Types.ObjectId; name: string };
  expiresAt: Date;
  createdAt: Date;
}

const invitationSchema = new Schema<InvitationDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    email: { type: String, required: true },
    role: { type: String, enum: ROLES, required: true },
    tokenHash: { type: String, required: true },
    invitedBy: { type: new Schema({ userId: Schema.Types.ObjectId, name: String }, { _id: false }), required: true },
    expiresAt: { type: Date, required: true },
    createdAt: { type: Date, required: true },
  },
  { collection: 'invitations', versionKey: false },
);
// The accept page finds an invitation by its token's hash.
invitationSchema.index({ tokenHash: 1 }, { unique: true });
// A new invitation replaces the earlier ones to its address; the team lists a workspace's open ones.
invitationSchema.index({ workspaceId: 1, email: 1 });

const Invitations = defineModel('Invitation', invitationSchema);

const toInvitation = (doc: InvitationDoc): Invitation => ({
  id: doc._id.toHexString(),
  workspaceId: doc.workspaceId.toHexString(),
  email: doc.email,
  role: doc.role,
  invitedBy: { id: doc.invitedBy.userId.toHexString(), name: doc.invitedBy.name },
  expiresAt: doc.expiresAt,
  createdAt: doc.createdAt,
});

export interface NewInvitation {
  email: string;
  role: Role;
  tokenHash: string;
  invitedBy: { id: string; name: string };
  expiresAt: Date;
  createdAt: Date;
}

export function invitationStore(db: Connection) {
  const model = Invitations(db);
  const tenant = tenantScope(model);
  return {
    /**
     * Runs `work` as the only writer of the workspace's invitations to `email`: an invitation's identity
     * is (workspace, address), so a replacement, a revocation and an acceptance of it meet here one at a time.
     */
    exclusive<T>(workspaceId: string, email: string, work: () => Promise<T>): Promise<T> {
      return tenant.transition(`${workspaceId}:${email}`, work);
    },
    async create(workspaceId: string, input: NewInvitation): Promise<Invitation> {
      const { invitedBy, ...rest } = input;
      const doc = await model.create({
        ...rest,
        workspaceId: new Types.ObjectId(workspaceId),
        invitedBy: { userId: new Types.ObjectId(invitedBy.id), name: invitedBy.name },
      });
      return toInvitation(doc.toObject());
    },
    async byHash(tokenHash: string): Promise<(Invitation & { tokenHash: string }) | null> {
      const doc = await model.findOne({ tokenHash }).lean<InvitationDoc>();
      return doc ? { ...toInvitation(doc), tokenHash: doc.tokenHash } : null;
    },
    async byId(workspaceId: string, id: string): Promise<(Invitation & { tokenHash: string }) | null> {
      const doc = await tenant.byId(workspaceId, id);
      return doc ? { ...toInvitation(doc), tokenHash: doc.tokenHash } : null;
    },
    /** Not yet expired at `now`, newest first. */
    async open(workspaceId: string, now: Date): Promise<Invitation[]> {
      const docs = await tenant.find(workspaceId, { expiresAt: { $gt: now } }, { sort: { createdAt: -1, _id: -1 } });
      return docs.map(toInvitation);
    },
    /** Deletes every invitation of the workspace to this address (inside `exclusive`). */
    async removeTo(workspaceId: string, email: string): Promise<void> {
      await model.deleteMany(tenant.filter(workspaceId, { email }));
    },
    /** True when the workspace had this invitation. */
    async remove(workspaceId: string, id: string): Promise<boolean> {
      if (!isObjectIdHex(id)) return false;
      return tenant.deleteById(workspaceId, id);
    },
  };
}
