/**
 * Where the browser's share of the latency goes: the receivers' own counters (inbound-rtp stats,
 * read in the page), taken before and after a run of utterances and differenced, so the means are
 * over that run alone. Audio: the jitter buffer's mean delay, its target and the minimum it was
 * held to (A/V sync with the video raises that minimum: Chromium delays the earlier stream to meet
 * the later one). Video: the same, plus decode and the whole receive-side processing per frame.
 */
import type { Page } from 'playwright-core';
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
  report(`${title}: the receivers' own means over those rounds (ms; inbound-rtp stats)`);
  for (const [k, v] of Object.entries(delays)) report(row(`  ${k}`, [fmt(v, 1)], 46, 8));
}
