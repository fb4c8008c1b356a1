/** GET /v1/voices?language=: the built-in voices of every espeak-ng language, filtered by tag. */
import { afterEach, describe, expect, it } from 'vitest';
import { engineCatalog } from '@mouthpiece/engine/host';
import { createTestApp, type TestApp } from '../testing/index.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

interface Listed {
  id: string;
  name: string;
  nativeName?: string;
  language: string;
  gender: string;
}

async function voices(query: string): Promise<{ status: number; body: Record<string, unknown> }> {
  t ??= await createTestApp({ voices: engineCatalog().voices });
  const r = await t.app.inject({
    method: 'GET',
    url: `/v1/voices${query}`,
    headers: { authorization: `KS ${t.secret}` },
  });
  return { status: r.statusCode, body: r.json() };
}
const ids = (body: Record<string, unknown>): string[] => (body['voices'] as Listed[]).map((v) => v.id);

describe('GET /v1/voices?language=', () => {
  it('lists every language espeak-ng speaks, each named in English and in itself', async () => {
    const all = (await voices('')).body['voices'] as Listed[];
    expect(all.length).toBeGreaterThan(250);
    expect(all[0]!.id).toBe('en-us-female');
    expect(all).toContainEqual({
      id: 'espeak-fi-female',
      name: 'Finnish, female',
      nativeName: 'suomi',
      language: 'fi',
      gender: 'female',
      provider: 'espeak',
    });
  });

  it('filters by primary subtag or full tag, case-insensitively', async () => {
    expect(ids((await voices('?language=fi')).body)).toEqual(['espeak-fi-female', 'espeak-fi-male']);
    expect(ids((await voices('?language=fi-FI')).body)).toEqual(['espeak-fi-female', 'espeak-fi-male']);
    expect(ids((await voices('?language=PT-br')).body)).toEqual(['pt-br-female', 'espeak-pt-br-male']);
    expect(ids((await voices('?language=pt')).body)).toEqual([
      'pt-br-female',
      'pt-male',
      'espeak-pt-female',
      'espeak-pt-br-male',
    ]);
    const english = ids((await voices('?language=en-GB')).body);
    expect(english).toContain('en-gb-female');
    expect(english).toContain('espeak-en-gb-x-rp-male');
    expect(english).not.toContain('en-us-female');
  });

  it('an unknown language gives an empty list; a value that is not one tag is a 400', async () => {
    expect(await voices('?language=xh')).toEqual({ status: 200, body: { success: true, voices: [] } });
    for (const bad of ['?language=fi&language=sv', '?language=', '?language=fi_FI', '?language=a%20b']) {
      const r = await voices(bad);
      expect(r.status, bad).toBe(400);
      expect(r.body).toMatchObject({ success: false, code: 'INVALID_REQUEST' });
      expect(r.body['error'], bad).toMatch(/"language"/);
    }
  });
});
