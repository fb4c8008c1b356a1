/**
 * Every environment variable, once: a TypeBox schema per variable whose keywords are the rules
 * (`minimum`, `maximum`, `minLength`, `pattern`, the allowed values), whose `default` is the
 * default and whose `description` is the meaning. The reader (env-reader.ts) takes its values,
 * defaults and messages from here, and the README's configuration table is these rows
 * (docs.ts, checked by config.test.ts). A default worked out at start has `docDefault` instead.
 */
import {
  Type,
  type Static,
  type TBoolean,
  type TInteger,
  type TLiteral,
  type TString,
  type TUnion,
} from '@sinclair/typebox';
import {
  DEFAULT_ENDED_RETENTION_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_AUDIO_BYTES,
  DEFAULT_MAX_SESSION_DURATION_MS,
} from '@mouthpiece/protocol';
import { ELEVENLABS_DEFAULT_MODEL, OPENAI_DEFAULT_MODEL } from '@mouthpiece/engine/config';

/** What a variable's schema says beside its type, rules and `default`. */
export interface EnvOptions {
  /** The meaning (the table's third column). */
  description: string;
  /** The default in words, where it is worked out at start or explained. */
  docDefault?: string;
  /** Said after the name when the value does not match `pattern` ("must look like 512x512"). */
  patternMessage?: string;
  /** Said after the message of a value that is too short. */
  hint?: string;
  /** An empty value is a value (and checked), not unset. */
  emptyIsValue?: boolean;
  /** Surrounding whitespace is removed first. */
  trim?: boolean;
}

/** `{ default: T }` in the type when the options give one, so a read value is then never undefined. */
type Defaulted<O, T> = O extends { default: T } ? { default: T } : unknown;

function int<const O extends EnvOptions & { minimum: number; maximum?: number; default?: number }>(
  o: O,
): TInteger & Defaulted<O, number> {
  return Type.Integer(o) as TInteger & Defaulted<O, number>;
}
function text<const O extends EnvOptions & { default?: string; minLength?: number; pattern?: string }>(
  o: O,
): TString & Defaulted<O, string> {
  return Type.String(o) as TString & Defaulted<O, string>;
}
/** 1, true or yes; 0, false, no or unset. */
function flag(o: EnvOptions): TBoolean & { default: boolean } {
  return Type.Boolean({ default: false, ...o }) as TBoolean & { default: boolean };
}
function oneOf<const T extends string, const O extends EnvOptions & { default?: T }>(
  values: readonly T[],
  o: O,
): TUnion<TLiteral<T>[]> & Defaulted<O, T> {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    o,
  ) as TUnion<TLiteral<T>[]> & Defaulted<O, T>;
}

const PORT_RANGE = { minimum: 1, maximum: 65535 } as const;
const RELAY_PORT_RANGE = { minimum: 1024, maximum: 65535 } as const;
const VOICE_TIMEOUT_RANGE = { minimum: 100, maximum: 600_000, default: 10_000 } as const;

