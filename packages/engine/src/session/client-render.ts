/**
 * What a viewer is told when its offer asks to draw the avatar itself (no video m-line) and the
 * operator does not let browsers draw this kind of avatar (MOUTHPIECE_CLIENT_RENDER, docs/design.md
 * §13.7): it gets the session's audio alone, and this one `notice` when its events channel opens.
 */
import { NOTICE_CODE, type ServerMessage } from '@mouthpiece/protocol';

export function clientRenderUnavailable(avatarKind: string): ServerMessage {
  return {
    type: 'notice',
    code: NOTICE_CODE.CLIENT_RENDER_UNAVAILABLE,
    message:
      `This server does not let browsers draw ${avatarKind} avatars (MOUTHPIECE_CLIENT_RENDER), so this ` +
      "viewer gets audio only; connect with render: 'video' to see the avatar.",
  };
}
