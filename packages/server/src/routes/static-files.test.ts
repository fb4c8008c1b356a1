import { afterEach, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/test-app.js';

let t: TestApp;
afterEach(async () => t?.close());

it('the demo page is served, with ranges; a range past its end is a 416 in the error body, not a 400', async () => {
  t = await createTestApp();
  const page = await t.app.inject({ method: 'GET', url: '/' });
  expect(page.statusCode).toBe(200);
  expect(page.headers['content-type']).toMatch(/text\/html/);
  const part = await t.app.inject({ method: 'GET', url: '/', headers: { range: 'bytes=0-9' } });
  expect(part.statusCode).toBe(206);
  expect(part.body).toHaveLength(10);
  const past = await t.app.inject({ method: 'GET', url: '/', headers: { range: 'bytes=999999-1000000' } });
  expect(past.statusCode).toBe(416);
  expect(past.json()).toEqual({
    success: false,
    error: 'Range not satisfiable: the requested bytes are past the end of the file',
    code: 'RANGE_NOT_SATISFIABLE',
  });
});
