import { describe, expect, it } from 'vitest';
import { REST_MOUTH, Viseme } from '../face-state.js';
import type { MouthTrack } from '../lipsync/mouth-track.js';
import { Lookahead } from '../speech/lookahead.js';
import { msToSamples } from '../clock/media-clock.js';
import { JOIN_RAMP_MS } from './join-smoother.js';
import { SpeechPlayer, type PlayerEvent } from './speech-player.js';
import { TurnAudio } from './turn-audio.js';

/** A mouth track that opens the mouth to `open` everywhere. */
const track = (open: number): MouthTrack => ({
  durationSamples: 0,
  at: () => ({ ...REST_MOUTH, open }),
  visemeAt: () => Viseme.X,
  emphasisAt: () => 0,
});
const pcm = (n: number, v = 1) => new Int16Array(n).fill(v);
const CHUNK = 480;
/** Samples after a join that the player's join smoothing may change (join-smoother.ts). */
const RAMP = msToSamples(JOIN_RAMP_MS);

function stream(highWater = 2) {
  const lookahead = new Lookahead(highWater);
  const audio = new TurnAudio('t', lookahead);
  return { lookahead, audio };
}

/**
 * Pulls `chunks` 10 ms chunks; returns the player's events (types) and how many chunks sounded
 * (more than a join's ramp of samples not silent).
 */
function pull(player: SpeechPlayer, chunks: number) {
  const out = new Int16Array(CHUNK);
  const events: PlayerEvent[] = [];
  let sounding = 0;
  for (let i = 0; i < chunks; i++) {
    events.push(...player.pull(out));
    if (out.filter((s) => s !== 0).length > RAMP) sounding++;
  }
  return { types: events.map((e) => e.type), events, sounding };
}

describe('TurnAudio stream', () => {
  it('pieces filled out of order play in slot order; the turn ends after its last reserved slot', () => {
    const { audio } = stream();
    const first = audio.reserve();
    const second = audio.reserve();
    audio.end();
    second.set(pcm(CHUNK, 2), track(0));
    expect(audio.read(0)).toEqual({ kind: 'wait' }); // slot 0 is not there yet
    first.set(pcm(CHUNK, 1), track(0));
    const player = new SpeechPlayer();
    player.start(audio);
    const out = new Int16Array(CHUNK);
    player.pull(out);
    expect(out[CHUNK / 2]).toBe(1); // between the join ramps (join-smoother.ts)
    expect(player.pull(out).map((e) => e.type)).toEqual(['speakingEnd', 'done']); // at its last sample
    expect(out[CHUNK / 2]).toBe(2);
  });

  it('streamed audio plays as it arrives; the player waits at its end until more comes or it is finished', () => {
    const { audio } = stream();
    const w = audio.reserve();
    audio.end();
    const player = new SpeechPlayer();
    player.start(audio);
    w.stream(pcm(CHUNK), track(0.5));
    expect(pull(player, 3)).toMatchObject({ types: ['speakingStart'], sounding: 1 });
    w.stream(pcm(CHUNK / 2), track(0.5));
    expect(player.playing).toBe('t');
    expect(pull(player, 1).sounding).toBe(1);
    w.finish();
    expect(pull(player, 1).types).toEqual(['speakingEnd', 'done']);
  });

  it('a late mouth track: the player shows it from then on', () => {
    const { audio } = stream();
    const w = audio.reserve();
    w.set(pcm(CHUNK * 10), track(0.2));
    audio.end();
    const player = new SpeechPlayer();
    player.start(audio);
    pull(player, 1);
    expect(player.mouthAt(0)?.mouth.open).toBe(0.2);
    w.setMouth(track(0.8), [{ text: 'late', startSample: CHUNK * 3, endSample: CHUNK * 4 }]);
    expect(player.mouthAt(0)?.mouth.open).toBe(0.8);
    expect(pull(player, 4).events).toContainEqual({
      type: 'word',
      turnId: 't',
      text: 'late',
      startMs: 30,
      endMs: 40,
    });
  });

  it('fail: pieces already made play, then the turn ends with speakingEnd and failed', () => {
    const { audio } = stream();
    audio.reserve().set(pcm(CHUNK), track(0));
    audio.reserve(); // never made
    audio.fail(Object.assign(new Error('provider said no'), { reason: 'rate_limited' }));
    const player = new SpeechPlayer();
    player.start(audio);
    expect(pull(player, 2).events).toEqual([
      { type: 'speakingStart', turnId: 't' },
      { type: 'speakingEnd', turnId: 't', interrupted: false },
      { type: 'failed', turnId: 't', reason: 'rate_limited', detail: 'provider said no' },
      { type: 'done', turnId: 't' },
    ]);
  });

  it('pieces count against the high-water mark until played out, and playing one wakes whoever waits', () => {
    const { audio, lookahead } = stream(2);
    let woken = 0;
    lookahead.onLow(() => woken++);
    audio.reserve().set(pcm(CHUNK), track(0));
    const w = audio.reserve();
    w.stream(pcm(CHUNK), track(0)); // a streaming piece counts from its first audio
    w.stream(pcm(CHUNK), track(0)); // and only once
    expect(lookahead.buffered).toBe(2);
    const player = new SpeechPlayer();
    player.start(audio);
    pull(player, 1);
    expect(lookahead.buffered).toBe(1);
    expect(woken).toBe(1);
    pull(player, 2);
    expect(lookahead.buffered).toBe(1); // still streaming: not consumed yet
    w.finish();
    audio.end();
    pull(player, 1);
    expect(lookahead.buffered).toBe(0);
  });

  it('interrupt mid-stream: the player stops, the stream closes, releases what it held, and later writes are ignored', () => {
    const { audio, lookahead } = stream(3);
    audio.reserve().set(pcm(CHUNK * 4), track(0));
    audio.reserve().set(pcm(CHUNK), track(0));
    const w = audio.reserve();
    w.stream(pcm(CHUNK), track(0));
    const player = new SpeechPlayer();
    player.start(audio);
    pull(player, 1);
    expect(lookahead.buffered).toBe(3);
    expect(player.stop()).toBe('t');
    audio.close(); // the session cancels the turn (text-turn.ts cancel)
    expect(lookahead.buffered).toBe(0);
    expect(audio.closed).toBe(true);
    w.stream(pcm(CHUNK), track(0));
    w.finish();
    audio.reserve().set(pcm(CHUNK), track(0));
    expect(lookahead.buffered).toBe(0);
    expect(pull(player, 1).types).toEqual([]);
  });
});
