/** "30d", "12h", "90m", "45s", "1500ms" or a bare number of milliseconds → milliseconds. */
export function parseDurationMs(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(m[2] ?? 'ms') as 'ms'];
  const v = Math.round(n * unit);
  return v > 0 ? v : undefined;
}
