import type { Deps } from '../deps.js';
import { newDeliveryId } from './webhooks.model.js';
import type { Delivery, DeliveryState } from './delivery.js';

/** A target as delivery records keep it: masked for display, sealed for sending. */
export interface StoredTarget {
  url: string;
  sealedUrl: string;
}

/**
 * Sealing costs a cipher run: a group of records to one URL shares one `StoredTarget` (the same
 * ciphertext in several records reveals only that they go to the same URL, which `url` shows anyway).
 */
export function storedTarget(deps: Deps, url: string): StoredTarget {
  return { url: maskSecret(url), sealedUrl: deps.secretBox.seal(url) };
}

/** A new delivery record, its target stored masked for display and sealed for sending. */
export function newDelivery(
  deps: Deps,
  workspaceId: string,
  fields: {
    event: string;
    webhookId: string;
    payload: Record<string, unknown>;
    url: string | StoredTarget;
    state: DeliveryState;
    nextAttemptAt?: Date;
    redeliveryOf?: string;
    endpointId?: string | null;
  },
): Delivery {
  const now = deps.clock.now();
  const target = typeof fields.url === 'string' ? storedTarget(deps, fields.url) : fields.url;
  return {
    id: newDeliveryId(),
    workspaceId,
    event: fields.event,
    webhookId: fields.webhookId,
    payload: fields.payload,
    url: target.url,
    sealedUrl: target.sealedUrl,
    state: fields.state,
    attempts: [],
    nextAttemptAt: fields.nextAttemptAt ?? null,
    finalReason: null,
    redeliveryOf: fields.redeliveryOf ?? null,
    endpointId: fields.endpointId ?? null,
    createdAt: now,
    updatedAt: now,
  };
}

/** The URL to POST to (with its secret); records of earlier versions kept it in `url`. */
export function targetOf(deps: Deps, delivery: Delivery): string {
  return delivery.sealedUrl ? deps.secretBox.open(delivery.sealedUrl) : delivery.url;
}

/** The URL as the admin API shows it: the secret never leaves the server again. */
export function maskSecret(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.searchParams.has('secret')) parsed.searchParams.set('secret', '***');
    return parsed.toString();
  } catch {
    return url;
  }
}
