import { expect, it } from 'vitest';
import { startBanner, type BannerInfo } from './banner.js';

const info: BannerInfo = {
  url: 'http://localhost:8080/',
  dataDir: '/repo/data',
  defaultDataDir: '/repo/data',
  turn: 'off',
  version: '1.2.3',
  exposed: {
    host: '0.0.0.0',
    port: 8080,
    metrics: 'off',
    adminToken: false,
    turnHost: 'localhost',
    turnPorts: [],
  },
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

it('says what is exposed: the listening port, /metrics, the admin API and TURN', () => {
  const closed = startBanner(info);
  expect(closed).toContain('Listening           HTTP on 0.0.0.0:8080/tcp');
  expect(closed).toContain('Metrics             off (set MOUTHPIECE_METRICS_TOKEN to read /metrics)');
  expect(closed).toContain('/admin/v1 with an admin credential only (MOUTHPIECE_ADMIN_TOKEN unset)');
  const open = startBanner({
    ...info,
    turn: 'managed',
    exposed: {
      host: '127.0.0.1',
      port: 9000,
      metrics: 'MOUTHPIECE_ADMIN_TOKEN',
      adminToken: true,
      turnHost: 'turn.example.com',
      turnPorts: [3478, 443],
      relayPorts: { min: 49160, max: 49200 },
    },
  });
  expect(open).toContain('Listening           HTTP on 127.0.0.1:9000/tcp');
  expect(open).toContain(
    'Metrics             /metrics with "Authorization: Bearer <MOUTHPIECE_ADMIN_TOKEN>"',
  );
  expect(open).toContain('Admin               /admin/v1 with MOUTHPIECE_ADMIN_TOKEN or an admin credential');
  expect(open).toContain(
    'TURN                managed: turn.example.com ports 3478, 443 (udp+tcp); relay ports 49160-49200/udp',
  );
});
