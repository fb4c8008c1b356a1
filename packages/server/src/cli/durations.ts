/** Durations on the command line: a number with a unit, `90s`, `30m`, `2h`, `7d` (also `ms`). */
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
type Unit = keyof typeof UNIT_MS;

export const DURATION_EXAMPLES = '90s, 30m, 2h, 7d';

/** Milliseconds, or undefined for anything but a positive number with a unit. */
export function parseDurationMs(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(text);
  if (!m) return undefined;
  const v = Math.round(Number(m[1]) * UNIT_MS[m[2] as Unit]);
  return v > 0 && Number.isFinite(v) ? v : undefined; // callers cap it per flag
}

/** A duration as the CLI accepts it, in the largest unit that keeps it whole: `2h`, `90m`, `1500ms`. */
export function durationText(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const)
    if (ms >= UNIT_MS[unit] && ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  return `${ms}ms`;
}

// words people write for units; only for suggesting the accepted form, never accepted as such
const UNIT_WORDS: Record<string, number> = {
  millisecond: 1,
  milliseconds: 1,
  msec: 1,
  msecs: 1,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  hr: 3_600_000,
  hrs: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  day: 86_400_000,
  days: 86_400_000,
  week: 604_800_000,
  weeks: 604_800_000,
};

/** What someone who wrote `2 hours` or `1 week` meant, as an accepted duration (`2h`, `7d`). */
export function suggestDuration(text: string): string | undefined {
  const lower = parseDurationMs(text.toLowerCase()); // 2H
  if (lower !== undefined) return durationText(lower);
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*$/i.exec(text);
  const perUnit = m ? UNIT_WORDS[m[2]!.toLowerCase()] : undefined;
  if (!m || perUnit === undefined) return undefined;
  const ms = Math.round(Number(m[1]) * perUnit);
  return ms > 0 && Number.isSafeInteger(ms) ? durationText(ms) : undefined;
}
