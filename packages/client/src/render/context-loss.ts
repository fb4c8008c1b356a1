/**
 * The canvas's context lost and restored (docs/design.md §13.5, "Context loss"). A browser takes a
 * canvas's context away on a GPU reset, when a page holds too many contexts, or from a background
 * tab on a phone; drawing on it then shows nothing until it is restored. This watches the canvas
 * for both kinds of context:
 *
 * - WebGL (`webglcontextlost` / `webglcontextrestored`): the loss event must be cancelled
 *   (preventDefault) or the browser never restores the context;
 * - Canvas2D (`contextlost` / `contextrestored`, Chrome 99+): the other way round, a cancelled loss
 *   event tells the browser NOT to restore it, so it is left alone.
 *
 * A context not restored within CONTEXT_RESTORE_MS of the page being shown is given up on (the SDK
 * then shows the server's video, `renderFallback` 'context-lost'). The time counts only while the
 * page is visible: a phone restores a background tab's contexts when it comes back, and a hidden
 * page shows nothing either way.
 */

/**
 * How long a lost context may stay lost while the page is shown. A GPU process restarts in well
 * under a second; a browser that blocked WebGL for the page (too many resets) never restores it.
 */
export const CONTEXT_RESTORE_MS = 3000;

export interface ContextLossEvents {
  /** The context is gone: draw nothing until restored(). */
  lost(): void;
  /** The context is back, cleared: rebuild what lived in it and draw the current state whole. */
  restored(): void;
  /** Not restored in time: the canvas cannot be drawn on (called once; the watch then stops). */
  gaveUp(): void;
}

/** What the watch needs of the page: whether it is shown, and its `visibilitychange` events. */
export type PageVisibility = Pick<EventTarget, 'addEventListener' | 'removeEventListener'> & {
  readonly visibilityState: DocumentVisibilityState;
};

const LOST = ['webglcontextlost', 'contextlost'] as const;
const RESTORED = ['webglcontextrestored', 'contextrestored'] as const;

export class ContextLossWatch {
  readonly #canvas: Pick<EventTarget, 'addEventListener' | 'removeEventListener'>;
  readonly #page: PageVisibility | undefined;
  readonly #on: ContextLossEvents;
  readonly #restoreMs: number;
  #lost = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  readonly #onLost = (e: Event): void => {
    // (cancelling a WebGL loss asks for the context back; cancelling a 2D one would refuse it)
    if (e.type === 'webglcontextlost') e.preventDefault();
    if (this.#lost || this.#closed) return;
    this.#lost = true;
    this.#on.lost();
    this.#arm();
  };

  readonly #onRestored = (): void => {
    if (!this.#lost || this.#closed) return;
    this.#lost = false;
    this.#disarm();
    this.#on.restored();
  };

  readonly #onVisibility = (): void => {
    if (!this.#lost) return;
    if (this.#page?.visibilityState === 'hidden') this.#disarm();
    else this.#arm();
  };

  constructor(
    canvas: Pick<EventTarget, 'addEventListener' | 'removeEventListener'>,
    on: ContextLossEvents,
    page: PageVisibility | undefined,
    restoreMs = CONTEXT_RESTORE_MS,
  ) {
    this.#canvas = canvas;
    this.#on = on;
    this.#page = page;
    this.#restoreMs = restoreMs;
    for (const type of LOST) canvas.addEventListener(type, this.#onLost);
    for (const type of RESTORED) canvas.addEventListener(type, this.#onRestored);
    page?.addEventListener('visibilitychange', this.#onVisibility);
  }

  /** True between a loss and its restoration. */
  get lost(): boolean {
    return this.#lost;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#disarm();
    for (const type of LOST) this.#canvas.removeEventListener(type, this.#onLost);
    for (const type of RESTORED) this.#canvas.removeEventListener(type, this.#onRestored);
    this.#page?.removeEventListener('visibilitychange', this.#onVisibility);
  }

  /** Starts the restore deadline, if the page is shown and it is not running. */
  #arm(): void {
    if (this.#timer !== undefined || this.#page?.visibilityState === 'hidden') return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.close();
      this.#on.gaveUp();
    }, this.#restoreMs);
  }

  #disarm(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
