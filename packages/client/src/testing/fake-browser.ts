/**
 * Just enough of a browser for AvatarSession unit tests in Node: a fetch router that records
 * calls, an RTCPeerConnection whose state the test drives, MediaStream, window and document
 * (canvases whose 2D context accepts every call and counts them, audio elements),
 * requestAnimationFrame on the timers.
 */
import { FRAMES_CHANNEL_LABEL } from '@mouthpiece/protocol';
import { vi } from 'vitest';

export interface Call {
  method: string;
  url: string;
  body: string | undefined;
  headers: Record<string, string>;
}

export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The fake server: an answer now, or a promise of one (an answer that takes its time). */
export type Handler = (call: Call) => Answer | Promise<Answer>;

/** The `events` data channel of a FakePeer: open at once; the test delivers server messages. */
export class FakeChannel extends EventTarget {
  /** The options it was made with. */
  init: RTCDataChannelInit | undefined;
  readyState = 'open';
  binaryType = 'blob';
  readonly sent: string[] = [];
  send(m: string): void {
    this.sent.push(m);
  }
  close(): void {
    this.readyState = 'closed';
  }
  /** Test hook: a message from the server (delivered even after close, as a late one would be). */
  receive(data: string | ArrayBuffer): void {
    this.dispatchEvent(new MessageEvent('message', { data }));
  }
}

/** A peer connection whose events the test fires (as DOM events, to whoever listens). */
export class FakePeer extends EventTarget {
  static last: FakePeer | undefined;
  /** Every peer made, oldest first: a reconnect makes a new one. */
  static all: FakePeer[] = [];
  /** The gathering state a new peer starts in: `gathering` keeps it gathering until the test ends it. */
  static gatheringAtStart = 'complete';
  connectionState = 'new';
  iceGatheringState = FakePeer.gatheringAtStart;
  localDescription: { type: string; sdp: string } | null = null;
  readonly channel = new FakeChannel();
  /** The `frames` channel, when the transport opened one (client rendering). */
  frames: FakeChannel | undefined;
  /** The kinds of the transceivers the offer has (`video`, `audio`). */
  readonly transceivers: string[] = [];
  closed = false;
  constructor(readonly config: unknown) {
    super();
    FakePeer.last = this;
    FakePeer.all.push(this);
  }
  addTransceiver(kind: string): void {
    this.transceivers.push(kind);
  }
  createDataChannel(label: string, init?: RTCDataChannelInit): FakeChannel {
    const channel = label === FRAMES_CHANNEL_LABEL ? (this.frames = new FakeChannel()) : this.channel;
    channel.init = init;
    return channel;
  }
  createOffer(): Promise<{ type: string; sdp: string }> {
    return Promise.resolve({ type: 'offer', sdp: 'v=0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n' });
  }
  setLocalDescription(d: { type: string; sdp: string }): Promise<void> {
    this.localDescription = d;
    return Promise.resolve();
  }
  setRemoteDescription(): Promise<void> {
    return Promise.resolve();
  }
  /** What getStats() answers; a test puts inbound-rtp entries here. */
  stats = new Map<string, unknown>();
  getStats(): Promise<Map<string, unknown>> {
    return Promise.resolve(this.stats);
  }
  close(): void {
    this.closed = true;
  }
  /** Test hook: move the connection state (fired even after close, as a late event would be). */
  set(state: string): void {
    this.connectionState = state;
    this.dispatchEvent(new Event('connectionstatechange'));
  }
  /** Test hook: ICE found a candidate. */
  candidate(candidate: { candidate: string; sdpMid: string }): void {
    this.dispatchEvent(Object.assign(new Event('icecandidate'), { candidate }));
  }
}

/** A stream without tracks: the speech fallback finds no audio to listen to. */
export class FakeMediaStream {
  getAudioTracks(): unknown[] {
    return [];
  }
  addTrack(): void {}
}

