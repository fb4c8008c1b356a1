/**
 * The page's canvas in client rendering (docs/design.md §13.4): one <canvas> in the app's
 * container, shown like the video element (100 % × 100 %, the avatar letterboxed with
 * `object-fit: contain`), its pixels the avatar's fitted box × the display's pixel ratio (a
 * ResizeObserver on the container and a media query on the ratio resize it), and the drawing loop:
 * each animation frame drawn when the frame clock says its audio is heard (requestAnimationFrame;
 * a timer while the page is hidden, which still draws so `ready` is sent), the last one held.
 * While the canvas's context is lost nothing is drawn (the frames still advance); once it is
 * restored the renderer remakes its state and the current frame is drawn whole (context-loss.ts).
 */
import type { AnimationFrame } from '@mouthpiece/protocol';
import { ContextLossWatch } from './context-loss.js';
import { drawUntilMs, FrameClock, RefreshMeter } from './frame-clock.js';
import type { BrowserRenderer } from './types.js';

/** The long side of the canvas before it is in a container that has a size. */
export const DETACHED_SIZE_PX = 512;
const HIDDEN_TICK_MS = 40;

export interface CanvasViewEvents {
  /** The first frame drawn since the view was made or reset(), with the canvas's size. */
  firstDraw(size: { width: number; height: number }): void;
  /** The canvas's context was lost and not restored in time (CONTEXT_RESTORE_MS): it cannot draw. */
  contextGaveUp(): void;
}

/** Device pixels of an avatar of `aspect` (width / height) fitted inside a CSS box at `dpr`. */
export function fittedSize(
  box: { width: number; height: number },
  aspect: number,
  dpr: number,
): { width: number; height: number } {
  const a = Number.isFinite(aspect) && aspect > 0 ? aspect : 1;
  const ratio = Number.isFinite(dpr) && dpr > 0 ? dpr : 1;
  if (!(box.width > 0) || !(box.height > 0))
    return a >= 1
      ? { width: DETACHED_SIZE_PX, height: Math.max(1, Math.round(DETACHED_SIZE_PX / a)) }
      : { width: Math.max(1, Math.round(DETACHED_SIZE_PX * a)), height: DETACHED_SIZE_PX };
  const width = Math.min(box.width, box.height * a);
  return {
    width: Math.max(1, Math.round(width * ratio)),
    height: Math.max(1, Math.round((width / a) * ratio)),
  };
}

export class CanvasView {
  readonly canvas: HTMLCanvasElement;
  readonly clock = new FrameClock();
  readonly #refresh = new RefreshMeter();
  readonly #renderer: BrowserRenderer;
  readonly #aspect: number;
  readonly #on: CanvasViewEvents;
  #container: HTMLElement | undefined;
  #observer: ResizeObserver | undefined;
  #dprQuery: MediaQueryList | undefined;
  readonly #onDpr = (): void => this.#fit();
  #last: AnimationFrame | undefined;
  #drawnSinceReset = false;
  #sized = false;
  #scheduled: { cancel(): void } | undefined;
  readonly #context: ContextLossWatch;
  #closed = false;

