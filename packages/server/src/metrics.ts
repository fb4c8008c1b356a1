/** Prometheus metrics of one app instance (its own registry, so tests don't share counters). */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { EngineHost, EngineStats } from '@mouthpiece/engine/host';

export interface Metrics {
  registry: Registry;
  sessionsActive: Gauge;
  sessionsCreated: Counter;
  sessionsEnded: Counter<'reason'>;
  requestDuration: Histogram<'route' | 'method' | 'status'>;
  rateLimited: Counter<'scope'>;
  engineFailures: Counter;
}

export function createMetrics(opts: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (opts.defaultMetrics) collectDefaultMetrics({ register: registry, prefix: 'mouthpiece_' });
  return {
    registry,
    sessionsActive: new Gauge({
      name: 'mouthpiece_sessions_active',
      help: 'Active sessions',
      registers: [registry],
    }),
    sessionsCreated: new Counter({
      name: 'mouthpiece_sessions_created_total',
      help: 'Sessions created',
      registers: [registry],
    }),
    sessionsEnded: new Counter({
      name: 'mouthpiece_sessions_ended_total',
      help: 'Sessions ended, by reason',
      labelNames: ['reason'],
      registers: [registry],
    }),
    requestDuration: new Histogram({
      name: 'mouthpiece_http_request_duration_seconds',
      help: 'HTTP request duration by route, method and status',
      labelNames: ['route', 'method', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    rateLimited: new Counter({
      name: 'mouthpiece_rate_limited_total',
      help: 'Requests rejected by rate limits, by scope',
      labelNames: ['scope'],
      registers: [registry],
    }),
    engineFailures: new Counter({
      name: 'mouthpiece_engine_session_failures_total',
      help: 'Sessions ended because their media failed',
      registers: [registry],
    }),
  };
}

/**
 * Media counters of each engine process (as of its last health ping), read at scrape time:
 * frames sent and skipped (a skipped frame means the engine was starved of CPU), late ticks and
 * stalls (a held media thread: it shows even when no frame was skipped). docs/operations.md lists
 * what to alert on.
 */
export function registerEngineMetrics(metrics: Metrics, stats: () => EngineStats): void {
  const gauge = (
    name: string,
    help: string,
    pick: (m: NonNullable<EngineStats['media']>[number]) => number,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ['pid'],
      registers: [metrics.registry],
      collect() {
        this.reset();
        for (const m of stats().media ?? []) this.set({ pid: String(m.pid) }, pick(m));
      },
    });
  gauge('mouthpiece_engine_sessions', 'Sessions held by each engine process', (m) => m.sessions);
  gauge(
    'mouthpiece_engine_frames_sent',
    'Video frames sent since the engine process started',
    (m) => m.framesSent,
  );
  gauge(
    'mouthpiece_engine_frames_held',
    'Video frames held back from the encoder because nothing in them changed (an avatar between movements)',
    (m) => m.framesHeld,
  );
  gauge(
    'mouthpiece_engine_frames_skipped',
    'Video frames skipped because their media tick ran late (CPU starvation)',
    (m) => m.framesSkipped,
  );
  gauge(
    'mouthpiece_engine_ticks_skipped',
    'Media ticks the clock jumped over after holding more than 10 ticks (100 ms) late',
    (m) => m.skippedTicks,
  );
  gauge('mouthpiece_engine_tick_max_late_ms', 'Latest a media tick has run, in ms', (m) => m.maxLateMs);
  gauge(
    'mouthpiece_engine_tick_recent_max_late_ms',
    'Latest a media tick has run during the last health ping interval (5 s), in ms',
    (m) => m.recentMaxLateMs,
  );
  // a counter, so an alert can take increase(): set from each process's total at scrape time
  new Counter({
    name: 'mouthpiece_engine_tick_stalls_total',
    help: 'Media ticks that ran 40 ms or more late (the media thread was held: viewers saw a frame held too long)',
    labelNames: ['pid'],
    registers: [metrics.registry],
    collect() {
      this.reset();
      for (const m of stats().media ?? []) this.inc({ pid: String(m.pid) }, m.stalls);
    },
  });
}

/**
 * Voice provider requests (each sentence is one), failures by reason and the time to their first
 * audio, by provider, from the engines' `voiceRequest` events. Returns the unsubscribe function.
 */
export function registerVoiceMetrics(metrics: Metrics, engine: Pick<EngineHost, 'onEvent'>): () => void {
  const requests = new Counter({
    name: 'mouthpiece_voice_requests_total',
    help: 'Speech synthesis requests (one per sentence or clause), by provider',
    labelNames: ['provider'],
    registers: [metrics.registry],
  });
  const failures = new Counter({
    name: 'mouthpiece_voice_failures_total',
    help: 'Speech synthesis requests that failed, by provider and reason',
    labelNames: ['provider', 'reason'],
    registers: [metrics.registry],
  });
  const firstAudio = new Histogram({
    name: 'mouthpiece_voice_first_audio_seconds',
    help: 'From sending a synthesis request to its first audio, by provider',
    labelNames: ['provider'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1, 1.5, 2.5, 5],
    registers: [metrics.registry],
  });
  return engine.onEvent((e) => {
    if (e.type !== 'voiceRequest') return;
    requests.inc({ provider: e.provider });
    if (e.failure) failures.inc({ provider: e.provider, reason: e.failure });
    if (e.firstByteMs !== undefined) firstAudio.observe({ provider: e.provider }, e.firstByteMs / 1000);
  });
}
