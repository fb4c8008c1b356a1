/** The cluster's Prometheus metrics (docs/cluster.md, "Metrics to watch"), on the app's registry. */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { NodeDirectory } from './node-directory.js';

export interface ClusterMetrics {
  /** Calls this node sent on to another node: `session` (to its holder) or `create` (placed). */
  forwarded: Counter<'kind'>;
  /** Forwards that found the other node not answering (503 to the caller). */
  forwardFailures: Counter;
  /** Dead nodes this node reaped (their sessions ended `node_failed`). */
  nodesReaped: Counter;
}

export function registerClusterMetrics(registry: Registry, directory: NodeDirectory): ClusterMetrics {
  new Gauge({
    name: 'mouthpiece_cluster_redis_up',
    help: "1 while this node's heartbeats reach Redis (it takes creates), else 0",
    registers: [registry],
    collect() {
      this.set(directory.healthy ? 1 : 0);
    },
  });
  new Gauge({
    name: 'mouthpiece_cluster_nodes',
    help: 'Nodes with a live heartbeat, this one included (as this node last read them)',
    registers: [registry],
    async collect() {
      const nodes = await directory.nodes().catch(() => undefined);
      if (nodes) this.set(nodes.length);
    },
  });
  return {
    forwarded: new Counter({
      name: 'mouthpiece_cluster_forwarded_total',
      help: 'Calls sent on to another node (kind: session, create)',
      labelNames: ['kind'],
      registers: [registry],
    }),
    forwardFailures: new Counter({
      name: 'mouthpiece_cluster_forward_failures_total',
      help: 'Forwards to a node that did not answer (the caller got 503)',
      registers: [registry],
    }),
    nodesReaped: new Counter({
      name: 'mouthpiece_cluster_nodes_reaped_total',
      help: 'Nodes whose heartbeat lapsed and whose sessions this node ended (node_failed)',
      registers: [registry],
    }),
  };
}
