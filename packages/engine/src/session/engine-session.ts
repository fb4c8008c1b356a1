/**
 * One avatar session in an engine process. It wires its parts together and owns nothing else:
 *
 *   speech queue (turn order) → speech source (text or audio → TurnAudio) → speech player (10 ms
 *   chunks, events) → audio source;  player's mouth → mouth driver → renderer → video source;
 *   viewer peer (WHEP) ← playback gate (speech waits for the viewer's first frame).
 *
 * Driven by the process's media scheduler through `tick()`.
 */
import wrtc, { type RtcIceServer } from '@roamhq/wrtc';
import type { ServerMessage } from '@mouthpiece/protocol';
import { createAnimator, type Animator } from '../animation/animator.js';
import { AudioValidationError } from '../audio/decode.js';
import type { AudioDecoder } from '../audio/decoder.js';
import type { AnyAvatarManifest } from '../avatar/manifest.js';
import { CHUNK_SAMPLES, SAMPLE_RATE_HZ, TICK_MS } from '../clock/media-clock.js';
import type { AudioClip, EngineEvent, QueueAnswer, SayAudioAnswer, TextChunk } from '../host/types.js';
import { EngineError } from '../host/types.js';
import { createAvatarRenderer } from '../render/avatar-renderer.js';
import type { Renderer } from '../render/renderer.js';
import { ViewerPeer } from '../rtc/viewer-peer.js';
import type { SynthesisLane, SynthesisScheduler } from '../speech/synthesis-scheduler.js';
import { FrameClock } from './frame-clock.js';
import { MouthDriver } from './mouth-driver.js';
import { PlaybackGate } from './playback-gate.js';
import { SpeechPlayer, type PlayerEvent } from './speech-player.js';
import { SpeechQueue } from './speech-queue.js';
import { createSpeechSource, type SpeechSource } from './speech-source.js';
import type { TextTurnSynth, TurnAudio } from './turn-audio.js';

/** What an engine process gives each of its sessions (distinct from the host's create options). */
export interface EngineSessionConfig {
  sessionId: string;
  avatar: AnyAvatarManifest;
  /** The pack's folder (a photo avatar's portrait is read from it). */
  avatarDir?: string;
  /** A flat background colour replacing the avatar's (vector and sprite avatars). */
  background?: string | undefined;
  voiceId: string;
  voiceSpeed: number;
  /** The process's fair synthesis scheduler; the session synthesizes through its own lane. */
  synthesis: SynthesisScheduler;
  decoder: AudioDecoder;
  width: number;
  height: number;
  fps: number;
  /** Wait this long for the viewer's `ready` before playing anyway. */
  readyTimeoutMs: number;
  /** Without an events channel, start this long after ICE connects. */
  noChannelStartMs: number;
  emit(event: EngineEvent): void;
  /** The face (default: the avatar's vector renderer); any `Renderer` drops in. */
  renderer?: Renderer;
  /** Where speech comes from (default: the TTS and decoder above). */
  speech?: SpeechSource;
  /** Which of a viewer's ICE candidates to use (rtc/candidate-filter.ts). */
  acceptCandidate?: (candidate: string) => boolean;
}

export class EngineSession {
  readonly id: string;
  readonly #o: EngineSessionConfig;
  readonly #queue = new SpeechQueue<{ audio: TurnAudio }>();
  readonly #speech: SpeechSource;
  readonly #lane: SynthesisLane;
  readonly #synths = new Map<string, TextTurnSynth>();
  readonly #player = new SpeechPlayer();
  readonly #mouth: MouthDriver;
  readonly #gate: PlaybackGate;
  readonly #renderer: Renderer;
  readonly #animator: Animator;
  /** Rendered frames have no sensor noise: VP8's denoiser would only cost encode time (≈ 25 %). */
  readonly #videoSource = new wrtc.nonstandard.RTCVideoSource({ needsDenoising: false });
  readonly #audioSource = new wrtc.nonstandard.RTCAudioSource();
  readonly #i420: Uint8Array;
  readonly #chunk = new Int16Array(CHUNK_SAMPLES);
  /** Which frame each tick begins; each session on its own phase (spreads the work). */
  readonly #frames: FrameClock;
  #viewer: ViewerPeer | undefined;
  #closed = false;
  /** Frames rendered and skipped, for stats. */
  framesSent = 0;
  framesSkipped = 0;

