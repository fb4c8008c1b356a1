/**
 * A real libwebrtc viewer for engine tests, in a child process (testing/wrtc-viewer-main.ts, run
 * from dist/): it makes a browser-like offer (without a video m-line when `video: false`, as a page
 * that draws the avatar itself; with `frames`, opening the SDK's frames channel too), takes the
 * engine's answer, says `ready` on the events channel and keeps every message the engine sends it,
 * text and binary (and which channel each binary one came on), and the kinds of track it receives.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ServerMessage } from '@mouthpiece/protocol';

export type ViewerToChild =
  { kind: 'offer'; video: boolean; frames: boolean } | { kind: 'answer'; sdp: string } | { kind: 'close' };
export type ViewerFromChild =
  | { kind: 'offer'; sdp: string }
  | { kind: 'message'; message: unknown }
  | { kind: 'binary'; channel: string; bytes: number[] }
  | { kind: 'track'; track: string; packets: number; decodedSamples?: number }
  | { kind: 'state'; state: string };

export interface WrtcViewer {
  /** Every message from the engine's events channel, in order. */
  readonly messages: ServerMessage[];
  /** Every binary message (animation frame), in order. */
  readonly binary: Uint8Array[];
  /** The label of the channel each binary message came on (`events`, or `frames`). */
  readonly binaryChannels: string[];
  /** RTP packets received per track kind ('audio', 'video'), as last reported (every 250 ms). */
  readonly packets: Record<string, number>;
  /** Milliseconds of audio the viewer's decoder made from the packets received (not concealed). */
  readonly audio: { decodedMs: number };
  /** Connects: `answer` gets the offer and returns the engine's answer. */
  connect(answer: (offerSdp: string) => Promise<string>): Promise<void>;
  close(): void;
}

const MAIN = import.meta.url.endsWith('.ts')
  ? fileURLToPath(new URL('../../dist/testing/wrtc-viewer-main.js', import.meta.url))
  : fileURLToPath(new URL('./wrtc-viewer-main.js', import.meta.url));

export function wrtcViewer(o: { video?: boolean; frames?: boolean } = {}): WrtcViewer {
  const child: ChildProcess = fork(MAIN, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const messages: ServerMessage[] = [];
  const binary: Uint8Array[] = [];
  const binaryChannels: string[] = [];
  const packets: Record<string, number> = {};
  const audio = { decodedMs: 0 };
  let onOffer: ((sdp: string) => void) | undefined;
  child.on('message', (m: ViewerFromChild) => {
    if (m.kind === 'message') messages.push(m.message as ServerMessage);
    else if (m.kind === 'binary') {
      binary.push(Uint8Array.from(m.bytes));
      binaryChannels.push(m.channel);
    } else if (m.kind === 'track') {
      packets[m.track] = m.packets;
      if (m.decodedSamples !== undefined) audio.decodedMs = m.decodedSamples / 48;
    } else if (m.kind === 'offer') onOffer?.(m.sdp);
  });
  const post = (m: ViewerToChild): void => {
    if (child.connected) child.send(m);
  };
  return {
    messages,
    binary,
    binaryChannels,
    packets,
    audio,
    async connect(answer) {
      const offerSdp = await new Promise<string>((resolve) => {
        onOffer = resolve;
        post({ kind: 'offer', video: o.video ?? true, frames: o.frames ?? false });
      });
      post({ kind: 'answer', sdp: await answer(offerSdp) });
    },
    close() {
      post({ kind: 'close' });
      setTimeout(() => child.kill('SIGKILL'), 2000).unref();
    },
  };
}
