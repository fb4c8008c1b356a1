/**
 * Managed coturn's TLS listener, external IP and listening address: the generated config, and the
 * real `turnserver` answering a TURN Allocate over TLS with a self-signed certificate (openssl).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect as netConnect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterEach, expect, it } from 'vitest';
import { coturnConfig, startManagedTurn, type ManagedTurnOptions } from './coturn.js';
import { relayCapacity, turnForSession, turnUrls } from './credentials.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const base: ManagedTurnOptions = {
  dataDir: '/tmp/x',
  listeningIp: '127.0.0.1',
  relayIp: '127.0.0.1',
  port: 3478,
  minPort: 49_160,
  maxPort: 49_200,
  realm: 'mouthpiece',
  secret: 's',
  allowLoopback: false,
  logger: quiet,
};
const lines = (o: ManagedTurnOptions): string[] => coturnConfig(o, '/tmp/pid').split('\n');

it('without a certificate coturn gets no-tls; with one a TLS listener, its files and no old TLS versions', () => {
  expect(lines(base)).toContain('no-tls');
  expect(lines(base).some((l) => l.startsWith('tls-listening-port'))).toBe(false);
  const tls = lines({ ...base, tls: { port: 5349, cert: '/c.pem', key: '/k.pem' } });
  expect(tls).not.toContain('no-tls');
  expect(tls).toEqual(
    expect.arrayContaining([
      'tls-listening-port=5349',
      'cert=/c.pem',
      'pkey=/k.pem',
      'no-tlsv1',
      'no-tlsv1_1',
    ]),
  );
  expect(tls).toContain('no-dtls');
  expect(tls).toEqual(expect.arrayContaining(['no-tcp-relay', 'denied-peer-ip=169.254.0.0-169.254.255.255']));
});

it('writes external-ip for 1:1 NAT, and no address lines when listening on every interface', () => {
  expect(lines({ ...base, externalIp: '203.0.113.7/10.0.0.5' })).toContain(
    'external-ip=203.0.113.7/10.0.0.5',
  );
  expect(lines(base).some((l) => l.startsWith('external-ip'))).toBe(false);
  const any = lines({ ...base, listeningIp: '0.0.0.0', relayIp: '0.0.0.0' });
  expect(any.some((l) => l.startsWith('listening-ip') || l.startsWith('relay-ip'))).toBe(false);
  expect(lines(base)).toEqual(expect.arrayContaining(['listening-ip=127.0.0.1', 'relay-ip=127.0.0.1']));
});

it('hands out turns: on the TLS port beside the plain URLs; turn.url stays the bare host', () => {
  expect(turnUrls('turn.example.test', [3478], 443)).toEqual([
    'turn:turn.example.test:3478?transport=udp',
    'turn:turn.example.test:3478?transport=tcp',
    'turns:turn.example.test:443?transport=tcp',
  ]);
  expect(turnUrls('::1', [3478], 5349)).toContain('turns:[::1]:5349?transport=tcp');
  const t = turnForSession(
    { mode: 'managed', host: 'turn.example.test', ports: [3478], tlsPort: 443, secret: 's' },
    'sess',
    Date.now() + 60_000,
  );
  expect(t.url).toBe('turn.example.test');
  expect(t.iceServers[0]!.urls).toContain('turns:turn.example.test:443?transport=tcp');
});

it('counts relayed viewers as relay ports over the URLs each viewer allocates on', () => {
  expect(relayCapacity(49_160, 49_200, { ports: [3478] })).toEqual({
    ports: 41,
    viewers: 20,
    text: '49160-49200 (41 ports: at least 20 viewers relayed at once)',
  });
  expect(relayCapacity(49_160, 49_200, { ports: [3478], tlsPort: 443 }).viewers).toBe(13);
  expect(relayCapacity(40_000, 40_999, { ports: [80, 3478], tlsPort: 443 }).viewers).toBe(200);
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** A STUN Allocate request (RFC 5766) without credentials: coturn answers 401 (an error response). */
function allocateRequest(): Buffer {
  const attr = Buffer.from([0x00, 0x19, 0x00, 0x04, 17, 0, 0, 0]); // REQUESTED-TRANSPORT: UDP
  const head = Buffer.alloc(20);
  head.writeUInt16BE(0x0003, 0);
  head.writeUInt16BE(attr.length, 2);
  head.writeUInt32BE(0x2112a442, 4);
  randomBytes(12).copy(head, 8);
  return Buffer.concat([head, attr]);
}

