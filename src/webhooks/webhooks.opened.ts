import type { KeyObject } from 'node:crypto';
import type { Deps } from '../deps.js';
import type { Delivery } from './delivery.js';
import { parseTarget, type ParsedTarget } from './webhooks.target.js';
import { signingKey } from './webhooks.signing.js';
import { targetOf } from './webhooks.sealing.js';

/** What a dispatcher keeps, at most, of each kind: it sees few distinct targets and secrets. */
const OPENED_TARGETS_MAX = 64;
const PARSED_TARGETS_MAX = 256;
const SIGNING_KEYS_MAX = 256;

/** A target ready to post to; no `signingKey`: its URL has no secret and deliveries go unsigned. */
export interface OpenedTarget {
  target: ParsedTarget;
  signingKey: KeyObject | null;
}

/**
 * The targets a dispatcher has opened. The spec URL's by sealed value: the records of a group share one
 * (see `storedTarget`), so a burst opens each URL once instead of once per delivery. Each URL is parsed
 * and each secret's HMAC key imported once too: a registered endpoint's URL and secret are read anew for
 * every delivery (a rotation applies at once), but they are the same few.
 */
export class OpenedTargets {
  private readonly opened = new Map<string, OpenedTarget>();
  private readonly parsed = new Map<string, ParsedTarget>();
  private readonly signingKeys = new Map<string, KeyObject>();

  constructor(private readonly deps: Deps) {}

  /** The spec URL the delivery was recorded with. */
  of(delivery: Delivery): OpenedTarget {
    return kept(this.opened, OPENED_TARGETS_MAX, delivery.sealedUrl ?? delivery.url, () => {
      const url = targetOf(this.deps, delivery);
      return this.to(url, new URL(url).searchParams.get('secret'));
    });
  }

  /** A URL and secret as read now (a registered endpoint's). */
  to(url: string, secret: string | null): OpenedTarget {
    return {
      target: kept(this.parsed, PARSED_TARGETS_MAX, url, () => parseTarget(url)),
      signingKey: secret ? kept(this.signingKeys, SIGNING_KEYS_MAX, secret, () => signingKey(secret)) : null,
    };
  }
}

/** `cache`'s value for `key`, made on the first ask; a full cache starts over rather than track which entry is oldest. */
function kept<V>(cache: Map<string, V>, max: number, key: string, make: () => V): V {
  let value = cache.get(key);
  if (value === undefined) {
    value = make();
    if (cache.size >= max) cache.clear();
    cache.set(key, value);
  }
  return value;
}
