/**
 * ClientRender.open on the fake browser: the session's background from the pack listing reaches
 * the kind's renderer factory, and a listing without one passes none.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeFetch, installFakeBrowser, type Call } from '../testing/fake-browser.js';
import { ClientRender } from './client-render.js';
import { PackLoader } from './pack-loader.js';
import type { AvatarKind, BrowserRenderer, RendererFactory } from './types.js';

const BASE = 'http://mp.test';

/** A listing of a vector avatar (no files), with the session's background when given. */
const listing = (background?: string) => () => ({
  status: 200,
  body: {
    success: true,
    avatar: { id: 'amara', render: 'vector', manifest: { id: 'amara' }, files: [], background },
  },
});

/** Opens client rendering with a vector factory that records the options it was given. */
async function openWith(route: (call: Call) => { status: number; body?: unknown }) {
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
    firstDraw: () => undefined,
    contextGaveUp: () => undefined,
    autoplayBlocked: () => undefined,
    stats: () => undefined,
    loader: new PackLoader(fakeFetch(route, [])),
    renderers,
  });
  render.close();
  return { pack: render.pack, seen };
}

afterEach(() => vi.unstubAllGlobals());

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
});
