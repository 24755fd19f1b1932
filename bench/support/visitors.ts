/**
 * The chat bench's visitors: real Socket.IO clients on the `/widget` namespace, in a process of their
 * own so their sockets cost the nodes nothing but the server side. Receipt times are
 * `performance.timeOrigin + performance.now()`, comparable with the orchestrator's send times.
 */
import { io as connectClient, type Socket } from 'socket.io-client';
import { now, serve } from './children.js';

const sockets: Socket[] = [];
const receipts: Record<string, number[]> = {};
let reconnects = 0;
let recovered = 0;

interface Pushed {
  message: { id: string; body: string; sender?: string; createdAt: string };
}

/**
 * One visitor's socket. With `recover`, it does what the widget does when its connection drops (a node
 * gone): reconnects, and on each reconnection asks for the messages after the newest it has seen, so a
 * reply sent while it was away still arrives (each message once: ids already seen are skipped).
 */
function visitor(url: string, token: string, transport: 'websocket' | 'polling', recover: boolean): Promise<boolean> {
  const seen = new Set<string>();
  const fetched = new Set<string>();
  let newest: string | undefined;
  const receive = (message: Pushed['message']) => {
    (receipts[message.body] ??= []).push(now());
    seen.add(message.id);
    if (!newest || message.createdAt > newest) newest = message.createdAt;
  };
  // Like the widget: until the catch-up succeeds it is tried again (a node may still be going down).
  const catchUp = async (): Promise<void> => {
    // A second of overlap: messages stamped alike are told apart by id.
    const after = newest ? `?after=${encodeURIComponent(new Date(Date.parse(newest) - 1_000).toISOString())}` : '';
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const page = await fetch(`${url}/external/live-chat/conversations/${token}/messages${after}`)
        .then(async (res) => (res.ok ? ((await res.json()) as { messages: Pushed['message'][] }) : null))
        .catch(() => null);
      if (page) {
        for (const message of page.messages) {
          if (message.sender !== 'AGENT' || seen.has(message.id)) continue;
          recovered += 1;
          fetched.add(message.id);
          receive(message);
        }
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };
  return new Promise<boolean>((resolve) => {
    const socket = connectClient(`${url}/widget`, {
      auth: { conversationToken: token },
      transports: [transport],
      // The sticky cookie a load balancer sets is sent back, as a browser would (long-polling needs it).
      withCredentials: true,
      reconnection: recover,
      reconnectionDelay: 250,
      reconnectionDelayMax: 2_000,
      forceNew: true,
      timeout: 60_000,
    });
    // A push of a message the catch-up already fetched is shown once, as the widget does (by id); two
    // pushes of one message still count twice.
    socket.on('message.created', (payload: Pushed) => !fetched.has(payload.message.id) && receive(payload.message));
    let connectedBefore = false;
    socket.on('connect', () => {
      if (connectedBefore) {
        reconnects += 1;
        void catchUp().catch(() => undefined);
        return;
      }
      connectedBefore = true;
      sockets.push(socket);
      resolve(true);
    });
    socket.once('connect_error', () => resolve(false));
  });
}

serve({
  /** Connects one socket per token, spread over `urls`, in slices so the handshakes do not all land at once. */
  connect: async (message) => {
    const { urls, tokens, transport = 'websocket', recover = false } = message as unknown as { urls: string[]; tokens: string[]; transport?: 'websocket' | 'polling'; recover?: boolean };
    let failed = 0;
    for (let i = 0; i < tokens.length; i += 50) {
      const outcomes = await Promise.all(tokens.slice(i, i + 50).map((token, j) => visitor(urls[(i + j) % urls.length], token, transport, recover)));
      failed += outcomes.filter((connected) => !connected).length;
    }
    return { connected: sockets.length, failed };
  },
  /** How many sockets came back after losing their node, and the replies they then fetched. */
  recovery: () => ({ reconnects, recovered }),
  /** Every message body received so far with its receipt times (more than one means a duplicate). */
  receipts: () => ({ receipts }),
  disconnect: () => {
    for (const socket of sockets) socket.close();
    sockets.length = 0;
    return {};
  },
});

process.on('SIGTERM', () => {
  for (const socket of sockets) socket.close();
  process.exit(0);
});
process.send!({ type: 'ready' });
