/** SDP offers as browsers make them, for tests of the engine's WHEP answers. */

/**
 * An offer as a browser makes it: receive-only audio and video, bundled, with an events channel.
 * No video codecs: no video m-line (a page that draws the avatar itself, render: 'client').
 */
export function browserOffer(videoCodecs: Array<[number, string]>, candidates: string[] = []): string {
  const fingerprint = Array.from({ length: 32 }, (_, i) => (i * 7 + 16).toString(16).padStart(2, '0'))
    .join(':')
    .toUpperCase();
  const common = (mid: number) => [
    'c=IN IP4 0.0.0.0',
    'a=ice-ufrag:Ab12',
    'a=ice-pwd:abcdefghijklmnopqrstuvwx',
    'a=ice-options:trickle',
    `a=fingerprint:sha-256 ${fingerprint}`,
    'a=setup:actpass',
    `a=mid:${mid}`,
  ];
  const video = videoCodecs.length > 0;
  return [
    'v=0',
    'o=- 4611731400430051336 2 IN IP4 127.0.0.1',
    's=-',
    't=0 0',
    video ? 'a=group:BUNDLE 0 1 2' : 'a=group:BUNDLE 0 1',
    'a=msid-semantic: WMS',
    'm=audio 9 UDP/TLS/RTP/SAVPF 111',
    ...common(0),
    'a=recvonly',
    'a=rtcp-mux',
    'a=rtpmap:111 opus/48000/2',
    'a=fmtp:111 minptime=10;useinbandfec=1',
    ...candidates.map((c) => `a=${c}`),
    ...(video
      ? [
          `m=video 9 UDP/TLS/RTP/SAVPF ${videoCodecs.map(([pt]) => pt).join(' ')}`,
          ...common(1),
          'a=recvonly',
          'a=rtcp-mux',
          'a=rtcp-rsize',
          ...videoCodecs.map(([pt, name]) => `a=rtpmap:${pt} ${name}/90000`),
        ]
      : []),
    'm=application 9 UDP/DTLS/SCTP webrtc-datachannel',
    ...common(video ? 2 : 1),
    'a=sctp-port:5000',
    '',
  ].join('\r\n');
}