  constructor(o: EngineSessionConfig) {
    this.id = o.sessionId;
    this.#o = o;
    this.#lane = o.synthesis.lane(o.sessionId, () => this.#ahead());
    this.#speech =
      o.speech ??
      createSpeechSource({ tts: this.#lane, decoder: o.decoder, voiceId: o.voiceId, speed: o.voiceSpeed });
    this.#renderer =
      o.renderer ??
      createAvatarRenderer(o.avatar, { width: o.width, height: o.height }, o.avatarDir, {
        background: o.background,
        fps: o.fps,
      });
    this.#animator = createAnimator({ seed: hashSeed(o.sessionId) });
    this.#mouth = new MouthDriver(o.fps);
    this.#gate = new PlaybackGate(o, () => this.#pump());
    this.#frames = new FrameClock({
      phase: hashSeed(o.sessionId) % Math.max(1, Math.round(1000 / TICK_MS / o.fps)),
      fps: o.fps,
    });
    this.#i420 = new Uint8Array((o.width * o.height * 3) / 2);
    this.#queue.onEvent((e) => {
      switch (e.type) {
        case 'chunk':
          this.#synthFor(e.turnId).addText(e.text);
          break;
        case 'final':
          this.#synths.get(e.turnId)?.finish();
          break;
        case 'audio':
          this.#synths.get(e.turnId)?.cancel(); // its text is now only the transcript
          this.#synths.delete(e.turnId);
          break;
        case 'ready':
          this.#pump();
          break;
        case 'transcript':
        case 'cleared':
          break;
      }
    });
  }

  sayText(chunk: TextChunk): QueueAnswer {
    return this.#queue.addText(chunk);
  }

  async sayAudio(clip: AudioClip): Promise<SayAudioAnswer> {
    let turn;
    try {
      turn = await this.#speech.audioTurn(clip.turnId, clip.audio);
    } catch (err) {
      if (err instanceof AudioValidationError) return { kind: 'invalid_audio', reason: err.message };
      throw err;
    }
    if (this.#closed) throw new EngineError('unknown_session', 'The session has ended');
    const answer = this.#queue.addAudio(clip.turnId, { audio: turn.audio });
    return answer === 'queued' ? { kind: 'queued', decodedDurationSec: turn.durationSec } : { kind: answer };
  }

  interrupt(): void {
    const stopped = this.#player.stop();
    for (const id of this.#queue.interrupt()) {
      this.#synths.get(id)?.cancel();
      this.#synths.delete(id);
    }
    if (stopped) {
      this.#mouth.interrupted(this.#nowMs());
      this.#event({ type: 'speakingEnd', turnId: stopped, interrupted: true });
    }
  }

  async connectViewer(viewerId: string, offerSdp: string, iceServers: RtcIceServer[]): Promise<string> {
    const { peer, answerSdp } = await ViewerPeer.answer({
      viewerId,
      sessionId: this.id,
      offerSdp,
      iceServers,
      ...(this.#o.acceptCandidate ? { acceptCandidate: this.#o.acceptCandidate } : {}),
      speaking: () => this.#player.playing, // issue 21: a page reconnecting mid-turn is told in hello
      video: this.#videoSource.createTrack(),
      audio: this.#audioSource.createTrack(),
      events: {
        onConnected: () => {
          if (this.#viewer !== peer) return;
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
   * One 10 ms media tick: audio every tick, a video frame when one is due. Sessions render on
   * staggered ticks (a per-session phase) so frames of many sessions do not pile onto one tick.
   * In a late catch-up batch (`ticksLeft` more ticks follow), a frame is skipped only when a newer
   * frame of this session is due later in the same batch: a slightly late frame is still sent.
   */
  tick(tickIndex: number, ticksLeft = 0): void {
    if (this.#closed) return;
    for (const e of this.#player.pull(this.#chunk)) this.#onPlayerEvent(e);
    if (!this.#viewer) return;
    this.#audioSource.onData({
      samples: this.#chunk,
      sampleRate: SAMPLE_RATE_HZ,
      bitsPerSample: 16,
      channelCount: 1,
      numberOfFrames: CHUNK_SAMPLES,
    });
    const due = this.#frames.at(tickIndex, ticksLeft);
    if (due === 'skip') this.framesSkipped++;
    else if (due === 'render') this.#renderFrame(tickIndex * TICK_MS);
  }

  close(reason: string): void {
    if (this.#closed) return;
    this.#viewer?.send({ type: 'sessionEnded', reason });
    this.#closed = true;
    this.#gate.close();
    this.#player.stop();
    for (const s of this.#synths.values()) s.cancel();
    this.#synths.clear();
    this.#lane.close(); // withdraws whatever this session still had waiting
    this.#queue.close();
    this.#viewer?.close();
    this.#viewer = undefined;
    this.#renderer.close();
  }

  #renderFrame(nowMs: number): void {
    const speech = this.#player.mouthAt(this.#mouth.aheadSamples);
    const mouth = this.#mouth.frame(speech?.mouth, nowMs);
    const motion = this.#animator.next({
      tMs: nowMs,
      speaking: speech !== undefined,
      emphasis: speech?.emphasis ?? 0,
    });
    const state = { mouth, motion, speaking: speech !== undefined };
    const { width, height } = this.#o;
    if (this.#renderer.renderI420) this.#renderer.renderI420(state, this.#i420);
    else {
      const rgba = this.#renderer.render(state);
      wrtc.nonstandard.rgbaToI420({ width, height, data: rgba }, { width, height, data: this.#i420 });
    }
    this.#videoSource.onFrame({ width, height, data: this.#i420 });
    this.framesSent++;
  }

  #onPlayerEvent(e: PlayerEvent): void {
    switch (e.type) {
      case 'speakingStart':
      case 'speakingEnd':
        this.#event(e);
        break;
      case 'word':
        this.#viewer?.send(e);
        break;
      case 'failed':
        this.#viewer?.send({ type: 'turnFailed', turnId: e.turnId, reason: e.reason });
        this.#o.emit({
          type: 'turnFailed',
          sessionId: this.id,
          turnId: e.turnId,
          reason: e.reason,
          detail: e.detail,
        });
        break;
      case 'piece':
        this.#o.synthesis.poke(); // this session may synthesize further ahead now
        break;
      case 'done':
        this.#synths.delete(e.turnId);
        this.#queue.finishPlaying(e.turnId);
        this.#pump();
        this.#o.synthesis.poke();
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
      this.#player.start(turn.audio.audio);
      const transcript = turn.chunks.join('').trim();
      if (transcript) void this.#speech.addTranscript(turn.audio.audio, transcript);
    } else {
      const synth = this.#synthFor(turn.turnId);
      synth.finish();
      this.#player.start(synth.audio);
    }
  }

  #synthFor(turnId: string): TextTurnSynth {
    let s = this.#synths.get(turnId);
    if (!s) {
      s = this.#speech.textTurn(turnId);
      this.#synths.set(turnId, s);
    }
    return s;
  }

  /** Pieces synthesized and not yet played, over this session's text turns (its lookahead). */
  #ahead(): number {
    let n = 0;
    for (const s of this.#synths.values()) {
      for (const p of s.audio.pieces) if (p) n++;
      n -= this.#player.playedPieces(s.audio.turnId);
    }
    return n;
  }

  #viewerById(viewerId: string): ViewerPeer {
    if (!this.#viewer || this.#viewer.viewerId !== viewerId)
      throw new EngineError('unknown_viewer', 'No such viewer');
    return this.#viewer;
  }

  #nowMs(): number {
    return (this.#frames.lastFrame * 1000) / this.#o.fps;
  }
}

function hashSeed(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}
