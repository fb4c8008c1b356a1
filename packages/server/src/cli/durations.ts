/** Durations on the command line: a number with a unit, `90s`, `30m`, `2h`, `7d` (also `ms`). */
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export const DURATION_EXAMPLES = '90s, 30m, 2h, 7d';

/** Milliseconds, or undefined for anything but a positive number with a unit. */
export function parseDurationMs(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(text);
  if (!m) return undefined;
  const v = Math.round(Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]);
  return v > 0 ? v : undefined;
}

/** A duration for people: `2h`, `90s`, `1d 6h`. */
export function formatDurationMs(ms: number): string {
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  for (const [unit, sec] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (rest >= sec) {
      parts.push(`${Math.floor(rest / sec)}${unit}`);
      rest %= sec;
    }
  }
  return parts.join(' ') || `${ms}ms`;
}
