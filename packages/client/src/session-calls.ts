/**
 * The calls that drive a session — say-text, say-audio, interrupt, end — with its token. A
 * view-only key (a viewer token) makes none of them: each rejects with ViewOnlyError before any
 * request (the server would answer 403).
 */
import type { SayTextResponse } from '@mouthpiece/protocol';
import type { ApiClient } from './api-client.js';
import { ViewOnlyError } from './errors.js';
import type { SessionKey } from './session-access.js';
import { audioForm } from './session-types.js';

export class SessionCalls {
  constructor(
    private readonly api: ApiClient,
    private readonly key: SessionKey,
  ) {}

  /** Throws ViewOnlyError when this page may not make `call` (a viewer token). */
  require(call: string): void {
    if (this.key.viewOnly) throw new ViewOnlyError(call);
  }

  async sayText(text: string, turnId: string | undefined, isFinal: boolean): Promise<string> {
    this.require('sayText');
    const r = await this.api.post<SayTextResponse>(this.#path('say-text'), {
      auth: { bearer: this.key.bearer },
      json: { text, isFinal, ...(turnId ? { turnId } : {}) },
      kind: 'unsafe',
    });
    return r.turnId;
  }

  async sayAudio(audioFile: Blob, turnId: string, duration: number): Promise<void> {
    this.require('sayAudio');
    await this.api.post(this.#path('say-audio'), {
      auth: { bearer: this.key.bearer },
      form: audioForm(audioFile, turnId, duration),
      kind: 'unsafe',
    });
  }

  async interrupt(): Promise<void> {
    this.require('interrupt');
    await this.api.post(this.#path('interrupt'), {
      auth: { bearer: this.key.bearer },
      json: {},
      kind: 'safe',
    });
  }

  async end(): Promise<void> {
    this.require('endSession');
    await this.api.post(this.#path('end'), { auth: { bearer: this.key.bearer }, json: {}, kind: 'safe' });
  }

  #path(call: string): string {
    return `/v1/avatar-session/${this.key.sessionId}/${call}`;
  }
}
