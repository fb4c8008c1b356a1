/** `Authorization: KS <secret>` → the credential record, or an ApiError (401/403). */
import type { FastifyRequest } from 'fastify';
import { ApiError, KS_CHALLENGE } from '../errors.js';
import type { CredentialRecord, CredentialStore, Permission } from '../storage/ports.js';
import { oneAuthorization } from '../single-value.js';
import { parseCredentialId, verifySecret } from './credential-secret.js';

const challenge = { 'WWW-Authenticate': KS_CHALLENGE };

/** Extracts the value after a scheme (case-insensitive), or undefined; a 400 when the header is repeated. */
export function authorizationValue(req: FastifyRequest, scheme: string): string | undefined {
  const header = oneAuthorization(req);
  if (header === undefined) return undefined;
  const m = /^(\S+)\s+(\S+)\s*$/.exec(header);
  if (!m || m[1]!.toLowerCase() !== scheme.toLowerCase()) return undefined;
  return m[2];
}

/** Why a presented credential is refused, or the live record. */
export async function checkCredential(
  store: CredentialStore,
  secret: string,
  now: number,
): Promise<{ record: CredentialRecord } | { problem: string }> {
  const id = parseCredentialId(secret);
  if (!id)
    return { problem: 'malformed; send "Authorization: KS <credential>" with the whole secret (mp_…)' };
  const record = await store.get(id);
  if (!record || !verifySecret(secret, record))
    return {
      problem:
        'unknown credential (not issued by this server, or cut short); `mouthpiece credentials list` shows the ids it knows',
    };
  if (record.revokedAt !== null)
    return { problem: `it was revoked at ${new Date(record.revokedAt).toISOString()}` };
  if (record.expiresAt !== null && record.expiresAt <= now)
    return { problem: `it expired at ${new Date(record.expiresAt).toISOString()}` };
  return { record };
}

export async function authenticateCredential(
  req: FastifyRequest,
  store: CredentialStore,
  now: number,
  permission: Permission,
): Promise<CredentialRecord> {
  const header = oneAuthorization(req);
  const fail = (detail: string): never => {
    // the spec's message first (clients may match on it), then what to change
    throw new ApiError('INVALID_CREDENTIAL', `Invalid or expired session credential: ${detail}`, challenge);
  };
  const useKs = 'send "Authorization: KS <credential>" (from `mouthpiece credentials create`)';
  if (header === undefined || header.trim() === '') return fail(`missing Authorization header; ${useKs}`);
  const scheme = /^\S+/.exec(header.trim())![0];
  if (scheme.toLowerCase() === 'bearer')
    return fail(
      'this route takes the session credential, not a session token: use "Authorization: KS <credential>"',
    );
  if (scheme.toLowerCase() !== 'ks') return fail(`unsupported authorization scheme "${scheme}"; ${useKs}`);
  const secret = authorizationValue(req, 'KS');
  if (!secret) return fail(`malformed Authorization header; ${useKs}, one space between`);
  const checked = await checkCredential(store, secret, now);
  if ('problem' in checked) return fail(checked.problem);
  if (!checked.record.permissions.includes(permission)) {
    throw new ApiError('CREDENTIAL_FORBIDDEN', `Session credential lacks the "${permission}" permission`);
  }
  return checked.record;
}
