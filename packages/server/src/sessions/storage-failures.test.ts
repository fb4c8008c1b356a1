/**
 * A failing store (a locked or full database) never leaves half-done state and never throws out
 * of a session's end: create leaves nothing behind, an end happens in memory and its write is
 * retried until it lands.
 */
import { afterEach, expect, it } from 'vitest';
import { errorBody } from '@mouthpiece/protocol';
import { createTestApp, type TestApp } from '../testing/test-app.js';

let t: TestApp;
afterEach(() => t?.close());

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

/** What a store's driver throws: the adapters' retrying layer turns it into StorageUnavailable. */
const busy = (): never => {
  throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
};

it('a store failing under a route answers 503 STORAGE_UNAVAILABLE with Retry-After, as it always did', async () => {
  t = await createTestApp();
  t.stores.credentials.get = () => {
    throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
  };
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/avatar-session',
    headers: { authorization: `KS ${t.secret}` },
    payload: { visualConfig: { avatarId: 'amara' } },
  });
  expect(res.statusCode).toBe(503);
  expect(res.headers['retry-after']).toBe('2');
  expect(res.json()).toEqual({
    success: false,
    code: 'STORAGE_UNAVAILABLE',
    error: errorBody('STORAGE_UNAVAILABLE').error,
  });
  expect(t.engine.sessionIds()).toEqual([]);
});

it('a failed insert on create answers 503 and leaves no engine session and no used slot', async () => {
  t = await createTestApp({ limits: { maxSessions: 1 } });
  const insert = t.stores.sessions.insert.bind(t.stores.sessions);
  t.stores.sessions.insert = busy;
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/avatar-session',
    headers: { authorization: `KS ${t.secret}` },
    payload: { visualConfig: { avatarId: 'amara' } },
  });
  expect(res.statusCode).toBe(503);
  expect(res.json()).toMatchObject({
    code: 'STORAGE_UNAVAILABLE',
    error: expect.stringMatching(/not created/),
  });
  expect(t.engine.sessionIds()).toEqual([]);
  expect(t.engine.calls.at(-1)).toMatchObject({ op: 'closeSession', reason: 'not_created' });
  t.stores.sessions.insert = insert;
  await expect(t.createSession()).resolves.toMatchObject({ sessionId: expect.any(String) }); // slot free
});

it('an end whose write fails still ends the session (410 with its reason) and the write is retried', async () => {
  t = await createTestApp();
  const { sessionId, token } = await t.createSession();
  const markEnded = t.stores.sessions.markEnded.bind(t.stores.sessions);
  t.stores.sessions.markEnded = busy;
  const end = await t.post(`/v1/avatar-session/${sessionId}/end`, token);
  expect(end.statusCode).toBe(200);
  expect(t.engine.sessionIds()).toEqual([]); // the engine session is closed
  const after = await t.post(`/v1/avatar-session/${sessionId}/keep-alive`, token);
  expect(after.statusCode).toBe(410);
  expect(after.json()).toMatchObject({ reason: 'ended_by_client' });
  expect((await t.stores.sessions.get(sessionId))?.status).toBe('active'); // not written yet
  t.stores.sessions.markEnded = markEnded;
  t.clock.advance(1000); // the first retry
  await settle();
  expect(await t.stores.sessions.get(sessionId)).toMatchObject({
    status: 'ended',
    endReason: 'ended_by_client',
  });
  expect((await t.post(`/v1/avatar-session/${sessionId}/keep-alive`, token)).json()).toMatchObject({
    code: 'SESSION_ENDED',
    reason: 'ended_by_client',
  });
});

it('an idle timeout while the store is locked ends the session without an unhandled rejection', async () => {
  t = await createTestApp({ config: { idleTimeoutMs: 2000 } });
  const rejections: unknown[] = [];
  const onRejection = (r: unknown) => rejections.push(r);
  process.on('unhandledRejection', onRejection);
  try {
    const { sessionId, token } = await t.createSession();
    t.stores.sessions.markEnded = busy;
    t.stores.usage.add = busy;
    t.clock.advance(2000);
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(rejections).toEqual([]);
    const after = await t.post(`/v1/avatar-session/${sessionId}/keep-alive`, token);
    expect(after.json()).toMatchObject({ code: 'SESSION_ENDED', reason: 'idle_timeout' });
    t.clock.advance(60_000); // retries keep failing quietly, the process lives
    expect(rejections).toEqual([]);
  } finally {
    process.off('unhandledRejection', onRejection);
  }
});

it('say-text while usage cannot be written answers 200 once, and the characters are billed when the store is back', async () => {
  t = await createTestApp();
  const { sessionId, token } = await t.createSession();
  const add = t.stores.usage.add.bind(t.stores.usage);
  t.stores.usage.add = busy;
  const said = await t.post(`/v1/avatar-session/${sessionId}/say-text`, token, {
    text: 'Hello there.',
    turnId: 't1',
  });
  expect(said.statusCode).toBe(200);
  t.stores.usage.add = add;
  t.clock.advance(60_000); // the next flush
  await settle();
  expect((await t.stores.usage.get(t.credential.id)).charactersSpoken).toBe('Hello there.'.length);
});
