/**
 * The server in its own network namespace, joined to the test's namespace (scripts/netns.sh) by
 * one veth link the test can break, as a laptop's Wi-Fi breaks: `down()`/`up()` take the link
 * away and back (packets to the server then go nowhere), `blackhole()` keeps it up but drops
 * every packet on it (nftables), `loss(pct)` drops a share of them (this kernel has no netem).
 * Addresses: 10.97.0.1/24 on `mpo0` in the test's namespace, 10.97.0.2/24 on `eth0` in the
 * server's (an anonymous namespace held by an `unshare --net` process, as node-netns.ts does).
 * Nothing leaves the machine.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

export const SERVER_HOST = '10.97.0.2';
const LINK = 'mpo0';
const TABLE = 'mp_outage';

export interface ServerLink {
  /** The server's address. */
  host: string;
  /** Command prefix that runs a program in the server's namespace. */
  wrap: string[];
  down(): void;
  up(): void;
  /** Drops every packet on the link (true) or none (false). */
  blackhole(on: boolean): void;
  /** Drops about `pct` % of the packets on the link (0: none). */
  loss(pct: number): void;
  close(): void;
}

function run(args: string[]): void {
  const r = spawnSync(args[0]!, args.slice(1), { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr || r.error?.message}`);
}

function requireNft(): void {
  if (spawnSync('nft', ['--version']).status !== 0)
    throw new Error('nft is missing: apt-get install nftables (.ci/run installs it)');
}

export async function serverLink(): Promise<ServerLink> {
  if (process.env['MOUTHPIECE_E2E_NETNS'] !== '1')
    throw new Error(
      'the server link is made inside the test network namespace only: run this test as scripts/test.sh does (MOUTHPIECE_E2E_NETNS=1 ip netns exec NAME ...)',
    );
  requireNft();
  let holder: ChildProcess | undefined;
  const dropRules = (): void => void spawnSync('nft', ['delete', 'table', 'inet', TABLE]);
  const close = (): void => {
    dropRules();
    if (holder && holder.exitCode === null) holder.kill('SIGKILL'); // its namespace goes with it
    spawnSync('ip', ['link', 'del', LINK]);
    process.off('exit', close);
  };
  process.once('exit', close);
  const filter = (rule: string[]): void => {
    dropRules();
    run(['nft', 'add', 'table', 'inet', TABLE]);
    for (const [chain, hook, dir] of [
      ['in', 'input', 'iifname'],
      ['out', 'output', 'oifname'],
    ] as const) {
      run([
        'nft',
        'add',
        'chain',
        'inet',
        TABLE,
        chain,
        `{ type filter hook ${hook} priority 0 ; policy accept ; }`,
      ]);
      run(['nft', 'add', 'rule', 'inet', TABLE, chain, dir, LINK, ...rule]);
    }
  };
  try {
    dropRules();
    spawnSync('ip', ['link', 'del', LINK]); // a leftover of an interrupted run
    // the holder outlives no test run: killed by close(), at exit, or after 15 minutes by itself
    holder = spawn('unshare', ['--net', 'sleep', '900'], { stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 100)); // unshare has made the namespace
    const pid = String(holder.pid);
    const inside = ['nsenter', `--net=/proc/${pid}/ns/net`, '--'];
    run(['ip', 'link', 'add', LINK, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', pid]);
    run(['ip', 'addr', 'add', '10.97.0.1/24', 'dev', LINK]);
    run(['ip', 'link', 'set', LINK, 'up']);
    run([...inside, 'ip', 'link', 'set', 'lo', 'up']);
    run([...inside, 'ip', 'addr', 'add', `${SERVER_HOST}/24`, 'dev', 'eth0']);
    run([...inside, 'ip', 'link', 'set', 'eth0', 'up']);
    run([...inside, 'ip', 'route', 'add', 'default', 'dev', 'eth0', 'src', SERVER_HOST]);
    return {
      host: SERVER_HOST,
      wrap: inside,
      down: () => run(['ip', 'link', 'set', LINK, 'down']),
      up: () => run(['ip', 'link', 'set', LINK, 'up']),
      blackhole: (on) => (on ? filter(['drop']) : dropRules()),
      loss: (pct) =>
        pct > 0 ? filter(['numgen', 'random', 'mod', '100', '<', String(pct), 'drop']) : dropRules(),
      close,
    };
  } catch (err) {
    close();
    throw err;
  }
}
