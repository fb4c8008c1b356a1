/**
 * The settings worked out from several variables, or checked beyond one variable's schema: URLs,
 * the video size, CIDR lists, the client-render kinds, TURN and cluster mode. Each throws a ConfigError naming the variable.
 */
import { randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { resolve } from 'node:path';
import { isIP } from 'node:net';
import { DEFAULT_ICE_DENY, RenderKind } from '@mouthpiece/engine/host';
import { ConfigError } from './env-reader.js';
import type { EnvValues } from './spec.js';

/** The public base URL (no trailing slash) and its host. */
export function publicUrl(v: EnvValues): { url: string; host: string } {
  const scheme = v.MOUTHPIECE_TLS_CERT ? 'https' : 'http'; // the server's own HTTPS (MOUTHPIECE_TLS_CERT)
  const url = (v.MOUTHPIECE_PUBLIC_URL ?? `${scheme}://localhost:${v.PORT}`).replace(/\/+$/, '');
  try {
    return { url, host: new URL(url).hostname };
  } catch {
    throw new ConfigError(`MOUTHPIECE_PUBLIC_URL must be an absolute URL, got "${url}"`);
  }
}

/** MOUTHPIECE_VIDEO_SIZE (its schema checked the `WxH` form): even, at least 64x64. */
export function videoSize(v: EnvValues): { width: number; height: number } {
  const size = v.MOUTHPIECE_VIDEO_SIZE;
  const [width, height] = size.split('x').map(Number) as [number, number];
  if (width % 2 || height % 2 || width < 64 || height < 64)
    throw new ConfigError(`MOUTHPIECE_VIDEO_SIZE must be even and at least 64x64, got "${size}"`);
  return { width, height };
}

/** An absolute http(s) URL without trailing slashes. */
export function httpUrl(name: string, raw: string): string {
  let u: URL | undefined;
  try {
    u = new URL(raw);
  } catch {
    u = undefined;
  }
  if (u?.protocol !== 'http:' && u?.protocol !== 'https:')
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
  return raw.replace(/\/+$/, '');
}

/** MOUTHPIECE_TURN=external needs a host and a secret; the relay range must not be upside down. */
export function checkTurn(v: EnvValues): void {
  if (v.MOUTHPIECE_TURN === 'external' && (!v.MOUTHPIECE_TURN_SECRET || !v.MOUTHPIECE_TURN_HOST))
    throw new ConfigError('MOUTHPIECE_TURN=external needs MOUTHPIECE_TURN_HOST and MOUTHPIECE_TURN_SECRET');
  if (v.MOUTHPIECE_TURN_MIN_PORT > v.MOUTHPIECE_TURN_MAX_PORT)
    throw new ConfigError('MOUTHPIECE_TURN_MIN_PORT must not exceed MOUTHPIECE_TURN_MAX_PORT');
}

/**
 * TURN over TLS: managed coturn needs a certificate and its key (readable files); the port is 443
 * unless set. External TURN hands out `turns:` when its port is set. Undefined: no TLS.
 */
export function turnTls(
  v: EnvValues,
): { port: number; cert: string | undefined; key: string | undefined } | undefined {
  const cert = v.MOUTHPIECE_TURN_TLS_CERT;
  const key = v.MOUTHPIECE_TURN_TLS_KEY;
  if (!cert !== !key)
    throw new ConfigError(
      'TURN over TLS needs both MOUTHPIECE_TURN_TLS_CERT and MOUTHPIECE_TURN_TLS_KEY (PEM files); set both, or neither',
    );
  if (!cert || !key) {
    const port = v.MOUTHPIECE_TURN_TLS_PORT;
    if (port === undefined) return undefined;
    if (v.MOUTHPIECE_TURN === 'external') return { port, cert: undefined, key: undefined };
    throw new ConfigError(
      'MOUTHPIECE_TURN_TLS_PORT is set but managed coturn has no certificate: set MOUTHPIECE_TURN_TLS_CERT and MOUTHPIECE_TURN_TLS_KEY',
    );
  }
  for (const [name, file] of [
    ['MOUTHPIECE_TURN_TLS_CERT', cert],
    ['MOUTHPIECE_TURN_TLS_KEY', key],
  ] as const) {
    try {
      accessSync(file, constants.R_OK);
    } catch {
      throw new ConfigError(`${name}: cannot read "${file}"; give the path of a readable PEM file`);
    }
  }
  const port = v.MOUTHPIECE_TURN_TLS_PORT ?? 443;
  // coturn takes TLS and plain TURN on every port once it has a certificate: the TLS port may be
  // the alternative port (443 for both spec clients and `turns:`), not the main one
  if (port === v.MOUTHPIECE_TURN_PORT)
    throw new ConfigError(
      `MOUTHPIECE_TURN_TLS_PORT (${port}) must differ from MOUTHPIECE_TURN_PORT; it may equal MOUTHPIECE_TURN_ALT_PORT`,
    );
  return { port, cert: resolve(cert), key: resolve(key) };
}

/** MOUTHPIECE_TURN_EXTERNAL_IP: `public` or `public/private`, both IP addresses. */
export function turnExternalIp(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const parts = raw.split('/');
  if (parts.length > 2 || parts.some((p) => isIP(p) === 0))
    throw new ConfigError(
      `MOUTHPIECE_TURN_EXTERNAL_IP must be an IP address, or public/private like 203.0.113.7/10.0.0.5, got "${raw}"`,
    );
  return raw;
}

/** Coturn's address: as set, else loopback for a loopback TURN host, else every interface. */
export function turnListenIp(raw: string | undefined, turnHost: string): string {
  if (raw) {
    if (isIP(raw) === 0)
      throw new ConfigError(`MOUTHPIECE_TURN_LISTEN_IP must be an IP address (or 0.0.0.0), got "${raw}"`);
    return raw;
  }
  const loopback = turnHost === 'localhost' || /^127\./.test(turnHost) || ['::1', '[::1]'].includes(turnHost);
  return loopback ? '127.0.0.1' : '0.0.0.0';
}

/** MOUTHPIECE_ENGINE_MIN_PORT and _MAX_PORT: both or neither, in order. */
export function enginePortRange(v: EnvValues): { min: number; max: number } | undefined {
  const min = v.MOUTHPIECE_ENGINE_MIN_PORT;
  const max = v.MOUTHPIECE_ENGINE_MAX_PORT;
  if (min === undefined && max === undefined) return undefined;
  if (min === undefined || max === undefined)
    throw new ConfigError('set both MOUTHPIECE_ENGINE_MIN_PORT and MOUTHPIECE_ENGINE_MAX_PORT, or neither');
  if (min > max)
    throw new ConfigError('MOUTHPIECE_ENGINE_MIN_PORT must not exceed MOUTHPIECE_ENGINE_MAX_PORT');
  return { min, max };
}

/** Cluster mode's settings, or undefined when MOUTHPIECE_REDIS_URL is unset (single node). */
export function clusterSettings(
  v: EnvValues,
  publicUrl: string,
): { redisUrl: string; nodeId: string; nodeUrl: string } | undefined {
  const redisUrl = v.MOUTHPIECE_REDIS_URL;
  if (!redisUrl) {
    if (v.MOUTHPIECE_NODE_ID || v.MOUTHPIECE_NODE_URL)
      throw new ConfigError(
        'MOUTHPIECE_NODE_ID and MOUTHPIECE_NODE_URL need MOUTHPIECE_REDIS_URL (cluster mode)',
      );
    return undefined;
  }
  const nodeId = v.MOUTHPIECE_NODE_ID || `node-${randomBytes(4).toString('hex')}`;
  const nodeUrl = (v.MOUTHPIECE_NODE_URL || publicUrl).replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(nodeUrl);
  } catch {
    throw new ConfigError(`MOUTHPIECE_NODE_URL must be an absolute URL, got "${nodeUrl}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new ConfigError(`MOUTHPIECE_NODE_URL must be http or https, got "${nodeUrl}"`);
  return { redisUrl, nodeId, nodeUrl };
}

/**
 * MOUTHPIECE_CLIENT_RENDER: a comma list of avatar kinds (default: all four; `none`: no kind), each
 * once; an unknown name stops start-up naming the kinds there are.
 */
export function clientRenderKinds(raw: string | undefined): RenderKind[] {
  const all = Object.values(RenderKind);
  if (raw === undefined || raw.trim() === '') return all;
  if (raw.trim().toLowerCase() === 'none') return [];
  const kinds = raw.split(',').map((part) => {
    const name = part.trim().toLowerCase();
    const kind = all.find((k) => k === name);
    if (!kind)
      throw new ConfigError(
        `MOUTHPIECE_CLIENT_RENDER: "${part.trim()}" is not an avatar kind; use a comma list of ${all.join(', ')}, or none`,
      );
    return kind;
  });
  return all.filter((k) => kinds.includes(k));
}

/** MOUTHPIECE_ICE_DENY: a comma list of CIDR blocks (default: the engine's safe list; `none`: nothing). */
export function iceDenyList(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [...DEFAULT_ICE_DENY];
  if (raw.trim().toLowerCase() === 'none') return [];
  return raw.split(',').map((part) => {
    const cidr = part.trim();
    const [net, bits] = cidr.split('/');
    const family = isIP(net ?? '');
    const max = family === 6 ? 128 : 32;
    if (family === 0 || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= max)))
      throw new ConfigError(
        `MOUTHPIECE_ICE_DENY: "${cidr}" is not a CIDR block like 127.0.0.0/8 or fe80::/10`,
      );
    return bits === undefined ? `${net}/${max}` : cidr;
  });
}
