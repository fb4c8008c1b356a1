/** Why a clip was refused by the video import, with a message that says what to do. */
import { CodedError } from '@mouthpiece/protocol';
export const VideoImportErrorCode = {
  not_a_video: 'not_a_video',
  broken_file: 'broken_file',
  too_short: 'too_short',
  too_long: 'too_long',
  too_large: 'too_large',
  no_face: 'no_face',
  several_faces: 'several_faces',
  face_too_small: 'face_too_small',
  face_away: 'face_away',
  face_covered: 'face_covered',
  ffmpeg_missing: 'ffmpeg_missing',
  invalid_manifest: 'invalid_manifest',
  exists: 'exists',
} as const;
export type VideoImportErrorCode = (typeof VideoImportErrorCode)[keyof typeof VideoImportErrorCode];

export class VideoImportError extends CodedError {
  static override code = 'ERR_VIDEO_IMPORT';
  override readonly code: VideoImportErrorCode;
  constructor(code: VideoImportErrorCode, message: string) {
    super(message);
    this.name = 'VideoImportError';
    this.code = code;
  }
}

/** Limits of what a clip may be (docs/avatars.md "Video avatars"). */
export const VIDEO_LIMITS = {
  maxBytes: 200 * 1024 * 1024,
  minSeconds: 20,
  maxSeconds: 180,
  /** Jaw width (landmark 0 to 16) in the clip's pixels. */
  minFacePx: 128,
  /** At least this fraction of the clip must show the face, frontal and tracked. */
  minTrackedFraction: 0.5,
  /** Side of the stored base frames (the face is about 40 % of it). */
  framePx: 512,
  fps: 25,
  /** The mouth library holds at most this many crops (longer clips are sampled evenly). */
  maxLibrary: 1500,
  previewPx: 256,
} as const;
