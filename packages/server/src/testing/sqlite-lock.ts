/**
 * Another process holding a SQLite database's write lock (`BEGIN EXCLUSIVE`), as a `sqlite3`
 * shell, a backup tool or a second server would: for tests of what the server does meanwhile.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

export interface HeldLock {
  /** The holder's process id. */
  pid: number;
  /** Commits and ends the holder; resolves when its process has exited. */
  release(): Promise<void>;
}

const HOLDER = `
const Database = require(process.argv[1]);
const db = new Database(process.argv[2], { timeout: 10000 });
db.exec('BEGIN EXCLUSIVE');
process.stdout.write('locked\\n');
process.stdin.on('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });
process.stdin.on('end', () => process.exit(0));
`;

export async function holdSqliteLock(file: string): Promise<HeldLock> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const child = spawn(process.execPath, ['-e', HOLDER, driver, file], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the lock holder exited (${code}) before locking`)));
  });
  return {
    pid: child.pid!,
    async release() {
      child.stdin.end('release\n');
      await exited;
    },
  };
}
