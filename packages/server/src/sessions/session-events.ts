/**
 * The session event log behind `GET /v1/avatar-session/{id}/events` (routes/session-events.ts):
 * per live session, the engine's speech events and the viewer's comings and goings as the
 * protocol's `SessionEvent`s (packages/protocol/src/session-events.ts), numbered 1, 2, … in the
 * order the engine produced them, kept in a bounded ring for `Last-Event-ID` replay, and handed to
 * the session's open streams. A log is made when the registry makes a session active; when the
 * registry has ended and released it, `sessionEnded` goes to every stream, the streams are closed
 * and the log is dropped (a later request is the token guard's 410).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { EngineEvent, EngineHost } from '@mouthpiece/engine/host';
import {
  type EndReason,
  MAX_EVENT_STREAMS_PER_SESSION,
  SESSION_EVENTS_HEARTBEAT_MS,
  SESSION_EVENTS_REPLAY_COUNT,
  SESSION_EVENTS_REPLAY_MS,
  type SessionEvent,
} from '@mouthpiece/protocol';
import type { Clock } from '../clock.js';
import type { SessionRegistry } from './session-registry.js';

/** One logged event. */
export interface LoggedEvent {
  id: number;
  event: SessionEvent;
}

/** What a stream receives: events as they happen, then `end` once (after `sessionEnded`). */
export interface EventSubscriber {
  event(e: LoggedEvent): void;
  end(): void;
}

/** Beyond the replay minimum, a ring also stops at this many events… */
export const RING_MAX_EVENTS = 4096;
/** …and at about this many bytes of event data: a session's log is bounded whatever it says. */
export const RING_MAX_BYTES = 512 * 1024;

/** How a stream is kept (routes/session-events.ts): tests shorten the heartbeat and the buffer bound. */
export interface EventStreamOptions {
  heartbeatMs: number;
  /** Bytes a stream's socket may hold unsent before the stream is cut (a client that does not read). */
  maxBufferedBytes: number;
}

export const DEFAULT_EVENT_STREAM_OPTIONS: EventStreamOptions = {
  heartbeatMs: SESSION_EVENTS_HEARTBEAT_MS,
  maxBufferedBytes: 1024 * 1024,
};

export type OpenResult =
  | { ok: true; replay: LoggedEvent[]; close: () => void }
  /** The session has no log here: not active on this node (ended, or never). */
  | { ok: false; reason: 'unknown' }
  /** MAX_EVENT_STREAMS_PER_SESSION streams are open already. */
  | { ok: false; reason: 'limit' }
  /** `lastEventId` is beyond the last id this session issued. */
  | { ok: false; reason: 'future'; lastId: number };

interface Entry extends LoggedEvent {
  at: number;
  bytes: number;
}

/** One session's numbered events and its subscribers. */
class SessionLog {
  #nextId = 1;
  readonly #ring: Entry[] = [];
  #bytes = 0;
  readonly subscribers = new Set<EventSubscriber>();
  /** Viewers whose media is connected (a viewer event says `lost` when the last one goes). */
  readonly viewers = new Set<string>();

  constructor(
    readonly sessionId: string,
    readonly clock: Clock,
    readonly log: FastifyBaseLogger,
  ) {}

  get lastId(): number {
    return this.#nextId - 1;
  }

