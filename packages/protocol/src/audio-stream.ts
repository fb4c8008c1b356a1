/**
 * Streamed audio in: `GET /v1/avatar-session/{id}/audio`, a WebSocket (docs/api.md). Its
 * semantics mirror LiveKit's avatar data stream (an audio stream per turn, a clear-buffer
 * message, playback-finished back) so a framework plugin is a thin adapter (docs/agents.md).
 *
 * Client → server: text `{"type":"start","turnId","sampleRate"}`, then binary frames of mono
 * s16le PCM at that rate (any size), then `{"type":"end","turnId"}`; `{"type":"clear"}`
 * interrupts (this socket's turns and the session's queue, as `interrupt` does).
 * Server → client: `playbackStarted`, `playbackFinished`, `error` (the socket stays usable
 * where it can; `fatal` errors are followed by a close).
 */

/** Sample rates a `start` may name (mono, signed 16-bit little-endian). */
export const AUDIO_STREAM_SAMPLE_RATES = [8000, 16000, 22050, 24000, 44100, 48000] as const;
export type AudioStreamSampleRate = (typeof AUDIO_STREAM_SAMPLE_RATES)[number];

/** Most audio one streamed turn may hold (as at say-audio: 5 minutes). */
export const AUDIO_STREAM_MAX_TURN_MS = 5 * 60 * 1000;
/** Unplayed audio the session holds before the server stops reading the socket (TCP backpressure). */
export const AUDIO_STREAM_MAX_BUFFERED_MS = 10_000;
/**
 * The largest binary frame the server reads (about 11 s of 48 kHz audio); a larger one closes the
 * socket (1009). Clients split longer writes into frames of at most this.
 */
export const AUDIO_STREAM_MAX_FRAME_BYTES = 1024 * 1024;
/** The longest text frame the server reads (control messages are small). */
export const AUDIO_STREAM_MAX_TEXT_BYTES = 4096;

export type AudioStreamClientMessage =
  | { type: 'start'; turnId: string; sampleRate: AudioStreamSampleRate }
  | { type: 'end'; turnId: string }
  | { type: 'clear' };

export type AudioStreamServerMessage =
  | { type: 'playbackStarted'; turnId: string }
  | { type: 'playbackFinished'; turnId: string; interrupted: boolean; playedMs: number }
  | { type: 'error'; code: AudioStreamErrorCode; message: string; turnId?: string; fatal?: boolean };

/** Stable codes of `error` messages (messages say what to change). */
export const AUDIO_STREAM_ERROR = {
  /** Not JSON, no known `type`, or fields missing or of the wrong kind. */
  BAD_MESSAGE: 'bad_message',
  /** `sampleRate` is not one of AUDIO_STREAM_SAMPLE_RATES. */
  BAD_SAMPLE_RATE: 'bad_sample_rate',
  /** A binary frame with no turn started on this socket, or an odd byte count overall. */
  NO_TURN: 'no_turn',
  /** `start` while this socket's turn is still open, or `end` for another turn. */
  TURN_OPEN: 'turn_open',
  /** The turn id is taken in this session (queued, playing or already used). */
  TURN_EXISTS: 'turn_exists',
  /** The turn passed AUDIO_STREAM_MAX_TURN_MS; the rest of its audio is dropped. */
  TURN_TOO_LONG: 'turn_too_long',
  /** The session's queue is full (as say-text's 429 QUEUE_FULL). */
  QUEUE_FULL: 'queue_full',
  /** The session ended; the socket closes. */
  SESSION_ENDED: 'session_ended',
} as const;
export type AudioStreamErrorCode = (typeof AUDIO_STREAM_ERROR)[keyof typeof AUDIO_STREAM_ERROR];

/** A text frame as a client message, or why it is not one (the `error` to send back). */
export function parseAudioStreamMessage(
  text: string,
):
  | { ok: true; message: AudioStreamClientMessage }
  | { ok: false; code: AudioStreamErrorCode; message: string } {
  const bad = (message: string) => ({ ok: false as const, code: AUDIO_STREAM_ERROR.BAD_MESSAGE, message });
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return bad(
      'a text frame must be a JSON object such as {"type":"start","turnId":"t1","sampleRate":24000}',
    );
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    return bad('a text frame must be a JSON object');
  const m = v as Record<string, unknown>;
  const turnId = m['turnId'];
  const validTurn = typeof turnId === 'string' && turnId.length > 0 && turnId.length <= 128;
  switch (m['type']) {
    case 'start': {
      if (!validTurn) return bad('start needs a turnId: a string of 1 to 128 characters');
      const rate = m['sampleRate'];
      if (!AUDIO_STREAM_SAMPLE_RATES.includes(rate as AudioStreamSampleRate))
        return {
          ok: false,
          code: AUDIO_STREAM_ERROR.BAD_SAMPLE_RATE,
          message: `sampleRate must be one of ${AUDIO_STREAM_SAMPLE_RATES.join(', ')} (mono s16le PCM); got ${JSON.stringify(rate)}`,
        };
      return {
        ok: true,
        message: { type: 'start', turnId: turnId, sampleRate: rate as AudioStreamSampleRate },
      };
    }
    case 'end':
      if (!validTurn) return bad('end needs the turnId of the turn it ends');
      return { ok: true, message: { type: 'end', turnId: turnId } };
    case 'clear':
      return { ok: true, message: { type: 'clear' } };
    default:
      return bad(`unknown message type ${JSON.stringify(m['type'])}: send start, end or clear`);
  }
}

/** A server message as it goes on the wire. */
export function formatAudioStreamMessage(m: AudioStreamServerMessage): string {
  return JSON.stringify(m);
}

/** A server text frame as a message (for clients); unknown types give undefined. */
export function parseAudioStreamServerMessage(text: string): AudioStreamServerMessage | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const m = v as Record<string, unknown>;
  const turnId = typeof m['turnId'] === 'string' ? m['turnId'] : undefined;
  switch (m['type']) {
    case 'playbackStarted':
      return turnId === undefined ? undefined : { type: 'playbackStarted', turnId };
    case 'playbackFinished':
      return turnId === undefined
        ? undefined
        : {
            type: 'playbackFinished',
            turnId,
            interrupted: m['interrupted'] === true,
            playedMs: typeof m['playedMs'] === 'number' ? m['playedMs'] : 0,
          };
    case 'error':
      return typeof m['code'] === 'string' && typeof m['message'] === 'string'
        ? {
            type: 'error',
            code: m['code'] as AudioStreamErrorCode,
            message: m['message'],
            ...(turnId === undefined ? {} : { turnId }),
            ...(m['fatal'] === true ? { fatal: true } : {}),
          }
        : undefined;
    default:
      return undefined;
  }
}
