import { Schema, Types, type Connection } from 'mongoose';
import { defineModel, nullOnDuplicate } from '../db/mongo.js';
import { documentWrites } from '../db/document-locks.js';
import { isObjectIdHex } from '../shared/ids.js';

/** Where a workspace's away digest stands (`team-digest.service.ts`). */
export interface TeamDigestState {
  /** createdAt (ms) of the newest visitor message a digest has dealt with: later ones go in the next. */
  sinceMs: number;
  /** When the last digest was mailed (the interval counts from it); null before the first. */
  sentAt: Date | null;
}

interface TeamDigestDoc {
  /** The workspace's id: one document per workspace, read by primary key (FerretDB scans any other filter). */
  _id: Types.ObjectId;
  sinceMs: number;
  sentAt: Date | null;
}

const TeamDigests = defineModel(
  'LiveChatTeamDigest',
  new Schema<TeamDigestDoc>(
    {
      _id: { type: Schema.Types.ObjectId, required: true },
      sinceMs: { type: Number, required: true },
      sentAt: { type: Date, default: null },
    },
    { collection: 'livechat_team_digests', versionKey: false },
  ),
);

const toState = (doc: TeamDigestDoc): TeamDigestState => ({ sinceMs: doc.sinceMs, sentAt: doc.sentAt ?? null });

export function teamDigestStore(db: Connection) {
  const model = TeamDigests(db);
  const { write } = documentWrites(model);
  const byId = async (workspaceId: string) => (isObjectIdHex(workspaceId) ? model.findById(new Types.ObjectId(workspaceId)).lean<TeamDigestDoc>() : null);
  return {
    async get(workspaceId: string): Promise<TeamDigestState | null> {
      const doc = await byId(workspaceId);
      return doc ? toState(doc) : null;
    },
    /** The workspace's state, made on its first digest with `sinceMs` (the unique `_id` keeps the first of racing callers). */
    async open(workspaceId: string, sinceMs: number): Promise<TeamDigestState> {
      const doc = await byId(workspaceId);
      if (doc) return toState(doc);
      await nullOnDuplicate(() => model.create({ _id: new Types.ObjectId(workspaceId), sinceMs, sentAt: null }));
      return toState((await byId(workspaceId))!);
    },
    async record(workspaceId: string, state: TeamDigestState): Promise<void> {
      await write(workspaceId, () => model.updateOne({ _id: new Types.ObjectId(workspaceId) }, { $set: { sinceMs: state.sinceMs, sentAt: state.sentAt } }));
    },
  };
}
