/**
 * The calls that drive a session — say-text, say-audio, interrupt, end — with its token. A
 * view-only key (a viewer token) makes none of them: each rejects with ViewOnlyError before any
 * request (the server would answer 403).
 */
import { ClientErrorCode, type CreateSessionResponse, type SayTextResponse } from '@mouthpiece/protocol';
import type { ApiClient } from './api-client.js';
import { MouthpieceError, ViewOnlyError } from './errors.js';
import type { SessionKey } from './session-access.js';
import type { AvatarSessionConfig } from './session-types.js';

/** The frontend-only pattern's credential (demos only), or INVALID_CONFIGURATION. */
export function needCredential(config: AvatarSessionConfig): string {
  if (config.credential) return config.credential;
  throw new MouthpieceError(
    ClientErrorCode.INVALID_CONFIGURATION,
    'createSession needs `credential` in the config (demos only); use initSession in production',
  );
}

/** Creates a session with the credential (frontend-only pattern): its key, with full control. */
export async function createSessionKey(
  api: ApiClient,
  credential: string,
  o: { avatarId: string; voiceId?: string; voiceSpeed?: number },
): Promise<SessionKey> {
  const created = await api.post<CreateSessionResponse>('/v1/avatar-session', {
    auth: { ks: credential },
    json: createBody(o),
    kind: 'unsafe',
  });
  return { sessionId: created.sessionId, bearer: created.token, viewOnly: false };
}

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

/** The create request body of `createSession`'s options. */
export function createBody(o: { avatarId: string; voiceId?: string; voiceSpeed?: number }): object {
  return {
    visualConfig: { avatarId: o.avatarId },
    ...(o.voiceId !== undefined || o.voiceSpeed !== undefined
      ? { voiceConfig: { id: o.voiceId, speed: o.voiceSpeed } }
      : {}),
  };
}

/** say-audio's multipart form: the file under `audio`, with `turnId` and `duration`. */
export function audioForm(audioFile: Blob, turnId: string, duration: number): FormData {
  const form = new FormData();
  form.append('turnId', turnId);
  form.append('duration', String(duration));
  form.append('audio', audioFile, (audioFile as File).name ?? 'audio.mp3');
  return form;
}
