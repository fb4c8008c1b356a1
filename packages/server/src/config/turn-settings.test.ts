/** TURN over TLS, the external IP, coturn's listening address and the engine's port range, as loaded. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';

const dir = mkdtempSync(join(tmpdir(), 'mp-turn-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const cert = join(dir, 'cert.pem');
const key = join(dir, 'key.pem');
writeFileSync(cert, 'x');
writeFileSync(key, 'x');
const managed = { MOUTHPIECE_TURN: 'managed' };

describe('TURN over TLS', () => {
  it('is off without a certificate, on 443 with one, or on the port set', () => {
    expect(loadConfig(managed).turn.tls).toBeUndefined();
    const on = loadConfig({ ...managed, MOUTHPIECE_TURN_TLS_CERT: cert, MOUTHPIECE_TURN_TLS_KEY: key });
    expect(on.turn.tls).toEqual({ port: 443, cert, key });
    const high = { ...managed, MOUTHPIECE_TURN_TLS_CERT: cert, MOUTHPIECE_TURN_TLS_KEY: key };
    expect(loadConfig({ ...high, MOUTHPIECE_TURN_TLS_PORT: '5349' }).turn.tls?.port).toBe(5349);
  });

  it('says what to change when the certificate, the key or the port is wrong', () => {
    expect(() => loadConfig({ ...managed, MOUTHPIECE_TURN_TLS_CERT: cert })).toThrow(
      /needs both MOUTHPIECE_TURN_TLS_CERT and MOUTHPIECE_TURN_TLS_KEY/,
    );
    expect(() =>
      loadConfig({
        ...managed,
        MOUTHPIECE_TURN_TLS_CERT: join(dir, 'nope.pem'),
        MOUTHPIECE_TURN_TLS_KEY: key,
      }),
    ).toThrow(/MOUTHPIECE_TURN_TLS_CERT: cannot read ".*nope.pem"/);
    expect(() => loadConfig({ ...managed, MOUTHPIECE_TURN_TLS_PORT: '5349' })).toThrow(
      /TLS_PORT is set but managed coturn has no certificate: set MOUTHPIECE_TURN_TLS_CERT/,
    );
    expect(() =>
      loadConfig({
        ...managed,
        MOUTHPIECE_TURN_TLS_CERT: cert,
        MOUTHPIECE_TURN_TLS_KEY: key,
        MOUTHPIECE_TURN_TLS_PORT: '3478',
      }),
    ).toThrow(/MOUTHPIECE_TURN_TLS_PORT \(3478\) must differ from MOUTHPIECE_TURN_PORT; it may equal/);
    const shared = { MOUTHPIECE_TURN_ALT_PORT: '443', MOUTHPIECE_TURN_TLS_PORT: '443' };
    const tls = { MOUTHPIECE_TURN_TLS_CERT: cert, MOUTHPIECE_TURN_TLS_KEY: key };
    expect(loadConfig({ ...managed, ...tls, ...shared }).turn.tls?.port).toBe(443);
  });

  it('external TURN hands out turns: on the port set, without files', () => {
    const ext = {
      MOUTHPIECE_TURN: 'external',
      MOUTHPIECE_TURN_HOST: 't.example',
      MOUTHPIECE_TURN_SECRET: 's',
    };
    expect(loadConfig({ ...ext, MOUTHPIECE_TURN_TLS_PORT: '443' }).turn.tls).toEqual({
      port: 443,
      cert: undefined,
      key: undefined,
    });
  });
});

describe("coturn's addresses and the engine's ports", () => {
  it('listens on loopback for a loopback TURN host, on every interface otherwise, or where set', () => {
    expect(loadConfig(managed).turn.listenIp).toBe('127.0.0.1'); // public URL http://localhost:8080
    const pub = { ...managed, MOUTHPIECE_PUBLIC_URL: 'https://avatars.example.com' };
    expect(loadConfig(pub).turn.listenIp).toBe('0.0.0.0');
    expect(loadConfig({ ...pub, MOUTHPIECE_TURN_LISTEN_IP: '10.0.0.5' }).turn.listenIp).toBe('10.0.0.5');
    expect(() => loadConfig({ ...pub, MOUTHPIECE_TURN_LISTEN_IP: 'eth0' })).toThrow(
      /MOUTHPIECE_TURN_LISTEN_IP must be an IP address/,
    );
  });

  it('takes an external IP as public or public/private addresses', () => {
    expect(loadConfig({ ...managed, MOUTHPIECE_TURN_EXTERNAL_IP: '203.0.113.7' }).turn.externalIp).toBe(
      '203.0.113.7',
    );
    expect(
      loadConfig({ ...managed, MOUTHPIECE_TURN_EXTERNAL_IP: '203.0.113.7/10.0.0.5' }).turn.externalIp,
    ).toBe('203.0.113.7/10.0.0.5');
    expect(() => loadConfig({ ...managed, MOUTHPIECE_TURN_EXTERNAL_IP: 'my.host' })).toThrow(
      /MOUTHPIECE_TURN_EXTERNAL_IP must be an IP address, or public\/private/,
    );
  });

  it('gives the engine a port range only when both ends are set, in order', () => {
    expect(loadConfig(managed).enginePorts).toBeUndefined();
    const range = { MOUTHPIECE_ENGINE_MIN_PORT: '50000', MOUTHPIECE_ENGINE_MAX_PORT: '50999' };
    expect(loadConfig({ ...managed, ...range }).enginePorts).toEqual({ min: 50000, max: 50999 });
    expect(() => loadConfig({ ...managed, MOUTHPIECE_ENGINE_MIN_PORT: '50000' })).toThrow(
      /set both MOUTHPIECE_ENGINE_MIN_PORT and MOUTHPIECE_ENGINE_MAX_PORT/,
    );
    expect(() =>
      loadConfig({ ...managed, MOUTHPIECE_ENGINE_MIN_PORT: '50999', MOUTHPIECE_ENGINE_MAX_PORT: '50000' }),
    ).toThrow(/MIN_PORT must not exceed MOUTHPIECE_ENGINE_MAX_PORT/);
  });
});
