import { computed, signal } from '@preact/signals';

/**
 * The team app's views live in the URL's hash (`#/submissions/<id>`): links from mails open the right view,
 * the browser's back button works, and nothing of the route (ids, one-time tokens) reaches a server log.
 */
export type Section = 'inbox' | 'chats' | 'submissions' | 'bookings' | 'posts' | 'media' | 'structure' | 'team' | 'account' | 'settings';
export const SECTIONS: Section[] = ['inbox', 'chats', 'submissions', 'bookings', 'posts', 'media', 'structure', 'team', 'account', 'settings'];

/** Pages a mail's link or the login form opens: shown whether or not someone is logged in. */
export type PublicPage = 'invitation' | 'reset-password' | 'forgot-password';
const PUBLIC_PAGES: PublicPage[] = ['invitation', 'reset-password', 'forgot-password'];

function parse(hash: string): { section: Section; page: PublicPage | null; id: string | null } {
  const [head, id] = hash.replace(/^#\/?/, '').split('/');
  const section = SECTIONS.find((s) => s === head) ?? 'inbox';
  const page = PUBLIC_PAGES.find((p) => p === head) ?? null;
  return { section, page, id: id ? decodeURIComponent(id) : null };
}

const hash = signal(typeof location === 'undefined' ? '' : location.hash);
if (typeof window !== 'undefined') window.addEventListener('hashchange', () => (hash.value = location.hash));

export const route = computed(() => parse(hash.value));

export const hrefOf = (section: Section | PublicPage, id?: string | null) => `#/${section}${id ? `/${encodeURIComponent(id)}` : ''}`;

export function navigate(section: Section | PublicPage, id?: string | null): void {
  const next = hrefOf(section, id);
  if (location.hash !== next) location.hash = next;
}
