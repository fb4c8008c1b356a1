/**
 * compose.yaml run as an operator runs it: Compose (Debian's docker-compose, which knows profiles)
 * talking to podman's Docker-compatible API (`podman system service`), both started by the test in
 * its namespace's network, so the services' host networking is that namespace. The images are built
 * before the browser tests by scripts/container-image.sh (the build needs the package registries);
 * `up --no-build` only runs them.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '../..');

export interface ComposeProject {
  /** `docker-compose -p NAME --profile cluster ARGS…` with the project's environment; its stdout. */
  run(args: string[], allowFail?: boolean): string;
  logs(): string;
  /** `down -v`: the services and their volumes go; then the API service ends. */
  down(): Promise<void>;
}

export function requireCompose(): void {
  if (spawnSync('docker-compose', ['version'], { encoding: 'utf8' }).status !== 0)
    throw new Error('docker-compose is missing: apt-get install docker-compose (.ci/run installs it)');
}

/**
 * Starts podman's API on a socket of its own (runc and the ulimits this machine's podman needs,
 * as e2e/harness/container.ts passes them on the command line) and returns the project's runner.
 */
export async function startCompose(name: string, env: Record<string, string>): Promise<ComposeProject> {
  const dir = mkdtempSync(join(tmpdir(), 'mp-compose-'));
  const conf = join(dir, 'containers.conf');
  writeFileSync(
    conf,
    '[containers]\ndefault_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]\n[engine]\nruntime = "runc"\n',
  );
  const socket = join(dir, 'podman.sock');
  const service: ChildProcess = spawn('podman', ['system', 'service', '--time=0', `unix://${socket}`], {
    env: { ...process.env, CONTAINERS_CONF: conf },
    stdio: 'ignore',
  });
  const deadline = Date.now() + 20_000;
  while (!existsSync(socket)) {
    if (Date.now() > deadline || service.exitCode !== null)
      throw new Error('podman system service did not open its socket');
    await new Promise((r) => setTimeout(r, 100));
  }
  const composeEnv = { ...process.env, ...env, DOCKER_HOST: `unix://${socket}` };
  const run = (args: string[], allowFail = false): string => {
    const r = spawnSync('docker-compose', ['-p', name, '--profile', 'cluster', ...args], {
      cwd: REPO,
      env: composeEnv,
      encoding: 'utf8',
      timeout: 180_000,
    });
    if (!allowFail && r.status !== 0)
      throw new Error(`docker-compose ${args.join(' ')}: ${r.error?.message ?? ''}${r.stderr}${r.stdout}`);
    return r.stdout;
  };
  return {
    run,
    logs: () => run(['logs', '--no-color', '--tail=40'], true),
    async down() {
      run(['down', '-v', '-t', '10'], true);
      service.kill('SIGTERM');
      await new Promise((r) => (service.exitCode !== null ? r(undefined) : service.once('exit', r)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `url` until it answers 200, else fails with the project's logs. */
export async function untilAnswers(project: ComposeProject, url: string, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const ok = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${url} never answered:\n${project.logs().slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
