/**
 * What a new session may be made of: an avatar that exists, a background only where the avatar's
 * renderer can draw one, a voice that is listed (or, with ElevenLabs configured, shaped like an
 * ElevenLabs voice id). One check for both planes: the server answers a create with it
 * (routes/create-session.ts) and the engine process checks the same against its own packs
 * (engine/src/process/engine-main.ts), which a pack removed in between can make differ.
 */
import { ERROR_MESSAGE } from './errors.js';

/** ElevenLabs voice ids are 20 letters and digits; anything of this shape is tried as one. */
export const ELEVENLABS_VOICE_ID = /^[A-Za-z0-9]{16,40}$/;

/** Renderers that cannot replace the avatar's background, and why. */
const NO_BACKGROUND: Readonly<Record<string, string>> = {
  photo: 'no person-segmentation model ships with Mouthpiece',
  video: 'no person-segmentation model ships with Mouthpiece',
};

export interface SessionChoices {
  avatarId: string;
  voiceId: string;
  background?: string | undefined;
}

/** What the check needs to know of the avatars and voices there are. */
export interface ChoiceCatalog {
  /** The avatar with this id and its renderer (`vector` when absent), undefined when there is none. */
  findAvatar(avatarId: string): { render?: string | undefined } | undefined;
  /** Whether this voice is listed. */
  hasVoice(voiceId: string): boolean;
  /** Whether an unlisted id shaped like an ElevenLabs voice id is tried (ElevenLabs configured). */
  triesUnlistedVoices: boolean;
}

export type ChoiceCheck =
  { ok: true } | { ok: false; code: 'UNKNOWN_AVATAR' | 'UNKNOWN_VOICE' | 'INVALID_REQUEST'; message: string };

export function checkSessionChoices(choices: SessionChoices, catalog: ChoiceCatalog): ChoiceCheck {
  const avatar = catalog.findAvatar(choices.avatarId);
  if (avatar === undefined)
    return { ok: false, code: 'UNKNOWN_AVATAR', message: ERROR_MESSAGE.UNKNOWN_AVATAR };
  const render = avatar.render ?? 'vector';
  const why = NO_BACKGROUND[render];
  if (choices.background && why !== undefined)
    return {
      ok: false,
      code: 'INVALID_REQUEST',
      message: `Invalid field "visualConfig.background": not available for ${render} avatars (${why}); use a vector or sprite avatar, or leave it out`,
    };
  if (!voiceKnown(choices.voiceId, catalog))
    return { ok: false, code: 'UNKNOWN_VOICE', message: ERROR_MESSAGE.UNKNOWN_VOICE };
  return { ok: true };
}

/** A listed voice, or an unlisted one tried as an ElevenLabs voice id (docs/voices.md). */
export function voiceKnown(voiceId: string, catalog: Omit<ChoiceCatalog, 'findAvatar'>): boolean {
  return catalog.hasVoice(voiceId) || (catalog.triesUnlistedVoices && ELEVENLABS_VOICE_ID.test(voiceId));
}
