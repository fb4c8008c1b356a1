/**
 * examples/llm-agent against the real server and Chromium, its model a stand-in OpenAI-compatible
 * server on loopback streaming 40 tokens a second: the avatar speaks the answer sentence by
 * sentence (a turn per sentence, the first spoken while the model is still generating), and a
 * new message while it answers aborts the model's stream and nothing more of the old answer is spoken.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { openAiStandin, type OpenAiStandin } from '../packages/backend/dist/testing/index.js';
import { useStack } from './harness/stack.js';
import { freePort } from './harness/server.js';

const stack = useStack();
const EXAMPLE = fileURLToPath(new URL('../examples/llm-agent/server.mjs', import.meta.url));
const running: ChildProcess[] = [];
let model: OpenAiStandin;

const ANSWERS: Record<string, string> = {
  hello:
    'Hello there! I can **track your order** and answer questions. Ask me about shipping, returns, or anything else you need today.',
  long: Array.from({ length: 12 }, (_, i) => `This is sentence number ${i + 1} of a long answer.`).join(' '),
  stop: 'Sure, I will stop.',
};

beforeAll(async () => {
  model = await openAiStandin({ reply: (m) => ANSWERS[m.at(-1)?.content ?? ''] ?? 'I do not know.' });
});
afterAll(() => model?.close());
afterEach(() => {
  for (const p of running.splice(0)) p.kill();
});

async function startExample(env: Record<string, string> = {}): Promise<{ url: string; out: string[] }> {
  const port = await freePort();
  const out: string[] = [];
  const proc = spawn(process.execPath, [EXAMPLE], {
    env: {
      ...process.env,
      PORT: String(port),
      MOUTHPIECE_URL: stack.server.url,
      MOUTHPIECE_CREDENTIAL: stack.server.secret,
      OPENAI_BASE_URL: model.baseUrl,
      OPENAI_API_KEY: model.apiKey,
      OPENAI_MODEL: 'standin-model',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout.on('data', (d: Buffer) => out.push(...d.toString().split('\n').filter(Boolean)));
  proc.stderr.on('data', (d: Buffer) => out.push(...d.toString().split('\n').filter(Boolean)));
  running.push(proc);
  const url = `http://${new URL(stack.server.url).hostname}:${port}`;
  for (let i = 0; ; i++) {
    try {
      await fetch(url);
      return { url, out };
    } catch (err) {
      if (i > 100 || proc.exitCode !== null)
        throw new Error(`the example did not start: ${out.join('\n')}`, { cause: err });
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

type AgentEvent = { type: string; turnId: string; interrupted?: boolean };

async function openPage(url: string): Promise<Page> {
  const page = await stack.browser.context.newPage();
  await page.goto(`${url}/`);
  await page.waitForFunction(
    () => document.querySelector<HTMLVideoElement>('#avatar video')?.videoWidth === 512,
    null,
    { timeout: 20_000 },
  );
  return page;
}

const events = (page: Page): Promise<AgentEvent[]> => page.evaluate(() => (window as any).agentEvents);

/** Sends a message as the page's form does; resolves with the example's answer. */
const ask = (page: Page, text: string): Promise<{ spoken: string; turns: string[]; aborted: boolean }> =>
  page.evaluate(async (t) => {
    const sessionId = (await (window as any).sessionReady).sessionId;
    const r = await fetch('/message', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sessionId, text: t }),
    });
    return r.json();
  }, text);

