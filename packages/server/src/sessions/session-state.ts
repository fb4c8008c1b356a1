/**
 * The server-side session state machine: (none) → active → ended. One `transition()` checks the
 * table; every other module asks it. Ended is final (then retention, then purge).
 */
import type { SessionStatus } from '@mouthpiece/protocol';
import { EndReason } from '@mouthpiece/protocol';
import { CodedError } from '@mouthpiece/protocol';

export type SessionPhase = 'none' | SessionStatus;

const END_REASONS: readonly EndReason[] = Object.values(EndReason);

/** Allowed moves and the reasons that may cause them. */
export const SESSION_TRANSITIONS: Readonly<
  Record<SessionPhase, Partial<Record<SessionPhase, readonly string[]>>>
> = {
  none: { active: ['created'] },
  active: { ended: END_REASONS },
  ended: {},
};

export class IllegalTransitionError extends CodedError {
  static override code = 'ERR_ILLEGAL_TRANSITION';
  constructor(from: SessionPhase, to: SessionPhase, reason: string) {
    super(`illegal session transition ${from} -> ${to} (${reason})`);
    this.name = 'IllegalTransitionError';
  }
}

/** Returns `to` when the move is allowed; throws otherwise. */
export function transition(from: SessionPhase, to: SessionPhase, reason: string): SessionPhase {
  const reasons = SESSION_TRANSITIONS[from][to];
  if (!reasons?.includes(reason)) throw new IllegalTransitionError(from, to, reason);
  return to;
}
