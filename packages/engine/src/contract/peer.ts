/**
 * The seam between an engine session and its viewer's connection: the session asks a
 * `PeerFactory` to answer a WHEP offer and talks to the `Peer` it gets. The real factory is
 * libwebrtc's (rtc/wrtc-media.ts, with the session's audio and video sources); a null factory
 * answers without any network (testing/null-media.ts), so a session runs in a unit test.
 */
import type { IceServer, ServerMessage } from '@mouthpiece/protocol';

export interface PeerEvents {
  /** ICE/DTLS connected: media flows. */
  onConnected(): void;
  /** The viewer's first frame was decoded or drawn (`ready` on the data channel). */
  onReady(): void;
  /** The connection failed or closed from the far side. */
  onDisconnected(): void;
  /**
   * Issue 21: the viewer is gone for now (ICE disconnected or failed, or nothing from it for 2 s);
   * onConnected follows if the same connection recovers.
   */
  onLost?(): void;
  /** The events channel opened (the peer has sent its `hello`): a message for this viewer may follow. */
  onChannelOpen?(): void;
}

export interface Peer {
  readonly viewerId: string;
  /** The offer opened the `events` data channel. */
  readonly hasEvents: boolean;
  /**
   * The offer has a video m-line. Without one the viewer draws the avatar itself (render: 'client'):
   * the session renders nothing for it and sends the animation stream instead.
   */
  readonly hasVideo: boolean;
  addIceCandidates(fragment: string): Promise<void>;
  /** A message on the events channel (dropped when it is not open). */
  send(message: ServerMessage): void;
  /**
   * An animation frame: on the viewer's frames channel when it opened one, else on the events
   * channel; dropped when neither is open, or when the channel is behind (rtc/latest-wins.ts).
   */
  sendBinary(message: Uint8Array): void;
  /** Sends a last message, stops the media at once, and closes once the message has left. */
  closeWith(message: ServerMessage): void;
  close(): void;
}

export interface PeerOffer {
  viewerId: string;
  sessionId: string;
  offerSdp: string;
  iceServers: IceServer[];
  /** The session ignores events of a peer it has not adopted yet or has replaced. */
  events: PeerEvents;
  /** Issue 21: the turn playing now, told in the viewer's `hello` (a page reconnecting mid-turn). */
  speaking?: () => string | undefined;
  /** The session's video frame interval: the viewer's `hello` announces it (rtc/hello.ts). */
  frameMs: number;
}

export interface PeerFactory {
  /** Answers an offer; rejects with EngineError (`unsupported_offer`, `invalid_request`). */
  answer(offer: PeerOffer): Promise<{ peer: Peer; answerSdp: string }>;
}
