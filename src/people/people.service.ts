import type { Deps } from '../deps.js';
import type { PersonKeys } from '../shared/person-keys.js';
import { conversationsOfPerson } from '../livechat/inbox.service.js';
import { appointmentsOfPerson } from '../appointments/staff.service.js';
import { submissionsOfPerson } from '../submissions/submissions.service.js';

/** At most this many items of each kind: the newest. */
export const PERSON_TIMELINE_LIMIT = 50;

/**
 * Everything a workspace knows about one person, linked by any of `keys`: their conversations, bookings and
 * submissions, each list newest first (by creation) and in the shape of its own admin list, with `matchedBy`.
 * Each domain finds its part in one query of its collection.
 */
export async function personTimeline(deps: Deps, workspaceId: string, keys: PersonKeys) {
  const [conversations, appointments, submissions] = await Promise.all([
    conversationsOfPerson(deps, workspaceId, keys, PERSON_TIMELINE_LIMIT),
    appointmentsOfPerson(deps, workspaceId, keys, PERSON_TIMELINE_LIMIT),
    submissionsOfPerson(deps, workspaceId, keys, PERSON_TIMELINE_LIMIT),
  ]);
  return { conversations, appointments, submissions };
}
