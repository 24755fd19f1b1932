import type { ChatMessage, ConversationStatus } from '../realtime/events.js';
import type { VerifiedVisitor } from '../identity/identity.schemas.js';

/** A live-chat conversation as the services see it (`conversations.model.ts` stores it). */
export interface Conversation {
  id: string;
  workspaceId: string;
  status: ConversationStatus;
  visitorSessionId: string;
  pageUrl: string | null;
  referrer: string | null;
  locale: string | null;
  externalId: string | null;
  identityVerified: boolean;
  visitorName: string | null;
  visitorEmail: string | null;
  attributes: Record<string, string> | null;
  lastMessage: ChatMessage | null;
  lastActivityAt: Date;
  closedAt: Date | null;
  createdAt: Date;
  /** The conversation token, encrypted (resume by verified identity hands it out again). */
  sealedToken: string;
  /** Lookup hash of the conversation token. */
  tokenHash: string;
  /**
   * seq, createdAt (ms) and visitorCount of the newest message recorded here: a hint for the next append
   * (may lag), and the team's unread count with `readByTeam`. visitorCount is null when that message was
   * stored before it was kept.
   */
  recorded: { seq: number; createdAtMs: number; visitorCount: number | null };
  assigneeUserId: string | null;
  /** Read cursors: the newest message of the other side each side has read. */
  readByVisitor: ReadCursor | null;
  readByTeam: ReadCursor | null;
  /** createdAt (ms) of the newest AGENT message already sent to the visitor by e-mail. */
  visitorMailedUpToMs: number;
  /** When the visitor was last sent replies by e-mail (batching). */
  visitorMailedAt: Date | null;
}

export interface ReadCursor {
  messageId: string;
  createdAt: Date;
  /** That message's visitorCount (`messages.model.ts`); null on cursors set before it was kept. */
  visitorCount: number | null;
}

/** Visitor fields a message offers; each is only set while the conversation does not know it yet. */
export interface VisitorFills {
  visitorName?: string;
  visitorEmail?: string;
}

export interface NewConversation {
  /** Pre-made (see `newConversationId`) so the token can name its conversation. */
  id: string;
  tokenHash: string;
  sealedToken: string;
  visitorSessionId: string;
  pageUrl: string | null;
  referrer: string | null;
  locale: string | null;
  identity: VerifiedVisitor | null;
}
