/**
 * Builds the real app for tests: memory stores, the fake engine, a manual clock, TURN off, and a
 * credential ready to use. Helpers wrap the common calls so each test reads as what a user does.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { FakeEngineHost, ManualClock, type FakeEngineHostOptions } from '@mouthpiece/engine/testing';
import { buildApp, type AppDeps } from '../app.js';
import { generateCredential, hashSecret } from '../auth/credential-secret.js';
import type { Config } from '../config.js';
import { TEST_METRICS_TOKEN, testConfig } from './test-config.js';
import { createMemoryStores } from '../storage/memory.js';
import { Permission, type CredentialRecord, type PlanLimits, type Stores } from '../storage/ports.js';
import type { TurnSettings } from '../turn/credentials.js';

export interface TestApp {
  app: FastifyInstance;
  clock: ManualClock;
  engine: FakeEngineHost;
  stores: Stores;
  secret: string;
  credential: CredentialRecord;
  /** Issues another credential. */
  addCredential(opts?: {
    permissions?: Permission[];
    limits?: Partial<PlanLimits>;
    expiresAt?: number | null;
  }): {
    secret: string;
    record: CredentialRecord;
  };
  /** Creates a session with the default credential; returns its id and token. */
  createSession(body?: unknown, secret?: string): Promise<{ sessionId: string; token: string }>;
  /** POST with a Bearer token and a JSON body. */
  post(path: string, token: string | undefined, body?: unknown): Promise<LightMyRequestResponse>;
  /** The `/metrics` text, read with the test config's metrics token. */
  metrics(): Promise<string>;
  close(): Promise<void>;
}

export const JWT_SECRET = 'test-secret-test-secret-test-secret-0123';

export async function createTestApp(
  opts: {
    config?: Partial<Config>;
    limits?: Partial<PlanLimits>;
    turn?: TurnSettings;
    msPerCharacter?: number;
    /** Stores to use instead of fresh memory ones (e.g. SQLite in a temp dir). */
    stores?: Stores;
    /** The fake engine's avatars (default FAKE_AVATARS). */
    avatars?: FakeEngineHostOptions['avatars'];
    /** The fake engine's voices (default FAKE_VOICES). */
    voices?: FakeEngineHostOptions['voices'];
    /** The event streams' heartbeat and buffer bound. */
    eventStreams?: AppDeps['eventStreams'];
  } = {},
): Promise<TestApp> {
  const clock = new ManualClock();
  const config = testConfig(opts.config);
  const engine = new FakeEngineHost({
    clock,
    msPerCharacter: opts.msPerCharacter ?? 60,
    ...(opts.avatars ? { avatars: opts.avatars } : {}),
    ...(opts.voices ? { voices: opts.voices } : {}),
    clientRenderKinds: config.clientRenderKinds, // as the server hands it to its engine pool
  });
  const stores = opts.stores ?? createMemoryStores();
  const app = await buildApp({
    config,
    stores,
    engine,
    clock,
    jwtSecret: JWT_SECRET,
    turn: opts.turn ?? { mode: 'off', host: 'localhost', ports: [], secret: '' },
    logger: false,
    ...(opts.eventStreams ? { eventStreams: opts.eventStreams } : {}),
  });
  const addCredential: TestApp['addCredential'] = (o = {}) => {
    const { id, secret } = generateCredential();
    const record: CredentialRecord = {
      id,
      name: `test-${id}`,
      secretHash: hashSecret(secret),
      permissions: o.permissions ?? [Permission.SESSION_CREATE],
      createdAt: clock.now(),
      expiresAt: o.expiresAt ?? null,
      revokedAt: null,
      limits: {
        maxSessions: 10,
        maxSessionDurationMs: config.maxSessionDurationMs,
        maxTextLength: 5000,
        requestsPerSecond: 0,
        ...opts.limits,
        ...o.limits,
      },
    };
    void stores.credentials.insert(record); // taken at once (a synchronous store inside)
    return { secret, record };
  };
  const first = addCredential();
  const post: TestApp['post'] = (path, token, body) =>
    app.inject({
      method: 'POST',
      url: path,
      headers: token ? { authorization: `Bearer ${token}` } : {},
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });
  return {
    app,
    clock,
    engine,
    stores,
    secret: first.secret,
    credential: first.record,
    addCredential,
    post,
    async createSession(body = { visualConfig: { avatarId: 'amara' } }, secret = first.secret) {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/avatar-session',
        headers: { authorization: `KS ${secret}` },
        payload: body as Record<string, unknown>,
      });
      if (res.statusCode !== 200) throw new Error(`create failed: ${res.statusCode} ${res.body}`);
      return res.json<{ sessionId: string; token: string }>();
    },
    metrics: async () =>
      (
        await app.inject({
          method: 'GET',
          url: '/metrics',
          headers: { authorization: `Bearer ${config.metricsToken ?? TEST_METRICS_TOKEN}` },
        })
      ).body,
    close: () => app.close(),
  };
}

/** A multipart/form-data request (Buffers become file parts named `blob`, octet-stream). */
export function multipartBody(
  fields: Array<[string, string | Buffer]>,
  token?: string,
): { payload: Buffer; headers: Record<string, string> } {
  const boundary = '----mouthpiece-test-boundary';
  const parts = fields.map(([name, value]) =>
    Buffer.isBuffer(value)
      ? Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="blob"\r\nContent-Type: application/octet-stream\r\n\r\n`,
          ),
          value,
          Buffer.from('\r\n'),
        ])
      : Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
  );
  return {
    payload: Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]),
    headers: {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
  };
}
