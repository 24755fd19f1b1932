import type { Deps } from '../deps.js';
import { rooms } from '../realtime/events.js';
import { agentNs, widgetNs, type AgentNamespace, type WidgetNamespace } from './namespaces.js';

/** How long a cross-node presence query may take before the config answers from what it knows. */
const PRESENCE_TIMEOUT_MS = 1_500;

/**
 * True while at least one team member of the workspace holds an agent-console socket on any node.
 * Local sockets answer at once; otherwise the Redis adapter asks the other nodes. When Redis is away the
 * answer is what this node knows (logged), so the widget config never hangs or fails.
 */
export async function agentsOnline(deps: Deps, workspaceId: string): Promise<boolean> {
  return anyoneIn(deps, agentNs(deps), rooms.workspaceTeam(workspaceId), { workspaceId });
}

/** True while the visitor holds a widget socket of the conversation on any node (same fallbacks as `agentsOnline`). */
export async function visitorConnected(deps: Deps, conversationId: string): Promise<boolean> {
  return anyoneIn(deps, widgetNs(deps), rooms.conversation(conversationId), { conversationId });
}

async function anyoneIn(deps: Deps, ns: WidgetNamespace | AgentNamespace, room: string, context: Record<string, string>): Promise<boolean> {
  if ((ns.adapter.rooms.get(room)?.size ?? 0) > 0) return true;
  if (!deps.redis) return false;
  let timer: NodeJS.Timeout | undefined;
  try {
    const sockets = await Promise.race([
      ns.in(room).fetchSockets(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('presence query timed out')), PRESENCE_TIMEOUT_MS);
      }),
    ]);
    return sockets.length > 0;
  } catch (error) {
    deps.logger.warn({ err: error, ...context }, 'cross-node presence unavailable; answering from this node');
    return false;
  } finally {
    clearTimeout(timer);
  }
}
