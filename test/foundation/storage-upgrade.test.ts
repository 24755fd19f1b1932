import { describe, expect, test } from '@jest/globals';
import { Types } from 'mongoose';
import { startServices } from '../support/service-harness.js';
import { uniqueDbName } from '../support/harness.js';

describe('data written by earlier versions', () => {
  test('webhook deliveries and outbox mails with a hex-string workspace id are upgraded at the first start, others left alone; the look for them runs once per database', async () => {
    const dbName = uniqueDbName('upgrade');
    const workspaceId = new Types.ObjectId().toHexString();
    const first = await startServices({ dbName });
    try {
      await first.deps.db.collection('webhook_deliveries').insertOne({ workspaceId, event: 'post.published', state: 'delivered' });
      await first.deps.db.collection('email_outbox').insertMany([{ workspaceId, to: 'a@example.com' }, { workspaceId: 'not-an-id', to: 'b@example.com' }]);
      // A database of an earlier version has not run today's upgrades.
      await first.deps.db.collection<{ _id: string }>('once_claims').deleteMany({ _id: 'upgrade:workspace-ids-as-object-ids' });
    } finally {
      await first.close();
    }
    const second = await startServices({ dbName });
    try {
      const delivery = await second.deps.db.collection('webhook_deliveries').findOne({});
      expect(delivery!.workspaceId).toEqual(new Types.ObjectId(workspaceId));
      const mails = await second.deps.db.collection('email_outbox').find({}).sort({ to: 1 }).toArray();
      expect(mails.map((mail) => mail.workspaceId)).toEqual([new Types.ObjectId(workspaceId), 'not-an-id']);
      // Done once per database: a record left in the old shape now is not looked for at the next start.
      await second.deps.db.collection('webhook_deliveries').insertOne({ workspaceId, event: 'post.published', state: 'delivered', late: true });
    } finally {
      await second.close();
    }
    const third = await startServices({ dbName });
    try {
      const late = await third.deps.db.collection('webhook_deliveries').findOne({ late: true });
      expect(late!.workspaceId).toBe(workspaceId);
    } finally {
      await third.close();
    }
  });
});
