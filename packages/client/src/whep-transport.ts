/**
 * One WHEP viewer connection, whole: its peer connection (recvonly video and audio; with client
 * rendering audio alone, which asks the server for the animation stream instead of video), the
 * `events` data channel (and with client rendering the `frames` channel the animation stream comes
 * on: unordered, never retransmitted), every DOM handler on them, ICE trickle, and the watchers of its media
 * (first frame, stalled video or animation, speech heard in its audio). It tells its owner what happens through one
 * typed emitter. `close()` removes every handler at once (one AbortSignal), stops the watchers
 * and silences the emitter, so a closed transport's late events never reach anyone: reconnecting
 * is "close the old transport, open a new one", with nothing to compare.
 */
import {
  ClientErrorCode,
  DATA_CHANNEL_LABEL,
  FRAMES_CHANNEL_INIT,
  FRAMES_CHANNEL_LABEL,
  TypedEmitter,
  decodeAnimationFrame,
  parseServerMessage,
  type AnimationFrame,
  type ClientMessage,
  type EventCallbacks,
  type ServerMessage,
} from '@mouthpiece/protocol';
import { MouthpieceError } from './errors.js';
import type { Logger } from './logger.js';
import { MediaWatchdog, videoPackets } from './media-watchdog.js';
import { SpeechFallback } from './speech-detector.js';
import { watchFirstFrame } from './video-element.js';
import {
  browserWhepIo,
  deleteResource,
  gathered,
  patchCandidates,
  postOffer,
  whepFailure,
  type WhepIo,
} from './whep-client.js';

/** What a transport reports, by event name (a closed map: a misspelt name does not compile). */
export interface WhepTransportEvents {
  /** A server message on the events channel (unknown or malformed ones are dropped). */
  message: ServerMessage;
  /** The peer connection's state moved. */
  peerState: { state: RTCPeerConnectionState };
  /**
   * The first decoded video frame, or with client rendering the first drawn one (drawn()): the
   * transport has told the server `ready`.
   */
  firstFrame: { width: number; height: number };
  /** The video (client rendering: the animation frames) stopped arriving (media-watchdog.ts). */
  stall: Record<string, never>;
  /** Client rendering: an animation frame, and when it arrived (performance.now()). */
  animation: { frame: AnimationFrame; arrivalMs: number };
  /** Speech started or ended in the received audio (the fallback without the events channel). */
  audioSpeaking: { speaking: boolean };
}

export interface WhepTransportOptions {
  whepUrl: string;
  iceServers: RTCIceServer[];
  iceTransportPolicy: RTCIceTransportPolicy;
  speakingDetection: 'auto' | 'audio';
  /** `client`: offer no video, and read the animation stream (the SDK's `render: 'client'`). */
  render?: 'video' | 'client';
  /** The page's video element, when one is attached (the first frame is seen there). */
  video: () => HTMLVideoElement | undefined;
  log: Logger;
  /** Give up an offer (gathering and the POST) that has no answer after this long. */
  openTimeoutMs?: number;
  /**
   * The server takes trickled candidates (init-client's `trickleIce`, or an earlier answer's
   * Accept-Patch): the offer goes at once, every candidate by PATCH. Else the offer waits for
   * ICE gathering (whep-client.ts gathered), as a server that takes no PATCH needs.
   */
  trickle?: boolean;
  /** Abandons the offer while it has no answer (a reconnect attempt overtaken: viewer-link.ts). */
  signal?: AbortSignal;
  /**
   * This page's offer number (`<page>.<n>`, rising), sent as `order` in the whepUrl's query: the
   * server refuses an older offer of the page that arrives after a newer one (an abandoned
   * request delivered late would replace the newer viewer: packages/server/src/routes/whep-order.ts).
   */
  order?: string;
}

/** How long an offer (gathering, then the POST) may take before it is abandoned. */
export const WHEP_OPEN_TIMEOUT_MS = 8000;

/** The error of an offer abandoned by its owner (`details.code`). */
export function abandoned(): MouthpieceError {
  return new MouthpieceError(ClientErrorCode.RTC_CONNECTION_FAILED, 'The WHEP offer was abandoned', {
    code: 'ABORTED',
  });
}

