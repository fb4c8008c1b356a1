/**
 * One avatar session, driven by its token: everything a backend does after create. Made by
 * `MouthpieceBackend.createSession` or `.session({sessionId, token})`.
 */
import type {
  CreateSessionBody,
  InitClientResponse,
  SayAudioResponse,
  SayTextResponse,
} from '@mouthpiece/protocol';
import { openAudioStream, type AudioStream, type AudioStreamOptions } from './audio-stream.js';
import { MouthpieceError } from './errors.js';
import { call, type HttpOptions } from './http.js';
import { KeepAlive, type KeepAliveOptions } from './keep-alive.js';
import { stripMarkdown } from './markdown.js';
import { sessionEvents, type EventsOptions, type ReceivedSessionEvent } from './session-events.js';
import { streamTextTurns, type StreamTextOptions, type StreamTextResult } from './stream-text.js';

export type { CreateSessionBody };

/** What create answered: give `sessionId` and `viewerToken` (or `token`) to the page. */
export interface SessionTokens {
  sessionId: string;
  /** Full control of the session: keep it on the backend where you can. */
  token: string;
  /** A view-only token for the page, when the server issues one. */
  viewerToken?: string;
}

export interface SayTextOptions {
  turnId?: string;
  /** Default true: the avatar speaks now. False: more chunks of this turn follow. */
  isFinal?: boolean;
  /** `'strip'` (default) or `'keep'`, as in streamText. */
  markdown?: 'strip' | 'keep';
  signal?: AbortSignal;
}

export class BackendSession implements SessionTokens {
  readonly sessionId: string;
  readonly token: string;
  readonly viewerToken?: string;
  readonly #http: HttpOptions;
  readonly #path: string;
  /** streamText calls in progress: interrupt() stops them (barge-in stops the rest of the answer). */
  readonly #streams = new Map<AbortController, Promise<unknown>>();
  #keepAlive: KeepAlive | undefined;
  /** The server's idle timeout, once init-client told it. */
  #idleTimeoutMs: number | undefined;

  constructor(http: HttpOptions, tokens: SessionTokens) {
    this.#http = http;
    this.sessionId = tokens.sessionId;
    this.token = tokens.token;
    if (tokens.viewerToken !== undefined) this.viewerToken = tokens.viewerToken;
    this.#path = `/v1/avatar-session/${encodeURIComponent(tokens.sessionId)}`;
  }

  /**
   * What a page needs to show the avatar without control of it: `{ sessionId, viewerToken }`,
   * which the browser SDK's `initSession` opens view-only (docs/client.md "View-only pages"), or,
   * from a server that issues no viewer token, `{ sessionId, token }`.
   */
  viewerCredentials(): { sessionId: string; viewerToken: string } | { sessionId: string; token: string } {
    return this.viewerToken !== undefined
      ? { sessionId: this.sessionId, viewerToken: this.viewerToken }
      : { sessionId: this.sessionId, token: this.token };
  }

  async initClient(signal?: AbortSignal): Promise<InitClientResponse> {
    const r = await this.#post<InitClientResponse>('/init-client', {}, signal);
    if (typeof r.idleTimeoutMs === 'number' && r.idleTimeoutMs > 0) this.#idleTimeoutMs = r.idleTimeoutMs;
    return r;
  }

