import { describe, expect, it } from 'vitest';
import { EndReason } from '@mouthpiece/protocol';
import { IllegalTransitionError, transition, type SessionPhase } from './session-state.js';

const PHASES: SessionPhase[] = ['none', 'active', 'ended'];
const REASONS = ['created', ...Object.values(EndReason)];

/** The expected table, written out independently of the implementation's. */
function allowed(from: SessionPhase, to: SessionPhase, reason: string): boolean {
  if (from === 'none' && to === 'active') return reason === 'created';
  if (from === 'active' && to === 'ended') return reason !== 'created';
  return false;
}

describe('session transitions', () => {
  for (const from of PHASES) {
    for (const to of PHASES) {
      for (const reason of REASONS) {
        it(`${from} -> ${to} (${reason})`, () => {
          if (allowed(from, to, reason)) expect(transition(from, to, reason)).toBe(to);
          else expect(() => transition(from, to, reason)).toThrow(IllegalTransitionError);
        });
      }
    }
  }
  it('covers every end reason of the protocol', () => {
    expect(Object.values(EndReason)).toEqual(
      expect.arrayContaining([
        'ended_by_client',
        'idle_timeout',
        'max_duration',
        'credential_revoked',
        'engine_failed',
        'server_restart',
      ]),
    );
  });
});
