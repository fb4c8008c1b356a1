/**
 * A small typed event emitter for Node and the browser. One payload per event; `on()` returns an
 * unsubscribe function; a throwing listener is reported to `onListenerError` and never breaks
 * the emitter or the other listeners.
 *
 * `Events` maps each event name to its payload. Give it an interface with no index signature (a
 * closed map): a misspelt event name is then a compile error at `on`, `off` and `emit`.
 */
export type Listener<T> = (payload: T) => void;

/** The listener of each event of a closed map, by name (LiveKit's `RoomEventCallbacks` shape). */
export type EventCallbacks<Events extends object> = { [K in keyof Events]: Listener<Events[K]> };

export class TypedEmitter<Events extends object> {
  readonly #listeners = new Map<keyof Events, Set<Listener<never>>>();
  readonly #onListenerError: (err: unknown, event: keyof Events) => void;

  constructor(onListenerError?: (err: unknown, event: keyof Events) => void) {
    this.#onListenerError = onListenerError ?? ((): void => undefined);
  }

  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): () => void {
    let set = this.#listeners.get(event);
    if (!set) {
      set = new Set();
      this.#listeners.set(event, set);
    }
    set.add(listener);
    return () => this.off(event, listener);
  }

  once<K extends keyof Events>(event: K, listener: Listener<Events[K]>): () => void {
    const off = this.on(event, (payload) => {
      off();
      listener(payload);
    });
    return off;
  }

  off<K extends keyof Events>(event: K, listener: Listener<Events[K]>): void {
    this.#listeners.get(event)?.delete(listener);
  }

  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    const set = this.#listeners.get(event);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        (listener as Listener<Events[K]>)(payload);
      } catch (err) {
        try {
          this.#onListenerError(err, event);
        } catch {
          // the error reporter itself failed; nothing more to do
        }
      }
    }
  }

  removeAllListeners(): void {
    this.#listeners.clear();
  }
}
