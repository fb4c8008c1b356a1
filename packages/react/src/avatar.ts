/**
 * `<Avatar>`: the avatar's video (or canvas, with `render: 'client'`) in a box. Give it a session
 * to open (`baseUrl` + `sessionId` + `viewerToken` or `token`) and it opens it on mount and
 * disconnects on unmount (the session lives on); or give it a `session` the app manages (from
 * `useAvatarSession`, say) and it shows that one.
 */
import type { AvatarSession } from '@mouthpiece/client';
import { createElement, useEffect, useId, type CSSProperties, type ReactNode } from 'react';
import { useAvatarSession, type UseAvatarSessionOptions } from './use-avatar-session.js';

export interface AvatarProps extends Omit<UseAvatarSessionOptions, 'videoContainerId'> {
  className?: string;
  /** The box's style; the video fills it (100 % × 100 %). */
  style?: CSSProperties;
  /** Drawn over the video (captions, a poster, controls). */
  children?: ReactNode;
}

export function Avatar({ className, style, children, ...options }: AvatarProps): ReactNode {
  const containerId = `mouthpiece-${useId().replace(/[^A-Za-z0-9_-]/g, '')}`;
  const view = useAvatarSession({
    ...options,
    ...(options.session ? {} : { videoContainerId: containerId }),
  });
  useEffect(
    () => (options.session ? showWhenReady(options.session, containerId) : undefined),
    [options.session, containerId],
  );
  return createElement(
    'div',
    {
      className,
      style: { position: 'relative', ...style },
      'data-state': view.state,
      'data-connection': view.connection,
      'data-speaking': view.speaking ? 'true' : 'false',
    },
    createElement('div', { id: containerId, style: { position: 'absolute', inset: 0 } }),
    children,
  );
}

/** Puts an app-managed session's video into the box now, or once the session is READY. */
function showWhenReady(session: AvatarSession, containerId: string): () => void {
  if (session.getSessionState() === 'READY') {
    session.attachVideo(containerId);
    return () => undefined;
  }
  return session.on('stateChange', (state) => {
    if (state === 'READY') session.attachVideo(containerId);
  });
}
