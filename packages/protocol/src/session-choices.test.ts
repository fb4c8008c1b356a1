import { describe, expect, it } from 'vitest';
import { AVATAR_ID_PATTERN, isAvatarId } from './avatar-id.js';
import { ERROR_MESSAGE } from './errors.js';
import { checkSessionChoices, type ChoiceCatalog } from './session-choices.js';

const avatars: Record<string, { render?: string }> = {
  amara: {},
  vec: { render: 'vector' },
  astro: { render: 'photo' },
  talker: { render: 'video' },
  pixel: { render: 'sprites' },
};
const catalog = (triesUnlistedVoices: boolean): ChoiceCatalog => ({
  findAvatar: (id) => avatars[id],
  hasVoice: (id) => id === 'en-us-f',
  triesUnlistedVoices,
});
const ELEVEN_ID = '21m00Tcm4TlvDq8ikWAM';

describe('checkSessionChoices (both planes)', () => {
  it('accepts a known avatar and voice, with a background where the renderer draws one', () => {
    expect(checkSessionChoices({ avatarId: 'amara', voiceId: 'en-us-f' }, catalog(false))).toEqual({
      ok: true,
    });
    for (const avatarId of ['amara', 'vec', 'pixel'])
      expect(
        checkSessionChoices({ avatarId, voiceId: 'en-us-f', background: '#00ff00' }, catalog(false)).ok,
      ).toBe(true);
  });

  it('refuses an unknown avatar, then a background on photo and video avatars, then an unknown voice', () => {
    expect(checkSessionChoices({ avatarId: 'nobody', voiceId: 'nope' }, catalog(false))).toEqual({
      ok: false,
      code: 'UNKNOWN_AVATAR',
      message: ERROR_MESSAGE.UNKNOWN_AVATAR,
    });
    for (const avatarId of ['astro', 'talker']) {
      const c = checkSessionChoices({ avatarId, voiceId: 'en-us-f', background: '#00ff00' }, catalog(false));
      expect(c).toMatchObject({ ok: false, code: 'INVALID_REQUEST' });
      expect(!c.ok && c.message).toMatch(/visualConfig\.background.*not available for (photo|video) avatars/);
    }
    expect(checkSessionChoices({ avatarId: 'amara', voiceId: 'nope' }, catalog(false))).toEqual({
      ok: false,
      code: 'UNKNOWN_VOICE',
      message: ERROR_MESSAGE.UNKNOWN_VOICE,
    });
  });

  it('tries an unlisted voice as an ElevenLabs id only when ElevenLabs is on and the id has its shape', () => {
    expect(checkSessionChoices({ avatarId: 'amara', voiceId: ELEVEN_ID }, catalog(false)).ok).toBe(false);
    expect(checkSessionChoices({ avatarId: 'amara', voiceId: ELEVEN_ID }, catalog(true)).ok).toBe(true);
    for (const voiceId of ['short1234', 'has-dash-in-it-0123456', 'x'.repeat(41)])
      expect(checkSessionChoices({ avatarId: 'amara', voiceId }, catalog(true)).ok).toBe(false);
  });
});

describe('avatar ids', () => {
  it('follow one rule: lower-case letters, digits and dashes, at most 64, not starting with a dash', () => {
    for (const id of ['amara', 'a', '0-x', 'a'.repeat(64)]) expect(isAvatarId(id)).toBe(true);
    for (const id of ['', '-a', 'Amara', 'a_b', 'a/b', '..', 'a'.repeat(65)])
      expect(isAvatarId(id)).toBe(false);
    expect(new RegExp(AVATAR_ID_PATTERN).test('a b')).toBe(false);
  });
});
