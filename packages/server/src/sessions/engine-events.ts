/**
 * What the engine's events mean for the sessions (session-registry.ts subscribes this): a session
 * whose media failed ends `engine_failed`, or its create is aborted (and either is counted), viewers joining and leaving are logged,
 * and speech events are left to the event streams (session-events.ts), the metrics and the engine
 * pool's own log.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { EngineHost } from '@mouthpiece/engine/host';
import type { Metrics } from '../metrics.js';

export interface EngineEventDeps {
  log: FastifyBaseLogger;
  metrics: Metrics;
  /** True while the registry holds the session (being created, live, or ended and not yet released). */
  isLive(sessionId: string): boolean;
  /** Its media failed: an active session ends `engine_failed`, a create under way is aborted. */
  failed(sessionId: string): void;
}

/** Subscribes to the engine's events; returns the unsubscribe function. */
export function followEngineEvents(engine: EngineHost, d: EngineEventDeps): () => void {
  return engine.onEvent((e) => {
    switch (e.type) {
      case 'sessionFailed':
        if (!d.isLive(e.sessionId)) break;
        d.log.error({ sessionId: e.sessionId, message: e.message }, 'session media failed');
        d.metrics.engineFailures.inc();
        d.failed(e.sessionId);
        break;
      case 'viewerConnected':
        d.log.info({ sessionId: e.sessionId, viewerId: e.viewerId }, 'viewer connected');
        break;
      case 'viewerDisconnected':
        d.log.info({ sessionId: e.sessionId, viewerId: e.viewerId }, 'viewer disconnected');
        break;
      case 'speakingStart':
      case 'word':
      case 'speakingEnd': // for backends: session-events.ts
      case 'turnFailed': // logged by the engine pool; the session lives
      case 'voiceRequest': // counted by the metrics
      case 'audioTurnEnded': // told to its audio socket and counted (routes/audio-stream.ts)
        break;
    }
  });
}
