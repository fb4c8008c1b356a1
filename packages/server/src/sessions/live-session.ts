/**
 * A session as this node's registry holds it (session-registry.ts), from the create that reserves
 * its slot to the release after its end: the record as stored, the one state field `phase`, and
 * what lives in memory only (plan limits, background, timers).
 */
import type { CredentialRecord, SessionRecord } from '../storage/ports.js';
import type { SessionPhase } from './session-state.js';

export interface Live {
  /** The session as stored; its `status` and `endReason` are derived from `phase` on the way out. */
  record: SessionRecord;
  phase: SessionPhase;
  /** The credential's plan limits at creation (kept in memory: no store read per request). */
  limits: CredentialRecord['limits'];
  /** visualConfig.background (this node's memory: the pack route is answered by the holder). */
  background: string | undefined;
  idleTimer: unknown;
  maxTimer: unknown;
  /** Resolves when an ended session's resources are released. */
  released: Promise<void> | undefined;
  /** The engine lost it while its create waited (phase none): the create aborts. */
  engineFailed: boolean;
}

export interface CreateSessionInput {
  credential: CredentialRecord;
  avatarId: string;
  voiceId: string;
  voiceSpeed: number;
  /** visualConfig.background, passed to the engine and kept in memory (not stored). */
  background?: string | undefined;
}

/** A new entry in phase `none` (being created: it holds a slot, nobody sees it yet). */
export function newLive(
  input: CreateSessionInput,
  ids: { id: string; viewerToken: string; now: number },
): Live {
  const { now } = ids;
  return {
    record: {
      id: ids.id,
      credentialId: input.credential.id,
      avatarId: input.avatarId,
      voiceId: input.voiceId,
      voiceSpeed: input.voiceSpeed,
      viewerToken: ids.viewerToken,
      status: 'active',
      createdAt: now,
      expiresAt: now + input.credential.limits.maxSessionDurationMs,
      endedAt: null,
      endReason: null,
    },
    phase: 'none',
    limits: input.credential.limits,
    background: input.background,
    idleTimer: undefined,
    maxTimer: undefined,
    released: undefined,
    engineFailed: false,
  };
}

/** The record as callers see it: status and end reason follow the live phase. */
export function viewOf(live: Live): SessionRecord | undefined {
  switch (live.phase) {
    case 'none':
      return undefined; // still being created: not visible yet
    case 'active':
      return { ...live.record, status: 'active' };
    case 'ended':
      return { ...live.record, status: 'ended' };
  }
}
