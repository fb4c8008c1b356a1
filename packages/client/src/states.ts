/** Session and connection state machines with transition tables; illegal moves throw. */
import { ConnectionState, SessionState } from '@mouthpiece/protocol';

export const SESSION_TRANSITIONS: Readonly<Record<SessionState, readonly SessionState[]>> = {
  IDLE: ['CREATING'],
  CREATING: ['READY', 'ERROR', 'ENDED'],
  READY: ['ENDED', 'ERROR'],
  ERROR: ['CREATING', 'ENDED'],
  ENDED: [],
};

export const CONNECTION_TRANSITIONS: Readonly<Record<ConnectionState, readonly ConnectionState[]>> = {
  DISCONNECTED: ['CONNECTING', 'CLOSED'],
  CONNECTING: ['CONNECTED', 'FAILED', 'CLOSED', 'DISCONNECTED'],
  CONNECTED: ['CONNECTING', 'FAILED', 'CLOSED', 'DISCONNECTED'],
  FAILED: ['CONNECTING', 'CLOSED'],
  CLOSED: [],
};

export class StateMachine<S extends string> {
  #state: S;
  readonly #table: Readonly<Record<S, readonly S[]>>;
  readonly #onChange: (to: S, from: S) => void;

  constructor(initial: S, table: Readonly<Record<S, readonly S[]>>, onChange: (to: S, from: S) => void) {
    this.#state = initial;
    this.#table = table;
    this.#onChange = onChange;
  }

  get state(): S {
    return this.#state;
  }

  can(to: S): boolean {
    return this.#table[this.#state].includes(to);
  }

  transition(to: S): void {
    if (to === this.#state) return;
    if (!this.can(to)) throw new Error(`illegal transition ${this.#state} -> ${to}`);
    const from = this.#state;
    this.#state = to;
    this.#onChange(to, from);
  }
}

export { ConnectionState, SessionState };
