/**
 * Just enough of a browser for AvatarSession unit tests in Node: a fetch router that records
 * calls, an RTCPeerConnection whose state the test drives, MediaStream, window and document.
 */
import { vi } from 'vitest';

export interface Call {
  method: string;
  url: string;
  body: string | undefined;
  headers: Record<string, string>;
}

interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The fake server: an answer now, or a promise of one (an answer that takes its time). */
type Handler = (call: Call) => Answer | Promise<Answer>;

export class FakePeer {
  static last: FakePeer | undefined;
  connectionState = 'new';
  iceGatheringState = 'complete';
  localDescription: { type: string; sdp: string } | null = null;
  onconnectionstatechange: (() => void) | null = null;
  onicecandidate: ((e: { candidate: unknown }) => void) | null = null;
  ontrack: ((e: { track: unknown }) => void) | null = null;
  channel = {
    readyState: 'open',
    sent: [] as string[],
    send(m: string) {
      this.sent.push(m);
    },
    close() {},
    addEventListener() {},
    onmessage: null as null | ((e: { data: string }) => void),
  };
  closed = false;
  constructor(readonly config: unknown) {
    FakePeer.last = this;
  }
  addTransceiver(): void {}
  createDataChannel(): FakePeer['channel'] {
    return this.channel;
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
  addEventListener(): void {}
  getStats(): Promise<Map<string, unknown>> {
    return Promise.resolve(new Map<string, unknown>());
  }
  close(): void {
    this.closed = true;
  }
  /** Test hook: move the connection state. */
  set(state: string): void {
    this.connectionState = state;
    this.onconnectionstatechange?.();
  }
}

export function installFakeBrowser(route: Handler): { calls: Call[] } {
  const calls: Call[] = [];
  vi.stubGlobal('fetch', (url: string, init: RequestInit = {}) => {
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
    return Promise.resolve(route(call)).then((r) => {
      const h = new Map(Object.entries(r.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
      return {
        ok: r.status >= 200 && r.status < 300,
        status: r.status,
        headers: { get: (k: string) => h.get(k.toLowerCase()) ?? null },
        json: () => Promise.resolve(r.body ?? {}),
        text: () => Promise.resolve(typeof r.body === 'string' ? r.body : JSON.stringify(r.body ?? {})),
      };
    });
  });
  vi.stubGlobal('RTCPeerConnection', FakePeer);
  vi.stubGlobal(
    'MediaStream',
    class {
      getAudioTracks() {
        return [];
      }
      addTrack() {}
    },
  );
  vi.stubGlobal('window', { addEventListener: vi.fn(), removeEventListener: vi.fn() });
  vi.stubGlobal('document', { getElementById: () => null });
  return { calls };
}
