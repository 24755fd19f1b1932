import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { DateTime } from 'luxon';
import { axeViolations, launchChromium, overflowsSideways } from '../support/browser.js';
import { OPERATOR, createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import { book, configure, everyDay } from '../appointments/helpers.js';
import { activateChat, startChat } from '../livechat/support.js';
import type { HearthNode } from '../../src/app/node.js';
import { buildConsole } from '../../scripts/build-widget.mjs';
import { startSmtp } from '../email/smtp.js';

/**
 * The team app's submissions and bookings views in a real Chromium against a real node: what a visitor sends
 * through the API shows up live, and the team finishes it in the browser (keyboard only where it says so).
 */

declare const document: any;

let node: HearthNode;
let browser: Browser;
let ws: WorkspaceFixture;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
const HOUR = 3_600_000;
/** A whole hour some hours ahead of now (round-the-clock business hours take any). */
/** How the app writes a time in the plugin's zone (the booking's time line starts with it). */
const bookingsTime = (iso: string) => new Intl.DateTimeFormat('en-US', { timeZone: 'Europe/Berlin', hour: 'numeric', minute: '2-digit' }).format(new Date(iso));
const slot = (hoursAhead: number) => new Date(Math.ceil(Date.now() / HOUR) * HOUR + hoursAhead * HOUR).toISOString();

beforeAll(async () => {
  await buildConsole();
  smtp = await startSmtp();
  node = await startTestNode({ env: { SMTP_URL: smtp.url, EMAIL_RETRY_BASE_MS: '100' } });
  ws = await createWorkspace(node.url, { name: 'Team App Bakery' });
  await configure(node.url, ws, { timezone: 'Europe/Berlin', leadTimeHours: 0, bookingWindowDays: 14, businessHours: everyDay([['00:00', '24:00']]) });
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await node?.stop();
  await smtp?.stop();
});

/** The raw message with quoted-printable soft breaks removed, so phrases can be searched. */
const mailTo = (address: string, phrase: string) =>
  eventually(() => smtp.mails.find((m) => m.to.includes(address) && m.raw.replace(/=\r?\n/g, '').includes(phrase)), 10_000);

async function withApp(run: (page: Page) => Promise<void>, options: { width?: number; locale?: string; hash?: string } = {}) {
  const context = await browser.newContext({ locale: options.locale ?? 'en-US', viewport: { width: options.width ?? 1280, height: 800 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  try {
    await page.goto(`${node.url}/console${options.hash ?? ''}`);
    await page.locator('#email').fill(OPERATOR.email);
    await page.locator('#password').fill(OPERATOR.password);
    await page.locator('#password').press('Enter');
    await page.locator('#workspace').waitFor({ state: 'visible', timeout: 10_000 });
    if ((await page.locator('#workspace').inputValue()) !== ws.id) await page.locator('#workspace').selectOption(ws.id);
    await eventually(async () => (await page.locator('#live').textContent()) === 'live', 10_000);
    await run(page);
    expect(errors).toEqual([]);
  } finally {
    await context.close();
  }
}


test('a submission arrives live, is answered by e-mail from the app with the keyboard only, and counts as handled', async () => {
  await withApp(async (page) => {
    await page.locator('#nav-submissions').click();
    await page.locator('#submissions-title').waitFor();
    const sent = await request(node.url, '/external/submissions', {
      apiKey: ws.apiKey,
      body: { name: 'Grace Live', email: 'grace@visitor.test', subject: 'Wedding cake', message: 'Three tiers, please.' },
    });
    expect(sent.status).toBe(201);
    const entry = page.locator(`#submission-${sent.body.id}`);
    await entry.waitFor({ timeout: 10_000 });
    await eventually(async () => (await page.locator('#nav-submissions').textContent())?.includes('1 waiting'), 10_000);

    await entry.focus();
    await page.keyboard.press('Enter');
    await expect(page.locator('#submission-message').textContent()).resolves.toBe('Three tiers, please.');
    await eventually(async () => page.evaluate(() => document.activeElement?.id === 'submission-title'));

    // A blank answer: the server's message appears beside the field, and what was typed stays.
    await page.locator('#answer-body').focus();
    await page.keyboard.type('   ');
    await page.locator('#answer button[type=submit]').focus();
    await page.keyboard.press('Enter');
    await expect(page.locator('#answer-problem').textContent()).resolves.toBe('must not be blank');
    await expect(page.locator('#answer-body').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.locator('#answer-body').inputValue()).resolves.toBe('   ');

    await page.locator('#answer-body').fill('');
    await page.locator('#answer-body').focus();
    await page.keyboard.type('Yes, we can do three tiers.');
    await page.locator('#answer button[type=submit]').focus();
    await page.keyboard.press('Enter');
    await page.locator('#answers li', { hasText: 'Yes, we can do three tiers.' }).waitFor({ timeout: 10_000 });
    await expect(page.locator('#answer-body').inputValue()).resolves.toBe('');
    await eventually(async () => (await page.locator('#submission-state-text').textContent())?.startsWith('Handled by'));
    await eventually(async () => !(await page.locator('#nav-submissions').textContent())?.includes('waiting'), 10_000);

    const outbox = await request(node.url, `/admin/workspaces/${ws.id}/emails`, { token: ws.token });
    expect((outbox.body.items as { to: string; subject: string }[]).some((m) => m.to === 'grace@visitor.test' && m.subject === 'Re: Wedding cake')).toBe(true);
    expect(await axeViolations(page)).toEqual([]);

    await page.locator('#toggle-handled').click();
    await eventually(async () => (await page.locator('#submission-state-text').textContent()) === 'Waiting for an answer');
  });
}, 90_000);

test('a booking request arrives live; the team confirms one, is told of an overlap in words, and declines another with a note', async () => {
  await withApp(async (page) => {
    await page.locator('#nav-bookings').click();
    await page.locator('#agenda-title').waitFor();
    const first = await book(node.url, ws, slot(3), { visitorName: 'Ann Booking', visitorEmail: 'ann@visitor.test', visitorMessage: 'Birthday cake tasting' });
    await page.locator(`#booking-${first.id}`).waitFor({ timeout: 10_000 });
    await page.locator(`#booking-${first.id}`).click();
    await page.locator('#booking-title').waitFor();
    await expect(page.locator('#booking-status').textContent()).resolves.toBe('pending');
    await expect(page.locator('#booking-time').textContent()).resolves.toContain('Europe/Berlin');
    await page.locator('#confirm button[type=submit]').click();
    await eventually(async () => (await page.locator('#booking-status').textContent()) === 'confirmed', 10_000);
    expect((await request(node.url, `/admin/workspaces/${ws.id}/appointments/${first.id}`, { token: ws.token })).body.status).toBe('CONFIRMED');
    // The visitor is told, with the calendar invite.
    const confirmation = await mailTo('ann@visitor.test', 'filename=invite.ics');
    expect(confirmation.raw).toContain('confirmed');

    // A confirmed appointment moves to another time of the plugin's zone; a blank time is refused beside the field.
    await page.locator('#reschedule button[type=submit]').click();
    await page.locator('#reschedule-problem').waitFor();
    const berlin = (iso: string) => new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Berlin', dateStyle: 'short', timeStyle: 'short' }).format(new Date(iso)).replace(' ', 'T');
    const stored = async () => (await request(node.url, `/admin/workspaces/${ws.id}/appointments/${first.id}`, { token: ws.token })).body.scheduledAt as string;
    for (const hoursAhead of [4, 3]) {
      await page.locator('#reschedule-time').fill(berlin(slot(hoursAhead)));
      await page.locator('#reschedule button[type=submit]').click();
      await page.locator('#reschedule [role=status]', { hasText: 'Moved.' }).waitFor({ timeout: 10_000 });
      await expect(stored()).resolves.toBe(slot(hoursAhead));
      await expect(page.locator('#booking-time').textContent()).resolves.toContain(bookingsTime(slot(hoursAhead)));
    }

    // Confirming the second one onto the first one's time is refused: the reason is shown beside the time.
    const second = await book(node.url, ws, slot(5), { visitorName: 'Bob Overlap' });
    await page.locator(`#booking-${second.id}`).waitFor({ timeout: 10_000 });
    await page.locator(`#booking-${second.id}`).click();
    await page.locator('#booking-title', { hasText: 'Bob Overlap' }).waitFor();
    const firstLocal = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Berlin', dateStyle: 'short', timeStyle: 'short' }).format(new Date(first.requestedAt));
    await page.locator('#confirm-time').fill(firstLocal.replace(' ', 'T'));
    await page.locator('#confirm button[type=submit]').click();
    await expect(page.locator('#confirm-problem').textContent()).resolves.toBe('Another confirmed appointment overlaps this time.');
    await expect(page.locator('#booking-status').textContent()).resolves.toBe('pending');

    await page.locator('#decline-reason').fill('Fully booked that day, sorry.');
    await page.locator('#decline button[type=submit]').click();
    await eventually(async () => (await page.locator('#booking-status').textContent()) === 'declined', 10_000);
    const declined = await request(node.url, `/admin/workspaces/${ws.id}/appointments/${second.id}`, { token: ws.token });
    expect(declined.body).toMatchObject({ status: 'REJECTED', declineReason: 'Fully booked that day, sorry.' });
    await expect(page.locator(`#booking-${second.id}`).count()).resolves.toBe(0);
    expect(await axeViolations(page)).toEqual([]);

    // Back to the agenda: the confirmed appointment is on its day, in the plugin's time zone. The agenda opens on
    // this week (Monday first, in Berlin): late on a Sunday three hours ahead is next week's.
    await page.goto(`${node.url}/console#/bookings`);
    const berlinWeek = (at: string) => DateTime.fromISO(at, { zone: 'Europe/Berlin' }).startOf('week').toISODate();
    if (berlinWeek(await stored()) !== berlinWeek(new Date().toISOString())) await page.getByRole('button', { name: 'Next', exact: true }).click();
    await page.locator('#agenda a', { hasText: 'Ann Booking' }).waitFor({ timeout: 10_000 });
    expect(await axeViolations(page)).toEqual([]);
  });
}, 90_000);

test('the link of the team mail opens the request itself; at 375 px and in German every view fits and passes axe', async () => {
  const request1 = await book(node.url, ws, slot(8), { visitorName: 'Cleo Link' });
  await request(node.url, '/external/submissions', { apiKey: ws.apiKey, body: { name: 'Dora Narrow', email: 'dora@visitor.test', message: 'Hallo' } });
  await withApp(
    async (page) => {
      await page.locator('#booking-title', { hasText: 'Cleo Link' }).waitFor({ timeout: 10_000 });
      await expect(page.locator('#nav-bookings').textContent()).resolves.toContain('Termine');
      expect(await overflowsSideways(page)).toBe(false);
      expect(await axeViolations(page)).toEqual([]);
      // On a narrow screen the back button returns to the list and to the entry it came from.
      await page.locator('.back').click();
      await page.locator('#pending-title').waitFor();
      await eventually(async () => page.evaluate((id) => document.activeElement?.id === `booking-${id}`, request1.id));

      await page.locator('#nav-submissions').click();
      await page.locator('#submissions a', { hasText: 'Dora Narrow' }).click();
      await page.locator('#submission-title').waitFor();
      expect(await overflowsSideways(page)).toBe(false);
      expect(await axeViolations(page)).toEqual([]);
    },
    { width: 375, locale: 'de-DE', hash: `#/bookings/${request1.id}` },
  );
}, 90_000);

test("beside a submission, the person timeline shows that visitor's chat and booking; the booking is confirmed right there", async () => {
  const publishableKey = await activateChat(node.url, ws);
  const started = await startChat(node.url, publishableKey, { visitorSessionId: 'pat-session' });
  const said = await request(node.url, `/external/live-chat/conversations/${encodeURIComponent(started.body.conversationToken)}/messages`, {
    body: { body: 'Do you deliver?', visitorName: 'Pat Person', visitorEmail: 'Pat@Visitor.test' },
  });
  expect(said.status).toBe(201);
  const booked = await book(node.url, ws, slot(30), { visitorName: 'Pat Person', visitorEmail: 'pat@visitor.test' });
  const sent = await request(node.url, '/external/submissions', { apiKey: ws.apiKey, body: { name: 'Pat Person', email: 'pat@visitor.test', subject: 'Delivery', message: 'And a cake?' } });
  // Someone else's records with another address stay out of Pat's timeline.
  await request(node.url, '/external/submissions', { apiKey: ws.apiKey, body: { name: 'Quinn Other', email: 'quinn@visitor.test', message: 'Hello' } });

  await withApp(
    async (page) => {
      await page.locator('#submission-title', { hasText: 'Delivery' }).waitFor({ timeout: 10_000 });
      await page.locator('#person-chats li').waitFor({ timeout: 10_000 });
      await expect(page.locator('#person-chats li').count()).resolves.toBe(1);
      await expect(page.locator('#person-chats li').textContent()).resolves.toContain('linked by e-mail');
      await expect(page.locator('#person-bookings li').count()).resolves.toBe(1);
      await expect(page.locator('#person-submissions').count()).resolves.toBe(0);
      expect(await axeViolations(page)).toEqual([]);

      await page.locator('#person-bookings button', { hasText: 'Confirm' }).click();
      await page.locator('#person-bookings li', { hasText: 'confirmed' }).waitFor({ timeout: 10_000 });
      expect((await request(node.url, `/admin/workspaces/${ws.id}/appointments/${booked.id}`, { token: ws.token })).body.status).toBe('CONFIRMED');

      // The chat opens in the chats view, and its own panel links back to the booking and the submission.
      await page.locator('#person-chats a').click();
      await page.locator('#title', { hasText: 'Pat Person' }).waitFor({ timeout: 10_000 });
      await page.locator('#person-submissions li').waitFor({ timeout: 10_000 });
      await expect(page.locator('#person-bookings li').textContent()).resolves.toContain('linked by e-mail');
      expect(await axeViolations(page)).toEqual([]);
    },
    { hash: `#/submissions/${sent.body.id}` },
  );
}, 90_000);

test('the inbox: chats, submissions and booking requests newest first, live, filtered by keyboard; a confirmed booking is cancelled from its view', async () => {
  const own = await createWorkspace(node.url, { name: 'Inbox Bakery' });
  const publishableKey = await activateChat(node.url, own);
  await configure(node.url, own, { timezone: 'Europe/Berlin', leadTimeHours: 0, bookingWindowDays: 14, businessHours: everyDay([['00:00', '24:00']]) });
  const started = await startChat(node.url, publishableKey, { visitorSessionId: 'inbox-visitor' });
  await request(node.url, `/external/live-chat/conversations/${started.body.conversationToken}/messages`, { body: { body: 'Is the shop open?', visitorName: 'Hana Chat' } });
  const booked = await book(node.url, own, slot(6), { visitorName: 'Ivo Booking', visitorEmail: 'ivo@visitor.test' });
  const previous = ws;
  ws = own;
  try {
    await withApp(async (page) => {
      // The app opens on the inbox.
      await page.locator('#inbox-title').waitFor();
      await page.locator(`#inbox-booking-${booked.id}`).waitFor({ timeout: 10_000 });
      const sent = await request(node.url, '/external/submissions', { apiKey: own.apiKey, body: { name: 'Jo Form', email: 'jo@visitor.test', message: 'Gluten-free?' } });
      await page.locator(`#inbox-submission-${sent.body.id}`).waitFor({ timeout: 10_000 });
      const order = await page.locator('#inbox-items a').evaluateAll((links: { id: string }[]) => links.map((a) => a.id));
      expect(order).toEqual([`inbox-submission-${sent.body.id}`, `inbox-booking-${booked.id}`, `inbox-chat-${started.body.conversationId}`]);
      await expect(page.locator(`#inbox-chat-${started.body.conversationId}`).textContent()).resolves.toContain('Is the shop open?');
      expect(await axeViolations(page)).toEqual([]);

      // Keyboard only: only booking requests, then open the one shown.
      await page.locator('#inbox-kind').focus();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      await eventually(async () => (await page.locator('#inbox-items a').count()) === 1, 10_000);
      await page.locator(`#inbox-booking-${booked.id}`).focus();
      await page.keyboard.press('Enter');
      await page.locator('#booking-title', { hasText: 'Ivo Booking' }).waitFor();
      await page.locator('#confirm button[type=submit]').click();
      await eventually(async () => (await page.locator('#booking-status').textContent()) === 'confirmed', 10_000);

      // The team calls it off with a note; the visitor hears why.
      await page.locator('#cancel-reason').fill('Our oven broke down.');
      await page.locator('#cancel button[type=submit]').click();
      await eventually(async () => (await page.locator('#booking-status').textContent()) === 'cancelled', 10_000);
      await mailTo('ivo@visitor.test', 'Our oven broke down.');
      expect((await request(node.url, `/admin/workspaces/${own.id}/appointments/${booked.id}`, { token: own.token })).body).toMatchObject({ status: 'CANCELLED', cancelReason: 'Our oven broke down.' });
      expect(await axeViolations(page)).toEqual([]);
    });

    // At 375 px in German: the inbox fits, and an entry opens its chat.
    await withApp(
      async (page) => {
        await page.locator(`#inbox-chat-${started.body.conversationId}`).waitFor({ timeout: 10_000 });
        await expect(page.locator('#nav-inbox').textContent()).resolves.toContain('Eingang');
        expect(await overflowsSideways(page)).toBe(false);
        expect(await axeViolations(page)).toEqual([]);
        await page.locator(`#inbox-chat-${started.body.conversationId}`).click();
        await page.locator('#title', { hasText: 'Hana Chat' }).waitFor({ timeout: 10_000 });
      },
      { width: 375, locale: 'de-DE' },
    );
  } finally {
    ws = previous;
  }
}, 120_000);
