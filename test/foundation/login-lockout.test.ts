import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import { loginOperator, request, startTestNode } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import { ManualClock } from '../../src/shared/clock.js';

/**
 * The bound: with LOGIN_MAX_FAILURES = N, N failures per window are 401 and leave the account usable;
 * the (N+1)th failure is 429 and locks the e-mail and the client address until the window ends, whatever
 * the password (except, for the e-mail's lock, at an address the account logged in from before). Every
 * client here is on loopback: each test sends from its own 127.x.y.z address (a real
 * source address, so the node sees it as the client address).
 */
const N = 3;
const WINDOW_MINUTES = 15;
const clock = new ManualClock(new Date());
let node: HearthNode;
let operatorToken: string;

beforeAll(async () => {
  node = await startTestNode({ clock, env: { LOGIN_MAX_FAILURES: String(N), LOGIN_FAILURE_WINDOW_MINUTES: String(WINDOW_MINUTES) } });
  operatorToken = await loginOperator(node.url);
});
afterAll(async () => {
  await node.stop();
});
// Every test starts in a fresh window.
beforeEach(() => clock.advance(WINDOW_MINUTES * 60_000 + 1));

let addressCounter = 0;
/** A loopback address no other test sends from. */
function freshAddress(): string {
  addressCounter += 1;
  return `127.0.${Math.floor(addressCounter / 250) + 1}.${(addressCounter % 250) + 1}`;
}

interface LoginAnswer {
  status: number;
  body: Record<string, unknown>;
  retryAfter?: string;
  ms: number;
}

/** POST /admin/auth/login from a chosen source address. */
function login(email: string, password: string, from: string): Promise<LoginAnswer> {
  const started = performance.now();
  const { port } = new URL(node.url);
  const payload = JSON.stringify({ email, password });
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: '/admin/auth/login', method: 'POST', localAddress: from, agent: false, headers: { 'Content-Type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), retryAfter: res.headers['retry-after'], ms: performance.now() - started }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function newUser(): Promise<{ email: string; password: string }> {
  const user = { email: `u-${randomBytes(4).toString('hex')}@test.local`, password: `pw-${randomBytes(6).toString('hex')}` };
  const res = await request(node.url, '/admin/users', { token: operatorToken, body: { ...user, name: 'User' } });
  if (res.status !== 201) throw new Error(`user creation failed: ${res.status} ${res.text}`);
  return user;
}

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];

describe('login lockout per e-mail', () => {
  test('exactly N failures leave the account usable: the right password then logs in', async () => {
    const user = await newUser();
    const from = freshAddress();
    for (let i = 0; i < N; i += 1) expect((await login(user.email, 'wrong-password', from)).status).toBe(401);
    expect((await login(user.email, user.password, from)).status).toBe(200);
  });

  test('the (N+1)th failure is 429 and locks the account: the right password is 429 too, until the window ends', async () => {
    const user = await newUser();
    // Each failure from its own address: the e-mail's count locks, no address's does.
    const statuses = [];
    for (let i = 0; i <= N; i += 1) statuses.push((await login(user.email, 'wrong-password', freshAddress())).status);
    expect(statuses).toEqual([...Array(N).fill(401), 429]);

    const locked = await login(user.email, user.password, freshAddress());
    expect(locked.status).toBe(429);
    expect(locked.body.code).toBe('rate_limited');
    expect(Number(locked.retryAfter)).toBeGreaterThan(0);
    expect(Number(locked.retryAfter)).toBeLessThanOrEqual(WINDOW_MINUTES * 60);
    // Another account from the same address is not affected.
    const other = await newUser();
    expect((await login(other.email, other.password, freshAddress())).status).toBe(200);

    clock.advance(WINDOW_MINUTES * 60_000 + 1);
    expect((await login(user.email, user.password, freshAddress())).status).toBe(200);
  });

  test('strangers who lock an e-mail do not lock out its member at an address the account logged in from', async () => {
    const user = await newUser();
    const home = freshAddress();
    expect((await login(user.email, user.password, home)).status).toBe(200);
    const statuses = [];
    for (let i = 0; i <= N + 5; i += 1) statuses.push((await login(user.email, 'wrong-password', freshAddress())).status);
    expect(statuses).toEqual([...Array(N).fill(401), ...Array(6).fill(429)]);
    // Locked for every new address, right password included; not at home.
    expect((await login(user.email, user.password, freshAddress())).status).toBe(429);
    expect((await login(user.email, user.password, home)).status).toBe(200);
    // At home the address's own count still applies: N wrong passwords there are 401, the next is 429.
    for (let i = 0; i < N; i += 1) expect((await login(user.email, 'wrong-password', home)).status).toBe(401);
    expect((await login(user.email, 'wrong-password', home)).status).toBe(429);
    // The exemption belongs to that account: another locked e-mail stays locked at this address.
    const other = await newUser();
    for (let i = 0; i <= N; i += 1) await login(other.email, 'wrong-password', freshAddress());
    expect((await login(other.email, other.password, home)).status).toBe(429);
  });

  test('an unknown e-mail is counted and locked exactly like a known one, with the same answers', async () => {
    const known = await newUser();
    const unknown = `nobody-${randomBytes(4).toString('hex')}@test.local`;
    const answers = async (email: string) => {
      const seen = [];
      for (let i = 0; i < N + 3; i += 1) {
        const res = await login(email, 'wrong-password', freshAddress());
        seen.push({ status: res.status, body: res.body });
      }
      return seen;
    };
    const forKnown = await answers(known.email);
    const forUnknown = await answers(unknown);
    expect(forUnknown).toEqual(forKnown);
    expect(forKnown.map((answer) => answer.status)).toEqual([...Array(N).fill(401), 429, 429, 429]);
    expect((await login(known.email, known.password, freshAddress())).status).toBe(429);
  });
});

