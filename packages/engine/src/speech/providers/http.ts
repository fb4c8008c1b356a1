/**
 * One streamed HTTP POST to a voice provider (node:http, so an abort destroys the socket and the
 * provider sees its connection closed). Body bytes go to `onChunk` as they arrive. Failures become
 * ProviderErrors whose messages name the status or the network error, never the key or the text.
 */
import http from 'node:http';
import https from 'node:https';
import { AbortedError } from '../synthesis-scheduler.js';
import { ProviderError, type ProviderFailure, type ProviderName } from '../provider.js';

export interface HttpCall {
  provider: ProviderName;
  url: URL;
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
  /** Fail with `timeout` when no body byte came this long after sending. */
  firstByteTimeoutMs: number;
  /** Fail with `timeout` when the body stops for this long. */
  stallTimeoutMs: number;
  /** A 2xx whose Content-Type this refuses fails with `bad_audio` (e.g. MP3 where PCM was asked). */
  contentType?: (type: string) => boolean;
}

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

/** The failure a response status means. */
export function failureOfStatus(status: number): ProviderFailure {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'provider_error';
  return 'bad_request';
}

/** Sends `call`; resolves when the whole body has been handed to `onChunk` (which may throw). */
export function postStreaming(call: HttpCall, onChunk: (bytes: Buffer) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (call.signal.aborted) return reject(new AbortedError());
    const lib = call.url.protocol === 'https:' ? https : http;
    const agent = call.url.protocol === 'https:' ? agents['https:'] : agents['http:'];
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (err?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      call.signal.removeEventListener('abort', onAbort);
      if (err) {
        req.destroy();
        reject(err);
      } else resolve();
    };
    const fail = (reason: ProviderFailure, message: string): void =>
      finish(new ProviderError(call.provider, reason, `${call.provider}: ${message}`));
    const arm = (ms: number, what: string): void => {
      clearTimeout(timer);
      timer = setTimeout(() => fail('timeout', `${what} after ${ms} ms`), ms);
    };
    const onAbort = (): void => finish(new AbortedError());
    const req = lib.request(call.url, {
      method: 'POST',
      agent,
      headers: { ...call.headers, 'content-length': Buffer.byteLength(call.body) },
    });
    req.on('error', (err: NodeJS.ErrnoException) =>
      fail('connection_failed', `request failed (${err.code ?? err.message})`),
    );
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      if (status < 200 || status > 299) {
        res.resume();
        return fail(failureOfStatus(status), `answered HTTP ${status}`);
      }
      const type = (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (call.contentType && type && !call.contentType(type)) {
        res.resume();
        return fail('bad_audio', `answered ${type.slice(0, 60)} where audio was expected`);
      }
      res.on('data', (bytes: Buffer) => {
        if (settled) return;
        arm(call.stallTimeoutMs, 'audio stalled');
        try {
          onChunk(bytes);
        } catch (err) {
          finish(err instanceof Error ? err : new Error(String(err)));
        }
      });
      res.on('end', () => finish());
      res.on('error', (err: NodeJS.ErrnoException) =>
        fail('connection_failed', `response broke off (${err.code ?? err.message})`),
      );
      res.on('aborted', () => fail('connection_failed', 'response broke off'));
    });
    call.signal.addEventListener('abort', onAbort, { once: true });
    arm(call.firstByteTimeoutMs, 'no audio');
    req.end(call.body);
  });
}
