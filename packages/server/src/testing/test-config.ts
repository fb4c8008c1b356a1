/** A config for tests: nothing from the environment, TURN off, logs silent, overrides applied. */
import { loadConfig, type Config } from '../config.js';

export function testConfig(overrides: Partial<Config> = {}): Readonly<Config> {
  const base = loadConfig({ MOUTHPIECE_TURN: 'off', MOUTHPIECE_LOG_LEVEL: 'silent' });
  return Object.freeze({ ...base, ...overrides });
}
