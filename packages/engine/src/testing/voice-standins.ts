/**
 * Stand-ins of the voice providers' HTTP APIs for tests and benchmarks: real sockets, chunked
 * streaming at a chosen pace, a chosen delay before the first byte, each failure a provider
 * can show, and real speech (the espeak-ng command-line program in another voice and pitch than
 * Mouthpiece's own readings). `openAiStandin` answers `POST /v1/audio/speech`;
 * `elevenLabsStandin` answers `POST /v1/text-to-speech/{voice}/stream/with-timestamps` with JSON
 * lines of `audio_base64` and character `alignment`. Both record what they were asked and
 * whether the client closed the connection before the answer was complete.
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { floatToInt16, resample } from '../speech/resample.js';

export type StandinFault =
  | 'none'
  | 401
  | 429
  | 500
  /** 200 with something that is not audio. */
  | 'garbled'
  /** 200 with `audio/mpeg` (MP3 frames) where PCM was asked. */
  | 'mp3'
  /** 200 with an empty body. */
  | 'empty'
  /** Never answers. */
  | 'hang'
  /** Sends its first chunk, then nothing. */
  | 'stall'
  /** The audio as a WAV stream instead of raw PCM (OpenAI only). */
  | 'wav';

export interface StandinRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** The client closed the connection before the answer ended. */
  closedEarly: boolean;
  finished: boolean;
}

export interface VoiceStandin {
  /** The base URL to configure (OpenAI: `…/v1`; ElevenLabs: the origin). */
  url: string;
  requests: StandinRequest[];
  /** What the next requests do (change at will). */
  settings: {
    firstByteDelayMs: number;
    /** Audio per streamed chunk. */
    chunkMs: number;
    /** Pause between chunks (a real service streams faster than real time). */
    paceMs: number;
    fault: StandinFault;
    /** The key a request must carry (401 otherwise). */
    apiKey: string;
    /** The espeak-ng program's voice the stand-in speaks with (default `en-us`). */
    speaks?: string;
  };
  close(): Promise<void>;
}

const RATE = 24_000;
const cache = new Map<string, Promise<Int16Array>>();

/** `text` spoken by the espeak-ng program (a male variant, lower pitch), as 24 kHz PCM. */
export function standinSpeech(text: string, speaks = 'en-us'): Promise<Int16Array> {
  const key = `${speaks}\u0000${text}`;
  let p = cache.get(key);
  if (!p) {
    p = new Promise((resolve, reject) => {
      execFile(
        'espeak-ng',
        ['-v', `${speaks}+m7`, '-p', '30', '-s', '165', '--stdout', text],
        { encoding: 'buffer', maxBuffer: 64 << 20 },
        (err, out) => {
          if (err) return reject(new Error(`espeak-ng failed: ${err.message} (apt-get install espeak-ng)`));
          const data = out.indexOf('data');
          const rate = out.readUInt32LE(24);
          const pcm = new Int16Array(
            out.buffer.slice(out.byteOffset + data + 8, out.byteOffset + out.length),
          );
          resolve(floatToInt16(resample(pcm, rate, RATE)));
        },
      );
    });
    cache.set(key, p);
  }
  return p;
}

/** Character times spread over the sounding part of the audio (spaces and punctuation shorter). */
function characterTimes(text: string, pcm: Int16Array): Array<{ char: string; start: number; end: number }> {
  let a = 0;
  let b = pcm.length - 1;
  while (a < b && Math.abs(pcm[a]!) < 600) a++;
  while (b > a && Math.abs(pcm[b]!) < 600) b--;
  const chars = [...text];
  const weight = (c: string): number => (/\p{L}|\p{N}/u.test(c) ? 1 : c === ' ' ? 0.5 : 0.3);
  const total = chars.reduce((n, c) => n + weight(c), 0) || 1;
  let at = a / RATE;
  const span = (b - a) / RATE;
  return chars.map((char) => {
    const start = at;
    at += (weight(char) / total) * span;
    return { char, start, end: at };
  });
}

