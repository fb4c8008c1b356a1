/**
 * Which ICE candidates a viewer may hand the engine. Whoever holds a whepUrl chooses the
 * addresses in its offer and trickle PATCHes, and the engine sends STUN checks (and, for TCP
 * candidates, opens connections) to them. So candidates on a deny list — by default loopback,
 * link-local (169.254.169.254 is a cloud metadata service), multicast and unspecified addresses —
 * are dropped, TCP candidates too unless allowed, and host names other than mDNS `.local` ones.
 * Private ranges stay allowed (viewers on the same LAN). Relay candidates of our own TURN server
 * (its relay address and port range) are always allowed, even when that address is loopback.
 */
import { BlockList, isIP } from 'node:net';

export interface CandidatePolicy {
  /** CIDR blocks (IPv4 and IPv6) whose addresses are refused. */
  deny: readonly string[];
  /** Accept TCP candidates (the engine would open TCP connections to them). */
  allowTcp: boolean;
  /** Relay endpoints always accepted: our managed TURN server's relay address and ports. */
  relays: ReadonlyArray<{ ip: string; minPort: number; maxPort: number }>;
}

export const DEFAULT_ICE_DENY: readonly string[] = [
  '127.0.0.0/8',
  '::1/128',
  '0.0.0.0/8',
  '::/128',
  '169.254.0.0/16',
  'fe80::/10',
  '224.0.0.0/4',
  'ff00::/8',
];

export function candidateFilter(policy: CandidatePolicy): (candidate: string) => boolean {
  const blocks = new BlockList();
  for (const cidr of policy.deny) {
    const [net, bits] = cidr.split('/');
    const type = isIP(net ?? '') === 6 ? 'ipv6' : 'ipv4';
    blocks.addSubnet(net!, Number(bits ?? (type === 'ipv6' ? 128 : 32)), type);
  }
  return (candidate) => {
    // candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type> …
    const f = candidate
      .replace(/^a=/, '')
      .replace(/^candidate:/, '')
      .trim()
      .split(/\s+/);
    const transport = (f[2] ?? '').toLowerCase();
    const address = f[4] ?? '';
    const port = Number(f[5]);
    const type = f[7] ?? '';
    if (transport !== 'udp' && !(transport === 'tcp' && policy.allowTcp)) return false;
    const family = isIP(address);
    if (family === 0) return /\.local$/i.test(address); // mDNS names only; no DNS lookups
    if (
      type === 'relay' &&
      policy.relays.some((r) => r.ip === address && port >= r.minPort && port <= r.maxPort)
    )
      return true;
    return !blocks.check(address, family === 6 ? 'ipv6' : 'ipv4');
  };
}

/** The offer without the candidates the policy refuses. */
export function filterOfferCandidates(sdp: string, accept: (candidate: string) => boolean): string {
  return sdp
    .split(/\r?\n/)
    .filter((l) => !l.startsWith('a=candidate:') || accept(l))
    .join('\r\n');
}
