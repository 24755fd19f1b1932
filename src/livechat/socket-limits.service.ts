/**
 * At most this many widget sockets of one conversation on a node: a visitor's tabs and devices, with room
 * to spare. A conversation token is no licence to make the server hold sockets without end.
 */
export const MAX_SOCKETS_PER_CONVERSATION = 10;

/** The widget sockets a node holds per conversation, counted from the handshake that admits one to its disconnect. */
export class ConversationSockets {
  private readonly held = new Map<string, number>();

  /** Counts one more socket of the conversation; false (nothing counted) when it already holds the most. */
  admit(conversationId: string): boolean {
    const count = this.held.get(conversationId) ?? 0;
    if (count >= MAX_SOCKETS_PER_CONVERSATION) return false;
    this.held.set(conversationId, count + 1);
    return true;
  }

  release(conversationId: string): void {
    const count = (this.held.get(conversationId) ?? 1) - 1;
    if (count > 0) this.held.set(conversationId, count);
    else this.held.delete(conversationId);
  }
}
