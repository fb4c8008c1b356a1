/**
 * One avatar session in an engine process: speech queue → synthesis/decoding → player → media
 * sources, the animated face rendered each frame, and the viewer's peer. Driven by the process's
 * media scheduler through `tick()`. Speech waits for a viewer (DESIGN §3.10).
 */
import wrtc, { type RtcIceServer } from '@roamhq/wrtc';
import type { ServerMessage } from '@mouthpiece/protocol';
import { analyzeAudioMouthAsync } from '../lipsync/audio-mouth.js';
import { MISMATCH_COST } from '../lipsync/align-transcript.js';
import { buildMouthTrack } from '../lipsync/mouth-track.js';
import { splitSentences } from '../speech/sentences.js';
import { createAnimator, type Animator } from '../animation/animator.js';
import type { AvatarManifest } from '../avatar/manifest.js';
import { AudioValidationError } from '../audio/decode.js';
import type { AudioDecoder } from '../audio/decoder.js';
import { REST_MOUTH, type MouthParams } from '../face-state.js';
import type { AudioClip, EngineEvent, QueueAnswer, SayAudioAnswer, TextChunk } from '../host/types.js';
import { EngineError } from '../host/types.js';
import { createRenderer, type Renderer } from '../render/renderer.js';
import { ViewerPeer } from '../rtc/viewer-peer.js';
import { SpeechQueue } from '../speech-queue.js';
import type { Tts } from '../speech/tts.js';
import { FrameClock } from './frame-clock.js';
import { SpeechPlayer, type PlayerEvent } from './speech-player.js';
import { TextTurnSynth, TurnAudio } from './turn-audio.js';

export interface EngineSessionOptions {
  sessionId: string;
  avatar: AvatarManifest;
  voiceId: string;
  voiceSpeed: number;
  tts: Tts;
  decoder: AudioDecoder;
  width: number;
  height: number;
  fps: number;
  /** Wait this long for the viewer's `ready` before playing anyway. */
  readyTimeoutMs: number;
  /** Without an events channel, start this long after ICE connects. */
  noChannelStartMs: number;
  emit(event: EngineEvent): void;
}

interface ClipItem {
  audio: TurnAudio;
}

const EASE_MS = 120;

export class EngineSession {
  readonly id: string;
  readonly #o: EngineSessionOptions;
  readonly #queue: SpeechQueue<ClipItem>;
  readonly #synths = new Map<string, TextTurnSynth>();
  readonly #player = new SpeechPlayer();
  readonly #renderer: Renderer;
  readonly #animator: Animator;
  /** Rendered frames have no sensor noise: VP8's denoiser would only cost encode time (≈ 25 %). */
  readonly #videoSource = new wrtc.nonstandard.RTCVideoSource({ needsDenoising: false });
  readonly #audioSource = new wrtc.nonstandard.RTCAudioSource();
  readonly #i420: Uint8Array;
  readonly #chunk = new Int16Array(480);
  #viewer: ViewerPeer | undefined;
  #playbackAllowed = false;
  #readyTimer: NodeJS.Timeout | undefined;
  #lastMouth: MouthParams = { ...REST_MOUTH };
  #easeFrom: { mouth: MouthParams; atMs: number } | undefined;
  #closed = false;
  /** Frames rendered and skipped, for stats. */
  framesSent = 0;
  framesSkipped = 0;
  /** Which frame each tick begins; each session on its own phase (spreads the work). */
  readonly #frames: FrameClock;

