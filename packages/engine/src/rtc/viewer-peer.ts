/**
 * One WHEP viewer: a libwebrtc peer that answers the viewer's offer with our audio and video
 * tracks (VP8 preferred, started at VIDEO_START_BITRATE_KBPS; Opus) once its UDP candidates are
 * gathered (gathering.ts: the answer is all a player learns of them), and carries the `events` data channel when the offer has one (JSON text messages,
 * and binary animation frames for a viewer whose offer has no video m-line: it draws the avatar),
 * and the `frames` channel when the viewer opens one: the animation frames then go there, latest
 * wins (latest-wins.ts), and the events channel carries control messages alone.
 */
import wrtc, {
  type MediaStreamTrack,
  type RTCDataChannel,
  type RTCPeerConnection,
  type RtcIceServer,
} from '@roamhq/wrtc';
import {
  DATA_CHANNEL_LABEL,
  FRAMES_CHANNEL_LABEL,
  parseClientMessage,
  type ServerMessage,
} from '@mouthpiece/protocol';
import { EngineError } from '../contract/types.js';
import { CLIENT_RENDER_OPUS, helloMessage } from './hello.js';
import { LatestWins } from './latest-wins.js';
import type { Peer, PeerEvents } from '../contract/peer.js';
import { filterOfferCandidates } from './candidate-filter.js';
import { answerCandidatesReady } from './gathering.js';
import {
  hasDataChannel,
  hasMedia,
  offerProblem,
  parseSdpFragment,
  preferCodec,
  VIDEO_START_BITRATE_KBPS,
  withOpusSendParams,
  withVideoStartBitrate,
} from './sdp.js';

/** Nothing received from a connected viewer for this long: it is gone (see #watchSilence). */
export const SILENT_LOST_MS = 2000;
const SILENCE_POLL_MS = 500;

export class ViewerPeer implements Peer {
  readonly viewerId: string;
  readonly hasEvents: boolean;
  readonly hasVideo: boolean;
  readonly #pc: RTCPeerConnection;
  readonly #tracks: MediaStreamTrack[];
  #channel: RTCDataChannel | undefined;
  /**
   * The events channel's sender while it is open, as its events said: asking libwebrtc
   * (`readyState`) is a call to another thread, which at 25 animation frames a second per session
   * cost as much as the send itself.
   */
  #events: LatestWins | undefined;
  /** The frames channel's sender while it is open (a viewer that opened one). */
  #frames: LatestWins | undefined;
  #framesChannel: RTCDataChannel | undefined;
  #closed = false;
  #connected = false;
  #ready = false;
  readonly #accept: (candidate: string) => boolean;
  #helloSent = false;
  #silence: NodeJS.Timeout | undefined;

  private constructor(
    viewerId: string,
    pc: RTCPeerConnection,
    tracks: MediaStreamTrack[],
    has: { events: boolean; video: boolean },
    accept: (candidate: string) => boolean,
  ) {
    this.#accept = accept;
    this.viewerId = viewerId;
    this.#pc = pc;
    this.#tracks = tracks;
    this.hasEvents = has.events;
    this.hasVideo = has.video;
  }

