import { describe, expect, it } from 'vitest';
import { SpeechQueue, type TextDecision } from './speech-queue.js';
import { ManualClock } from '../testing/manual-clock.js';
import type { QueueAnswer, TextChunk } from '../contract/types.js';

function setup(opts: { maxTurns?: number; maxCharacters?: number } = {}) {
  const clock = new ManualClock();
  /** Turns finalized by silence, as the owner hears of them (from the queue's timer only). */
  const silent: string[] = [];
  const q = new SpeechQueue<string>(
    { finalizedBySilence: (id) => silent.push(id) },
    { clock, autoFinalizeMs: 15_000, ...opts },
  );
  /** The answer alone, as the HTTP status needs it. */
  const add = (chunk: TextChunk): QueueAnswer => q.addText(chunk).answer;
  return { clock, q, silent, add };
}

describe('SpeechQueue', () => {
  it('plays final turns in the order of their first chunk', () => {
    const { q, add } = setup();
    expect(add({ turnId: 'a', text: 'one', isFinal: true })).toBe('queued');
    expect(add({ turnId: 'b', text: 'two', isFinal: true })).toBe('queued');
    expect(q.startHead()?.turnId).toBe('a');
    expect(q.startHead()).toBeUndefined(); // a is playing
    q.finishPlaying('a');
    expect(q.startHead()?.turnId).toBe('b');
  });

  it('accumulates non-final chunks and holds the turns behind a non-final turn', () => {
    const { q, add } = setup();
    add({ turnId: 'a', text: 'Hello ', isFinal: false });
    add({ turnId: 'b', text: 'later', isFinal: true });
    expect(q.startHead()).toBeUndefined();
    add({ turnId: 'a', text: 'world', isFinal: true });
    const turn = q.startHead();
    expect(turn?.turnId).toBe('a');
    expect(turn?.chunks).toEqual(['Hello ', 'world']);
  });

  it('tells its owner what to do with each chunk: speak it, and finish the turn on its final one', () => {
    const { q } = setup();
    const decisions: TextDecision[] = [
      q.addText({ turnId: 'a', text: 'x', isFinal: false }),
      q.addText({ turnId: 'a', text: 'y', isFinal: true }),
      q.addText({ turnId: 'a', text: 'z', isFinal: true }),
    ];
    expect(decisions).toEqual([
      { answer: 'queued', as: 'speak', final: false },
      { answer: 'queued', as: 'speak', final: true },
      { answer: 'turn_final' },
    ]);
    expect(q.startHead()?.turnId).toBe('a'); // final: the head may play now
  });

  it('refuses a chunk for a final turn, before and after it played', () => {
    const { q, add } = setup();
    add({ turnId: 'a', text: 'x', isFinal: true });
    expect(add({ turnId: 'a', text: 'more', isFinal: true })).toBe('turn_final');
    q.startHead();
    expect(add({ turnId: 'a', text: 'more', isFinal: false })).toBe('turn_final');
    q.finishPlaying('a');
    expect(add({ turnId: 'a', text: 'more', isFinal: true })).toBe('turn_final');
  });

  it('finalizes a turn 15 s after its last chunk, and tells its owner from its timer alone', () => {
    const { q, add, clock, silent } = setup();
    add({ turnId: 'a', text: 'x', isFinal: false });
    clock.advance(10_000);
    add({ turnId: 'a', text: 'y', isFinal: false }); // re-arms
    clock.advance(14_999);
    expect(q.startHead()).toBeUndefined();
    expect(silent).toEqual([]);
    clock.advance(1);
    expect(silent).toEqual(['a']);
    expect(q.startHead()?.chunks).toEqual(['x', 'y']);
    add({ turnId: 'b', text: 'x', isFinal: true }); // final by its chunk: the owner knows from the answer
    clock.advance(15_000);
    expect(silent).toEqual(['a']);
  });

  it('interrupt clears everything and later chunks of cleared turns are discarded', () => {
    const { q, add, clock } = setup();
    add({ turnId: 'a', text: 'x', isFinal: true });
    add({ turnId: 'b', text: 'y', isFinal: false });
    q.startHead();
    expect(q.interrupt()).toEqual(['a', 'b']);
    expect(q.startHead()).toBeUndefined();
    expect(add({ turnId: 'b', text: 'z', isFinal: true })).toBe('discarded');
    expect(q.addAudio('a', 'clip')).toBe('discarded');
    expect(clock.pendingTimers).toBe(0); // b's auto-finalize timer is gone
    expect(add({ turnId: 'c', text: 'new', isFinal: true })).toBe('queued');
    expect(q.startHead()?.turnId).toBe('c');
  });

  it('interrupt when idle clears nothing', () => {
    const { q } = setup();
    expect(q.interrupt()).toEqual([]);
  });

  it('interrupt frees the whole character budget', () => {
    const { q, add } = setup({ maxCharacters: 10 });
    add({ turnId: 'a', text: '1234567890', isFinal: false });
    expect(add({ turnId: 'b', text: '1', isFinal: true })).toBe('queue_full');
    q.interrupt();
    expect(add({ turnId: 'c', text: '1234567890', isFinal: true })).toBe('queued');
  });

  it('limits turns and characters', () => {
    const { q, add } = setup({ maxTurns: 2, maxCharacters: 10 });
    expect(add({ turnId: 'a', text: '12345', isFinal: true })).toBe('queued');
    expect(add({ turnId: 'b', text: '123456', isFinal: true })).toBe('queue_full');
    expect(add({ turnId: 'b', text: '12345', isFinal: false })).toBe('queued');
    expect(add({ turnId: 'c', text: '1', isFinal: true })).toBe('queue_full');
    expect(add({ turnId: 'b', text: '1', isFinal: true })).toBe('queue_full');
    q.startHead();
    q.finishPlaying('a'); // its 5 characters are free again, b's 5 still count
    expect(add({ turnId: 'b', text: '123456', isFinal: false })).toBe('queue_full');
    expect(add({ turnId: 'b', text: '1', isFinal: true })).toBe('queued');
  });

  it('an audio clip turns a waiting text turn into an audio turn whose text is the transcript', () => {
    const { q, add } = setup();
    add({ turnId: 'a', text: 'the words', isFinal: false });
    expect(q.addAudio('a', 'clip')).toBe('queued');
    expect(q.addText({ turnId: 'a', text: ' more words', isFinal: true })).toEqual({
      answer: 'queued',
      as: 'transcript', // kept for the turn's start, not spoken
      final: false,
    });
    const t = q.startHead();
    expect(t).toEqual({ turnId: 'a', kind: 'audio', chunks: ['the words', ' more words'], audio: 'clip' });
  });

  it('refuses audio for a turn already playing, and a second clip for an audio turn', () => {
    const { q, add } = setup();
    add({ turnId: 'a', text: 'x', isFinal: true });
    q.startHead();
    expect(q.addAudio('a', 'clip')).toBe('turn_playing');
    expect(q.addAudio('b', 'clip')).toBe('queued');
    expect(q.addAudio('b', 'clip2')).toBe('turn_final');
    q.finishPlaying('a');
    q.startHead();
    expect(add({ turnId: 'b', text: 'late transcript', isFinal: true })).toBe('turn_playing');
  });

  it('audio turns queue in order behind text turns', () => {
    const { q, add } = setup();
    add({ turnId: 't', text: 'x', isFinal: true });
    q.addAudio('u', 'clip');
    expect(q.startHead()?.turnId).toBe('t');
    q.finishPlaying('t');
    expect(q.startHead()).toMatchObject({ turnId: 'u', kind: 'audio', audio: 'clip' });
  });

  it('close cancels timers', () => {
    const { q, add, clock } = setup();
    add({ turnId: 'a', text: 'x', isFinal: false });
    q.close();
    expect(clock.pendingTimers).toBe(0);
  });
});
