import { describe, expect, it } from 'vitest';
import { CodedError } from '@mouthpiece/protocol';
import { AudioValidationError } from './audio/wav.js';
import { AvatarPackError } from './avatar/manifest.js';
import { PhotoImportError } from './avatar/photo-import-errors.js';
import { EngineError } from './contract/types.js';
import { LocalModelError } from './speech/local-model.js';
import { LocalVoiceUnusable } from './speech/local-probe.js';
import { ProviderError } from './speech/provider.js';
import { LocalProcessEnded } from './speech/providers/local.js';
import { NoReadingError } from './speech/router.js';
import { AbortedError } from './speech/synthesis-scheduler.js';
import { VideoEncodeError } from './video/browser-video.js';
import { ClipUnreadableError, FfmpegMissingError } from './video/clip-probe.js';
import { VideoImportError } from './video/import-errors.js';

// Every error class the engine throws, one made of each: protocol's CodedError shape (coded-error.ts).
const made: Array<[typeof CodedError, CodedError, string]> = [
  [AudioValidationError, new AudioValidationError('short'), 'AudioValidationError'],
  [AvatarPackError, new AvatarPackError('bad'), 'AvatarPackError'],
  [PhotoImportError, new PhotoImportError('no_face', 'none'), 'PhotoImportError'],
  [EngineError, new EngineError('not_found', 'gone'), 'EngineError'],
  [LocalModelError, new LocalModelError('/m', 'missing'), 'LocalModelError'],
  [LocalVoiceUnusable, new LocalVoiceUnusable('v', '/m', 'why'), 'LocalVoiceUnusable'],
  [ProviderError, new ProviderError('openai', 'timeout', 'slow'), 'ProviderError'],
  [LocalProcessEnded, new LocalProcessEnded('SIGABRT'), 'LocalProcessEnded'],
  [NoReadingError, new NoReadingError('xx'), 'NoReadingError'],
  [AbortedError, new AbortedError(), 'AbortError'],
  [VideoEncodeError, new VideoEncodeError('vp9'), 'VideoEncodeError'],
  [ClipUnreadableError, new ClipUnreadableError('no video'), 'ClipUnreadableError'],
  [FfmpegMissingError, new FfmpegMissingError(), 'FfmpegMissingError'],
  [VideoImportError, new VideoImportError('too_short', 'short'), 'VideoImportError'],
];
/** Classes whose instances carry a finer code than their class's. */
const finer = new Map<unknown, string>([
  [PhotoImportError, 'no_face'],
  [EngineError, 'not_found'],
  [VideoImportError, 'too_short'],
]);

describe('engine error classes', () => {
  it.each(made)('%o is a CodedError with its own static code and its name', (cls, err, name) => {
    expect(err).toBeInstanceOf(CodedError);
    expect(err).toBeInstanceOf(cls);
    expect(cls.code).toMatch(/^ERR_[A-Z_]+$/);
    expect(cls.code).not.toBe(CodedError.code);
    expect(err.code).toBe(finer.get(cls) ?? cls.code);
    expect(err.name).toBe(name);
  });

  it('no two classes share a code', () => {
    const codes = made.map(([cls]) => cls.code);
    expect(new Set(codes).size).toBe(codes.length);
  });
});
