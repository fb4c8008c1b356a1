import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterEach, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/test-app.js';

let t: TestApp;
afterEach(async () => t?.close());

it('serves the SDK script build that @mouthpiece/client exports (found through the package, not a path)', async () => {
  t = await createTestApp();
  const res = await t.app.inject({ method: 'GET', url: '/sdk/mouthpiece.js' });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/javascript/);
  const built = readFileSync(createRequire(import.meta.url).resolve('@mouthpiece/client/script'), 'utf8');
  expect(res.body).toBe(built);
  expect(res.body).toMatch(/AvatarSession/);
});
