import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { newWorkspace, startServices, type ServiceHarness } from '../support/service-harness.js';
import { startEngine, type RunningService } from '../support/services.js';
import { engineTraits } from '../../src/db/engine-traits.js';
import { ManualClock } from '../../src/shared/clock.js';
import { documentLocks } from '../../src/db/document-locks.js';
import type { Deps } from '../../src/deps.js';
import type { Workspace } from '../../src/workspaces/workspaces.service.js';
import { createWorkspace, updateWorkspace, findWorkspace } from '../../src/workspaces/workspaces.service.js';
import { createPost, editDraft, getPost } from '../../src/posts/posts.service.js';
import { Posts } from '../../src/posts/posts.model.js';
import { tenantScope } from '../../src/db/tenant-store.js';
import { publishPost, unpublishPost } from '../../src/posts/publication.service.js';
import { listChanges } from '../../src/posts/post-changes.service.js';
import { deleteMediaUnlessPublished } from '../../src/posts/post-media.service.js';
import { mediaStore } from '../../src/media/media.model.js';
import { assignConversation, closeConversation, getConversation } from '../../src/livechat/inbox.service.js';
import { postVisitorMessage } from '../../src/livechat/messages.service.js';
import { sendTeamDigest } from '../../src/livechat/team-digest.service.js';
import { teamDigestStore } from '../../src/livechat/team-digest.model.js';
import { emailStore } from '../../src/email/email.model.js';
import { confirm, decline, getForStaff, reschedule } from '../../src/appointments/staff.service.js';
import { cancelByToken, createRequest } from '../../src/appointments/requests.service.js';
import { createUser, findUserByEmail, type User } from '../../src/auth/auth.service.js';
import { addMember, changeMemberRole, listMembers, removeMember } from '../../src/workspaces/members.service.js';
import { activateChatService, startChatService } from '../livechat/service-support.js';
import { bookService, configureService } from '../appointments/service-helpers.js';
import { eventually, OPERATOR, uniqueDbName } from '../support/harness.js';

/*
 * The engine conformance suite: what two people (or two nodes) doing the same thing at once must never
 * lose, run against every engine the set-up can start: FerretDB on SQLite and on PostgreSQL (when a local
 * PostgreSQL is there), and MongoDB when MONGODB_URI names one. Each race runs ROUNDS times; a single lost
 * or torn write, or any failure other than the rule's own refusal, fails it.
 */
const ROUNDS = 50;
/** Rounds run this many at a time: the races within a round are the point, several rounds add load. */
const ROUNDS_AT_ONCE = 5;
// 50 rounds of a race on SQLite take 10-15 s alone and several times that under load. `npm test` runs this
// folder in a step of its own, before the rest, so its load never meets the suite's timing-sensitive tests.
jest.setTimeout(180_000);

async function rounds(run: (round: number) => Promise<void>): Promise<void> {
  for (let first = 0; first < ROUNDS; first += ROUNDS_AT_ONCE) {
    await Promise.all(Array.from({ length: Math.min(ROUNDS_AT_ONCE, ROUNDS - first) }, (_, i) => run(first + i)));
  }
}

/** Every outcome of racing calls; a rejection that is not an expected refusal fails the test. */
async function race<T extends unknown[]>(...calls: { [K in keyof T]: Promise<T[K]> }): Promise<{ [K in keyof T]: PromiseSettledResult<T[K]> }> {
  return (await Promise.allSettled(calls));
}

/**
 * Starts `run` while this test holds the document lock `key`, and lets go once the calls it started have had
 * time to read and queue at the lock (they do not run inside the holder's context, so they wait for it).
 */
