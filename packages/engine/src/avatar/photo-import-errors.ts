/**
 * What a portrait may be and why one was refused: no native module here, so the server and the CLI
 * map a refusal to their answers while the import itself runs in its own process.
 */
import { CodedError } from '@mouthpiece/protocol';

/** Limits of what an upload may be. */
export const PHOTO_LIMITS = {
  maxBytes: 20 * 1024 * 1024,
  maxSidePx: 4096,
  /** Jaw width (landmark 0 to 16) in the uploaded image's pixels. */
  minFacePx: 128,
  /** The stored portrait's side at most (the crop is scaled down to it). */
  portraitPx: 1024,
  previewPx: 256,
  /** Faces are looked for in a copy whose longer side is at most this. */
  detectPx: 1024,
} as const;

export const PhotoImportErrorCode = {
  not_an_image: 'not_an_image',
  image_too_large: 'image_too_large',
  no_face: 'no_face',
  face_too_small: 'face_too_small',
  several_faces: 'several_faces',
  invalid_manifest: 'invalid_manifest',
  exists: 'exists',
} as const;
export type PhotoImportErrorCode = (typeof PhotoImportErrorCode)[keyof typeof PhotoImportErrorCode];

export class PhotoImportError extends CodedError {
  static override code = 'ERR_PHOTO_IMPORT';
  override readonly code: PhotoImportErrorCode;
  constructor(code: PhotoImportErrorCode, message: string) {
    super(message);
    this.name = 'PhotoImportError';
    this.code = code;
  }
}

export interface PhotoImportRequest {
  id: string;
  name: string;
  description?: string | undefined;
  image: Uint8Array;
}
