/**
 * The container image (Dockerfile) run with podman as an operator would run it: host networking
 * (here: the test namespace's), a named volume for /data, Debian's runc. The image is built before
 * the browser tests by scripts/container-image.sh, outside the namespace (the build needs the
 * package registries); these helpers only run it.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export const IMAGE = process.env['MOUTHPIECE_CONTAINER_IMAGE'] ?? 'localhost/mouthpiece:latest';
/** runc: crun refuses this machine's hybrid cgroups; the ulimits: podman's defaults fail under runc here. */
const RUN_FLAGS = ['--runtime', 'runc', '--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=4096:4096'];

export function podman(
  args: string[],
  allowFail = false,
): { status: number; stdout: string; stderr: string } {
  const r = spawnSync('podman', args, { encoding: 'utf8', timeout: 120_000 });
  if (r.error) throw new Error(`podman ${args[0]}: ${r.error.message} (apt-get install podman runc)`);
  const out = { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
  if (!allowFail && out.status !== 0)
    throw new Error(`podman ${args.join(' ')}: ${out.stderr || out.stdout}`);
  return out;
}

export function requireImage(image = IMAGE): void {
  // `ip netns exec` mounts a new /sys without cgroups, and runc then refuses to start anything
  if (!/ - cgroup2? /.test(readFileSync('/proc/self/mountinfo', 'utf8')))
    throw new Error(
      'no cgroup mount here (ip netns exec?): join only the network, nsenter --net=/run/netns/NAME (scripts/test.sh)',
    );
  if (podman(['image', 'exists', image], true).status !== 0)
    throw new Error(`${image} is missing: run scripts/container-image.sh first (npm test does)`);
}

export interface RunningContainer {
  name: string;
  volume: string;
  /** `podman healthcheck run`: the image's HEALTHCHECK (GET /healthz) passed. */
  healthy(): boolean;
  exec(args: string[]): string;
  restart(): void;
  logs(): string;
  remove(): void;
}

/** Starts the image in the calling process's network namespace, its data in a new named volume. */
export function runContainer(name: string, env: Record<string, string>): RunningContainer {
  const volume = `${name}-data`;
  podman(['volume', 'create', volume]);
  const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  // the timer podman would start for the healthcheck needs systemd; the test runs it itself
  podman(
    ['run', '-d', ...RUN_FLAGS, '--network', 'host', '--health-interval', 'disable', '--name', name].concat([
      '-v',
      `${volume}:/data`,
      ...envArgs,
      IMAGE,
    ]),
  );
  return {
    name,
    volume,
    healthy: () => podman(['healthcheck', 'run', name], true).status === 0,
    exec: (args) => podman(['exec', name, ...args]).stdout,
    restart: () => {
      podman(['stop', '-t', '15', name]);
      podman(['start', name]);
    },
    logs: () => {
      const r = podman(['logs', name], true);
      return r.stdout + r.stderr;
    },
    remove: () => {
      podman(['rm', '-f', '-t', '5', name], true);
      podman(['volume', 'rm', '-f', volume], true);
    },
  };
}

/** Polls until the container's healthcheck passes (the server answers /healthz inside it). */
export async function untilHealthy(c: RunningContainer, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!c.healthy()) {
    if (Date.now() > deadline) throw new Error(`${c.name} never became healthy:\n${c.logs().slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
