/**
 * One file of an avatar pack, opened for an answer: never a path outside the pack folder (the
 * name is a plain file name, and the file's real path, links resolved, is directly inside the
 * pack's real folder), a regular file, its size from the opened file (an honest Content-Length),
 * and a strong ETag: a hash of the content, computed once per file version (device, inode, size,
 * mtime) and read through the same descriptor that is then streamed.
 */
import { createHash } from 'node:crypto';
import { open, realpath, type FileHandle } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import type { Readable } from 'node:stream';

export interface PackFileAnswer {
  size: number;
  /** A strong ETag, quoted: `"<hash>"`. */
  etag: string;
  contentType: string;
  /** The content, streamed from the opened file (which it closes at its end). */
  stream(): Readable;
  /** Closes the file when no stream is taken. */
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
};

export function contentTypeOf(name: string): string {
  return CONTENT_TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream';
}

/** The pack file `name` in `dir`, or undefined when it is not a regular file directly inside it. */
export async function openPackFile(dir: string, name: string): Promise<PackFileAnswer | undefined> {
  if (name === '' || name === '.' || name === '..' || basename(name) !== name || name.includes('\0'))
    return undefined;
  let real: string;
  try {
    const [root, file] = await Promise.all([realpath(dir), realpath(join(dir, name))]);
    if (dirname(file) !== root) return undefined;
    real = file;
  } catch {
    return undefined;
  }
  let handle: FileHandle;
  try {
    handle = await open(real, 'r');
  } catch {
    return undefined;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new Error('not a regular file');
    const etag = await contentHash(handle, `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`, st.size);
    const size = st.size;
    return {
      size,
      etag: `"${etag}"`,
      contentType: contentTypeOf(name),
      stream: () => handle.createReadStream({ start: 0, end: Math.max(0, size - 1), autoClose: true }),
      close: () => handle.close(),
    };
  } catch {
    await handle.close();
    return undefined;
  }
}

/** A strong ETag value for bytes held in memory (an answer built here). */
export function bytesEtag(bytes: string | Uint8Array): string {
  return `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
}

const HASH_CACHE_SIZE = 512;
const hashes = new Map<string, Promise<string>>();
const CHUNK = 1 << 20;

function contentHash(handle: FileHandle, version: string, size: number): Promise<string> {
  const known = hashes.get(version);
  if (known) return known;
  const hashing = (async () => {
    const hash = createHash('sha256');
    const buf = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, size)));
    for (let at = 0; at < size;) {
      const { bytesRead } = await handle.read(buf, 0, Math.min(buf.length, size - at), at);
      if (bytesRead === 0) throw new Error('the file shrank while it was read');
      hash.update(buf.subarray(0, bytesRead));
      at += bytesRead;
    }
    return hash.digest('base64url').slice(0, 27);
  })();
  hashes.set(version, hashing);
  hashing.catch(() => hashes.delete(version));
  if (hashes.size > HASH_CACHE_SIZE) hashes.delete(hashes.keys().next().value!);
  return hashing;
}

/** Whether an `If-None-Match` value names this ETag (weak comparison, as RFC 9110 says for it). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const want = etag.replace(/^W\//, '');
  return ifNoneMatch
    .split(',')
    .map((t) => t.trim())
    .some((t) => t === '*' || t.replace(/^W\//, '') === want);
}
