/**
 * Running documentation literally: shell blocks extracted from a Markdown file, a clean copy of
 * the repository as a fresh clone has it after `npm ci`, and a bash driven step by step at a
 * person's pace.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** The fenced `sh` blocks of a Markdown file under the heading that starts with `heading`. */
export function shellBlocks(markdownPath: string, heading: string): string[] {
  const blocks: string[] = [];
  let inSection = false;
  let found = false;
  let fence: string[] | undefined; // the lines of the shell block being read
  let inOtherFence = false;
  for (const line of readFileSync(markdownPath, 'utf8').split('\n')) {
    if (fence) {
      if (line.startsWith('```')) {
        blocks.push(fence.join('\n') + '\n');
        fence = undefined;
      } else fence.push(line);
    } else if (inOtherFence) {
      if (line.startsWith('```')) inOtherFence = false;
    } else if (line.startsWith('```')) {
      if (inSection && /^```(sh|bash)\s*$/.test(line)) fence = [];
      else inOtherFence = true;
    } else if (/^#+ /.test(line)) {
      inSection = line.replace(/^#+ /, '').startsWith(heading);
      found ||= inSection;
    }
  }
  if (!found) throw new Error(`${markdownPath} has no heading "${heading}"`);
  return blocks;
}

/** A shell block cut into numbered steps at its `# N. …` comment lines. */
export function numberedSteps(block: string): { n: number; title: string; text: string }[] {
  const steps: { n: number; title: string; text: string }[] = [];
  for (const line of block.split('\n')) {
    const m = /^# (\d+)\. (.*)$/.exec(line);
    if (m) steps.push({ n: Number(m[1]), title: m[2]!, text: '' });
    else if (steps.length > 0) steps[steps.length - 1]!.text += line + '\n';
  }
  return steps;
}

/**
 * A copy of the repository as a fresh clone is after `npm ci`: the files git tracks (and new,
 * not ignored ones), no build output, no data, and the installed `node_modules` hard-linked in
 * (an `npm ci` of the same lock file, without the download and the native compile).
 */
export function cleanCheckout(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mp-clone-'));
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: REPO,
    encoding: 'utf8',
  });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  for (const file of listed.stdout.split('\0').filter(Boolean)) {
    const from = join(REPO, file);
    let stat;
    try {
      stat = lstatSync(from);
    } catch {
      continue; // deleted in the working tree
    }
    if (!stat.isFile()) continue;
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(from, join(dir, file));
    chmodSync(join(dir, file), stat.mode);
  }
  const linked = spawnSync('cp', ['-al', join(REPO, 'node_modules'), join(dir, 'node_modules')]);
  if (linked.status !== 0) {
    const copied = spawnSync('cp', ['-a', join(REPO, 'node_modules'), join(dir, 'node_modules')]);
    if (copied.status !== 0) throw new Error(`copying node_modules failed: ${copied.stderr.toString()}`);
  }
  return dir;
}

/** A directory with an `xdg-open` that records the address it was asked to open, one per line. */
export function fakeXdgOpen(): { binDir: string; opened(): string[] } {
  const binDir = mkdtempSync(join(tmpdir(), 'mp-xdg-'));
  const log = join(binDir, 'opened.txt');
  writeFileSync(log, '');
  writeFileSync(join(binDir, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$1" >> '${log}'\n`, { mode: 0o755 });
  return {
    binDir,
    opened: () => readFileSync(log, 'utf8').split('\n').filter(Boolean),
  };
}

const DONE = '@@step-done';

/**
 * One bash, fed a step at a time on its standard input as a person pastes commands into a
 * terminal: variables carry over from step to step, and each step's output is returned when its
 * last command has finished.
 */
export class ShellDriver {
  readonly #proc: ChildProcess;
  #stdout = '';
  #stderr = '';
  #waiter: (() => void) | undefined;

  constructor(cwd: string, env: NodeJS.ProcessEnv) {
    this.#proc = spawn('bash', ['--noprofile', '--norc'], {
      cwd,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true, // its own process group, so a foreground server it starts is ended with it
    });
    this.#proc.stdout!.on('data', (d: Buffer) => {
      this.#stdout += d.toString();
      this.#waiter?.();
    });
    this.#proc.stderr!.on('data', (d: Buffer) => {
      this.#stderr += d.toString();
      this.#waiter?.();
    });
  }

  /** Runs text and resolves with what it printed and the exit status of its last command. */
  async run(text: string, timeoutMs = 60_000): Promise<{ stdout: string; stderr: string; status: number }> {
    this.#stdout = '';
    this.#stderr = '';
    this.#proc.stdin!.write(`${text}\nprintf '\\n${DONE} %s\\n' "$?"\n`);
    const out = await this.waitFor(new RegExp(`\\n${DONE} (\\d+)\\n`), timeoutMs);
    const m = new RegExp(`\\n${DONE} (\\d+)\\n`).exec(out)!;
    return { stdout: out.slice(0, m.index), stderr: this.#stderr, status: Number(m[1]) };
  }

  /** Starts text without waiting for it to finish (a server in the foreground). */
  start(text: string): void {
    this.#stdout = '';
    this.#stderr = '';
    this.#proc.stdin!.write(`${text}\n`);
  }

  /** Resolves with the output so far once it matches pattern (stdout, or stderr for logs). */
  async waitFor(pattern: RegExp, timeoutMs = 60_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (pattern.test(this.#stdout)) return this.#stdout;
      if (pattern.test(this.#stderr)) return this.#stderr;
      if (this.#proc.exitCode !== null) throw new Error(`bash exited: ${this.#stdout}\n${this.#stderr}`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `timed out waiting for ${String(pattern)}; stdout:\n${this.#stdout}\nstderr:\n${this.#stderr}`,
        );
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 1000));
        this.#waiter = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
  }

  /** Ends bash and everything it started (its process group). */
  close(): void {
    if (this.#proc.pid !== undefined && this.#proc.exitCode === null) {
      try {
        process.kill(-this.#proc.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  }
}

/** Starts `npm start` in dir as the README says and waits until the service answers /readyz. */
export async function npmStart(
  dir: string,
  env: NodeJS.ProcessEnv,
  url: string,
): Promise<{ proc: ChildProcess; logs: string[]; stop(): Promise<void> }> {
  const proc = spawn('npm', ['start'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const logs: string[] = [];
  proc.stdout.on('data', (d: Buffer) => logs.push(d.toString()));
  proc.stderr.on('data', (d: Buffer) => logs.push(d.toString()));
  const deadline = Date.now() + 240_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`npm start exited ${proc.exitCode}: ${logs.join('')}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      // building or not listening yet
    }
    if (Date.now() > deadline) throw new Error(`npm start did not become ready: ${logs.join('')}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    proc,
    logs,
    async stop() {
      if (proc.exitCode !== null || proc.pid === undefined) return;
      const exited = new Promise((r) => proc.once('exit', r));
      process.kill(-proc.pid, 'SIGINT'); // Ctrl-C in the terminal reaches npm and the server
      const t = setTimeout(() => proc.pid !== undefined && process.kill(-proc.pid, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    },
  };
}
