import { describe, expect, it } from 'vitest';
import { TypedEmitter } from './emitter.js';
import { DEFAULT_STREAM_TIMING } from './animation.js';
import { NOTICE_CODE, parseClientMessage, parseServerMessage, streamTiming } from './data-channel.js';
import { ERROR_STATUS, ErrorCode, errorBody, isRetryableStatus } from './errors.js';

describe('TypedEmitter', () => {
  it('delivers payloads, unsubscribes, and survives a throwing listener', () => {
    const errors: string[] = [];
    const e = new TypedEmitter<{ a: number; b: string }>((_err, event) => errors.push(String(event)));
    const got: number[] = [];
    const off = e.on('a', (n) => got.push(n));
    e.on('a', () => {
      throw new Error('boom');
    });
    e.on('a', (n) => got.push(n * 10));
    e.emit('a', 1);
    off();
    e.emit('a', 2);
    expect(got).toEqual([1, 10, 20]);
    expect(errors).toEqual(['a', 'a']);
    let once = 0;
    e.once('b', () => once++);
    e.emit('b', 'x');
    e.emit('b', 'y');
    expect(once).toBe(1);
    e.removeAllListeners();
    e.emit('a', 3);
    expect(got).toEqual([1, 10, 20]); // nobody hears it, not even the thrower
    expect(errors).toEqual(['a', 'a']);
  });
});

describe('data channel messages', () => {
  it("reads hello's timing of the animation stream; an older server's hello gives the protocol's defaults", () => {
    const hello = {
      type: 'hello',
      sessionId: 's',
      protocol: 1,
      stampRateHz: 48_000,
      frameMs: 20,
      audioPacketMs: 20,
    };
    const read = parseServerMessage(JSON.stringify(hello));
    expect(read).toEqual(hello);
    expect(streamTiming(read as typeof hello)).toEqual({
      stampRateHz: 48_000,
      frameMs: 20,
      audioPacketMs: 20,
    });
    const older = parseServerMessage('{"type":"hello","sessionId":"s","protocol":1}');
    expect(older).toEqual({ type: 'hello', sessionId: 's', protocol: 1 });
    expect(streamTiming(older as typeof hello)).toEqual(DEFAULT_STREAM_TIMING);
    // nonsense is not timing: each such field is dropped, the others kept
    const odd = parseServerMessage({ ...hello, frameMs: 0, audioPacketMs: '20', stampRateHz: Infinity });
    expect(odd).toEqual({ type: 'hello', sessionId: 's', protocol: 1 });
  });

  it('parses known server messages and ignores unknown or malformed ones', () => {
    expect(parseServerMessage('{"type":"speakingEnd","turnId":"t","interrupted":true}')).toEqual({
      type: 'speakingEnd',
      turnId: 't',
      interrupted: true,
    });
    expect(
      parseServerMessage({ type: 'word', turnId: 't', text: 'hi', startMs: 0, endMs: 100 }),
    ).toMatchObject({ text: 'hi' });
    expect(parseServerMessage('{"type":"word","turnId":"t"}')).toBeUndefined();
    expect(parseServerMessage('{"type":"future"}')).toBeUndefined();
    expect(parseServerMessage('not json')).toBeUndefined();
    expect(parseServerMessage('[1]')).toBeUndefined();
    expect(parseServerMessage('{"type":"replaced"}')).toEqual({ type: 'replaced' });
    expect(parseServerMessage('{"type":"turnFailed","turnId":"t"}')).toEqual({
      type: 'turnFailed',
      turnId: 't',
      reason: 'unknown',
    });
    expect(parseServerMessage('{"type":"turnFailed"}')).toBeUndefined();
    const notice = { type: 'notice', code: 'client_render_unavailable', message: 'video instead' };
    expect(parseServerMessage(JSON.stringify(notice))).toEqual(notice);
    expect(parseServerMessage('{"type":"notice","code":"x"}')).toBeUndefined();
    expect(parseServerMessage(new Uint8Array([1, 0, 0]).buffer)).toBeUndefined(); // binary: an animation frame
    expect(parseClientMessage('{"type":"ready"}')).toEqual({ type: 'ready' });
    expect(parseClientMessage('{"type":"other"}')).toBeUndefined();
  });

  it('parses a notice, and drops a type it does not know without throwing (an older SDK, a newer server)', () => {
    const notice = {
      type: 'notice',
      code: NOTICE_CODE.CLIENT_RENDER_UNAVAILABLE,
      message: 'Audio only: this server does not let browsers draw this avatar',
    };
    expect(parseServerMessage(JSON.stringify(notice))).toEqual(notice);
    expect(parseServerMessage({ type: 'notice', code: 'x' })).toBeUndefined(); // no message
    expect(parseServerMessage({ type: 'notice', code: 7, message: 'm' })).toBeUndefined();
    for (const raw of [
      '{"type":"cameraMoved","angle":3}',
      '{"type":"notice2","code":"c","message":"m"}',
      '{"type":42}',
      '{}',
    ]) {
      expect(() => parseServerMessage(raw)).not.toThrow();
      expect(parseServerMessage(raw)).toBeUndefined();
    }
  });
});

describe('errors', () => {
  it('every code has a 4xx/5xx status; retryable statuses are 408, 429 and 5xx', () => {
    for (const code of Object.values(ErrorCode)) expect(ERROR_STATUS[code]).toBeGreaterThanOrEqual(400);
    expect(errorBody('SESSION_ENDED')).toEqual({
      success: false,
      error: 'Session ended',
      code: 'SESSION_ENDED',
    });
    expect([408, 429, 500, 503].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 404, 409, 410].some(isRetryableStatus)).toBe(false);
  });
});
