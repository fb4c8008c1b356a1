import { describe, expect, it } from 'vitest';
import { DEFAULT_ICE_DENY, candidateFilter, filterOfferCandidates } from './candidate-filter.js';

const c = (address: string, port = 50000, type = 'host', transport = 'udp') =>
  `candidate:1 1 ${transport} 2122260223 ${address} ${port} typ ${type} generation 0`;

describe('ICE candidates from viewers', () => {
  const accept = candidateFilter({
    deny: DEFAULT_ICE_DENY,
    allowTcp: false,
    relays: [{ ip: '127.0.0.1', minPort: 49160, maxPort: 49200 }],
  });

  it.each([
    ['127.0.0.1', false],
    ['127.8.9.10', false],
    ['::1', false],
    ['169.254.169.254', false],
    ['fe80::1', false],
    ['224.0.0.251', false],
    ['0.0.0.0', false],
    ['192.168.1.20', true],
    ['10.0.0.7', true],
    ['203.0.113.9', true],
    ['2001:db8::5', true],
    ['4e8c0f6a-1a2b-4c3d-9e8f-0a1b2c3d4e5f.local', true],
    ['internal.example.com', false],
  ])('%s accepted: %s', (address, ok) => {
    expect(accept(c(address))).toBe(ok);
  });

  it('drops TCP candidates unless allowed (the engine would open TCP connections to them)', () => {
    expect(accept(c('192.168.1.20', 9, 'host', 'tcp'))).toBe(false);
    expect(
      candidateFilter({ deny: [], allowTcp: true, relays: [] })(c('192.168.1.20', 9, 'host', 'tcp')),
    ).toBe(true);
  });

  it("accepts our own TURN server's relay candidates even on loopback, and only in its port range", () => {
    expect(accept(c('127.0.0.1', 49170, 'relay'))).toBe(true);
    expect(accept(c('127.0.0.1', 22, 'relay'))).toBe(false);
    expect(accept(c('127.0.0.1', 49170, 'host'))).toBe(false);
  });

  it('removes refused candidates from an offer and keeps the rest of it', () => {
    const offer = [
      'v=0',
      'm=audio 9 UDP/TLS/RTP/SAVPF 111',
      `a=${c('127.0.0.1')}`,
      `a=${c('192.168.1.20')}`,
      'a=mid:0',
      '',
    ].join('\r\n');
    expect(filterOfferCandidates(offer, accept)).toBe(
      ['v=0', 'm=audio 9 UDP/TLS/RTP/SAVPF 111', `a=${c('192.168.1.20')}`, 'a=mid:0', ''].join('\r\n'),
    );
  });
});
