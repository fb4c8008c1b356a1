/** events() against the loopback stand-in of the events route (testing/events-standin.ts). */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { SessionEvent } from '@mouthpiece/protocol';
import { createBackendClient } from './client.js';
import type { BackendSession } from './session.js';
import { eventsStandin, type EventsStandin } from './testing/events-standin.js';

let server: EventsStandin;
let session: BackendSession;
let waits: number[];

beforeEach(async () => {
  server = await eventsStandin();
  waits = [];
  session = createBackendClient({
    baseUrl: server.url,
    sleep: async (ms, signal) => {
      waits.push(ms);
      await new Promise((r) => setTimeout(r, 1));
      if (signal?.aborted) throw new Error('aborted');
    },
  }).session({ sessionId: server.sessionId, token: server.token });
});
afterEach(() => server.close());

const until = async (test: () => boolean): Promise<void> => {
  while (!test()) await new Promise((r) => setTimeout(r, 2));
};

it('yields events in order through heartbeats and a dropped connection, resuming with Last-Event-ID', async () => {
  const got: Array<{ id: string; event: SessionEvent }> = [];
  const reading = (async () => {
    for await (const e of session.events()) {
      got.push(e);
      if (e.event.type === 'speakingStart') {
        server.comment(); // a heartbeat between events changes nothing
        server.emit({ type: 'word', turnId: 't1', text: 'hi', offsetMs: 0 });
      }
      if (e.event.type === 'word') {
        server.drop(); // the connection dies with events still to come
        server.emit({ type: 'speakingEnd', turnId: 't1', interrupted: false });
        server.emit({ type: 'sessionEnded', reason: 'ended_by_client' });
      }
    }
  })();
  await until(() => server.open === 1);
  server.emit({ type: 'speakingStart', turnId: 't1' });
  await reading;
  expect(got.map((e) => [e.id, e.event.type])).toEqual([
    ['1', 'speakingStart'],
    ['2', 'word'],
    ['3', 'speakingEnd'],
    ['4', 'sessionEnded'],
  ]);
  expect(server.connections).toEqual(['', '2']);
  expect(waits).toHaveLength(1);
});

it('backs off while the server refuses with 503, honouring Retry-After, then reads on', async () => {
  server.refuseNext(2, 503, 'ENGINE_UNAVAILABLE', { 'retry-after': '2' });
  server.emit({ type: 'viewer', state: 'connected' });
  server.emit({ type: 'sessionEnded', reason: 'idle_timeout' });
  const got: string[] = [];
  for await (const e of session.events()) got.push(e.event.type);
  expect(got).toEqual(['viewer', 'sessionEnded']);
  expect(waits).toEqual([2000, 2000]);
});

it('backs off more after each failed reconnect', async () => {
  server.refuseNext(3, 502, 'HTTP_502');
  server.emit({ type: 'sessionEnded', reason: 'x' });
  for await (const _ of session.events()) void _;
  expect(waits).toEqual([250, 500, 1000]);
});

it('throws an answer that will not change (401) with its code', async () => {
  const bad = createBackendClient({ baseUrl: server.url }).session({
    sessionId: server.sessionId,
    token: 'nope',
  });
  const it2 = bad.events();
  await expect(it2.next()).rejects.toMatchObject({ status: 401, code: 'INVALID_TOKEN' });
});

it('stops on the signal and on break, closing the connection', async () => {
  const stop = new AbortController();
  const got: string[] = [];
  const reading = (async () => {
    for await (const e of session.events({ signal: stop.signal })) got.push(e.event.type);
  })();
  await until(() => server.open === 1);
  server.emit({ type: 'viewer', state: 'connected' });
  await until(() => got.length === 1);
  stop.abort();
  await reading;
  await until(() => server.open === 0);
  server.emit({ type: 'viewer', state: 'lost' });
  expect(got).toEqual(['viewer']);
  for await (const e of session.events()) {
    expect(e.id).toBe('1');
    break;
  }
  await until(() => server.open === 0);
  expect(server.connections).toEqual(['', '']);
});

it('resumes after a given lastEventId', async () => {
  server.emit({ type: 'speakingStart', turnId: 'a' });
  server.emit({ type: 'speakingEnd', turnId: 'a', interrupted: false });
  server.emit({ type: 'sessionEnded', reason: 'x' });
  const got: string[] = [];
  for await (const e of session.events({ lastEventId: '1' })) got.push(e.id);
  expect(got).toEqual(['2', '3']);
  expect(server.connections).toEqual(['1']);
});
