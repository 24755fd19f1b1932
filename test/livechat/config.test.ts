import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { createWorkspace, eventually, request, startTestNode } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { activateChat, agentSocket, createAgent, PUT_DEFAULTS } from './support.js';
import { WIDGET_STRING_KEYS } from '../../src/livechat/widget-strings.js';
import { createUser } from '../../src/auth/auth.service.js';
import { stringsFor } from '../../widget/src/strings.js';

let node: HearthNode;
beforeAll(async () => {
  node = await startTestNode();
});
afterAll(async () => {
  await node.stop();
});

const config = (publishableKey: string | undefined, locale?: string, headers?: Record<string, string>) =>
  request(node.url, `/external/live-chat/config${locale === undefined ? '' : `?locale=${encodeURIComponent(locale)}`}`, { publishableKey, headers });

describe('plugin settings', () => {
  test('the first activation mints the publishable key, later saves keep it, rotation replaces it', async () => {
    const ws = await createWorkspace(node.url);
    const before = await request(node.url, `/admin/workspaces/${ws.id}/plugins/live-chat`, { token: ws.token });
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ publishableKey: null, settings: { enabled: false } });

    // Saving disabled does not activate: no key yet.
    const disabled = await request(node.url, `/admin/workspaces/${ws.id}/plugins/live-chat`, { method: 'PUT', token: ws.token, body: { ...PUT_DEFAULTS, enabled: false } });
    expect(disabled.body.publishableKey).toBeNull();

    const key = await activateChat(node.url, ws, { identitySecret: 'explicit-secret-0123456789' });
    expect(key).toMatch(/^pk_[A-Za-z0-9_-]{32,}$/);
    const again = await request(node.url, `/admin/workspaces/${ws.id}/plugins/live-chat`, { method: 'PUT', token: ws.token, body: { ...PUT_DEFAULTS, greeting: 'Hey' } });
    expect(again.body.publishableKey).toBe(key);
    expect(again.body.settings).toMatchObject({ enabled: true, greeting: 'Hey', identitySecretConfigured: true, theme: PUT_DEFAULTS.theme });
    expect(JSON.stringify(again.body)).not.toContain('explicit-secret');

    const rotated = await request(node.url, `/admin/workspaces/${ws.id}/plugins/live-chat/publishable-key/rotate`, { method: 'POST', token: ws.token });
    expect(rotated.status).toBe(200);
    expect(rotated.body.publishableKey).not.toBe(key);
    expect((await config(key)).body).toEqual({ enabled: false });
    expect((await config(rotated.body.publishableKey)).body.enabled).toBe(true);
  });

  test('only owners change settings; invalid bodies are 400 with issues', async () => {
    const ws = await createWorkspace(node.url);
    const agent = await createAgent(node.url, ws);
    const put = await request(node.url, `/admin/workspaces/${ws.id}/plugins/live-chat`, { method: 'PUT', token: agent, body: PUT_DEFAULTS });
    expect(put.status).toBe(403);
    const rotate = await request(node.url, `/admin/workspaces/${ws.id}/plugins/live-chat/publishable-key/rotate`, { method: 'POST', token: agent });
    expect(rotate.status).toBe(403);
    expect((await request(node.url, `/admin/workspaces/${ws.id}/plugins/live-chat`, { token: agent })).status).toBe(200);

    const bad = await request(node.url, `/admin/workspaces/${ws.id}/plugins/live-chat`, {
      method: 'PUT',
      token: ws.token,
      body: { enabled: 'yes', greeting: '', greetings: { 'not a locale': 'x' } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation_failed');
    expect(bad.body.issues.map((issue: { path: string }) => issue.path)).toEqual(expect.arrayContaining(['enabled', 'greeting']));
  });
});

describe('GET /external/live-chat/config', () => {
  test('locale resolution: exact tag, then primary subtag, then default; never an error', async () => {
    const ws = await createWorkspace(node.url);
    const key = await activateChat(node.url, ws, { forceOnline: false });
    const cases: [string | undefined, string, string][] = [
      [undefined, 'Hello!', 'We are away.'],
      ['de-CH', 'Grüezi!', 'Wir sind weg.'], // exact greeting; offline text falls to the primary subtag
      ['DE-ch', 'Grüezi!', 'Wir sind weg.'], // tags compare case-insensitively
      ['de-AT', 'Hallo!', 'Wir sind weg.'], // primary subtag
      ['fr-CA', 'Bonjour !', 'We are away.'], // primary greeting; no French offline text -> default
      ['ja', 'Hello!', 'We are away.'], // unknown -> default
      ['%%not-a-tag%%', 'Hello!', 'We are away.'], // malformed -> default, no 400
    ];
    for (const [locale, greeting, offlineMessage] of cases) {
      const res = await config(key, locale);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ enabled: true, greeting, offlineMessage, theme: PUT_DEFAULTS.theme, online: false });
    }
  });

  test('disabled, deactivated, unknown or missing key: {enabled:false}; a workspace key: 401; the key also works as a query parameter', async () => {
    const ws = await createWorkspace(node.url);
    const key = await activateChat(node.url, ws);
    expect((await config('pk_unknownunknownunknownunknownunknown')).body).toEqual({ enabled: false });
    expect((await config(undefined)).body).toEqual({ enabled: false });
    const wrongKind = await config(undefined, undefined, { 'X-Api-Key': ws.apiKey });
    expect(wrongKind.status).toBe(401);
    expect(wrongKind.body.code).toBe('wrong_credential_kind');
    const viaQuery = await request(node.url, `/external/live-chat/config?publishableKey=${key}&locale=de`);
    expect(viaQuery.body).toMatchObject({ enabled: true, greeting: 'Hallo!' });

    await request(node.url, `/admin/workspaces/${ws.id}/plugins/live-chat`, { method: 'PUT', token: ws.token, body: { ...PUT_DEFAULTS, enabled: false } });
    const off = await config(key);
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ enabled: false });
    // Re-enabling brings the same key back to life (it was never rotated).
    await activateChat(node.url, ws);
    expect((await config(key)).body.enabled).toBe(true);
  });

  test('online follows agent-console presence live; forceOnline overrides it', async () => {
    const ws = await createWorkspace(node.url);
    const key = await activateChat(node.url, ws);
    expect((await config(key)).body.online).toBe(false);
    const agent = await createAgent(node.url, ws);
    const socket = await agentSocket(node.url, agent, ws.id);
    try {
      expect((await config(key)).body.online).toBe(true);
    } finally {
      socket.close();
    }
    await eventually(async () => (await config(key)).body.online === false);

    await activateChat(node.url, ws, { forceOnline: true });
    expect((await config(key)).body.online).toBe(true);
  });

  test('an operator outside the team, in the console, does not make it online; an operator who is a member does', async () => {
    const ws = await createWorkspace(node.url);
    const key = await activateChat(node.url, ws);
    const email = `operator-${randomBytes(4).toString('hex')}@test.local`;
    await createUser(node.deps, { email, name: 'Platform Support', password: 'support-password', isOperator: true });
    const outsider = (await request(node.url, '/admin/auth/login', { body: { email, password: 'support-password' } })).body.token as string;
    const watching = await agentSocket(node.url, outsider, ws.id);
    try {
      expect((await config(key)).body.online).toBe(false);
      // ws.token is the operator who created the workspace: its owner, a member.
      const owner = await agentSocket(node.url, ws.token, ws.id);
      expect((await config(key)).body.online).toBe(true);
      owner.close();
      await eventually(async () => (await config(key)).body.online === false);
    } finally {
      watching.close();
    }
  });
});