async function whileLocked<T>(deps: Deps, key: string, run: () => Promise<T>): Promise<T> {
  let letGo!: () => void;
  const held = new Promise<void>((resolve) => (letGo = resolve));
  let taken!: () => void;
  const isTaken = new Promise<void>((resolve) => (taken = resolve));
  const holding = documentLocks(deps.db).transition(key, () => {
    taken();
    return held;
  });
  await isTaken;
  const result = new Promise<T>((resolve, reject) => setTimeout(() => run().then(resolve, reject), 0));
  await new Promise((resolve) => setTimeout(resolve, 300));
  letGo();
  await holding;
  return result;
}

const codeOf = (outcome: PromiseSettledResult<unknown>) => (outcome.status === 'rejected' ? ((outcome.reason as { code?: string }).code ?? String(outcome.reason)) : 'ok');

interface EngineUnderTest {
  name: string;
  uri: () => string;
}

const started: RunningService[] = [];
const globalKind = process.env.MONGODB_URI ? 'mongodb' : (process.env.TEST_ENGINE_KIND ?? 'ferretdb-postgresql');
/** The other FerretDB handler, started here; null when it cannot be (no PostgreSQL). */
const other = globalKind === 'mongodb' ? null : await startEngine(globalKind === 'ferretdb-sqlite' ? 'postgresql' : 'sqlite');
if (other) started.push(other);
const engines: EngineUnderTest[] = [{ name: globalKind, uri: () => process.env.TEST_MONGODB_URI! }];
if (other) engines.push({ name: other.kind!, uri: () => other.url });

afterAll(async () => {
  await Promise.all(started.map((engine) => engine.stop()));
});

const NOW = new Date('2025-06-02T06:00:00Z');

/**
 * One round of a team member closing a new chat while the visitor writes and another member assigns it,
 * each through the node given: the close answers CLOSED and stays so, the assignment is kept, and the
 * visitor's message went in before the close or is refused because of it.
 */
async function closeAgainstMessageAndAssignment(on: { closer: Deps; visitor: Deps; assigner: Deps }, workspace: Workspace, agentId: string, session: string) {
  const chat = await startChatService(on.closer, workspace, { visitorSessionId: session });
  const [closed, message, assigned] = await race(
    closeConversation(on.closer, workspace.id, chat.conversationId),
    postVisitorMessage(on.visitor, chat.conversationToken, { body: `Hello from ${session}` }),
    assignConversation(on.assigner, workspace.id, chat.conversationId, agentId),
  );
  expect(codeOf(closed)).toBe('ok');
  if (closed.status === 'fulfilled') expect(closed.value.status).toBe('CLOSED');
  expect(['ok', 'conversation_closed']).toContain(codeOf(message));
  expect(codeOf(assigned)).toBe('ok');
  const stored = await getConversation(on.closer, workspace.id, chat.conversationId);
  expect(stored.status).toBe('CLOSED');
  expect(stored.assignee?.userId ?? null).toBe(agentId);
  // Closed for good: the next message is refused.
  await expect(postVisitorMessage(on.visitor, chat.conversationToken, { body: 'After' })).rejects.toMatchObject({ code: 'conversation_closed' });
}

/**
 * One round of the two owners of a new workspace demoting (or removing) each other at once, each through
 * the node given: one change lands, the other is refused `last_owner`, and one owner is left.
 */
async function ownersAgainstEachOther(on: [Deps, Deps], operator: User, other: User, round: number) {
  const { workspace } = await createWorkspace(on[0], operator, { slug: `team-${round}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`, name: 'Team', locales: ['en'], defaultLocale: 'en' });
  await addMember(on[0], operator, workspace.id, other.id, 'owner');
  const outcomes =
    round % 2 === 0
      ? await race(changeMemberRole(on[0], workspace.id, other.id, 'agent'), changeMemberRole(on[1], workspace.id, operator.id, 'editor'))
      : await race(
          removeMember(on[0], { user: other, role: 'owner' }, workspace.id, other.id),
          removeMember(on[1], { user: operator, role: 'owner' }, workspace.id, operator.id),
        );
  expect(outcomes.map(codeOf).sort()).toEqual(['last_owner', 'ok']);
  expect((await listMembers(on[0], workspace.id)).filter((member) => member.role === 'owner')).toHaveLength(1);
}

