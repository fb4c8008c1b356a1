/**
 * The backend client against the real server app (memory stores, the fake engine, a manual
 * clock) listening on loopback: what a backend sees on the wire. The client's fetch is wrapped
 * to see each request as it leaves (its seam, injected), never replaced.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../server/src/testing/test-app.js';
import { createBackendClient, type BackendClientOptions } from './client.js';
import { MouthpieceError } from './errors.js';

interface Sent {
  path: string;
  body: Record<string, unknown>;
  status: number;
  retryAfter: string | null;
}

let t: TestApp;
let baseUrl: string;
let sent: Sent[];
let inFlight: number;
let maxInFlight: number;
let sleeps: number[];

async function start(limits: { requestsPerSecond?: number } = {}, idleTimeoutMs = 600_000): Promise<void> {
  t = await createTestApp({ limits, config: { idleTimeoutMs } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = t.app.server.address() as { port: number };
  baseUrl = `http://127.0.0.1:${addr.port}`;
}

function client(extra: Partial<BackendClientOptions> = {}) {
  return createBackendClient({
    baseUrl,
    credential: t.secret,
    fetch: async (input, init) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        const res = await fetch(input, init);
        const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : {};
        sent.push({
          path: new URL(input as string).pathname.split('/').at(-1)!,
          body,
          status: res.status,
          retryAfter: res.headers.get('retry-after'),
        });
        return res;
      } finally {
        inFlight--;
      }
    },
    // the server's rate limiter runs on the manual clock: waiting moves it
    sleep: async (ms) => {
      sleeps.push(ms);
      t.clock.advance(ms);
    },
    ...extra,
  });
}

async function* tokens(text: string): AsyncGenerator<string> {
  for (const tok of text.match(/\s*\S+/g) ?? []) {
    await new Promise((r) => setImmediate(r));
    yield tok;
  }
}

/** A WAV file: 16 kHz mono 16-bit, a quiet tone. */
function wav(seconds: number): Buffer {
  const rate = 16000;
  const n = Math.round(rate * seconds);
  const b = Buffer.alloc(44 + n * 2);
  b.write('RIFF', 0);
  b.writeUInt32LE(36 + n * 2, 4);
  b.write('WAVEfmt ', 8);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(rate, 24);
  b.writeUInt32LE(rate * 2, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36);
  b.writeUInt32LE(n * 2, 40);
  for (let i = 0; i < n; i++) b.writeInt16LE(Math.round(3000 * Math.sin(i / 8)), 44 + i * 2);
  return b;
}

beforeEach(() => {
  sent = [];
  inFlight = 0;
  maxInFlight = 0;
  sleeps = [];
});
afterEach(async () => {
  await t.close();
});

