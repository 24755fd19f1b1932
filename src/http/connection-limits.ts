import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * At most `perAddress` open connections from one client address on this node (0: no cap): one client
 * holding thousands of idle or trickling connections cannot take the sockets every other visitor needs.
 * The connection past the cap is closed before a byte is read. Behind a reverse proxy every connection
 * comes from the proxy's address: cap there instead and set the variable to 0 here.
 */
export function capConnectionsPerAddress(server: Server, perAddress: number): void {
  if (perAddress <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const count = open.get(address) ?? 0;
    if (count >= perAddress) {
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}
