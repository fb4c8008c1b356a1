/**
 * `useAvatarSession(options)`: an AvatarSession for as long as the component is mounted, with its
 * state as React state. StrictMode-safe: see session-lifecycle.ts (an unmount disconnects — the
 * session lives on the server — and a remount opens it again; the double mount of development
 * makes one WHEP connection, not two).
 */
import { AvatarSession, type AvatarSessionCallbacks, type AvatarSessionConfig } from '@mouthpiece/client';
import { useEffect, useRef, useState } from 'react';
import { follow, openSession, type SessionView } from './session-lifecycle.js';

export interface UseAvatarSessionOptions {
  /**
   * A session the app manages itself (it called `initSession` and will `disconnect` or end it):
   * the hook only follows its events. Otherwise the hook makes one from the options below.
   */
  session?: AvatarSession | null;
  /** The Mouthpiece server, e.g. `https://avatars.example.com`. */
  baseUrl?: string;
  sessionId?: string;
  /** The session token (full control: the page may speak, interrupt and end). */
  token?: string;
  /** The viewer token (view-only: the page watches, your backend speaks). Recommended. */
  viewerToken?: string;
  /** The rest of the SDK's configuration (`render`, `logLevel`, `endOnPageHide`, retries…). */
  config?: Omit<AvatarSessionConfig, 'baseUrl'>;
  /** Where the SDK puts the video (or canvas); `<Avatar>` passes its own element's id. */
  videoContainerId?: string;
  /** Listeners by event name, typed as the SDK's (`AvatarSessionCallbacks`); may change on every render. */
  on?: Partial<AvatarSessionCallbacks>;
}

export interface AvatarSessionState extends SessionView {
  /** The AvatarSession (null before the first effect, or while the options name no session). */
  session: AvatarSession | null;
}

const IDLE: SessionView = { state: 'IDLE', connection: 'DISCONNECTED', speaking: false, error: null };

export function useAvatarSession(options: UseAvatarSessionOptions): AvatarSessionState {
  const [view, setView] = useState<AvatarSessionState>({ ...IDLE, session: null });
  const listeners = useRef(options.on);
  useEffect(() => {
    listeners.current = options.on;
  });
  const { session: given, baseUrl, sessionId, token, viewerToken, videoContainerId } = options;
  const configKey = JSON.stringify(options.config ?? {});

  useEffect(() => {
    const changed = (patch: Partial<SessionView>): void => setView((v) => ({ ...v, ...patch }));
    if (given) {
      setView({
        ...IDLE,
        session: given,
        state: given.getSessionState(),
        connection: given.getConnectionState(),
      });
      return follow(given, changed, () => listeners.current);
    }
    if (!baseUrl || !sessionId || !(token || viewerToken)) {
      setView({ ...IDLE, session: null });
      return undefined;
    }
    const config = JSON.parse(configKey) as Omit<AvatarSessionConfig, 'baseUrl'>;
    const opened = openSession({
      create: () => new AvatarSession({ ...config, baseUrl }),
      access: token ? { sessionId, token } : { sessionId, viewerToken: viewerToken! },
      ...(videoContainerId ? { videoContainerId } : {}),
      changed,
      listeners: () => listeners.current,
    });
    setView({ ...IDLE, session: opened.session });
    return () => opened.close();
  }, [given, baseUrl, sessionId, token, viewerToken, videoContainerId, configKey]);

  return view;
}
