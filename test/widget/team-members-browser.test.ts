import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeViolations, launchChromium, overflowsSideways } from '../support/browser.js';
import { OPERATOR, createWorkspace, eventually, request, startTestNode, type WorkspaceFixture } from '../support/harness.js';
import { startSmtp, type ReceivedMail } from '../email/smtp.js';
import type { HearthNode } from '../../src/app/node.js';
import { buildConsole } from '../../scripts/build-widget.mjs';

/**
 * The team app's Team and Account views and the pages a mail's link opens, in a real Chromium against a real
 * node and a real SMTP server: an owner invites a colleague, the link sets their password once, the owner
 * changes their role and removes them while their console is open; a forgotten password is reset by its link.
 */

declare const sessionStorage: any;

let node: HearthNode;
let browser: Browser;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let ws: WorkspaceFixture;

beforeAll(async () => {
  await buildConsole();
  smtp = await startSmtp();
  node = await startTestNode({ env: { SMTP_URL: smtp.url, EMAIL_RETRY_BASE_MS: '100' } });
  ws = await createWorkspace(node.url, { name: 'Team Members Bakery' });
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await node?.stop();
  await smtp?.stop();
});

/** The raw message with quoted-printable soft breaks and `=3D` undone, so links can be read whole. */
const body = (mail: ReceivedMail) => mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
/** The one-time token of the newest mail to `address` whose link opens `page` in the team app. */
async function linkToken(address: string, page: 'invitation' | 'reset-password', after = 0): Promise<string> {
  const mail = await eventually(() => smtp.mails.slice(after).find((m) => m.to.includes(address) && body(m).includes(`#/${page}/`)), 10_000);
  return /#\/(?:invitation|reset-password)\/([A-Za-z0-9_-]+)/.exec(body(mail))![1];
}

async function open(options: { width?: number; locale?: string; hash?: string } = {}): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ locale: options.locale ?? 'en-US', viewport: { width: options.width ?? 1280, height: 800 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${node.url}/console${options.hash ?? ''}`);
  return { context, page, errors };
}

async function logIn(page: Page, email: string, password: string): Promise<void> {
  await page.locator('#email').fill(email);
  await page.locator('#password').fill(password);
  await page.locator('#password').press('Enter');
  await page.locator('#workspace').waitFor({ state: 'visible', timeout: 10_000 });
  if ((await page.locator('#workspace').inputValue()) !== ws.id) await page.locator('#workspace').selectOption(ws.id);
  await eventually(async () => (await page.locator('#live').textContent()) === 'live', 10_000);
}


test('an owner invites a colleague from the app; the link works once; the owner makes them editor, then removes them and their open console ends', async () => {
  const owner = await open({ hash: '#/team' });
  await logIn(owner.page, OPERATOR.email, OPERATOR.password);
  await owner.page.locator('#invite-email').waitFor();

  // Keyboard only: type the address, pick the role, send.
  await owner.page.locator('#invite-email').focus();
  await owner.page.keyboard.type('not-an-address');
  await owner.page.keyboard.press('Enter');
  await owner.page.locator('#invite-email-problem').waitFor();
  await expect(owner.page.locator('#invite-email').getAttribute('aria-invalid')).resolves.toBe('true');
  await expect(owner.page.locator('#invite-email').inputValue()).resolves.toBe('not-an-address');
  await owner.page.locator('#invite-email').fill('');
  await owner.page.keyboard.type('cora@colleague.test');
  await owner.page.locator('#invite-role').selectOption('agent');
  await owner.page.locator('#invite button[type=submit]').focus();
  await owner.page.keyboard.press('Enter');
  await owner.page.locator('#invitations li', { hasText: 'cora@colleague.test' }).waitFor({ timeout: 10_000 });
  expect(await axeViolations(owner.page)).toEqual([]);

  // The colleague opens the mailed link, is told what it is for, and chooses a password (too short first).
  const invitation = await linkToken('cora@colleague.test', 'invitation');
  const colleague = await open({ hash: `#/invitation/${invitation}` });
  await expect(colleague.page.locator('#invitation-what').textContent()).resolves.toBe('You are invited to Team Members Bakery as Agent.');
  expect(await axeViolations(colleague.page)).toEqual([]);
  await colleague.page.locator('#join-name').fill('Cora Colleague');
  await colleague.page.locator('#join-password').fill('short');
  await colleague.page.locator('#join-password').press('Enter');
  await colleague.page.locator('#join-password-problem').waitFor();
  await expect(colleague.page.locator('#join-name').inputValue()).resolves.toBe('Cora Colleague');
  await colleague.page.locator('#join-password').fill('cora-password-1');
  await colleague.page.locator('#join-password').press('Enter');
  await eventually(async () => (await colleague.page.locator('#live').textContent()) === 'live', 10_000);
  const colleagueToken = (await colleague.page.evaluate(() => sessionStorage.getItem('hearth.console.token'))) as string;

  // An agent sees the team but not the owner's controls; the link does not work twice.
  await colleague.page.locator('#nav-team').click();
  await colleague.page.locator('#members li', { hasText: 'Cora Colleague' }).waitFor();
  await expect(colleague.page.locator('#invite').count()).resolves.toBe(0);
  await expect(colleague.page.locator('#members select').count()).resolves.toBe(0);
  const again = await open({ hash: `#/invitation/${invitation}` });
  await again.page.locator('#invitation-gone').waitFor();
  await again.context.close();

  // The owner makes the colleague an editor, then removes them; their open console ends and their token is dead.
  await owner.page.reload();
  await eventually(async () => (await owner.page.locator('#live').textContent()) === 'live', 10_000);
  const row = owner.page.locator('#members li', { hasText: 'Cora Colleague' });
  await row.waitFor();
  await row.locator('select').selectOption('editor');
  await eventually(async () => (await owner.page.locator('#team-status').textContent()) === 'Cora Colleague is now Editor.', 10_000);
  const teamNow = await request(node.url, `/admin/workspaces/${ws.id}/members`, { token: ws.token });
  expect(teamNow.body.items.find((m: { email: string }) => m.email === 'cora@colleague.test').role).toBe('editor');

  await row.locator('button', { hasText: 'Remove Cora Colleague' }).click();
  // The confirmation takes the focus, so Enter answers it.
  await owner.page.keyboard.press('Enter');
  await eventually(async () => (await owner.page.locator('#members li', { hasText: 'Cora Colleague' }).count()) === 0, 10_000);
  await colleague.page.locator('#login').waitFor({ timeout: 10_000 });
  expect((await request(node.url, '/admin/me', { token: colleagueToken })).status).toBe(401);
  expect(owner.errors).toEqual([]);
  expect(colleague.errors).toEqual([]);
  await owner.context.close();
  await colleague.context.close();
}, 120_000);

