/**
 * The seam between the SDK's client rendering (`render: 'client'`, docs/design.md §13) and the
 * renderer of each avatar kind. The SDK loads the session's pack (GET …/avatar, then its files),
 * makes one renderer for it with the kind's factory, sizes it to the container (CSS pixels × the
 * display's pixel ratio) and draws each animation frame when its audio is heard. A renderer
 * owns nothing but its drawing: no network, no timers, no DOM events (the SDK's view watches the
 * canvas for a lost context and calls restore(): context-loss.ts).
 */
import type { AnimationFrame, AvatarPackFile, RenderKind } from '@mouthpiece/protocol';
import { CodedError } from '@mouthpiece/protocol';

/** The avatar kinds a pack can be (the manifest's `render`): the protocol's. */
export type AvatarKind = RenderKind;

/**
 * One renderer file of the pack, as GET /v1/avatar-session/{id}/avatar lists it (the protocol's
 * schema). An encoded file (`encodes`, `codec`: a video avatar's base.ivf encodes base.i420): the
 * loader takes one of the two, and gives the renderer the raw file's bytes.
 */
export type PackFileEntry = AvatarPackFile;

/** The pack as loaded: the listing, and each file's bytes by name. */
export interface LoadedPack {
  id: string;
  render: AvatarKind;
  /** The avatar's manifest as the server stores it (the kind's renderer knows its shape). */
  manifest: Record<string, unknown>;
  files: PackFileEntry[];
  /**
   * The files' bodies by name: every listed file but the encoded ones, whose decoded frames are
   * under the name of the raw file they encode (when they were taken).
   */
  bytes: ReadonlyMap<string, ArrayBuffer>;
  /** The session's visualConfig.background (`#rrggbb`), when it has one. */
  background?: string | undefined;
}

/** Draws one avatar into one page canvas. */
export interface BrowserRenderer {
  /** Device pixels; called before the first draw and whenever the container's size or DPR changes. */
  resize(width: number, height: number): void;
  /** Draws the face state of one animation frame (synchronously; the canvas shows it after). */
  draw(frame: AnimationFrame): void;
  /**
   * The canvas's context was lost and is back, cleared (a GPU reset, docs/design.md §13.5): remake
   * what lived in it (programs, buffers, textures, cached layers). No draw() comes while it is lost;
   * the next draw() after this must draw the whole frame.
   */
  restore(): void;
  /** Frees textures, caches and workers; the canvas stays (the SDK removes it). */
  close(): void;
}

/**
 * Why a kind cannot be drawn here (the SDK then falls back to video and says so in an event):
 * 'server' when the operator does not let browsers draw it (403 CLIENT_RENDER_DISABLED).
 */
export class RendererUnavailable extends CodedError {
  static override code = 'ERR_RENDERER_UNAVAILABLE';
  constructor(
    readonly reason: 'no-webgl' | 'unsupported-kind' | 'pack-failed' | 'server',
    message: string,
  ) {
    super(message);
    this.name = 'RendererUnavailable';
  }
}

/**
 * Makes a kind's renderer for a loaded pack on the page's canvas; rejects with
 * RendererUnavailable when this browser cannot draw it (no WebGL for a photo avatar, say).
 * `background` is the session's background colour (it replaces the avatar's, as the engine does,
 * for vector and sprite avatars; photo and video avatars are drawn without it, as on the server).
 */
export type RendererFactory = (
  pack: LoadedPack,
  canvas: HTMLCanvasElement,
  opts: { background?: string },
) => Promise<BrowserRenderer>;
