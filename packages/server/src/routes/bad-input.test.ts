/** Bad input always gets a clear 4xx with the error body, never a 500, and changes nothing. */
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, multipartBody, type TestApp } from '../testing/test-app.js';

let t: TestApp;
afterEach(async () => t?.close());

async function withSession() {
  t = await createTestApp();
  const s = await t.createSession();
  const before = JSON.stringify([
    t.engine.calls.length,
    t.stores.usage.all(),
    t.stores.sessions.listActive(),
  ]);
  const unchanged = () =>
    expect(
      JSON.stringify([t.engine.calls.length, t.stores.usage.all(), t.stores.sessions.listActive()]),
    ).toBe(before);
  return { ...s, unchanged };
}

function expectError(res: { statusCode: number; json(): unknown }, status: number, code: string) {
  expect(res.statusCode).toBe(status);
  expect(res.json()).toMatchObject({ success: false, code, error: expect.any(String) });
}

describe('bad input', () => {
  it('malformed JSON → 400', async () => {
    const { sessionId, token, unchanged } = await withSession();
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/avatar-session/${sessionId}/say-text`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: '{"text": "hi",',
    });
    expectError(res, 400, 'INVALID_REQUEST');
    const create = await t.app.inject({
      method: 'POST',
      url: '/v1/avatar-session',
      headers: { authorization: `KS ${t.secret}`, 'content-type': 'application/json' },
      payload: '{nope',
    });
    expectError(create, 400, 'INVALID_REQUEST');
    unchanged();
  });

  it('wrong content type → 415 on say-text and say-audio', async () => {
    const { sessionId, token, unchanged } = await withSession();
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/avatar-session/${sessionId}/say-text`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/xml' },
      payload: '<text>hi</text>',
    });
    expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const audio = await t.post(`/v1/avatar-session/${sessionId}/say-audio`, token, { audio: 'x' });
    expectError(audio, 415, 'UNSUPPORTED_MEDIA_TYPE');
    unchanged();
  });

  it('init-client, interrupt, keep-alive and end ignore their body and its content type', async () => {
    const { sessionId, token } = await withSession();
    for (const op of ['init-client', 'keep-alive', 'interrupt']) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/v1/avatar-session/${sessionId}/${op}`,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' },
        payload: 'not json {',
      });
      expect(res.statusCode).toBe(200);
    }
  });

  it('body over the limit → 413', async () => {
    const { sessionId, token, unchanged } = await withSession();
    const res = await t.post(`/v1/avatar-session/${sessionId}/say-text`, token, {
      text: 'x'.repeat(300 * 1024),
    });
    expectError(res, 413, 'PAYLOAD_TOO_LARGE');
    unchanged();
  });

  it('unknown fields are ignored', async () => {
    t = await createTestApp();
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/avatar-session',
      headers: { authorization: `KS ${t.secret}` },
      payload: { visualConfig: { avatarId: 'amara', colour: 'blue' }, extra: 1 },
    });
    expect(res.statusCode).toBe(200);
    const { sessionId, token } = res.json();
    const say = await t.post(`/v1/avatar-session/${sessionId}/say-text`, token, {
      text: 'hi',
      mood: 'happy',
    });
    expect(say.statusCode).toBe(200);
  });

  it('wrong types → 400 naming the field (no coercion)', async () => {
    const { sessionId, token, unchanged } = await withSession();
    const r1 = await t.post(`/v1/avatar-session/${sessionId}/say-text`, token, {
      text: 'hi',
      isFinal: 'false',
    });
    expectError(r1, 400, 'INVALID_REQUEST');
    expect(r1.json().error).toContain('isFinal');
    const r2 = await t.post(`/v1/avatar-session/${sessionId}/say-text`, token, { text: 42 });
    expect(r2.json().error).toContain('text');
    const r3 = await t.app.inject({
      method: 'POST',
      url: '/v1/avatar-session',
      headers: { authorization: `KS ${t.secret}` },
      payload: { visualConfig: { avatarId: 'amara' }, voiceConfig: { speed: '1.0' } },
    });
    expectError(r3, 400, 'INVALID_REQUEST');
    expect(r3.json().error).toContain('voiceConfig.speed');
    const r4 = await t.app.inject({
      method: 'POST',
      url: '/v1/avatar-session',
      headers: { authorization: `KS ${t.secret}` },
      payload: { voiceConfig: {} },
    });
    expect(r4.json().error).toContain('visualConfig');
    unchanged();
  });

  it('missing or blank text → 400 "Text is required"', async () => {
    const { sessionId, token, unchanged } = await withSession();
    for (const body of [{}, { text: '' }, { text: '   ' }, undefined]) {
      const res = await t.post(`/v1/avatar-session/${sessionId}/say-text`, token, body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ success: false, error: 'Text is required', code: 'TEXT_REQUIRED' });
    }
    unchanged();
  });

  it('missing, garbled, wrong-scheme or custom-header credentials → 401', async () => {
    t = await createTestApp();
    const payload = { visualConfig: { avatarId: 'amara' } };
    const cases: Array<Record<string, string>> = [
      {},
      { authorization: 'KS' },
      { authorization: 'KS not-a-credential' },
      { authorization: `Bearer ${t.secret}` },
      { authorization: `KS ${t.secret}x` },
      { 'x-api-key': t.secret },
      { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
    ];
    for (const headers of cases) {
      const res = await t.app.inject({ method: 'POST', url: '/v1/avatar-session', headers, payload });
      expectError(res, 401, 'INVALID_CREDENTIAL');
      expect(res.headers['www-authenticate']).toMatch(/^KS/);
    }
    expect(t.engine.calls).toEqual([]);
  });

  it('missing, garbled or custom-header tokens → 401', async () => {
    const { sessionId, token, unchanged } = await withSession();
    const cases: Array<Record<string, string>> = [
      {},
      { authorization: 'Bearer' },
      { authorization: 'Bearer a.b.c' },
      { authorization: `KS ${token}` },
      { 'x-session-token': token },
      { authorization: `Bearer ${token} extra` },
    ];
    for (const headers of cases) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/v1/avatar-session/${sessionId}/keep-alive`,
        headers,
      });
      expectError(res, 401, 'INVALID_TOKEN');
    }
    unchanged();
  });

  it('expired or revoked credentials → 401; lacking session:create → 403', async () => {
    t = await createTestApp();
    const payload = { visualConfig: { avatarId: 'amara' } };
    const expired = t.addCredential({ expiresAt: t.clock.now() - 1 });
    const revoked = t.addCredential();
    await t.stores.credentials.revoke(revoked.record.id, t.clock.now());
    const adminOnly = t.addCredential({ permissions: ['admin'] });
    for (const secret of [expired.secret, revoked.secret]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/avatar-session',
        headers: { authorization: `KS ${secret}` },
        payload,
      });
      expectError(res, 401, 'INVALID_CREDENTIAL');
    }
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/avatar-session',
      headers: { authorization: `KS ${adminOnly.secret}` },
      payload,
    });
    expectError(res, 403, 'CREDENTIAL_FORBIDDEN');
    expect(t.engine.calls).toEqual([]);
  });

  it('unknown avatar or voice → 400 naming the catalog endpoint', async () => {
    t = await createTestApp();
    const create = (payload: object) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/avatar-session',
        headers: { authorization: `KS ${t.secret}` },
        payload,
      });
    const a = await create({ visualConfig: { avatarId: 'nobody' } });
    expectError(a, 400, 'UNKNOWN_AVATAR');
    expect(a.json().error).toContain('/v1/avatars');
    const v = await create({ visualConfig: { avatarId: 'amara' }, voiceConfig: { id: 'klingon' } });
    expectError(v, 400, 'UNKNOWN_VOICE');
    expect(v.json().error).toContain('/v1/voices');
    expect(t.engine.calls).toEqual([]);
  });

  it('speed outside [0.5, 2.0] → 400', async () => {
    t = await createTestApp();
    for (const speed of [0.49, 2.01, -1, 100]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/avatar-session',
        headers: { authorization: `KS ${t.secret}` },
        payload: { visualConfig: { avatarId: 'amara' }, voiceConfig: { speed } },
      });
      expectError(res, 400, 'INVALID_REQUEST');
      expect(res.json().error).toContain('speed');
    }
    for (const speed of [0.5, 2.0]) {
      await t.createSession({ visualConfig: { avatarId: 'amara' }, voiceConfig: { speed } });
    }
  });

  it('path ids that are not ids → 404, unknown routes → 404', async () => {
    const { token, unchanged } = await withSession();
    for (const id of ['nope', '..%2F..%2Fetc', 'x'.repeat(150), '%00']) {
      const res = await t.post(`/v1/avatar-session/${id}/keep-alive`, token);
      expectError(res, 404, 'SESSION_NOT_FOUND');
    }
    const r = await t.post('/v1/avatar-session/abc/frobnicate', token);
    expectError(r, 404, 'NOT_FOUND');
    unchanged();
  });

  it('say-audio: missing file, missing turnId, bad duration → 400; junk/empty audio → 400 Invalid audio file', async () => {
    const { sessionId, token, unchanged } = await withSession();
    const mp3 = Buffer.from([0xff, 0xfb, 0x90, 0x64, 0, 0, 0, 0]);
    const cases: Array<[Array<[string, string | Buffer]>, string]> = [
      [
        [
          ['turnId', 't'],
          ['duration', '1.5'],
        ],
        'INVALID_AUDIO',
      ],
      [
        [
          ['audio', mp3],
          ['duration', '1.5'],
        ],
        'INVALID_REQUEST',
      ],
      [
        [
          ['audio', mp3],
          ['turnId', 't'],
        ],
        'INVALID_REQUEST',
      ],
      [
        [
          ['audio', mp3],
          ['turnId', 't'],
          ['duration', 'abc'],
        ],
        'INVALID_REQUEST',
      ],
      [
        [
          ['audio', mp3],
          ['turnId', 't'],
          ['duration', '-2'],
        ],
        'INVALID_REQUEST',
      ],
      [
        [
          ['audio', Buffer.from('hello, not audio')],
          ['turnId', 't'],
          ['duration', '1'],
        ],
        'INVALID_AUDIO',
      ],
      [
        [
          ['audio', Buffer.alloc(0)],
          ['turnId', 't'],
          ['duration', '1'],
        ],
        'INVALID_AUDIO',
      ],
    ];
    for (const [fields, code] of cases) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/v1/avatar-session/${sessionId}/say-audio`,
        ...multipartBody(fields, token),
      });
      expectError(res, 400, code);
      if (code === 'INVALID_AUDIO') expect(res.json().error).toMatch(/^Invalid audio file/);
    }
    unchanged();
  });

  it('say-audio: one file under another field name is the audio; none at all says to use "audio"', async () => {
    const { sessionId, token } = await withSession();
    const sayAudio = (fields: Array<[string, string | Buffer]>) =>
      t.app.inject({
        method: 'POST',
        url: `/v1/avatar-session/${sessionId}/say-audio`,
        ...multipartBody(fields, token),
      });
    // a second of 8 kHz silence declared as 3 s: the decoded second is what plays, and is answered
    const renamed = await sayAudio([
      ['file', wav(1)],
      ['turnId', 'renamed'],
      ['duration', '3'],
    ]);
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toEqual({ success: true, turnId: 'renamed', decodedDuration: 1 });
    expect((await t.stores.usage.get(t.credential.id))?.audioSeconds).toBe(1);
    // a file in the turnId field is not audio, and no file at all is the same 400
    for (const fields of [
      [
        ['turnId', wav(1)],
        ['duration', '1'],
      ],
      [
        ['turnId', 't'],
        ['duration', '1'],
      ],
    ] as Array<Array<[string, string | Buffer]>>) {
      const res = await sayAudio(fields);
      expectError(res, 400, 'INVALID_AUDIO');
      expect(res.json().error).toBe(
        'Invalid audio file: the form has no file; send the MP3 or WAV in the field "audio"',
      );
    }
  });

  it('say-audio: a bad duration says the decoded audio is what plays', async () => {
    const { sessionId, token, unchanged } = await withSession();
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/avatar-session/${sessionId}/say-audio`,
      ...multipartBody(
        [
          ['audio', wav(1)],
          ['turnId', 't'],
          ['duration', 'one'],
        ],
        token,
      ),
    });
    expectError(res, 400, 'INVALID_REQUEST');
    expect(res.json().error).toMatch(/^Invalid field "duration": .*the decoded audio is what plays/);
    unchanged();
  });

  it('415 names the type each route expects and the one it received', async () => {
    const { sessionId, token, unchanged } = await withSession();
    const sent = (url: string, contentType: string, payload: string) =>
      t.app.inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
        payload,
      });
    const base = `/v1/avatar-session/${sessionId}`;
    for (const [url, type, expected] of [
      [`${base}/say-text`, 'text/xml', 'application/json'],
      [`${base}/say-audio`, 'audio/mpeg', 'multipart/form-data'],
      [`${base}/whep`, 'text/plain', 'application/sdp'],
    ]) {
      const res = await sent(url!, type!, 'x');
      expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
      expect(res.json().error).toBe(`Unsupported media type: expected ${expected} (received ${type})`);
    }
    unchanged();
  });

  it('say-audio over the size cap → 413', async () => {
    t = await createTestApp({ config: { maxAudioBytes: 2048 } });
    const { sessionId, token } = await t.createSession();
    const big = Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(4096)]);
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/avatar-session/${sessionId}/say-audio`,
      ...multipartBody(
        [
          ['audio', big],
          ['turnId', 't'],
          ['duration', '1'],
        ],
        token,
      ),
    });
    expectError(res, 413, 'PAYLOAD_TOO_LARGE');
    expect(res.json().error).toBe('Payload too large: the audio file is over 2 KiB');
  });
});

/** A WAV file of silence: 8 kHz, mono, 16-bit. */
function wav(seconds: number): Buffer {
  const rate = 8000;
  const data = rate * 2 * seconds;
  const b = Buffer.alloc(44 + data);
  b.write('RIFF', 0);
  b.writeUInt32LE(36 + data, 4);
  b.write('WAVEfmt ', 8);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20); // PCM
  b.writeUInt16LE(1, 22); // mono
  b.writeUInt32LE(rate, 24);
  b.writeUInt32LE(rate * 2, 28); // byte rate
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36);
  b.writeUInt32LE(data, 40);
  return b;
}
