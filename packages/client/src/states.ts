/**
 * Session and connection state machines with transition tables. One `transition(to, reason)`
 * checks the table, logs `from -> to` once and tells its owner; an illegal move is logged with
 * both states and throws (a refused move is never silent: the caller decides before it moves).
 */
import { ConnectionState, SessionState } from '@mouthpiece/protocol';
import type { Logger } from './logger.js';

export const SESSION_TRANSITIONS: Readonly<Record<SessionState, readonly SessionState[]>> = {
  IDLE: ['CREATING'],
  CREATING: ['READY', 'ERROR', 'ENDED'],
  READY: ['ENDED', 'ERROR'],
  ERROR: ['CREATING', 'ENDED'],
  ENDED: [],
};

/** CLOSED and FAILED reopen only when a session starts again after ERROR (connect()). */
export const CONNECTION_TRANSITIONS: Readonly<Record<ConnectionState, readonly ConnectionState[]>> = {
  DISCONNECTED: ['CONNECTING', 'CLOSED'],
  CONNECTING: ['CONNECTED', 'FAILED', 'CLOSED', 'DISCONNECTED'],
  CONNECTED: ['CONNECTING', 'FAILED', 'CLOSED', 'DISCONNECTED'],
  FAILED: ['CONNECTING', 'CLOSED'],
  CLOSED: ['CONNECTING'],
};

export class StateMachine<S extends string> {
  #state: S;
  readonly #name: string;
  readonly #table: Readonly<Record<S, readonly S[]>>;
  readonly #log: Logger;
  readonly #onChange: (to: S, from: S) => void;

  constructor(o: {
    name: string;
    initial: S;
    table: Readonly<Record<S, readonly S[]>>;
    log: Logger;
    onChange: (to: S, from: S) => void;
  }) {
    this.#name = o.name;
    this.#state = o.initial;
    this.#table = o.table;
    this.#log = o.log;
    this.#onChange = o.onChange;
  }

  get state(): S {
    return this.#state;
  }

  can(to: S): boolean {
    return this.#table[this.#state].includes(to);
  }

  /** Moves to `to` (a move to the current state does nothing); an illegal move is logged and throws. */
  transition(to: S, reason: string): void {
    if (to === this.#state) return;
    const from = this.#state;
    if (!this.can(to)) {
      this.#log.error(`${this.#name}: refused ${from} -> ${to}`, { from, to, reason });
      throw new Error(`illegal ${this.#name} transition ${from} -> ${to} (${reason})`);
    }
    this.#state = to;
    this.#log.debug(`${this.#name}: ${from} -> ${to}`, { reason });
    this.#onChange(to, from);
  }
}

export { ConnectionState, SessionState };
