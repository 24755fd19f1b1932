import { randomBytes } from 'node:crypto';
import type { Deps } from '../deps.js';
import { rooms } from '../realtime/events.js';
import { agentNs, widgetNs, type AgentNamespace, type WidgetNamespace } from './namespaces.js';

/** How long a presence question to Redis or the other nodes may take before the answer is what this node knows. */
const PRESENCE_TIMEOUT_MS = 1_500;

const TEAM_ROOM = rooms.workspaceTeam('');
const presenceKey = (room: string) => `hearth:presence:${room}`;

/**
 * A team's presence in Redis: one sorted set per workspace, each node that holds a console of its team a
 * member, scored by when its word runs out. Redis's own clock scores and counts, so the nodes' clocks need not agree.
 */
const NOW_MS = "local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000)";
/** KEYS[1] the room's set; ARGV: this node, its lease (ms). Renews the node's word and drops what has run out. */
const ANNOUNCE = `${NOW_MS}
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;
/** KEYS[1] the room's set: how many nodes' words still hold. */
const COUNT = `${NOW_MS}
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')`;

/**
 * True while at least one team member of the workspace holds an agent-console socket on any node. Local
 * sockets answer at once; with Redis, one count there answers for every node (kept by `teamPresence`), so
 * a slow or paused node never makes its agents look away. When Redis is away the answer is what this node
 * knows (logged), so the widget config never hangs or fails.
 */
export async function agentsOnline(deps: Deps, workspaceId: string): Promise<boolean> {
  const room = rooms.workspaceTeam(workspaceId);
  if (heldHere(agentNs(deps), room)) return true;
  const { redis } = deps;
  if (!redis) return false;
  return orWhatThisNodeKnows(deps, { workspaceId }, async () => Number(await redis.eval(COUNT, { keys: [presenceKey(room)] })) > 0);
}

/**
 * True while the visitor holds a widget socket of the conversation on any node: the other nodes are asked
 * through the Socket.IO adapter (a mail job's question, not a page's). Same fallbacks as `agentsOnline`.
 */
export async function visitorConnected(deps: Deps, conversationId: string): Promise<boolean> {
  const ns = widgetNs(deps);
  const room = rooms.conversation(conversationId);
  if (heldHere(ns, room)) return true;
  if (!deps.redis) return false;
  return orWhatThisNodeKnows(deps, { conversationId }, async () => (await ns.in(room).fetchSockets()).length > 0);
}

/**
 * Keeps this node's word in Redis on the teams whose consoles it holds (`agentsOnline` counts it): said
 * when a team's first console joins here, withdrawn when its last one leaves (a stopping node's consoles
 * all leave), and renewed every third of `CHAT_PRESENCE_LEASE_SECONDS`, and at once when Redis is back
 * (it may have lost its data). A node that dies without stopping stops renewing: its word runs out within
 * the lease. Without Redis there is nothing to keep. Returns the stop of the renewals.
 */
export function teamPresence(deps: Deps): () => void {
  const { redis, logger } = deps;
  if (!redis) return () => undefined;
  const node = randomBytes(8).toString('hex');
  const leaseMs = deps.config.CHAT_PRESENCE_LEASE_SECONDS * 1000;
  const adapter = agentNs(deps).adapter;
  let failing = false;
  const reported = (work: Promise<unknown>) =>
    work.then(
      () => (failing = false),
      (error: unknown) => {
        // Once per outage: the renewals say it again every few seconds while Redis is away.
        if (!failing) logger.warn({ err: error }, 'team presence not shared: other nodes may show this node\'s teams offline');
        failing = true;
      },
    );
  const announce = (room: string) => reported(redis.eval(ANNOUNCE, { keys: [presenceKey(room)], arguments: [node, String(leaseMs)] }));
  const renewAll = () => {
    for (const room of adapter.rooms.keys()) if (room.startsWith(TEAM_ROOM)) void announce(room);
  };
  adapter.on('create-room', (room: string) => {
    if (room.startsWith(TEAM_ROOM)) void announce(room);
  });
  adapter.on('delete-room', (room: string) => {
    if (room.startsWith(TEAM_ROOM)) void reported(redis.zRem(presenceKey(room), node));
  });
  redis.on('ready', renewAll);
  const renewal = setInterval(renewAll, Math.floor(leaseMs / 3));
  renewal.unref();
  return () => {
    clearInterval(renewal);
    redis.off('ready', renewAll);
  };
}

function heldHere(ns: WidgetNamespace | AgentNamespace, room: string): boolean {
  return (ns.adapter.rooms.get(room)?.size ?? 0) > 0;
}

async function orWhatThisNodeKnows(deps: Deps, context: Record<string, string>, ask: () => Promise<boolean>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      ask(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('presence query timed out')), PRESENCE_TIMEOUT_MS);
      }),
    ]);
  } catch (error) {
    deps.logger.warn({ err: error, ...context }, 'cross-node presence unavailable; answering from this node');
    return false;
  } finally {
    clearTimeout(timer);
  }
}
