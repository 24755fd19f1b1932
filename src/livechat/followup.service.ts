import type { Deps } from '../deps.js';
import type { ChatMessage } from '../realtime/events.js';
import type { Conversation } from './conversations.service.js';

/** After a message is stored: e-mail continuity while the other side is away (never fails the send). */
export function afterMessage(_deps: Deps, _conversation: Conversation, _message: ChatMessage): void {}