describe('a session through the backend client', () => {
  beforeEach(() => start());

  it('creates, inits, says text, keeps alive, interrupts and ends', async () => {
    const s = await client().createSession({ visualConfig: { avatarId: 'amara' } });
    expect(s.sessionId).toMatch(/\S/);
    expect(s.viewerCredentials()).toEqual(
      s.viewerToken === undefined
        ? { sessionId: s.sessionId, token: s.token }
        : { sessionId: s.sessionId, viewerToken: s.viewerToken },
    );
    expect(client().session({ sessionId: 'x', token: 't', viewerToken: 'v' }).viewerCredentials()).toEqual({
      sessionId: 'x',
      viewerToken: 'v',
    });
    const init = await s.initClient();
    expect(init.whepUrl).toContain(s.sessionId);
    expect(await s.sayText('**Hello** there, see [the docs](https://x.y/z).', { turnId: 't1' })).toEqual({
      turnId: 't1',
      discarded: false,
    });
    expect(sent.at(-1)!.body).toEqual({ text: 'Hello there, see the docs.', turnId: 't1', isFinal: true });
    await s.keepAliveOnce();
    await s.interrupt();
    await s.end();
    expect(sent.map((x) => [x.path, x.status])).toEqual([
      ['avatar-session', 200],
      ['init-client', 200],
      ['say-text', 200],
      ['keep-alive', 200],
      ['interrupt', 200],
      ['end', 200],
    ]);
    await s.end(); // 410 on a second end is not an error
    const err = await s.sayText('Hi').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MouthpieceError);
    expect(err).toMatchObject({
      status: 410,
      code: 'SESSION_ENDED',
      reason: 'ended_by_client',
      retryable: false,
    });
  });

  it('surfaces a refusal with the status, code and message of the server', async () => {
    const err = await createBackendClient({ baseUrl, credential: 'mp_wrong' })
      .createSession({ visualConfig: { avatarId: 'amara' } })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 401, code: 'INVALID_CREDENTIAL' });
    expect((err as Error).message).toMatch(/^Invalid or expired session credential/);
    const s = await client().createSession({ visualConfig: { avatarId: 'amara' } });
    await expect(s.sayText('   ')).rejects.toMatchObject({ status: 400, code: 'TEXT_REQUIRED' });
  });

  it('streams a model answer as one final turn per sentence, in order, one request at a time, no blank chunk', async () => {
    const s = await client().createSession({ visualConfig: { avatarId: 'amara' } });
    const answer =
      '## Answer\n\nSure. The **first** step is simple. Then, e.g. at 3.30 pm, call Dr. Lee!\n\n- one\n- two\n\n```sh\nrm -rf /\n```\nDone.\n\n';
    const r = await s.streamText(tokens(answer), { turnIdPrefix: 'ans' });
    const says = sent.filter((x) => x.path === 'say-text');
    expect(says.every((x) => x.status === 200)).toBe(true);
    expect(says.map((x) => x.body['isFinal'])).toEqual(says.map(() => true));
    expect(says.map((x) => x.body['turnId'])).toEqual(says.map((_, i) => `ans-${i + 1}`));
    // pieces that completed while a post was out travel together: the words, in order, are what matters
    expect(says.map((x) => x.body['text']).join(' ')).toBe(
      'Answer Sure. The first step is simple. Then, e.g. at 3.30 pm, call Dr. Lee! one two Done.',
    );
    expect(says.every((x) => String(x.body['text']).trim() !== '')).toBe(true);
    expect(maxInFlight).toBe(1);
    expect(r).toMatchObject({ aborted: false, text: says.map((x) => x.body['text']).join(' ') });
    expect(r.turns.map((x) => x.turnId)).toEqual(says.map((x) => x.body['turnId']));
  });

  it('a sentence is posted before the model has finished the answer', async () => {
    const s = await client().createSession({ visualConfig: { avatarId: 'amara' } });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let postedBeforeEnd = 0;
    async function* model(): AsyncGenerator<string> {
      yield 'First sentence.';
      yield ' Second';
      await held; // the model is still generating
      yield ' sentence.';
    }
    const done = s.streamText(model(), {
      onTurn: () => {
        postedBeforeEnd++;
        release();
      },
    });
    const r = await done;
    expect(postedBeforeEnd).toBe(2);
    expect(r.turns.map((x) => x.text)).toEqual(['First sentence.', 'Second sentence.']);
  });

  it('an abort stops the rest, stops reading the model, and says what was posted', async () => {
    const s = await client().createSession({ visualConfig: { avatarId: 'amara' } });
    const stop = new AbortController();
    let closed = false;
    async function* model(): AsyncGenerator<string> {
      try {
        yield 'One.';
        yield ' Two.';
        yield ' Three';
        // a model's HTTP stream ends when it is aborted; what it had buffered still comes out
        await new Promise((r) => stop.signal.addEventListener('abort', r));
        yield ' Never. Spoken.';
      } finally {
        closed = true;
      }
    }
    const r = await s.streamText(model(), {
      signal: stop.signal,
      onTurn: (turn) => {
        if (turn.text.startsWith('Two')) stop.abort();
      },
    });
    expect(r.aborted).toBe(true);
    expect(r.turns.map((x) => x.text)).toEqual(['One.', 'Two.']);
    expect(sent.filter((x) => x.path === 'say-text').map((x) => x.body['text'])).toEqual(['One.', 'Two.']);
    await new Promise((r2) => setImmediate(r2));
    expect(closed).toBe(true);
  });

  it('interrupt() on the session stops its streamText: sentences after a barge-in are not spoken', async () => {
    const s = await client().createSession({ visualConfig: { avatarId: 'amara' } });
    let next!: () => void;
    async function* model(): AsyncGenerator<string> {
      yield 'Before the barge-in. ';
      await new Promise<void>((r) => (next = r));
      yield ' After it. And more.';
    }
    let interrupted: Promise<void> | undefined;
    const done = s.streamText(model(), {
      onTurn: () => {
        interrupted = s.interrupt().then(() => next());
      },
    });
    const r = await done;
    await interrupted;
    expect(r.aborted).toBe(true);
    expect(r.turns.map((x) => x.text)).toEqual(['Before the barge-in.']);
    expect(sent.filter((x) => x.path === 'say-text')).toHaveLength(1);
    expect(sent.map((x) => x.path)).toContain('interrupt');
  });

  it('a refused turn rejects streamText with its error and stops reading the model', async () => {
    const s = await client().createSession({ visualConfig: { avatarId: 'amara' } });
    await s.end();
    sent = [];
    await expect(s.streamText(tokens('One. Two. Three.'))).rejects.toMatchObject({
      status: 410,
      code: 'SESSION_ENDED',
    });
    expect(sent.filter((x) => x.path === 'say-text')).toHaveLength(1);
  });

  it('says a finished WAV file, and passes the refusal of a bad file on', async () => {
    const s = await client().createSession({ visualConfig: { avatarId: 'amara' } });
    expect(await s.sayAudio(wav(0.5), { turnId: 'a1', durationSec: 0.5 })).toEqual({
      turnId: 'a1',
      decodedDurationSec: 0.5,
      discarded: false,
    });
    await expect(
      s.sayAudio(new Blob([Buffer.from('not audio at all')]), { turnId: 'a2', durationSec: 1 }),
    ).rejects.toMatchObject({ status: 400, code: 'INVALID_AUDIO' });
  });

  it('a model that fails mid-answer rejects streamText with its error; what was posted stays posted', async () => {
    const s = await client().createSession({ visualConfig: { avatarId: 'amara' } });
    async function* model(): AsyncGenerator<string> {
      yield 'Said before the failure. ';
      await new Promise((r) => setTimeout(r, 20));
      yield 'Never said';
      throw new Error('the model server went away');
    }
    await expect(s.streamText(model())).rejects.toThrow('the model server went away');
    expect(sent.filter((x) => x.path === 'say-text').map((x) => x.body['text'])).toEqual([
      'Said before the failure.',
    ]);
  });

  it('the keep-alive loop sends, and stops and reports once the session has ended', async () => {
    const s = await client().createSession({ visualConfig: { avatarId: 'amara' } });
    const errors: unknown[] = [];
    const loop = s.startKeepAlive({ intervalMs: 5, onError: (e) => errors.push(e) });
    while (loop.sent < 2) await new Promise((r) => setTimeout(r, 5));
    await s.end(); // stops the loop
    expect(loop.running).toBe(false);
    const other = client().session({ sessionId: s.sessionId, token: s.token });
    const loop2 = other.startKeepAlive({ intervalMs: 5, onError: (e) => errors.push(e) });
    while (loop2.running) await new Promise((r) => setTimeout(r, 5));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ status: 410, code: 'SESSION_ENDED' });
  });
});

