/**
 * The architecture's rule (ARCHITECTURE.md): the server process never loads libwebrtc, Skia,
 * face-api or TensorFlow.js — they live in engine processes and import jobs. Checked twice, in
 * processes that report what they loaded (testing/module-probe.ts): every `@mouthpiece/engine/...`
 * entry the server's sources import, and the built server after start, a photo upload and previews.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { portraitFixture } from '@mouthpiece/engine/testing';
import type { ProbeLine } from './testing/module-probe.js';

const SERVER_DIR = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(SERVER_DIR, 'src');
const PROBE = join(SERVER_DIR, 'dist', 'testing', 'module-probe.js');
const CLI = join(SERVER_DIR, 'dist', 'cli.js');
/** What must stay out of the server process: these packages' modules, native objects, workers. */
const FORBIDDEN =
  /node_modules\/(@napi-rs\/canvas|@roamhq\/wrtc|@vladmandic\/face-api|@tensorflow\/)|\/[^/]*(skia|wrtc)[^/]*\.node$|face-detector/i;
const ADMIN = 'admin-token-for-the-architecture-test';

/** Every engine entry imported (statically or dynamically) by the server's non-test sources. */
function engineEntriesOfServer(): string[] {
  const entries = new Set<string>();
  for (const file of readdirSync(SRC, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts') || file.endsWith('.test.ts') || file.startsWith('testing/')) continue;
    for (const m of readFileSync(join(SRC, file), 'utf8').matchAll(/['"]@mouthpiece\/engine\/([\w/-]+)['"]/g))
      entries.add(m[1]!);
  }
  return [...entries].sort();
}

interface Probed {
  exitCode: number | null;
  output: string;
  /** Loaded modules and native objects the server must not load. */
  forbidden: string[];
  loaded: { sharedObjects: string[]; commonJs: string[]; workers: string[]; esm: string[] };
}

/** Runs node with the probe preloaded until it exits; `during` runs meanwhile (and may stop it). */
async function probed(
  args: string[],
  env: Record<string, string | undefined> = {},
  during: (output: () => string, stop: () => void) => Promise<void> = async () => undefined,
): Promise<Probed> {
  const child = spawn(process.execPath, ['--import', PROBE, ...args], {
    cwd: SERVER_DIR,
    env: { PATH: process.env['PATH'], ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let lines = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  (child.stdio[3] as Readable).on('data', (d: Buffer) => (lines += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  try {
    await during(
      () => output,
      () => child.kill('SIGINT'),
    );
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  const exitCode = await exited;
  const parsed = lines
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ProbeLine);
  const report = parsed.find((l) => l.kind === 'report');
  const esm = parsed.flatMap((l) => (l.kind === 'esm' ? [l.url] : []));
  const loaded = {
    sharedObjects: report?.sharedObjects ?? [],
    commonJs: report?.commonJs ?? [],
    workers: report?.workers ?? [],
    esm,
  };
  const forbidden = Object.values(loaded)
    .flat()
    .filter((f) => FORBIDDEN.test(f));
  return { exitCode, output, forbidden: [...new Set(forbidden)], loaded };
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

describe('the server process loads no Skia, face-api, TensorFlow.js or libwebrtc', () => {
  it('in any engine entry its sources import (found by reading them)', async () => {
    const entries = engineEntriesOfServer();
    expect(entries).toEqual(['config', 'host', 'jobs']);
    for (const entry of entries) {
      const run = await probed(['--input-type=module', '-e', `await import('@mouthpiece/engine/${entry}')`]);
      expect({ entry, exitCode: run.exitCode, output: run.output }).toEqual({
        entry,
        exitCode: 0,
        output: '',
      });
      expect(run.loaded.esm.length, `${entry}: the probe saw nothing`).toBeGreaterThan(0);
      expect({ entry, forbidden: run.forbidden }).toEqual({ entry, forbidden: [] });
    }
    // the probe sees Skia where it is loaded: the entry for tools and tests
    const tools = await probed(['--input-type=module', '-e', `await import('@mouthpiece/engine/avatars')`]);
    expect(tools.forbidden.some((f) => /skia.*\.node$/.test(f))).toBe(true);
  }, 60_000);

  it('after start, a photo upload, a refused one and previews (drawn and stored)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mp-entries-'));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const portrait = await portraitFixture({ scale: 2 });
    const upload = (id: string, image: Buffer) => {
      const form = new FormData();
      form.set('id', id);
      form.set('name', id);
      form.set('image', new Blob([image]), 'portrait.png');
      return fetch(`${base}/admin/v1/avatars`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}` },
        body: form,
      });
    };
    try {
      const run = await probed(
        [CLI, 'serve'],
        {
          PORT: String(port),
          HOST: '127.0.0.1',
          MOUTHPIECE_DATA_DIR: dataDir,
          MOUTHPIECE_ENGINE_PROCESSES: '1',
          MOUTHPIECE_TURN: 'off',
          MOUTHPIECE_ADMIN_TOKEN: ADMIN,
        },
        async (output, stop) => {
          // up to a minute: on a busy machine (test files run side by side) start takes its time
          for (let i = 0; i < 1200 && !output().includes('is running at'); i++)
            await new Promise((r) => setTimeout(r, 50));
          expect(output()).toContain('is running at');
          const added = await upload('astro', portrait);
          expect(added.status, await added.clone().text()).toBe(201);
          const refused = await upload('small', await portraitFixture());
          expect(refused.status).toBe(422);
          expect(await refused.json()).toMatchObject({ code: 'UNUSABLE_PORTRAIT' });
          for (const id of ['amara', 'astro', 'amara']) {
            const png = await fetch(`${base}/v1/avatars/${id}/preview.png`);
            expect(png.status).toBe(200);
            expect(Buffer.from(await png.arrayBuffer()).readUInt32BE(16)).toBe(256);
          }
          stop();
        },
      );
      expect(run.exitCode, run.output).toBe(0);
      // the report came from the server process: it holds Fastify and the SQLite addon
      expect(run.loaded.commonJs.some((f) => f.includes('/fastify/'))).toBe(true);
      expect(run.loaded.sharedObjects.some((f) => f.endsWith('better_sqlite3.node'))).toBe(true);
      expect(run.forbidden).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
