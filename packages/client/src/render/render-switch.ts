/**
 * Which way the session's avatar is drawn now, and the move from one to the other: client
 * rendering while the page can draw it, else video for good, said once in `renderFallback`
 * (docs/design.md §13.4). The session asks it to open client rendering before its first
 * connection; a pack that does not load, a kind this SDK does not draw, a renderer this browser
 * cannot run (no WebGL), the server's notice or a canvas context lost for good turns it to video.
 * The client renderer takes its media from the session's link itself (media-link.ts).
 */
import { streamTiming, type ServerMessage } from '@mouthpiece/protocol';
import type { Logger } from '../logger.js';
import type { RenderFallbackReason } from '../session-types.js';
import { ClientRender, type ClientRenderOptions } from './client-render.js';
import { RendererUnavailable } from './types.js';

/** The server's data-channel notice that it sends video, not the animation stream. */
export const CLIENT_RENDER_UNAVAILABLE = 'client_render_unavailable';

export interface RenderSwitchOwner {
  fallback(e: { reason: RenderFallbackReason; message: string }): void;
  /**
   * Client rendering ended mid-session (the server's notice, a context lost for good): show video
   * now, in the container if the canvas was in it (`attached`), from a new connection that asks for it.
   */
  toVideo(attached: boolean): void;
  log: Logger;
}

export class RenderSwitch {
  readonly #o: RenderSwitchOwner;
  #client: ClientRender | undefined;

  constructor(o: RenderSwitchOwner) {
    this.#o = o;
  }

  /** `client` while this page draws the avatar. */
  get mode(): 'video' | 'client' {
    return this.#client ? 'client' : 'video';
  }

  /** The canvas, while client rendering. */
  get canvas(): HTMLCanvasElement | undefined {
    return this.#client?.canvas;
  }

  /** Loads the pack and makes its renderer; where this page cannot draw it, video (and the event). */
  async open(o: Omit<ClientRenderOptions, 'contextGaveUp'>): Promise<void> {
    this.close();
    try {
      this.#client = await ClientRender.open({ ...o, contextGaveUp: (m) => this.#ended('context-lost', m) });
    } catch (err) {
      if (!(err instanceof RendererUnavailable)) throw err;
      this.#fallBack(err.reason, err.message);
    }
  }

  /** The canvas into the app's container; undefined in video mode. */
  attach(container: HTMLElement): HTMLCanvasElement | undefined {
    return this.#client?.attach(container);
  }

  /** The connection's `hello`: the animation stream's timing (the protocol's defaults where absent). */
  hello(m: Extract<ServerMessage, { type: 'hello' }>): void {
    this.#client?.timing(streamTiming(m));
  }

  unmute(): void {
    this.#client?.unmute();
  }

  /**
   * A server notice; true when it ends client rendering (the session then reconnects for video).
   */
  notice(code: string, message: string): boolean {
    if (code !== CLIENT_RENDER_UNAVAILABLE || !this.#client) return false;
    this.#ended('server', message);
    return true;
  }

  close(): void {
    this.#client?.close();
    this.#client = undefined;
  }

  /** Client rendering that was running ends: video from a new connection. */
  #ended(reason: RenderFallbackReason, message: string): void {
    if (!this.#client) return;
    const attached = this.#client.canvas.isConnected;
    this.#fallBack(reason, message);
    this.#o.toVideo(attached);
  }

  #fallBack(reason: RenderFallbackReason, message: string): void {
    this.#o.log.warn(`drawing in the browser is not possible (${reason}); the server sends video`, message);
    this.close();
    this.#o.fallback({ reason, message });
  }
}