it('speaks a streamed answer sentence by sentence, the first while the model is still generating', async () => {
  const example = await startExample();
  const page = await openPage(example.url);
  // the model stops after its first sentence until the avatar has started saying it
  let release!: () => void;
  model.settings.holdAfterFirstSentence = new Promise<void>((r) => (release = r));
  await page.fill('#text', 'hello');
  await page.click('#ask button');
  await page.waitForFunction(
    () => (window as any).agentEvents.some((e: AgentEvent) => e.type === 'speakingStart'),
    null,
    { timeout: 20_000 },
  );
  const completion = model.completions.at(-1)!;
  expect(completion.done).toBe(false); // spoken while the model is still generating
  release();
  await page.waitForSelector('#log .agent', { timeout: 20_000 });
  expect(await page.textContent('#log .agent')).toBe(
    'Agent: Hello there! I can track your order and answer questions. Ask me about shipping, returns, or anything else you need today.',
  );
  // one turn per sentence, markdown stripped (the example logs each turn as it is accepted)
  expect(example.out.filter((l) => l.startsWith('turn '))).toEqual([
    'turn answer1-1: "Hello there!"',
    'turn answer1-2: "I can track your order and answer questions."',
    'turn answer1-3: "Ask me about shipping, returns, or anything else you need today."',
  ]);
  expect(completion.model).toBe('standin-model');
  expect(completion.messages.map((m) => m.role)).toEqual(['system', 'user']);
  await page.waitForFunction(
    () =>
      (window as any).agentEvents.some(
        (e: AgentEvent) => e.type === 'speakingEnd' && e.turnId === 'answer1-3',
      ),
    null,
    { timeout: 20_000 },
  );
  const got = await events(page);
  expect(got.filter((e) => e.type === 'speakingStart').map((e) => e.turnId)).toEqual([
    'answer1-1',
    'answer1-2',
    'answer1-3',
  ]);
  expect(got.filter((e) => e.type === 'speakingEnd').every((e) => !e.interrupted)).toBe(true);
});

it('a message while the avatar answers is a barge-in: the model stream is aborted and no more of the old answer is spoken', async () => {
  const example = await startExample();
  const page = await openPage(example.url);
  // the model stops after its first sentence: the barge-in comes while it is still generating
  model.settings.holdAfterFirstSentence = new Promise<void>(() => undefined);
  const first = ask(page, 'long');
  await page.waitForFunction(
    () => (window as any).agentEvents.some((e: AgentEvent) => e.type === 'speakingStart'),
    null,
    { timeout: 20_000 },
  );
  const second = await ask(page, 'stop');
  const old = await first;
  expect(old.aborted).toBe(true);
  expect(old.turns.length).toBeLessThan(12);
  expect(second).toMatchObject({ spoken: 'Sure, I will stop.', aborted: false });
  const long = model.completions.find((c) => c.messages.at(-1)?.content === 'long')!;
  expect(long.aborted).toBe(true);
  expect(long.sentAt.length).toBeLessThan(long.tokens.length);
  // the second answer's history holds what the avatar was given of the first
  const stop = model.completions.at(-1)!;
  expect(stop.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
  await page.waitForFunction(
    () =>
      (window as any).agentEvents.some(
        (e: AgentEvent) => e.type === 'speakingEnd' && e.turnId.startsWith('answer2'),
      ),
    null,
    { timeout: 20_000 },
  );
  const got = await events(page);
  const firstOfSecond = got.findIndex((e) => e.type === 'speakingStart' && e.turnId.startsWith('answer2'));
  expect(firstOfSecond).toBeGreaterThan(0);
  expect(
    got.slice(firstOfSecond).filter((e) => e.turnId.startsWith('answer1') && e.type === 'speakingStart'),
  ).toEqual([]);
  expect(got.some((e) => e.type === 'speakingEnd' && e.turnId.startsWith('answer1') && e.interrupted)).toBe(
    true,
  );
});

it('says what went wrong when the model server refuses, and the avatar says nothing', async () => {
  const example = await startExample({ OPENAI_API_KEY: 'sk-wrong' });
  const session = await (await fetch(`${example.url}/session`, { method: 'POST' })).json();
  const r = await fetch(`${example.url}/message`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sessionId: session.sessionId, text: 'hello' }),
  });
  expect(r.status).toBe(502);
  expect((await r.json()).error).toMatch(
    /^the answer failed: the model server answered 401: .*Incorrect API key/,
  );
  expect(example.out.filter((l) => l.startsWith('turn '))).toEqual([]);
});
