/**
 * The first list of a returning member's view starts with the page, not with the app: the page's boot
 * script (boot.ts, inlined in `/console`) asks for the list this view asked for first the last time,
 * while the app's script still downloads and starts. The app takes that answer when its view asks for
 * the same path (the same request, so the same answer), and remembers the path for the next load.
 * No imports: boot.ts is a few hundred bytes on its own.
 */
export const TOKEN_KEY = 'hearth.console.token';
const FIRST_LIST_KEY = 'hearth.console.first-list.';

export interface Prefetched {
  path: string;
  answer: Promise<Response>;
}

/** The view a hash shows, as the router names it (no view named: the inbox). */
const viewOf = (hash: string): string => hash.replace(/^#\/?/, '').split('/')[0] || 'inbox';

export function rememberFirstList(view: string, path: string): void {
  try {
    localStorage.setItem(FIRST_LIST_KEY + view, path);
  } catch {
    // Storage refused: the next load asks for its list itself.
  }
}

/** The boot script's part: starts the remembered request, if a member is logged in and one is remembered. */
export function prefetchFirstList(): Prefetched | null {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const path = localStorage.getItem(FIRST_LIST_KEY + viewOf(location.hash));
  if (!token || !path) return null;
  const answer = fetch(path, { headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` } });
  // A failed request is the app's to report, when it takes the answer; unclaimed, it is no error.
  answer.catch(() => undefined);
  return { path, answer };
}
