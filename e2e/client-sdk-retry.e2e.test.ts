/**
 * A page retries on the same AvatarSession after ERROR (issue 32): its create with a revoked
 * credential fails (ERROR, the connection CLOSED without ever opening), then `initSession` with a
 * backend's good session token on that same object reaches READY and CONNECTED, and plays video.
 */
import { expect, it } from 'vitest';
import { useStack } from './harness/stack.js';

const ADMIN = 'retry-admin-token-of-at-least-32-characters';
const stack = useStack({ MOUTHPIECE_ADMIN_TOKEN: ADMIN });

/** A credential made and revoked by the operator (the admin API). */
async function revokedCredential(): Promise<string> {
  const headers = { authorization: `Bearer ${ADMIN}` };
  const made = await stack.server.api('/admin/v1/credentials', { headers, json: { name: 'revoked' } });
  expect(made.status).toBe(200);
  const { credential, secret } = (await made.json()) as { credential: { id: string }; secret: string };
  const revoked = await stack.server.api(`/admin/v1/credentials/${credential.id}/revoke`, { headers });
  expect(revoked.status).toBe(200);
  return secret;
}

it('create with a revoked credential → ERROR; initSession with a good token on the same object → READY, CONNECTED, video', async () => {
  const revoked = await revokedCredential();
  const good = await stack.server.createSession({ visualConfig: { avatarId: 'amara' } });
  const page = await stack.browser.sdkPage(stack.server.url);
  const r = await page.evaluate(
    async ({ baseUrl, revoked, good }) => {
      const M = (window as unknown as { Mouthpiece: { AvatarSession: new (c: object) => any } }).Mouthpiece;
      const s = new M.AvatarSession({ baseUrl, credential: revoked, logLevel: 'warn' });
      const log: string[] = [];
      s.on('stateChange', (x: string) => log.push(`state:${x}`));
      s.on('connectionChange', (x: string) => log.push(`conn:${x}`));
      s.on('videoReady', () => log.push('videoReady'));
      const refused = await s.createSession({ avatarId: 'amara' }).then(
        () => 'created',
        (e: { code: string }) => e.code,
      );
      const afterRefusal = { session: s.getSessionState(), connection: s.getConnectionState() };
      const retry = log.length;
      await s.initSession(good, { videoContainerId: 'avatar' });
      const end = performance.now() + 15000;
      while (
        performance.now() < end &&
        !(log.includes('videoReady') && s.getConnectionState() === 'CONNECTED')
      )
        await new Promise((res) => setTimeout(res, 50));
      const video = document.querySelector('#avatar video') as HTMLVideoElement;
      const framesBefore = video.getVideoPlaybackQuality().totalVideoFrames;
      await new Promise((res) => setTimeout(res, 1000));
      const framesInASecond = video.getVideoPlaybackQuality().totalVideoFrames - framesBefore;
      const result = {
        refused,
        afterRefusal,
        firstTry: log.slice(0, retry),
        retried: log.slice(retry),
        session: s.getSessionState() as string,
        connection: s.getConnectionState() as string,
        sessionId: s.getSessionId() as string,
        width: video.videoWidth,
        framesInASecond,
      };
      await s.endSession();
      return result;
    },
    { baseUrl: stack.server.url, revoked, good },
  );
  expect(r.refused).toBe('UNAUTHORIZED');
  expect(r.afterRefusal).toEqual({ session: 'ERROR', connection: 'CLOSED' });
  expect(r.firstTry).toEqual(['state:CREATING', 'conn:CLOSED', 'state:ERROR']);
  expect(r.retried.slice(0, 3)).toEqual(['state:CREATING', 'conn:CONNECTING', 'state:READY']);
  expect(r.retried).toContain('conn:CONNECTED');
  expect(r.retried).toContain('videoReady');
  expect({ session: r.session, connection: r.connection, sessionId: r.sessionId }).toEqual({
    session: 'READY',
    connection: 'CONNECTED',
    sessionId: good.sessionId,
  });
  expect(r.width).toBe(512);
  expect(r.framesInASecond).toBeGreaterThan(5); // ~25/s: the avatar plays
});
