/**
 * The registry of sessions: creation under limits, the in-memory idle clock (keep-alive never
 * writes to SQLite), max duration, ending by any path with every resource released, retention
 * then purge, revocation watch and engine failure handling.
 *
 * A live session's state is one field, `phase` (none → active → ended), moved only by
 * `#transition()`, which checks the table, logs `from -> to` once and tells the listeners. Store
 * writes follow the state; a failed write never undoes it or throws out of an end: it is logged
 * and retried (see end-writer.ts). Nothing here waits for the store except create (the record
 * must exist before its id is handed out) and reads of sessions no longer live.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { EndReason } from '@mouthpiece/protocol';
import type { EngineHost } from '@mouthpiece/engine/host';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { ApiError } from '../errors.js';
import type { Metrics } from '../metrics.js';
import type {
  CredentialRecord,
  SessionInsertResult,
  SessionRecord,
  Stores,
  Usage,
} from '../storage/ports.js';
import { newLive, viewOf, type CreateSessionInput, type Live } from './live-session.js';
import { transition, type SessionPhase } from './session-state.js';
import { EndWriter } from './end-writer.js';
import { followEngineEvents } from './engine-events.js';
import { RevocationWatch } from './revocation-watch.js';
import { UsageRecorder } from './usage-recorder.js';

export type SessionTransition = { sessionId: string; from: SessionPhase; to: SessionPhase; reason: string };

const PURGE_INTERVAL_MS = 60_000;

const engineUnavailable = () => new ApiError('ENGINE_UNAVAILABLE', undefined, { 'Retry-After': '5' });

export function newId(bytes = 16): string {
  return randomBytes(bytes).toString('base64url');
}

/** Session ids are 22 base64url characters (128 bits); anything else is not an id. */
export const SESSION_ID_RE = /^[A-Za-z0-9_-]{22}$/;

export class SessionRegistry {
  readonly #stores: Stores;
  readonly #engine: EngineHost;
  readonly #clock: Clock;
  readonly #config: Readonly<Config>;
  readonly #log: FastifyBaseLogger;
  readonly #metrics: Metrics;
  readonly #live = new Map<string, Live>();
  #purgeTimer: unknown;
  readonly #revocations: RevocationWatch;
  #closed = false;
  readonly #offEngine: () => void;
  readonly #endedListeners = new Set<(sessionId: string, reason: EndReason) => void>();
  readonly #transitionListeners = new Set<(t: SessionTransition) => void>();
  readonly #usage: UsageRecorder;
  readonly #ends: EndWriter;

