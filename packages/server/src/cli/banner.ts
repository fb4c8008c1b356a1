/** What `mouthpiece serve` prints once it listens: where the service is and what to do next. */
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
}

/** A path as one shell word. */
const shellWord = (s: string): string => (/^[\w./@%+=:,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

export function startBanner(o: BannerInfo): string {
  const turn = o.turn === 'off' ? 'off (see the warning below)' : o.turn;
  // the command must write where this server reads: name the data directory when it is not the default
  const dataDirFlag = o.dataDir === o.defaultDataDir ? '' : ` --data-dir ${shellWord(o.dataDir)}`;
  return [
    '',
    `  Mouthpiece ${o.version} is running at ${o.url}`,
    '',
    `  Demo page and API   ${o.url}`,
    `  Make a credential   npx mouthpiece credentials create --name demo${dataDirFlag}   (another terminal, repository root)`,
    `  Data                ${o.dataDir}`,
    `  TURN                ${turn}`,
    ...(o.relay ? [`  TURN relay ports    ${o.relay}`] : []),
    '  Stop                Ctrl-C',
    '',
    '',
  ].join('\n');
}
