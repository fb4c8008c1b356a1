/**
 * Preloaded with `node --import` into a process under test (engine-entries.test.ts): at exit it
 * writes to file descriptor 3, one JSON line, what the process loaded — native shared objects and
 * CommonJS modules, the files its worker threads started from — and its resolve hook
 * (module-probe-hooks.ts) writes each ES module URL. Only
 * the process the test started reports: its forked children (engine processes, import jobs, which
 * inherit the flag) have an IPC channel and worker threads are not the main thread; they stay silent.
 */
import { writeSync } from 'node:fs';
import { createRequire, register, syncBuiltinESMExports } from 'node:module';
import { isMainThread } from 'node:worker_threads';
import type * as WorkerThreads from 'node:worker_threads';

/** One line on fd 3. */
export type ProbeLine =
  | { kind: 'esm'; url: string }
  | { kind: 'report'; sharedObjects: string[]; commonJs: string[]; workers: string[] };

if (isMainThread && !process.send) {
  register('./module-probe-hooks.js', import.meta.url);
  // a worker's modules are its own: note the file each starts from (a face detector, a renderer)
  const workers: string[] = [];
  const threads = createRequire(import.meta.url)('node:worker_threads') as typeof WorkerThreads;
  const Worker = threads.Worker;
  threads.Worker = class extends Worker {
    constructor(file: string | URL, options?: WorkerThreads.WorkerOptions) {
      workers.push(String(file));
      super(file, options);
    }
  };
  syncBuiltinESMExports();
  process.on('exit', () => {
    const report = process.report.getReport() as unknown as { sharedObjects: string[] };
    const line: ProbeLine = {
      kind: 'report',
      sharedObjects: report.sharedObjects,
      commonJs: Object.keys(createRequire(import.meta.url).cache),
      workers,
    };
    writeSync(3, `${JSON.stringify(line)}\n`);
  });
}
