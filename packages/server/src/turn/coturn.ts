/**
 * Managed coturn (docs/design.md §7.4): a generated config (always `-c`, or Debian's /etc/turnserver.conf
 * would be read too), TURN REST API auth with a shared secret, supervised: restarted with backoff
 * if it dies (one structured warning per exit: pid, code, signal, delayMs), killed on close and
 * when this process exits; told to reload its TLS certificate when the files are renewed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { CERT_POLL_MS, watchFiles } from '../tls-files.js';

export interface ManagedTurnOptions {
  dataDir: string;
  listeningIp: string;
  relayIp: string;
  port: number;
  altPort?: number | undefined;
  minPort: number;
  maxPort: number;
  /** 1:1 NAT: `public` or `public/private` (coturn's `external-ip`). */
  externalIp?: string | undefined;
  /** TURN over TLS: `tls-listening-port` with this certificate and key (PEM files); else `no-tls`. */
  tls?: { port: number; cert: string; key: string } | undefined;
  realm: string;
  secret: string;
  allowLoopback: boolean;
  logger: {
    info(o: object, m: string): void;
    warn(o: object, m: string): void;
    error(o: object, m: string): void;
  };
  binary?: string;
  /** A coturn that ran this long before it died restarts after the shortest delay again (10 s). */
  healthyAfterMs?: number;
  /** How often the TLS certificate and key files are looked at for a renewal (CERT_POLL_MS). */
  certPollMs?: number;
}

export interface ManagedTurn {
  ports: number[];
  pid(): number | undefined;
  close(): Promise<void>;
}

export function coturnConfig(o: ManagedTurnOptions, pidfile: string): string {
  // 0.0.0.0: no listening-ip nor relay-ip lines; coturn listens everywhere and relays on the
  // address each client reached
  const any = o.listeningIp === '0.0.0.0';
  return [
    ...(any ? [] : [`listening-ip=${o.listeningIp}`]),
    ...(any && o.relayIp === '0.0.0.0' ? [] : [`relay-ip=${o.relayIp}`]),
    ...(o.externalIp ? [`external-ip=${o.externalIp}`] : []),
    `listening-port=${o.port}`,
    ...(o.altPort ? [`alt-listening-port=${o.altPort}`] : []),
    ...(o.tls
      ? [
          `tls-listening-port=${o.tls.port}`,
          // the same port as the alternative one: one listener takes TLS and plain TURN
          ...(o.tls.port === o.altPort ? [`alt-tls-listening-port=${o.tls.port}`] : []),
          `cert=${o.tls.cert}`,
          `pkey=${o.tls.key}`,
          'no-tlsv1',
          'no-tlsv1_1',
        ]
      : ['no-tls']),
    `min-port=${o.minPort}`,
    `max-port=${o.maxPort}`,
    `realm=${o.realm}`,
    'use-auth-secret',
    `static-auth-secret=${o.secret}`,
    'fingerprint',
    'no-cli',
    'no-dtls',
    'no-multicast-peers',
    // coturn may listen publicly: no TCP relays (browsers never ask for one; they would reach TCP
    // services such as a cloud's metadata endpoint), and no peers on this-host or link-local addresses
    'no-tcp-relay',
    'denied-peer-ip=0.0.0.0-0.255.255.255',
    'denied-peer-ip=169.254.0.0-169.254.255.255',
    'denied-peer-ip=fe80::-febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    ...(o.allowLoopback ? ['allow-loopback-peers'] : []),
    'log-file=stdout',
    'simple-log',
    `pidfile=${pidfile}`,
    `userdb=${join(o.dataDir, 'turndb')}`,
    '',
  ].join('\n');
}

