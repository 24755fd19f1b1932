import { Schema, type Connection, type Types } from 'mongoose';
import { defineModel } from '../db/mongo.js';
import { workspaceDocument } from '../db/workspace-document.js';

interface FeedDoc {
  _id: Types.ObjectId;
  workspaceId: Types.ObjectId;
  /** SHA-256 of the current feed token; rotating replaces it, which ends every old subscription URL. */
  tokenHash: string;
  rotatedAt: Date;
}

const feedSchema = new Schema<FeedDoc>(
  {
    workspaceId: { type: Schema.Types.ObjectId, required: true },
    tokenHash: { type: String, required: true },
    rotatedAt: { type: Date, required: true },
  },
  { collection: 'appointment_feeds' },
);
// The feed request reads its workspace's one document.
feedSchema.index({ workspaceId: 1 }, { unique: true });

const Feeds = defineModel('AppointmentFeed', feedSchema);

export function feedStore(db: Connection) {
  const feeds = workspaceDocument(Feeds(db));
  return {
    async tokenHash(workspaceId: string): Promise<string | null> {
      return (await feeds.get(workspaceId))?.tokenHash ?? null;
    },
    async rotate(workspaceId: string, tokenHash: string, at: Date): Promise<void> {
      await feeds.set(workspaceId, { tokenHash, rotatedAt: at });
    },
  };
}
