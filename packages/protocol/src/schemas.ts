/**
 * Request and response schemas of the /v1 API. One schema = validation (server) + types
 * (server and client) + OpenAPI. Unknown fields are allowed and ignored.
 */
import { Type, type Static } from '@sinclair/typebox';
import { RenderKind } from './avatar-kinds.js';
import { ErrorCode } from './errors.js';
import { MAX_VOICE_SPEED, MIN_VOICE_SPEED } from './limits.js';

export const ErrorResponse = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.String(),
    code: Type.Union(Object.values(ErrorCode).map((c) => Type.Literal(c))),
    /** Why the session ended (410 `SESSION_ENDED` only): an end reason such as `idle_timeout`. */
    reason: Type.Optional(Type.String()),
  },
  { $id: 'ErrorResponse' },
);

export const SuccessResponse = Type.Object({ success: Type.Literal(true) });
export type SuccessResponse = Static<typeof SuccessResponse>;

export const CreateSessionBody = Type.Object({
  visualConfig: Type.Object({
    avatarId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    /** Accepted as an alias of avatarId (docs/design.md §4.1). */
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    /** A flat `#rrggbb` colour replacing the avatar's background, exact so a page can key it. */
    background: Type.Optional(
      Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: 'a colour like #00ff00' }),
    ),
  }),
  voiceConfig: Type.Optional(
    Type.Object({
      id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
      speed: Type.Optional(Type.Number({ minimum: MIN_VOICE_SPEED, maximum: MAX_VOICE_SPEED })),
    }),
  ),
});
export type CreateSessionBody = Static<typeof CreateSessionBody>;

export const CreateSessionResponse = Type.Object({
  success: Type.Literal(true),
  sessionId: Type.String(),
  token: Type.String({ description: 'Session token: full control of the session. Keep it on the backend.' }),
  viewerToken: Type.String({
    description:
      'View-only token for a page: init-client, keep-alive, WHEP and the avatar pack; every other call answers 403',
  }),
});
export type CreateSessionResponse = Static<typeof CreateSessionResponse>;

export const IceServer = Type.Object({
  urls: Type.Array(Type.String()),
  username: Type.Optional(Type.String()),
  credential: Type.Optional(Type.String()),
});
export type IceServer = Static<typeof IceServer>;

export const InitClientResponse = Type.Object({
  success: Type.Literal(true),
  whepUrl: Type.String(),
  turn: Type.Object({
    url: Type.String({ description: 'TURN host (the client builds URLs on ports 80/443 from it)' }),
    username: Type.String(),
    credential: Type.String(),
    urls: Type.Array(Type.String(), { description: 'Full TURN URLs with the ports really in use' }),
  }),
  iceServers: Type.Array(IceServer),
  idleTimeoutMs: Type.Number(),
  expiresAt: Type.String({ format: 'date-time' }),
  trickleIce: Type.Optional(
    Type.Boolean({
      description:
        'The whepUrl takes trickled ICE candidates (PATCH application/trickle-ice-sdpfrag): a client may send its offer before ICE gathering completes. Absent: wait for gathering.',
    }),
  ),
});
export type InitClientResponse = Static<typeof InitClientResponse>;

export const SayTextBody = Type.Object({
  text: Type.Optional(Type.String()),
  turnId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  isFinal: Type.Optional(Type.Boolean()),
});
export type SayTextBody = Static<typeof SayTextBody>;

export const SayTextResponse = Type.Object({
  success: Type.Literal(true),
  turnId: Type.String(),
  discarded: Type.Optional(Type.Boolean()),
});
export type SayTextResponse = Static<typeof SayTextResponse>;

export const SayAudioResponse = Type.Object({
  success: Type.Literal(true),
  turnId: Type.String(),
  decodedDuration: Type.Optional(
    Type.Number({
      description:
        'Seconds of audio decoded from the upload: this is what plays. The declared `duration` is only compared with it (a difference over 10 % is logged).',
    }),
  ),
  discarded: Type.Optional(Type.Boolean()),
});
export type SayAudioResponse = Static<typeof SayAudioResponse>;

