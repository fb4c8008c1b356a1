/** A session credential's creation input for tests that issue one into real stores. */
import type { CreateCredentialInput } from '../auth/credential-records.js';
import { Permission } from '../storage/ports.js';

export function sessionCredentialInput(
  name: string,
  over: Partial<CreateCredentialInput> = {},
): CreateCredentialInput {
  return {
    name,
    permissions: [Permission.SESSION_CREATE],
    maxSessions: 5,
    maxSessionDurationMs: 60_000,
    maxTextLength: 100,
    requestsPerSecond: 0,
    expiresInMs: null,
    ...over,
  };
}
