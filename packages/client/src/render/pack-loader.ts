/**
 * Loads the session's avatar pack for client rendering (docs/design.md §13.4): the listing
 * (`GET /v1/avatar-session/{id}/avatar`), then each listed file. Files are kept for the page's
 * life by avatar and file name with their ETag (a content hash, the same in every session and on
 * every node), so a later session of the same avatar asks with `If-None-Match` and a 304 reuses
 * the bytes it has. A listing refused with 403 CLIENT_RENDER_DISABLED (the operator does not let
 * browsers draw this kind) rejects with RendererUnavailable('server'); any other failure (a
 * non-2xx answer, the network, a malformed listing) with RendererUnavailable('pack-failed'): the
 * SDK then runs the session as video.
 *
 * A listed file that `encodes` another (a video avatar's base.ivf for base.i420) is taken instead
 * of it when this browser decodes its `codec` (WebCodecs, video-decode.ts): downloaded, decoded
 * into the raw file's bytes, and kept decoded under its own ETag. Any failure there (an answer, a
 * decoder error, a size that is not the raw file's) downloads the raw file instead. So the
 * renderer always gets the raw files' bytes, by their names.
 */
import { ErrorCode, RenderKind } from '@mouthpiece/protocol';
import { RendererUnavailable, type AvatarKind, type LoadedPack, type PackFileEntry } from './types.js';
import { webCodecsDecoder, type FrameDecoder } from './video-decode.js';

/** The fetch the loader uses (the page's, or a test's). */
export type PackFetch = (url: string, init: RequestInit) => Promise<Response>;

interface CachedFile {
  etag: string;
  bytes: ArrayBuffer;
}

const KINDS: readonly string[] = Object.values(RenderKind);

export class PackLoader {
  readonly #fetch: PackFetch;
  /** `avatarId/fileName` → the last bytes seen and their ETag. */
  readonly #files = new Map<string, CachedFile>();

  readonly #decoder: FrameDecoder;
  /** codec → whether the decoder takes it (asked once a page). */
  readonly #supported = new Map<string, Promise<boolean>>();

  constructor(
    fetchImpl: PackFetch = (url, init) => fetch(url, init),
    decoder: FrameDecoder = webCodecsDecoder,
  ) {
    this.#fetch = fetchImpl;
    this.#decoder = decoder;
  }

  /** The pack of session `sessionId`, authorised by its token; rejects with RendererUnavailable. */
  async load(baseUrl: string, sessionId: string, token: string): Promise<LoadedPack> {
    const base = baseUrl.replace(/\/+$/, '');
    const auth = { Authorization: `Bearer ${token}` };
    try {
      const res = await this.#fetch(`${base}/v1/avatar-session/${encodeURIComponent(sessionId)}/avatar`, {
        headers: auth,
      });
      if (!res.ok) throw await refused(res);
      const listing = parseListing(await res.json());
      const bytes = new Map<string, ArrayBuffer>();
      const encoded = await this.#decodable(listing.files);
      await Promise.all(
        listing.files.map(async (f) => {
          if (f.encodes !== undefined) return; // taken with the raw file it encodes
          const alt = encoded.get(f.name);
          const decoded = alt && (await this.#decoded(base, listing.id, alt, f, auth).catch(() => undefined));
          bytes.set(f.name, decoded ?? (await this.#file(base, listing.id, f, auth)));
        }),
      );
      return { ...listing, bytes };
    } catch (err) {
      if (err instanceof RendererUnavailable) throw err;
      throw failed(
        `the avatar pack could not be loaded (${err instanceof Error ? err.message : String(err)})`,
      );
    }
  }

  /** raw file name → the listed file encoding it, for each one this browser decodes. */
  async #decodable(files: PackFileEntry[]): Promise<Map<string, PackFileEntry>> {
    const chosen = new Map<string, PackFileEntry>();
    for (const f of files) {
      if (f.encodes === undefined || f.codec === undefined) continue;
      if (!files.some((raw) => raw.name === f.encodes && raw.encodes === undefined)) continue;
      let ok = this.#supported.get(f.codec);
      if (!ok) this.#supported.set(f.codec, (ok = this.#decoder.supports(f.codec).catch(() => false)));
      if (await ok) chosen.set(f.encodes, f);
    }
    return chosen;
  }

