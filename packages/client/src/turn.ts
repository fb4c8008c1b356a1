/**
 * ICE servers from init-client's `turn`: the full `turn.urls` when the server gives them, else the
 * spec's formula from the host: turn:<url>:80?transport=udp, :443?transport=udp, :80?transport=tcp.
 */
export interface TurnConfig {
  url: string;
  username: string;
  credential: string;
  urls?: string[];
}

export function iceServersFor(turn: TurnConfig | undefined, iceServers?: RTCIceServer[]): RTCIceServer[] {
  if (iceServers && iceServers.length > 0) return iceServers;
  if (!turn || !turn.url || turn.username === 'none') return [];
  if (turn.urls)
    return turn.urls.length
      ? [{ urls: turn.urls, username: turn.username, credential: turn.credential }]
      : [];
  const h = turn.url;
  return [
    {
      urls: [`turn:${h}:80?transport=udp`, `turn:${h}:443?transport=udp`, `turn:${h}:80?transport=tcp`],
      username: turn.username,
      credential: turn.credential,
    },
  ];
}
