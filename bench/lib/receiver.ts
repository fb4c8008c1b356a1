/** The benchmark viewers' process (lib/receiver.mjs), driven over IPC. */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface PeerStats {
  id: string;
  framesReceived: number;
  framesDecoded: number;
  audioPackets: number;
  audioEnergy: number;
  /** RTP payload + header bytes received, and audio packets lost. */
  audioBytes: number;
  audioLost: number;
  /** Audio the viewer's decoder produced (48 kHz samples), and how many of them it concealed. */
  audioSamples?: number;
  audioConcealed?: number;
  videoBytes: number;
  /** All bytes the viewer's transport received (RTP, RTCP, SCTP, DTLS), when libwebrtc reports it. */
  transportBytes?: number;
  width: number;
  /** Events-channel messages: binary (animation frames) and text (JSON), and their bytes. */
  binaryMessages: number;
  binaryBytes: number;
  textMessages: number;
  textBytes: number;
}

/** A data-channel message a viewer received, with when it reached this process. */
export interface ViewerEvent {
  id: string;
  message: { type: string; turnId?: string; [k: string]: unknown };
  atMs: number;
}

export class Receiver {
  readonly proc: ChildProcess;
  #waiters = new Map<string, (m: { type: string; message?: string; peers?: PeerStats[] }) => void>();
  readonly #eventListeners = new Set<(e: ViewerEvent) => void>();

  constructor() {
    this.proc = fork(fileURLToPath(new URL('./receiver.mjs', import.meta.url)), [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.proc.on('message', (m: { type: string; id?: string; message?: unknown; peers?: PeerStats[] }) => {
      if (m.type === 'event') {
        const e = { id: m.id!, message: m.message as ViewerEvent['message'], atMs: performance.now() };
        for (const l of this.#eventListeners) l(e);
        return;
      }
      const key = m.type === 'stats' ? 'stats' : m.type === 'gap' ? `gap:${m.id}` : (m.id ?? m.type);
      this.#waiters.get(key)?.(m as { type: string; message?: string });
      this.#waiters.delete(key);
    });
  }

  #ask<T>(key: string, msg: object): Promise<T> {
    return new Promise((resolve) => {
      this.#waiters.set(key, resolve as (m: unknown) => void);
      this.proc.send(msg);
    });
  }

  /**
   * Connects a viewer; with `events` it opens the events channel and says `ready`, as the SDK does;
   * `video: false` offers no video (a page that draws the avatar itself from the animation stream);
   * `gaps` times each decoded frame's arrival (frameGap).
   */
  async connect(
    id: string,
    whepUrl: string,
    opts: { events?: boolean; video?: boolean; gaps?: boolean } = {},
  ): Promise<void> {
    const m = await this.#ask<{ type: string; message?: string }>(id, {
      type: 'connect',
      id,
      whepUrl,
      events: opts.events === true,
      video: opts.video !== false,
      gaps: opts.gaps === true,
    });
    if (m.type !== 'connected') throw new Error(`viewer ${id}: ${m.message}`);
  }

  /** A `gaps` viewer's largest time between two decoded frames (and frames) since the last reset. */
  frameGap(id: string, reset = false): Promise<{ maxGapMs: number; frames: number }> {
    return this.#ask(`gap:${id}`, { type: 'gap', id, reset });
  }

  onEvent(listener: (e: ViewerEvent) => void): () => void {
    this.#eventListeners.add(listener);
    return () => this.#eventListeners.delete(listener);
  }

  async stats(): Promise<PeerStats[]> {
    return (await this.#ask<{ peers: PeerStats[] }>('stats', { type: 'stats' })).peers;
  }

  close(): void {
    this.proc.send({ type: 'close' });
  }
}