/** The error of an offer or a connection abandoned after its bound (`details.code`). */
export function timedOut(what: string, ms: number): MouthpieceError {
  return new MouthpieceError(ClientErrorCode.RTC_CONNECTION_FAILED, `${what} timed out (${ms} ms)`, {
    code: 'TIMEOUT',
  });
}

/**
 * Whether an answer names candidates and every one is a loopback address. A browser never
 * connects to those (Chromium refuses loopback peers unless started with a flag), so such an answer
 * cannot connect: the server's own network was down when it gathered (it answers with its loopback
 * interfaces alone until its WebRTC stack sees an interface again, up to 2 s after it is back).
 */
export function answersOnlyLoopback(sdp: string): boolean {
  const addresses = (sdp.match(/^a=candidate:.*$/gm) ?? []).map((c) => c.split(' ')[4] ?? '');
  return addresses.length > 0 && addresses.every((a) => /^127\./.test(a) || a === '::1');
}

/** Where ICE candidates go: in the offer, held until the answer, trickled by PATCH, or nowhere. */
type IcePhase = 'offer' | 'held' | 'trickle' | 'dropped';

export class WhepTransport {
  readonly stream: MediaStream;
  readonly #pc: RTCPeerConnection;
  readonly #channel: RTCDataChannel;
  /** Client rendering: the animation stream's own channel (an older server sends it on #channel). */
  readonly #frames: RTCDataChannel | undefined;
  readonly #io: WhepIo;
  readonly #log: Logger;
  readonly #events: TypedEmitter<WhepTransportEvents>;
  /** Every DOM handler of this connection is added with this signal: one abort removes them all. */
  readonly #handlers = new AbortController();
  readonly #stopWatchers: Array<() => void> = [];
  #resource: string | undefined;
  #ice: IcePhase = 'offer';
  readonly #held: RTCIceCandidate[] = [];
  #closed: Promise<void> | undefined;
  readonly #client: boolean;
  #animationFrames = 0;
  #drawn = false;
  #trickle = false;
  /** The answer named loopback addresses alone (answersOnlyLoopback): it cannot connect. */
  #unreachable = false;

