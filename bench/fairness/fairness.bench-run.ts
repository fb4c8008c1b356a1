/**
 * Fairness: two sessions on one engine process, each with a libwebrtc viewer that opens the
 * events channel as the SDK does. The quiet session says a short sentence and is interrupted once
 * it starts, N times: say-text → speakingStart at the viewer. Then the same while the other
 * session speaks an ordinary answer (a busy neighbour costs CPU on a 2-core machine), and while
 * it has queued 10 × 5000 characters (within the documented limits).
 * Reports both, their ratio (target ≤ 2), and the engine's RSS: idle, under the flood, and after
 * both sessions ended (memory returns). Never fails on a figure.
 */
import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { startServer } from '../../e2e/harness/server.js';
import { fmt, quantile, report, row, rssMb, smoke } from '../lib/measure.js';
import { Receiver, type ViewerEvent } from '../lib/receiver.js';

const ROUNDS = smoke ? 2 : 12;
const FLOOD_TURNS = smoke ? 2 : 10;
const SENTENCE = 'Hello there, this is a short answer.';
const PARAGRAPH =
  'Thanks for calling. I can help you with your order, your delivery and your account. ' +
  'Your parcel left our warehouse this morning and should reach you by Thursday afternoon. ' +
  'If you would like to change the address, tell me the new street and postcode. ';
const FLOOD_TEXT = PARAGRAPH.repeat(Math.ceil(5000 / PARAGRAPH.length)).slice(0, 5000);

it('fairness under a flood', async () => {
  const server = await startServer({
    MOUTHPIECE_LOG_LEVEL: 'warn',
    MOUTHPIECE_ENGINE_PROCESSES: '1',
    MOUTHPIECE_SESSION_IDLE_TIMEOUT_MS: '600000',
  });
  const receiver = new Receiver();
  const events: ViewerEvent[] = [];
  receiver.onEvent((e) => events.push(e));
  try {
    const engine = Number(
      execFileSync('pgrep', ['-P', String(server.proc.pid), '-f', 'engine-main'], { encoding: 'utf8' })
        .trim()
        .split('\n')[0],
    );
    const open = async () => {
      const s = await server.createSession();
      await receiver.connect(s.sessionId, (await server.initClient(s.sessionId, s.token)).whepUrl, {
        events: true,
      });
      return s;
    };
    const flood = await open();
    const quiet = await open();
    const call = async (s: { sessionId: string; token: string }, op: string, json?: unknown) => {
      const r = await server.api(`/v1/avatar-session/${s.sessionId}/${op}`, {
        token: s.token,
        ...(json === undefined ? {} : { json }),
      });
      if (!r.ok) throw new Error(`${op}: ${r.status} ${await r.text()}`);
    };
    const waitEvent = async (turnId: string, type: string, timeoutMs = 180_000): Promise<ViewerEvent> => {
      const end = performance.now() + timeoutMs;
      for (;;) {
        const e = events.find((x) => x.message.type === type && x.message.turnId === turnId);
        if (e) return e;
        if (performance.now() > end) throw new Error(`no ${type} for ${turnId}`);
        await new Promise((r) => setTimeout(r, 2));
      }
    };
    /** say-text → speakingStart at the viewer, then interrupt (so the next round starts at once). */
    const rounds = async (label: string): Promise<number[]> => {
      const ms: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const turnId = `${label}-${i}`;
        const t0 = performance.now();
        await call(quiet, 'say-text', { text: SENTENCE, turnId });
        ms.push((await waitEvent(turnId, 'speakingStart')).atMs - t0);
        await call(quiet, 'interrupt');
        await waitEvent(turnId, 'speakingEnd', 10_000);
      }
      return ms;
    };
    await rounds('warmup');
    const rssIdle = rssMb(engine);
    const calm = await rounds('calm');
    // the same while the other session speaks an ordinary answer: the cost of a busy neighbour
    await call(flood, 'say-text', { text: PARAGRAPH.repeat(4), turnId: 'neighbour' });
    await waitEvent('neighbour', 'speakingStart');
    const neighbour = await rounds('neighbour');
    await call(flood, 'interrupt');
    for (let k = 0; k < FLOOD_TURNS; k++)
      await call(flood, 'say-text', { text: FLOOD_TEXT, turnId: `flood-${k}` });
    await waitEvent('flood-0', 'speakingStart');
    const flooded = await rounds('flooded');
    const rssFlood = rssMb(engine);
    await call(flood, 'end');
    await call(quiet, 'end');
    await new Promise((r) => setTimeout(r, smoke ? 1000 : 8000));
    const rssAfter = rssMb(engine);

    const p = (xs: number[], q: number) => quantile(xs, q);
    const ratio = p(flooded, 0.5) / p(calm, 0.5);
    report(`fairness: say-text → speakingStart of a quiet session, ${ROUNDS} rounds each, 1 engine process`);
    report(row('', ['p50 ms', 'p95 ms', 'max ms']));
    report(row('quiet engine', [fmt(p(calm, 0.5)), fmt(p(calm, 0.95)), fmt(Math.max(...calm))]));
    report(
      row('another session speaking', [
        fmt(p(neighbour, 0.5)),
        fmt(p(neighbour, 0.95)),
        fmt(Math.max(...neighbour)),
      ]),
    );
    report(
      row(`another session queued ${FLOOD_TURNS} × 5000 chars`, [
        fmt(p(flooded, 0.5)),
        fmt(p(flooded, 0.95)),
        fmt(Math.max(...flooded)),
      ]),
    );
    report(
      `ratio flooded/quiet p50: ${fmt(ratio, 2)} (target <= 2); flooded/speaking neighbour: ${fmt(p(flooded, 0.5) / p(neighbour, 0.5), 2)}`,
    );
    report(
      `engine RSS: idle ${fmt(rssIdle)} MB, under the flood ${fmt(rssFlood)} MB, after both ended ${fmt(rssAfter)} MB`,
    );
    report(
      JSON.stringify({
        bench: 'fairness',
        rounds: ROUNDS,
        floodTurns: FLOOD_TURNS,
        quietMs: { p50: p(calm, 0.5), p95: p(calm, 0.95) },
        neighbourMs: { p50: p(neighbour, 0.5), p95: p(neighbour, 0.95) },
        floodedMs: { p50: p(flooded, 0.5), p95: p(flooded, 0.95) },
        ratio,
        ratioToNeighbour: p(flooded, 0.5) / p(neighbour, 0.5),
        rssMb: { idle: rssIdle, flood: rssFlood, after: rssAfter },
      }),
    );
    expect(calm.length).toBe(ROUNDS);
  } finally {
    receiver.close();
    await server.stop();
  }
});
