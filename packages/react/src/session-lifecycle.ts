/**
 * What a mounted component does with an AvatarSession, without React: open one (subscribe to its
 * events, then `initSession`), and close it (`disconnect()`: the session lives on the server).
 * StrictMode mounts, unmounts and mounts again at once: the first start is only scheduled (behind a
 * promise), so a close in the same tick cancels it before any request, and a later open of the
 * same session waits until every earlier disconnect of it is done — two viewers of one session
 * never fight over it (the server keeps one viewer per session: docs/client.md "One viewer").
 */
import type {
  AvatarSession,
  AvatarSessionCallbacks,
  AvatarSessionEvents,
  ConnectionState,
  SessionAccess,
  SessionState,
} from '@mouthpiece/client';

/** What the hook reads of an AvatarSession (a fake in unit tests; the real one in the browser). */
export type SessionLike = Pick<
  AvatarSession,
  'on' | 'initSession' | 'disconnect' | 'getSessionState' | 'getConnectionState'
>;

/** An error event's payload, or a failed start's MouthpieceError. */
export type AvatarSessionError = AvatarSessionEvents['error'];

/** What a component shows of its session. */
export interface SessionView {
  state: SessionState;
  connection: ConnectionState;
  /** True from a turn's `speakingStart` until every started turn has its `speakingEnd`. */
  speaking: boolean;
  /** The last error (an `error` event, or the start's rejection); null until one comes. */
  error: AvatarSessionError | null;
}

/** Every event name of AvatarSession (a compile error when one is added and not listed here). */
const EVENTS = {
  stateChange: true,
  connectionChange: true,
  error: true,
  speakingStart: true,
  speakingEnd: true,
  speakingResumed: true,
  reconnecting: true,
  word: true,
  videoReady: true,
  autoplayBlocked: true,
  renderFallback: true,
} satisfies Record<keyof AvatarSessionEvents, true>;

/** Listeners by event name, read when each event comes (so they may change on every render). */
export type Listeners = () => Partial<AvatarSessionCallbacks> | undefined;

/**
 * Follows a session's events: `changed` gets each change of the view, `listeners()` the events.
 * Returns the unsubscribe.
 */
export function follow(
  session: SessionLike,
  changed: (patch: Partial<SessionView>) => void,
  listeners: Listeners,
): () => void {
  const turns = new Set<string>();
  const offs = (Object.keys(EVENTS) as Array<keyof AvatarSessionEvents>).map((name) =>
    session.on(name, ((payload: never) => {
      (listeners()?.[name] as ((p: never) => void) | undefined)?.(payload);
    }) as AvatarSessionCallbacks[typeof name]),
  );
  offs.push(
    session.on('stateChange', (state) => changed({ state })),
    session.on('connectionChange', (connection) => changed({ connection })),
    session.on('error', (error) => changed({ error })),
    session.on('speakingStart', ({ turnId }) => {
      turns.add(turnId);
      changed({ speaking: true });
    }),
    session.on('speakingEnd', ({ turnId }) => {
      turns.delete(turnId);
      changed({ speaking: turns.size > 0 });
    }),
  );
  return () => {
    for (const off of offs) off();
  };
}

/** Per session id, the disconnects under way in this page (the last one waits for the earlier). */
const leaving = new Map<string, Promise<void>>();

export interface Opened<S extends SessionLike> {
  session: S;
  /** Unsubscribes and disconnects (idempotent). The session lives on on the server. */
  close(): void;
}

/** Opens `create()`'s session with `access` once earlier disconnects of the same session are done. */
export function openSession<S extends SessionLike>(o: {
  create: () => S;
  access: SessionAccess;
  videoContainerId?: string;
  changed: (patch: Partial<SessionView>) => void;
  listeners: Listeners;
}): Opened<S> {
  const session = o.create();
  const { sessionId } = o.access;
  let closed = false;
  const unfollow = follow(session, o.changed, o.listeners);
  const before = leaving.get(sessionId) ?? Promise.resolve();
  void before.then(async () => {
    if (closed) return; // unmounted before it started: nothing was sent
    try {
      await session.initSession(o.access, o.videoContainerId ? { videoContainerId: o.videoContainerId } : {});
    } catch (err) {
      if (!closed) o.changed({ error: asError(err) });
    }
  });
  return {
    session,
    close() {
      if (closed) return;
      closed = true;
      unfollow();
      const done = before.then(() => session.disconnect()).catch(() => undefined);
      leaving.set(sessionId, done);
      void done.then(() => {
        if (leaving.get(sessionId) === done) leaving.delete(sessionId);
      });
    },
  };
}

function asError(err: unknown): AvatarSessionError {
  const e = err as { code?: unknown; message?: unknown; details?: unknown };
  return {
    code: (typeof e?.code === 'string' ? e.code : 'API_REQUEST_FAILED') as AvatarSessionError['code'],
    message: typeof e?.message === 'string' ? e.message : String(err),
    ...(e?.details !== undefined ? { details: e.details } : {}),
  };
}
