/**
 * The nodes a bench runs on: BENCH_NODES of them on one engine and one Redis. With BENCH_HAPROXY=1 (three
 * nodes unless BENCH_NODES says otherwise) they sit behind HAProxy, started here on loopback and configured
 * as README "Scaling out" tells users (`haproxyConfig`), and `url` is HAProxy's: every request of the bench
 * goes through it. Without it, `url` is the first node's and benches that spread load themselves use `nodes`.
 */
import { startLoadBalancer, type RunningService } from '../../test/support/services.js';
import { ensureHaproxy } from '../../test/support/system-tools.js';
import { startNode, type NodeChild, type NodeEngine } from './hearth.js';

export interface Cluster {
  url: string;
  nodes: NodeChild[];
  balancer: RunningService | null;
  /** Driver commands of the nodes still running, summed. */
  commands(): Promise<number>;
  /** Ends node `index` at once (SIGKILL: no graceful close, as a crash or a lost machine). */
  kill(index: number): void;
  /** One line for the bench's heading: how many nodes, and how they are reached. */
  describe(): string;
}

export const BEHIND_HAPROXY = process.env.BENCH_HAPROXY === '1';

export async function startCluster(
  options: { engine: NodeEngine; redisUrl: string; role?: 'all' | 'api' | 'worker'; env?: Record<string, string> },
  cleanup: (step: () => Promise<unknown>) => void,
  defaults: { nodes: number; sticky?: boolean },
): Promise<Cluster> {
  const count = Number(process.env.BENCH_NODES ?? (BEHIND_HAPROXY ? Math.max(3, defaults.nodes) : defaults.nodes));
  const nodes: NodeChild[] = [];
  for (let i = 0; i < count; i += 1) {
    const node = await startNode(options);
    cleanup(() => node.stop());
    nodes.push(node);
  }
  let balancer: RunningService | null = null;
  if (BEHIND_HAPROXY) {
    ensureHaproxy();
    balancer = await startLoadBalancer(
      nodes.map((node) => node.url),
      { sticky: defaults.sticky },
    );
    cleanup(() => balancer!.stop());
  }
  const killed = new Set<number>();
  return {
    url: balancer?.url ?? nodes[0].url,
    nodes,
    balancer,
    commands: async () => (await Promise.all(nodes.filter((_, i) => !killed.has(i)).map((node) => node.commands()))).reduce((a, b) => a + b, 0),
    kill: (index) => {
      killed.add(index);
      nodes[index].process.kill('SIGKILL');
    },
    describe: () => `${count} node${count > 1 ? 's' : ''}${balancer ? ` behind HAProxy${defaults.sticky ? ' (sticky cookie)' : ''}` : ''}`,
  };
}
