import type { Deps } from '../shared/deps.js';

/** Registers the `/widget` and `/agent` Socket.IO namespaces. */
export function registerLiveChatSockets(_deps: Deps): void {}
