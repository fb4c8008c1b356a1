/**
 * The per-session event log: engine events in, numbered session events out to subscribers, the
 * ring's bounds (count, age, bytes), viewer lost only when the last viewer goes, and the end.
 */
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { EngineEvent } from '@mouthpiece/engine/host';
import { ManualClock } from '@mouthpiece/engine/testing';
import {
  MAX_EVENT_STREAMS_PER_SESSION,
  SESSION_EVENTS_REPLAY_COUNT,
  SESSION_EVENTS_REPLAY_MS,
  type EndReason,
} from '@mouthpiece/protocol';
import type { SessionTransition } from './session-registry.js';
import { RING_MAX_BYTES, SessionEvents, type EventSubscriber, type LoggedEvent } from './session-events.js';

/** The engine and registry as the log sees them: listeners the test calls. */
function setup() {
  const clock = new ManualClock();
  const engine = new Set<(e: EngineEvent) => void>();
  const transitions = new Set<(t: SessionTransition) => void>();
  const ended = new Set<(id: string, reason: EndReason) => void>();
  const events = new SessionEvents({
    engine: { onEvent: (l) => (engine.add(l), () => engine.delete(l)) },
    registry: {
      onTransition: (l) => (transitions.add(l), () => transitions.delete(l)),
      onEnded: (l) => (ended.add(l), () => ended.delete(l)),
    },
    clock,
    log: pino({ level: 'silent' }),
  });
  return {
    clock,
    events,
    activate: (sessionId: string) =>
      transitions.forEach((l) => l({ sessionId, from: 'none', to: 'active', reason: 'created' })),
    emit: (e: EngineEvent) => engine.forEach((l) => l(e)),
    end: (sessionId: string, reason: EndReason) => ended.forEach((l) => l(sessionId, reason)),
    listeners: () => engine.size + transitions.size + ended.size,
  };
}

function subscriber() {
  const got: LoggedEvent[] = [];
  let ends = 0;
  const s: EventSubscriber = { event: (e) => got.push(e), end: () => ends++ };
  return { s, got, ends: () => ends };
}

const word = (sessionId: string, i: number, text = `w${i}`): EngineEvent => ({
  type: 'word',
  sessionId,
  turnId: 't',
  text,
  offsetMs: i,
});