export async function startManagedTurn(o: ManagedTurnOptions): Promise<ManagedTurn> {
  const dir = join(o.dataDir, 'coturn');
  mkdirSync(dir, { recursive: true });
  const pidfile = join(dir, 'turnserver.pid');
  killStale(pidfile);
  const confFile = join(dir, 'turnserver.conf');
  writeFileSync(confFile, coturnConfig({ ...o, dataDir: dir }, pidfile), { mode: 0o600 });
  let child: ChildProcess | undefined;
  let closed = false;
  let restarts = 0;
  let restartTimer: NodeJS.Timeout | undefined;
  const killOnExit = (): void => {
    child?.kill('SIGKILL');
  };
  process.once('exit', killOnExit);

  const launch = (): ChildProcess => {
    // its own process group: a Ctrl-C in the terminal reaches only us, and we stop coturn in
    // order (otherwise it dies with the Ctrl-C first and we log a restart while shutting down)
    const c = spawn(o.binary ?? 'turnserver', ['-c', confFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    c.stdout?.resume();
    c.stderr?.resume();
    const startedAt = Date.now();
    c.once('exit', (code, signal) => {
      if (closed) return;
      if (Date.now() - startedAt >= (o.healthyAfterMs ?? 10_000)) restarts = 0; // a rare crash: restart fast
      const delayMs = Math.min(30_000, 500 * 2 ** restarts++);
      o.logger.warn({ pid: c.pid, code, signal, delayMs, restarts }, 'coturn exited; restarting');
      restartTimer = setTimeout(() => {
        child = launch();
        o.logger.info({ pid: child.pid }, 'coturn restarted');
      }, delayMs);
      restartTimer.unref();
    });
    return c;
  };
  child = launch();
  await new Promise<void>((resolve, reject) => {
    const failed = (err: Error): void => reject(new Error(`coturn failed to start: ${err.message}`));
    child!.once('error', failed);
    const host = o.listeningIp === '0.0.0.0' ? '127.0.0.1' : o.listeningIp;
    Promise.all([o.port, ...(o.tls ? [o.tls.port] : [])].map((p) => waitForPort(host, p, 5000)))
      .then(() => {
        child!.off('error', failed);
        resolve();
      })
      .catch(reject);
  }).catch(async (err: unknown) => {
    closed = true;
    child?.kill('SIGKILL');
    process.off('exit', killOnExit);
    throw err;
  });
  o.logger.info({ pid: child.pid, port: o.port, altPort: o.altPort, tlsPort: o.tls?.port }, 'coturn started');
  // a renewed certificate: SIGUSR2 makes coturn load it for new TLS connections (relays go on);
  // a restart would read it too, so the restarted one needs nothing
  const stopCertWatch = o.tls
    ? watchFiles([o.tls.cert, o.tls.key], o.certPollMs ?? CERT_POLL_MS, () => {
        if (!child || child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGUSR2');
        o.logger.info({ pid: child.pid, cert: o.tls?.cert }, 'coturn told to reload its TLS certificate');
      })
    : () => undefined;
  return {
    ports: o.altPort ? [o.port, o.altPort] : [o.port],
    pid: () => child?.pid,
    close: async () => {
      if (closed) return;
      closed = true;
      stopCertWatch();
      clearTimeout(restartTimer);
      process.off('exit', killOnExit);
      const c = child;
      if (c && c.exitCode === null && c.signalCode === null) {
        const exited = new Promise<void>((r) => c.once('exit', () => r()));
        c.kill('SIGTERM');
        const timer = setTimeout(() => c.kill('SIGKILL'), 2000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(pidfile, { force: true });
    },
  };
}

/**
 * A coturn left by a server that died (re-parented to init or a reaper) is killed. One whose parent
 * is a live Node process belongs to another Mouthpiece on this data dir: starting is refused rather
 * than taking its TURN away.
 */
function killStale(pidfile: string): void {
  if (!existsSync(pidfile)) return;
  const pid = Number(readFileSync(pidfile, 'utf8').trim());
  if (Number.isInteger(pid) && pid > 1) {
    let parent = 0;
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('turnserver')) throw new Error('not coturn');
      parent = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
    } catch {
      // not running (or not coturn): nothing to stop
    }
    let owner = '';
    try {
      if (parent > 1) owner = readFileSync(`/proc/${parent}/cmdline`, 'utf8');
    } catch {
      // the parent is gone
    }
    if (/(^|\/)node\b/.test(owner.split('\0')[0] ?? ''))
      throw new Error(
        `another Mouthpiece server (pid ${parent}) runs coturn from this data directory (${dirname(pidfile)}); ` +
          'stop that server, or give this one its own MOUTHPIECE_DATA_DIR',
      );
    if (parent > 0) process.kill(pid, 'SIGKILL'); // re-parented to init or a reaper: its server died
  }
  rmSync(pidfile, { force: true });
}

async function waitForPort(host: string, port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect({ host, port });
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline)
      throw new Error(
        `coturn did not listen on ${host}:${port} within ${timeoutMs} ms` +
          (port < 1024
            ? ' (a port below 1024 needs root or CAP_NET_BIND_SERVICE: setcap cap_net_bind_service=+ep "$(command -v turnserver)")'
            : ''),
      );
    await new Promise((r) => setTimeout(r, 50));
  }
}