describe("the workspace's own widget strings", () => {
  const putStrings = (ws: { id: string; token: string }, widgetStrings: unknown) =>
    request(node.url, `/admin/workspaces/${ws.id}/plugins/live-chat`, { method: 'PUT', token: ws.token, body: { ...PUT_DEFAULTS, theme: null, widgetStrings } });
  const strings = (key: string, locale: string) =>
    request(node.url, `/external/live-chat/config?locale=${encodeURIComponent(locale)}&include=strings`, { publishableKey: key });

  test('every string the widget shows can be overridden, and only those', () => {
    for (const locale of ['en', 'de', 'fr', 'es']) {
      const { lang: _, ...table } = stringsFor(locale);
      expect(Object.keys(table).sort()).toEqual([...WIDGET_STRING_KEYS].sort());
    }
    // A name every object inherits is no language: English.
    expect(stringsFor('constructor')).toEqual(stringsFor('en'));
  });

  test('include=strings resolves each string: exact tag, then primary subtag, then *; without include the spec shape is exact', async () => {
    const ws = await createWorkspace(node.url);
    const key = await activateChat(node.url, ws);
    const saved = await putStrings(ws, { '*': { title: 'Talk to Acme', send: 'Go' }, de: { send: 'Abschicken', online: 'Wir sind da' }, 'de-CH': { send: 'Senden!' } });
    expect(saved.status).toBe(200);
    expect(saved.body.warnings).toEqual([]);
    expect(saved.body.settings.widgetStrings).toEqual({ '*': { title: 'Talk to Acme', send: 'Go' }, de: { send: 'Abschicken', online: 'Wir sind da' }, 'de-CH': { send: 'Senden!' } });
    expect((await request(node.url, `/admin/workspaces/${ws.id}/plugins/live-chat`, { token: ws.token })).body.settings.widgetStrings).toEqual(saved.body.settings.widgetStrings);

    const cases: [string, Record<string, string>][] = [
      ['de-CH', { title: 'Talk to Acme', send: 'Senden!', online: 'Wir sind da' }],
      ['DE-ch', { title: 'Talk to Acme', send: 'Senden!', online: 'Wir sind da' }],
      ['de-AT', { title: 'Talk to Acme', send: 'Abschicken', online: 'Wir sind da' }],
      ['fr', { title: 'Talk to Acme', send: 'Go' }],
      ['%%', { title: 'Talk to Acme', send: 'Go' }],
    ];
    for (const [locale, expected] of cases) {
      const res = await strings(key, locale);
      expect({ locale, status: res.status, strings: res.body.strings }).toEqual({ locale, status: 200, strings: expected });
    }
    const plain = await config(key, 'de');
    expect(plain.body).toEqual({ enabled: true, greeting: 'Hallo!', offlineMessage: 'Wir sind weg.', theme: null, online: false });

    // None saved: an empty object; a later save without widgetStrings clears them.
    await activateChat(node.url, ws);
    expect((await strings(key, 'de')).body.strings).toEqual({});
    const bad = await request(node.url, `/external/live-chat/config?locale=de&include=colours`, { publishableKey: key });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation_failed');
  });

  test('bounds: 500 characters pass, 501 fail; unknown names, empty texts, bad locales and 51 locales are 400 with issues', async () => {
    const ws = await createWorkspace(node.url);
    await activateChat(node.url, ws);
    expect((await putStrings(ws, { '*': { title: 'x'.repeat(500) } })).status).toBe(200);
    const fifty = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`x${String.fromCharCode(97 + Math.floor(i / 26))}${String.fromCharCode(97 + (i % 26))}`, { send: 'Go' }]));
    expect((await putStrings(ws, { '*': { send: 'Go' }, ...fifty })).status).toBe(200);
    for (const widgetStrings of [
      { '*': { title: 'x'.repeat(501) } },
      { '*': { nope: 'x' } },
      { '*': { title: '   ' } },
      { '*': {} },
      { 'not a locale': { title: 'x' } },
      { '*': { send: 'Go' }, xx: { send: 'Go' }, ...fifty },
      { '*': 'Go' },
    ]) {
      const res = await putStrings(ws, widgetStrings);
      expect({ widgetStrings, status: res.status, code: res.body.code }).toEqual({ widgetStrings, status: 400, code: 'validation_failed' });
      expect(res.body.issues[0].path).toMatch(/^widgetStrings/);
    }
  });

  test('a text without the placeholder the widget fills in is saved with a warning', async () => {
    const ws = await createWorkspace(node.url);
    await activateChat(node.url, ws);
    const missing = await putStrings(ws, { fr: { newCount: 'nouveaux', typing: '{name} écrit…' } });
    expect(missing.status).toBe(200);
    expect(missing.body.warnings).toEqual([expect.stringContaining('widgetStrings["fr"].newCount has no {n}')]);
    expect(missing.body.settings.widgetStrings.fr.newCount).toBe('nouveaux');
    expect((await putStrings(ws, { fr: { newCount: '{n} nouveaux' } })).body.warnings).toEqual([]);
  });
});

