/**
 * One piece of engine work in its own short-lived process, both ends: the caller forks a built entry
 * (`dist/...`), sends one request over IPC and gets progress and one answer back; the job's process
 * answers and ends. The server and the CLI run the work that loads native modules (face-api, Skia)
 * this way, so they never load them, and a crash costs only that job. No native modules here.
 */
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What a job's process sends back: progress, then exactly one of the other three. */
export type JobMessage<Result, Progress, Code extends string> =
  | { kind: 'progress'; progress: Progress }
  | { kind: 'done'; result: Result }
  | { kind: 'refused'; code: Code; message: string }
  | { kind: 'failed'; message: string };

/** A built file of this package (from src/ under vitest, the dist/ one: build first). */
export function builtEntry(relative: string): string {
  const file = join(fileURLToPath(new URL('../../', import.meta.url)), 'dist', relative);
  if (!existsSync(file)) throw new Error(`${file} is missing: build first (npx tsc -b)`);
  return file;
}

export interface JobOptions<Progress, Code extends string> {
  /** Names the job in errors ("video import"). */
  name: string;
  /** The typed error a refusal becomes (the input cannot be used; the message says why). */
  refused: (code: Code, message: string) => Error;
  onProgress?: ((progress: Progress) => void) | undefined;
}

/**
 * Runs `request` in a process forked from `main`. Resolves with its result; rejects with
 * `opts.refused(...)` when it refused the input, with Error when it failed or died.
 */
export function runJob<Request extends object, Result, Progress = never, Code extends string = never>(
  main: string,
  request: Request,
  opts: JobOptions<Progress, Code>,
): Promise<Result> {
  const child = fork(main, [], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'advanced' });
  const stderr: Buffer[] = [];
  child.stderr?.on('data', (d: Buffer) => stderr.length < 50 && stderr.push(d));
  let answer: Exclude<JobMessage<Result, Progress, Code>, { kind: 'progress' }> | undefined;
  return new Promise<Result>((resolve, reject) => {
    child.on('message', (m: JobMessage<Result, Progress, Code>) => {
      if (m.kind === 'progress') opts.onProgress?.(m.progress);
      else answer = m;
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (answer?.kind === 'done') resolve(answer.result);
      else if (answer?.kind === 'refused') reject(opts.refused(answer.code, answer.message));
      else
        reject(
          new Error(
            answer?.kind === 'failed'
              ? `${opts.name} failed: ${answer.message}`
              : `${opts.name} process ended (${signal ?? code}): ${Buffer.concat(stderr).toString('utf8').slice(-500)}`,
          ),
        );
    });
    child.send(request);
  });
}

/**
 * The job process's end: answers the one request it is sent with `work` and exits. `refusal` tells
 * a refused input (its typed error) from a failure.
 */
export function serveJob<Request extends object, Result, Progress = never, Code extends string = never>(
  work: (request: Request, progress: (p: Progress) => void) => Promise<Result>,
  refusal: (err: unknown) => { code: Code; message: string } | undefined,
): void {
  const send = (m: JobMessage<Result, Progress, Code>): Promise<void> =>
    new Promise((resolve) => (process.connected ? process.send!(m, () => resolve()) : resolve()));
  const end = async (m: JobMessage<Result, Progress, Code>): Promise<never> => {
    await send(m);
    process.exit(0);
  };
  process.once('message', (request: Request) => {
    work(request, (progress) => void send({ kind: 'progress', progress })).then(
      (result) => end({ kind: 'done', result }),
      (err: unknown) => {
        const refused = refusal(err);
        return end(
          refused
            ? { kind: 'refused', ...refused }
            : { kind: 'failed', message: err instanceof Error ? (err.stack ?? err.message) : String(err) },
        );
      },
    );
  });
  process.on('disconnect', () => process.exit(1));
}
