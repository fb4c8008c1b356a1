import { describe, expect, it } from 'vitest';
import { formatSessionEvent } from '@mouthpiece/protocol';
import { SseParser } from './sse-parser.js';

describe('SseParser', () => {
  it('reads what formatSessionEvent writes, fed one character at a time', () => {
    const p = new SseParser();
    const text =
      formatSessionEvent(1, { type: 'speakingStart', turnId: 't1' }) +
      ': heartbeat\n\n' +
      formatSessionEvent(2, { type: 'speakingEnd', turnId: 't1', interrupted: true });
    const out = [...text].flatMap((c) => p.push(c));
    expect(out).toEqual([
      { lastEventId: '1', event: 'speakingStart', data: '{"turnId":"t1"}' },
      { lastEventId: '2', event: 'speakingEnd', data: '{"turnId":"t1","interrupted":true}' },
    ]);
    expect(p.comments).toBe(1);
  });

  it.each([
    ['CRLF', 'id: 7\r\nevent: x\r\ndata: a\r\n\r\n'],
    ['CR', 'id: 7\revent: x\rdata: a\r\r'],
    ['no space after the colon', 'id:7\nevent:x\ndata:a\n\n'],
  ])('line ends and fields: %s', (_name, text) => {
    const whole = new SseParser().push(text);
    const p = new SseParser();
    const split = [...text].flatMap((c) => p.push(c));
    expect(whole).toEqual([{ lastEventId: '7', event: 'x', data: 'a' }]);
    expect(split).toEqual(whole);
  });

  it('joins data lines, keeps the last id across messages, reads retry, ignores unknown fields', () => {
    const p = new SseParser('3');
    expect(p.push('data: a\ndata: b\nfoo: bar\nretry: 1500\n\n')).toEqual([
      { lastEventId: '3', event: 'message', data: 'a\nb' },
    ]);
    expect(p.retryMs).toBe(1500);
    expect(p.push('id: 9\n\n')).toEqual([]); // an id alone moves lastEventId, dispatches nothing
    expect(p.lastEventId).toBe('9');
  });

  it('drops a message cut by a closed connection', () => {
    const p = new SseParser();
    p.push('id: 4\nevent: speakingStart\ndata: {"tur');
    p.reset();
    expect(p.push('id: 4\nevent: speakingStart\ndata: {"turnId":"a"}\n\n')).toEqual([
      { lastEventId: '4', event: 'speakingStart', data: '{"turnId":"a"}' },
    ]);
  });
});