  /** One say-text call; markdown stripped unless `markdown: 'keep'`. */
  async sayText(text: string, opts: SayTextOptions = {}): Promise<{ turnId: string; discarded: boolean }> {
    const spoken = (opts.markdown ?? 'strip') === 'strip' ? stripMarkdown(text) : text;
    const r = await this.#post<SayTextResponse>(
      '/say-text',
      {
        text: spoken,
        ...(opts.turnId === undefined ? {} : { turnId: opts.turnId }),
        isFinal: opts.isFinal ?? true,
      },
      opts.signal,
    );
    return { turnId: r.turnId, discarded: r.discarded === true };
  }

  /**
   * Speaks a model's streamed text as it arrives, one final turn per sentence or clause, in order,
   * one request at a time (see stream-text.ts). Resolves with what was posted; an `interrupt()` on
   * this object or the signal stops the rest and resolves with `aborted: true`; a refused post
   * (other than 429/503, which are retried after Retry-After) rejects with its MouthpieceError.
   */
  async streamText(source: AsyncIterable<string>, opts: StreamTextOptions = {}): Promise<StreamTextResult> {
    const stop = new AbortController();
    const onAbort = (): void => stop.abort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) stop.abort();
    const running = streamTextTurns(
      source,
      async (turn, signal) => {
        const r = await call<SayTextResponse>(this.#http, `${this.#path}/say-text`, {
          auth: `Bearer ${this.token}`,
          json: { text: turn.text, turnId: turn.turnId, isFinal: true },
          waitSignal: signal,
        });
        if (r.discarded === true) stop.abort(); // the turn was interrupted before it got here
      },
      { ...opts, signal: stop.signal },
    );
    this.#streams.set(stop, running);
    try {
      return await running;
    } finally {
      this.#streams.delete(stop);
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** One finished MP3 or WAV file (for streamed PCM, see audioStream()). */
  async sayAudio(
    audio: Uint8Array | Blob,
    opts: { turnId: string; durationSec: number; signal?: AbortSignal },
  ): Promise<{ turnId: string; decodedDurationSec: number | undefined; discarded: boolean }> {
    const form = new FormData();
    form.set('turnId', opts.turnId);
    form.set('duration', String(opts.durationSec));
    form.set('audio', audio instanceof Blob ? audio : new Blob([audio]), 'audio');
    const r = await call<SayAudioResponse>(this.#http, `${this.#path}/say-audio`, {
      auth: `Bearer ${this.token}`,
      form,
      signal: opts.signal,
    });
    return { turnId: r.turnId, decodedDurationSec: r.decodedDuration, discarded: r.discarded === true };
  }

  /** The streamed-audio WebSocket (`…/audio`). */
  audioStream(opts: AudioStreamOptions = {}): Promise<AudioStream> {
    const url = new URL(`${this.#http.baseUrl}${this.#path}/audio`);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    return openAudioStream(url.toString(), this.token, opts);
  }

  /**
   * Stops the speech now and clears the queue. Every streamText of this object stops first, and
   * the interrupt is sent once their last request has settled, so no sentence of theirs lands after it.
   */
  async interrupt(signal?: AbortSignal): Promise<void> {
    await this.#stopStreams();
    await this.#post('/interrupt', {}, signal);
  }

  keepAliveOnce(signal?: AbortSignal): Promise<void> {
    return this.#post('/keep-alive', {}, signal).then(() => undefined);
  }

  /**
   * Sends keep-alives every `intervalMs` (default 10 s, or a third of the idle timeout init-client
   * answered when that is shorter) until stop() or end(). A failed one is
   * reported to `onError`; one that cannot succeed again (401, 404, 410) stops the loop.
   */
  startKeepAlive(opts: KeepAliveOptions = {}): KeepAlive {
    this.#keepAlive?.stop();
    const intervalMs = opts.intervalMs ?? Math.min(10_000, (this.#idleTimeoutMs ?? Infinity) / 3);
    this.#keepAlive = new KeepAlive((signal) => this.keepAliveOnce(signal), { ...opts, intervalMs });
    return this.#keepAlive;
  }

  /** Ends the session (stops the keep-alive loop and every streamText first). A 410 is not an error here. */
  async end(signal?: AbortSignal): Promise<void> {
    this.#keepAlive?.stop();
    await this.#stopStreams();
    try {
      await this.#post('/end', {}, signal);
    } catch (err) {
      if (err instanceof MouthpieceError && err.status === 410) return;
      throw err;
    }
  }

  /** The session's events (SSE), reconnecting with Last-Event-ID; ends after `sessionEnded`. */
  events(opts: EventsOptions = {}): AsyncGenerator<ReceivedSessionEvent, void, undefined> {
    return sessionEvents(this.#http, `${this.#path}/events`, this.token, opts);
  }

  async #stopStreams(): Promise<void> {
    for (const stop of this.#streams.keys()) stop.abort();
    await Promise.allSettled(this.#streams.values());
  }

  #post<T extends object>(op: string, json: unknown, signal: AbortSignal | undefined): Promise<T> {
    return call<T>(this.#http, `${this.#path}${op}`, { auth: `Bearer ${this.token}`, json, signal });
  }
}
