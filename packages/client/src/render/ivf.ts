/**
 * IVF, the container of a video avatar's frames encoded for browsers (base.ivf, mouths.ivf:
 * packages/engine/src/video/browser-video.ts writes them with ffmpeg; docs/design.md §13.6). A
 * 32-byte file header — "DKIF", version, header size, the codec's FourCC, width, height, time
 * base, frame count — then per frame a 12-byte header (size u32, timestamp u64) and the frame.
 * Little-endian throughout. The frames are views of the file's bytes, not copies.
 */
import { CodedError } from '@mouthpiece/protocol';

export interface IvfFrame {
  /** The coded frame (a view into the file). */
  data: Uint8Array;
  /** In the header's time base. */
  timestamp: number;
}

export interface IvfFile {
  /** "VP90" for VP9. */
  fourcc: string;
  width: number;
  height: number;
  frames: IvfFrame[];
}

/** Why bytes are not an IVF file this SDK reads. */
export class IvfError extends CodedError {
  static override code = 'ERR_IVF';
  constructor(message: string) {
    super(message);
    this.name = 'IvfError';
  }
}

const FILE_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 12;

/** Parses an IVF file; throws IvfError on a wrong signature, a short header or a truncated frame. */
export function parseIvf(bytes: ArrayBuffer | Uint8Array): IvfFile {
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  const view = new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
  if (u8.length < FILE_HEADER_BYTES || ascii(u8, 0) !== 'DKIF') throw new IvfError('not an IVF file');
  const headerBytes = view.getUint16(6, true);
  if (headerBytes < FILE_HEADER_BYTES || headerBytes > u8.length)
    throw new IvfError(`an IVF header of ${headerBytes} bytes`);
  const width = view.getUint16(12, true);
  const height = view.getUint16(14, true);
  if (width === 0 || height === 0) throw new IvfError(`an IVF picture of ${width}×${height}`);
  const frames: IvfFrame[] = [];
  let at = headerBytes;
  while (at < u8.length) {
    if (at + FRAME_HEADER_BYTES > u8.length) throw new IvfError(`a truncated frame header at byte ${at}`);
    const size = view.getUint32(at, true);
    const timestamp = view.getUint32(at + 4, true) + view.getUint32(at + 8, true) * 2 ** 32;
    const start = at + FRAME_HEADER_BYTES;
    if (size === 0 || start + size > u8.length)
      throw new IvfError(`frame ${frames.length}: ${size} bytes at byte ${start} of ${u8.length}`);
    frames.push({ data: u8.subarray(start, start + size), timestamp });
    at = start + size;
  }
  return { fourcc: ascii(u8, 8), width, height, frames };
}

/**
 * Whether a VP9 frame is a key frame, from its uncompressed header's first bits (VP9 bitstream
 * §6.2: frame_marker 2 bits, profile 2 bits, a reserved bit in profile 3, show_existing_frame,
 * frame_type 0 = key). A shown-again frame is not a key frame.
 */
export function isVp9KeyFrame(frame: Uint8Array): boolean {
  const b = frame[0];
  if (b === undefined || b >> 6 !== 2) return false;
  const profile = ((b >> 5) & 1) | (((b >> 4) & 1) << 1);
  let bit = profile === 3 ? 2 : 3; // the next bit's position, counted down from bit 3
  if ((b >> bit) & 1) return false; // show_existing_frame
  bit--;
  return ((b >> bit) & 1) === 0;
}

function ascii(u8: Uint8Array, at: number): string {
  return String.fromCharCode(u8[at]!, u8[at + 1]!, u8[at + 2]!, u8[at + 3]!);
}
