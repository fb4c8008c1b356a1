/**
 * Retries with exponential backoff and full jitter. Which failures retry depends on the call:
 * requests that could speak twice (create, say-text, say-audio) retry only on 429, 503 and refused
 * connections; the rest also on 408, other 5xx and network errors. Retry-After is honoured.
 */
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
  if (s === 429 || s === 503) return true;
  return kind === 'safe' && (s === 408 || s >= 500);
}

/** Delay before attempt `n` (1-based retry count), with full jitter; Retry-After wins when given. */
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