test('a forgotten password is reset by its mailed link, once; a member changes their own password in Account (German, 375 px)', async () => {
  const operator = await request(node.url, '/admin/auth/login', { body: OPERATOR });
  const created = await request(node.url, '/admin/users', { token: operator.body.token, body: { email: 'rita@colleague.test', name: 'Rita Reset', password: 'rita-password-1' } });
  expect(created.status).toBe(201);
  expect((await request(node.url, `/admin/workspaces/${ws.id}/members`, { token: ws.token, body: { userId: created.body.id, role: 'agent' } })).status).toBe(201);

  const { context, page, errors } = await open({ width: 375, locale: 'de-DE' });
  await page.locator('a', { hasText: 'Passwort vergessen?' }).click();
  await page.locator('#forgot-email').fill('rita@colleague.test');
  const mailsBefore = smtp.mails.length;
  await page.locator('#forgot-email').press('Enter');
  await page.locator('#forgot-status', { hasText: 'Wenn ein Konto diese Adresse nutzt' }).waitFor();
  expect(await overflowsSideways(page)).toBe(false);
  expect(await axeViolations(page)).toEqual([]);

  const reset = await linkToken('rita@colleague.test', 'reset-password', mailsBefore);
  await page.goto(`${node.url}/console#/reset-password/${reset}`);
  await page.locator('#reset-password').fill('rita-new-password');
  await page.locator('#reset-password').press('Enter');
  await page.locator('#reset-status').waitFor();
  expect(await axeViolations(page)).toEqual([]);
  // The link is spent: a second use says so above the form.
  await page.reload();
  await page.locator('#reset-password').fill('rita-other-password');
  await page.locator('#reset-password').press('Enter');
  await page.locator('#reset-problem').waitFor();

  expect((await request(node.url, '/admin/auth/login', { body: { email: 'rita@colleague.test', password: 'rita-password-1' } })).status).toBe(401);
  await page.goto(`${node.url}/console#/account`);
  await logIn(page, 'rita@colleague.test', 'rita-new-password');
  await page.locator('#signed-in-as').waitFor();
  await page.locator('#current-password').fill('wrong-password');
  await page.locator('#new-password').fill('rita-third-password');
  await page.locator('#new-password').press('Enter');
  await page.locator('#current-password-problem').waitFor();
  await expect(page.locator('#current-password').getAttribute('aria-invalid')).resolves.toBe('true');
  await page.locator('#current-password').fill('rita-new-password');
  await page.locator('#new-password').press('Enter');
  await page.locator('#password-status', { hasText: 'Passwort geändert' }).waitFor({ timeout: 10_000 });
  expect((await request(node.url, '/admin/auth/login', { body: { email: 'rita@colleague.test', password: 'rita-third-password' } })).status).toBe(200);
  expect(await overflowsSideways(page)).toBe(false);
  expect(await axeViolations(page)).toEqual([]);

  await page.locator('#nav-team').click();
  await page.locator('#members li', { hasText: 'Rita Reset' }).waitFor();
  expect(await overflowsSideways(page)).toBe(false);
  expect(await axeViolations(page)).toEqual([]);
  expect(errors).toEqual([]);
  await context.close();
}, 120_000);
