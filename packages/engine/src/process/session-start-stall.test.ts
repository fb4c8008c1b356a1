/**
 * A session's start never holds the media tick of the process's other sessions (docs/design.md §2,
 * engine-process.ts): while session A ticks, session B starts on a photo pack the process has
 * never loaded, through the renderer a real engine process opens (render/avatar-renderer.ts
 * openAvatarRenderer), and the thread that ticks is never held long enough for a tick of A to
 * come more than 60 ms after the one before. Judged on the thread's own CPU clock
 * (testing/thread-stretch.ts), so a busy machine's scheduling does not decide it.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUILTIN_AVATARS_DIR, readAvatarPacks } from '../avatar/catalog.js';
import { RenderKind } from '../avatar/manifest.js';
import { importPhotoAvatar } from '../avatar/photo-import.js';
import { TICK_MS } from '../clock/media-clock.js';
import { performanceClock } from '../clock/media-scheduler.js';
import { openAvatarRenderer } from '../render/avatar-renderer.js';
import { nullMedia } from '../testing/null-media.js';
import { portraitFixture } from '../testing/portrait-fixture.js';
import { longestStretch } from '../testing/thread-stretch.js';
import { timedSpeech } from '../testing/timed-speech.js';
import { EngineProcess, processAvatars } from './engine-process.js';

/** The longest gap between two of A's ticks allowed while B starts. */
const MAX_GAP_MS = 60;
const FRESH = ['fresh1', 'fresh2', 'fresh3'];

let root: string;
let engine: EngineProcess;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mp-start-stall-'));
  await importPhotoAvatar({ id: 'fresh1', name: 'Fresh', image: await portraitFixture({ scale: 2 }) }, root);
  // copies under other ids: each a pack the process has not loaded
  for (const id of FRESH.slice(1)) {
    cpSync(join(root, 'fresh1'), join(root, id), { recursive: true });
    const file = join(root, id, 'avatar.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), id }));
  }
  engine = new EngineProcess({
    settings: {
      videoWidth: 512,
      videoHeight: 512,
      fps: 25,
      readyTimeoutMs: 0,
      noChannelStartMs: 0,
      clientRenderKinds: Object.values(RenderKind),
    },
    avatars: processAvatars(readAvatarPacks([BUILTIN_AVATARS_DIR, root]).packs),
    media: () => nullMedia(),
    speech: {
      hasVoice: () => true,
      triesUnlistedVoices: false,
      source: ({ speed }) => timedSpeech({ msPerCharacter: 60, speed }),
    },
    openRenderer: (avatar, { width, height, background, fps }) =>
      openAvatarRenderer(avatar.pack!.manifest, { width, height }, avatar.pack!.dir, { background, fps }),
    clock: performanceClock,
    emit: () => undefined,
    log: () => undefined,
  });
  engine.start();
}, 120_000);
afterAll(() => {
  engine?.close();
  rmSync(root, { recursive: true, force: true });
});

const create = (sessionId: string, avatarId: string): Promise<void> =>
  engine.createSession({ sessionId, avatarId, voiceId: 'en-us-female', voiceSpeed: 1 });

it('a session ticks on while another session starts on a fresh photo pack', async () => {
  await create('a', 'amara');
  const ticks0 = engine.ping().ticks;
  const longest: number[] = [];
  for (const id of FRESH) {
    const { longestMs } = await longestStretch(async () => {
      await create(id, id);
      // the renderer's tilt pictures are made after the start, one per timer turn
      await new Promise((r) => setTimeout(r, 600));
    });
    expect(engine.sessionIds()).toEqual(['a', id]);
    longest.push(longestMs);
    await engine.closeSession(id, 'ended_by_client');
  }
  expect(engine.ping().ticks).toBeGreaterThan(ticks0); // A ticked all along
  // a tick due at the start of the longest stretch ran TICK_MS after the one before, plus that
  expect(
    Math.max(...longest) + TICK_MS,
    `the longest synchronous stretch per start: ${longest.map((x) => x.toFixed(1)).join(', ')} ms of CPU`,
  ).toBeLessThan(MAX_GAP_MS);
  console.log(`longest stretches: ${longest.map((x) => x.toFixed(1)).join(', ')}`);
}, 120_000);
