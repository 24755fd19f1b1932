import { spawnSync } from 'node:child_process';
import { describe, expect, test } from '@jest/globals';
import { ConfigError, loadConfig } from '../../src/config/config.js';

describe('configuration', () => {
  test('defaults apply when the environment is empty', () => {
    const config = loadConfig({});
    expect(config.PORT).toBe(3000);
    expect(config.WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(false);
    expect(config.WEBHOOK_RETRY_BASE_MS).toBe(10_000);
    expect(config.NODE_ROLE).toBe('all');
    expect(config.CHAT_ATTACHMENT_MAX_BYTES).toBe(10 * 1024 * 1024);
  });

  test.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['MONGODB_URI', 'postgres://x'],
    ['REDIS_URL', 'http://x'],
    ['WEBHOOK_ALLOW_PRIVATE_TARGETS', 'maybe'],
    ['RATE_LIMIT_PER_MINUTE', '0'],
    ['KEY_ENCRYPTION_SECRET', 'short'],
    ['NODE_ROLE', 'both'],
    ['CHAT_ATTACHMENT_MAX_BYTES', '0'],
    // One S3 put carries at most 5 GiB.
    ['MEDIA_MAX_BYTES', String(5 * 1024 ** 3 + 1)],
    ['CHAT_ATTACHMENT_MAX_BYTES', String(5 * 1024 ** 3 + 1)],
    ['ADMIN_EMAIL', 'not-an-email'],
    // A lease renewed every third of it: under 3 s the renewals would crowd Redis, over 5 min a dead node's agents linger.
    ['CHAT_PRESENCE_LEASE_SECONDS', '2'],
    ['CHAT_PRESENCE_LEASE_SECONDS', '301'],
  ])('a wrong %s (%s) is rejected naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    try {
      loadConfig({ [name]: value });
    } catch (error) {
      expect((error as Error).message).toContain(name);
    }
  });

  test('an upload limit of exactly 5 GiB is accepted', () => {
    const limit = String(5 * 1024 ** 3);
    expect(loadConfig({ MEDIA_MAX_BYTES: limit, CHAT_ATTACHMENT_MAX_BYTES: limit }).MEDIA_MAX_BYTES).toBe(5 * 1024 ** 3);
  });

  test('a presence lease of 3 s and of 300 s is accepted; 15 s by default', () => {
    expect(loadConfig({}).CHAT_PRESENCE_LEASE_SECONDS).toBe(15);
    expect(loadConfig({ CHAT_PRESENCE_LEASE_SECONDS: '3' }).CHAT_PRESENCE_LEASE_SECONDS).toBe(3);
    expect(loadConfig({ CHAT_PRESENCE_LEASE_SECONDS: '300' }).CHAT_PRESENCE_LEASE_SECONDS).toBe(300);
  });

  test('production requires an encryption secret for stored keys', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/KEY_ENCRYPTION_SECRET/);
    expect(loadConfig({ NODE_ENV: 'production', KEY_ENCRYPTION_SECRET: 'x'.repeat(32) }).NODE_ENV).toBe('production');
  });

  test('the server refuses to start on a wrong value and says which variable', () => {
    const result = spawnSync('npx', ['tsx', 'src/main.ts'], {
      env: { ...process.env, PORT: 'not-a-port', MONGODB_URI: '' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('PORT');
  });
});
