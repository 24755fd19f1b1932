/**
 * The chat bench's visitors: real Socket.IO clients on the `/widget` namespace, in a process of their
 * own so their sockets cost the nodes nothing but the server side. Receipt times are
 * `performance.timeOrigin + performance.now()`, comparable with the orchestrator's send times.
 */
import { io as connectClient, type Socket } from 'socket.io-client';
import { now, serve } from './children.js';

const sockets: Socket[] = [];
const receipts: Record<string, number[]> = {};

serve({
  /** Connects one socket per token, spread over `urls`, in slices so the handshakes do not all land at once. */
  connect: async (message) => {
    const { urls, tokens } = message as unknown as { urls: string[]; tokens: string[] };
    let failed = 0;
    for (let i = 0; i < tokens.length; i += 50) {
      await Promise.all(
        tokens.slice(i, i + 50).map(
          (token, j) =>
            new Promise<void>((resolve) => {
              const socket = connectClient(`${urls[(i + j) % urls.length]}/widget`, {
                auth: { conversationToken: token },
                transports: ['websocket'],
                reconnection: false,
                forceNew: true,
                timeout: 60_000,
              });
              socket.on('message.created', (payload: { message: { body: string } }) => (receipts[payload.message.body] ??= []).push(now()));
              socket.once('connect', () => (sockets.push(socket), resolve()));
              socket.once('connect_error', () => (failed++, resolve()));
            }),
        ),
      );
    }
    return { connected: sockets.length, failed };
  },
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
