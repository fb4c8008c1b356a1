/**
 * `GET /v1/avatar-session/{id}/audio`: streamed PCM in, playback events out (the messages are
 * packages/protocol/src/audio-stream.ts). For a team with its own TTS or a speech-to-speech
 * model: `start` a turn, `write` PCM chunks as they come, `end` it; `clear` is barge-in.
 * Flow control is the socket's: `write` resolves at once while little is buffered, and waits for
 * the buffered bytes to reach the kernel past `highWaterMarkBytes` (the server stops reading when
 * it holds AUDIO_STREAM_MAX_BUFFERED_MS unplayed), so a producer awaiting `write` never
 * outruns playback by more than that.
 */
import {
  AUDIO_STREAM_MAX_FRAME_BYTES,
  AUDIO_STREAM_SAMPLE_RATES,
  TypedEmitter,
  parseAudioStreamServerMessage,
  type AudioStreamClientMessage,
  type AudioStreamSampleRate,
  type AudioStreamServerMessage,
} from '@mouthpiece/protocol';
import WebSocket from 'ws';
import { CLIENT_ERROR, MouthpieceError } from './errors.js';

export interface AudioStreamEvents {
  playbackStarted: Extract<AudioStreamServerMessage, { type: 'playbackStarted' }>;
  playbackFinished: Extract<AudioStreamServerMessage, { type: 'playbackFinished' }>;
  /** The server's `error` message (the socket stays usable unless `fatal`). */
  error: Extract<AudioStreamServerMessage, { type: 'error' }>;
  /** The socket closed (by either side); writes after this reject. */
  close: { code: number; reason: string };
}

export interface AudioStreamOptions {
  /** Bytes queued on the socket before `write` waits (default 64 KiB). */
  highWaterMarkBytes?: number;
  signal?: AbortSignal;
}

export interface AudioStream {
  /** Opens a turn of mono s16le PCM at sampleRate; returns its turn id (generated when not given). */
  start(opts: { sampleRate: AudioStreamSampleRate; turnId?: string }): string;
  /** Sends PCM of the open turn (s16le bytes, or an Int16Array of samples in the machine's order, little-endian on x86 and ARM); resolves when the socket can take more. */
  write(pcm: Uint8Array | Int16Array): Promise<void>;
  /** Ends the open turn: the rest of its audio plays, then `playbackFinished`. */
  end(): void;
  /** Barge-in: stops what plays and drops what is queued, as `interrupt` does. */
  clear(): void;
  on<K extends keyof AudioStreamEvents>(event: K, listener: (e: AudioStreamEvents[K]) => void): () => void;
  /** Resolves with the turn's `playbackFinished`. */
  finished(turnId: string): Promise<AudioStreamEvents['playbackFinished']>;
  /** The open turn's id, if any. */
  readonly turnId: string | undefined;
  close(): Promise<void>;
}

/** Connects; resolves once the server accepted the upgrade. */
export async function openAudioStream(
  url: string,
  token: string,
  opts: AudioStreamOptions = {},
): Promise<AudioStream> {
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => {
        let parsed: { code?: unknown; error?: unknown } = {};
        try {
          parsed = JSON.parse(body) as typeof parsed;
        } catch {
          // not JSON
        }
        const status = res.statusCode ?? 0;
        reject(
          new MouthpieceError(
            status,
            typeof parsed.code === 'string' ? parsed.code : `HTTP_${status}`,
            typeof parsed.error === 'string' ? parsed.error : body.slice(0, 200),
          ),
        );
        ws.terminate();
      });
    });
    ws.once('error', (err) =>
      reject(new MouthpieceError(0, CLIENT_ERROR.NETWORK, `audio stream: ${err.message}`, { cause: err })),
    );
  });
  return new WsAudioStream(ws, opts);
}

/** A client message as a text frame (the type is the contract's). */
const wire = (m: AudioStreamClientMessage): string => JSON.stringify(m);

class WsAudioStream implements AudioStream {
  readonly #ws: WebSocket;
  readonly #hwm: number;
  readonly #emitter = new TypedEmitter<AudioStreamEvents>();
  #turnId: string | undefined;
  #closed: { code: number; reason: string } | undefined;
  #turns = 0;

