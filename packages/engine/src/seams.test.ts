/**
 * The engine's seams as ARCHITECTURE.md draws them. Its three control-plane entries hand out one
 * thing each: `/host` the EngineHost seam and the pool behind it, `/jobs` the child-process jobs and
 * the packs they write, `/config` the voices file and the local voice probe. And its ground floors
 * stay the ground: `ipc/` (typed RPC, child jobs) and `contract/` (EngineHost's types, the media and
 * peer ports) import no higher engine folder, and no floor below `host/` imports it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const srcDir = fileURLToPath(new URL('.', import.meta.url));

/** The names each entry exports at run time (types are erased: the compiler checks those). */
const ENTRIES = {
  host: [
    'DEFAULT_ICE_DENY',
    'EngineError',
    'RenderKind',
    'createEnginePool',
    'engineCatalog',
    'engineMainPath',
  ],
  jobs: [
    'BROWSER_VIDEO_CODEC',
    'BUILTIN_AVATARS_DIR',
    'FfmpegMissingError',
    'PHOTO_LIMITS',
    'PackFileRole',
    'PhotoImportError',
    'VIDEO_LIMITS',
    'VideoEncodeError',
    'VideoImportError',
    'createAvatarPreviews',
    'drawPreviews',
    'encodeVideoForBrowsers',
    'fileLooksLikeVideo',
    'loadAvatarPack',
    'looksLikeVideo',
    'readAvatarPacks',
    'rendererFiles',
    'runPhotoImport',
    'runVideoImport',
  ],
  config: [
    'DEFAULT_SPEECH_CONFIG',
    'ELEVENLABS_DEFAULT_MODEL',
    'LocalVoiceUnusable',
    'OPENAI_DEFAULT_MODEL',
    'parseVoicesFile',
    'probeLocalVoices',
  ],
};

/** The engine folders a folder may import (any import, type-only ones too). */
const MAY_IMPORT: Record<string, readonly string[]> = {
  ipc: [],
  contract: ['ipc'],
  host: ['ipc', 'contract', 'avatar', 'speech', 'rtc'],
};

/** Folders that may import `host/`: the engine process shares its protocol (host/protocol.ts). */
const ABOVE_HOST = new Set(['host', 'process', 'testing']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The engine folder (or top-level file) a path under src/ stands in. */
const folderOf = (path: string): string => relative(srcDir, path).split(sep)[0]!;

/** Every engine file a module imports: static, type-only, re-exports and dynamic, relative ones. */
function engineImports(file: string): string[] {
  const code = readFileSync(file, 'utf8');
  const specs = [...code.matchAll(/(?:\bfrom\s+|\bimport\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)];
  return specs.map((m) => normalize(join(dirname(file), m[1]!)));
}

describe('the engine entries', () => {
  it.each(Object.entries(ENTRIES))('/%s exports its own seam and nothing else', async (entry, names) => {
    const mod = (await import(entry === 'host' ? './host/index.js' : `./${entry}.js`)) as Record<
      string,
      unknown
    >;
    expect(Object.keys(mod).sort()).toEqual([...names].sort());
  });

  it('are the package exports the control plane imports', () => {
    const manifest = JSON.parse(readFileSync(join(srcDir, '..', 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
    };
    for (const entry of Object.keys(ENTRIES)) expect(manifest.exports).toHaveProperty(`./${entry}`);
  });
});

describe('the ground floors', () => {
  const files = sourceFiles(srcDir);
  const edges = files.flatMap((from) => engineImports(from).map((to) => ({ from, to })));

  it.each(Object.entries(MAY_IMPORT))('%s/ imports only the folders below it', (folder, allowed) => {
    expect(
      files.some((f) => folderOf(f) === folder),
      `${folder}/ holds no source`,
    ).toBe(true);
    const up = edges
      .filter((e) => folderOf(e.from) === folder)
      .filter((e) => folderOf(e.to) !== folder && !allowed.includes(folderOf(e.to)))
      .map((e) => `${relative(srcDir, e.from)} -> ${relative(srcDir, e.to)}`);
    expect(up).toEqual([]);
  });

  it('no floor below host/ imports it', () => {
    const up = edges
      .filter((e) => folderOf(e.to) === 'host' && !ABOVE_HOST.has(folderOf(e.from)))
      .map((e) => `${relative(srcDir, e.from)} -> ${relative(srcDir, e.to)}`);
    expect(up).toEqual([]);
  });
});