describe('GET /external/live-chat/bootstrap', () => {
  test('workspace key only: the bootstrap object with publishable key and script path', async () => {
    const ws = await createWorkspace(node.url);
    const notYet = await request(node.url, '/external/live-chat/bootstrap', { apiKey: ws.apiKey });
    expect(notYet.body).toEqual({ enabled: false });

    const key = await activateChat(node.url, ws);
    const res = await request(node.url, '/external/live-chat/bootstrap?locale=de', { apiKey: ws.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      enabled: true,
      publishableKey: key,
      greeting: 'Hallo!',
      offlineMessage: 'Wir sind weg.',
      theme: PUT_DEFAULTS.theme,
      scriptPath: '/widget/widget.js',
    });

    const withPk = await request(node.url, '/external/live-chat/bootstrap', { publishableKey: key });
    expect(withPk.status).toBe(401);
    expect(withPk.body.code).toBe('wrong_credential_kind');
    expect((await request(node.url, '/external/live-chat/bootstrap')).status).toBe(401);

    await request(node.url, `/admin/workspaces/${ws.id}/plugins/live-chat`, { method: 'PUT', token: ws.token, body: { ...PUT_DEFAULTS, enabled: false } });
    expect((await request(node.url, '/external/live-chat/bootstrap', { apiKey: ws.apiKey })).body).toEqual({ enabled: false });
  });
});
