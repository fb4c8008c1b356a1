/**
 * Type-level tests of the client's closed event maps, and of initSession's arguments. Not run:
 * compiled by session-events.test.ts, which fails if any `@ts-expect-error` below meets no error
 * (a misspelt event name that compiles) or if anything else here does not compile (a documented
 * event or payload that went missing).
 */
import type { ConnectionState, SessionState } from '@mouthpiece/protocol';
import type { AvatarSession } from './avatar-session.js';
import type { AvatarSessionCallbacks, RenderFallbackReason } from './session-types.js';
import type { SessionLifetime } from './session-lifetime.js';
import type { WhepTransport } from './whep-transport.js';

/** Every documented event (docs/client.md, "States and events") with its payload. */
export function documentedEvents(session: AvatarSession): void {
  session.on('stateChange', (s: SessionState) => s);
  session.on('connectionChange', (s: ConnectionState) => s);
  session.on('speakingStart', (e: { turnId: string }) => e);
  session.on('speakingEnd', (e: { turnId: string; interrupted: boolean }) => e);
  session.on('speakingResumed', (e: { turnId: string }) => e);
  session.on('reconnecting', (e: { attempt: number }) => e);
  session.on('word', (e: { turnId: string; text: string; startMs: number; endMs: number }) => e);
  session.on('videoReady', (e: { width: number; height: number }) => e);
  session.on('autoplayBlocked', () => undefined);
  session.on('renderFallback', (e: { reason: RenderFallbackReason; message: string }) => e);
  const reasons: RenderFallbackReason[] = [
    'no-webgl',
    'unsupported-kind',
    'pack-failed',
    'server',
    'context-lost',
  ];
  void reasons;
  session.on('error', (e) => [e.code, e.message, e.details]);
  const off = session.on('error', () => undefined);
  off();
  const onWord: AvatarSessionCallbacks['word'] = (w) => w.text;
  session.off('word', onWord);
}

export function misspeltSessionEvents(session: AvatarSession): void {
  // @ts-expect-error: a misspelt event name does not compile
  session.on('stateChnage', () => undefined);
  // @ts-expect-error: event names are case-sensitive
  session.off('speakingstart', () => undefined);
  // @ts-expect-error: an event the SDK does not have
  session.on('connected', () => undefined);
  // @ts-expect-error: the payload of `word` has no `turnID`
  session.on('word', (w) => void w.turnID);
  // @ts-expect-error: a fallback reason the SDK does not give
  session.on('renderFallback', (e) => e.reason === 'no-gpu');
}

export function misspeltPartEvents(transport: WhepTransport, lifetime: SessionLifetime): void {
  transport.on('peerState', (e) => e.state);
  lifetime.on('ended', (e) => e.error.code);
  // @ts-expect-error: the transport's events are closed too
  transport.on('peerstate', () => undefined);
  // @ts-expect-error: and the lifetime's
  lifetime.on('end', () => undefined);
  lifetime.on('alive', () => undefined);
}

/** initSession's two ways in (docs/client.md "View-only pages"). */
export function sessionAccess(session: AvatarSession): void {
  void session.initSession({ sessionId: 's', token: 't' }, { videoContainerId: 'avatar' });
  void session.initSession({ sessionId: 's', viewerToken: 'v' });
  const viewOnly: boolean = session.viewOnly;
  void viewOnly;
  const disconnected: Promise<void> = session.disconnect();
  void disconnected;
  // @ts-expect-error: a session id alone opens nothing
  void session.initSession({ sessionId: 's' });
  // @ts-expect-error: viewOnly is read, not set
  session.viewOnly = true;
}