function wavHeader(): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(0xffffffff, 4);
  h.write('WAVEfmt ', 8, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(RATE, 24);
  h.writeUInt32LE(RATE * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(0xffffffff, 40);
  return h;
}

async function standin(
  kind: 'openai' | 'elevenlabs',
  route: RegExp,
  textOf: (body: Record<string, unknown>) => unknown,
  keyOk: (h: http.IncomingHttpHeaders, key: string) => boolean,
  contentType: string,
  chunkOf: (pcm: Int16Array, from: number, to: number, text: string, all: Int16Array) => string | Buffer,
  garbled: string,
): Promise<VoiceStandin> {
  const requests: StandinRequest[] = [];
  const settings: VoiceStandin['settings'] = {
    firstByteDelayMs: 0,
    chunkMs: 100,
    paceMs: 10,
    fault: 'none',
    apiKey: `test-key-${kind}-0123456789`,
  };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString('utf8')));
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        // answered as a 400 below
      }
      const record: StandinRequest = {
        path: req.url ?? '',
        headers: req.headers,
        body,
        closedEarly: false,
        finished: false,
      };
      requests.push(record);
      res.on('close', () => {
        if (!res.writableFinished) record.closedEarly = true;
      });
      const text = textOf(body);
      if (req.method !== 'POST' || !route.test(req.url ?? ''))
        return void res.writeHead(404).end('{"detail":"not found"}');
      if (!keyOk(req.headers, settings.apiKey))
        return void res.writeHead(401).end('{"detail":"invalid api key"}');
      if (typeof text !== 'string' || !text) return void res.writeHead(400).end('{"detail":"no text"}');
      const fault = settings.fault;
      if (typeof fault === 'number') return void res.writeHead(fault).end(`{"detail":"status ${fault}"}`);
      if (fault === 'hang') return;
      void standinSpeech(text, settings.speaks).then((pcm) => {
        const timer = setTimeout(() => {
          if (res.destroyed) return;
          if (fault === 'mp3') {
            res.writeHead(200, { 'content-type': 'audio/mpeg' });
            const frame = Buffer.alloc(417);
            frame.writeUInt32BE(0xfffb9064, 0); // an MPEG-1 layer III frame header, silence after it
            return void res.end(Buffer.concat([frame, frame, frame]), () => (record.finished = true));
          }
          res.writeHead(200, { 'content-type': contentType });
          if (fault === 'empty') return void res.end(() => (record.finished = true));
          if (fault === 'garbled') return void res.end(garbled, () => (record.finished = true));
          if (fault === 'wav') res.write(wavHeader());
          const step = Math.round((settings.chunkMs / 1000) * RATE);
          let at = 0;
          const next = (): void => {
            if (res.destroyed) return;
            if (at >= pcm.length) return void res.end(() => (record.finished = true));
            const to = Math.min(pcm.length, at + step);
            res.write(chunkOf(pcm, at, to, text, pcm));
            at = to;
            if (fault !== 'stall') setTimeout(next, settings.paceMs);
          };
          next();
        }, settings.firstByteDelayMs);
        res.on('close', () => clearTimeout(timer));
      });
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: kind === 'openai' ? `${origin}/v1` : origin,
    requests,
    settings,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const pcmBytes = (pcm: Int16Array, from: number, to: number): Buffer =>
  Buffer.from(pcm.buffer, pcm.byteOffset + from * 2, (to - from) * 2);

/** OpenAI's `POST /v1/audio/speech` (response_format pcm: 24 kHz s16le mono, streamed). */
export function openAiStandin(): Promise<VoiceStandin> {
  return standin(
    'openai',
    /^\/v1\/audio\/speech$/,
    (b) => b['input'],
    (h, key) => h['authorization'] === `Bearer ${key}`,
    'audio/pcm',
    (pcm, from, to) => pcmBytes(pcm, from, to),
    '{"error": "this is not audio"}',
  );
}

/** ElevenLabs' streaming TTS with timestamps (pcm_24000; JSON lines with character alignment). */
export function elevenLabsStandin(): Promise<VoiceStandin> {
  const times = new Map<string, Array<{ char: string; start: number; end: number }>>();
  return standin(
    'elevenlabs',
    /^\/v1\/text-to-speech\/[A-Za-z0-9_-]+\/stream\/with-timestamps\?output_format=pcm_24000$/,
    (b) => b['text'],
    (h, key) => h['xi-api-key'] === key,
    'application/json',
    (pcm, from, to, text, all) => {
      let t = times.get(text);
      if (!t) times.set(text, (t = characterTimes(text, all)));
      const first = from === 0;
      const last = to >= all.length;
      const mine = t.filter((c) => (c.start >= from / RATE || first) && (c.start < to / RATE || last));
      const alignment = mine.length
        ? {
            characters: mine.map((c) => c.char),
            character_start_times_seconds: mine.map((c) => +c.start.toFixed(3)),
            character_end_times_seconds: mine.map((c) => +c.end.toFixed(3)),
          }
        : null;
      const line = JSON.stringify({
        audio_base64: pcmBytes(pcm, from, to).toString('base64'),
        alignment,
        normalized_alignment: alignment,
      });
      return line + '\n';
    },
    'this is not json\n',
  );
}