describe('login lockout per client address', () => {
  test('failures over many e-mails from one address lock that address, even for a right password', async () => {
    const from = freshAddress();
    const statuses = [];
    for (let i = 0; i <= N; i += 1) statuses.push((await login(`guess-${i}-${randomBytes(3).toString('hex')}@test.local`, 'wrong-password', from)).status);
    expect(statuses).toEqual([...Array(N).fill(401), 429]);

    const user = await newUser();
    expect((await login(user.email, user.password, from)).status).toBe(429);
    // The account itself is not locked: from another address it logs in.
    expect((await login(user.email, user.password, freshAddress())).status).toBe(200);
  });

  test('successful logins do not count as failures', async () => {
    const from = freshAddress();
    const user = await newUser();
    for (let i = 0; i < 3 * N; i += 1) expect((await login(user.email, user.password, from)).status).toBe(200);
    for (let i = 0; i < N; i += 1) expect((await login(user.email, 'wrong-password', from)).status).toBe(401);
    expect((await login(user.email, user.password, from)).status).toBe(200);
  });
});

describe('a locked attempt costs no password hashing', () => {
  test('50 locked attempts (known and unknown e-mails) take far less than 50 password verifications', async () => {
    const user = await newUser();
    const unknown = `nobody-${randomBytes(4).toString('hex')}@test.local`;
    // Unlocked failures verify a password (scrypt): their duration is the baseline.
    const verified: number[] = [];
    for (const email of [user.email, unknown]) {
      for (let i = 0; i <= N; i += 1) verified.push((await login(email, 'wrong-password', freshAddress())).ms);
    }
    const started = performance.now();
    for (let i = 0; i < 50; i += 1) {
      const res = await login(i % 2 ? user.email : unknown, i % 4 === 0 ? user.password : 'wrong-password', freshAddress());
      expect(res.status).toBe(429);
    }
    const lockedTotal = performance.now() - started;
    // Verifying runs about 60 ms of scrypt; a locked answer is a few counter reads.
    expect(lockedTotal).toBeLessThan((50 * median(verified)) / 4);
  }, 60_000);

  test('a burst of concurrent guesses verifies at most N + 1 passwords', async () => {
    const user = await newUser();
    const from = () => freshAddress();
    // Baseline: one verification at a time.
    const single = [];
    for (let i = 0; i < 5; i += 1) single.push((await login(`solo-${i}-${randomBytes(3).toString('hex')}@test.local`, 'wrong-password', from())).ms);
    clock.advance(WINDOW_MINUTES * 60_000 + 1);

    const started = performance.now();
    const burst = await Promise.all(Array.from({ length: 40 }, () => login(user.email, 'wrong-password', from())));
    const burstMs = performance.now() - started;
    const statuses = burst.map((res) => res.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(N);
    expect(statuses.filter((status) => status === 429)).toHaveLength(40 - N);
    // 40 verifications take about 40 x the single time spread over the machine's two cores; N + 1 take a few.
    expect(burstMs).toBeLessThan((40 * median(single)) / 3);
  }, 60_000);
});
