import { describe, expect, it } from 'vitest';
import {
  hasDataChannel,
  offersCodec,
  parseSdpFragment,
  preferCodec,
  withOpusSendParams,
  withVideoStartBitrate,
} from './sdp.js';

const OFFER = [
  'v=0',
  'm=audio 9 UDP/TLS/RTP/SAVPF 111 63',
  'a=rtpmap:111 opus/48000/2',
  'm=video 9 UDP/TLS/RTP/SAVPF 96 97 98 99 45',
  'a=rtpmap:96 H264/90000',
  'a=rtpmap:97 rtx/90000',
  'a=rtpmap:98 VP8/90000',
  'a=rtpmap:99 rtx/90000',
  'a=rtpmap:45 AV1/90000',
  'm=application 9 UDP/DTLS/SCTP webrtc-datachannel',
  '',
].join('\r\n');

describe('sdp', () => {
  it('moves the preferred codec to the front of its m-line only', () => {
    const out = preferCodec(OFFER, 'video', 'VP8');
    expect(out).toContain('m=video 9 UDP/TLS/RTP/SAVPF 98 96 97 99 45');
    expect(out).toContain('m=audio 9 UDP/TLS/RTP/SAVPF 111 63');
    expect(preferCodec(OFFER, 'video', 'VP9')).toBe(OFFER);
  });

  it('finds codecs and data channels', () => {
    expect(offersCodec(OFFER, 'video', 'vp8')).toBe(true);
    expect(offersCodec(OFFER, 'audio', 'VP8')).toBe(false);
    expect(hasDataChannel(OFFER)).toBe(true);
    expect(hasDataChannel(OFFER.replace(/m=application.*\r\n/, ''))).toBe(false);
  });

  it('asks for Opus frames and bitrate in the audio section only, replacing what the offer said', () => {
    const offer = [
      'v=0',
      'm=audio 9 UDP/TLS/RTP/SAVPF 111 63 0',
      'a=rtpmap:111 opus/48000/2',
      'a=fmtp:111 minptime=10;maxaveragebitrate=20000;useinbandfec=1',
      'a=rtpmap:63 red/48000/2',
      'a=fmtp:63 111/111',
      'a=rtpmap:0 PCMU/8000',
      'a=ptime:20',
      'm=application 9 UDP/DTLS/SCTP webrtc-datachannel',
      'a=mid:1',
      '',
    ].join('\r\n');
    const out = withOpusSendParams(offer, { frameMs: 40, bitrateBps: 64_000 });
    expect(out.split('\r\n')).toEqual([
      'v=0',
      'm=audio 9 UDP/TLS/RTP/SAVPF 111 63 0',
      'a=rtpmap:111 opus/48000/2',
      'a=fmtp:111 minptime=10;useinbandfec=1;maxaveragebitrate=64000',
      'a=rtpmap:63 red/48000/2',
      'a=fmtp:63 111/111',
      'a=rtpmap:0 PCMU/8000',
      'a=ptime:40',
      'm=application 9 UDP/DTLS/SCTP webrtc-datachannel',
      'a=mid:1',
      '',
    ]);
    // an Opus format without an fmtp line gets one; a section after audio is left alone
    const bare = withOpusSendParams(OFFER, { frameMs: 60, bitrateBps: 48_000 });
    expect(bare).toContain(
      'a=rtpmap:111 opus/48000/2\r\na=fmtp:111 maxaveragebitrate=48000\r\na=ptime:60\r\nm=video',
    );
    expect(bare.replace(/^a=(fmtp:111|ptime).*\r\n/gm, '')).toBe(OFFER);
  });

  it('parses trickle fragments with their mids', () => {
    const frag = [
      'a=ice-ufrag:EsAw',
      'a=ice-pwd:P2uYro0UCOQ4zxjKXaWCBui1',
      'm=audio 9 RTP/AVP 0',
      'a=mid:0',
      'a=candidate:1387637174 1 udp 2122260223 127.0.0.2 61764 typ host generation 0',
      'a=end-of-candidates',
      '',
    ].join('\r\n');
    expect(parseSdpFragment(frag)).toEqual({
      candidates: [
        {
          candidate: 'candidate:1387637174 1 udp 2122260223 127.0.0.2 61764 typ host generation 0',
          sdpMid: '0',
          sdpMLineIndex: null,
        },
      ],
      endOfCandidates: true,
    });
  });

  it('asks every video codec (not rtx, not audio) to start at the given bitrate, keeping its other parameters', () => {
    const offer = OFFER.replace(
      'a=rtpmap:45 AV1/90000',
      'a=rtpmap:45 AV1/90000\r\na=fmtp:45 level-idx=5;x-google-start-bitrate=50',
    );
    const out = withVideoStartBitrate(offer, 1000);
    expect(out).toContain('a=rtpmap:98 VP8/90000\r\na=fmtp:98 x-google-start-bitrate=1000\r\n');
    expect(out).toContain('a=rtpmap:96 H264/90000\r\na=fmtp:96 x-google-start-bitrate=1000\r\n');
    expect(out).toContain('a=fmtp:45 level-idx=5;x-google-start-bitrate=1000\r\n');
    expect(out).not.toContain('x-google-start-bitrate=50');
    expect(out).not.toMatch(/a=fmtp:(97|99|111) /);
    expect(out.split('\r\n').filter((l) => l.startsWith('a=fmtp:45'))).toHaveLength(1);
  });
});
