/**
 * Where the browser's share of the latency goes: the receivers' own counters (inbound-rtp stats,
 * read in the page), taken before and after a run of utterances and differenced, so the means are
 * over that run alone. Audio: the jitter buffer's mean delay, its target and the minimum it was
 * held to (A/V sync with the video raises that minimum: Chromium delays the earlier stream to meet
 * the later one). Video: the same, plus decode and the whole receive-side processing per frame.
 */
import type { Page } from 'playwright-core';
import { readMetrics } from '../../e2e/harness/server.js';
import { fmt, report, row } from '../lib/measure.js';

type Counters = Record<string, number>;
export type Snapshot = Record<'audio' | 'video', Counters>;

const KEYS = [
  'jitterBufferDelay',
  'jitterBufferTargetDelay',
  'jitterBufferMinimumDelay',
  'jitterBufferEmittedCount',
  'totalDecodeTime',
  'totalProcessingDelay',
  'totalAssemblyTime',
  'framesDecoded',
  'framesAssembledFromMultiplePackets',
] as const;

/** The inbound-rtp counters of the page's peer connection (the plain WHEP client's `mpTest.pc`). */
export async function snapshot(page: Page): Promise<Snapshot> {
  return page.evaluate(
    async (keys) => {
      const out: Record<string, Record<string, number>> = { audio: {}, video: {} };
      const pc = (window as unknown as { mpTest: { pc: RTCPeerConnection } }).mpTest.pc;
      for (const s of (await pc.getStats()).values()) {
        if (s.type !== 'inbound-rtp') continue;
        const o = out[s.kind as string]!;
        for (const k of keys) if (typeof s[k] === 'number') o[k] = s[k];
      }
      return out as Snapshot;
    },
    KEYS as unknown as string[],
  );
}

/** Mean ms per emitted sample (audio) or frame (video) between two snapshots, by counter. */
export function delaysMs(a: Snapshot, b: Snapshot): Record<string, number> {
  const out: Record<string, number> = {};
  for (const kind of ['audio', 'video'] as const) {
    const d = (k: string): number => (b[kind][k] ?? NaN) - (a[kind][k] ?? NaN);
    const emitted = d('jitterBufferEmittedCount');
    for (const k of ['jitterBufferDelay', 'jitterBufferTargetDelay', 'jitterBufferMinimumDelay'])
      out[`${kind}.${k}`] = (d(k) / emitted) * 1000;
    if (kind === 'video') {
      const frames = d('framesDecoded');
      out['video.totalDecodeTime'] = (d('totalDecodeTime') / frames) * 1000;
      out['video.totalProcessingDelay'] = (d('totalProcessingDelay') / frames) * 1000;
      const multi = d('framesAssembledFromMultiplePackets');
      out['video.totalAssemblyTime'] = multi > 0 ? (d('totalAssemblyTime') / multi) * 1000 : 0;
    }
  }
  return out;
}

/** Prints the means, one row each. */
export function reportDelays(title: string, delays: Record<string, number>): void {
  report(
    `${title}, over those rounds: the receivers' own means (ms; inbound-rtp stats) and the engine's clock`,
  );
  for (const [k, v] of Object.entries(delays)) report(row(`  ${k}`, [fmt(v, 1)], 46, 8));
}

/**
 * The engine's own media clock over the same rounds (/metrics, updated at each health ping): ticks
 * skipped (a stall past the catch-up: that audio's RTP time is gone, so later packets read as late
 * to the receiver's jitter buffer), wake-ups a frame or more late, and the latest wake-up.
 */
const ENGINE = [
  'mouthpiece_engine_ticks_skipped',
  'mouthpiece_engine_tick_stalls_total',
  'mouthpiece_engine_frames_skipped',
  'mouthpiece_engine_tick_max_late_ms',
] as const;

export async function engineCounters(url: string): Promise<Record<string, number>> {
  const text = await readMetrics(url);
  const out: Record<string, number> = {};
  for (const name of ENGINE) {
    let sum = 0;
    for (const m of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'gm')))
      sum += Number(m[1]);
    out[name.replace('mouthpiece_engine_', 'engine.')] = sum;
  }
  return out;
}

/** Counters differenced; the max-late gauge kept as the later reading. */
export function engineDelta(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(b)) out[k] = k.endsWith('max_late_ms') ? v : v - (a[k] ?? 0);
  return out;
}
