/**
 * A config for tests: nothing from the environment, TURN off, logs silent, `/metrics` behind
 * TEST_METRICS_TOKEN, room for 24 sessions whatever the machine's cores (the default follows
 * them), overrides applied.
 */
import { loadConfig, type Config } from '../config.js';

/** The Bearer token `/metrics` asks for in tests (TestApp's `metrics()` sends it). */
export const TEST_METRICS_TOKEN = 'test-metrics-token-0123';

export function testConfig(overrides: Partial<Config> = {}): Readonly<Config> {
  // no limit on failed authentications: tests send many 401s from one address on purpose
  const base = loadConfig({
    MOUTHPIECE_TURN: 'off',
    MOUTHPIECE_LOG_LEVEL: 'silent',
    MOUTHPIECE_AUTH_FAILURES_PER_SECOND: '0',
    MOUTHPIECE_METRICS_TOKEN: TEST_METRICS_TOKEN,
    MOUTHPIECE_MAX_SESSIONS: '24',
  });
  return Object.freeze({ ...base, ...overrides });
}
