/**
 * The OpenAPI document as a client generator reads it: valid OpenAPI 3 (checked by
 * @readme/openapi-parser, a real validator), an operationId on every operation, a named response
 * per error status, the request bodies of say-audio and WHEP, and the operations routes.
 */
import { validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './testing/test-app.js';

let t: TestApp;
let doc: {
  paths: Record<string, Record<string, Record<string, any>>>;
  components: { responses: Record<string, unknown> };
};
beforeAll(async () => {
  t = await createTestApp();
  doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
});
afterAll(() => t.close());

const ops = () =>
  Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method, op })),
  );

describe('OpenAPI document', () => {
  it('is valid OpenAPI 3', async () => {
    const result = await validate(structuredClone(doc) as never);
    const errors = result.valid ? [] : result.errors.map((e) => String(e.message).split('\n')[0]);
    expect(errors.slice(0, 5), `${errors.length} errors`).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('has a unique operationId on every operation', () => {
    const ids = ops().map((o) => o.op['operationId'] as string | undefined);
    expect(ids.filter((id) => !id)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(
      expect.arrayContaining([
        'createSession',
        'sayText',
        'sayAudio',
        'whepOffer',
        'keepAlive',
        'health',
        'ready',
        'metrics',
      ]),
    );
  });

  it('names each error response by status, none as 4XX/5XX', () => {
    for (const { path, method, op } of ops()) {
      const statuses = Object.keys(op['responses'] ?? {});
      expect(statuses, `${method} ${path}`).not.toContain('4XX');
      expect(statuses, `${method} ${path}`).not.toContain('5XX');
    }
    const sayText = doc.paths['/v1/avatar-session/{sessionId}/say-text']!['post']!;
    expect(sayText['responses']['410']).toEqual({ $ref: '#/components/responses/SessionEnded' });
    expect(sayText['responses']['415']).toEqual({ $ref: '#/components/responses/UnsupportedMediaType' });
    expect(Object.keys(doc.components.responses)).toEqual(
      expect.arrayContaining(['Unauthorized', 'SessionEnded', 'TooManyRequests']),
    );
  });

  it('describes the bodies schemas cannot: say-audio multipart fields, WHEP SDP', () => {
    const audio = doc.paths['/v1/avatar-session/{sessionId}/say-audio']!['post']!['requestBody'];
    const form = audio.content['multipart/form-data'].schema;
    expect(form.properties.audio).toMatchObject({ type: 'string', format: 'binary' });
    expect(form.required).toEqual(['audio', 'turnId', 'duration']);
    expect(form.properties.audio.description).toMatch(
      /sent under another field name .* it is taken as the audio/,
    );
    expect(form.properties.duration.description).toMatch(/decoded duration is what plays/);
    const whep = doc.paths['/v1/avatar-session/{sessionId}/whep']!['post']!;
    expect(Object.keys(whep['requestBody'].content)).toEqual(['application/sdp']);
    expect(Object.keys(whep['responses']['201'].content)).toEqual(['application/sdp']);
    const trickle = doc.paths['/v1/avatar-session/{sessionId}/whep/{viewerId}']!['patch']!;
    expect(Object.keys(trickle['requestBody'].content)).toEqual(['application/trickle-ice-sdpfrag']);
  });

  it('describes the event stream: text/event-stream, Last-Event-ID, its 400 and 429', () => {
    const events = doc.paths['/v1/avatar-session/{sessionId}/events']!;
    expect(Object.keys(events)).toEqual(['get']); // no HEAD: it would hold a stream open
    const op = events['get']!;
    expect(op['operationId']).toBe('sessionEvents');
    expect(Object.keys(op['responses']['200'].content)).toEqual(['text/event-stream']);
    expect(op['responses']['200'].description).toMatch(/Last-Event-ID/);
    for (const status of ['400', '401', '403', '404', '410', '429'])
      expect(op['responses'][status], status).toBeDefined();
    const params = (op['parameters'] as Array<{ in: string; name: string }>).map((p) => `${p.in}:${p.name}`);
    expect(params).toEqual(
      expect.arrayContaining(['path:sessionId', 'header:last-event-id', 'query:lastEventId']),
    );
  });

  it('lists health, readiness and metrics', () => {
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/healthz', '/readyz', '/metrics']));
  });

  it('every operation names a 503 (the server answers one while it shuts down)', () => {
    for (const { path, method, op } of ops())
      expect(Object.keys(op['responses'] ?? {}), `${method} ${path}`).toContain('503');
  });

  it('says the 410 body carries the end reason, and say-audio answers with the duration that plays', () => {
    const schemas = (doc.components as unknown as { schemas: Record<string, any> }).schemas;
    expect(schemas['ErrorResponse'].properties.reason.description).toMatch(/idle_timeout, max_duration/);
    const ok = doc.paths['/v1/avatar-session/{sessionId}/say-audio']!['post']!['responses']['200'];
    expect(ok.content['application/json'].schema.properties.decodedDuration.description).toMatch(
      /this is what plays/,
    );
  });
});