  /**
   * Opens a viewer: offer (after gathering), answer, trickle; then watches its media. Rejects with
   * a MouthpieceError (SESSION_NOT_FOUND when the offer was answered 404 or 410), the peer closed.
   */
  static async open(o: WhepTransportOptions, io: WhepIo = browserWhepIo): Promise<WhepTransport> {
    const t = new WhepTransport(o, io);
    const bound = o.openTimeoutMs ?? WHEP_OPEN_TIMEOUT_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    try {
      if (o.signal?.aborted) throw abandoned();
      await Promise.race([
        t.#negotiate(o.order ? withQuery(o.whepUrl, 'order', o.order) : o.whepUrl, o.trickle === true),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(timedOut('The WHEP offer', bound)), bound);
          onAbort = () => reject(abandoned());
          o.signal?.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
    } catch (err) {
      void t.close({ sessionGone: true });
      throw whepFailure(err);
    } finally {
      clearTimeout(timer);
      if (onAbort) o.signal?.removeEventListener('abort', onAbort);
    }
    t.#watch(o);
    return t;
  }

  private constructor(o: WhepTransportOptions, io: WhepIo) {
    this.#io = io;
    this.#log = o.log;
    this.#client = o.render === 'client';
    this.#events = new TypedEmitter<WhepTransportEvents>((err, event) =>
      o.log.error(`a transport "${String(event)}" listener threw`, err),
    );
    const pc = io.peer({
      iceServers: o.iceServers,
      iceTransportPolicy: o.iceTransportPolicy,
      bundlePolicy: 'max-bundle',
    });
    this.#pc = pc;
    this.stream = new MediaStream();
    // an offer without video asks for the animation stream (docs/design.md §13.3)
    if (!this.#client) pc.addTransceiver('video', { direction: 'recvonly' });
    pc.addTransceiver('audio', { direction: 'recvonly' });
    this.#channel = pc.createDataChannel(DATA_CHANNEL_LABEL, { ordered: true });
    this.#channel.binaryType = 'arraybuffer';
    const signal = this.#handlers.signal;
    pc.addEventListener('track', (e) => this.stream.addTrack(e.track), { signal });
    pc.addEventListener('icecandidate', (e) => this.#candidate(e.candidate), { signal });
    pc.addEventListener(
      'connectionstatechange',
      () => this.#events.emit('peerState', { state: pc.connectionState }),
      { signal },
    );
    this.#channel.addEventListener('message', (e: MessageEvent<unknown>) => this.#onChannelMessage(e.data), {
      signal,
    });
    if (!this.#client) return;
    // latest wins: a late frame is not retransmitted, and control messages never wait behind frames
    this.#frames = pc.createDataChannel(FRAMES_CHANNEL_LABEL, { ...FRAMES_CHANNEL_INIT });
    this.#frames.binaryType = 'arraybuffer';
    this.#frames.addEventListener('message', (e: MessageEvent<unknown>) => this.#onFrame(e.data), { signal });
  }

  /**
   * Client rendering: the canvas drew its first frame of this connection. Tells the server `ready`
   * (speech waits for it) and reports `firstFrame`, once.
   */
  drawn(size: { width: number; height: number }): void {
    if (this.#drawn || this.#closed) return;
    this.#drawn = true;
    this.send({ type: 'ready' });
    this.#events.emit('firstFrame', size);
  }

  /** The connection's stats (the audio delay that places animation frames). */
  stats(): Promise<RTCStatsReport> {
    return this.#pc.getStats();
  }

  get closed(): boolean {
    return this.#closed !== undefined;
  }

  /** The server's answer said it takes trickled candidates (Accept-Patch). */
  get trickle(): boolean {
    return this.#trickle;
  }

  /**
   * Resolves when the peer connection is `connected` (at once if it is); rejects when it fails
   * or closes, or after `timeoutMs`. The transport stays open either way: its owner closes it.
   */
  whenConnected(timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.#pc.connectionState === 'connected') return resolve();
      // no wait for ICE to time out on an answer it cannot connect with: the next attempt may
      // find the server's network back
      if (this.#unreachable)
        return reject(
          new MouthpieceError(
            ClientErrorCode.RTC_CONNECTION_FAILED,
            "The server's answer names only loopback addresses (its network was not up yet)",
          ),
        );
      const timer = setTimeout(() => {
        off();
        reject(timedOut('The WebRTC connection', timeoutMs));
      }, timeoutMs);
      const off = this.on('peerState', ({ state }) => {
        if (state !== 'connected' && state !== 'failed' && state !== 'closed') return;
        clearTimeout(timer);
        off();
        if (state === 'connected') resolve();
        else reject(new MouthpieceError(ClientErrorCode.RTC_CONNECTION_FAILED, `WebRTC connection ${state}`));
      });
      if (this.#closed) {
        clearTimeout(timer);
        reject(new MouthpieceError(ClientErrorCode.RTC_CONNECTION_FAILED, 'The connection was closed'));
      }
    });
  }

  on<K extends keyof WhepTransportEvents>(
    event: K,
    listener: EventCallbacks<WhepTransportEvents>[K],
  ): () => void {
    return this.#events.on(event, listener);
  }

  /** Sends a message on the events channel, now or once it opens; nothing once closed. */
  send(m: ClientMessage): void {
    if (this.#closed) return;
    const send = (): void => this.#channel.send(JSON.stringify(m));
    if (this.#channel.readyState === 'open') send();
    else this.#channel.addEventListener('open', send, { once: true, signal: this.#handlers.signal });
  }

  /**
   * Closes the viewer (idempotent: a second call returns the first one's promise): removes every
   * handler, stops the watchers, DELETEs the resource unless the session is known to be gone
   * (the server ended it, or a newer viewer replaced this one: the DELETE could only answer 404
   * or 410, which a browser prints as a console error), and closes the peer. Resolves once the
   * DELETE is answered or has waited long enough (whep-client.ts DELETE_WAIT_MS); never rejects.
   */
  close(o: { keepalive?: boolean; sessionGone?: boolean } = {}): Promise<void> {
    if (this.#closed) return this.#closed;
    this.#handlers.abort();
    this.#events.removeAllListeners();
    for (const stop of this.#stopWatchers.splice(0)) stop();
    this.#ice = 'dropped';
    this.#closed =
      o.sessionGone || this.#resource === undefined
        ? Promise.resolve()
        : deleteResource(this.#io, this.#resource, o.keepalive === true);
    this.#channel.close();
    this.#frames?.close();
    this.#pc.close();
    return this.#closed;
  }

  /**
   * Offer → answer. `early` (the server takes PATCH): the offer leaves at once and every candidate
   * is held until the answer names the resource, then PATCHed; else the offer waits for gathering
   * and carries the candidates, and later ones are PATCHed only if the answer allows it.
   */
  async #negotiate(whepUrl: string, early: boolean): Promise<void> {
    const pc = this.#pc;
    if (early) this.#ice = 'held';
    await pc.setLocalDescription(await pc.createOffer());
    if (!early) {
      await gathered(pc, this.#handlers.signal);
      this.#ice = 'held';
    }
    const offerSdp = pc.localDescription!.sdp;
    const answer = await postOffer(this.#io, whepUrl, offerSdp, this.#handlers.signal);
    this.#resource = answer.resource;
    this.#trickle = answer.trickle;
    this.#unreachable = answersOnlyLoopback(answer.sdp);
    const held = this.#held.splice(0).filter((c) => !offerSdp.includes(c.candidate));
    this.#ice = answer.trickle ? 'trickle' : 'dropped';
    if (answer.trickle) patchCandidates(this.#io, answer.resource, held);
    else if (early) this.#log.warn('the WHEP server takes no trickled candidates; ICE goes on without ours');
    await pc.setRemoteDescription({ type: 'answer', sdp: answer.sdp });
  }

  #candidate(c: RTCIceCandidate | null): void {
    if (!c) return;
    switch (this.#ice) {
      case 'held':
        this.#held.push(c);
        break;
      case 'trickle':
        patchCandidates(this.#io, this.#resource!, [c]);
        break;
      case 'offer': // gathered before the offer left: the offer carries it
      case 'dropped':
        break;
    }
  }

  #onChannelMessage(data: unknown): void {
    if (typeof data !== 'string') return this.#onFrame(data); // (an older server's frames come here)
    const m = parseServerMessage(data);
    if (m) this.#events.emit('message', m);
  }

  /** Every binary message is an animation frame; another version decodes as undefined. */
  #onFrame(data: unknown): void {
    const frame = decodeAnimationFrame(data);
    if (frame && this.#client) {
      this.#animationFrames++;
      this.#events.emit('animation', { frame, arrivalMs: performance.now() });
    }
  }

  #watch(o: WhepTransportOptions): void {
    // with client rendering, `ready` waits for the first drawn frame (drawn())
    const firstFrame = this.#client
      ? () => undefined
      : watchFirstFrame(this.#pc, o.video, (width, height) => {
          this.send({ type: 'ready' }); // speech waits for it: the first words are seen spoken
          this.#events.emit('firstFrame', { width, height });
        });
    const watchdog = new MediaWatchdog(
      this.#client ? () => this.#animationFrames : videoPackets(this.#pc),
      () => this.#events.emit('stall', {}),
    );
    const fallback = new SpeechFallback(
      { stream: this.stream, channel: this.#channel },
      o.speakingDetection,
      {
        started: () => this.#log.info('speaking events from the received audio'),
        start: () => this.#events.emit('audioSpeaking', { speaking: true }),
        end: () => this.#events.emit('audioSpeaking', { speaking: false }),
      },
    );
    this.#stopWatchers.push(
      firstFrame,
      () => watchdog.stop(),
      () => fallback.stop(),
    );
  }
}

/** The URL with one more query parameter. */
function withQuery(url: string, name: string, value: string): string {
  const u = new URL(url);
  u.searchParams.set(name, value);
  return u.toString();
}