/** An avatar's kind (avatar-kinds.ts RenderKind). */
export const RenderKindSchema = Type.Union(Object.values(RenderKind).map((k) => Type.Literal(k)));

export const AvatarInfo = Type.Object({
  id: Type.String(),
  name: Type.String(),
  width: Type.Number(),
  height: Type.Number(),
  previewUrl: Type.Optional(Type.String()),
  /** How the avatar is drawn: `vector` (from parameters), `photo` (one portrait, warped), `sprites` (pictures) or `video` (a clip of a person). */
  render: Type.Optional(RenderKindSchema),
  description: Type.Optional(Type.String()),
});
export type AvatarInfo = Static<typeof AvatarInfo>;

export const VoiceInfo = Type.Object({
  id: Type.String(),
  name: Type.String(),
  language: Type.String(),
  gender: Type.Union([Type.Literal('female'), Type.Literal('male'), Type.Literal('neutral')]),
  /** The language's name in the language itself (`suomi`), for the built-in espeak voices. */
  nativeName: Type.Optional(Type.String()),
  /** Who speaks it: `espeak` (embedded), `elevenlabs` or `openai` (docs/voices.md). */
  provider: Type.Optional(Type.String()),
});
export type VoiceInfo = Static<typeof VoiceInfo>;

export const AvatarsResponse = Type.Object({ success: Type.Literal(true), avatars: Type.Array(AvatarInfo) });
export const VoicesResponse = Type.Object({ success: Type.Literal(true), voices: Type.Array(VoiceInfo) });

/**
 * GET /v1/avatar-session/{sessionId}/avatar: what a renderer in the browser needs of the session's
 * avatar (docs/api.md "Avatar pack"). `manifest` is the pack's avatar.json as stored; `files` are
 * the other files it needs (none for a vector avatar), each fetched from its `url` with the same
 * token, each with the strong ETag of its content.
 */
export const AvatarPackFile = Type.Object({
  /** The file name in the pack (what the manifest names, e.g. a sprite's `base`). */
  name: Type.String(),
  /**
   * What the file is to the renderer (avatar-kinds.ts PackFileRole): base, mouth, blink (sprites)
   * · texture (photo) · video-index, base-frames, mouth-library, base-frames-encoded,
   * mouth-library-encoded (video). A string on the wire: a reader skips a role it does not know.
   */
  role: Type.String(),
  url: Type.String(),
  bytes: Type.Integer({ minimum: 0 }),
  contentType: Type.String(),
  /** The strong ETag the file's own answer carries (a hash of its content). */
  etag: Type.String(),
  /**
   * An encoded alternative: the name of the listed file whose frames this one holds (a video
   * avatar's `base.ivf` encodes `base.i420`). A renderer that decodes `codec` needs only one of the two.
   */
  encodes: Type.Optional(Type.String()),
  /** The WebCodecs codec string of an encoded file (`vp09.00.30.08`: VP9 in IVF). */
  codec: Type.Optional(Type.String()),
});
export type AvatarPackFile = Static<typeof AvatarPackFile>;

export const AvatarPackResponse = Type.Object({
  success: Type.Literal(true),
  avatar: Type.Object({
    id: Type.String(),
    render: RenderKindSchema,
    manifest: Type.Object({}, { additionalProperties: true, description: "The pack's avatar.json" }),
    files: Type.Array(AvatarPackFile),
    background: Type.Optional(
      Type.String({
        description:
          "The session's visualConfig.background (#rrggbb) when it has one: vector and sprite avatars are drawn on it, as the server draws them",
      }),
    ),
  }),
});
export type AvatarPackResponse = Static<typeof AvatarPackResponse>;

export const SessionIdParams = Type.Object({ sessionId: Type.String() });