  append(event: SessionEvent): void {
    const at = this.clock.now();
    const entry: Entry = { id: this.#nextId++, event, at, bytes: JSON.stringify(event).length };
    this.#ring.push(entry);
    this.#bytes += entry.bytes;
    this.#trim(at);
    const logged: LoggedEvent = { id: entry.id, event };
    for (const s of [...this.subscribers]) {
      try {
        s.event(logged);
      } catch (err) {
        this.log.warn({ err, sessionId: this.sessionId }, 'session event subscriber failed');
      }
    }
  }

  /** Kept events newer than `lastId` (all kept events when `lastId` is older than the ring). */
  since(lastId: number): LoggedEvent[] {
    const first = this.#ring.findIndex((e) => e.id > lastId);
    if (first < 0) return [];
    return this.#ring.slice(first).map(({ id, event }) => ({ id, event }));
  }

  /** Keeps the last SESSION_EVENTS_REPLAY_COUNT events, and younger ones within the bounds. */
  #trim(now: number): void {
    let drop = 0;
    while (this.#ring.length - drop > SESSION_EVENTS_REPLAY_COUNT) {
      const oldest = this.#ring[drop]!;
      const keptAfter = this.#ring.length - drop;
      const young = now - oldest.at <= SESSION_EVENTS_REPLAY_MS;
      if (young && keptAfter <= RING_MAX_EVENTS && this.#bytes <= RING_MAX_BYTES) break;
      this.#bytes -= oldest.bytes;
      drop++;
    }
    if (drop > 0) this.#ring.splice(0, drop);
  }

  end(): void {
    for (const s of [...this.subscribers]) {
      try {
        s.end();
      } catch (err) {
        this.log.warn({ err, sessionId: this.sessionId }, 'session event subscriber failed');
      }
    }
    this.subscribers.clear();
  }
}

/** Engine events as the protocol's session events (undefined: not one for backends). */
function toSessionEvent(log: SessionLog, e: EngineEvent): SessionEvent | undefined {
  switch (e.type) {
    case 'speakingStart':
      return { type: 'speakingStart', turnId: e.turnId };
    case 'word':
      return { type: 'word', turnId: e.turnId, text: e.text, offsetMs: e.offsetMs };
    case 'speakingEnd':
      return { type: 'speakingEnd', turnId: e.turnId, interrupted: e.interrupted };
    case 'turnFailed':
      return { type: 'turnFailed', turnId: e.turnId, code: e.reason, message: e.detail };
    case 'viewerConnected':
      if (log.viewers.has(e.viewerId)) return undefined;
      log.viewers.add(e.viewerId);
      return { type: 'viewer', state: 'connected' };
    case 'viewerDisconnected':
      // a viewer replaced before its media connected was never announced
      if (!log.viewers.delete(e.viewerId) || log.viewers.size > 0) return undefined;
      return { type: 'viewer', state: 'lost' };
    case 'voiceRequest':
    case 'audioTurnEnded': // the audio socket's playbackFinished; backends here get speakingEnd
    case 'sessionFailed': // the registry ends the session: sessionEnded {reason: engine_failed}
      return undefined;
  }
}

export interface SessionEventsDeps {
  engine: Pick<EngineHost, 'onEvent'>;
  registry: Pick<SessionRegistry, 'onTransition' | 'onEnded'>;
  clock: Clock;
  log: FastifyBaseLogger;
  streams?: Partial<EventStreamOptions> | undefined;
}

/** Every live session's event log on this node. */
export class SessionEvents {
  readonly #logs = new Map<string, SessionLog>();
  readonly #offs: Array<() => void>;
  readonly streamOptions: Readonly<EventStreamOptions>;

  constructor(d: SessionEventsDeps) {
    this.streamOptions = Object.freeze({ ...DEFAULT_EVENT_STREAM_OPTIONS, ...d.streams });
    this.#offs = [
      d.registry.onTransition((t) => {
        if (t.to === 'active') this.#logs.set(t.sessionId, new SessionLog(t.sessionId, d.clock, d.log));
      }),
      // after the engine closed the session: its last events are in the log before this one
      d.registry.onEnded((sessionId, reason) => {
        const log = this.#logs.get(sessionId);
        if (!log) return;
        this.#logs.delete(sessionId);
        log.append({ type: 'sessionEnded', reason });
        log.end();
      }),
      d.engine.onEvent((e) => {
        if (!('sessionId' in e)) return;
        const log = this.#logs.get(e.sessionId);
        if (!log) return;
        const event = toSessionEvent(log, e);
        if (event) log.append(event);
      }),
    ];
  }

  /**
   * Subscribes a stream to a session's events: the kept events after `lastEventId` (none when it
   * is undefined; all kept when it is older than the ring, or 0), then each new one. Synchronous,
   * so nothing is missed or repeated between the replay and the first live event.
   */
  open(sessionId: string, lastEventId: number | undefined, subscriber: EventSubscriber): OpenResult {
    const log = this.#logs.get(sessionId);
    if (!log) return { ok: false, reason: 'unknown' };
    if (log.subscribers.size >= MAX_EVENT_STREAMS_PER_SESSION) return { ok: false, reason: 'limit' };
    if (lastEventId !== undefined && lastEventId > log.lastId)
      return { ok: false, reason: 'future', lastId: log.lastId };
    const replay = lastEventId === undefined ? [] : log.since(lastEventId);
    log.subscribers.add(subscriber);
    return { ok: true, replay, close: () => void log.subscribers.delete(subscriber) };
  }

  /** Open streams of a session on this node. */
  streams(sessionId: string): number {
    return this.#logs.get(sessionId)?.subscribers.size ?? 0;
  }

  /**
   * Stops following the engine and the registry and ends every open stream, after a
   * `sessionEnded {reason}` when a reason is given (the server going down: its sessions end
   * `server_restart`). Idempotent. The HTTP server waits for open streams before it closes, so
   * this runs as it starts closing (http-app.ts).
   */
  close(reason?: EndReason): void {
    for (const off of this.#offs.splice(0)) off();
    for (const log of this.#logs.values()) {
      if (reason) log.append({ type: 'sessionEnded', reason });
      log.end();
    }
    this.#logs.clear();
  }
}