/** The first STUN message type coturn answers an Allocate with, over TLS (and the certificate's CN). */
function askOverTls(port: number): Promise<{ subject: string; type: number }> {
  return new Promise((resolve, reject) => {
    const s = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      const subject = s.getPeerCertificate().subject.CN ?? '';
      s.once('data', (d: Buffer) => {
        resolve({ subject, type: d.readUInt16BE(0) });
        s.destroy();
      });
      s.write(allocateRequest());
    });
    s.once('error', reject);
  });
}

/** The same over plain TCP. */
function askPlain(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = netConnect({ host: '127.0.0.1', port }, () => {
      s.once('data', (d: Buffer) => {
        resolve(d.readUInt16BE(0));
        s.destroy();
      });
      s.write(allocateRequest());
    });
    s.once('error', reject);
  });
}

async function selfSigned(): Promise<{ dataDir: string; cert: string; key: string }> {
  execFileSync('sh', ['-c', 'command -v turnserver && command -v openssl'], { stdio: 'ignore' });
  const dataDir = mkdtempSync(join(tmpdir(), 'mp-coturn-tls-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const cert = join(dataDir, 'cert.pem');
  const key = join(dataDir, 'key.pem');
  writeCert(cert, key, 'turn.test');
  return { dataDir, cert, key };
}

function writeCert(cert: string, key: string, cn: string): void {
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', `/CN=${cn}`,
    '-keyout', key, '-out', cert,
  ], { stdio: 'ignore' }); // prettier-ignore
}

const ALLOCATE_ERROR = 0x0113; // the answer to an Allocate without credentials (401)

it('the real coturn answers TURN over TLS on its TLS port with the configured certificate', async () => {
  const { dataDir, cert, key } = await selfSigned();
  const [port, tlsPort] = [await freePort(), await freePort()];
  const turn = await startManagedTurn({ ...base, dataDir, port, tls: { port: tlsPort, cert, key } });
  cleanups.push(() => turn.close());
  expect(await askOverTls(tlsPort)).toEqual({ subject: 'turn.test', type: ALLOCATE_ERROR });
});

it('with the TLS port on the alternative port, that one port takes TLS and plain TURN', async () => {
  const { dataDir, cert, key } = await selfSigned();
  const [port, shared] = [await freePort(), await freePort()];
  const turn = await startManagedTurn({
    ...base,
    dataDir,
    port,
    altPort: shared,
    tls: { port: shared, cert, key },
  });
  cleanups.push(() => turn.close());
  expect(turn.ports).toEqual([port, shared]);
  expect(await askOverTls(shared)).toEqual({ subject: 'turn.test', type: ALLOCATE_ERROR });
  expect(await askPlain(shared)).toBe(ALLOCATE_ERROR);
});

it('a renewed certificate is served by the same coturn (SIGUSR2), without a restart', async () => {
  const { dataDir, cert, key } = await selfSigned();
  const [port, tlsPort] = [await freePort(), await freePort()];
  const turn = await startManagedTurn({
    ...base,
    dataDir,
    port,
    tls: { port: tlsPort, cert, key },
    certPollMs: 100,
  });
  cleanups.push(() => turn.close());
  const pid = turn.pid();
  expect((await askOverTls(tlsPort)).subject).toBe('turn.test');
  writeCert(cert, key, 'renewed.test'); // as a renewal would: new files at the same paths
  let subject = '';
  for (const deadline = Date.now() + 20_000; subject !== 'renewed.test' && Date.now() < deadline;) {
    await new Promise((r) => setTimeout(r, 200));
    subject = (await askOverTls(tlsPort)).subject;
  }
  expect(subject).toBe('renewed.test');
  expect(turn.pid()).toBe(pid);
});