  /** The encoded file `alt` decoded into the bytes of `raw`; rejects on any failure. */
  #decoded(
    base: string,
    avatarId: string,
    alt: PackFileEntry,
    raw: PackFileEntry,
    auth: Record<string, string>,
  ): Promise<ArrayBuffer> {
    return this.#file(base, avatarId, alt, auth, async (encoded) => {
      const bytes = await this.#decoder.decode(encoded, alt.codec!);
      if (bytes.byteLength !== raw.bytes)
        throw failed(`${alt.name} decodes to ${bytes.byteLength} bytes, not ${raw.name}'s ${raw.bytes}`);
      return bytes;
    });
  }

  /** A file's bytes (after `transform`, which is what is kept), revalidated by its ETag. */
  async #file(
    base: string,
    avatarId: string,
    f: PackFileEntry,
    auth: Record<string, string>,
    transform?: (body: ArrayBuffer) => Promise<ArrayBuffer>,
  ): Promise<ArrayBuffer> {
    const key = `${avatarId}/${f.name}`;
    const cached = this.#files.get(key);
    const res = await this.#fetch(`${base}${f.url}`, {
      headers: cached ? { ...auth, 'If-None-Match': cached.etag } : auth,
    });
    if (res.status === 304 && cached) return cached.bytes;
    if (!res.ok) throw failed(`the avatar pack's file ${f.name} answered ${res.status}`);
    const body = await res.arrayBuffer();
    const bytes = transform ? await transform(body) : body;
    this.#files.set(key, { etag: res.headers.get('ETag') ?? f.etag, bytes });
    return bytes;
  }
}

/** The page's loader: packs are kept across the sessions of the page. */
export const pagePackLoader = new PackLoader();

function failed(message: string): RendererUnavailable {
  return new RendererUnavailable('pack-failed', message);
}

/** Why the listing was refused: the operator's CLIENT_RENDER_DISABLED is the server's choice. */
async function refused(res: Response): Promise<RendererUnavailable> {
  const body = (await res.json().catch(() => undefined)) as { code?: unknown; error?: unknown } | undefined;
  if (res.status === 403 && body?.code === ErrorCode.CLIENT_RENDER_DISABLED)
    return new RendererUnavailable(
      'server',
      typeof body.error === 'string' ? body.error : 'this server does not let browsers draw this avatar',
    );
  return failed(`the avatar pack's listing answered ${res.status}`);
}

/** The listing's `avatar`, checked enough to be used safely. */
function parseListing(body: unknown): Omit<LoadedPack, 'bytes'> {
  const a = (body as { avatar?: unknown } | null)?.avatar as Record<string, unknown> | undefined;
  if (
    !a ||
    typeof a['id'] !== 'string' ||
    typeof a['render'] !== 'string' ||
    typeof a['manifest'] !== 'object' ||
    a['manifest'] === null ||
    !Array.isArray(a['files'])
  )
    throw failed("the avatar pack's listing is not one this SDK reads");
  if (!KINDS.includes(a['render']))
    throw new RendererUnavailable(
      'unsupported-kind',
      `this SDK does not draw ${a['render']} avatars in the browser; the server sends video`,
    );
  const files = (a['files'] as unknown[]).map((f): PackFileEntry => {
    const e = f as Record<string, unknown>;
    if (typeof e['name'] !== 'string' || typeof e['url'] !== 'string' || !e['url'].startsWith('/'))
      throw failed("the avatar pack's listing names a file without a name or a server path");
    return {
      name: e['name'],
      role: typeof e['role'] === 'string' ? e['role'] : '',
      url: e['url'],
      bytes: typeof e['bytes'] === 'number' ? e['bytes'] : 0,
      contentType: typeof e['contentType'] === 'string' ? e['contentType'] : 'application/octet-stream',
      etag: typeof e['etag'] === 'string' ? e['etag'] : '',
      ...(typeof e['encodes'] === 'string' && typeof e['codec'] === 'string'
        ? { encodes: e['encodes'], codec: e['codec'] }
        : {}),
    };
  });
  return {
    id: a['id'],
    render: a['render'] as AvatarKind,
    manifest: a['manifest'] as Record<string, unknown>,
    files,
    ...(typeof a['background'] === 'string' && /^#[0-9a-f]{6}$/i.test(a['background'])
      ? { background: a['background'] }
      : {}),
  };
}
