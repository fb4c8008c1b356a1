import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/test-app.js';

let t: TestApp;
afterEach(async () => t?.close());

describe('session lifecycle through the API', () => {
  it('creates on both paths, accepts visualConfig.id, and answers sessionId + token', async () => {
    t = await createTestApp();
    for (const url of ['/v1/avatar-session', '/v1/avatar-session/create']) {
      const res = await t.app.inject({
        method: 'POST',
        url,
        headers: { authorization: `ks ${t.secret}` },
        payload: { visualConfig: { id: 'mei' }, voiceConfig: { id: 'de-female', speed: 1.5 } },
      });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ success: true });
      expect(body.sessionId).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(body.token.split('.')).toHaveLength(3);
    }
    expect(t.engine.calls.filter((c) => c.op === 'createSession')).toHaveLength(2);
    expect(t.engine.calls[0]).toMatchObject({
      opts: { avatarId: 'mei', voiceId: 'de-female', voiceSpeed: 1.5 },
    });
  });

  it('uses the default voice and speed 1 when voiceConfig is omitted', async () => {
    t = await createTestApp();
    await t.createSession();
    expect(t.engine.calls[0]).toMatchObject({ opts: { voiceId: 'en-us-female', voiceSpeed: 1 } });
  });

  it('init-client returns whepUrl with a viewer token and TURN settings', async () => {
    t = await createTestApp({
      config: { publicUrl: 'https://avatars.example.test' },
      turn: { mode: 'managed', host: 'turn.example.test', ports: [3478], secret: 's3cret' },
    });
    const { sessionId, token } = await t.createSession();
    const res = await t.post(`/v1/avatar-session/${sessionId}/init-client`, token, {});
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.whepUrl).toMatch(
      new RegExp(`^https://avatars.example.test/v1/avatar-session/${sessionId}/whep\\?vt=[\\w-]{22}$`),
    );
    expect(body.turn.url).toBe('turn.example.test');
    expect(body.turn.username).toMatch(new RegExp(`^\\d+:${sessionId}$`));
    expect(body.turn.credential).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(body.turn.urls).toEqual([
      'turn:turn.example.test:3478?transport=udp',
      'turn:turn.example.test:3478?transport=tcp',
    ]);
    expect(body.iceServers).toEqual([
      { urls: body.turn.urls, username: body.turn.username, credential: body.turn.credential },
    ]);
    expect(body.idleTimeoutMs).toBe(30_000);
    expect(Date.parse(body.expiresAt)).toBe(t.clock.now() + 3_600_000);
    expect(body.trickleIce).toBe(true); // the SDK sends its offer before ICE gathering completes
  });

  it('init-client with TURN off still returns a turn object, with no URLs', async () => {
    t = await createTestApp();
    const { sessionId, token } = await t.createSession();
    const body = (await t.post(`/v1/avatar-session/${sessionId}/init-client`, token)).json();
    expect(body.turn).toEqual({ url: 'localhost', username: 'none', credential: 'none', urls: [] });
    expect(body.iceServers).toEqual([]);
  });

  it('say-text queues turns that the engine speaks in order, with defaults for turnId and isFinal', async () => {
    t = await createTestApp({ msPerCharacter: 10 });
    const { sessionId, token } = await t.createSession();
    const a = await t.post(`/v1/avatar-session/${sessionId}/say-text`, token, { text: 'Hello there' });
    expect(a.statusCode).toBe(200);
    expect(a.json().turnId).toMatch(/[0-9a-f-]{36}/);
    const b = await t.post(`/v1/avatar-session/${sessionId}/say-text`, token, {
      text: 'Part one ',
      turnId: 'b',
      isFinal: false,
    });
    expect(b.json()).toEqual({ success: true, turnId: 'b' });
    await t.post(`/v1/avatar-session/${sessionId}/say-text`, token, {
      text: 'then',
      turnId: 'c',
      isFinal: true,
    });
    t.clock.advance(16_000); // b has had no chunk for 15 s: finalized as it stands
    const starts = t.engine.events
      .filter((e) => e.type === 'speakingStart')
      .map((e) => (e.type === 'speakingStart' ? e.turnId : ''));
    expect(starts.slice(1)).toEqual(['b', 'c']); // b auto-finalized after 15 s, then c
  });

  it('a chunk for a final turn is 409 and chunks after an interrupt are discarded', async () => {
    t = await createTestApp();
    const { sessionId, token } = await t.createSession();
    const say = (body: unknown) => t.post(`/v1/avatar-session/${sessionId}/say-text`, token, body);
    await say({ text: 'one', turnId: 't1', isFinal: true });
    const again = await say({ text: 'two', turnId: 't1', isFinal: true });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ success: false, error: 'Turn is already final', code: 'TURN_FINAL' });
    await say({ text: 'stream ', turnId: 't2', isFinal: false });
    expect((await t.post(`/v1/avatar-session/${sessionId}/interrupt`, token, {})).statusCode).toBe(200);
    const late = await say({ text: 'more', turnId: 't2', isFinal: true });
    expect(late.statusCode).toBe(200);
    expect(late.json()).toEqual({ success: true, turnId: 't2', discarded: true });
    expect(t.engine.events.at(-1)).toMatchObject({ type: 'speakingEnd', turnId: 't1', interrupted: true });
  });

  it('interrupt when idle answers 200', async () => {
    t = await createTestApp();
    const { sessionId, token } = await t.createSession();
    expect((await t.post(`/v1/avatar-session/${sessionId}/interrupt`, token)).statusCode).toBe(200);
  });

  it('end releases the engine session; later calls answer 410, then 404 after retention', async () => {
    t = await createTestApp({ config: { endedRetentionMs: 10 * 60_000 } });
    const { sessionId, token } = await t.createSession();
    const end = await t.post(`/v1/avatar-session/${sessionId}/end`, token, {});
    expect(end.json()).toEqual({ success: true });
    expect(t.engine.sessionIds()).toEqual([]);
    for (const op of ['keep-alive', 'end', 'interrupt', 'init-client']) {
      const res = await t.post(`/v1/avatar-session/${sessionId}/${op}`, token);
      expect(res.statusCode).toBe(410);
      expect(res.json()).toEqual({
        success: false,
        error: 'Session ended (ended_by_client)',
        code: 'SESSION_ENDED',
        reason: 'ended_by_client',
      });
    }
    t.clock.advance(11 * 60_000);
    const gone = await t.post(`/v1/avatar-session/${sessionId}/keep-alive`, token);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().code).toBe('SESSION_NOT_FOUND');
  });

  it('the idle timeout ends a session without keep-alives; any successful call refreshes it', async () => {
    t = await createTestApp({ config: { idleTimeoutMs: 30_000 } });
    const { sessionId, token } = await t.createSession();
    t.clock.advance(25_000);
    expect((await t.post(`/v1/avatar-session/${sessionId}/keep-alive`, token)).statusCode).toBe(200);
    t.clock.advance(25_000);
    expect((await t.post(`/v1/avatar-session/${sessionId}/say-text`, token, { text: 'hi' })).statusCode).toBe(
      200,
    );
    t.clock.advance(29_999);
    expect(t.engine.sessionIds()).toEqual([sessionId]);
    t.clock.advance(1);
    await Promise.resolve();
    expect(t.engine.calls.at(-1)).toEqual({ op: 'closeSession', sessionId, reason: 'idle_timeout' });
    const ended = await t.post(`/v1/avatar-session/${sessionId}/keep-alive`, token);
    expect(ended.statusCode).toBe(410);
    expect(ended.json()).toMatchObject({ error: 'Session ended (idle_timeout)', reason: 'idle_timeout' });
  });

  it('the max duration ends a session even with keep-alives', async () => {
    t = await createTestApp({ limits: { maxSessionDurationMs: 60_000 } });
    const { sessionId, token } = await t.createSession();
    for (let i = 0; i < 5; i++) {
      t.clock.advance(10_000);
      expect((await t.post(`/v1/avatar-session/${sessionId}/keep-alive`, token)).statusCode).toBe(200);
    }
    t.clock.advance(10_000);
    await Promise.resolve();
    expect(t.engine.calls.at(-1)).toMatchObject({ op: 'closeSession', reason: 'max_duration' });
    expect((await t.post(`/v1/avatar-session/${sessionId}/keep-alive`, token)).statusCode).toBe(410);
  });

  it('a token of another session answers 403; a bad token 401 with WWW-Authenticate', async () => {
    t = await createTestApp();
    const a = await t.createSession();
    const b = await t.createSession();
    const res = await t.post(`/v1/avatar-session/${a.sessionId}/keep-alive`, b.token);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ success: false, error: 'Insufficient permissions', code: 'FORBIDDEN' });
    const bad = await t.post(`/v1/avatar-session/${a.sessionId}/keep-alive`, b.token.slice(0, -2) + 'xx');
    expect(bad.statusCode).toBe(401);
    expect(bad.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    expect(bad.json()).toEqual({
      success: false,
      error:
        'Invalid or expired token: the token signature does not match (issued by another server, or altered)',
      code: 'INVALID_TOKEN',
    });
  });

  it('decides token operations in the order 401, 404, 403, 410', async () => {
    t = await createTestApp();
    const a = await t.createSession();
    const b = await t.createSession();
    await t.post(`/v1/avatar-session/${a.sessionId}/end`, a.token);
    // unknown session with a bad token → 401 first
    expect((await t.post('/v1/avatar-session/AAAAAAAAAAAAAAAAAAAAAA/keep-alive', 'garbage')).statusCode).toBe(
      401,
    );
    // unknown session with a valid token → 404
    expect((await t.post('/v1/avatar-session/AAAAAAAAAAAAAAAAAAAAAA/keep-alive', b.token)).statusCode).toBe(
      404,
    );
    // ended session with another session's token → 403 before 410
    expect((await t.post(`/v1/avatar-session/${a.sessionId}/keep-alive`, b.token)).statusCode).toBe(403);
    // ended session with its own token → 410
    expect((await t.post(`/v1/avatar-session/${a.sessionId}/keep-alive`, a.token)).statusCode).toBe(410);
  });

  it('an expired token answers 401', async () => {
    t = await createTestApp({
      limits: { maxSessionDurationMs: 60_000 },
      config: { endedRetentionMs: 60_000 },
    });
    const { sessionId, token } = await t.createSession();
    t.clock.advance(121_000);
    expect((await t.post(`/v1/avatar-session/${sessionId}/keep-alive`, token)).statusCode).toBe(401);
  });

  it('say-text over the credential text limit is 400 naming the limit', async () => {
    t = await createTestApp({ limits: { maxTextLength: 20 } });
    const { sessionId, token } = await t.createSession();
    const res = await t.post(`/v1/avatar-session/${sessionId}/say-text`, token, { text: 'x'.repeat(21) });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'TEXT_TOO_LONG', error: expect.stringContaining('20') });
  });

  it('counts usage per credential', async () => {
    t = await createTestApp();
    const { sessionId, token } = await t.createSession();
    await t.post(`/v1/avatar-session/${sessionId}/say-text`, token, { text: 'twelve chars' });
    t.clock.advance(5000);
    await t.post(`/v1/avatar-session/${sessionId}/end`, token);
    expect(await t.stores.usage.get(t.credential.id)).toEqual({
      sessionsCreated: 1,
      charactersSpoken: 12,
      audioSeconds: 0,
      sessionSeconds: 5,
    });
  });

  it('a failed engine session ends the session as engine_failed (410 afterwards)', async () => {
    t = await createTestApp();
    const a = await t.createSession();
    const b = await t.createSession();
    t.engine.failSession(a.sessionId);
    await new Promise((r) => setImmediate(r));
    expect((await t.post(`/v1/avatar-session/${a.sessionId}/keep-alive`, a.token)).statusCode).toBe(410);
    expect((await t.post(`/v1/avatar-session/${b.sessionId}/keep-alive`, b.token)).statusCode).toBe(200);
    expect((await t.stores.sessions.get(a.sessionId))?.endReason).toBe('engine_failed');
  });
});
