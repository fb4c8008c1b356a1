import { open } from 'node:fs/promises';

/**
 * Whether bytes begin like a video container Mouthpiece imports: ISO base media (MP4, MOV,
 * 3GP: a `ftyp`, `moov`, `mdat`, `wide` or `free` box first) or Matroska/WebM (EBML magic).
 * Decided by content, never by a file name.
 */
export function looksLikeVideo(head: Uint8Array): boolean {
  if (head.length >= 4 && head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3)
    return true;
  if (head.length < 8) return false;
  const box = String.fromCharCode(head[4]!, head[5]!, head[6]!, head[7]!);
  return ['ftyp', 'moov', 'mdat', 'wide', 'free', 'skip'].includes(box);
}

/** Whether a file begins like a video (its first 16 bytes, by looksLikeVideo). */
export async function fileLooksLikeVideo(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const head = new Uint8Array(16);
    const { bytesRead } = await fh.read(head, 0, 16, 0);
    return looksLikeVideo(head.subarray(0, bytesRead));
  } finally {
    await fh.close();
  }
}
