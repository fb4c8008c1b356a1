/** A config for tests: nothing from the environment, TURN off, logs silent, overrides applied. */
import { loadConfig, type Config } from '../config.js';

export function testConfig(overrides: Partial<Config> = {}): Readonly<Config> {
  // no limit on failed authentications: tests send many 401s from one address on purpose
  const base = loadConfig({
    MOUTHPIECE_TURN: 'off',
    MOUTHPIECE_LOG_LEVEL: 'silent',
    MOUTHPIECE_AUTH_FAILURES_PER_SECOND: '0',
  });
  return Object.freeze({ ...base, ...overrides });
}
