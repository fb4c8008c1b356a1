/**
 * An engine that dies while a create waits for the store: the failure is remembered, not dropped,
 * and the create is aborted — it answers 503 ENGINE_UNAVAILABLE, the session never goes active,
 * and nothing is left behind (no engine session, no slot, no record counted as active).
 */
import { afterEach, expect, it } from 'vitest';
import { errorBody } from '@mouthpiece/protocol';
import type { SessionRecord } from '../storage/ports.js';
import { createTestApp, type TestApp } from '../testing/test-app.js';

let t: TestApp;
afterEach(() => t?.close());

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

it('the engine killed while a create awaits the store: 503 ENGINE_UNAVAILABLE, never active, nothing leaks', async () => {
  t = await createTestApp({ limits: { maxSessions: 1 } });
  const insert = t.stores.sessions.insert.bind(t.stores.sessions);
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let creating: SessionRecord | undefined;
  t.stores.sessions.insert = async (record) => {
    creating = record;
    await held; // the store is slow: the create waits here
    return insert(record);
  };
  const answer = t.app.inject({
    method: 'POST',
    url: '/v1/avatar-session',
    headers: { authorization: `KS ${t.secret}` },
    payload: { visualConfig: { avatarId: 'amara' } },
  });
  await settle();
  expect(creating).toBeDefined();
  const sessionId = creating!.id;
  t.engine.failSession(sessionId); // its engine process dies mid-create
  release();
  const res = await answer;

  expect(res.statusCode).toBe(503);
  expect(res.headers['retry-after']).toBe('5');
  expect(res.json()).toEqual({
    success: false,
    code: 'ENGINE_UNAVAILABLE',
    error: errorBody('ENGINE_UNAVAILABLE').error,
  });
  await settle();
  expect(t.engine.sessionIds()).toEqual([]);
  // the record the store took is ended, so no store counts it against the credential
  expect(await t.stores.sessions.get(sessionId)).toMatchObject({
    status: 'ended',
    endReason: 'engine_failed',
  });
  expect(await t.stores.sessions.listActive()).toEqual([]);
  const metrics = await t.metrics();
  expect(metrics).toMatch(/^mouthpiece_sessions_created_total 0$/m); // it never went active
  expect(metrics).toMatch(/^mouthpiece_sessions_active 0$/m);
  expect(metrics).toMatch(/^mouthpiece_engine_session_failures_total 1$/m);

  t.stores.sessions.insert = insert;
  await expect(t.createSession()).resolves.toMatchObject({ sessionId: expect.any(String) }); // slot free
});
