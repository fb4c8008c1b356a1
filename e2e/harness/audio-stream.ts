/**
 * A backend's side of the audio WebSocket (docs/api.md), for e2e tests and benchmarks: connect
 * with the session token, stream PCM at real time (optionally with arrival jitter), read the
 * server's messages. Times are epoch ms with sub-ms precision (performance.timeOrigin + now), so
 * they compare with a page's `performance.timeOrigin + t`.
 */
import { readFileSync } from 'node:fs';
import type { LookupFunction } from 'node:net';
import { fileURLToPath } from 'node:url';
import WebSocket, { type ClientOptions } from 'ws';
import {
  parseAudioStreamServerMessage,
  type AudioStreamSampleRate,
  type AudioStreamServerMessage,
} from '@mouthpiece/protocol';

export const epochNow = (): number => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

export interface AudioStreamClient {
  ws: WebSocket;
  messages: Array<AudioStreamServerMessage & { at: number }>;
  json(m: unknown): void;
  /** Resolves with the first message (from the start) matching `pred`, or rejects after `ms`. */
  waitFor(
    pred: (m: AudioStreamServerMessage) => boolean,
    ms?: number,
  ): Promise<AudioStreamServerMessage & { at: number }>;
  close(): void;
}

export async function openAudioStream(
  baseUrl: string,
  sessionId: string,
  token: string,
  /** More socket options (through a TLS proxy: its certificate, the test host name's address). */
  options: ClientOptions & { lookup?: LookupFunction } = {},
): Promise<AudioStreamClient> {
  const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/v1/avatar-session/${sessionId}/audio`, {
    ...options,
    headers: { authorization: `Bearer ${token}` },
  });
  const messages: AudioStreamClient['messages'] = [];
  ws.on('message', (data, isBinary) => {
    const m = isBinary ? undefined : parseAudioStreamServerMessage((data as Buffer).toString('utf8'));
    if (m) messages.push({ ...m, at: epochNow() });
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return {
    ws,
    messages,
    json: (m) => ws.send(JSON.stringify(m)),
    async waitFor(pred, ms = 15_000) {
      const until = Date.now() + ms;
      for (;;) {
        const m = messages.find(pred);
        if (m) return m;
        if (Date.now() > until)
          throw new Error(`no such audio-socket message; got ${JSON.stringify(messages)}`);
        await sleep(5);
      }
    },
    close: () => ws.close(),
  };
}

/** A deterministic generator in [0, 1). */
export function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/**
 * Streams one turn: `start`, then `pcm` in chunks of `chunkMs` sent at real time, each off its
 * time by up to ±`jitterMs` (in order, as TCP delivers), then `end` unless `end: false`.
 * Returns when the first chunk and the end were sent.
 */
export async function streamTurn(
  c: AudioStreamClient,
  o: {
    turnId: string;
    sampleRate: AudioStreamSampleRate;
    pcm: Buffer;
    chunkMs: number;
    jitterMs?: number;
    seed?: number;
    end?: boolean;
  },
): Promise<{ firstSentAt: number; endSentAt: number }> {
  c.json({ type: 'start', turnId: o.turnId, sampleRate: o.sampleRate });
  const bytes = 2 * Math.round((o.chunkMs * o.sampleRate) / 1000);
  const random = prng(o.seed ?? 1);
  const t0 = epochNow();
  let firstSentAt = NaN;
  let due = 0;
  for (let k = 0, off = 0; off < o.pcm.length; k++, off += bytes) {
    const jitter = k === 0 ? 0 : (random() * 2 - 1) * (o.jitterMs ?? 0);
    due = Math.max(due, k * o.chunkMs + jitter);
    await sleep(t0 + due - epochNow());
    c.ws.send(o.pcm.subarray(off, off + bytes));
    if (k === 0) firstSentAt = epochNow();
  }
  if (o.end !== false) c.json({ type: 'end', turnId: o.turnId });
  return { firstSentAt, endSentAt: epochNow() };
}

/** The engine's speech fixture as mono s16le PCM at its rate (22.05 kHz). */
export function speechPcm(): { pcm: Buffer; sampleRate: AudioStreamSampleRate; durationMs: number } {
  const wav = readFileSync(
    fileURLToPath(new URL('../../packages/engine/test-fixtures/audio/speech-22k.wav', import.meta.url)),
  );
  const sampleRate = wav.readUInt32LE(24) as AudioStreamSampleRate;
  const channels = wav.readUInt16LE(22);
  let o = 12;
  while (o < wav.length - 8 && wav.toString('ascii', o, o + 4) !== 'data') o += 8 + wav.readUInt32LE(o + 4);
  const data = wav.subarray(o + 8, o + 8 + wav.readUInt32LE(o + 4));
  if (channels !== 1) throw new Error('speech-22k.wav is expected to be mono');
  return { pcm: Buffer.from(data), sampleRate, durationMs: (1000 * data.length) / 2 / sampleRate };
}
