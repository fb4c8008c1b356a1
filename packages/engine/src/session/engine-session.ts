/**
 * One avatar session in an engine process. It wires its parts together and owns nothing else:
 *
 *   speech queue (turn order) → speech source (text or audio → TurnAudio stream; streamed PCM via
 *   audio-streams.ts) → speech player (10 ms chunks, events) → audio sink;  player's mouth (half a
 *   frame ahead, at rest without speech: face-frame.ts) + animator → face state →
 *   renderer → video sink, or → the animation stream on its data channel for a viewer that draws
 *   the avatar itself; viewer peer (from the peer factory) ← playback gate (speech waits for the
 *   viewer's first frame, decoded or drawn).
 *
 * Its I/O is injected (contract/media.ts, contract/peer.ts): libwebrtc's sinks and peers in an engine
 * process (rtc/wrtc-media.ts), null ones in tests (testing/null-media.ts). It renders only for a
 * viewer whose offer has video and only with a video sink; a viewer without video (render:
 * 'client') gets each frame's state as a binary animation frame instead (face-frame.ts), decided
 * per viewer, so the next viewer may want video again. Driven by the media scheduler's `tick()`.
 */
import type { IceServer, ServerMessage } from '@mouthpiece/protocol';
import { createAnimator } from '../animation/animator.js';
import { AudioValidationError } from '../audio/wav.js';
import { CHUNK_SAMPLES, frameIntervalMs, TICK_MS } from '../clock/media-clock.js';
import type { AudioClip, EngineEvent, QueueAnswer, SayAudioAnswer, TextChunk } from '../contract/types.js';
import { EngineError } from '../contract/types.js';
import type { Renderer } from '../render/renderer.js';
import type { Peer, PeerFactory } from '../contract/peer.js';
import { AudioStreams } from './audio-streams.js';
import { clientRenderUnavailable } from './client-render.js';
import { mouthAheadSamples } from './face-frame.js';
import type { AudioSink, VideoSink } from '../contract/media.js';
import { PlaybackGate } from './playback-gate.js';
import { SessionFrames } from './session-frames.js';
import { SpeechPlayer, type PlayerEvent } from './speech-player.js';
import { SpeechQueue, type SpeechQueueOptions } from './speech-queue.js';
import type { SpeechSource } from './speech-source.js';
import type { TextTurn } from './text-turn.js';
import type { TurnAudio } from './turn-audio.js';

interface SessionParts {
  sessionId: string;
  fps: number;
  /** Wait this long for the viewer's `ready` before playing anyway. */
  readyTimeoutMs: number;
  /** Without an events channel, start this long after ICE connects. */
  noChannelStartMs: number;
  emit(event: EngineEvent): void;
  /** Where speech comes from (speech-source.ts: the process's TTS and decoder). */
  speech: SpeechSource;
  /** Where each 10 ms chunk of speech (or silence) goes while a viewer is connected. */
  audioSink: AudioSink;
  /** Answers viewers' WHEP offers. */
  peerFactory: PeerFactory;
  /** Speech waits for a viewer's first frame (default); false: it plays without one. */
  waitForViewer?: boolean;
  /** The speech queue's clock and limits (defaults: the protocol's). */
  queue?: SpeechQueueOptions;
  /**
   * Whether a viewer without video may draw this avatar itself (the operator's
   * MOUTHPIECE_CLIENT_RENDER allows its kind; default true). When not, such a viewer gets audio
   * only and one `notice` (client-render.ts) when its events channel opens.
   */
  clientRender?: boolean;
  /** The avatar's kind (vector, sprites, photo, video), named in that notice. */
  avatarKind?: string;
}

/**
 * Video: frames rendered by `renderer` into `videoSink` for a viewer whose offer has video; without
 * a sink, none are made. A renderer without a sink still picks a video avatar's frames
 * (Renderer.pick) for viewers that draw the avatar themselves.
 */
