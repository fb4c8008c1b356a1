import { describe, expect, it } from 'vitest';
import { ClientErrorCode, ConnectionState, SessionState } from '@mouthpiece/protocol';
import { errorForStatus } from './errors.js';
import { DEFAULT_RETRY, backoffMs, parseRetryAfter, retryConfig, shouldRetry } from './retry.js';
import { CONNECTION_TRANSITIONS, SESSION_TRANSITIONS, StateMachine } from './states.js';
import { iceServersFor } from './turn.js';

describe('retry policy', () => {
  it('retries unsafe calls only on 429, 503 and network errors; safe calls also on 408 and 5xx; never other 4xx', () => {
    for (const s of [429, 503]) expect(shouldRetry('unsafe', { status: s })).toBe(true);
    for (const s of [500, 502, 408, 400, 401, 404, 409, 410])
      expect(shouldRetry('unsafe', { status: s })).toBe(false);
    for (const s of [408, 429, 500, 502, 503, 504]) expect(shouldRetry('safe', { status: s })).toBe(true);
    for (const s of [400, 401, 403, 404, 409, 410, 413, 415])
      expect(shouldRetry('safe', { status: s })).toBe(false);
    expect(shouldRetry('unsafe', { network: true })).toBe(true);
  });

  it('backs off exponentially with equal jitter within [ceiling/2, ceiling], capped, and honours Retry-After', () => {
    const cfg = DEFAULT_RETRY;
    expect(backoffMs(cfg, 1, {}, () => 0)).toBe(250);
    expect(backoffMs(cfg, 1, {}, () => 1)).toBe(500);
    expect(backoffMs(cfg, 2, {}, () => 1)).toBe(1000);
    expect(backoffMs(cfg, 10, {}, () => 1)).toBe(5000);
    // every delay of every retry lies within its bounds, and they are reached (not full jitter's [0, ceiling])
    const custom = { maxAttempts: 9, initialDelayMs: 300, maxDelayMs: 4000, backoffMultiplier: 3 };
    for (const c of [cfg, custom])
      for (let retry = 1; retry <= 8; retry++) {
        const ceiling = Math.min(c.maxDelayMs, c.initialDelayMs * c.backoffMultiplier ** (retry - 1));
        const delays = Array.from({ length: 200 }, (_, i) => backoffMs(c, retry, {}, () => i / 199));
        expect(Math.min(...delays), `retry ${retry}`).toBe(Math.round(ceiling / 2));
        expect(Math.max(...delays), `retry ${retry}`).toBe(ceiling);
        for (let i = 0; i < 200; i++) {
          const d = backoffMs(c, retry, {});
          expect(d).toBeGreaterThanOrEqual(Math.round(ceiling / 2));
          expect(d).toBeLessThanOrEqual(ceiling);
        }
      }
    expect(backoffMs(cfg, 1, { retryAfterSec: 3600 }, () => 0)).toBe(4 * cfg.maxDelayMs);
    expect(backoffMs(cfg, 1, { retryAfterSec: 3 }, () => 0)).toBe(3000);
    expect(parseRetryAfter('2')).toBe(2);
    expect(parseRetryAfter(null)).toBeUndefined();
  });

  it('accepts flat (spec) and nested retry settings; nested wins', () => {
    expect(retryConfig({})).toEqual(DEFAULT_RETRY);
    expect(retryConfig({ maxAttempts: 5 })).toMatchObject({ maxAttempts: 5 });
    expect(retryConfig({ maxAttempts: 5, retry: { maxAttempts: 2 } })).toMatchObject({ maxAttempts: 2 });
  });
});

describe('state machines', () => {
  for (const [name, table, states] of [
    ['session', SESSION_TRANSITIONS, Object.values(SessionState)],
    ['connection', CONNECTION_TRANSITIONS, Object.values(ConnectionState)],
  ] as const) {
    for (const from of states) {
      for (const to of states) {
        it(`${name}: ${from} -> ${to}`, () => {
          const seen: string[] = [];
          const logged: string[] = [];
          const log = {
            debug: () => undefined,
            info: () => undefined,
            warn: () => undefined,
            error: (m: string) => logged.push(m),
          };
          const m = new StateMachine<string>({
            name,
            initial: from,
            table,
            log,
            onChange: (s) => seen.push(s),
          });
          if (from === to) {
            m.transition(to, 'test');
            expect(seen).toEqual([]);
          } else if ((table as Record<string, readonly string[]>)[from]!.includes(to)) {
            m.transition(to, 'test');
            expect(seen).toEqual([to]);
          } else {
            expect(() => m.transition(to, 'test')).toThrow(/illegal .* transition/);
            expect(m.state).toBe(from);
            // a refused move is said with both states, never silent
            expect(logged).toEqual([`${name}: refused ${from} -> ${to}`]);
          }
        });
      }
    }
  }
  it('ENDED is final; a CLOSED connection only opens again (a start after ERROR)', () => {
    expect(SESSION_TRANSITIONS.ENDED).toEqual([]);
    expect(SESSION_TRANSITIONS.ERROR).toContain('CREATING');
    expect(CONNECTION_TRANSITIONS.CLOSED).toEqual(['CONNECTING']);
  });
});

describe('TURN URLs', () => {
  it('builds the spec formula from turn.url when no full URLs are given', () => {
    expect(iceServersFor({ url: 'turn.example.com', username: 'u', credential: 'c' })).toEqual([
      {
        urls: [
          'turn:turn.example.com:80?transport=udp',
          'turn:turn.example.com:443?transport=udp',
          'turn:turn.example.com:80?transport=tcp',
        ],
        username: 'u',
        credential: 'c',
      },
    ]);
  });
  it('prefers iceServers, then turn.urls; none when TURN is off', () => {
    const ice = [{ urls: ['turn:a:3478'], username: 'x', credential: 'y' }];
    expect(
      iceServersFor({ url: 'h', username: 'u', credential: 'c', urls: ['turn:h:3478?transport=udp'] }, ice),
    ).toBe(ice);
    expect(
      iceServersFor({ url: 'h', username: 'u', credential: 'c', urls: ['turn:h:3478?transport=udp'] }),
    ).toEqual([{ urls: ['turn:h:3478?transport=udp'], username: 'u', credential: 'c' }]);
    expect(iceServersFor({ url: 'h', username: 'none', credential: 'none', urls: [] })).toEqual([]);
  });
});

describe('error mapping', () => {
  it.each([
    [401, ClientErrorCode.UNAUTHORIZED],
    [403, ClientErrorCode.UNAUTHORIZED],
    [404, ClientErrorCode.SESSION_NOT_FOUND],
    [410, ClientErrorCode.SESSION_NOT_FOUND],
    [400, ClientErrorCode.API_REQUEST_FAILED],
    [429, ClientErrorCode.API_REQUEST_FAILED],
    [500, ClientErrorCode.API_REQUEST_FAILED],
  ])('%i → %s with the status and server code in details', (status, code) => {
    const e = errorForStatus(status, 'm', 'SERVER_CODE');
    expect(e.code).toBe(code);
    expect(e.details).toEqual({ status, code: 'SERVER_CODE' });
  });
});
