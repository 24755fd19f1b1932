import type { DefaultEventsMap, Namespace, Socket } from 'socket.io';
import type { Deps } from '../deps.js';
import { NAMESPACES, type AgentServerEvents, type ClientEvents, type WidgetServerEvents } from '../realtime/events.js';

/** The live-chat namespaces, typed: who connects to each, and what its sockets keep from the handshake. */

/** What a visitor socket keeps from its handshake. */
export interface VisitorData {
  conversationId: string;
  workspaceId: string;
}
/** What an agent-console socket keeps from its handshake. */
export interface AgentData {
  /** False for an operator outside the team: watching does not make the team look online. */
  teamMember: boolean;
  userId: string;
  userName: string;
  sessionId: string;
  sessionExpiresAt: number;
  workspaceId: string;
}

export type WidgetNamespace = Namespace<ClientEvents, WidgetServerEvents, DefaultEventsMap, VisitorData>;
export type WidgetSocket = Socket<ClientEvents, WidgetServerEvents, DefaultEventsMap, VisitorData>;
export type AgentNamespace = Namespace<ClientEvents, AgentServerEvents, DefaultEventsMap, AgentData>;
export type AgentSocket = Socket<ClientEvents, AgentServerEvents, DefaultEventsMap, AgentData>;

export const widgetNs = (deps: Deps) => deps.realtime.io.of(NAMESPACES.widget) as unknown as WidgetNamespace;
export const agentNs = (deps: Deps) => deps.realtime.io.of(NAMESPACES.agent) as unknown as AgentNamespace;
