import type { Connection } from 'mongoose';
import type { Logger } from 'pino';
import { upgradeOnce } from '../db/once.js';
import { deliveryStore } from './webhooks.model.js';
import { LEGACY_BLOCK, deliveryLogStore } from './delivery-log.model.js';

/**
 * Delivery records of earlier versions brought to today's shape, once per database: each step reads every
 * record on FerretDB, so none of them runs at every start or on a timer.
 */
export async function upgradeWebhookStorage(db: Connection, logger: Logger): Promise<void> {
  const store = deliveryStore(db);
  // Records left `pending` by versions before the pending collection move there (their dispatch reads only there).
  await upgradeOnce(db, 'webhook-pending-records-moved', async () => {
    for (let legacy = await store.legacyPending(); legacy.length; legacy = await store.legacyPending()) {
      await store.movePending(legacy);
      logger.info({ moved: legacy.length }, 'webhooks: pending records of an earlier version moved to the pending collection');
    }
  });
  // Retries to come are found in `webhook_retries` since it exists: records already waiting get their entry.
  await upgradeOnce(db, 'webhook-retries-entered', async () => {
    const entered = await store.enterScheduledOfEarlierVersions();
    if (entered > 0) logger.info({ entered }, 'webhooks: scheduled retries of an earlier version entered');
  });
  // The pruning walks each workspace's numbered log: earlier records go below it, and their workspaces get a log.
  await upgradeOnce(db, 'webhook-delivery-log-numbers', async () => {
    const workspaces = await store.fileUnnumbered(LEGACY_BLOCK);
    for (const workspaceId of workspaces) {
      await deliveryLogStore(db).take(workspaceId, 0);
      await deliveryLogStore(db).moveCursor(workspaceId, { from: LEGACY_BLOCK, takenBefore: 0, quiet: null });
    }
    if (workspaces.length) logger.info({ workspaces: workspaces.length }, 'webhooks: delivery records of an earlier version filed below the numbered log');
  });
}
