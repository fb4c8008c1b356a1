/** What `mouthpiece serve` prints once it listens: where the service is and what to do next. */
export function startBanner(o: { url: string; dataDir: string; turn: string; version: string }): string {
  const turn = o.turn === 'off' ? 'off (see the warning below)' : o.turn;
  return [
    '',
    `  Mouthpiece ${o.version} is running at ${o.url}`,
    '',
    `  Demo page and API   ${o.url}`,
    '  Make a credential   npx mouthpiece credentials create --name demo   (another terminal, repository root)',
    `  Data                ${o.dataDir}`,
    `  TURN                ${turn}`,
    '  Stop                Ctrl-C',
    '',
    '',
  ].join('\n');
}