/** A fetch that records each call and answers it from `route`. */
export function fakeFetch(
  route: Handler,
  calls: Call[],
): (url: string, init?: RequestInit) => Promise<Response> {
  return (url: string, init: RequestInit = {}) => {
    const headers = Object.fromEntries(
      Object.entries((init.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]),
    );
    const call: Call = {
      method: init.method ?? 'GET',
      url: String(url),
      body: typeof init.body === 'string' ? init.body : undefined,
      headers,
    };
    calls.push(call);
    const aborted = new Promise<never>((_, reject) => {
      const signal = init.signal;
      if (!signal) return;
      const fail = (): void => reject(new DOMException('The operation was aborted', 'AbortError'));
      if (signal.aborted) fail();
      else signal.addEventListener('abort', fail, { once: true });
    });
    return Promise.race([Promise.resolve(route(call)), aborted]).then((r) => {
      const h = new Map(Object.entries(r.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
      return {
        ok: r.status >= 200 && r.status < 300,
        status: r.status,
        headers: { get: (k: string) => h.get(k.toLowerCase()) ?? null },
        json: () => Promise.resolve(r.body ?? {}),
        arrayBuffer: () =>
          Promise.resolve(
            r.body instanceof ArrayBuffer ? r.body : new TextEncoder().encode(String(r.body)).buffer,
          ),
        text: () => Promise.resolve(typeof r.body === 'string' ? r.body : JSON.stringify(r.body ?? {})),
      } as unknown as Response;
    });
  };
}

/**
 * A 2D context that takes every call: each method answers another such object (a gradient, a
 * path), properties are kept. `calls` counts the calls made on it and what it made.
 */
export function permissiveContext(counter: { calls: number }): unknown {
  const target: Record<string | symbol, unknown> = {};
  return new Proxy(target, {
    get(t, k) {
      if (k in t) return t[k];
      if (k === 'then') return undefined;
      return () => {
        counter.calls++;
        return permissiveContext(counter);
      };
    },
  });
}

/** A <canvas> or OffscreenCanvas with a size and a permissive 2D context. */
/** A <canvas>: an EventTarget (its context's loss and restoration are dispatched on it). */
export class FakeCanvas extends EventTarget {
  /** The page's canvases (document.createElement), newest last. */
  static elements: FakeCanvas[] = [];
  /** Calls made on this canvas's context (something was drawn). */
  readonly counter = { calls: 0 };
  width: number;
  height: number;
  readonly style: Record<string, string> = {};
  isConnected = false;
  readonly #ctx = permissiveContext(this.counter);
  constructor(width = 300, height = 150) {
    super();
    this.width = width;
    this.height = height;
  }
  getContext(): unknown {
    return this.#ctx;
  }
  remove(): void {
    this.isConnected = false;
  }
}

/** An <audio> element: play() resolves, srcObject is kept. */
export class FakeAudio {
  autoplay = false;
  muted = false;
  srcObject: unknown = null;
  play(): Promise<void> {
    return Promise.resolve();
  }
  remove(): void {}
}

export function installFakeBrowser(route: Handler): { calls: Call[] } {
  const calls: Call[] = [];
  FakePeer.all = [];
  FakePeer.gatheringAtStart = 'complete';
  FakeCanvas.elements = [];
  vi.stubGlobal('fetch', fakeFetch(route, calls));
  vi.stubGlobal('RTCPeerConnection', FakePeer);
  vi.stubGlobal('MediaStream', FakeMediaStream);
  vi.stubGlobal('window', { addEventListener: vi.fn(), removeEventListener: vi.fn() });
  vi.stubGlobal(
    'document',
    Object.assign(new EventTarget(), {
      getElementById: () => null,
      visibilityState: 'visible',
      createElement: (tag: string) => {
        if (tag !== 'canvas') return new FakeAudio();
        const canvas = new FakeCanvas();
        FakeCanvas.elements.push(canvas);
        return canvas;
      },
    }),
  );
  vi.stubGlobal('OffscreenCanvas', FakeCanvas);
  vi.stubGlobal('ImageData', class {});
  vi.stubGlobal('requestAnimationFrame', (fn: FrameRequestCallback) =>
    setTimeout(() => fn(performance.now()), 16),
  );
  vi.stubGlobal('cancelAnimationFrame', (id: ReturnType<typeof setTimeout>) => clearTimeout(id));
  return { calls };
}
