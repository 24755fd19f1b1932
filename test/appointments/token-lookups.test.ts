import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { ObjectId } from 'mongodb';
import { simpleParser } from 'mailparser';
import { createWorkspace, eventually, request, startTestNode, watchingCommands, type DriverCommand, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { randomToken, sha256Hex } from '../../src/shared/crypto.js';
import { startSmtp, type ReceivedMail } from '../email/smtp.js';
import { book, configure, everyDay, staff } from './helpers.js';

// Issue 28, item 1: cancellation and manage tokens name their appointment (`ct_<id>_<secret>`,
// `mt_<id>_<secret>`), so a lookup is one primary-key read (FerretDB scans every tenant's appointments
// for any other filter); a token of no known shape costs no engine command at all. Tokens issued before
// (no id inside) still work through the hash lookup they always had.
let node: HearthNode;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
beforeAll(async () => {
  smtp = await startSmtp();
  node = await startTestNode({ env: { SMTP_URL: smtp.url, EMAIL_RETRY_BASE_MS: '100', AUTH_FAILURES_PER_MINUTE: '1000', RATE_LIMIT_PER_MINUTE: '10000' } });
});
afterAll(async () => {
  await node.stop();
  await smtp.stop();
});

const HOUR = 3_600_000;
const slot = (hoursAhead: number) => new Date(Math.ceil(Date.now() / HOUR) * HOUR + hoursAhead * HOUR).toISOString();
const roundTheClock = { leadTimeHours: 0, bookingWindowDays: 7, businessHours: everyDay([['00:00', '24:00']]) };
const unfold = (mail: ReceivedMail) => mail.raw.replace(/=\r?\n/g, '');

async function freshWorkspace(): Promise<WorkspaceFixture> {
  const ws = await createWorkspace(node.url);
  await configure(node.url, ws, roundTheClock);
  return ws;
}

interface Command {
  name: string;
  collection: string;
  filter: Record<string, unknown> | undefined;
}

/** The engine commands the node sent on the `appointments` collection while `work` ran. */
async function appointmentCommands<T>(work: () => Promise<T>): Promise<{ result: T; commands: Command[] }> {
  const commands: Command[] = [];
  const seen = (event: DriverCommand) => {
    const collection = String(event.command[event.commandName]);
    const filter = (event.command.filter ?? event.command.query ?? (event.command.q as Record<string, unknown> | undefined)) as Record<string, unknown> | undefined;
    if (collection === 'appointments') commands.push({ name: event.commandName, collection, filter });
  };
  return { result: await watchingCommands(node, seen, work), commands };
}

/** Each command's filter names the `_id` and nothing else: a primary-key read, no scan. */
const primaryKeyOnly = (commands: Command[]) => commands.every((c) => c.filter !== undefined && Object.keys(c.filter).join() === '_id');

test('a cancellation token names its request; view and cancel read it by primary key, a second cancel is 400', async () => {
  const ws = await freshWorkspace();
  const booked = await book(node.url, ws, slot(30));
  expect(booked.cancellationToken).toMatch(new RegExp(`^ct_${booked.id}_[A-Za-z0-9_-]{43}$`));

  const view = await appointmentCommands(() => request(node.url, `/external/appointments/requests/${booked.cancellationToken}`));
  expect(view.result.status).toBe(200);
  expect(view.result.body).toMatchObject({ id: booked.id, status: 'PENDING' });
  expect(view.commands.map((c) => c.name)).toEqual(['find']);
  expect(primaryKeyOnly(view.commands)).toBe(true);

  const cancel = await appointmentCommands(() => request(node.url, `/external/appointments/requests/${booked.cancellationToken}/cancel`, { body: {} }));
  expect(cancel.result.status).toBe(200);
  expect(cancel.result.body).toEqual({ id: booked.id, status: 'CANCELLED' });
  expect(primaryKeyOnly(cancel.commands)).toBe(true);

  const again = await appointmentCommands(() => request(node.url, `/external/appointments/requests/${booked.cancellationToken}/cancel`, { body: {} }));
  expect(again.result.status).toBe(400);
  expect(again.result.body.code).toBe('appointment_not_pending');
  expect(primaryKeyOnly(again.commands)).toBe(true);
  // Consumed: the view no longer knows it.
  expect((await request(node.url, `/external/appointments/requests/${booked.cancellationToken}`)).status).toBe(404);
});

test('an unknown token of the new shape costs one primary-key read; one of no known shape costs none; both are 404', async () => {
  const ws = await freshWorkspace();
  const booked = await book(node.url, ws, slot(31));
  // A real id with a wrong secret, an id that names nothing, and strings that are no token at all.
  const wrongSecret = `ct_${booked.id}_${randomBytes(32).toString('base64url')}`;
  const nobody = `ct_${new ObjectId().toHexString()}_${randomBytes(32).toString('base64url')}`;
  for (const token of [wrongSecret, nobody]) {
    const view = await appointmentCommands(() => request(node.url, `/external/appointments/requests/${token}`));
    const cancel = await appointmentCommands(() => request(node.url, `/external/appointments/requests/${token}/cancel`, { body: {} }));
    expect([view.result.status, cancel.result.status]).toEqual([404, 404]);
    expect(cancel.result.body.code).toBe('appointment_token_not_found');
    expect([view.commands.length, cancel.commands.length]).toEqual([1, 1]);
    expect(primaryKeyOnly([...view.commands, ...cancel.commands])).toBe(true);
  }
  for (const token of ['ct_doesnotexist', `ct_${booked.id}_short`, `mt_${booked.id}_${randomBytes(32).toString('base64url')}`]) {
    const view = await appointmentCommands(() => request(node.url, `/external/appointments/requests/${token}`));
    const cancel = await appointmentCommands(() => request(node.url, `/external/appointments/requests/${token}/cancel`, { body: {} }));
    expect([view.result.status, cancel.result.status]).toEqual([404, 404]);
    expect([...view.commands, ...cancel.commands]).toEqual([]);
  }
  // The request those guesses aimed at is untouched.
  expect((await request(node.url, `/external/appointments/requests/${booked.cancellationToken}`)).body.status).toBe('PENDING');
});

test('a token revoked by a confirmation is 404; the manage token of the confirmation names the appointment and works', async () => {
  const ws = await freshWorkspace();
  const email = `manage-${randomBytes(3).toString('hex')}@visitor.test`;
  const booked = await book(node.url, ws, slot(40), { visitorEmail: email });
  expect((await staff(node.url, ws, `/${booked.id}/confirm`)).status).toBe(200);
  const cancel = await request(node.url, `/external/appointments/requests/${booked.cancellationToken}/cancel`, { body: {} });
  expect(cancel.status).toBe(404);
  expect(cancel.body.code).toBe('appointment_token_not_found');

  const mail = await eventually(() => smtp.mails.find((m) => m.to.includes(email) && unfold(m).includes('/appointments/manage/')), 15_000);
  const token = /\/appointments\/manage\/(mt_[A-Za-z0-9_-]+)/.exec((await simpleParser(mail.raw)).text ?? '')?.[1];
  expect(token).toMatch(new RegExp(`^mt_${booked.id}_[A-Za-z0-9_-]{43}$`));
  const view = await appointmentCommands(() => request(node.url, `/external/appointments/manage/${token}`));
  expect(view.result.status).toBe(200);
  expect(view.result.body).toMatchObject({ id: booked.id, status: 'CONFIRMED' });
  expect(primaryKeyOnly(view.commands)).toBe(true);
  const wrong = await appointmentCommands(() => request(node.url, `/external/appointments/manage/mt_${booked.id}_${randomBytes(32).toString('base64url')}`));
  expect(wrong.result.status).toBe(404);
  expect(wrong.commands.length).toBe(1);
  expect(primaryKeyOnly(wrong.commands)).toBe(true);
  const cancelled = await request(node.url, `/external/appointments/manage/${token}/cancel`, { body: {} });
  expect(cancelled.status).toBe(200);
  expect(cancelled.body).toEqual({ id: booked.id, status: 'CANCELLED' });
});

test('tokens issued before tokens named their appointment (no id inside) still view, cancel once and manage', async () => {
  const ws = await freshWorkspace();
  const appointments = node.deps.db.collection('appointments');
  // What an earlier version stored: the hash of a token that names nothing.
  const pending = await book(node.url, ws, slot(50));
  const legacyCancel = randomToken('ct_');
  await appointments.updateOne({ _id: new ObjectId(pending.id) }, { $set: { cancellationTokenHash: sha256Hex(legacyCancel) } });
  expect((await request(node.url, `/external/appointments/requests/${legacyCancel}`)).body).toMatchObject({ id: pending.id, status: 'PENDING' });
  expect((await request(node.url, `/external/appointments/requests/${legacyCancel}/cancel`, { body: {} })).body).toEqual({ id: pending.id, status: 'CANCELLED' });
  const again = await request(node.url, `/external/appointments/requests/${legacyCancel}/cancel`, { body: {} });
  expect([again.status, again.body.code]).toEqual([400, 'appointment_not_pending']);

  const confirmed = await book(node.url, ws, slot(60));
  expect((await staff(node.url, ws, `/${confirmed.id}/confirm`)).status).toBe(200);
  const legacyManage = randomToken('mt_');
  await appointments.updateOne({ _id: new ObjectId(confirmed.id) }, { $set: { manageTokenHash: sha256Hex(legacyManage) } });
  expect((await request(node.url, `/external/appointments/manage/${legacyManage}`)).body).toMatchObject({ id: confirmed.id, status: 'CONFIRMED' });
});
