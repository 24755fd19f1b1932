/** What a webhook delivery is, as both of its stores (`webhooks.model.ts`, `pending.model.ts`) hold it. */

/**
 * `pending`: first attempt not made yet (kept in the small `webhook_pending` collection until that attempt
 * is recorded); `scheduled`: waiting for a retry at `nextAttemptAt`; `delivered`; `failed` (final: not
 * retryable or out of attempts, `finalReason` says which).
 */
export type DeliveryState = 'pending' | 'scheduled' | 'delivered' | 'failed';
export type AttemptOutcome = 'delivered' | 'retry' | 'rejected' | 'exhausted' | 'refused';

export interface DeliveryAttempt {
  number: number;
  at: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  outcome: AttemptOutcome;
}

export interface Delivery {
  id: string;
  workspaceId: string;
  event: string;
  webhookId: string;
  /** The event's payload fields; `at` is added at sending time. */
  payload: Record<string, unknown>;
  /** The target with its `secret` parameter masked: what the admin API and the logs may show. */
  url: string;
  /** The real target, sealed with the key-encryption secret; null on records of earlier versions (whose `url` is the real one). */
  sealedUrl: string | null;
  state: DeliveryState;
  attempts: DeliveryAttempt[];
  nextAttemptAt: Date | null;
  finalReason: string | null;
  redeliveryOf: string | null;
  /** The registered endpoint it goes to; null for the workspace's spec `webhookUrl`. */
  endpointId: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** Pending deliveries only: the group recorded together, whose pending entries are removed together. */
  batch?: string;
}
