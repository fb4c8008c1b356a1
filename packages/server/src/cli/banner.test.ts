import { expect, it } from 'vitest';
import { startBanner } from './banner.js';

const info = {
  url: 'http://localhost:8080/',
  dataDir: '/repo/data',
  defaultDataDir: '/repo/data',
  turn: 'off',
  version: '1.2.3',
};

it('says where the service is, how to make a credential and where the data lives', () => {
  const text = startBanner(info);
  expect(text).toContain('Mouthpiece 1.2.3 is running at http://localhost:8080/');
  expect(text).toContain('npx mouthpiece credentials create --name demo   (another terminal');
  expect(text).toContain('Data                /repo/data');
  expect(text).toContain('TURN                off (see the warning below)');
  expect(text.split('http://localhost:8080/')).toHaveLength(3); // the address line and the demo line
});

it('names the data directory in the credential command when the server does not use the default', () => {
  expect(startBanner({ ...info, dataDir: '/srv/mp' })).toContain(
    'npx mouthpiece credentials create --name demo --data-dir /srv/mp   (',
  );
  expect(startBanner({ ...info, dataDir: "/tmp/my data/it's" })).toContain(
    `--data-dir '/tmp/my data/it'\\''s'   (`,
  );
});

it("states managed coturn's relay range and capacity when there is one", () => {
  expect(startBanner(info)).not.toContain('TURN relay ports');
  const relay = '49160-49200 (41 ports: at least 13 viewers relayed at once)';
  expect(startBanner({ ...info, turn: 'managed', relay })).toContain(`  TURN relay ports    ${relay}`);
});
