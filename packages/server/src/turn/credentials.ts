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
  /** Ports really listened on (plain TURN: UDP and TCP). */
  ports: number[];
  /** TURN over TLS (`turns:`, TCP) on this port; the spec's `turn.url` stays the bare host. */
  tlsPort?: number | undefined;
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

/** Every URL a viewer may reach TURN on: UDP and TCP per plain port, then TLS (`turns:`). */
export function turnUrls(host: string, ports: readonly number[], tlsPort?: number): string[] {
  const h = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return [
    ...ports.flatMap((p) => [`turn:${h}:${p}?transport=udp`, `turn:${h}:${p}?transport=tcp`]),
    ...(tlsPort ? [`turns:${h}:${tlsPort}?transport=tcp`] : []),
  ];
}

export function turnForSession(settings: TurnSettings, sessionId: string, expiresAtMs: number): SessionTurn {
  if (settings.mode === 'off') {
    return { url: settings.host, username: 'none', credential: 'none', urls: [], iceServers: [] };
  }
  const { username, credential } = turnRestCredentials(settings.secret, sessionId, expiresAtMs);
  const urls = turnUrls(settings.host, settings.ports, settings.tlsPort);
  return { url: settings.host, username, credential, urls, iceServers: [{ urls, username, credential }] };
}

/**
 * Managed coturn's relay capacity: a browser allocates one relay port on every TURN URL it is
 * given (turnUrls above), so a viewer holds up to that many ports of the range.
 */
export function relayCapacity(
  minPort: number,
  maxPort: number,
  turn: Pick<TurnSettings, 'ports' | 'tlsPort'>,
): { ports: number; viewers: number; text: string } {
  const ports = maxPort - minPort + 1;
  const viewers = Math.floor(ports / Math.max(1, turnUrls('h', turn.ports, turn.tlsPort).length));
  return {
    ports,
    viewers,
    text: `${minPort}-${maxPort} (${ports} ports: at least ${viewers} viewers relayed at once)`,
  };
}

/** `Link` header values for generic WHEP players (draft-ietf-wish-whep). */
export function iceServerLinks(turn: SessionTurn): string[] {
  return turn.urls.map(
    (u) =>
      `<${u}>; rel="ice-server"; username="${turn.username}"; credential="${turn.credential}"; credential-type="password"`,
  );
}
