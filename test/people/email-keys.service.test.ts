import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { Types } from 'mongoose';
import { newWorkspace, startServices, type ServiceHarness } from '../support/service-harness.js';
import { uniqueDbName } from '../support/harness.js';
import { ManualClock } from '../../src/shared/clock.js';
import { sha256Hex } from '../../src/shared/crypto.js';
import { personTimeline } from '../../src/people/people.service.js';
import { conversationStore, newConversationId } from '../../src/livechat/conversations.model.js';
import { appointmentStore, newAppointmentId } from '../../src/appointments/appointments.model.js';
import { submissionStore } from '../../src/submissions/submissions.model.js';

// The person timeline finds records by e-mail in any case through the lowercased address kept beside the typed
// one (`emailKeyOf`): every way an address reaches a record keeps it, and records stored before it are filed at start.
const clock = new ManualClock(new Date('2025-06-02T06:00:00Z'));
const dbName = uniqueDbName('emailkeys');
let services: ServiceHarness;
beforeAll(async () => {
  services = await startServices({ clock, dbName });
});
afterAll(async () => {
  await services.close();
});

const conversationInput = (identity: { externalId: string; email: string | null } | null) => ({
  id: newConversationId(),
  tokenHash: sha256Hex(randomBytes(16).toString('hex')),
  sealedToken: 'sealed',
  visitorSessionId: `sess-${randomBytes(4).toString('hex')}`,
  pageUrl: null,
  referrer: null,
  locale: null,
  identity: identity && { ...identity, name: null, attributes: null },
});

const appointmentInput = (visitorEmail: string) => ({
  requestedAt: new Date('2025-06-03T10:00:00Z'),
  durationMinutes: 60,
  timezone: 'UTC',
  visitorName: 'Visitor',
  visitorEmail,
  visitorPhone: null,
  visitorMessage: null,
  visitorSessionId: null,
  externalId: null,
  identityVerified: false,
  visitorAttributes: null,
  createdAt: clock.now(),
});

const idsOf = (timeline: Awaited<ReturnType<typeof personTimeline>>) => ({
  conversations: timeline.conversations.map((item) => item.id),
  appointments: timeline.appointments.map((item) => item.id),
  submissions: timeline.submissions.map((item) => item.id),
});

test('an anonymous chat that a verified identity with an e-mail resumes is found by that e-mail, in any case', async () => {
  const { workspace } = await newWorkspace(services.deps);
  const store = conversationStore(services.deps.db);
  const anonymous = await store.create(workspace.id, conversationInput(null), clock.now());
  expect((await personTimeline(services.deps, workspace.id, { email: 'eve@example.com' })).conversations).toEqual([]);
  await store.attachIdentity(workspace.id, anonymous.id, { externalId: 'person-eve', name: 'Eve', email: 'Eve@Example.com', attributes: null });
  expect(idsOf(await personTimeline(services.deps, workspace.id, { email: 'EVE@example.COM' })).conversations).toEqual([anonymous.id]);
});

test('records stored before the e-mail keys: found by e-mail in any case once a node of this version starts', async () => {
  const { workspace } = await newWorkspace(services.deps);
  const { db } = services.deps;
  const conversation = await conversationStore(db).create(workspace.id, conversationInput({ externalId: 'person-grace', email: 'Grace@Example.com' }), clock.now());
  const appointment = await appointmentStore(db).create(workspace.id, newAppointmentId(), appointmentInput('GRACE@example.com'), sha256Hex('token'));
  const submission = await submissionStore(db).create(workspace.id, { name: 'Grace', email: 'grace@EXAMPLE.com', message: 'Hello', createdAt: clock.now() });
  const anonymous = await conversationStore(db).create(workspace.id, conversationInput(null), clock.now());
  // More than one write command of many updates takes (FerretDB on PostgreSQL never answered one of 50).
  const others = await Promise.all(Array.from({ length: 60 }, (_, i) => submissionStore(db).create(workspace.id, { name: 'Other', email: `Other${i}@example.com`, message: 'Hi', createdAt: clock.now() })));
  // As an earlier version stored them: no key beside the address.
  const mine = { workspaceId: new Types.ObjectId(workspace.id) };
  await db.collection('appointments').updateMany(mine, { $unset: { visitorEmailKey: '' } });
  await db.collection('livechat_conversations').updateMany(mine, { $unset: { visitorEmailKey: '' } });
  await db.collection('submissions').updateMany(mine, { $unset: { emailKey: '' } });
  const grace = { email: 'grace@example.com' };
  expect(idsOf(await personTimeline(services.deps, workspace.id, grace))).toEqual({ conversations: [], appointments: [], submissions: [] });

  // A node of this version starts on that database (the upgrade is once per database: as if it had not run yet).
  await db.collection('once_claims').deleteOne({ _id: 'upgrade:person-email-keys' as unknown as Types.ObjectId });
  const restarted = await startServices({ clock, dbName });
  try {
    expect(idsOf(await personTimeline(restarted.deps, workspace.id, grace))).toEqual({ conversations: [conversation.id], appointments: [appointment.id], submissions: [submission.id] });
    expect((await personTimeline(restarted.deps, workspace.id, { email: 'other59@EXAMPLE.com' })).submissions.map((item) => item.id)).toEqual([others[59].id]);
    // A record without an address stays without a key.
    expect(await db.collection('livechat_conversations').findOne({ _id: new Types.ObjectId(anonymous.id) })).not.toHaveProperty('visitorEmailKey');
  } finally {
    await restarted.close();
  }
});