async function teamOf(deps: Deps): Promise<{ operator: User; others: User[] }> {
  const operator = (await findUserByEmail(deps, OPERATOR.email))!;
  const others = await Promise.all(
    Array.from({ length: ROUNDS_AT_ONCE }, (_, i) => createUser(deps, { email: `owner-${i}-${Math.random().toString(36).slice(2, 8)}@test.local`, name: `Owner ${i}`, password: 'owner-password' })),
  );
  return { operator, others };
}

describe.each(engines)('on $name', (engine) => {
  const clock = new ManualClock(NOW);
  let services: ServiceHarness;
  let deps: Deps;
  /** The filter keys (sorted) of each `command` on posts that `work` sends. */
  const postFilters = async (command: 'find' | 'findAndModify', work: () => Promise<unknown>): Promise<string[]> => {
    const filters: string[] = [];
    const seen = (event: { commandName: string; command: Record<string, unknown> }) => {
      if (event.commandName !== command || event.command[command] !== 'posts') return;
      filters.push(Object.keys((event.command.filter ?? event.command.query) as object).sort().join());
    };
    const client = deps.db.getClient();
    client.on('commandStarted', seen);
    try {
      await work();
    } finally {
      client.off('commandStarted', seen);
    }
    return filters;
  };
  beforeAll(async () => {
    services = await startServices({ mongoUri: engine.uri(), clock });
    deps = services.deps;
  });
  afterAll(async () => {
    await services.close();
  });

  test('the engine is known: single writes are guarded on FerretDB only', () => {
    expect(documentLocks(deps.db).guardsSingleWrites).toBe(engine.name.startsWith('ferretdb'));
  });

  test('the engine is known: equality filters reach the storage everywhere but on FerretDB over SQLite', () => {
    expect(engineTraits(deps.db).equalityPushdown).toBe(engine.name !== 'ferretdb-sqlite');
  });

  test('the engine is known: an `$in` of ids reaches the storage on MongoDB only', () => {
    expect(engineTraits(deps.db).inPushdown).toBe(!engine.name.startsWith('ferretdb'));
  });

  test('the engine is known: a range reaches the storage on MongoDB only', () => {
    expect(engineTraits(deps.db).rangePushdown).toBe(!engine.name.startsWith('ferretdb'));
  });

  test('two saves of different workspace settings at once: both land', async () => {
    // One workspace per round running at once, so only the two saves of a round meet.
    const workspaces = await Promise.all(Array.from({ length: ROUNDS_AT_ONCE }, async () => (await newWorkspace(deps)).workspace));
    await rounds(async (round) => {
      const workspace = workspaces[round % ROUNDS_AT_ONCE];
      const current = (await findWorkspace(deps, workspace.id))!;
      const outcomes = await race(updateWorkspace(deps, current, { name: `Name ${round}` }), updateWorkspace(deps, current, { siteUrl: `https://r${round}.example` }));
      expect(outcomes.map(codeOf)).toEqual(['ok', 'ok']);
      expect(await findWorkspace(deps, workspace.id)).toMatchObject({ name: `Name ${round}`, siteUrl: `https://r${round}.example` });
    });
  });

  describe('posts', () => {
    let workspace: Workspace;
    beforeAll(async () => {
      ({ workspace } = await newWorkspace(deps));
    });
    const draft = (round: number, tag: string) => createPost(deps, workspace, { locale: 'en', slug: `${tag}-${round}`, title: 'Original', contentMarkdown: 'Body' });

    test("a write by id stays in its workspace: another workspace's post is neither changed nor deleted; on SQLite it filters by _id alone", async () => {
      const post = await draft(0, 'tenant');
      const { workspace: stranger } = await newWorkspace(deps);
      const scope = tenantScope(Posts(deps.db));
      expect(await scope.updateById(stranger.id, post.id, { $set: { title: 'Stolen' } })).toBeNull();
      expect(await scope.deleteById(stranger.id, post.id)).toBe(false);
      // A post read as another workspace's is not written as this one's.
      expect(await scope.updateOwnedById(stranger.id, { id: post.id, workspaceId: workspace.id }, { $set: { title: 'Stolen' } })).toBeNull();
      expect((await getPost(deps, workspace, post.id)).draft.title).toBe('Original');

      // The owner's write: filtered by the workspace too where the engine hands equality filters to its
      // storage; by `_id` alone on FerretDB over SQLite, where any other key decodes every post.
      const written = await postFilters('findAndModify', () => editDraft(deps, workspace, post.id, { title: 'Owned' }));
      expect(written).toEqual([engine.name === 'ferretdb-sqlite' ? '_id' : '_id,workspaceId']);
      expect((await getPost(deps, workspace, post.id)).draft.title).toBe('Owned');
    });

    test("a slug that is another post's draft or published slug is refused: by equality reads, or one read on SQLite", async () => {
      const held = await draft(0, 'held');
      await publishPost(deps, workspace, held.id);
      await editDraft(deps, workspace, held.id, { slug: 'held-moved' });
      const create = (slug: string) => createPost(deps, workspace, { locale: 'en', slug, title: 'New', contentMarkdown: 'Body' });
      const [published, drafted] = await race(create('held-0'), create('held-moved'));
      expect([published, drafted].map(codeOf)).toEqual(['slug_taken', 'slug_taken']);
      // Its own published slug is no clash for the post itself.
      expect((await editDraft(deps, workspace, held.id, { slug: 'held-0' })).draft.slug).toBe('held-0');

      const reads = await postFilters('find', () => create('free-slug'));
      const withOr = reads.filter((filter) => filter.includes('$or'));
      expect(withOr).toHaveLength(engine.name === 'ferretdb-sqlite' ? 1 : 0);
    });

    test('two editors save different fields of one draft: both fields are kept, nothing torn', async () => {
      await rounds(async (round) => {
        const post = await draft(round, 'fields');
        const outcomes = await race(
          editDraft(deps, workspace, post.id, { title: `Title ${round}` }),
          editDraft(deps, workspace, post.id, { metaDescription: `Meta ${round}`, contentMarkdown: `Body ${round}` }),
        );
        expect(outcomes.map(codeOf)).toEqual(['ok', 'ok']);
        const stored = await getPost(deps, workspace, post.id);
        expect(stored.draft).toMatchObject({ title: `Title ${round}`, metaDescription: `Meta ${round}`, contentMarkdown: `Body ${round}` });
        expect(stored.version).toBe(post.version + 2);
      });
    });

    test('two editors with the same If-Match: one save lands, the other is 412 and writes nothing', async () => {
      await rounds(async (round) => {
        const post = await draft(round, 'ifmatch');
        const outcomes = await race(
          editDraft(deps, workspace, post.id, { title: `Mine ${round}` }, [post.version]),
          editDraft(deps, workspace, post.id, { title: `Theirs ${round}`, authorName: 'Theirs' }, [post.version]),
        );
        expect(outcomes.map(codeOf).sort()).toEqual(['ok', 'version_mismatch']);
        const winner = outcomes.findIndex((outcome) => outcome.status === 'fulfilled');
        const stored = await getPost(deps, workspace, post.id);
        expect(stored.draft.title).toBe(winner === 0 ? `Mine ${round}` : `Theirs ${round}`);
        expect(stored.draft.authorName).toBe(winner === 0 ? '' : 'Theirs');
        expect(stored.version).toBe(post.version + 1);
      });
    });

    test('unpublish against a draft save: the post is unpublished and the save is kept', async () => {
      await rounds(async (round) => {
        const post = await draft(round, 'unpub');
        await publishPost(deps, workspace, post.id);
        const [unpublished, saved] = await race(unpublishPost(deps, workspace, post.id), editDraft(deps, workspace, post.id, { title: `Edited ${round}` }));
        expect([codeOf(unpublished), codeOf(saved)]).toEqual(['ok', 'ok']);
        if (unpublished.status === 'fulfilled') expect(unpublished.value.state).toBe('UNPUBLISHED');
        const stored = await getPost(deps, workspace, post.id);
        expect(stored.state).toBe('UNPUBLISHED');
        expect(stored.draft.title).toBe(`Edited ${round}`);
      });
    });

    test('publish against a draft save: the post is published and the save is kept', async () => {
      await rounds(async (round) => {
        const post = await draft(round, 'pub');
        const [published, saved] = await race(publishPost(deps, workspace, post.id), editDraft(deps, workspace, post.id, { title: `Edited ${round}` }));
        expect([codeOf(published), codeOf(saved)]).toEqual(['ok', 'ok']);
        const stored = await getPost(deps, workspace, post.id);
        expect(stored.state).toBe('PUBLISHED');
        expect(stored.draft.title).toBe(`Edited ${round}`);
        // What was published is one of the two drafts, whole.
        expect(['Original', `Edited ${round}`]).toContain(stored.published!.title);
      });
    });

    test('a publish against the delete of its image: either the file stays and is shown, or it is gone and the publish refused', async () => {
      const media = mediaStore(deps.db);
      await rounds(async (round) => {
        const id = media.newId();
        await media.create({ workspaceId: workspace.id, id, name: `i-${round}.png`, contentType: 'image/png', size: 1, width: 10, height: 10, sha256: 'x', storageKey: `media/${workspace.id}/${id}/original`, createdAt: NOW });
        const post = await createPost(deps, workspace, { locale: 'en', slug: `img-${round}`, title: 'Pictured', imageMediaId: id });
        const [published, deleted] = await race(publishPost(deps, workspace, post.id), deleteMediaUnlessPublished(deps, workspace, id));
        const stored = await getPost(deps, workspace, post.id);
        const kept = await media.byId(workspace.id, id);
        if (codeOf(deleted) === 'ok') {
          expect(codeOf(published)).toBe('validation_failed');
          expect([stored.state, kept]).toEqual(['DRAFT', null]);
        } else {
          expect([codeOf(published), codeOf(deleted)]).toEqual(['ok', 'media_in_use']);
          expect([stored.state, stored.published?.imageMediaId, kept?.id]).toEqual(['PUBLISHED', id, id]);
        }
      });
    });

    test('three publishes of one draft at once: one publish, one event, one change entry, the same answer to all', async () => {
      const announced: string[] = [];
      const unsubscribe = deps.events.subscribe(async (event) => {
        if (event.event === 'post.published' && 'postId' in event) announced.push(event.postId);
      });
      try {
        await rounds(async (round) => {
          const post = await draft(round, 'thrice');
          const outcomes = await race(publishPost(deps, workspace, post.id), publishPost(deps, workspace, post.id), publishPost(deps, workspace, post.id));
          expect(outcomes.map(codeOf)).toEqual(['ok', 'ok', 'ok']);
          const answers = outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.post : null));
          expect(answers.map((answer) => [answer!.state, answer!.version, answer!.publishedAt?.toISOString()])).toEqual(Array(3).fill([answers[0]!.state, answers[0]!.version, answers[0]!.publishedAt?.toISOString()]));
          expect(outcomes.filter((outcome) => outcome.status === 'fulfilled' && outcome.value.changed)).toHaveLength(1);
          expect(announced.filter((id) => id === post.id)).toHaveLength(1);
        });
        const changes = await listChanges(deps, workspace.id, { limit: 500 });
        const thricePublished = changes.items.filter((entry) => entry.slug.startsWith('thrice-') && entry.change === 'published');
        expect(thricePublished).toHaveLength(ROUNDS);
      } finally {
        unsubscribe();
      }
    });
  });

  describe('conversations', () => {
    let workspace: Workspace;
    let agentId: string;
    beforeAll(async () => {
      ({ workspace } = await newWorkspace(deps));
      await activateChatService(deps, workspace);
      agentId = (await findUserByEmail(deps, OPERATOR.email))!.id;
    });

    test('close against a visitor message and an assignment: it stays CLOSED, the assignment is kept', async () => {
      await rounds((round) => closeAgainstMessageAndAssignment({ closer: deps, visitor: deps, assigner: deps }, workspace, agentId, `race-${round}`));
    });

    test('three runs of the away digest at once: one mail per member, and the digest is recorded sent', async () => {
      await rounds(async (round) => {
        const { workspace: fresh } = await newWorkspace(deps);
        await activateChatService(deps, fresh);
        const chat = await startChatService(deps, fresh, { visitorSessionId: `digest-${round}` });
        await postVisitorMessage(deps, chat.conversationToken, { body: `Anyone there? (${round})` });
        // The message opens the workspace's digest in the background (nobody of the team is online).
        await eventually(() => teamDigestStore(deps.db).get(fresh.id).then((state) => state ?? undefined));
        const outcomes = await race(...[1, 2, 3].map(() => sendTeamDigest(deps, { workspaceId: fresh.id })));
        expect(outcomes.map(codeOf)).toEqual(['ok', 'ok', 'ok']);
        const mails = await emailStore(deps.db).list(fresh.id, { limit: 10 });
        expect(mails.map((mail) => mail.to)).toEqual([OPERATOR.email]);
        expect((await teamDigestStore(deps.db).get(fresh.id))?.sentAt).not.toBeNull();
      });
    });
  });

  test('two owners demoting or removing each other at once: one change lands, one owner is left', async () => {
    const { operator, others } = await teamOf(deps);
    await rounds((round) => ownersAgainstEachOther([deps, deps], operator, others[round % ROUNDS_AT_ONCE], round));
  });

  describe('appointments', () => {
    const freshWorkspace = async () => {
      clock.set(NOW);
      const { workspace } = await newWorkspace(deps);
      await configureService(deps, workspace, { bookingWindowDays: 30 });
      return workspace;
    };
    /** The index-th 60-minute slot from 3 June, 09:00 UTC (eight a day, 09:00 to 17:00). */
    const slot = (index: number) => new Date(Date.UTC(2025, 5, 3 + Math.floor(index / 8), 9 + (index % 8))).toISOString();

    test('confirm against decline against the visitor cancel: exactly one wins, and it is what is stored', async () => {
      const workspace = await freshWorkspace();
      await rounds(async (round) => {
        const booked = await bookService(deps, workspace, slot(round));
        const outcomes = await race(confirm(deps, workspace, booked.id), decline(deps, workspace, booked.id, null), cancelByToken(deps, booked.cancellationToken));
        const codes = outcomes.map(codeOf);
        expect(codes.filter((code) => code === 'ok')).toHaveLength(1);
        // The losers are refused by the rule: staff answers 409, the visitor's token was revoked by a response (404) or the state is gone (400).
        for (const code of codes.filter((code) => code !== 'ok')) expect(['appointment_not_pending', 'appointment_token_not_found']).toContain(code);
        const stored = await getForStaff(deps, workspace.id, booked.id);
        expect(stored.status).toBe(['CONFIRMED', 'REJECTED', 'CANCELLED'][codes.indexOf('ok')]);
      });
    });

    test('requests from one address racing past the pending cap: exactly the cap is stored', async () => {
      const workspace = await freshWorkspace();
      const capped: Deps = { ...deps, config: { ...deps.config, MAX_PENDING_BOOKINGS_PER_ADDRESS: 2 } };
      await rounds(async (round) => {
        const request = () => createRequest(capped, workspace, { visitorName: 'Ada', visitorEmail: 'ada@example.com', requestedAt: new Date(slot(round)) }, `race-${round}`);
        const outcomes = await race(request(), request(), request(), request());
        expect(outcomes.map(codeOf).sort()).toEqual(['ok', 'ok', 'rate_limited', 'rate_limited']);
      });
    });

    test('two moves of one confirmed appointment at once: one lands, counted once', async () => {
      const workspace = await freshWorkspace();
      await rounds(async (round) => {
        const booked = await bookService(deps, workspace, slot(round * 3));
        await confirm(deps, workspace, booked.id);
        const targets = [slot(round * 3 + 1), slot(round * 3 + 2)];
        // "At once" means both moves decide on the same read: while the test holds the appointment's lock,
        // each reads it and waits at its transition. Without the gate a move whose read waits for a new
        // driver connection may start after the other has landed, and two moves in a row both land, rightly.
        const outcomes = await whileLocked(deps, `appointments:${booked.id}`, () =>
          race(reschedule(deps, workspace, booked.id, new Date(targets[0])), reschedule(deps, workspace, booked.id, new Date(targets[1]))),
        );
        const codes = outcomes.map(codeOf);
        expect(codes.filter((code) => code === 'ok')).toHaveLength(1);
        const stored = await getForStaff(deps, workspace.id, booked.id);
        expect(stored.rescheduleCount).toBe(1);
        expect(stored.scheduledAt).toBe(new Date(targets[codes.indexOf('ok')]).toISOString());
      });
    });
  });
});

