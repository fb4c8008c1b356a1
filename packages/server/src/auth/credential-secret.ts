/**
 * Credential secrets: `mp_<id>_<43 chars base64url>`, the whole value after `KS `. Looked up by id,
 * compared by SHA-256 in constant time; only the hash is stored.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const SECRET_RE = /^mp_([A-Za-z0-9]{16})_([A-Za-z0-9_-]{43})$/;

export function generateCredential(): { id: string; secret: string } {
  const id = randomBytes(12).toString('base64url').replace(/[-_]/g, 'x').slice(0, 16);
  const secret = `mp_${id}_${randomBytes(32).toString('base64url')}`;
  return { id, secret };
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function parseCredentialId(secret: string): string | undefined {
  return SECRET_RE.exec(secret)?.[1];
}

export function verifySecret(secret: string, record: { secretHash: string }): boolean {
  const a = Buffer.from(hashSecret(secret), 'hex');
  const b = Buffer.from(record.secretHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Constant-time comparison of two strings of any length (admin token). */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}
