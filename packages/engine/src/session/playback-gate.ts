/**
 * Speech waits for a viewer: nothing is spoken into the void, and first words are never clipped.
 * The gate opens when the viewer's page says its first frame is decoded (`ready` on the events
 * channel), or `readyTimeoutMs` after ICE connected if it never says so, or `noChannelStartMs`
 * after ICE connected for players that open no events channel. A new viewer closes it again
 * unless speech is already playing. A session that does not wait for viewers (`waitForViewer:
 * false`, the test host) has it open from the start.
 */
interface GateOptions {
  readyTimeoutMs: number;
  noChannelStartMs: number;
  /** false: open from the start, whatever viewers do. */
  waitForViewer?: boolean;
}

export class PlaybackGate {
  #open = false;
  #closed = false;
  #timer: NodeJS.Timeout | undefined;
  readonly #onOpen: () => void;
  readonly #o: GateOptions;

  constructor(o: GateOptions, onOpen: () => void) {
    this.#o = o;
    this.#onOpen = onOpen;
    this.#open = o.waitForViewer === false;
  }

  get open(): boolean {
    return this.#open;
  }

  /** The viewer's ICE connected; `hasEvents`: it opened the events channel. */
  viewerConnected(hasEvents: boolean): void {
    if (this.#o.waitForViewer === false) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(
      () => this.viewerReady(),
      hasEvents ? this.#o.readyTimeoutMs : this.#o.noChannelStartMs,
    );
  }

  /** The viewer decoded its first frame: play. */
  viewerReady(): void {
    clearTimeout(this.#timer);
    if (this.#open || this.#closed) return;
    this.#open = true;
    this.#onOpen();
  }

  /** A new viewer replaced the old one: wait for its first frame, unless speech is under way. */
  newViewer(playing: boolean): void {
    if (!playing && this.#o.waitForViewer !== false) this.#open = false;
  }

  close(): void {
    clearTimeout(this.#timer);
    this.#open = false;
    this.#closed = true;
  }
}
