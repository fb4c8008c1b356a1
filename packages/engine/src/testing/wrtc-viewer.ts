/**
 * A real libwebrtc viewer for engine tests, in a child process (testing/wrtc-viewer-main.ts, run
 * from dist/): it makes a browser-like offer, takes the engine's answer, says `ready` on the events
 * channel and keeps every message the engine sends it.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ServerMessage } from '@mouthpiece/protocol';

export type ViewerToChild = { kind: 'offer' } | { kind: 'answer'; sdp: string } | { kind: 'close' };
export type ViewerFromChild =
  { kind: 'offer'; sdp: string } | { kind: 'message'; message: unknown } | { kind: 'state'; state: string };

export interface WrtcViewer {
  /** Every message from the engine's events channel, in order. */
  readonly messages: ServerMessage[];
  /** Connects: `answer` gets the offer and returns the engine's answer. */
  connect(answer: (offerSdp: string) => Promise<string>): Promise<void>;
  close(): void;
}

const MAIN = import.meta.url.endsWith('.ts')
  ? fileURLToPath(new URL('../../dist/testing/wrtc-viewer-main.js', import.meta.url))
  : fileURLToPath(new URL('./wrtc-viewer-main.js', import.meta.url));

export function wrtcViewer(): WrtcViewer {
  const child: ChildProcess = fork(MAIN, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const messages: ServerMessage[] = [];
  let onOffer: ((sdp: string) => void) | undefined;
  child.on('message', (m: ViewerFromChild) => {
    if (m.kind === 'message') messages.push(m.message as ServerMessage);
    else if (m.kind === 'offer') onOffer?.(m.sdp);
  });
  const post = (m: ViewerToChild): void => {
    if (child.connected) child.send(m);
  };
  return {
    messages,
    async connect(answer) {
      const offerSdp = await new Promise<string>((resolve) => {
        onOffer = resolve;
        post({ kind: 'offer' });
      });
      post({ kind: 'answer', sdp: await answer(offerSdp) });
    },
    close() {
      post({ kind: 'close' });
      setTimeout(() => child.kill('SIGKILL'), 2000).unref();
    },
  };
}
