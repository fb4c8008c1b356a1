/**
 * ClientRender.open on the fake browser: the session's background from the pack listing reaches
 * the kind's renderer factory, and a listing without one passes none; the output latency is read
 * from the connection's media-playout stats, and an AudioContext is asked only where they lack it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { MediaLink } from '../media-link.js';
import { fakeFetch, installFakeBrowser, type Call } from '../testing/fake-browser.js';
import { AUDIO_STATS_EVERY_MS, ClientRender, type ClientRenderOptions } from './client-render.js';
import { PackLoader } from './pack-loader.js';
import type { AvatarKind, BrowserRenderer, RendererFactory } from './types.js';

const BASE = 'http://mp.test';

/** A session's media link with no connection events, whose stats are these. */
const mediaLink = (stats: MediaLink['stats']): MediaLink => ({
  on: () => () => undefined,
  drawn: () => undefined,
  stats,
});

/** A listing of a vector avatar (no files), with the session's background when given. */
const listing = (background?: string) => () => ({
  status: 200,
  body: {
    success: true,
    avatar: { id: 'amara', render: 'vector', manifest: { id: 'amara' }, files: [], background },
  },
});

/** Opens client rendering with a vector factory that records the options it was given. */
async function openWith(
  route: (call: Call) => { status: number; body?: unknown },
  more: Partial<ClientRenderOptions> = {},
) {
  installFakeBrowser(() => ({ status: 404 }));
  const seen: Array<{ background?: string }> = [];
  const renderer: BrowserRenderer = {
    resize: () => undefined,
    draw: () => undefined,
    restore: () => undefined,
    close: () => undefined,
  };
  const vector: RendererFactory = (_pack, _canvas, opts) => {
    seen.push(opts);
    return Promise.resolve(renderer);
  };
  const renderers: Record<AvatarKind, RendererFactory | undefined> = {
    vector,
    sprites: undefined,
    photo: undefined,
    video: undefined,
  };
  const render = await ClientRender.open({
    baseUrl: BASE,
    sessionId: 'S',
    token: 't',
    contextGaveUp: () => undefined,
    autoplayBlocked: () => undefined,
    link: mediaLink(() => undefined),
    loader: new PackLoader(fakeFetch(route, [])),
    renderers,
    ...more,
  });
  if (!more.link) render.close();
  return { pack: render.pack, seen, render };
}

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('ClientRender.open', () => {
  it("passes the session's background from the pack listing to the renderer factory", async () => {
    const { pack, seen } = await openWith(listing('#1e90ff'));
    expect(pack.background).toBe('#1e90ff');
    expect(seen).toEqual([{ background: '#1e90ff' }]);
  });

  it('passes none when the session has none, or when the listing carries something else', async () => {
    for (const background of [undefined, 'red; url(x)', '#12345']) {
      const { pack, seen } = await openWith(listing(background));
      expect(pack.background).toBeUndefined();
      expect(seen).toEqual([{}]);
    }
  });

  it("takes its media from the session's link: subscribes to streams and frames, and lets go on close", async () => {
    const listening = new Map<string, number>();
    const link: MediaLink = {
      on: (event) => {
        listening.set(event, (listening.get(event) ?? 0) + 1);
        return () => listening.set(event, listening.get(event)! - 1);
      },
      drawn: () => undefined,
      stats: () => undefined,
    };
    const { render } = await openWith(listing(), { link });
    expect(Object.fromEntries(listening)).toEqual({ opened: 1, animation: 1 });
    render.close(); // a closed renderer hears nothing more of the link (a fallback to video, a teardown)
    expect(Object.fromEntries(listening)).toEqual({ opened: 0, animation: 0 });
  });

  it('reads the output latency from media-playout stats; without them it asks one AudioContext', async () => {
    vi.useFakeTimers();
    const inbound = {
      type: 'inbound-rtp',
      kind: 'audio',
      jitterBufferDelay: 1,
      jitterBufferEmittedCount: 48,
    };
    const playout = { id: 'AP', type: 'media-playout', totalPlayoutDelay: 1.44, totalSamplesCount: 48 };
    for (const entries of [[{ ...inbound, playoutId: 'AP' }, playout], [inbound]]) {
      const contexts: string[] = [];
      const { render } = await openWith(listing(), {
        link: mediaLink(() =>
          Promise.resolve({ forEach: (fn: (s: unknown) => void) => entries.forEach(fn) } as RTCStatsReport),
        ),
        audioContext: () => {
          contexts.push('made');
          return undefined;
        },
      });
      await vi.advanceTimersByTimeAsync(4 * AUDIO_STATS_EVERY_MS);
      render.close();
      expect(contexts).toEqual(entries.length === 2 ? [] : ['made']);
    }
  });
});
