/**
 * The animation stream is latest-wins: a frame is dropped, not queued, while the channel's buffer
 * holds HIGH_WATER_BYTES or more; control messages always go, and bufferedAmount (a call to
 * libwebrtc's network thread) is read only when the buffer could have reached the mark.
 */
import { ANIMATION_FRAME_BYTES, ANIMATION_PICK_BYTES } from '@mouthpiece/protocol';
import { describe, expect, it } from 'vitest';
import { HIGH_WATER_BYTES, LatestWins, type SendChannel } from './latest-wins.js';

/** A channel whose buffer the test fills and drains, counting the reads of bufferedAmount. */
function channel() {
  const sent: Array<string | Uint8Array> = [];
  let buffered = 0;
  let reads = 0;
  const ch: SendChannel & { sent: typeof sent; reads: () => number; drain(): void } = {
    sent,
    send(data) {
      sent.push(data);
      buffered += typeof data === 'string' ? data.length : data.byteLength;
    },
    get bufferedAmount() {
      reads++;
      return buffered;
    },
    reads: () => reads,
    drain: () => void (buffered = 0),
  };
  return ch;
}

const frame = (bytes = ANIMATION_FRAME_BYTES) => new Uint8Array(bytes);

describe('LatestWins', () => {
  it('drops stale frames while the buffer is high, and sends again once it drained', () => {
    const ch = channel();
    const out = new LatestWins(ch);
    const results: boolean[] = [];
    for (let i = 0; i < 8; i++) results.push(out.frame(frame(ANIMATION_FRAME_BYTES + ANIMATION_PICK_BYTES)));
    // two frames fill the buffer to the mark: the rest would wait behind them, stale on arrival
    expect(results).toEqual([true, true, false, false, false, false, false, false]);
    expect(out.dropped).toBe(6);
    expect(ch.sent).toHaveLength(2);
    ch.drain(); // the link caught up
    expect(out.frame(frame())).toBe(true);
    expect(ch.sent).toHaveLength(3);
  });

  it('control messages are never dropped, and count towards the buffer frames wait behind', () => {
    const ch = channel();
    const out = new LatestWins(ch);
    out.text(JSON.stringify({ type: 'word', turnId: 't1', text: 'hello', startMs: 0, endMs: 300 }));
    out.text(JSON.stringify({ type: 'speakingEnd', turnId: 't1', interrupted: false }));
    expect(ch.sent).toHaveLength(2);
    expect(out.frame(frame())).toBe(false); // behind the control messages still buffered
    ch.drain();
    expect(out.frame(frame())).toBe(true);
  });

  it('reads bufferedAmount only when the bytes sent since the last reading could reach the mark', () => {
    const ch = channel();
    const out = new LatestWins(ch);
    let sent = 0;
    for (let i = 0; i < 100; i++) {
      if (out.frame(frame())) sent++;
      ch.drain(); // a fast link: every frame leaves before the next
    }
    expect(sent).toBe(100);
    expect(ch.reads()).toBeGreaterThan(0);
    // the mark is two video frames: one reading every few face frames, not one per frame
    expect(ch.reads()).toBeLessThanOrEqual(
      Math.ceil(100 / Math.floor(HIGH_WATER_BYTES / ANIMATION_FRAME_BYTES)),
    );
  });
});
