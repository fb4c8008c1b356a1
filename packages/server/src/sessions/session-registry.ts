/**
 * The registry of sessions: creation under limits, the in-memory idle clock (keep-alive never
 * writes to SQLite), max duration, ending by any path with every resource released, retention
 * then purge, revocation watch and engine failure handling.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { EndReason } from '@mouthpiece/protocol';
import type { EngineHost } from '@mouthpiece/engine/host';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { ApiError } from '../errors.js';
import type { Metrics } from '../metrics.js';
import type { CredentialRecord, SessionRecord, Stores } from '../storage/ports.js';
import { transition } from './session-state.js';

interface Live {
  record: SessionRecord;
  /** The credential's plan limits at creation (kept in memory: no store read per request). */
  limits: CredentialRecord['limits'];
  idleTimer: unknown;
  maxTimer: unknown;
  ending: Promise<boolean> | undefined;
  endReason: EndReason | undefined;
}

export interface CreateSessionInput {
  credential: CredentialRecord;
  avatarId: string;
  voiceId: string;
  voiceSpeed: number;
}

const PURGE_INTERVAL_MS = 60_000;
const REVOCATION_POLL_MS = 1000;

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
  #revocationTimer: unknown;
  #credentialsVersion: number;
  #closed = false;
  readonly #offEngine: () => void;
  readonly #endedListeners = new Set<(sessionId: string, reason: EndReason) => void>();

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
    this.#credentialsVersion = this.#stores.credentials.changeVersion();
    this.#offEngine = this.#engine.onEvent((e) => {
      if (e.type === 'sessionFailed' && this.#live.has(e.sessionId)) {
        this.#log.error({ sessionId: e.sessionId, message: e.message }, 'session media failed');
        this.#metrics.engineFailures.inc();
        void this.end(e.sessionId, EndReason.ENGINE_FAILED);
      }
    });
    this.#schedulePurge();
    this.#scheduleRevocationPoll();
  }

  async create(input: CreateSessionInput): Promise<SessionRecord> {
    if (this.#live.size >= this.#config.maxSessions) {
      throw new ApiError('SERVER_BUSY', undefined, { 'Retry-After': '5' });
    }
    if (this.countActiveFor(input.credential.id) >= input.credential.limits.maxSessions) {
      throw new ApiError(
        'SESSION_LIMIT',
        `This credential may hold at most ${input.credential.limits.maxSessions} sessions at once`,
        {
          'Retry-After': '5',
        },
      );
    }
    transition('none', 'active', 'created');
    const now = this.#clock.now();
    const record: SessionRecord = {
      id: newId(),
      credentialId: input.credential.id,
      avatarId: input.avatarId,
      voiceId: input.voiceId,
      voiceSpeed: input.voiceSpeed,
      viewerToken: newId(),
      status: 'active',
      createdAt: now,
      expiresAt: now + input.credential.limits.maxSessionDurationMs,
      endedAt: null,
      endReason: null,
    };
    const live: Live = {
      record,
      limits: input.credential.limits,
      idleTimer: undefined,
      maxTimer: undefined,
      ending: undefined,
      endReason: undefined,
    };
    this.#live.set(record.id, live); // reserve the slot while the engine starts
    try {
      await this.#engine.createSession({
        sessionId: record.id,
        avatarId: record.avatarId,
        voiceId: record.voiceId,
        voiceSpeed: record.voiceSpeed,
      });
    } catch (err) {
      this.#live.delete(record.id);
      this.#log.error({ err }, 'engine could not create a session');
      throw new ApiError('ENGINE_UNAVAILABLE', undefined, { 'Retry-After': '5' });
    }
    this.#stores.sessions.insert(record);
    this.#stores.usage.add(record.credentialId, { sessionsCreated: 1 });
    live.maxTimer = this.#clock.setTimeout(
      () => void this.end(record.id, EndReason.MAX_DURATION),
      record.expiresAt - now,
    );
    this.touch(record.id);
    this.#metrics.sessionsCreated.inc();
    this.#metrics.sessionsActive.set(this.#live.size);
    this.#log.info(
      { sessionId: record.id, credentialId: record.credentialId, avatarId: record.avatarId },
      'session created',
    );
    return { ...record };
  }

  /** The stored record (active or ended within retention), or undefined. */
  get(sessionId: string): SessionRecord | undefined {
    const live = this.#live.get(sessionId);
    if (live)
      return live.ending
        ? { ...live.record, status: 'ended', endReason: live.endReason ?? null }
        : { ...live.record };
    return this.#stores.sessions.get(sessionId);
  }

  /** The plan limits of an active session's credential. */
  limitsOf(sessionId: string): CredentialRecord['limits'] | undefined {
    return this.#live.get(sessionId)?.limits;
  }

  isActive(sessionId: string): boolean {
    const live = this.#live.get(sessionId);
    return live !== undefined && live.ending === undefined;
  }

  /** Refreshes the idle clock (in memory only). */
  touch(sessionId: string): void {
    const live = this.#live.get(sessionId);
    if (!live || live.ending) return;
    this.#clock.clearTimeout(live.idleTimer);
    live.idleTimer = this.#clock.setTimeout(
      () => void this.end(sessionId, EndReason.IDLE_TIMEOUT),
      this.#config.idleTimeoutMs,
    );
  }

  listActive(): SessionRecord[] {
    return [...this.#live.values()].filter((l) => !l.ending).map((l) => ({ ...l.record }));
  }

  countActiveFor(credentialId: string): number {
    let n = 0;
    for (const l of this.#live.values()) if (l.record.credentialId === credentialId) n++;
    return n;
  }

  /** Ends an active session and releases everything it holds. False when it was not active. */
  end(sessionId: string, reason: EndReason): Promise<boolean> {
    const live = this.#live.get(sessionId);
    if (!live) return Promise.resolve(false);
    if (live.ending) return live.ending.then(() => false);
    transition('active', 'ended', reason);
    live.endReason = reason;
    live.ending = this.#release(live, reason);
    return live.ending;
  }

  async endAllForCredential(credentialId: string, reason: EndReason): Promise<number> {
    const ids = [...this.#live.values()].filter((l) => l.record.credentialId === credentialId && !l.ending);
    const results = await Promise.all(ids.map((l) => this.end(l.record.id, reason)));
    return results.filter(Boolean).length;
  }

  /** Checks for credentials revoked by another writer (the CLI) and ends their sessions. */
  checkRevocations(): Promise<number> {
    const version = this.#stores.credentials.changeVersion();
    if (version === this.#credentialsVersion) return Promise.resolve(0);
    this.#credentialsVersion = version;
    const now = this.#clock.now();
    const revoked = new Set<string>();
    for (const l of this.#live.values()) {
      const c = this.#stores.credentials.get(l.record.credentialId);
      if (!c || c.revokedAt !== null || (c.expiresAt !== null && c.expiresAt <= now))
        revoked.add(l.record.credentialId);
    }
    return Promise.all(
      [...revoked].map((id) => this.endAllForCredential(id, EndReason.CREDENTIAL_REVOKED)),
    ).then((n) => n.reduce((a, b) => a + b, 0));
  }

  /** Called after a session ended and its resources were released. */
  onEnded(listener: (sessionId: string, reason: EndReason) => void): () => void {
    this.#endedListeners.add(listener);
    return () => this.#endedListeners.delete(listener);
  }

  purge(): number {
    return this.#stores.sessions.purgeEndedBefore(this.#clock.now() - this.#config.endedRetentionMs);
  }

  /** Ends every active session (`server_restart`) and stops the timers; idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#clock.clearTimeout(this.#purgeTimer);
    this.#clock.clearTimeout(this.#revocationTimer);
    await Promise.all([...this.#live.keys()].map((id) => this.end(id, EndReason.SERVER_RESTART)));
    this.#offEngine();
  }

  async #release(live: Live, reason: EndReason): Promise<boolean> {
    const { record } = live;
    const now = this.#clock.now();
    this.#clock.clearTimeout(live.idleTimer);
    this.#clock.clearTimeout(live.maxTimer);
    this.#stores.sessions.markEnded(record.id, reason, now);
    this.#stores.usage.add(record.credentialId, { sessionSeconds: (now - record.createdAt) / 1000 });
    try {
      await this.#engine.closeSession(record.id, reason);
    } catch (err) {
      this.#log.warn({ err, sessionId: record.id }, 'engine failed to close a session');
    }
    this.#live.delete(record.id);
    this.#metrics.sessionsEnded.inc({ reason });
    this.#metrics.sessionsActive.set(this.#live.size);
    this.#log.info({ sessionId: record.id, reason }, 'session ended');
    for (const l of [...this.#endedListeners]) {
      try {
        l(record.id, reason);
      } catch (err) {
        this.#log.warn({ err }, 'session-ended listener failed');
      }
    }
    return true;
  }

  #schedulePurge(): void {
    if (this.#closed) return;
    this.#purgeTimer = this.#clock.setTimeout(() => {
      try {
        this.purge();
      } catch (err) {
        this.#log.warn({ err }, 'purging ended sessions failed');
      }
      this.#schedulePurge();
    }, PURGE_INTERVAL_MS);
  }

  #scheduleRevocationPoll(): void {
    if (this.#closed) return;
    this.#revocationTimer = this.#clock.setTimeout(() => {
      this.checkRevocations()
        .catch((err: unknown) => this.#log.warn({ err }, 'revocation check failed'))
        .finally(() => this.#scheduleRevocationPoll());
    }, REVOCATION_POLL_MS);
  }
}
