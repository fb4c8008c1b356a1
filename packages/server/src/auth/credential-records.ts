/**
 * Issuing credentials and showing them without their secrets, shared by the CLI and the admin
 * API. The secret exists only in `createCredential`'s return value; the store keeps its hash.
 */
import { generateCredential, hashSecret } from './credential-secret.js';
import type { CredentialRecord, Permission, Stores } from '../storage/ports.js';

export interface CreateCredentialInput {
  name: string;
  permissions: Permission[];
  maxSessions: number;
  maxSessionDurationMs: number;
  maxTextLength: number;
  requestsPerSecond: number;
  expiresInMs: number | null;
}

export async function createCredential(
  stores: Pick<Stores, 'credentials'>,
  input: CreateCredentialInput,
  now: number,
): Promise<{ record: CredentialRecord; secret: string }> {
  const { id, secret } = generateCredential();
  const record: CredentialRecord = {
    id,
    name: input.name,
    secretHash: hashSecret(secret),
    permissions: input.permissions,
    createdAt: now,
    expiresAt: input.expiresInMs === null ? null : now + input.expiresInMs,
    revokedAt: null,
    limits: {
      maxSessions: input.maxSessions,
      maxSessionDurationMs: input.maxSessionDurationMs,
      maxTextLength: input.maxTextLength,
      requestsPerSecond: input.requestsPerSecond,
    },
  };
  // ids are random: one already taken (all but impossible) is drawn again
  if (!(await stores.credentials.insert(record)).ok) return createCredential(stores, input, now);
  return { record, secret };
}

export type CredentialStatus = 'active' | 'revoked' | 'expired';

export function credentialStatus(c: CredentialRecord, now: number): CredentialStatus {
  if (c.revokedAt !== null) return 'revoked';
  return c.expiresAt !== null && c.expiresAt <= now ? 'expired' : 'active';
}

/** A credential as the CLI and the admin API show it: never its secret or hash. */
export function publicView(c: CredentialRecord, now: number) {
  const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
  return {
    id: c.id,
    name: c.name,
    permissions: c.permissions,
    status: credentialStatus(c, now),
    createdAt: new Date(c.createdAt).toISOString(),
    expiresAt: iso(c.expiresAt),
    revokedAt: iso(c.revokedAt),
    limits: c.limits,
  };
}