describe('SessionEvents', () => {
  it('numbers each session’s events from 1, hands them to its subscribers only, and ends them', () => {
    const h = setup();
    h.activate('a');
    h.activate('b');
    const a = subscriber();
    const b = subscriber();
    expect(h.events.open('a', undefined, a.s).ok).toBe(true);
    expect(h.events.open('b', undefined, b.s).ok).toBe(true);
    h.emit({ type: 'speakingStart', sessionId: 'a', turnId: 't' });
    h.emit({ type: 'turnFailed', sessionId: 'b', turnId: 'u', reason: 'voice_unavailable', detail: '503' });
    h.emit({ type: 'voiceRequest', provider: 'x' });
    h.emit({ type: 'speakingStart', sessionId: 'unknown', turnId: 't' });
    h.end('a', 'idle_timeout');
    expect(a.got).toEqual([
      { id: 1, event: { type: 'speakingStart', turnId: 't' } },
      { id: 2, event: { type: 'sessionEnded', reason: 'idle_timeout' } },
    ]);
    expect(a.ends()).toBe(1);
    expect(b.got).toEqual([
      { id: 1, event: { type: 'turnFailed', turnId: 'u', code: 'voice_unavailable', message: '503' } },
    ]);
    expect(b.ends()).toBe(0);
    // the ended session's log is gone; its events are no longer taken
    expect(h.events.open('a', undefined, subscriber().s)).toEqual({ ok: false, reason: 'unknown' });
    h.events.close();
    expect(b.ends()).toBe(1);
    expect(h.listeners()).toBe(0);
  });

  it('says a viewer is lost only when the last connected one goes', () => {
    const h = setup();
    h.activate('a');
    const a = subscriber();
    h.events.open('a', undefined, a.s);
    const v = (type: 'viewerConnected' | 'viewerDisconnected', viewerId: string) =>
      h.emit({ type, sessionId: 'a', viewerId });
    v('viewerConnected', 'v1');
    v('viewerConnected', 'v1'); // the same one again: nothing new
    v('viewerDisconnected', 'v0'); // replaced before it ever connected: nothing to say
    v('viewerConnected', 'v2');
    v('viewerDisconnected', 'v1');
    v('viewerDisconnected', 'v2');
    expect(a.got.map((e) => e.event)).toEqual([
      { type: 'viewer', state: 'connected' },
      { type: 'viewer', state: 'connected' },
      { type: 'viewer', state: 'lost' },
    ]);
  });

  it('keeps at least the last 256 events, and younger ones within the bounds', () => {
    const h = setup();
    h.activate('a');
    for (let i = 0; i < 300; i++) h.emit(word('a', i));
    const replay = (last: number) => {
      const r = h.events.open('a', last, subscriber().s);
      if (!r.ok) throw new Error(r.reason);
      r.close();
      return r.replay.map((e) => e.id);
    };
    expect(replay(0)).toHaveLength(300); // all within 5 minutes
    expect(replay(297)).toEqual([298, 299, 300]);
    h.clock.advance(SESSION_EVENTS_REPLAY_MS + 1);
    h.emit(word('a', 300));
    const kept = replay(0);
    expect(kept).toHaveLength(SESSION_EVENTS_REPLAY_COUNT);
    expect(kept[0]).toBe(301 - SESSION_EVENTS_REPLAY_COUNT + 1);
    expect(replay(3)).toEqual(kept); // older than the ring: everything kept
    expect(replay(301)).toEqual([]);
    expect(h.events.open('a', 302, subscriber().s)).toEqual({ ok: false, reason: 'future', lastId: 301 });
  });

  it('bounds a ring by bytes, never below the count minimum', () => {
    const kept = (size: number) => {
      const h = setup();
      h.activate('a');
      for (let i = 0; i < 1000; i++) h.emit(word('a', i, 'x'.repeat(size)));
      const r = h.events.open('a', 0, subscriber().s);
      if (!r.ok) throw new Error(r.reason);
      expect(r.replay.at(-1)!.id).toBe(1000);
      return { n: r.replay.length, bytes: r.replay.reduce((n, e) => n + JSON.stringify(e.event).length, 0) };
    };
    const medium = kept(1000); // 1 MB said: bounded by bytes
    expect(medium.bytes).toBeLessThanOrEqual(RING_MAX_BYTES);
    expect(medium.n).toBeGreaterThan(SESSION_EVENTS_REPLAY_COUNT);
    expect(medium.n).toBeLessThan(1000);
    expect(kept(4000).n).toBe(SESSION_EVENTS_REPLAY_COUNT); // 256 of these pass the bytes: the minimum holds
  });

  it(`refuses a stream over ${MAX_EVENT_STREAMS_PER_SESSION} per session; a closed one frees its place`, () => {
    const h = setup();
    h.activate('a');
    const opened = [];
    for (let i = 0; i < MAX_EVENT_STREAMS_PER_SESSION; i++) {
      const r = h.events.open('a', undefined, subscriber().s);
      if (!r.ok) throw new Error(r.reason);
      opened.push(r);
    }
    expect(h.events.open('a', undefined, subscriber().s)).toEqual({ ok: false, reason: 'limit' });
    opened[0]!.close();
    expect(h.events.streams('a')).toBe(MAX_EVENT_STREAMS_PER_SESSION - 1);
    expect(h.events.open('a', undefined, subscriber().s).ok).toBe(true);
  });

  it('a subscriber that throws costs the others nothing', () => {
    const h = setup();
    h.activate('a');
    const good = subscriber();
    h.events.open('a', undefined, {
      event: () => {
        throw new Error('broken');
      },
      end: () => undefined,
    });
    h.events.open('a', undefined, good.s);
    h.emit({ type: 'speakingStart', sessionId: 'a', turnId: 't' });
    expect(good.got).toHaveLength(1);
  });
});
