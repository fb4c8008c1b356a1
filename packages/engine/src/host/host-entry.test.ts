import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

describe('the host entry point', () => {
  it('loads no native module (wrtc, Skia) into the process that imports it', () => {
    const entry = fileURLToPath(new URL('../../dist/host/index.js', import.meta.url));
    const script = `
      const host = await import(${JSON.stringify(entry)});
      const catalog = host.engineCatalog();
      const { createRequire } = await import('node:module');
      const natives = process.report.getReport().sharedObjects.filter((f) => /wrtc|skia|canvas/i.test(f));
      console.log(JSON.stringify({ natives, avatars: catalog.avatars.length, voices: catalog.voices.length }));`;
    const out = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }),
    ) as {
      natives: string[];
      avatars: number;
      voices: number;
    };
    expect(out.natives).toEqual([]);
    expect(out.avatars).toBeGreaterThanOrEqual(3);
    expect(out.voices).toBeGreaterThanOrEqual(13);
  });
});
