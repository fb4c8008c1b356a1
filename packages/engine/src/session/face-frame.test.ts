import { describe, expect, it } from 'vitest';
import { createAnimator } from '../animation/animator.js';
import { REST_MOUTH, Viseme } from '../face-state.js';
import type { MouthTrack } from '../lipsync/mouth-track.js';
import { faceState, mouthAheadSamples } from './face-frame.js';
import { SpeechPlayer } from './speech-player.js';
import { TurnAudio } from './turn-audio.js';

const open = (o: number): MouthTrack => ({
  durationSamples: 0,
  at: () => ({ ...REST_MOUTH, open: o }),
  visemeAt: () => Viseme.X,
  emphasisAt: () => 0,
});

describe('a frame’s face state', () => {
  it('samples the centre of the audio a frame covers: half a frame ahead (20 ms = 960 samples at 25 fps)', () => {
    expect(mouthAheadSamples(25)).toBe(960);
    expect(mouthAheadSamples(30)).toBe(800);
  });

  it('shows the speech mouth while a turn sounds, rest from the first frame after it stops (an interrupt too)', () => {
    const audio = new TurnAudio('t');
    audio.append(new Int16Array(48_000).fill(1000), open(0.7));
    audio.end();
    const player = new SpeechPlayer();
    player.start(audio);
    player.pull(new Int16Array(480));
    const animator = createAnimator({ seed: 1 });
    expect(faceState(player, 960, animator, 0)).toMatchObject({ speaking: true, mouth: { open: 0.7 } });
    player.stop(); // interrupted
    const after = faceState(player, 960, animator, 40);
    expect(after.speaking).toBe(false);
    expect(after.mouth).toEqual(REST_MOUTH);
  });
});