export const CONFIG_SPEC = {
  PORT: int({ minimum: 0, maximum: 65535, default: 8080, description: 'HTTP port' }),
  HOST: text({ default: '0.0.0.0', description: 'address to listen on' }),
  MOUTHPIECE_PUBLIC_URL: text({
    emptyIsValue: true,
    docDefault: 'http(s)://localhost:$PORT',
    description: 'public base URL used to build `whepUrl` (use https in production)',
  }),
  MOUTHPIECE_DATA_DIR: text({
    default: './data',
    description: 'SQLite database, generated JWT secret, coturn files',
  }),
  MOUTHPIECE_JWT_SECRET: text({
    minLength: 32,
    docDefault: 'generated once into the data dir',
    description: 'HS256 secret for session tokens (≥ 32 characters)',
  }),
  MOUTHPIECE_ADMIN_TOKEN: text({
    minLength: 32,
    hint: 'for example: openssl rand -base64 32',
    docDefault: 'unset (Bearer admin disabled)',
    description: 'Bearer token for `/admin/v1` (≥ 32 characters)',
  }),
  MOUTHPIECE_METRICS_TOKEN: text({
    minLength: 16,
    docDefault: 'unset (the admin token)',
    description:
      '`/metrics` asks for `Authorization: Bearer <this>` (≥ 16 characters); unset, for the admin token; with neither set `/metrics` is off',
  }),
  MOUTHPIECE_AUTH_FAILURES_PER_SECOND: int({
    minimum: 0,
    maximum: 1_000_000,
    default: 5,
    description:
      'failed authentications one client address may make per second (bursts of twice that) before its requests get 429; 0 turns it off',
  }),
  MOUTHPIECE_SESSION_IDLE_TIMEOUT_MS: int({
    minimum: 100,
    default: DEFAULT_IDLE_TIMEOUT_MS,
    description: 'a session with no call for this long ends (`idle_timeout`)',
  }),
  // at most 24 days: a longer timer fires at once in Node (it is kept in a 32-bit integer)
  MOUTHPIECE_SESSION_MAX_DURATION_MS: int({
    minimum: 1000,
    maximum: 24 * 86_400_000,
    default: DEFAULT_MAX_SESSION_DURATION_MS,
    description: 'default max session duration for credentials without their own',
  }),
  MOUTHPIECE_ENDED_RETENTION_MS: int({
    minimum: 0,
    default: DEFAULT_ENDED_RETENTION_MS,
    description: 'ended sessions answer 410 for this long, then 404',
  }),
  // the default: VIDEO_SESSIONS_PER_CORE × cores (config.ts), the video path's measured density
  MOUTHPIECE_MAX_SESSIONS: int({
    minimum: 1,
    docDefault: '3 × cores',
    description:
      'active sessions per server (503 over it); 3 per core is the video path\'s clean density in `npm run bench:density` (docs/deploy.md, "Sizing"); raise it for client-rendered sessions',
  }),
  MOUTHPIECE_MAX_AUDIO_BYTES: int({
    minimum: 1024,
    default: DEFAULT_MAX_AUDIO_BYTES,
    description: 'say-audio upload cap (413 above)',
  }),
  MOUTHPIECE_ENGINE_PROCESSES: int({
    minimum: 1,
    maximum: 64,
    docDefault: 'cores',
    description: 'number of engine child processes',
  }),
  MOUTHPIECE_ENGINE_NODE_FLAGS: text({
    description:
      'extra Node flags for engine processes, space-separated (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile one)',
  }),
  MOUTHPIECE_AVATARS_DIR: text({ description: 'folder of extra avatar packs (see docs/avatars.md)' }),
  MOUTHPIECE_VIDEO_SIZE: text({
    default: '512x512',
    emptyIsValue: true,
    pattern: '^(\\d{2,4})x(\\d{2,4})$',
    patternMessage: 'must look like 512x512',
    description: 'output video size',
  }),
  MOUTHPIECE_VIDEO_FPS: int({ minimum: 1, maximum: 60, default: 25, description: 'output frame rate' }),
  MOUTHPIECE_CLIENT_RENDER: text({
    trim: true,
    docDefault: 'vector,photo,sprites,video',
    description:
      "comma list of the avatar kinds browsers may draw themselves (the SDK's `render: 'client'`: the pack goes to every viewer; `none`: no kind); a viewer of another kind gets audio and a notice, its pack route 403",
  }),
  MOUTHPIECE_TURN: oneOf(['managed', 'external', 'off'], {
    docDefault: 'managed if `turnserver` is installed, else off',
    description: '`managed` (spawn coturn), `external`, or `off`',
  }),
  MOUTHPIECE_TURN_HOST: text({
    docDefault: 'host of the public URL',
    description: 'TURN host returned as `turn.url`',
  }),
  MOUTHPIECE_TURN_PORT: int({
    ...PORT_RANGE,
    default: 3478,
    description: 'TURN listening port (80 for clients that build URLs by the spec)',
  }),
  MOUTHPIECE_TURN_ALT_PORT: int({ ...PORT_RANGE, description: 'second TURN port (e.g. 443)' }),
  MOUTHPIECE_TURN_SECRET: text({
    docDefault: 'generated (managed)',
    description: 'TURN REST API shared secret (required for external)',
  }),
  MOUTHPIECE_TURN_MIN_PORT: int({
    ...RELAY_PORT_RANGE,
    default: 49160,
    description: 'lowest relay port of managed coturn',
  }),
  MOUTHPIECE_TURN_MAX_PORT: int({
    ...RELAY_PORT_RANGE,
    default: 49200,
    description: 'highest relay port of managed coturn',
  }),
  MOUTHPIECE_TURN_LISTEN_IP: text({
    docDefault: '127.0.0.1 when the TURN host is localhost or loopback, else 0.0.0.0',
    description:
      'address managed coturn listens and relays on (0.0.0.0: every interface, relaying on the address a viewer reached)',
  }),
  MOUTHPIECE_TURN_EXTERNAL_IP: text({
    trim: true,
    description:
      "1:1 NAT (clouds): the public address, or `public/private`, coturn announces in relay candidates (coturn's `external-ip`)",
  }),
  MOUTHPIECE_TURN_TLS_CERT: text({
    docDefault: 'unset (no TURN over TLS)',
    description: "PEM certificate (chain) file for managed coturn's `turns:` listener; needs the key too",
  }),
  MOUTHPIECE_TURN_TLS_KEY: text({ description: 'PEM private key file of that certificate' }),
  MOUTHPIECE_TURN_TLS_PORT: int({
    ...PORT_RANGE,
    docDefault: '443 when a certificate is set',
    description:
      'TURN-over-TLS port handed out as `turns:` (below 1024 coturn needs CAP_NET_BIND_SERVICE); for external TURN, setting it hands out `turns:` URLs',
  }),
  MOUTHPIECE_ENGINE_MIN_PORT: int({
    ...RELAY_PORT_RANGE,
    docDefault: 'unset (any port)',
    description: "lowest UDP/TCP port the engine's WebRTC peers bind (set with the max)",
  }),
  MOUTHPIECE_ENGINE_MAX_PORT: int({
    ...RELAY_PORT_RANGE,
    docDefault: 'unset (any port)',
    description: "highest UDP/TCP port the engine's WebRTC peers bind; one port per viewer and interface",
  }),
  MOUTHPIECE_TURN_ALLOW_LOOPBACK: flag({ description: '1 lets coturn relay to loopback peers (tests only)' }),
  MOUTHPIECE_ICE_DENY: text({
    docDefault: 'loopback, link-local, multicast, unspecified',
    description:
      'comma list of CIDR blocks whose ICE candidates viewers may not give the engine (`none` allows all); private ranges stay allowed for LAN viewers',
  }),
  MOUTHPIECE_ICE_ALLOW_TCP: flag({
    description: '1 accepts TCP candidates from viewers (the engine then opens TCP connections to them)',
  }),
  MOUTHPIECE_CORS_ORIGINS: text({
    default: '*',
    emptyIsValue: true,
    description: 'comma list of origins allowed on create and catalog routes',
  }),
  MOUTHPIECE_TRUST_PROXY: flag({
    description:
      "1 behind one TLS-terminating proxy (deploy/): the client's address is the last X-Forwarded-For entry",
  }),
  MOUTHPIECE_TLS_CERT: text({
    docDefault: 'unset (plain HTTP)',
    description:
      'PEM certificate chain file: the server speaks HTTPS itself, no proxy in front (single node; with MOUTHPIECE_TLS_KEY)',
  }),
  MOUTHPIECE_TLS_KEY: text({
    docDefault: 'unset',
    description: 'PEM private key file of MOUTHPIECE_TLS_CERT',
  }),
  MOUTHPIECE_LOG_LEVEL: oneOf(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'], {
    default: 'info',
    description: 'debug, info, warn or error',
  }),
  MOUTHPIECE_WHEP_READY_TIMEOUT_MS: int({
    minimum: 0,
    default: 5000,
    description: "how long speech waits for the viewer's `ready` before playing",
  }),
  MOUTHPIECE_REDIS_URL: text({
    trim: true,
    pattern: '^rediss?://[^/\\s]+',
    patternMessage: 'must look like redis://host:6379',
    docDefault: 'unset (single node, SQLite)',
    description:
      'cluster mode: `redis://host:6379` holds credentials, sessions and limits for every node ([docs/cluster.md](docs/cluster.md))',
  }),
  MOUTHPIECE_NODE_ID: text({
    trim: true,
    pattern: '^[A-Za-z0-9._-]{1,64}$',
    patternMessage: 'must be 1-64 letters, digits, ".", "_" or "-"',
    docDefault: 'generated at start',
    description: "cluster mode: this node's name (letters, digits, `.`, `_`, `-`)",
  }),
  MOUTHPIECE_NODE_URL: text({
    trim: true,
    docDefault: 'the public URL',
    description: 'cluster mode: the base URL other nodes reach this node on (calls are forwarded there)',
  }),
  MOUTHPIECE_VOICES_FILE: text({
    description: 'JSON file of extra voices (format in docs/voices.md); a bad file stops start-up',
  }),
  MOUTHPIECE_ELEVENLABS_API_KEY: text({
    docDefault: 'unset (ElevenLabs off)',
    description:
      'turns ElevenLabs voices on; an unlisted `voiceConfig.id` is then tried as an ElevenLabs voice id',
  }),
  MOUTHPIECE_ELEVENLABS_URL: text({
    default: 'https://api.elevenlabs.io',
    description: 'ElevenLabs API base URL',
  }),
  MOUTHPIECE_ELEVENLABS_MODEL: text({
    default: ELEVENLABS_DEFAULT_MODEL,
    description: '`model_id` for voices without their own `model`',
  }),
  MOUTHPIECE_OPENAI_TTS_URL: text({
    docDefault: 'unset (OpenAI-compatible voices off)',
    description:
      'OpenAI-compatible speech API base: `https://api.openai.com/v1`, a local Kokoro `http://localhost:8880/v1`',
  }),
  MOUTHPIECE_OPENAI_TTS_API_KEY: text({
    description: 'Bearer key for that API (a local server may need none)',
  }),
  MOUTHPIECE_OPENAI_TTS_MODEL: text({
    default: OPENAI_DEFAULT_MODEL,
    description: '`model` for voices without their own',
  }),
  MOUTHPIECE_VOICE_TIMEOUT_MS: int({
    ...VOICE_TIMEOUT_RANGE,
    description: 'a provider request with no audio this long after it was sent fails its turn (`timeout`)',
  }),
  MOUTHPIECE_VOICE_STALL_TIMEOUT_MS: int({
    ...VOICE_TIMEOUT_RANGE,
    description: '…and one whose audio stops arriving for this long',
  }),
};

export type ConfigSpec = typeof CONFIG_SPEC;
export type EnvName = keyof ConfigSpec;

/** Each variable's value: never undefined where its schema has a default. */
export type EnvValues = {
  readonly [K in EnvName]: ConfigSpec[K] extends { default: unknown }
    ? Static<ConfigSpec[K]>
    : Static<ConfigSpec[K]> | undefined;
};
