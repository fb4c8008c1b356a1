/**
 * Standard WHEP players work against Mouthpiece unchanged: medooze's whip-whep POSTs with no
 * candidates, trickles them by PATCH, reads ICE servers from Link headers, sends a Bearer token
 * and opens no data channel. Eyevinn's webrtc-player sends a full offer after gathering (its
 * default STUN server is unreachable here, so after its 2 s timeout) and attaches only tracks that
 * arrive with a stream: it needs the answer's shared msid.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useStack } from './harness/stack.js';
import { playersBundle } from './harness/players.js';

const stack = useStack();
let bundle: string;
beforeAll(async () => {
  bundle = await playersBundle();
});

describe('third-party WHEP players', () => {
  it('medooze whip-whep: trickle PATCH and Link headers; frames decode; speech plays without a data channel', async () => {
    const { sessionId, token } = await stack.server.createSession();
    const init = await stack.server.initClient(sessionId, token);
    const page = await stack.browser.newPage(stack.server.url);
    await page.addScriptTag({ content: bundle });
    const whepPath = new URL(init.whepUrl);
    await page.evaluate(
      async ({ url, token }) => {
        const w = window as unknown as {
          WHEPClient: new () => {
            view(pc: RTCPeerConnection, url: string, token?: string): Promise<void>;
            stop(): Promise<void>;
          };
          client: unknown;
          pc: RTCPeerConnection;
        };
        const pc = new RTCPeerConnection();
        pc.addTransceiver('video', { direction: 'recvonly' });
        pc.addTransceiver('audio', { direction: 'recvonly' });
        const client = new w.WHEPClient();
        await client.view(pc, url, token);
        w.client = client;
        w.pc = pc;
      },
      { url: `${whepPath.origin}${whepPath.pathname}`, token },
    );
    const frames = await page.evaluate(async () => {
      const pc = (window as unknown as { pc: RTCPeerConnection }).pc;
      const decoded = async () => {
        let n = 0;
        (await pc.getStats()).forEach(
          (s) => s.type === 'inbound-rtp' && s.kind === 'video' && (n = s.framesDecoded ?? 0),
        );
        return n;
      };
      const end = performance.now() + 15000;
      while (performance.now() < end && (await decoded()) < 10) await new Promise((r) => setTimeout(r, 100));
      return decoded();
    });
    expect(frames).toBeGreaterThanOrEqual(10);
    // no events channel: playback starts shortly after ICE connects, and audio packets carry it
    await stack.server.api(`/v1/avatar-session/${sessionId}/say-text`, {
      token,
      json: { text: 'Hello from a third party player.' },
    });
    const audioBytes = await page.evaluate(async () => {
      const pc = (window as unknown as { pc: RTCPeerConnection }).pc;
      const bytes = async () => {
        let n = 0;
        (await pc.getStats()).forEach(
          (s) => s.type === 'inbound-rtp' && s.kind === 'audio' && (n = s.bytesReceived ?? 0),
        );
        return n;
      };
      const a = await bytes();
      await new Promise((r) => setTimeout(r, 2000));
      return (await bytes()) - a;
    });
    expect(audioBytes).toBeGreaterThan(5000);
    expect(stack.server.logs.join('')).not.toContain('"level":50');
    await page.evaluate(() => (window as unknown as { client: { stop(): Promise<void> } }).client.stop());
  });

  it('Eyevinn webrtc-player: load() attaches audio and video to its <video>, frames play', async () => {
    const { sessionId, token } = await stack.server.createSession();
    const init = await stack.server.initClient(sessionId, token);
    const page = await stack.browser.newPage(stack.server.url);
    await page.addScriptTag({ content: bundle });
    await page.evaluate(async (url) => {
      const w = window as unknown as {
        WebRTCPlayer: new (o: { video: HTMLVideoElement; type: string; iceServers?: RTCIceServer[] }) => {
          load(u: URL): Promise<void>;
          unload(): Promise<void>;
        };
        player: unknown;
        eyevinnVideo: HTMLVideoElement;
      };
      const video = document.createElement('video');
      video.muted = true;
      video.autoplay = true;
      document.body.appendChild(video);
      const player = new w.WebRTCPlayer({ video, type: 'whep' });
      await player.load(new URL(url));
      w.player = player;
      w.eyevinnVideo = video;
    }, init.whepUrl);
    const shown = await page.evaluate(async () => {
      const video = (window as unknown as { eyevinnVideo: HTMLVideoElement }).eyevinnVideo;
      const end = performance.now() + 20000;
      while (performance.now() < end) {
        const stream = video.srcObject as MediaStream | null;
        if (
          stream &&
          stream.getVideoTracks().length > 0 &&
          stream.getAudioTracks().length > 0 &&
          video.videoWidth > 0
        )
          return { width: video.videoWidth, tracks: stream.getTracks().length };
        await new Promise((r) => setTimeout(r, 100));
      }
      return null;
    });
    expect(shown).toEqual({ width: 512, tracks: 2 });
    const frames = await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          const video = (window as unknown as { eyevinnVideo: HTMLVideoElement }).eyevinnVideo;
          let n = 0;
          const onFrame = () => {
            if (++n >= 10) resolve(n);
            else video.requestVideoFrameCallback(onFrame);
          };
          video.requestVideoFrameCallback(onFrame);
          setTimeout(() => resolve(n), 10000);
        }),
    );
    expect(frames).toBeGreaterThanOrEqual(10);
    await page.evaluate(() => (window as unknown as { player: { unload(): Promise<void> } }).player.unload());
  });
});