  constructor(canvas: HTMLCanvasElement, renderer: BrowserRenderer, aspect: number, on: CanvasViewEvents) {
    this.canvas = canvas;
    this.#renderer = renderer;
    this.#aspect = aspect;
    this.#on = on;
    canvas.style.width = '100%';
    canvas.style.height = '100%';
    canvas.style.objectFit = 'contain';
    canvas.style.display = 'block';
    this.#context = new ContextLossWatch(
      canvas,
      {
        lost: () => undefined, // (draws stop: #tick and #fit look at the watch)
        restored: () => this.#restored(),
        gaveUp: () => this.#on.contextGaveUp(),
      },
      typeof document !== 'undefined' && typeof document.addEventListener === 'function'
        ? document
        : undefined,
    );
    this.#fit();
  }

  /** Puts the canvas into the app's container and follows its size. */
  attach(container: HTMLElement): void {
    if (this.#closed) return;
    this.#observer?.disconnect();
    this.#container = container;
    container.appendChild(this.canvas);
    if (typeof ResizeObserver !== 'undefined') {
      this.#observer = new ResizeObserver(() => this.#fit());
      this.#observer.observe(container);
    }
    this.#fit();
  }

  /** An animation frame arrived now (performance.now()). */
  push(frame: AnimationFrame, arrivalMs: number): void {
    if (this.#closed) return;
    this.clock.push(frame, arrivalMs);
    this.#schedule();
  }

  /** A new connection: its frames map anew, and its first drawn frame is reported again. */
  reset(): void {
    this.clock.reset();
    this.#drawnSinceReset = false;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#scheduled?.cancel();
    this.#context.close();
    this.#observer?.disconnect();
    this.#dprQuery?.removeEventListener('change', this.#onDpr);
    this.#renderer.close();
    this.canvas.remove();
  }

  /** Sizes the canvas to its box and the pixel ratio now, and redraws what showed. */
  #fit(): void {
    if (this.#closed) return;
    const dpr = typeof devicePixelRatio === 'number' ? devicePixelRatio : 1;
    this.#watchDpr(dpr);
    const box = this.#container?.getBoundingClientRect() ?? { width: 0, height: 0 };
    const { width, height } = fittedSize(box, this.#aspect, dpr);
    if (this.canvas.width === width && this.canvas.height === height && this.#sized) return;
    this.canvas.width = width;
    this.canvas.height = height;
    if (this.#context.lost) return; // (sized when restored)
    this.#renderer.resize(width, height);
    this.#sized = true;
    if (this.#last) this.#renderer.draw(this.#last);
  }

  /** The context is back, cleared: the renderer remakes its state and the current frame is drawn. */
  #restored(): void {
    if (this.#closed) return;
    this.#renderer.restore();
    this.#renderer.resize(this.canvas.width, this.canvas.height);
    this.#sized = true;
    if (this.#last) this.#renderer.draw(this.#last);
    this.#fit(); // (the container may have changed meanwhile)
  }

  /** A media query that changes when the ratio does (another screen, zoom). */
  #watchDpr(dpr: number): void {
    if (typeof matchMedia !== 'function') return;
    this.#dprQuery?.removeEventListener('change', this.#onDpr);
    this.#dprQuery = matchMedia(`(resolution: ${dpr}dppx)`);
    this.#dprQuery.addEventListener('change', this.#onDpr);
  }

  #schedule(): void {
    if (this.#scheduled || this.#closed) return;
    if (typeof document !== 'undefined' && document.visibilityState !== 'hidden') {
      const id = requestAnimationFrame((callbackMs) => {
        this.#scheduled = undefined;
        this.#refresh.tick(callbackMs);
        this.#tick(drawUntilMs(callbackMs, this.#refresh.refreshMs));
      });
      this.#scheduled = { cancel: () => cancelAnimationFrame(id) };
    } else {
      // off the display: draw what is due now (nothing shows; `ready` still goes)
      this.#refresh.pause();
      const id = setTimeout(() => {
        this.#scheduled = undefined;
        this.#tick(performance.now());
      }, HIDDEN_TICK_MS);
      this.#scheduled = { cancel: () => clearTimeout(id) };
    }
  }

  /** Draws the newest frame due by `untilMs` (the page's clock). */
  #tick(untilMs: number): void {
    if (this.#closed) return;
    const frame = this.clock.take(untilMs);
    if (frame && this.#context.lost)
      this.#last = frame; // (drawn when the context is back)
    else if (frame) {
      this.#renderer.draw(frame);
      this.#last = frame;
      if (!this.#drawnSinceReset) {
        this.#drawnSinceReset = true;
        this.#on.firstDraw({ width: this.canvas.width, height: this.canvas.height });
      }
    }
    if (this.clock.queued > 0) this.#schedule();
    else this.#refresh.pause();
  }
}
