/**
 * A stand-in for an OpenAI-compatible chat-completions server, on loopback: `POST
 * /v1/chat/completions` with `stream: true` answers Server-Sent Events `data: {choices:[{delta:
 * {content}}]}` … `data: [DONE]`, one token every 1000/tokensPerSecond ms (40 a second by default,
 * a fast hosted model). Tokens are words with their leading space and punctuation on its own, as
 * real tokenizers cut them. It records when each request's tokens left and whether the client
 * hung up early (a barge-in that aborted the model's stream).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatMessage {
  role: string;
  content: string;
}

export interface StandinCompletion {
  messages: ChatMessage[];
  model: string;
  tokens: string[];
  /** Epoch ms (performance.timeOrigin based) each token was written. */
  sentAt: number[];
  /** Index of the token that completed the first sentence. */
  firstSentenceToken: number;
  /** The client closed the stream before [DONE]. */
  aborted: boolean;
  done: boolean;
}

export interface OpenAiStandin {
  url: string;
  /** `${url}/v1`, what OpenAI SDKs call the base URL. */
  baseUrl: string;
  apiKey: string;
  completions: StandinCompletion[];
  settings: {
    tokensPerSecond: number;
    reply: (messages: ChatMessage[]) => string;
    /** When set, the next stream waits for it after its first sentence (a model still generating). */
    holdAfterFirstSentence?: Promise<void> | undefined;
  };
  close(): Promise<void>;
}

export const nowMs = (): number => performance.timeOrigin + performance.now();

/** Words with their leading space, punctuation apart: "Hi there." → ["Hi", " there", "."]. */
export function tokenize(text: string): string[] {
  return text.match(/\s*[\p{L}\p{N}'’]+|\s*[^\p{L}\p{N}\s]|\s+$/gu) ?? [];
}

function firstSentenceEnd(tokens: string[]): number {
  for (let i = 0; i < tokens.length; i++)
    if (/[.!?]$/.test(tokens[i]!) && (i + 1 === tokens.length || /^\s/.test(tokens[i + 1]!))) return i;
  return tokens.length - 1;
}

export async function openAiStandin(
  opts: { tokensPerSecond?: number; reply?: (messages: ChatMessage[]) => string; apiKey?: string } = {},
): Promise<OpenAiStandin> {
  const settings: OpenAiStandin['settings'] = {
    tokensPerSecond: opts.tokensPerSecond ?? 40,
    reply:
      opts.reply ??
      ((m: ChatMessage[]): string => `You said: ${m.at(-1)?.content ?? ''}. That is all I know.`),
  };
  const apiKey = opts.apiKey ?? 'sk-standin';
  const completions: StandinCompletion[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname.replace(/\/+$/, '');
      if (req.method !== 'POST' || !/^(\/v1)?\/chat\/completions$/.test(path)) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${path}` } }));
        return;
      }
      if (req.headers.authorization !== `Bearer ${apiKey}`) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } }),
        );
        return;
      }
      const body = JSON.parse(await readBody(req)) as {
        model?: string;
        messages?: ChatMessage[];
        stream?: boolean;
      };
      const messages = body.messages ?? [];
      const tokens = tokenize(settings.reply(messages));
      const c: StandinCompletion = {
        messages,
        model: body.model ?? '',
        tokens,
        sentAt: [],
        firstSentenceToken: firstSentenceEnd(tokens),
        aborted: false,
        done: false,
      };
      completions.push(c);
      const hold = settings.holdAfterFirstSentence;
      settings.holdAfterFirstSentence = undefined;
      const closed = new Promise<void>((resolve) =>
        res.on('close', () => {
          if (!c.done) c.aborted = true;
          resolve();
        }),
      );
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const chunk = (delta: object, finish: string | null = null): string =>
        `data: ${JSON.stringify({ id: 'chatcmpl-standin', object: 'chat.completion.chunk', model: c.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.write(chunk({ role: 'assistant', content: '' }));
      let start = nowMs();
      const gapMs = 1000 / settings.tokensPerSecond;
      for (let i = 0; i < tokens.length; i++) {
        const due = start + (i + 1) * gapMs - nowMs();
        if (due > 0) await new Promise((r) => setTimeout(r, due));
        if (c.aborted) return;
        c.sentAt.push(nowMs());
        res.write(chunk({ content: tokens[i] }));
        if (i === c.firstSentenceToken && hold) {
          await Promise.race([hold, closed]);
          if (c.aborted) return;
          start = nowMs() - (i + 1) * gapMs; // the pace goes on from here
        }
      }
      res.write(chunk({}, 'stop'));
      res.end('data: [DONE]\n\n');
      c.done = true;
    })().catch((err: unknown) => {
      res.destroy(err as Error);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    baseUrl: `${url}/v1`,
    apiKey,
    completions,
    settings,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let s = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (s += d));
    req.on('end', () => resolve(s));
    req.on('error', reject);
  });
}
