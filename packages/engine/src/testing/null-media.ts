/**
 * Media that goes nowhere, for an engine session without libwebrtc (the test host, unit tests):
 * an audio sink that counts what it is given, and a peer factory whose peers answer an offer
 * without any network, greet, say they connected and are ready, and keep the messages they were sent.
 */
import { randomUUID } from 'node:crypto';
import type { ServerMessage } from '@mouthpiece/protocol';
import { EngineError } from '../contract/types.js';
import { helloMessage } from '../rtc/hello.js';
import type { Peer, PeerFactory, PeerOffer } from '../contract/peer.js';
import { hasDataChannel, hasMedia, offerProblem } from '../rtc/sdp.js';
import type { AudioSink } from '../contract/media.js';

export class NullPeer implements Peer {
  readonly viewerId: string;
  readonly hasEvents: boolean;
  readonly hasVideo: boolean;
  /** Every message sent to this viewer's events channel, in order. */
  readonly sent: ServerMessage[] = [];
  /** Every binary message (animation frame) sent to it, in order. */
  readonly binary: Uint8Array[] = [];
  #closed = false;
  readonly #onLost: (() => void) | undefined;

  constructor(viewerId: string, hasEvents: boolean, hasVideo = true, onLost?: () => void) {
    this.viewerId = viewerId;
    this.hasEvents = hasEvents;
    this.hasVideo = hasVideo;
    this.#onLost = onLost;
  }

  /** Test hook: the viewer's network went away (as a real peer reports it: PeerEvents.onLost). */
  lose(): void {
    this.#onLost?.();
  }

  get closed(): boolean {
    return this.#closed;
  }

  addIceCandidates(): Promise<void> {
    return Promise.resolve();
  }

  send(message: ServerMessage): void {
    if (!this.#closed) this.sent.push(message);
  }

  sendBinary(message: Uint8Array): void {
    if (!this.#closed && this.hasEvents) this.binary.push(message.slice());
  }

  closeWith(message: ServerMessage): void {
    this.send(message);
    this.close();
  }

  close(): void {
    this.#closed = true;
  }
}

export interface NullMedia {
  audioSink: AudioSink & { readonly chunks: number };
  peerFactory: PeerFactory;
  /** The peers answered so far, in order. */
  readonly peers: NullPeer[];
}

export function nullMedia(): NullMedia {
  const peers: NullPeer[] = [];
  let chunks = 0;
  return {
    peers,
    audioSink: {
      write: () => void chunks++,
      get chunks() {
        return chunks;
      },
    },
    peerFactory: {
      answer: (offer) => {
        const problem = offerProblem(offer.offerSdp);
        if (problem) return Promise.reject(new EngineError(problem.code, problem.message));
        const peer = new NullPeer(
          offer.viewerId,
          hasDataChannel(offer.offerSdp),
          hasMedia(offer.offerSdp, 'video'),
          () => offer.events.onLost?.(),
        );
        peers.push(peer);
        // once the session has adopted it, as a real peer's events come later from the network
        setImmediate(() => {
          if (peer.closed) return;
          // as the real peer greets a viewer whose events channel opened (rtc/viewer-peer.ts)
          if (peer.hasEvents) {
            const { sessionId, frameMs } = offer;
            peer.send(
              helloMessage({ sessionId, frameMs, hasVideo: peer.hasVideo, speaking: offer.speaking?.() }),
            );
            offer.events.onChannelOpen?.();
          }
          offer.events.onConnected();
          offer.events.onReady();
        });
        return Promise.resolve({ peer, answerSdp: nullAnswer(offer) });
      },
    },
  };
}

/** An answer in SDP's shape (audio, video and data channel sections as the offer has them). */
function nullAnswer(offer: PeerOffer): string {
  return [
    'v=0',
    `o=- ${Date.now()} 2 IN IP4 127.0.0.1`,
    's=-',
    't=0 0',
    `a=fingerprint:sha-256 ${randomUUID()}`,
    ...(hasMedia(offer.offerSdp, 'audio')
      ? ['m=audio 9 UDP/TLS/RTP/SAVPF 111', 'a=sendonly', 'a=rtpmap:111 opus/48000/2']
      : []),
    ...(hasMedia(offer.offerSdp, 'video')
      ? ['m=video 9 UDP/TLS/RTP/SAVPF 96', 'a=sendonly', 'a=rtpmap:96 VP8/90000']
      : []),
    ...(hasDataChannel(offer.offerSdp) ? ['m=application 9 UDP/DTLS/SCTP webrtc-datachannel'] : []),
    '',
  ].join('\r\n');
}
