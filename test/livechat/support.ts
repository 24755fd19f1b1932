import { Writable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { pino, type Logger } from 'pino';
import { io as connectClient, type Socket } from 'socket.io-client';
import { loginOperator, request, type WorkspaceFixture } from '../support/harness.js';
import { derivedIdentitySecret, signIdentity } from '../../src/identity/identity.service.js';
import type { AgentServerEvents, ClientEvents, WidgetServerEvents } from '../../src/realtime/events.js';

export const PUT_DEFAULTS = {
  enabled: true,
  greeting: 'Hello!',
  greetings: { de: 'Hallo!', 'de-CH': 'Grüezi!', fr: 'Bonjour !' },
  offlineMessage: 'We are away.',
  offlineMessages: { de: 'Wir sind weg.' },
  theme: { '--accent': '#ff0000' },
};

/** Saves exactly these live-chat settings (owner session); returns the publishable key. */
export async function putChatSettings(url: string, ws: WorkspaceFixture, body: Record<string, unknown>): Promise<string> {
  const res = await request(url, `/admin/workspaces/${ws.id}/plugins/live-chat`, { method: 'PUT', token: ws.token, body });
  if (res.status !== 200) throw new Error(`live chat settings refused: ${res.status} ${res.text}`);
  return res.body.publishableKey as string;
}

/** Activates live chat with the test defaults (owner session) and returns the publishable key. */
export function activateChat(url: string, ws: WorkspaceFixture, overrides: Record<string, unknown> = {}): Promise<string> {
  return putChatSettings(url, ws, { ...PUT_DEFAULTS, ...overrides });
}

export async function startChat(url: string, publishableKey: string, body: Record<string, unknown> = {}) {
  return request(url, '/external/live-chat/conversations', { publishableKey, body: { visitorSessionId: 'sess-1', ...body } });
}

export function identityFor(apiKey: string, externalId: string, extra: Record<string, unknown> = {}) {
  return { externalId, identityToken: signIdentity(derivedIdentitySecret(apiKey), externalId), ...extra };
}

/** A user who is an agent (not owner) of the workspace; returns its session token. */
export async function createAgent(url: string, ws: WorkspaceFixture): Promise<string> {
  const operator = await loginOperator(url);
  const email = `agent-${randomBytes(4).toString('hex')}@test.local`;
  const user = await request(url, '/admin/users', { token: operator, body: { email, name: 'Agent Smith', password: 'agent-password' } });
  if (user.status !== 201) throw new Error(`user creation failed: ${user.status} ${user.text}`);
  const member = await request(url, `/admin/workspaces/${ws.id}/members`, { token: ws.token, body: { userId: user.body.id, role: 'agent' } });
  if (member.status !== 201) throw new Error(`membership failed: ${member.status} ${member.text}`);
  const login = await request(url, '/admin/auth/login', { body: { email, password: 'agent-password' } });
  return login.body.token as string;
}

export type WidgetSocket = Socket<WidgetServerEvents, ClientEvents>;
export type AgentSocket = Socket<AgentServerEvents, ClientEvents>;

function connected<S extends Socket>(socket: S): Promise<S> {
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (error) => {
      socket.close();
      reject(error);
    });
  });
}

export function widgetSocket(url: string, conversationToken: string): Promise<WidgetSocket> {
  return connected(connectClient(`${url}/widget`, { auth: { conversationToken }, transports: ['websocket'], reconnection: false, forceNew: true }));
}

export function agentSocket(url: string, token: string, workspaceId: string): Promise<AgentSocket> {
  return connected(connectClient(`${url}/agent`, { auth: { token, workspaceId }, transports: ['websocket'], reconnection: false, forceNew: true }));
}

/** Collects every event of the given names a socket receives, for later assertions. */
export function record<T>(socket: Socket, event: string): T[] {
  const seen: T[] = [];
  socket.on(event, (payload: T) => seen.push(payload));
  return seen;
}

/** A logger whose JSON lines the test can read. */
export function capturingLogger(level = 'warn'): { logger: Logger; lines: () => Record<string, unknown>[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: pino({ level }, stream), lines: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}
