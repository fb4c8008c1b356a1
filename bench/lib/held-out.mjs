// Pieces of the held-out reconstruction benches (bench:video-avatar on a synthetic clip,
// bench:video-real on real footage): the say-audio path replayed offline (each 25 fps frame's face
// state for an audio track), a renderer's frames tracked in order, and the photo-avatar baseline
// made from a clip's first frame.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAnimator } from '../../packages/engine/dist/animation/animator.js';
import { importPhotoAvatar } from '../../packages/engine/dist/avatar/photo-import.js';
import { analyzeAudioMouth } from '../../packages/engine/dist/lipsync/audio-mouth.js';
import { createAvatarRenderer } from '../../packages/engine/dist/render/avatar-renderer.js';
import { REST_MOUTH } from '../../packages/engine/dist/face-state.js';
import { mouthAheadSamples } from '../../packages/engine/dist/session/face-frame.js';
import { createTracker, rgbOf } from '../video-avatar/compare.mjs';

/** The say-audio path, offline: each frame's face state for `pcm` (48 kHz mono s16). */
export function mouthStates(pcm, fps, frames) {
  const track = analyzeAudioMouth(pcm);
  const ahead = mouthAheadSamples(fps);
  const animator = createAnimator({ seed: 2 }); // a session's own idle motion
  const perFrame = 48_000 / fps;
  return Array.from({ length: frames }, (_, n) => {
    // the player has played n frames' audio; the frame samples the mouth half a frame ahead
    const at = Math.round(n * perFrame) + ahead;
    const playing = at < pcm.length;
    const mouth = playing ? track.at(at) : { ...REST_MOUTH };
    const emphasis = playing ? track.emphasisAt(at) : 0;
    const motion = animator.next({ tMs: (n * 1000) / fps, speaking: playing, emphasis });
    // the session passes the track's sound along (speech-player.ts): a video avatar matches it
    return { mouth, motion, speaking: playing, ...(playing ? { sound: track.soundAt(at) } : {}) };
  });
}

/** Renders the states with `renderer` (size×size), tracking each frame; closes the renderer. */
export async function renderAndTrack(renderer, states, size) {
  const track = createTracker(size);
  const out = [];
  try {
    for (const state of states) {
      const rgb = rgbOf(renderer.render(state));
      out.push({ rgb, lm: await track(rgb) });
    }
  } finally {
    renderer.close();
  }
  return out;
}

/** The baseline: a photo avatar imported from `firstFrame` (a PNG), rendered and tracked. */
export async function photoBaseline(firstFrame, packs, states, size) {
  const manifest = await importPhotoAvatar(
    { id: 'photo', name: 'First frame', image: readFileSync(firstFrame) },
    packs,
  );
  return renderAndTrack(
    createAvatarRenderer(manifest, { width: size, height: size }, join(packs, 'photo')),
    states,
    size,
  );
}