  constructor(ws: WebSocket, opts: AudioStreamOptions) {
    this.#ws = ws;
    this.#hwm = opts.highWaterMarkBytes ?? 64 * 1024;
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const m = parseAudioStreamServerMessage(Buffer.from(data as Buffer).toString('utf8'));
      if (!m) return;
      if (m.type === 'playbackStarted') this.#emitter.emit('playbackStarted', m);
      else if (m.type === 'playbackFinished') this.#emitter.emit('playbackFinished', m);
      else this.#emitter.emit('error', m);
    });
    ws.on('close', (code, reason) => {
      this.#closed = { code, reason: reason.toString('utf8') };
      this.#emitter.emit('close', this.#closed);
    });
    ws.on('error', () => undefined); // reported through close
    opts.signal?.addEventListener('abort', () => void this.close(), { once: true });
  }

  get turnId(): string | undefined {
    return this.#turnId;
  }

  start(o: { sampleRate: AudioStreamSampleRate; turnId?: string }): string {
    if (this.#turnId !== undefined) throw new Error(`turn ${this.#turnId} is still open: end() it first`);
    if (!AUDIO_STREAM_SAMPLE_RATES.includes(o.sampleRate))
      throw new RangeError(`sampleRate must be one of ${AUDIO_STREAM_SAMPLE_RATES.join(', ')}`);
    const turnId = o.turnId ?? `a${Date.now().toString(36)}-${++this.#turns}`;
    this.#send(wire({ type: 'start', turnId, sampleRate: o.sampleRate }));
    this.#turnId = turnId;
    return turnId;
  }

  async write(samples: Uint8Array | Int16Array): Promise<void> {
    const pcm = new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
    if (this.#turnId === undefined) throw new Error('no turn is open: start() one first');
    this.#checkOpen();
    // frames of at most the server's largest (an even size: a sample is never split by us)
    let sent = Promise.resolve();
    for (let at = 0; at < pcm.byteLength; at += AUDIO_STREAM_MAX_FRAME_BYTES) {
      const frame = pcm.subarray(at, at + AUDIO_STREAM_MAX_FRAME_BYTES);
      sent = new Promise<void>((resolve, reject) =>
        this.#ws.send(frame, { binary: true }, (err) => (err ? reject(err) : resolve())),
      );
    }
    // below the mark the bytes are queued and the caller goes on; above it, wait for them to leave
    if (this.#ws.bufferedAmount > this.#hwm) await sent;
    else sent.catch(() => undefined); // a failed send shows as close
  }

  end(): void {
    if (this.#turnId === undefined) return;
    this.#send(wire({ type: 'end', turnId: this.#turnId }));
    this.#turnId = undefined;
  }

  clear(): void {
    this.#turnId = undefined;
    this.#send(wire({ type: 'clear' }));
  }

  on<K extends keyof AudioStreamEvents>(event: K, listener: (e: AudioStreamEvents[K]) => void): () => void {
    return this.#emitter.on(event, listener);
  }

  finished(turnId: string): Promise<AudioStreamEvents['playbackFinished']> {
    return new Promise((resolve, reject) => {
      const offs = [
        this.on('playbackFinished', (e) => {
          if (e.turnId !== turnId) return;
          offs.forEach((f) => f());
          resolve(e);
        }),
        this.on('close', (c) => {
          offs.forEach((f) => f());
          reject(
            new MouthpieceError(
              0,
              CLIENT_ERROR.NETWORK,
              `audio stream closed (${c.code}) before ${turnId} finished`,
            ),
          );
        }),
      ];
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await new Promise<void>((resolve) => {
      this.#ws.once('close', () => resolve());
      this.#ws.close(1000);
    });
  }

  #checkOpen(): void {
    if (this.#closed || this.#ws.readyState !== WebSocket.OPEN)
      throw new MouthpieceError(
        0,
        CLIENT_ERROR.NETWORK,
        `the audio stream is closed${this.#closed ? ` (${this.#closed.code} ${this.#closed.reason})` : ''}`,
      );
  }

  #send(text: string): void {
    this.#checkOpen();
    this.#ws.send(text);
  }
}