  constructor(deps: {
    stores: Stores;
    engine: EngineHost;
    clock: Clock;
    config: Readonly<Config>;
    log: FastifyBaseLogger;
    metrics: Metrics;
  }) {
    this.#stores = deps.stores;
    this.#engine = deps.engine;
    this.#clock = deps.clock;
    this.#config = deps.config;
    this.#log = deps.log;
    this.#metrics = deps.metrics;
    this.#usage = new UsageRecorder(deps.stores.usage, deps.log);
    this.#ends = new EndWriter(deps.stores.sessions, deps.clock, deps.log, (id) => {
      // a retried end landed: the store answers 410 for it now, the live entry can go
      if (this.#live.get(id)?.released) this.#live.delete(id);
    });
    this.#offEngine = followEngineEvents(deps.engine, {
      log: deps.log,
      metrics: deps.metrics,
      isLive: (id) => this.#live.has(id),
      failed: (id) => this.#engineFailed(id),
    });
    this.#schedulePurge();
    this.#revocations = new RevocationWatch({
      credentials: deps.stores.credentials,
      clock: deps.clock,
      log: deps.log,
      liveCredentials: () => [...this.#live.values()].map((l) => l.record.credentialId),
      endAllFor: (id) => this.endAllForCredential(id, EndReason.CREDENTIAL_REVOKED),
    });
  }

  /**
   * Creates a session under the server's and the credential's limits. Either it completes (engine
   * session, stored record, timers) or it leaves nothing behind.
   */
  async create(input: CreateSessionInput): Promise<SessionRecord> {
    this.#admit(input.credential);
    const live = this.#reserve(input);
    const { record } = live;
    try {
      await this.#engine.createSession({
        sessionId: record.id,
        avatarId: record.avatarId,
        voiceId: record.voiceId,
        voiceSpeed: record.voiceSpeed,
        ...(input.background ? { background: input.background } : {}),
      });
    } catch (err) {
      this.#live.delete(record.id);
      this.#log.error({ err }, 'engine could not create a session');
      throw engineUnavailable();
    }
    let stored: SessionInsertResult;
    try {
      stored = await this.#stores.sessions.insert(record);
    } catch (err) {
      await this.#abandon(record.id);
      this.#log.error({ err, sessionId: record.id }, 'storing a new session failed');
      throw new ApiError(
        'STORAGE_UNAVAILABLE',
        'Storage is unavailable (locked or failing); the session was not created, retry in a moment',
        { 'Retry-After': '2' },
      );
    }
    if (!stored.ok) {
      // the store counts every writer's sessions (in cluster mode, every node's): over the limit
      await this.#abandon(record.id);
      throw new ApiError(
        'SESSION_LIMIT',
        'This credential holds all the sessions it may at once (counted across the cluster)',
        { 'Retry-After': '5' },
      );
    }
    if (live.engineFailed) {
      // its engine died while the store was written: the stored record ends, it never goes active
      await this.#abandon(record.id);
      void this.#ends.write(record.id, EndReason.ENGINE_FAILED, this.#clock.now());
      throw engineUnavailable();
    }
    this.recordUsage(record.credentialId, { sessionsCreated: 1 });
    this.#transition(live, 'active', 'created');
    live.maxTimer = this.#clock.setTimeout(
      () => void this.end(record.id, EndReason.MAX_DURATION),
      record.expiresAt - record.createdAt,
    );
    this.touch(record.id);
    this.#metrics.sessionsCreated.inc();
    return viewOf(live)!;
  }

  /** The engine lost a session: an active one ends, one being created aborts when its create resumes. */
  #engineFailed(sessionId: string): void {
    const live = this.#live.get(sessionId);
    if (live?.phase === 'none') live.engineFailed = true;
    else void this.end(sessionId, EndReason.ENGINE_FAILED);
  }

  /** Nothing of a create that failed is left behind: the engine session and the slot go. */
  async #abandon(sessionId: string): Promise<void> {
    this.#live.delete(sessionId);
    await this.#engine.closeSession(sessionId, 'not_created').catch(() => undefined);
  }

  /** 503 when the server is full, 429 when the credential holds all the sessions it may. */
  #admit(credential: CredentialRecord): void {
    if (this.#count(() => true) >= this.#config.maxSessions)
      throw new ApiError('SERVER_BUSY', undefined, { 'Retry-After': '5' });
    if (this.countActiveFor(credential.id) >= credential.limits.maxSessions)
      throw new ApiError(
        'SESSION_LIMIT',
        `This credential may hold at most ${credential.limits.maxSessions} sessions at once`,
        { 'Retry-After': '5' },
      );
  }

  /** A new live entry in phase `none`: it holds a slot (the limits count it) while the engine starts. */
  #reserve(input: CreateSessionInput): Live {
    const live = newLive(input, { id: newId(), viewerToken: newId(), now: this.#clock.now() });
    this.#live.set(live.record.id, live);
    return live;
  }

  /** The stored record (active or ended within retention), or undefined. */
  async get(sessionId: string): Promise<SessionRecord | undefined> {
    const live = this.#live.get(sessionId);
    if (live) return viewOf(live);
    return await this.#stores.sessions.get(sessionId);
  }

  /** The plan limits of an active session's credential. */
  limitsOf(sessionId: string): CredentialRecord['limits'] | undefined {
    return this.#live.get(sessionId)?.limits;
  }

  /** The session's visualConfig.background while it is live on this node. */
  backgroundOf(sessionId: string): string | undefined {
    return this.#live.get(sessionId)?.background;
  }

  isActive(sessionId: string): boolean {
    return this.#live.get(sessionId)?.phase === 'active';
  }

  /** Refreshes the idle clock (in memory only). */
  touch(sessionId: string): void {
    const live = this.#live.get(sessionId);
    if (live?.phase !== 'active') return;
    this.#clock.clearTimeout(live.idleTimer);
    live.idleTimer = this.#clock.setTimeout(
      () => void this.end(sessionId, EndReason.IDLE_TIMEOUT),
      this.#config.idleTimeoutMs,
    );
  }

  listActive(): SessionRecord[] {
    return [...this.#live.values()].filter((l) => l.phase === 'active').map((l) => viewOf(l)!);
  }

  /** Sessions of a credential that hold a slot (active, or being created). */
  countActiveFor(credentialId: string): number {
    return this.#count((l) => l.record.credentialId === credentialId);
  }

  #count(pred: (l: Live) => boolean): number {
    let n = 0;
    for (const l of this.#live.values()) if (l.phase !== 'ended' && pred(l)) n++;
    return n;
  }

  /**
   * Ends an active session and releases everything it holds; false when it was not active. Never
   * rejects: the session ends in memory whatever the store or the engine answer.
   */
  async end(sessionId: string, reason: EndReason): Promise<boolean> {
    const live = this.#live.get(sessionId);
    if (!live || live.phase === 'none') return false;
    if (live.phase === 'ended') {
      await live.released;
      return false;
    }
    this.#transition(live, 'ended', reason);
    live.released = this.#release(live, reason);
    await live.released;
    return true;
  }

  async endAllForCredential(credentialId: string, reason: EndReason): Promise<number> {
    const ids = [...this.#live.values()].filter(
      (l) => l.record.credentialId === credentialId && l.phase === 'active',
    );
    const results = await Promise.all(ids.map((l) => this.end(l.record.id, reason)));
    return results.filter(Boolean).length;
  }

  /** Checks for credentials revoked by another writer (the CLI) and ends their sessions. */
  checkRevocations(): Promise<number> {
    return this.#revocations.check();
  }

  /** Called on every state change of a session (after it happened). */
  onTransition(listener: (t: SessionTransition) => void): () => void {
    this.#transitionListeners.add(listener);
    return () => this.#transitionListeners.delete(listener);
  }

  /** Called after a session ended and its resources were released. */
  onEnded(listener: (sessionId: string, reason: EndReason) => void): () => void {
    this.#endedListeners.add(listener);
    return () => this.#endedListeners.delete(listener);
  }

  purge(): Promise<number> {
    return this.#stores.sessions.purgeEndedBefore(this.#clock.now() - this.#config.endedRetentionMs);
  }

  /** Ends every active session (`server_restart`) and stops the timers; idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#ends.close();
    this.#clock.clearTimeout(this.#purgeTimer);
    this.#revocations.close();
    await Promise.all([...this.#live.keys()].map((id) => this.end(id, EndReason.SERVER_RESTART)));
    // the ends and usage under way land before the store closes
    await Promise.all([this.#ends.drain(), this.#usage.drain()]);
    this.#offEngine();
  }

  /** The one way a session's state moves: checks the table, logs `from -> to`, tells listeners. */
  #transition(live: Live, to: SessionPhase, reason: string): void {
    const from = live.phase;
    transition(from, to, reason); // throws on a move the table does not allow
    live.phase = to;
    if (to === 'ended') {
      live.record.endReason = reason as EndReason;
      live.record.endedAt = this.#clock.now();
    }
    const { id: sessionId, credentialId, avatarId } = live.record;
    if (to === 'active') this.#log.info({ sessionId, from, to, credentialId, avatarId }, 'session created');
    else this.#log.info({ sessionId, from, to, reason }, 'session ended');
    this.#metrics.sessionsActive.set(this.#count((l) => l.phase === 'active'));
    const t = { sessionId, from, to, reason };
    for (const l of [...this.#transitionListeners]) {
      try {
        l(t);
      } catch (err) {
        this.#log.warn({ err }, 'session-transition listener failed');
      }
    }
  }

  async #release(live: Live, reason: EndReason): Promise<void> {
    const { record } = live;
    const now = record.endedAt ?? this.#clock.now();
    this.#clock.clearTimeout(live.idleTimer);
    this.#clock.clearTimeout(live.maxTimer);
    // not awaited: a locked store never delays an end (the live entry answers 410 meanwhile)
    const storing = this.#ends.write(record.id, reason, now);
    this.recordUsage(record.credentialId, { sessionSeconds: (now - record.createdAt) / 1000 });
    try {
      await this.#engine.closeSession(record.id, reason);
    } catch (err) {
      this.#log.warn({ err, sessionId: record.id }, 'engine failed to close a session');
    }
    this.#metrics.sessionsEnded.inc({ reason });
    for (const l of [...this.#endedListeners]) {
      try {
        l(record.id, reason);
      } catch (err) {
        this.#log.warn({ err }, 'session-ended listener failed');
      }
    }
    // until the store has the end, the live entry answers 410 for this session from memory
    void storing.then((stored) => {
      if (stored || this.#closed) this.#live.delete(record.id);
    });
  }

  /** Adds usage for a credential; never fails the caller (see UsageRecorder). */
  recordUsage(credentialId: string, delta: Partial<Usage>): void {
    this.#usage.record(credentialId, delta);
  }

  #schedulePurge(): void {
    if (this.#closed) return;
    this.#purgeTimer = this.#clock.setTimeout(() => {
      this.#usage.flushAll();
      this.purge().catch((err: unknown) => this.#log.warn({ err }, 'purging ended sessions failed'));
      this.#schedulePurge();
    }, PURGE_INTERVAL_MS);
  }
}