  constructor(o: EngineSessionOptions) {
    this.id = o.sessionId;
    this.#o = o;
    this.#queue = new SpeechQueue<ClipItem>();
    this.#renderer = createRenderer(o.avatar, { width: o.width, height: o.height });
    this.#animator = createAnimator({ seed: hashSeed(o.sessionId) });
    this.#frames = new FrameClock({
      phase: hashSeed(o.sessionId) % Math.max(1, Math.round(100 / o.fps)),
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
        case 'audio': {
          const synth = this.#synths.get(e.turnId);
          synth?.cancel(); // its text is now only the transcript
          this.#synths.delete(e.turnId);
          break;
        }
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
    let decoded;
    try {
      decoded = await this.#o.decoder.decode(clip.audio);
    } catch (err) {
      if (err instanceof AudioValidationError) return { kind: 'invalid_audio', reason: err.message };
      throw err;
    }
    if (this.#closed) throw new EngineError('unknown_session', 'The session has ended');
    const audio = new TurnAudio(clip.turnId);
    const mouth = await analyzeAudioMouthAsync(decoded.pcm); // yields between slices: the tick never waits
    if (this.#closed) throw new EngineError('unknown_session', 'The session has ended');
    audio.set(audio.reserve(), { pcm: decoded.pcm, mouth, words: [] });
    audio.markComplete();
    const answer = this.#queue.addAudio(clip.turnId, { audio });
    return answer === 'queued'
      ? { kind: 'queued', decodedDurationSec: decoded.durationSec }
      : { kind: answer };
  }

  interrupt(): void {
    const stopped = this.#player.stop();
    const cleared = this.#queue.interrupt();
    for (const id of cleared) {
      this.#synths.get(id)?.cancel();
      this.#synths.delete(id);
    }
    if (stopped) {
      this.#easeFrom = { mouth: this.#lastMouth, atMs: this.#nowMs() };
      this.#event({ type: 'speakingEnd', turnId: stopped, interrupted: true });
    }
  }

  async connectViewer(viewerId: string, offerSdp: string, iceServers: RtcIceServer[]): Promise<string> {
    const { peer, answerSdp } = await ViewerPeer.answer({
      viewerId,
      sessionId: this.id,
      offerSdp,
      iceServers,
      video: this.#videoSource.createTrack(),
      audio: this.#audioSource.createTrack(),
      events: {
        onConnected: () => {
          if (this.#viewer !== peer) return;
          this.#o.emit({ type: 'viewerConnected', sessionId: this.id, viewerId });
          clearTimeout(this.#readyTimer);
          const wait = peer.hasEvents ? this.#o.readyTimeoutMs : this.#o.noChannelStartMs;
          this.#readyTimer = setTimeout(() => this.#allowPlayback(), wait);
        },
        onReady: () => {
          if (this.#viewer === peer) this.#allowPlayback();
        },
        onDisconnected: () => {
          if (this.#viewer !== peer) return;
          this.#o.emit({ type: 'viewerDisconnected', sessionId: this.id, viewerId });
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
    if (!this.#player.playing) this.#playbackAllowed = false; // wait for the new viewer's first frame
    return answerSdp;
  }

  async addIceCandidates(viewerId: string, fragment: string): Promise<void> {
    await this.#viewerById(viewerId).addIceCandidates(fragment);
  }

  disconnectViewer(viewerId: string): void {
    const v = this.#viewerById(viewerId);
    v.close();
    this.#viewer = undefined;
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
    const viewer = this.#viewer;
    const events = this.#player.pull(this.#chunk);
    for (const e of events) this.#onPlayerEvent(e);
    if (!viewer) return;
    this.#audioSource.onData({
      samples: this.#chunk,
      sampleRate: 48_000,
      bitsPerSample: 16,
      channelCount: 1,
      numberOfFrames: 480,
    });
    const due = this.#frames.at(tickIndex, ticksLeft);
    if (due === 'skip') this.framesSkipped++;
    else if (due === 'render') this.#renderFrame(tickIndex * 10);
  }

  close(reason: string): void {
    if (this.#closed) return;
    this.#viewer?.send({ type: 'sessionEnded', reason });
    this.#closed = true;
    clearTimeout(this.#readyTimer);
    this.#player.stop();
    for (const s of this.#synths.values()) s.cancel();
    this.#synths.clear();
    this.#queue.close();
    this.#viewer?.close();
    this.#viewer = undefined;
    this.#renderer.close();
  }

  #renderFrame(nowMs: number): void {
    // the frame covers the next 40 ms of audio: sample its centre (20 ms ahead)
    const ahead = Math.round((1000 / this.#o.fps / 2) * 48);
    const speech = this.#player.mouthAt(ahead);
    let mouth: MouthParams;
    if (speech) {
      mouth = speech.mouth;
      this.#easeFrom = undefined;
    } else if (this.#easeFrom) {
      const f = Math.min(1, (nowMs - this.#easeFrom.atMs) / EASE_MS);
      mouth = lerpMouth(this.#easeFrom.mouth, REST_MOUTH, f);
      if (f >= 1) this.#easeFrom = undefined;
    } else {
      mouth = { ...REST_MOUTH };
    }
    this.#lastMouth = mouth;
    const motion = this.#animator.next({
      tMs: nowMs,
      speaking: speech !== undefined,
      emphasis: speech?.emphasis ?? 0,
    });
    const rgba = this.#renderer.render({ mouth, motion });
    const { width, height } = this.#o;
    wrtc.nonstandard.rgbaToI420({ width, height, data: rgba }, { width, height, data: this.#i420 });
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
      case 'done':
        this.#synths.delete(e.turnId);
        this.#queue.finishPlaying(e.turnId);
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

  #allowPlayback(): void {
    clearTimeout(this.#readyTimer);
    if (this.#playbackAllowed || this.#closed) return;
    this.#playbackAllowed = true;
    this.#pump();
  }

  #pump(): void {
    if (!this.#playbackAllowed || this.#player.playing || this.#closed) return;
    const turn = this.#queue.startHead();
    if (!turn) return;
    if (turn.kind === 'audio' && turn.audio) {
      this.#player.start(turn.audio.audio);
      const transcript = turn.chunks.join('').trim();
      if (transcript) void this.#alignTranscript(turn.audio.audio, transcript);
    } else {
      const synth = this.#synthFor(turn.turnId);
      synth.finish();
      this.#player.start(synth.audio);
    }
  }

  /**
   * With a transcript (say-text chunks sharing the upload's turnId), espeak's reading of it is
   * aligned to the upload in the decoder worker, and the clip gets real mouth shapes instead of
   * openness alone. Until that lands (or if the transcript does not match) the audio model drives.
   */
  async #alignTranscript(audio: TurnAudio, transcript: string): Promise<void> {
    const piece = audio.pieces[0];
    if (!piece) return;
    try {
      const reference = [];
      for (const sentence of splitSentences(transcript)) {
        const seg = await this.#o.tts.synthesize({ text: sentence, voiceId: this.#o.voiceId, speed: 1 });
        reference.push({ pcm: seg.pcm, phonemes: seg.phonemes });
      }
      if (reference.length === 0 || this.#closed) return;
      const alignment = await this.#o.decoder.align(piece.pcm, reference);
      if (alignment.meanCost <= MISMATCH_COST && !this.#closed) {
        piece.mouth = buildMouthTrack({ phonemes: alignment.phonemes, totalSamples: piece.pcm.length });
      }
    } catch {
      // alignment is an improvement; the audio model keeps driving the mouth
    }
  }

  #synthFor(turnId: string): TextTurnSynth {
    let s = this.#synths.get(turnId);
    if (!s) {
      s = new TextTurnSynth(turnId, this.#o.tts, this.#o.voiceId, this.#o.voiceSpeed);
      this.#synths.set(turnId, s);
    }
    return s;
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

function lerpMouth(a: MouthParams, b: MouthParams, f: number): MouthParams {
  const k = f * f * (3 - 2 * f);
  return {
    open: a.open + (b.open - a.open) * k,
    width: a.width + (b.width - a.width) * k,
    round: a.round + (b.round - a.round) * k,
    teeth: a.teeth + (b.teeth - a.teeth) * k,
    lipBite: a.lipBite + (b.lipBite - a.lipBite) * k,
    tongue: a.tongue + (b.tongue - a.tongue) * k,
  };
}

function hashSeed(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}
