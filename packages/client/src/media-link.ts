/**
 * The narrow port through which the page's renderers reach the session's media (ViewerLink
 * implements it): they subscribe to each new connection's stream and to animation frames, tell
 * the link when the canvas drew its first frame, and read the current connection's stats. They see
 * no transport, no reconnect and no session.
 */
import type { AnimationFrame, EventCallbacks } from '@mouthpiece/protocol';

/** What a media link reports to renderers, by event name (a closed map). */
export interface MediaLinkEvents {
  /** A new connection is open: its stream plays (audio elements, the video element). */
  opened: { stream: MediaStream };
  /** Client rendering: an animation frame arrived, and when (performance.now()). */
  animation: { frame: AnimationFrame; arrivalMs: number };
}

export interface MediaLink {
  on<K extends keyof MediaLinkEvents>(event: K, listener: EventCallbacks<MediaLinkEvents>[K]): () => void;
  /** Client rendering: the canvas drew the current connection's first frame (the link sends `ready`). */
  drawn(size: { width: number; height: number }): void;
  /** The current connection's stats; undefined between connections. */
  stats(): Promise<RTCStatsReport> | undefined;
}
