import { describe, expect, it } from 'vitest';
import { SpeechQueue, type QueueEvent } from './speech-queue.js';
import { ManualClock } from '../testing/manual-clock.js';

function setup(opts: { maxTurns?: number; maxCharacters?: number } = {}) {
  const clock = new ManualClock();
  const q = new SpeechQueue<string>({ clock, autoFinalizeMs: 15_000, ...opts });
  const events: QueueEvent[] = [];
  q.onEvent((e) => events.push(e));
  return { clock, q, events };
}

describe('SpeechQueue', () => {
  it('plays final turns in the order of their first chunk', () => {
    const { q } = setup();
    expect(q.addText({ turnId: 'a', text: 'one', isFinal: true })).toBe('queued');
    expect(q.addText({ turnId: 'b', text: 'two', isFinal: true })).toBe('queued');
    expect(q.startHead()?.turnId).toBe('a');
    expect(q.startHead()).toBeUndefined(); // a is playing
    q.finishPlaying('a');
    expect(q.startHead()?.turnId).toBe('b');
  });

  it('accumulates non-final chunks and holds the turns behind a non-final turn', () => {
    const { q, events } = setup();
    q.addText({ turnId: 'a', text: 'Hello ', isFinal: false });
    q.addText({ turnId: 'b', text: 'later', isFinal: true });
    expect(q.startHead()).toBeUndefined();
    q.addText({ turnId: 'a', text: 'world', isFinal: true });
    const turn = q.startHead();
    expect(turn?.turnId).toBe('a');
    expect(turn?.chunks).toEqual(['Hello ', 'world']);
    expect(events.filter((e) => e.type === 'chunk').map((e) => e.type === 'chunk' && e.index)).toEqual([
      0, 0, 1,
    ]);
  });

  it('emits ready when the head becomes playable', () => {
    const { q, events } = setup();
    q.addText({ turnId: 'a', text: 'x', isFinal: false });
    expect(events.some((e) => e.type === 'ready')).toBe(false);
    q.addText({ turnId: 'a', text: 'y', isFinal: true });
    expect(events.at(-1)).toEqual({ type: 'ready' });
  });

  it('refuses a chunk for a final turn, before and after it played', () => {
    const { q } = setup();
    q.addText({ turnId: 'a', text: 'x', isFinal: true });
    expect(q.addText({ turnId: 'a', text: 'more', isFinal: true })).toBe('turn_final');
    q.startHead();
    expect(q.addText({ turnId: 'a', text: 'more', isFinal: false })).toBe('turn_final');
    q.finishPlaying('a');
    expect(q.addText({ turnId: 'a', text: 'more', isFinal: true })).toBe('turn_final');
  });

  it('finalizes a turn 15 s after its last chunk', () => {
    const { q, clock } = setup();
    q.addText({ turnId: 'a', text: 'x', isFinal: false });
    clock.advance(10_000);
    q.addText({ turnId: 'a', text: 'y', isFinal: false }); // re-arms
    clock.advance(14_999);
    expect(q.startHead()).toBeUndefined();
    clock.advance(1);
    expect(q.startHead()?.chunks).toEqual(['x', 'y']);
  });

  it('interrupt clears everything and later chunks of cleared turns are discarded', () => {
    const { q, events, clock } = setup();
    q.addText({ turnId: 'a', text: 'x', isFinal: true });
    q.addText({ turnId: 'b', text: 'y', isFinal: false });
    q.startHead();
    expect(q.interrupt()).toEqual(['a', 'b']);
    expect(q.size).toBe(0);
    expect(q.queuedCharacters).toBe(0);
    expect(events.at(-1)).toEqual({ type: 'cleared', turnIds: ['a', 'b'] });
    expect(q.addText({ turnId: 'b', text: 'z', isFinal: true })).toBe('discarded');
    expect(q.addAudio('a', 'clip')).toBe('discarded');
    expect(clock.pendingTimers).toBe(0); // b's auto-finalize timer is gone
    expect(q.addText({ turnId: 'c', text: 'new', isFinal: true })).toBe('queued');
    expect(q.startHead()?.turnId).toBe('c');
  });

  it('interrupt when idle clears nothing and emits nothing', () => {
    const { q, events } = setup();
    expect(q.interrupt()).toEqual([]);
    expect(events).toEqual([]);
  });

  it('limits turns and characters', () => {
    const { q } = setup({ maxTurns: 2, maxCharacters: 10 });
    expect(q.addText({ turnId: 'a', text: '12345', isFinal: true })).toBe('queued');
    expect(q.addText({ turnId: 'b', text: '123456', isFinal: true })).toBe('queue_full');
    expect(q.addText({ turnId: 'b', text: '12345', isFinal: false })).toBe('queued');
    expect(q.addText({ turnId: 'c', text: '1', isFinal: true })).toBe('queue_full');
    expect(q.addText({ turnId: 'b', text: '1', isFinal: true })).toBe('queue_full');
    q.startHead();
    q.finishPlaying('a');
    expect(q.queuedCharacters).toBe(5);
    expect(q.addText({ turnId: 'b', text: '1', isFinal: true })).toBe('queued');
  });

  it('an audio clip turns a waiting text turn into an audio turn whose text is the transcript', () => {
    const { q, events } = setup();
    q.addText({ turnId: 'a', text: 'the words', isFinal: false });
    expect(q.addAudio('a', 'clip')).toBe('queued');
    expect(events).toContainEqual({ type: 'audio', turnId: 'a' });
    expect(q.addText({ turnId: 'a', text: ' more words', isFinal: true })).toBe('queued');
    const t = q.startHead();
    expect(t).toEqual({ turnId: 'a', kind: 'audio', chunks: ['the words', ' more words'], audio: 'clip' });
  });

  it('refuses audio for a turn already playing, and a second clip for an audio turn', () => {
    const { q } = setup();
    q.addText({ turnId: 'a', text: 'x', isFinal: true });
    q.startHead();
    expect(q.addAudio('a', 'clip')).toBe('turn_playing');
    expect(q.addAudio('b', 'clip')).toBe('queued');
    expect(q.addAudio('b', 'clip2')).toBe('turn_final');
    q.finishPlaying('a');
    q.startHead();
    expect(q.addText({ turnId: 'b', text: 'late transcript', isFinal: true })).toBe('turn_playing');
  });

  it('audio turns queue in order behind text turns', () => {
    const { q } = setup();
    q.addText({ turnId: 't', text: 'x', isFinal: true });
    q.addAudio('u', 'clip');
    expect(q.startHead()?.turnId).toBe('t');
    q.finishPlaying('t');
    expect(q.startHead()).toMatchObject({ turnId: 'u', kind: 'audio', audio: 'clip' });
  });

  it('close cancels timers', () => {
    const { q, clock } = setup();
    q.addText({ turnId: 'a', text: 'x', isFinal: false });
    q.close();
    expect(clock.pendingTimers).toBe(0);
  });
});
