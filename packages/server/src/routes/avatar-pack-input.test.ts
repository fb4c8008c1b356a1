/**
 * The pack route's refusals: who may read it (the session token or the viewer token, as the other
 * session routes say it), and names that are not the pack's listed files — traversal attempts
 * sent over a raw socket exactly as written (no client normalises `..` away), encoded slashes,
 * NUL, files in the pack that are not listed, a link out of the pack, a pack gone from disk.
 */
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadedAvatarsDir } from '../avatars/uploaded-avatars.js';
import { PACK_AVATARS, PACK_IDS, testPackDir, writeTestPacks } from '../testing/avatar-packs.js';
import { createTestApp, type TestApp } from '../testing/test-app.js';

let dataDir: string;
let outside: string;
let t: TestApp;
let port: number;
const LINKED = 'linked';
const REMOVABLE = 'removable';

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'mp-pack-input-'));
  outside = mkdtempSync(join(tmpdir(), 'mp-pack-outside-'));
  await writeTestPacks(dataDir);
  // a photo pack whose portrait is a link to a file outside it; another to remove mid-session
  const photo = testPackDir(dataDir, PACK_IDS.photo);
  for (const id of [LINKED, REMOVABLE]) {
    const dir = join(uploadedAvatarsDir({ dataDir }), id);
    cpSync(photo, dir, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(dir, 'avatar.json'), 'utf8')) as object;
    writeFileSync(join(dir, 'avatar.json'), JSON.stringify({ ...manifest, id }));
  }
  cpSync(join(photo, 'portrait.png'), join(outside, 'secret.png'));
  rmSync(join(uploadedAvatarsDir({ dataDir }), LINKED, 'portrait.png'));
  symlinkSync(join(outside, 'secret.png'), join(uploadedAvatarsDir({ dataDir }), LINKED, 'portrait.png'));
  const avatars = [
    ...PACK_AVATARS,
    ...[LINKED, REMOVABLE].map((id) => ({ id, name: id, width: 512, height: 512 })),
  ];
  t = await createTestApp({ config: { dataDir, idleTimeoutMs: 600_000 }, avatars });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as { port: number }).port;
}, 120_000);
afterAll(async () => {
  await t?.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

async function session(avatarId: string) {
  const s = await t.createSession({ visualConfig: { avatarId } });
  const init = (await t.post(`/v1/avatar-session/${s.sessionId}/init-client`, s.token)).json<{
    whepUrl: string;
  }>();
  return {
    ...s,
    vt: new URL(init.whepUrl).searchParams.get('vt')!,
    base: `/v1/avatar-session/${s.sessionId}/avatar`,
  };
}

/** One GET over a raw socket, the path exactly as given: status, headers and body. */
function rawGet(path: string, lines: string[]): Promise<{ status: number; head: string; body: Buffer }> {
  const head = [`GET ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, ...lines, 'Connection: close'].join(
    '\r\n',
  );
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(`${head}\r\n\r\n`));
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const out = Buffer.concat(chunks);
      const split = out.indexOf('\r\n\r\n');
      const text = out.subarray(0, split).toString('latin1');
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]),
        head: text,
        body: out.subarray(split + 4),
      });
    });
  });
}

function expectError(res: { statusCode: number; json(): unknown }, status: number, code: string) {
  expect(res.statusCode).toBe(status);
  const body = res.json() as Record<string, unknown>;
  expect(body).toMatchObject({ success: false, code });
  expect(typeof body['error']).toBe('string');
}

describe('who may read a pack', () => {
  it('the session token or the viewer token; nothing else', async () => {
    const s = await session(PACK_IDS.photo);
    const other = await session(PACK_IDS.photo);
    const file = `${s.base}/portrait.png`;
    for (const url of [s.base, file]) {
      const none = await t.app.inject({ url });
      expectError(none, 401, 'INVALID_TOKEN');
      expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
      const viaVt = await t.app.inject({ url: `${url}?vt=${s.vt}` });
      expect(viaVt.statusCode, url).toBe(200);
      expectError(await t.app.inject({ url: `${url}?vt=${other.vt}` }), 401, 'INVALID_TOKEN');
      // a view-only page sends the viewer token as Bearer (create's viewerToken)
      const viaBearer = await t.app.inject({ url, headers: { authorization: `Bearer ${s.vt}` } });
      expect(viaBearer.statusCode, url).toBe(200);
      expectError(
        await t.app.inject({ url, headers: { authorization: `Bearer ${other.vt}` } }),
        401,
        'INVALID_TOKEN',
      );
      expectError(
        await t.app.inject({ url, headers: { authorization: `Bearer ${other.token}` } }),
        403,
        'FORBIDDEN',
      );
      expectError(await t.app.inject({ url: `${url}?vt=${s.vt}&vt=${s.vt}` }), 400, 'INVALID_REQUEST');
      // If-None-Match is a list: two lines are one list, not a repeat (RFC 9110 §5.3)
      const etag = viaVt.headers['etag'] as string;
      const twice = await rawGet(url, [
        `Authorization: Bearer ${s.token}`,
        'If-None-Match: "a"',
        `If-None-Match: ${etag}`,
      ]);
      expect(twice.status, url).toBe(304);
      expect(
        (await rawGet(url, [`Authorization: Bearer ${s.token}`, 'If-None-Match: "a"', 'If-None-Match: "b"']))
          .status,
      ).toBe(200);
    }
    // a session id no one made, with a valid token of another: 404 as on every session route
    const unknown = await t.app.inject({
      url: '/v1/avatar-session/AbCdEfGhIjKlMnOpQrStUv/avatar',
      headers: { authorization: `Bearer ${s.token}` },
    });
    expectError(unknown, 404, 'SESSION_NOT_FOUND');
    // ended: 410 with the reason, for the token and the viewer token alike
    await t.post(`/v1/avatar-session/${s.sessionId}/end`, s.token, {});
    const ended = await t.app.inject({ url: s.base, headers: { authorization: `Bearer ${s.token}` } });
    expectError(ended, 410, 'SESSION_ENDED');
    expect(ended.json()).toMatchObject({ reason: 'ended_by_client' });
    expectError(await t.app.inject({ url: `${file}?vt=${s.vt}` }), 410, 'SESSION_ENDED');
  });

  it('garbled tokens are 401s saying which mistake; session ids that are not ids are 404', async () => {
    const s = await session(PACK_IDS.sprites);
    for (const [authorization, says] of [
      [`KS ${t.secret}`, /session token, not the credential/],
      ['Basic dXNlcjpwdw==', /unsupported authorization scheme "Basic"/],
      ['Bearer not-a-jwt', /malformed token/],
      [`Bearer ${s.token}x`, /signature does not match/],
      ['Bearer', /malformed Authorization header/],
    ] as const) {
      const res = await t.app.inject({ url: s.base, headers: { authorization } });
      expectError(res, 401, 'INVALID_TOKEN');
      expect(res.json<{ error: string }>().error, authorization).toMatch(says);
    }
    for (const id of ['nope', '..%2F..%2Fetc', 'x'.repeat(150), '%00']) {
      const res = await t.app.inject({
        url: `/v1/avatar-session/${id}/avatar/base.png`,
        headers: { authorization: `Bearer ${s.token}` },
      });
      expectError(res, 404, 'SESSION_NOT_FOUND');
    }
  });

  it('a session whose avatar has no pack on this server (removed, or never on disk): 404 NOT_FOUND', async () => {
    const gone = await session('gone');
    const auth = { authorization: `Bearer ${gone.token}` };
    expectError(await t.app.inject({ url: gone.base, headers: auth }), 404, 'NOT_FOUND');
    const s = await session(REMOVABLE);
    const own = { authorization: `Bearer ${s.token}` };
    expect((await t.app.inject({ url: s.base, headers: own })).statusCode).toBe(200);
    const dir = join(uploadedAvatarsDir({ dataDir }), REMOVABLE);
    renameSync(dir, join(outside, REMOVABLE)); // as the admin removal does: out of the folder
    expectError(await t.app.inject({ url: s.base, headers: own }), 404, 'NOT_FOUND');
    expectError(await t.app.inject({ url: `${s.base}/portrait.png`, headers: own }), 404, 'NOT_FOUND');
  });
});

describe('names that are not a listed file of the pack', () => {
  const ATTEMPTS = [
    '..',
    '.',
    '%2e%2e',
    '%2e%2e%2favatar.json',
    '..%2favatar.json',
    '..%2f..%2f..%2f..%2f..%2f..%2fetc%2fpasswd',
    '%2fetc%2fpasswd',
    '..%5cavatar.json',
    '%252e%252e%252favatar.json',
    'portrait.png%00',
    'portrait.png%00.png',
    '%00',
    'avatar.json',
    'preview.png',
    'PORTRAIT.PNG',
    'video.json',
    'base.i420',
    '%20portrait.png',
    'portrait.png%20',
    'x'.repeat(90),
  ];

  it('each is a 404 with the error body, over a raw socket as written', async () => {
    const s = await session(PACK_IDS.photo);
    const listed = await rawGet(`${s.base}/portrait.png`, [`Authorization: Bearer ${s.token}`]);
    expect(listed.status).toBe(200);
    for (const name of ATTEMPTS) {
      const res = await rawGet(`${s.base}/${name}`, [`Authorization: Bearer ${s.token}`]);
      expect(res.status, name).toBe(404);
      const body = JSON.parse(res.body.toString('utf8')) as Record<string, unknown>;
      expect(body, name).toMatchObject({ success: false, code: 'NOT_FOUND' });
      expect(res.body.includes('landmarks'), name).toBe(false);
    }
  });

  it('a path that climbs out of the route is no route at all (404), never a file', async () => {
    const s = await session(PACK_IDS.photo);
    for (const path of [
      `${s.base}/../avatar.json`,
      `${s.base}/../../../../../../etc/passwd`,
      `${s.base}/./portrait.png/..`,
      `${s.base}//etc/passwd`,
    ]) {
      const res = await rawGet(path, [`Authorization: Bearer ${s.token}`]);
      expect(res.status, path).toBe(404);
      expect(JSON.parse(res.body.toString('utf8')), path).toMatchObject({ success: false });
      expect(res.body.includes('root:'), path).toBe(false);
    }
  });

  it('a listed file that is a link out of the pack is not served (nor the list naming it)', async () => {
    const s = await session(LINKED);
    const auth = { authorization: `Bearer ${s.token}` };
    expectError(await t.app.inject({ url: `${s.base}/portrait.png`, headers: auth }), 404, 'NOT_FOUND');
    expectError(await t.app.inject({ url: s.base, headers: auth }), 404, 'NOT_FOUND');
  });

  it('another method is 405 with Allow; a trailing slash is the same route', async () => {
    const s = await session(PACK_IDS.photo);
    const auth = { authorization: `Bearer ${s.token}` };
    for (const url of [s.base, `${s.base}/portrait.png`]) {
      const res = await t.app.inject({ method: 'DELETE', url, headers: auth });
      expectError(res, 405, 'METHOD_NOT_ALLOWED');
      expect(res.headers['allow']).toMatch(/GET/);
      expect((await t.app.inject({ url: `${url}/`, headers: auth })).statusCode).toBe(200);
    }
  });

  it('a vector avatar has no files: any name is a 404 that says so', async () => {
    const s = await session(PACK_IDS.vector);
    const res = await t.app.inject({
      url: `${s.base}/avatar.json`,
      headers: { authorization: `Bearer ${s.token}` },
    });
    expectError(res, 404, 'NOT_FOUND');
    expect(res.json<{ error: string }>().error).toMatch(/none: a vector avatar is its manifest/);
  });
});
