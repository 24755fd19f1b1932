import { prefetchFirstList } from './prefetch.js';

/** Inlined in the `/console` page before the app's script (see prefetch.ts); the app finds it on `window`. */
try {
  (window as { hearthPrefetch?: unknown }).hearthPrefetch = prefetchFirstList();
} catch {
  // Storage refused (private mode, policies): the app asks for its list itself.
}
