import type { Socket } from 'socket.io';
import type { Deps } from '../deps.js';
import { liveSession } from '../auth/auth.service.js';
import { accessWorkspace, isMember } from '../workspaces/members.service.js';
import { AppError, fail } from '../shared/errors.js';
import { CLIENT_EVENTS, rooms } from '../realtime/events.js';
import { clientEvent, knownEventsOnly } from '../realtime/client-events.js';
import { rememberedByToken } from './conversation-memo.service.js';
import { conversationStore } from './conversations.model.js';
import { agentTypingInput, visitorTypingInput } from './livechat.schemas.js';
import { agentTyping, newTypingMemo, visitorTyping, type RelayedStart, type TypingMemo } from './typing.service.js';
import { agentNs, widgetNs, type AgentSocket, type WidgetSocket } from './namespaces.js';
import { relayTyping } from './live-push.js';
import { ConversationSockets } from './socket-limits.service.js';

/** How often a node ends the agent sockets whose session has expired: the most an expired one lingers. */
const SESSION_SWEEP_MS = 500;

const NOTHING: Record<string, never> = Object.freeze({});

function handshakeString(socket: Socket, name: string): string | undefined {
  const value = (socket.handshake.auth as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' && value ? value : undefined;
}

/**
 * Registers the `/widget` and `/agent` Socket.IO namespaces. Both authenticate in the handshake; a
 * refused handshake reaches the client as `connect_error` with the error code as its message.
 */
export function registerLiveChatSockets(deps: Deps): void {
  const visitorSockets = new ConversationSockets();
  // Visitors: `auth: {conversationToken}`; the socket joins that one conversation's room.
  widgetNs(deps).use((socket, next) => {
    const token = handshakeString(socket, 'conversationToken');
    if (!token) return next(new Error('conversation_not_found'));
    // Nothing of the handshake is read once the visitor is known. The token is a credential: not kept for
    // the socket's life, nor sent to the other nodes with the handshake when they ask who is connected
    // (`fetchSockets`); headers and query are empty (the upgrade request is released, see realtime.ts).
    // One shared empty object stands for the three (about 260 bytes a visitor, issue 13).
    Object.assign(socket.handshake, { auth: NOTHING, headers: NOTHING, query: NOTHING });
    rememberedByToken(deps, token).then(
      (conversation) => {
        if (!visitorSockets.admit(conversation.id)) return next(new Error('too_many_sockets'));
        socket.data = { conversationId: conversation.id, workspaceId: conversation.workspaceId };
        next();
      },
      (error: unknown) => {
        if (error instanceof AppError) return next(new Error('conversation_not_found'));
        deps.logger.error({ err: error }, 'widget handshake failed');
        next(new Error('internal_error'));
      },
    );
  });

  // Agent consoles: `auth: {token, workspaceId}` with a member's session; one room per workspace.
  agentNs(deps).use((socket, next) => {
    const token = handshakeString(socket, 'token');
    const workspaceId = handshakeString(socket, 'workspaceId');
    if (!token || !workspaceId) return next(new Error('unauthorized'));
    (async () => {
      const session = await liveSession(deps, token);
      if (!session) throw fail('invalid_session');
      const { workspace, role } = await accessWorkspace(deps, session.user, workspaceId, 'agent');
      socket.data = {
        teamMember: role !== 'operator' || (await isMember(deps, workspace.id, session.user.id)),
        userId: session.user.id,
        userName: session.user.name,
        sessionId: session.sessionId,
        sessionExpiresAt: session.expiresAt.getTime(),
        workspaceId: workspace.id,
      };
    })().then(
      () => next(),
      (error: unknown) => {
        if (error instanceof AppError) return next(new Error(error.code === 'workspace_not_found' ? 'workspace_not_found' : 'unauthorized'));
        deps.logger.error({ err: error }, 'agent handshake failed');
        next(new Error('internal_error'));
      },
    );
  });

  // Only the events of the map reach a listener; one listener per event serves every socket (`this` is the
  // socket), the throttles kept by the node: a socket carries no closure or state of its own (memory per
  // held socket, issue 13). Each validates its payload and answers an acknowledgement (`clientEvent`).
  const onlyClientEvents = knownEventsOnly(CLIENT_EVENTS);
  const visitorStarts = new WeakMap<WidgetSocket, RelayedStart>();
  const onVisitorTyping = clientEvent(deps.logger, 'typing', visitorTypingInput, (socket: WidgetSocket, input) => {
    const { conversationId, workspaceId } = socket.data;
    const relay = visitorTyping(deps, conversationId, input.typing, visitorStarts, socket);
    if (relay) relayTyping(deps, workspaceId, relay);
  });
  const agentMemos = new WeakMap<AgentSocket, TypingMemo>();
  const onAgentTyping = clientEvent(deps.logger, 'typing', agentTypingInput, async (socket: AgentSocket, input) => {
    const { workspaceId, userId, userName } = socket.data;
    let memo = agentMemos.get(socket);
    if (!memo) agentMemos.set(socket, (memo = newTypingMemo()));
    const relay = await agentTyping(deps, { workspaceId, userId, name: userName }, input.conversationId, input.typing, memo);
    if (relay) relayTyping(deps, workspaceId, relay);
  });

  function onVisitorGone(this: WidgetSocket): void {
    visitorSockets.release(this.data.conversationId);
  }

  widgetNs(deps).on('connection', (socket) => {
    const { conversationId, workspaceId } = socket.data;
    socket.on('disconnect', onVisitorGone);
    socket.use(onlyClientEvents);
    void socket.join(rooms.conversation(conversationId));
    // The team's read cursor as it stands, so a reloaded widget shows "seen" without a request.
    // Read after the connection (the handshake only checks the token, from memory).
    conversationStore(deps.db)
      .byId(workspaceId, conversationId)
      .then((conversation) => {
        const read = conversation?.readByTeam;
        if (read) socket.emit('conversation.read', { conversationId, reader: 'AGENT', messageId: read.messageId, createdAt: read.createdAt.toISOString() });
      })
      .catch((error: unknown) => deps.logger.error({ err: error, workspaceId, conversationId }, 'live chat: read cursor not sent'));
    socket.on('typing', onVisitorTyping);
  });
  const watchExpiry = sessionExpiryWatch(deps);
  agentNs(deps).on('connection', (socket) => {
    const { workspaceId, teamMember, sessionId, userId } = socket.data;
    const team = teamMember ? [rooms.workspaceTeam(workspaceId)] : [];
    void socket.join([rooms.workspaceAgents(workspaceId), rooms.session(sessionId), rooms.member(workspaceId, userId), ...team]);
    watchExpiry(socket);
    socket.use(onlyClientEvents);
    socket.on('typing', onAgentTyping);
    // A logout or a membership's end between the handshake's check and the join above reached an empty
    // room: check both once more.
    void stillAllowed(deps, socket.handshake.auth.token as string, workspaceId).then(
      (allowed) => void (allowed ? undefined : socket.disconnect(true)),
      (error: unknown) => deps.logger.warn({ err: error }, 'agent session re-check failed'),
    );
  });
}

/** Whether the session still lives and its user may still work in the workspace. */
async function stillAllowed(deps: Deps, token: string, workspaceId: string): Promise<boolean> {
  const session = await liveSession(deps, token);
  if (!session) return false;
  try {
    await accessWorkspace(deps, session.user, workspaceId, 'agent');
    return true;
  } catch (error) {
    if (error instanceof AppError) return false;
    throw error;
  }
}

/**
 * Ends the agent sockets of this node whose session has expired (by `deps.clock`). One sweep timer per
 * node, running only while the node holds agent sockets; a logout ends sockets at once through the
 * session's room instead (see `logout`).
 */
function sessionExpiryWatch(deps: Deps): (socket: AgentSocket) => void {
  const ns = agentNs(deps);
  let timer: NodeJS.Timeout | undefined;
  const sweep = () => {
    const now = deps.clock.now().getTime();
    for (const socket of ns.sockets.values()) if (socket.data.sessionExpiresAt <= now) socket.disconnect(true);
  };
  return (socket) => {
    timer ??= setInterval(sweep, SESSION_SWEEP_MS);
    socket.on('disconnect', () => {
      if (ns.sockets.size > 0 || !timer) return;
      clearInterval(timer);
      timer = undefined;
    });
  };
}