  static async answer(opts: {
    viewerId: string;
    sessionId: string;
    offerSdp: string;
    iceServers: RtcIceServer[];
    /** Absent: a session that sends no video (its video transceiver stays empty). */
    video?: MediaStreamTrack | undefined;
    audio: MediaStreamTrack;
    events: PeerEvents;
    /** The session's video frame interval, told in `hello` (rtc/hello.ts). */
    frameMs: number;
    /** Which of the viewer's ICE candidates to use (candidate-filter.ts); all when absent. */
    acceptCandidate?: (candidate: string) => boolean;
    /** The ports this peer may bind (wrtc-media.ts). */
    portRange?: { min: number; max: number };
    /** The turn playing now, told in `hello` (a page that reconnects mid-turn learns it still plays). */
    speaking?: () => string | undefined;
  }): Promise<{ peer: ViewerPeer; answerSdp: string }> {
    const { offerSdp } = opts;
    const problem = offerProblem(offerSdp);
    if (problem) {
      opts.video?.stop();
      opts.audio.stop();
      throw new EngineError(problem.code, problem.message);
    }
    const pc = new wrtc.RTCPeerConnection({
      iceServers: opts.iceServers,
      bundlePolicy: 'max-bundle',
      ...(opts.portRange ? { portRange: opts.portRange } : {}),
    });
    const accept = opts.acceptCandidate ?? (() => true);
    const peer = new ViewerPeer(
      opts.viewerId,
      pc,
      opts.video ? [opts.video, opts.audio] : [opts.audio],
      { events: hasDataChannel(offerSdp), video: hasMedia(offerSdp, 'video') },
      accept,
    );
    pc.ondatachannel = ({ channel }) => {
      if (channel.label === FRAMES_CHANNEL_LABEL) peer.#attachFrames(channel);
      else peer.#attachChannel(channel, opts, opts.speaking ?? (() => undefined));
    };
    const onState = (): void => {
      const s = pc.connectionState;
      if (s === 'connected' && !peer.#connected) {
        peer.#connected = true;
        opts.events.onConnected();
        peer.#watchSilence(opts.events);
        return;
      }
      if (s === 'disconnected' || s === 'failed') peer.#lost(opts.events);
      if ((s === 'failed' || s === 'closed') && !peer.#closed) opts.events.onDisconnected();
    };
    pc.onconnectionstatechange = onState;
    try {
      const offer = peer.hasVideo ? offerSdp : withOpusSendParams(offerSdp, CLIENT_RENDER_OPUS);
      const sdp = filterOfferCandidates(
        withVideoStartBitrate(preferCodec(offer, 'video', 'VP8'), VIDEO_START_BITRATE_KBPS),
        accept,
      );
      await pc.setRemoteDescription({ type: 'offer', sdp });
      // both tracks in one stream: the answer's msid puts them in one sync group, so the browser
      // plays video in step with audio (without it each plays out on its own delay)
      const stream = new wrtc.MediaStream();
      for (const tr of pc.getTransceivers()) {
        const kind = tr.receiver.track.kind;
        await tr.sender.replaceTrack(kind === 'video' ? (opts.video ?? null) : opts.audio);
        tr.sender.setStreams(stream);
        tr.direction = 'sendonly';
      }
      const answer = await pc.createAnswer();
      await pc.setLocalDescription(answer);
      await answerCandidatesReady(pc);
    } catch (err) {
      peer.close();
      if (err instanceof EngineError) throw err;
      const message = err instanceof Error ? err.message : String(err);
      throw /send parameters|codec/i.test(message)
        ? new EngineError('unsupported_offer', `The offer cannot be answered: ${message}`)
        : new EngineError('invalid_request', `The offer cannot be answered: ${message}`);
    }
    return { peer, answerSdp: pc.localDescription?.sdp ?? '' };
  }

  async addIceCandidates(fragment: string): Promise<void> {
    const { candidates } = parseSdpFragment(fragment);
    for (const c of candidates.filter((x) => this.#accept(x.candidate))) {
      try {
        await this.#pc.addIceCandidate(c);
      } catch {
        // a candidate we cannot use (other family, bad line) is skipped, as browsers do
      }
    }
  }

  send(message: ServerMessage): void {
    try {
      this.#events?.text(JSON.stringify(message));
    } catch {
      this.#events = undefined; // it closed under us; the next state change reports it
    }
  }

  /** An animation frame: on the frames channel when the viewer opened one, else on events. */
  sendBinary(message: Uint8Array): void {
    const frames = this.#frames;
    try {
      (frames ?? this.#events)?.frame(message);
    } catch {
      if (frames)
        this.#frames = undefined; // (the next frame goes on events)
      else this.#events = undefined;
    }
  }

  /**
   * Sends a last message, stops the media at once, and closes the connection once the message
   * has left (the channel's buffer drained) or after `maxWaitMs`.
   */
  closeWith(message: ServerMessage, maxWaitMs = 1000): void {
    if (this.#closed) return;
    this.send(message);
    for (const t of this.#tracks) t.stop();
    const started = Date.now();
    const poll = (): void => {
      const buffered = this.#channel?.readyState === 'open' ? this.#channel.bufferedAmount : 0;
      if (buffered === 0 || Date.now() - started >= maxWaitMs) setTimeout(() => this.close(), 100);
      else setTimeout(poll, 20);
    };
    poll();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#silence);
    this.#events = undefined;
    this.#frames = undefined;
    for (const ch of [this.#channel, this.#framesChannel])
      try {
        ch?.close();
      } catch {
        // already closed
      }
    for (const t of this.#tracks) t.stop();
    this.#pc.close();
  }

  /** ICE lost the viewer, or nothing came from it for SILENT_LOST_MS: tell once (until it is back). */
  #lost(events: PeerEvents): void {
    if (!this.#connected || this.#closed) return;
    this.#connected = false;
    events.onLost?.();
  }

  /**
   * Issue 21: a viewer whose network went away is noticed in about two seconds, not after ICE's
   * own timeouts (5–7 s here): a live browser sends RTCP feedback several times a second, so bytes
   * received on the transport that stop moving for SILENT_LOST_MS mean it is gone (onLost); bytes
   * moving again on a connected peer bring it back (onConnected).
   */
  #watchSilence(events: PeerEvents): void {
    if (this.#silence || !events.onLost) return;
    let received = -1;
    let movedAt = Date.now();
    let polling = false;
    this.#silence = setInterval(() => {
      if (polling || this.#closed) return;
      polling = true;
      void this.#pc
        .getStats()
        .then((stats) => {
          let bytes = 0;
          stats.forEach((r) => {
            if (r.type === 'transport') bytes += r.bytesReceived ?? 0;
          });
          const now = Date.now();
          if (bytes !== received) {
            received = bytes;
            movedAt = now;
            if (!this.#connected && !this.#closed && this.#pc.connectionState === 'connected') {
              this.#connected = true;
              events.onConnected();
            }
          } else if (now - movedAt >= SILENT_LOST_MS) this.#lost(events);
        })
        .catch(() => undefined)
        .finally(() => (polling = false));
    }, SILENCE_POLL_MS);
  }

  /** The viewer's `frames` channel (unordered, no retransmits): the animation stream's own. */
  #attachFrames(channel: RTCDataChannel): void {
    if (this.#closed) return;
    this.#framesChannel = channel;
    const open = (): void => {
      this.#frames = new LatestWins(channel);
    };
    channel.onclose = () => {
      this.#frames = undefined;
    };
    channel.onopen = open;
    if (channel.readyState === 'open') open();
  }

  #attachChannel(
    channel: RTCDataChannel,
    o: { sessionId: string; frameMs: number; events: PeerEvents },
    speaking: () => string | undefined,
  ): void {
    if (channel.label !== DATA_CHANNEL_LABEL) return;
    this.#channel = channel;
    if (channel.readyState === 'open') this.#events = new LatestWins(channel);
    channel.onclose = () => {
      this.#events = undefined;
    };
    const hello = (): void => {
      if (this.#helloSent) return; // once, whether the channel opened before or after this
      this.#helloSent = true;
      const { sessionId, frameMs, events } = o;
      this.send(helloMessage({ sessionId, frameMs, hasVideo: this.hasVideo, speaking: speaking() }));
      events.onChannelOpen?.();
    };
    channel.onopen = () => {
      this.#events ??= new LatestWins(channel);
      hello();
    };
    channel.onmessage = ({ data }) => {
      if (parseClientMessage(data)?.type === 'ready' && !this.#ready) {
        this.#ready = true;
        o.events.onReady();
      }
    };
    if (channel.readyState === 'open') hello();
  }
}