interface VideoParts {
  videoSink?: VideoSink | undefined;
  renderer?: Renderer | undefined;
}

/** What an engine process gives each of its sessions (distinct from the host's create options). */
export type EngineSessionConfig = SessionParts & VideoParts;

export class EngineSession {
  readonly id: string;
  readonly #o: EngineSessionConfig;
  readonly #queue: SpeechQueue<TurnAudio>;
  readonly #speech: SpeechSource;
  readonly #synths = new Map<string, TextTurn>();
  readonly #streams: AudioStreams;
  readonly #player = new SpeechPlayer();
  readonly #gate: PlaybackGate;
  readonly #chunk = new Int16Array(CHUNK_SAMPLES);
  /** Video and animation frames, each session on its own phase (spreads the work). */
  readonly #frames: SessionFrames;
  #viewer: Peer | undefined;
  #closed = false;
  /** Samples handed to the audio sink so far (the animation stream's stamps count them). */
  #samples = 0;

  constructor(o: EngineSessionConfig) {
    this.id = o.sessionId;
    this.#o = o;
    this.#speech = o.speech;
    this.#queue = new SpeechQueue<TurnAudio>({ finalizedBySilence: (id) => this.#finalized(id) }, o.queue);
    this.#streams = new AudioStreams({
      sessionId: o.sessionId,
      clock: o.queue?.clock,
      autoFinalizeMs: o.queue?.autoFinalizeMs,
      enqueue: (turnId, audio) => this.#addAudio(turnId, audio),
      emit: (e) => o.emit(e),
    });
    this.#gate = new PlaybackGate({ ...o, waitForViewer: o.waitForViewer ?? true }, () => this.#pump());
    this.#frames = new SessionFrames({
      fps: o.fps,
      phase: hashSeed(o.sessionId) % Math.max(1, Math.round(1000 / TICK_MS / o.fps)),
      player: this.#player,
      animator: createAnimator({ seed: hashSeed(o.sessionId) }),
      aheadSamples: mouthAheadSamples(o.fps),
      videoSink: o.videoSink,
      renderer: o.renderer,
    });
  }

  /** Frames handed to the encoder, held back unchanged (session-frames.ts), and skipped in late batches, for stats. */
  get framesSent(): number {
    return this.#frames.sent;
  }

  get framesHeld(): number {
    return this.#frames.held;
  }

  get framesSkipped(): number {
    return this.#frames.skipped;
  }

  /** Animation frames sent to viewers that draw the avatar themselves, for stats. */
  get animationFramesSent(): number {
    return this.#frames.animationSent;
  }

  sayText(chunk: TextChunk): QueueAnswer {
    const d = this.#queue.addText(chunk);
    if (d.answer !== 'queued') return d.answer;
    if (d.as === 'speak') this.#synthFor(chunk.turnId).addText(chunk.text);
    if (d.final) this.#finalized(chunk.turnId);
    return 'queued';
  }

  async sayAudio(clip: AudioClip): Promise<SayAudioAnswer> {
    let turn;
    try {
      turn = await this.#speech.audioTurn(clip);
    } catch (err) {
      if (err instanceof AudioValidationError) return { kind: 'invalid_audio', reason: err.message };
      throw err;
    }
    if (this.#closed) throw new EngineError('unknown_session', 'The session has ended');
    const answer = this.#addAudio(clip.turnId, turn.audio);
    if (answer !== 'queued') turn.audio.close();
    return answer === 'queued' ? { kind: 'queued', decodedDurationSec: turn.durationSec } : { kind: answer };
  }

  /** A clip or a stream for a turn: text already queued for it is now only its transcript. */
  #addAudio(turnId: string, audio: TurnAudio): QueueAnswer {
    const answer = this.#queue.addAudio(turnId, audio);
    if (answer !== 'queued') return answer;
    this.#synths.get(turnId)?.cancel();
    this.#synths.delete(turnId);
    this.#pump();
    return answer;
  }

  /** A turn takes no more text: what is pending is synthesized, and the head may now play. */
  #finalized(turnId: string): void {
    this.#synths.get(turnId)?.finish();
    this.#pump();
  }

  /** Streamed audio turns (audio-streams.ts): opened into the queue, playing as their audio comes. */
  get audioStreams(): AudioStreams {
    return this.#streams;
  }

  /** Stops speech now and clears the queue; returns the cleared turnIds (in play order). */
  interrupt(): string[] {
    const stopped = this.#player.stop();
    const cleared = this.#queue.interrupt();
    for (const id of cleared) {
      this.#synths.get(id)?.cancel();
      this.#synths.delete(id);
    }
    if (stopped) {
      // the next frame's mouth is at rest: the player holds no turn, so the frame has no speech
      this.#event({ type: 'speakingEnd', turnId: stopped, interrupted: true });
    }
    for (const id of cleared) this.#streams.over(id, true);
    return cleared;
  }

  /** The turn the player holds, if any. */
  get playingTurn(): string | undefined {
    return this.#player.playing;
  }

  async connectViewer(viewerId: string, offerSdp: string, iceServers: IceServer[]): Promise<string> {
    const { peer, answerSdp } = await this.#o.peerFactory.answer({
      viewerId,
      sessionId: this.id,
      offerSdp,
      iceServers,
      speaking: () => this.#player.playing, // issue 21: a page reconnecting mid-turn is told in hello
      frameMs: frameIntervalMs(this.#o.fps),
      events: {
        onConnected: () => {
          if (this.#viewer !== peer) return;
          this.#frames.viewerConnected();
          this.#o.emit({ type: 'viewerConnected', sessionId: this.id, viewerId });
          this.#gate.viewerConnected(peer.hasEvents);
        },
        onReady: () => {
          if (this.#viewer === peer) this.#gate.viewerReady();
        },
        onDisconnected: () => {
          if (this.#viewer === peer)
            this.#o.emit({ type: 'viewerDisconnected', sessionId: this.id, viewerId });
        },
        // issue 21: speech queued while the viewer is lost waits for it (or the next one) to be ready;
        // the turn playing plays on (no interrupt is invented), the next does not start into the void
        onLost: () => {
          if (this.#viewer === peer) this.#gate.newViewer(false);
        },
        // to this peer alone, adopted yet or not: it is about how this offer is served
        onChannelOpen: () => {
          if (!peer.hasVideo && !this.#drawsAllowed)
            peer.send(clientRenderUnavailable(this.#o.avatarKind ?? 'this'));
        },
      },
    });
    if (this.#closed) {
      peer.close();
      throw new EngineError('unknown_session', 'The session has ended');
    }
    const previous = this.#viewer;
    this.#viewer = peer;
    if (previous) {
      previous.closeWith({ type: 'replaced' }); // the displaced page stops instead of reconnecting
      this.#o.emit({ type: 'viewerDisconnected', sessionId: this.id, viewerId: previous.viewerId });
    }
    this.#gate.newViewer(this.#player.playing !== undefined);
    return answerSdp;
  }

  async addIceCandidates(viewerId: string, fragment: string): Promise<void> {
    await this.#viewerById(viewerId).addIceCandidates(fragment);
  }

  disconnectViewer(viewerId: string): void {
    this.#viewerById(viewerId).close();
    this.#viewer = undefined;
    this.#gate.newViewer(false); // issue 21: nothing new starts until a viewer is ready again
    this.#o.emit({ type: 'viewerDisconnected', sessionId: this.id, viewerId });
  }

  /**
   * One 10 ms media tick: audio every tick, a video or animation frame when one is due
   * (session-frames.ts: staggered per session; in a late batch of `ticksLeft` more ticks a video
   * frame may be skipped, an animation frame never).
   */
  tick(tickIndex: number, ticksLeft = 0): void {
    if (this.#closed) return;
    for (const e of this.#player.pull(this.#chunk)) this.#onPlayerEvent(e);
    const viewer = this.#viewer;
    if (!viewer) return;
    this.#o.audioSink.write(this.#chunk);
    this.#samples += CHUNK_SAMPLES;
    // a viewer without video draws the avatar itself (from the animation stream on its channel),
    // where the operator allows this avatar's kind; else it gets audio alone
    const draws = !viewer.hasVideo;
    if (draws ? !viewer.hasEvents || !this.#drawsAllowed : !this.#frames.hasVideo) return;
    this.#frames.tick(viewer, draws, tickIndex, ticksLeft, this.#samples);
  }

  close(reason: string): void {
    if (this.#closed) return;
    this.#viewer?.send({ type: 'sessionEnded', reason });
    this.#closed = true;
    this.#gate.close();
    this.#player.stop();
    for (const s of this.#synths.values()) s.cancel();
    this.#synths.clear();
    this.#streams.close();
    this.#speech.close(); // withdraws whatever this session still had waiting
    this.#queue.close();
    this.#viewer?.close();
    this.#viewer = undefined;
    this.#frames.close();
  }

  #onPlayerEvent(e: PlayerEvent): void {
    if (e.type === 'speakingStart') this.#frames.speechStarts(); // its first mouth drawn now (frame-clock.ts)
    switch (e.type) {
      case 'speakingStart':
      case 'speakingEnd':
        this.#event(e);
        break;
      case 'word':
        this.#viewer?.send(e);
        this.#o.emit({
          type: 'word',
          sessionId: this.id,
          turnId: e.turnId,
          text: e.text,
          offsetMs: e.startMs,
        });
        break;
      case 'failed':
        this.#viewer?.send({ type: 'turnFailed', turnId: e.turnId, reason: e.reason });
        this.#o.emit({ ...e, type: 'turnFailed', sessionId: this.id });
        break;
      case 'done':
        this.#synths.get(e.turnId)?.cancel(); // a failed turn's requests still in flight
        this.#synths.delete(e.turnId);
        this.#queue.finishPlaying(e.turnId);
        this.#streams.over(e.turnId, false);
        this.#pump();
        break;
    }
  }

  #event(e: Extract<ServerMessage, { type: 'speakingStart' | 'speakingEnd' }>): void {
    this.#viewer?.send(e);
    this.#o.emit(
      e.type === 'speakingStart'
        ? { type: 'speakingStart', sessionId: this.id, turnId: e.turnId }
        : { type: 'speakingEnd', sessionId: this.id, turnId: e.turnId, interrupted: e.interrupted },
    );
  }

  /** Starts the next turn when the gate is open and nothing plays. */
  #pump(): void {
    if (!this.#gate.open || this.#player.playing || this.#closed) return;
    const turn = this.#queue.startHead();
    if (!turn) return;
    if (turn.kind === 'audio' && turn.audio) {
      this.#player.start(turn.audio);
      const transcript = turn.chunks.join('').trim();
      if (transcript) void this.#speech.addTranscript(turn.audio, transcript);
    } else {
      const synth = this.#synthFor(turn.turnId);
      synth.finish();
      this.#player.start(synth.audio);
    }
  }

  #synthFor(turnId: string): TextTurn {
    let s = this.#synths.get(turnId);
    if (!s) {
      s = this.#speech.textTurn(turnId);
      this.#synths.set(turnId, s);
    }
    return s;
  }

  get #drawsAllowed(): boolean {
    return this.#o.clientRender ?? true;
  }

  #viewerById(viewerId: string): Peer {
    if (!this.#viewer || this.#viewer.viewerId !== viewerId)
      throw new EngineError('unknown_viewer', 'No such viewer');
    return this.#viewer;
  }
}

function hashSeed(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}
