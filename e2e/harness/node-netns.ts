/**
 * Network namespaces for cluster nodes, made from inside the test namespace (scripts/netns.sh; the
 * host's own network is never touched): a bridge `mpbr0` at 10.98.0.1/24 in the test's namespace,
 * and per node an anonymous namespace (held by an `unshare --net` process) joined to it by a veth
 * pair, at 10.98.0.(10+i), its default route across the bridge. The test, Chromium and Redis stay
 * in the test's namespace; a node started with `wrap` runs in its own, so media a browser plays
 * arrives from the address of the node that sent it. Nothing leaves the machine (no uplink).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

export const BRIDGE_IP = '10.98.0.1';

export interface NodeNamespace {
  /** The node's own address. */
  host: string;
  /** Command prefix that runs a program inside the namespace. */
  wrap: string[];
}

export interface NodeNamespaces {
  nodes: NodeNamespace[];
  close(): void;
}

function run(args: string[]): void {
  const r = spawnSync(args[0]!, args.slice(1), { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr || r.error?.message}`);
}

export async function nodeNamespaces(count: number): Promise<NodeNamespaces> {
  if (process.env['MOUTHPIECE_E2E_NETNS'] !== '1')
    throw new Error(
      'cluster namespaces are made inside the test network namespace only: run this test as scripts/test.sh does (MOUTHPIECE_E2E_NETNS=1 ip netns exec NAME ...)',
    );
  const holders: ChildProcess[] = [];
  const close = (): void => {
    for (const h of holders) if (h.exitCode === null) h.kill('SIGKILL'); // their namespaces go with them
    spawnSync('ip', ['link', 'del', 'mpbr0']);
    process.off('exit', close);
  };
  process.once('exit', close);
  try {
    spawnSync('ip', ['link', 'del', 'mpbr0']); // a leftover of an interrupted run
    run(['ip', 'link', 'add', 'mpbr0', 'type', 'bridge']);
    run(['ip', 'addr', 'add', `${BRIDGE_IP}/24`, 'dev', 'mpbr0']);
    run(['ip', 'link', 'set', 'mpbr0', 'up']);
    const nodes: NodeNamespace[] = [];
    for (let i = 1; i <= count; i++) {
      // the holder outlives no test run: killed by close(), at exit, or after 15 minutes by itself
      const holder = spawn('unshare', ['--net', 'sleep', '900'], { stdio: 'ignore' });
      holders.push(holder);
      await new Promise((r) => setTimeout(r, 100)); // unshare has made the namespace
      const pid = String(holder.pid);
      const host = `10.98.0.${10 + i}`;
      const inside = ['nsenter', `--net=/proc/${pid}/ns/net`, '--'];
      spawnSync('ip', ['link', 'del', `mpn${i}`]);
      run(['ip', 'link', 'add', `mpn${i}`, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', pid]);
      run(['ip', 'link', 'set', `mpn${i}`, 'master', 'mpbr0']);
      run(['ip', 'link', 'set', `mpn${i}`, 'up']);
      run([...inside, 'ip', 'link', 'set', 'lo', 'up']);
      run([...inside, 'ip', 'addr', 'add', `${host}/24`, 'dev', 'eth0']);
      run([...inside, 'ip', 'link', 'set', 'eth0', 'up']);
      run([...inside, 'ip', 'route', 'add', 'default', 'dev', 'eth0', 'src', host]);
      nodes.push({ host, wrap: inside });
    }
    return { nodes, close };
  } catch (err) {
    close();
    throw err;
  }
}
