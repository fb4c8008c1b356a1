/**
 * Session JWTs (docs/design.md §4.13): HS256 pinned, issuer, audience, required claims, injected clock.
 * exp = creation + max duration + retention, so an ended session answers 410 through retention.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT, errors as joseErrors, jwtVerify } from 'jose';
import type { Clock } from '../clock.js';

export const TOKEN_ISSUER = 'mouthpiece';
export const TOKEN_AUDIENCE = 'mouthpiece-session';

export interface SessionClaims {
  sessionId: string;
  credentialId: string;
}

/** Why a token was refused: what a developer has to change. */
export type TokenProblem = 'malformed' | 'bad_signature' | 'wrong_issuer' | 'expired';

export type TokenCheck =
  { ok: true; claims: SessionClaims } | { ok: false; problem: TokenProblem; expiredAt?: number };

/** Verified tokens are remembered (until they expire) so a keep-alive costs no HMAC. */
const CACHE_MAX = 10_000;

export class TokenService {
  readonly #key: Uint8Array;
  readonly #clock: Clock;
  readonly #verified = new Map<string, SessionClaims & { expMs: number }>();

  constructor(secret: string, clock: Clock) {
    this.#key = new TextEncoder().encode(secret);
    this.#clock = clock;
  }

  async issue(claims: SessionClaims, lifetimeMs: number): Promise<string> {
    const nowSec = Math.floor(this.#clock.now() / 1000);
    return new SignJWT({ sid: claims.sessionId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(TOKEN_ISSUER)
      .setAudience(TOKEN_AUDIENCE)
      .setSubject(claims.credentialId)
      .setJti(randomUUID())
      .setIssuedAt(nowSec)
      .setExpirationTime(nowSec + Math.ceil(lifetimeMs / 1000))
      .sign(this.#key);
  }

  /** The claims of a valid token, or undefined (bad signature, expired, wrong alg/iss/aud, missing claims). */
  async verify(token: string): Promise<SessionClaims | undefined> {
    const r = await this.check(token);
    return r.ok ? r.claims : undefined;
  }

  /** The claims of a valid token, or why it is refused. */
  async check(token: string): Promise<TokenCheck> {
    const hit = this.#verified.get(token);
    if (hit) {
      if (hit.expMs > this.#clock.now())
        return { ok: true, claims: { sessionId: hit.sessionId, credentialId: hit.credentialId } };
      this.#verified.delete(token);
      return { ok: false, problem: 'expired', expiredAt: hit.expMs };
    }
    try {
      const { payload } = await jwtVerify(token, this.#key, {
        algorithms: ['HS256'],
        issuer: TOKEN_ISSUER,
        audience: TOKEN_AUDIENCE,
        requiredClaims: ['sid', 'sub', 'jti', 'iat', 'exp'],
        currentDate: new Date(this.#clock.now()),
      });
      if (
        typeof payload['sid'] !== 'string' ||
        typeof payload.sub !== 'string' ||
        typeof payload.exp !== 'number'
      )
        return { ok: false, problem: 'wrong_issuer' };
      const claims = { sessionId: payload['sid'], credentialId: payload.sub };
      if (this.#verified.size >= CACHE_MAX) this.#verified.delete(this.#verified.keys().next().value!);
      this.#verified.set(token, { ...claims, expMs: payload.exp * 1000 });
      return { ok: true, claims };
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) {
        const exp = err.payload.exp;
        return {
          ok: false,
          problem: 'expired',
          ...(typeof exp === 'number' ? { expiredAt: exp * 1000 } : {}),
        };
      }
      if (err instanceof joseErrors.JWSSignatureVerificationFailed)
        return { ok: false, problem: 'bad_signature' };
      if (err instanceof joseErrors.JWTClaimValidationFailed || err instanceof joseErrors.JOSEAlgNotAllowed)
        return { ok: false, problem: 'wrong_issuer' };
      return { ok: false, problem: 'malformed' };
    }
  }
}
