import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_DOCS, ConfigError, configTable, loadConfig } from './config.js';
import { CONFIG_SPEC } from './config/spec.js';

describe('config', () => {
  it('has documented defaults', () => {
    const c = loadConfig({ MOUTHPIECE_TURN: 'off' });
    expect(c).toMatchObject({
      port: 8080,
      idleTimeoutMs: 30_000,
      maxSessionDurationMs: 3_600_000,
      videoWidth: 512,
      videoHeight: 512,
      videoFps: 25,
    });
    expect(c.publicUrl).toBe('http://localhost:8080');
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('rejects bad values with a message naming the variable', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ MOUTHPIECE_VIDEO_SIZE: '511x512' })).toThrow(/MOUTHPIECE_VIDEO_SIZE/);
    expect(() => loadConfig({ MOUTHPIECE_TURN: 'sometimes' })).toThrow(/MOUTHPIECE_TURN must be one of/);
    expect(() => loadConfig({ MOUTHPIECE_TURN: 'external' })).toThrow(/MOUTHPIECE_TURN_HOST/);
    expect(() => loadConfig({ MOUTHPIECE_JWT_SECRET: 'short' })).toThrow(/32 characters/);
    expect(() => loadConfig({ MOUTHPIECE_ADMIN_TOKEN: 'admin' })).toThrow(
      /MOUTHPIECE_ADMIN_TOKEN must be at least 32/,
    );
    expect(() => loadConfig({ MOUTHPIECE_SESSION_MAX_DURATION_MS: String(30 * 86_400_000) })).toThrow(
      /MOUTHPIECE_SESSION_MAX_DURATION_MS must be an integer between/,
    );
    expect(() => loadConfig({ MOUTHPIECE_PUBLIC_URL: 'not a url' })).toThrow(/MOUTHPIECE_PUBLIC_URL/);
  });

  it('cluster mode is on only with MOUTHPIECE_REDIS_URL, and checks its settings', () => {
    expect(loadConfig({ MOUTHPIECE_TURN: 'off' }).cluster).toBeUndefined();
    const c = loadConfig({
      MOUTHPIECE_TURN: 'off',
      MOUTHPIECE_PUBLIC_URL: 'https://a.example.com/',
      MOUTHPIECE_REDIS_URL: 'redis://10.0.0.5:6379',
    }).cluster;
    expect(c?.redisUrl).toBe('redis://10.0.0.5:6379');
    expect(c?.nodeId).toMatch(/^node-[0-9a-f]{8}$/);
    expect(c?.nodeUrl).toBe('https://a.example.com');
    const named = loadConfig({
      MOUTHPIECE_TURN: 'off',
      MOUTHPIECE_REDIS_URL: 'redis://r:6379',
      MOUTHPIECE_NODE_ID: 'node-a',
      MOUTHPIECE_NODE_URL: 'http://10.0.0.1:8080/',
    }).cluster;
    expect(named).toEqual({ redisUrl: 'redis://r:6379', nodeId: 'node-a', nodeUrl: 'http://10.0.0.1:8080' });
    expect(() => loadConfig({ MOUTHPIECE_REDIS_URL: 'http://r:6379' })).toThrow(/MOUTHPIECE_REDIS_URL/);
    expect(() => loadConfig({ MOUTHPIECE_REDIS_URL: 'redis://r', MOUTHPIECE_NODE_ID: 'a b' })).toThrow(
      /MOUTHPIECE_NODE_ID/,
    );
    expect(() => loadConfig({ MOUTHPIECE_REDIS_URL: 'redis://r', MOUTHPIECE_NODE_URL: 'ftp://x' })).toThrow(
      /MOUTHPIECE_NODE_URL/,
    );
    expect(() => loadConfig({ MOUTHPIECE_NODE_ID: 'a' })).toThrow(/need MOUTHPIECE_REDIS_URL/);
  });

  it('voice providers: off unless configured, a bad voices file or URL stops start-up naming it', () => {
    const off = loadConfig({ MOUTHPIECE_TURN: 'off' });
    expect(off.speech).toMatchObject({ voices: [], firstByteTimeoutMs: 10_000, stallTimeoutMs: 10_000 });
    expect(off.speech.elevenlabs).toBeUndefined();
    expect(off.speech.openai).toBeUndefined();
    const on = loadConfig({
      MOUTHPIECE_TURN: 'off',
      MOUTHPIECE_ELEVENLABS_API_KEY: 'sk-el',
      MOUTHPIECE_OPENAI_TTS_URL: 'http://localhost:8880/v1/',
      MOUTHPIECE_VOICE_TIMEOUT_MS: '3000',
    });
    expect(on.speech.elevenlabs).toEqual({
      url: 'https://api.elevenlabs.io',
      apiKey: 'sk-el',
      defaultModel: 'eleven_flash_v2_5',
    });
    expect(on.speech.openai).toEqual({ url: 'http://localhost:8880/v1', defaultModel: 'tts-1' });
    expect(on.speech.firstByteTimeoutMs).toBe(3000);
    expect(() => loadConfig({ MOUTHPIECE_TURN: 'off', MOUTHPIECE_OPENAI_TTS_URL: 'localhost:8880' })).toThrow(
      /MOUTHPIECE_OPENAI_TTS_URL must be an absolute http\(s\) URL/,
    );
    const dir = mkdtempSync(join(tmpdir(), 'mp-cfg-'));
    const file = join(dir, 'voices.json');
    writeFileSync(
      file,
      JSON.stringify({ voices: [{ id: 'x', provider: 'openai', name: 'X', language: 'en' }] }),
    );
    expect(() => loadConfig({ MOUTHPIECE_TURN: 'off', MOUTHPIECE_VOICES_FILE: file })).toThrow(
      new RegExp(`MOUTHPIECE_VOICES_FILE: voices file ${file}: "voices\\[0\\]\\.providerVoice"`),
    );
    expect(() =>
      loadConfig({ MOUTHPIECE_TURN: 'off', MOUTHPIECE_VOICES_FILE: join(dir, 'missing.json') }),
    ).toThrow(/MOUTHPIECE_VOICES_FILE: voices file .*missing\.json: ENOENT/);
  });

  it('the README table is the spec: same variables, in order, with the same defaults and meanings', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const rows = readmeTable(readme);
    // on failure, paste this into README.md and run prettier on it
    const expected = configTable();
    expect(rows, expected).toEqual(CONFIG_DOCS.map((d) => [`\`${d.name}\``, d.default, d.meaning]));
  });

  it('the table check sees a changed default, meaning or name', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const rows = readmeTable(readme);
    const port = rows.find((r) => r[0] === '`PORT`');
    expect(port).toEqual(['`PORT`', '8080', 'HTTP port']);
    const edited = readme.replace(/^\| `PORT` +\| 8080 /m, '| `PORT` | 8081 ');
    expect(readmeTable(edited).find((r) => r[0] === '`PORT`')?.[1]).toBe('8081');
  });

  it('defaults and messages come from the schema', () => {
    const c = loadConfig({ MOUTHPIECE_TURN: 'off' });
    expect(c.port).toBe(CONFIG_SPEC.PORT.default);
    expect(c.whepReadyTimeoutMs).toBe(CONFIG_SPEC.MOUTHPIECE_WHEP_READY_TIMEOUT_MS.default);
    expect(c.speech.stallTimeoutMs).toBe(CONFIG_SPEC.MOUTHPIECE_VOICE_STALL_TIMEOUT_MS.default);
    expect(() => loadConfig({ MOUTHPIECE_VIDEO_FPS: '61' })).toThrow(
      'MOUTHPIECE_VIDEO_FPS must be an integer between 1 and 60, got "61"',
    );
    expect(() => loadConfig({ MOUTHPIECE_TRUST_PROXY: 'maybe' })).toThrow(
      'MOUTHPIECE_TRUST_PROXY must be 0 or 1, got "maybe"',
    );
    expect(() => loadConfig({ MOUTHPIECE_LOG_LEVEL: 'loud' })).toThrow(
      'MOUTHPIECE_LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got "loud"',
    );
    expect(() => loadConfig({ MOUTHPIECE_ADMIN_TOKEN: 'x'.repeat(31) })).toThrow(
      'MOUTHPIECE_ADMIN_TOKEN must be at least 32 characters (for example: openssl rand -base64 32)',
    );
    expect(() => loadConfig({ MOUTHPIECE_VIDEO_SIZE: '' })).toThrow(
      'MOUTHPIECE_VIDEO_SIZE must look like 512x512, got ""',
    );
    expect(() =>
      loadConfig({ MOUTHPIECE_TURN_MIN_PORT: '50000', MOUTHPIECE_TURN_MAX_PORT: '49999' }),
    ).toThrow('MOUTHPIECE_TURN_MIN_PORT must not exceed MOUTHPIECE_TURN_MAX_PORT');
    expect(loadConfig({ MOUTHPIECE_TURN: 'off', MOUTHPIECE_CORS_ORIGINS: '' }).corsOrigins).toEqual([]);
  });

  it('loading runs nothing: whether turnserver is installed is asked when turn.mode is first read', () => {
    let asked = 0;
    const probes = { hasTurnserver: () => (asked++, true) };
    const c = loadConfig({}, probes);
    expect(asked).toBe(0);
    expect(c.turn.mode).toBe('managed');
    expect(c.turn.mode).toBe('managed');
    expect(asked).toBe(1);
    expect(loadConfig({}, { hasTurnserver: () => false }).turn.mode).toBe('off');
    const set = loadConfig(
      { MOUTHPIECE_TURN: 'external', MOUTHPIECE_TURN_HOST: 't', MOUTHPIECE_TURN_SECRET: 's' },
      probes,
    );
    expect(set.turn.mode).toBe('external');
    expect(asked).toBe(1);
  });
});

/** The cells of the README's configuration table, row by row. */
function readmeTable(readme: string): string[][] {
  const lines = readme.split('\n');
  const start = lines.findIndex((l) => /^\| variable +\| default +\| meaning +\|$/.test(l));
  expect(start, 'README.md has a table headed | variable | default | meaning |').toBeGreaterThan(0);
  const rows: string[][] = [];
  for (let i = start + 2; lines[i]?.startsWith('|'); i++)
    rows.push(
      lines[i]!.slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim().replace(/\\\|/g, '|')),
    );
  return rows;
}
