import { describe, expect, it } from 'vitest';
import { createTestApp } from '../testing/test-app.js';
import { parseSessionCall, SESSION_CALLS, sessionCallPath } from './session-paths.js';

const ID = 'AbCdEfGhIjKlMnOpQrStUv';

describe('session call paths (one list for the routes, CORS and the cluster fast path)', () => {
  it('recognises every call, with a query string, a trailing slash or a further segment', () => {
    for (const call of SESSION_CALLS) {
      for (const tail of ['', '?vt=x', '/', '/viewer-1'])
        expect(parseSessionCall(`/v1/avatar-session/${ID}/${call}${tail}`)).toEqual({ sessionId: ID, call });
    }
  });

  it('recognises nothing else', () => {
    for (const url of [
      '/v1/avatar-session',
      '/v1/avatar-session/create',
      `/v1/avatar-session/${ID}`,
      `/v1/avatar-session/${ID}/endless`,
      `/v1/avatar-session/${ID}/say`,
      `/v1/avatar-session//end`,
      `/v2/avatar-session/${ID}/end`,
      `/x/v1/avatar-session/${ID}/end`,
      '/metrics',
    ])
      expect(parseSessionCall(url)).toBeUndefined();
  });

  it('every call in the list is a route of the app, at the path it names', async () => {
    const t = await createTestApp();
    try {
      for (const call of SESSION_CALLS)
        expect(
          t.app.hasRoute({
            method: call === 'avatar' || call === 'events' || call === 'audio' ? 'GET' : 'POST',
            url: sessionCallPath(call),
          }),
          call,
        ).toBe(true);
      expect(t.app.hasRoute({ method: 'GET', url: sessionCallPath('avatar', '/:file') })).toBe(true);
      expect(t.app.hasRoute({ method: 'PATCH', url: sessionCallPath('whep', '/:viewerId') })).toBe(true);
    } finally {
      await t.close();
    }
  });
});
