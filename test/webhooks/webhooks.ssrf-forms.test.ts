import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createWorkspace, eventually, request, startTestNode } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { workspaceStore } from '../../src/workspaces/workspaces.model.js';
import { guardedLookup, isBlockedAddress, postJson } from '../../src/webhooks/webhooks.target.js';
import { startReceiver } from './receiver.js';

let node: HearthNode;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  receiver = await startReceiver();
  node = await startTestNode({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false', WEBHOOK_RETRY_BASE_MS: '2' } });
});
afterAll(async () => {
  await node.stop();
  await receiver.stop();
});

// 127.0.0.1 = 7f00:1, 10.0.0.1 = a00:1, 169.254.169.254 = a9fe:a9fe, 8.8.8.8 = 808:808; a Teredo client is stored inverted.
const BLOCKED: Record<string, string[]> = {
  'IPv4-compatible ::a.b.c.d (refused whatever it carries)': ['::127.0.0.1', '::7f00:1', '::10.0.0.1', '::8.8.8.8', '::', '::1', '::0.0.0.2'],
  'IPv4-mapped ::ffff:a.b.c.d': ['::ffff:127.0.0.1', '::ffff:7f00:1', '0:0:0:0:0:ffff:7f00:1', '::ffff:169.254.169.254', '::ffff:a00:1', '::ffff:0.0.0.0'],
  'IPv4-translated ::ffff:0:a.b.c.d': ['::ffff:0:127.0.0.1', '::ffff:0:a00:1', '::ffff:0:a9fe:a9fe'],
  'NAT64 64:ff9b::/96': ['64:ff9b::127.0.0.1', '64:ff9b::7f00:1', '64:ff9b::a9fe:a9fe', '64:ff9b::10.1.2.3', '64:ff9b::c0a8:101'],
  'local-use NAT64 64:ff9b:1::/48 (refused whatever it carries)': ['64:ff9b:1::7f00:1', '64:ff9b:1::808:808'],
  '6to4 2002::/16': ['2002:7f00:1::', '2002:7f00:1::1', '2002:a9fe:a9fe::1', '2002:c0a8:101::1', '2002:a00:1:1::1'],
  'Teredo 2001::/32 (server or client not public)': ['2001:0:4136:e378:8000:63bf:80ff:fffe', '2001:0:a00:1:8000:63bf:f7f7:f7f7', '2001:0:7f00:1::f7f7:f7f7'],
  'other non-global IPv6': ['fe80::1', 'fc00::1', 'fd00:ec2::254', 'ff02::1', '100::1', '2001:db8::1', 'fec0::1', '4000::1', '2001:10::1'],
  'IPv4 non-public': ['127.0.0.1', '127.255.255.254', '10.0.0.1', '100.64.0.1', '169.254.169.254', '192.0.0.8', '198.18.0.1', '240.0.0.1', '255.255.255.255'],
};

const PUBLIC = [
  '8.8.8.8',
  '93.184.216.34',
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '::ffff:8.8.8.8',
  '::ffff:0:808:808',
  '64:ff9b::8.8.8.8',
  '64:ff9b::808:808',
  '2002:808:808::1',
  '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
];

describe('every spelling of an address is classified', () => {
  test.each(Object.entries(BLOCKED))('%s: blocked', (_form, addresses) => {
    for (const address of addresses) expect([address, isBlockedAddress(address)]).toEqual([address, true]);
  });

  test('public unicast, also carried in a mapped, translated, NAT64, 6to4 or Teredo address, is allowed', () => {
    for (const address of PUBLIC) expect([address, isBlockedAddress(address)]).toEqual([address, false]);
  });

  test('what is not an address is blocked', () => {
    for (const address of ['', 'localhost', '::ffff:999.0.0.1', '1:2:3:4:5:6:7:8:9']) expect([address, isBlockedAddress(address)]).toEqual([address, true]);
  });
});

describe('a POST to a non-public target is refused before connecting', () => {
  const hosts = [
    '[::127.0.0.1]',
    '[::7f00:1]',
    '[::]',
    '[::ffff:127.0.0.1]',
    '[0:0:0:0:0:ffff:7f00:1]',
    '[::ffff:0:127.0.0.1]',
    '[64:ff9b::127.0.0.1]',
    '[64:ff9b:1::7f00:1]',
    '[2002:7f00:1::]',
    '[2001:0:4136:e378:8000:63bf:80ff:fffe]',
    '2130706433',
    '0x7f.1',
    '017700000001',
    '127.1',
    '0.0.0.0',
  ];

  test.each(hosts)('http://%s', async (host) => {
    const result = await postJson(`http://${host}:${receiver.port}/forms`, '{}', {}, { timeoutMs: 3_000, allowPrivate: false });
    expect(result).toEqual(expect.objectContaining({ refused: true, statusCode: null, error: expect.stringMatching(/^target refused/) }));
    expect(receiver.on('/forms')).toHaveLength(0);
  });

  test('a host name is judged on the address it resolves to, in the lookup the socket connects with', async () => {
    // `localhost` is a name, not an address: only the connect-time lookup can see that it is loopback.
    const result = await postJson(`http://localhost:${receiver.port}/forms-name`, '{}', {}, { timeoutMs: 3_000, allowPrivate: false });
    expect(result.refused).toBe(true);
    expect(result.error).toMatch(/localhost resolves to a non-public address \(127\.0\.0\.1\)/);
    expect(receiver.on('/forms-name')).toHaveLength(0);

    for (const options of [{}, { all: true }, { family: 4 }, { family: 0, all: true }]) {
      const outcome = await new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((resolve) =>
        guardedLookup('localhost', options, (error, address) => resolve({ error, address })),
      );
      expect(outcome.error?.code).toBe('ETARGETREFUSED');
      expect(outcome.address).toEqual([]);
    }
  });

  test('with private targets allowed, the same loopback forms connect (the guard, not the network, refused them)', async () => {
    const result = await postJson(`http://[::ffff:127.0.0.1]:${receiver.port}/forms-allowed`, '{}', {}, { timeoutMs: 3_000, allowPrivate: true });
    expect(result.statusCode).toBe(200);
    expect(receiver.on('/forms-allowed')).toHaveLength(1);
  });

  test('a delivery to http://[::127.0.0.1] fails as refused, without a retry or a request', async () => {
    const ws = await createWorkspace(node.url);
    await workspaceStore(node.deps.db).update(ws.id, { webhookUrl: `http://[::127.0.0.1]:${receiver.port}/forms-delivery?secret=x` });
    await node.deps.events.publish({ event: 'workspace.updated', workspaceId: ws.id, at: new Date().toISOString() });
    const delivery = await eventually(async () => {
      const res = await request(node.url, `/admin/workspaces/${ws.id}/webhook-deliveries`, { token: ws.token });
      return res.body.items[0]?.state === 'failed' ? res.body.items[0] : undefined;
    });
    expect(delivery.attempts).toEqual([expect.objectContaining({ number: 1, statusCode: null, outcome: 'refused' })]);
    expect(receiver.on('/forms-delivery')).toHaveLength(0);
  });
});
