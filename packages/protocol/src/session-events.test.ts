/**
 * The session events' SSE text: every event survives formatSessionEvent → an SSE parse →
 * parseSessionEvent unchanged, and what a newer or broken server sends is dropped, not guessed.
 */
import { describe, expect, it } from 'vitest';
import { formatSessionEvent, parseSessionEvent, type SessionEvent } from './session-events.js';

const EVENTS: SessionEvent[] = [
  { type: 'speakingStart', turnId: 't1' },
  { type: 'word', turnId: 't1', text: 'Grüße, "du"\nda', offsetMs: 420 },
  { type: 'speakingEnd', turnId: 't1', interrupted: true },
  { type: 'speakingEnd', turnId: 't2', interrupted: false },
  { type: 'turnFailed', turnId: 't3', code: 'voice_unavailable', message: 'the provider answered 503' },
  { type: 'viewer', state: 'connected' },
  { type: 'viewer', state: 'lost' },
  { type: 'sessionEnded', reason: 'idle_timeout' },
];

/** The fields of one SSE message as an EventSource reads them. */
function sse(text: string): { id: string; event: string; data: string } {
  expect(text.endsWith('\n\n')).toBe(true);
  const lines = text.slice(0, -2).split('\n');
  const field = (name: string) =>
    lines.filter((l) => l.startsWith(`${name}: `)).map((l) => l.slice(name.length + 2));
  expect(field('data')).toHaveLength(1); // one data line: JSON escapes every newline
  return { id: field('id')[0]!, event: field('event')[0]!, data: field('data')[0]! };
}

describe('session events', () => {
  it('round-trips every event through its SSE text', () => {
    EVENTS.forEach((e, i) => {
      const m = sse(formatSessionEvent(i + 1, e));
      expect(m.id).toBe(String(i + 1));
      expect(m.event).toBe(e.type);
      expect(JSON.parse(m.data)).not.toHaveProperty('type');
      expect(parseSessionEvent(m.event, m.data)).toEqual(e);
    });
  });

  it('drops unknown types and data of the wrong shape', () => {
    expect(parseSessionEvent('somethingNew', '{"turnId":"t"}')).toBeUndefined();
    expect(parseSessionEvent('speakingStart', 'not json')).toBeUndefined();
    expect(parseSessionEvent('speakingStart', '[]')).toBeUndefined();
    expect(parseSessionEvent('speakingStart', '{}')).toBeUndefined();
    expect(parseSessionEvent('word', '{"turnId":"t","text":"a","offsetMs":"5"}')).toBeUndefined();
    expect(parseSessionEvent('viewer', '{"state":"gone"}')).toBeUndefined();
  });

  it('fills what an older server left out', () => {
    expect(parseSessionEvent('speakingEnd', '{"turnId":"t"}')).toEqual({
      type: 'speakingEnd',
      turnId: 't',
      interrupted: false,
    });
    expect(parseSessionEvent('turnFailed', '{"turnId":"t"}')).toEqual({
      type: 'turnFailed',
      turnId: 't',
      code: 'unknown',
      message: '',
    });
    expect(parseSessionEvent('sessionEnded', '{}')).toEqual({ type: 'sessionEnded', reason: 'unknown' });
  });
});