describe('three nodes on one engine (sharing Redis)', () => {
  let nodes: ServiceHarness[];
  beforeAll(async () => {
    const dbName = uniqueDbName('three');
    nodes = [];
    for (let i = 0; i < 3; i += 1) nodes.push(await startServices({ dbName, redis: true }));
  });
  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.close()));
  });

  test('unpublish, save and publish of one post on three nodes: each answer is what is stored, the save is kept', async () => {
    const [a, b, c] = nodes.map((node) => node.deps);
    const { workspace } = await newWorkspace(a);
    await rounds(async (round) => {
      const post = await createPost(a, workspace, { locale: 'en', slug: `three-${round}`, title: 'Original' });
      await publishPost(a, workspace, post.id);
      const [unpublished, saved, republished] = await race(
        unpublishPost(a, workspace, post.id),
        editDraft(b, workspace, post.id, { title: `Edited ${round}` }),
        publishPost(c, workspace, post.id),
      );
      expect([unpublished, saved, republished].map(codeOf)).toEqual(['ok', 'ok', 'ok']);
      const stored = await getPost(a, workspace, post.id);
      expect(stored.draft.title).toBe(`Edited ${round}`);
      // The last transition decides the state; whichever it was, no answer claimed a state that did not happen.
      expect(['PUBLISHED', 'UNPUBLISHED']).toContain(stored.state);
      const last = [unpublished, republished]
        .map((outcome) => (outcome.status === 'fulfilled' ? ('post' in outcome.value ? outcome.value.post : outcome.value) : null))
        .sort((x, y) => x!.version - y!.version)
        .at(-1)!;
      expect(stored.state).toBe(last.state);
    });
  });

  test('close on one node against messages and an assignment on the others: CLOSED for good', async () => {
    const [a, b, c] = nodes.map((node) => node.deps);
    const { workspace } = await newWorkspace(a);
    await activateChatService(a, workspace);
    const agentId = (await findUserByEmail(a, OPERATOR.email))!.id;
    await rounds((round) => closeAgainstMessageAndAssignment({ closer: a, visitor: b, assigner: c }, workspace, agentId, `three-${round}`));
  });

  test('two owners demoting or removing each other on two nodes: one owner is left', async () => {
    const [a, b] = nodes.map((node) => node.deps);
    const { operator, others } = await teamOf(a);
    await rounds((round) => ownersAgainstEachOther([a, b], operator, others[round % ROUNDS_AT_ONCE], round));
  });
});