it('keeps alive at a third of an idle timeout shorter than 30 s, as init-client tells it', async () => {
  await start({}, 9000);
  const s = await client().createSession({ visualConfig: { avatarId: 'amara' } });
  expect(s.startKeepAlive().intervalMs).toBe(10_000); // not known before init-client
  await s.initClient();
  expect(s.startKeepAlive().intervalMs).toBe(3000);
  expect(s.startKeepAlive({ intervalMs: 500 }).intervalMs).toBe(500);
  await s.end();
});

describe('under the rate limit', () => {
  beforeEach(() => start({ requestsPerSecond: 1 }));

  it('streamText waits out 429 Retry-After and still posts every turn in order', async () => {
    const s = await client().createSession({ visualConfig: { avatarId: 'amara' } });
    async function* model(): AsyncGenerator<string> {
      for (const x of ['One.', ' Two.', ' Three.', ' Four.', ' Five.']) {
        // each sentence completes only after the previous post: five separate turns
        await new Promise((r) => setTimeout(r, 0));
        yield x;
      }
      yield ' ';
    }
    const r = await s.streamText(model(), { maxTurnChars: 6 });
    const says = sent.filter((x) => x.path === 'say-text');
    const limited = says.filter((x) => x.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited.every((x) => x.retryAfter !== null)).toBe(true);
    expect(sleeps).toContain(Number(limited[0]!.retryAfter) * 1000);
    expect(says.filter((x) => x.status === 200).map((x) => x.body['text'])).toEqual([
      'One.',
      'Two.',
      'Three.',
      'Four.',
      'Five.',
    ]);
    expect(r.text).toBe('One. Two. Three. Four. Five.');
    expect(maxInFlight).toBe(1);
  });

  it('gives up after maxAttempts with the 429 as a typed, retryable error', async () => {
    const s = await client({ maxAttempts: 1 }).createSession({ visualConfig: { avatarId: 'amara' } });
    await s.keepAliveOnce();
    const err = await s.keepAliveOnce().catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryable: true });
    expect((err as MouthpieceError).retryAfterMs).toBeGreaterThan(0);
  });
});
