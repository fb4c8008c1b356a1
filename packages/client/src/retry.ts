/**
 * Retries with exponential backoff and equal jitter (each delay between half and all of its
 * ceiling, so a retry never comes at once). Which failures retry depends on the call: requests
 * that could speak twice (create, say-text, say-audio) retry only on 429, 503 and refused
 * connections; the rest on every status the protocol calls retryable (408, 429, 5xx) and network
 * errors. Retry-After is honoured.
 */
import { isRetryableStatus } from '@mouthpiece/protocol';

export interface RetryConfig {
  maxAttempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
  backoffMultiplier: number;
}

export const DEFAULT_RETRY: RetryConfig = {
  maxAttempts: 3,
  initialDelayMs: 500,
  maxDelayMs: 5000,
  backoffMultiplier: 2,
};

export type RetryKind = 'unsafe' | 'safe';

export interface AttemptFailure {
  status?: number;
  retryAfterSec?: number;
  network?: boolean;
}

export function shouldRetry(kind: RetryKind, f: AttemptFailure): boolean {
  if (f.network) return true;
  const s = f.status ?? 0;
  return kind === 'safe' ? isRetryableStatus(s) : s === 429 || s === 503;
}

/**
 * Delay before retry `n` (1-based): equal jitter, uniformly within [ceiling / 2, ceiling] where
 * ceiling = min(maxDelayMs, initialDelayMs × backoffMultiplier^(n−1)). Retry-After wins when
 * given (capped at 4 × maxDelayMs).
 */
export function backoffMs(
  cfg: RetryConfig,
  retry: number,
  f: AttemptFailure,
  random: () => number = Math.random,
): number {
  if (f.retryAfterSec !== undefined && Number.isFinite(f.retryAfterSec))
    return Math.min(cfg.maxDelayMs * 4, f.retryAfterSec * 1000);
  const ceiling = Math.min(cfg.maxDelayMs, cfg.initialDelayMs * cfg.backoffMultiplier ** (retry - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

export function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  const n = Number(value);
  if (Number.isFinite(n)) return Math.max(0, n);
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, (at - Date.now()) / 1000) : undefined;
}

/** Accepts the spec's flat fields or a nested `retry` object (nested wins). */
export function retryConfig(config: Partial<RetryConfig> & { retry?: Partial<RetryConfig> }): RetryConfig {
  const pick = (k: keyof RetryConfig): number => {
    const v = config.retry?.[k] ?? config[k];
    return typeof v === 'number' && v >= 0 ? v : DEFAULT_RETRY[k];
  };
  return {
    maxAttempts: Math.max(1, Math.floor(pick('maxAttempts'))),
    initialDelayMs: pick('initialDelayMs'),
    maxDelayMs: pick('maxDelayMs'),
    backoffMultiplier: Math.max(1, pick('backoffMultiplier')),
  };
}
