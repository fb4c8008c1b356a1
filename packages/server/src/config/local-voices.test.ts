/**
 * Local neural voices in the server's configuration (docs/voices.md): a voices-file entry with
 * `"provider": "local"` names a model folder (relative to the file), checked when the file is read;
 * at start the server loads each model in a short-lived child process, and one that does not load
 * stops start-up before anything is opened. Uses the tiny test model (python3-onnx; build first).
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { engineCatalog } from '@mouthpiece/engine/host';
import { FakeEngineHost, tinyVoices } from '@mouthpiece/engine/testing';
import { createCredential } from '../auth/credential-records.js';
import { ConfigError, loadConfig } from '../config.js';
import { startServer } from '../server.js';
import { sessionCredentialInput } from '../testing/credential-input.js';
import { testConfig } from '../testing/test-config.js';

function voicesFile(voices: object[]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'mp-local-cfg-')), 'voices.json');
  writeFileSync(file, JSON.stringify({ voices }));
  return file;
}

const tiny = (model: string, extra: object = {}): object => ({
  id: 'tiny',
  provider: 'local',
  model,
  name: 'Tiny',
  language: 'en-US',
  gender: 'female',
  ...extra,
});

const load = (file: string) => loadConfig({ MOUTHPIECE_TURN: 'off', MOUTHPIECE_VOICES_FILE: file });

describe('local voices in the voices file', () => {
  it('a model folder relative to the file is resolved; providerVoice is an optional speaker number', () => {
    const v = tinyVoices();
    const file = voicesFile([tiny(v.good), tiny(v.good, { id: 'tiny-2', providerVoice: '0' })]);
    const rel = voicesFile([tiny(relative(join(file, '..', '..'), v.good))]);
    expect(load(file).speech.voices).toEqual([
      { id: 'tiny', provider: 'local', model: v.good, name: 'Tiny', language: 'en-US', gender: 'female' },
      expect.objectContaining({ id: 'tiny-2', providerVoice: '0' }),
    ]);
    expect(() => load(rel)).toThrow(/"voices\[0\]\.model"/); // relative to ITS folder, which is another
    const relOk = voicesFile([]);
    writeFileSync(relOk, JSON.stringify({ voices: [tiny(relative(join(relOk, '..'), v.good))] }));
    expect(load(relOk).speech.voices[0]).toMatchObject({ model: v.good });
  });

  it('a missing folder, a folder without its files or a bad speaker stops start-up naming the field and path', () => {
    const v = tinyVoices();
    const missing = join(tmpdir(), 'mp-no-such-voice');
    const file = voicesFile([tiny(missing)]);
    expect(() => load(file)).toThrow(
      new ConfigError(
        `MOUTHPIECE_VOICES_FILE: voices file ${file}: "voices[0].model" the model folder ${missing} does not exist or cannot be read`,
      ),
    );
    const empty = mkdtempSync(join(tmpdir(), 'mp-empty-voice-'));
    expect(() => load(voicesFile([tiny(empty)]))).toThrow(`the model folder ${empty} holds no .onnx model`);
    expect(() => load(voicesFile([tiny(v.good, { providerVoice: 'lessac' })]))).toThrow(
      /"voices\[0\]\.providerVoice" of a local voice is its speaker number/,
    );
    expect(() =>
      load(voicesFile([{ ...(tiny(v.good) as Record<string, unknown>), model: undefined }])),
    ).toThrow(/"voices\[0\]\.model" must be a non-empty string/);
  });

  it('a corrupt model stops startServer with the voice, folder and reason, before the database is opened', async () => {
    const v = tinyVoices();
    const dataDir = join(mkdtempSync(join(tmpdir(), 'mp-local-start-')), 'data');
    const config = testConfig({ dataDir, port: 0, host: '127.0.0.1' });
    const speech = load(voicesFile([tiny(v.corrupt, { id: 'broken' })])).speech;
    const err = await startServer({ ...config, speech }, { engine: new FakeEngineHost() }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(
      new RegExp(
        `^MOUTHPIECE_VOICES_FILE: local voice "broken": the model in ${v.corrupt} does not load: .*Protobuf parsing failed`,
      ),
    );
    expect(existsSync(dataDir)).toBe(false);
  });

  it('a good model starts the server, and GET /v1/voices lists the voice with provider local', async () => {
    const v = tinyVoices();
    const dataDir = mkdtempSync(join(tmpdir(), 'mp-local-start-'));
    const config = testConfig({ dataDir, port: 0, host: '127.0.0.1' });
    const speech = load(voicesFile([tiny(v.good)])).speech;
    // the fake engine lists what the engine pool's catalog would (engineCatalog, from the same config)
    const engine = new FakeEngineHost({ voices: engineCatalog([], undefined, speech).voices });
    const server = await startServer({ ...config, speech }, { engine });
    try {
      const { secret } = await createCredential(
        server.app.ctx.stores,
        sessionCredentialInput('local'),
        Date.now(),
      );
      const res = await fetch(`${server.url}/v1/voices`, { headers: { authorization: `KS ${secret}` } });
      expect(res.status).toBe(200);
      const { voices } = (await res.json()) as { voices: Array<Record<string, unknown>> };
      expect(voices).toContainEqual({
        id: 'tiny',
        name: 'Tiny',
        language: 'en-US',
        gender: 'female',
        provider: 'local',
      });
    } finally {
      await server.close();
    }
  });
});
