/** What `mouthpiece serve` prints once it listens: where the service is, what it exposes, what to do next. */
export interface BannerInfo {
  /** The public URL of the demo page (`http://localhost:8080/`). */
  url: string;
  dataDir: string;
  /** The data directory `mouthpiece credentials` uses when run from the repository root. */
  defaultDataDir: string;
  turn: string;
  /** Managed coturn's relay port range and capacity. */
  relay?: string | undefined;
  version: string;
  /** What is open to the network: the listening address, `/metrics`, the admin API, TURN's ports. */
  exposed: {
    host: string;
    port: number;
    /** Which token `/metrics` asks for, or off. */
    metrics: 'MOUTHPIECE_METRICS_TOKEN' | 'MOUTHPIECE_ADMIN_TOKEN' | 'off';
    /** Whether MOUTHPIECE_ADMIN_TOKEN is set (admin credentials work either way). */
    adminToken: boolean;
    /** TURN's host and the ports it listens on (empty when off). */
    turnHost: string;
    turnPorts: readonly number[];
    /** Managed coturn's relay ports (UDP), when it is managed. */
    relayPorts?: { min: number; max: number };
  };
}

/** A path as one shell word. */
const shellWord = (s: string): string => (/^[\w./@%+=:,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

function turnLine(o: BannerInfo): string {
  if (o.turn === 'off') return 'off (see the warning below)';
  const e = o.exposed;
  const ports = e.turnPorts.join(', ');
  const relay = e.relayPorts ? `; relay ports ${e.relayPorts.min}-${e.relayPorts.max}/udp` : '';
  return `${o.turn}: ${e.turnHost} port${e.turnPorts.length === 1 ? '' : 's'} ${ports} (udp+tcp)${relay}`;
}

export function startBanner(o: BannerInfo): string {
  const e = o.exposed;
  // the command must write where this server reads: name the data directory when it is not the default
  const dataDirFlag = o.dataDir === o.defaultDataDir ? '' : ` --data-dir ${shellWord(o.dataDir)}`;
  const metrics =
    e.metrics === 'off'
      ? 'off (set MOUTHPIECE_METRICS_TOKEN to read /metrics)'
      : `/metrics with "Authorization: Bearer <${e.metrics}>"`;
  const admin = e.adminToken
    ? '/admin/v1 with MOUTHPIECE_ADMIN_TOKEN or an admin credential'
    : '/admin/v1 with an admin credential only (MOUTHPIECE_ADMIN_TOKEN unset)';
  return [
    '',
    `  Mouthpiece ${o.version} is running at ${o.url}`,
    '',
    `  Demo page and API   ${o.url}`,
    `  Make a credential   npx mouthpiece credentials create --name demo${dataDirFlag}   (another terminal, repository root)`,
    `  Data                ${o.dataDir}`,
    `  Listening           HTTP on ${e.host}:${e.port}/tcp`,
    `  Metrics             ${metrics}`,
    `  Admin               ${admin}`,
    `  TURN                ${turnLine(o)}`,
    ...(o.relay ? [`  TURN relay ports    ${o.relay}`] : []),
    '  Stop                Ctrl-C',
    '',
    '',
  ].join('\n');
}
