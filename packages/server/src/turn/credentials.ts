/**
 * TURN REST API credentials (coturn `use-auth-secret`): username `<unix-expiry>:<sessionId>`,
 * credential base64(HMAC-SHA1(secret, username)); minted per session, no call to coturn.
 */
import { createHmac } from 'node:crypto';
import type { IceServer } from '@mouthpiece/protocol';

export interface TurnSettings {
  mode: 'managed' | 'external' | 'off';
  /** Host returned as `turn.url` (the spec's clients build URLs on ports 80/443 from it). */
  host: string;
  /** Ports really listened on. */
  ports: number[];
  secret: string;
}

export interface SessionTurn {
  url: string;
  username: string;
  credential: string;
  urls: string[];
  iceServers: IceServer[];
}

export function turnRestCredentials(
  secret: string,
  sessionId: string,
  expiresAtMs: number,
): { username: string; credential: string } {
  const username = `${Math.floor(expiresAtMs / 1000)}:${sessionId}`;
  const credential = createHmac('sha1', secret).update(username).digest('base64');
  return { username, credential };
}

export function turnUrls(host: string, ports: readonly number[]): string[] {
  const h = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return ports.flatMap((p) => [`turn:${h}:${p}?transport=udp`, `turn:${h}:${p}?transport=tcp`]);
}

export function turnForSession(settings: TurnSettings, sessionId: string, expiresAtMs: number): SessionTurn {
  if (settings.mode === 'off') {
    return { url: settings.host, username: 'none', credential: 'none', urls: [], iceServers: [] };
  }
  const { username, credential } = turnRestCredentials(settings.secret, sessionId, expiresAtMs);
  const urls = turnUrls(settings.host, settings.ports);
  return { url: settings.host, username, credential, urls, iceServers: [{ urls, username, credential }] };
}

/** `Link` header values for generic WHEP players (draft-ietf-wish-whep). */
export function iceServerLinks(turn: SessionTurn): string[] {
  return turn.urls.map(
    (u) =>
      `<${u}>; rel="ice-server"; username="${turn.username}"; credential="${turn.credential}"; credential-type="password"`,
  );
}
