/** `Authorization: KS <secret>` → the credential record, or an ApiError (401/403). */
import type { FastifyRequest } from 'fastify';
import { ApiError, KS_CHALLENGE } from '../errors.js';
import type { CredentialRecord, CredentialStore, Permission } from '../storage/ports.js';
import { parseCredentialId, verifySecret } from './credential-secret.js';

const challenge = { 'WWW-Authenticate': KS_CHALLENGE };

/** Extracts the value after a scheme (case-insensitive), or undefined. */
export function authorizationValue(req: FastifyRequest, scheme: string): string | undefined {
  const header = req.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const m = /^(\S+)\s+(\S+)\s*$/.exec(header);
  if (!m || m[1]!.toLowerCase() !== scheme.toLowerCase()) return undefined;
  return m[2];
}

/** Finds a live credential for a secret; undefined when unknown, expired, revoked or garbled. */
export function lookupCredential(
  store: CredentialStore,
  secret: string,
  now: number,
): CredentialRecord | undefined {
  const id = parseCredentialId(secret);
  if (!id) return undefined;
  const record = store.get(id);
  if (!record || !verifySecret(secret, record)) return undefined;
  if (record.revokedAt !== null) return undefined;
  if (record.expiresAt !== null && record.expiresAt <= now) return undefined;
  return record;
}

export function authenticateCredential(
  req: FastifyRequest,
  store: CredentialStore,
  now: number,
  permission: Permission,
): CredentialRecord {
  const secret = authorizationValue(req, 'KS');
  if (!secret)
    throw new ApiError(
      'INVALID_CREDENTIAL',
      'Missing or malformed session credential (Authorization: KS <credential>)',
      challenge,
    );
  const record = lookupCredential(store, secret, now);
  if (!record) throw new ApiError('INVALID_CREDENTIAL', undefined, challenge);
  if (!record.permissions.includes(permission)) {
    throw new ApiError('CREDENTIAL_FORBIDDEN', `Session credential lacks the "${permission}" permission`);
  }
  return record;
}
