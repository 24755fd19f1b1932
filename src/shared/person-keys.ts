/**
 * The keys that tie a visitor's records together across live chat, appointments and submissions (the
 * person timeline of the team app): a verified `externalId`, an e-mail address (any case) and the widget's
 * `visitorSessionId`. Each domain says which of its fields carries which key; this file holds what they share.
 */
export const PERSON_KEYS = ['externalId', 'email', 'visitorSessionId'] as const;
export type PersonKey = (typeof PERSON_KEYS)[number];

/** The keys asked for; at least one is given (the route refuses none). */
export type PersonKeys = Partial<Record<PersonKey, string>>;

/** What one record carries of each key: `externalId` only when the identity was verified; null when none. */
export type PersonFields = Record<PersonKey, string | null>;

/** The keys of `keys` that `fields` carries, in `PERSON_KEYS` order; e-mail compared whole, in any case. */
export function matchedBy(keys: PersonKeys, fields: PersonFields): PersonKey[] {
  return PERSON_KEYS.filter((key) => {
    const asked = keys[key];
    const held = fields[key];
    if (asked === undefined || held === null) return false;
    return key === 'email' ? held.toLowerCase() === asked.toLowerCase() : held === asked;
  });
}

/**
 * The key an e-mail is found by in any case: the address lowercased, as `matchedBy` compares it. Records keep it
 * beside the address as typed (`visitorEmailKey`, a submission's `emailKey`), so a read by e-mail is an equality
 * every engine hands its storage (MongoDB seeks its index; a case-insensitive pattern made FerretDB decode every
 * record of the workspace: 4.3 s for a person's timeline at 10,000 bookings and 20,000 chats, bench:scale).
 */
export function emailKeyOf(email: string): string {
  return email.toLowerCase();
}

/**
 * The branches that find a visitor's records (a conversation, an appointment: the same field names) by any of
 * `keys`: `externalId` only where the identity was verified, the e-mail in any case, the session. Each an equality.
 */
export function visitorRecordBranches(keys: PersonKeys): Record<string, unknown>[] {
  const branches: Record<string, unknown>[] = [];
  if (keys.externalId !== undefined) branches.push({ externalId: keys.externalId, identityVerified: true });
  if (keys.email !== undefined) branches.push({ visitorEmailKey: emailKeyOf(keys.email) });
  if (keys.visitorSessionId !== undefined) branches.push({ visitorSessionId: keys.visitorSessionId });
  return branches;
}
