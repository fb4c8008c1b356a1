import { describe, expect, it } from 'vitest';
import {
  ERROR_MESSAGE,
  ERROR_STATUS,
  ErrorCode,
  errorBody,
  isRetryableStatus,
  type ErrorBody,
} from './errors.js';
import { EndReason } from './states.js';

describe('error bodies', () => {
  it('carry the contract fields, and a 410 carries why the session ended', () => {
    for (const reason of Object.values(EndReason)) {
      const body: ErrorBody = errorBody('SESSION_ENDED', `Session ended (${reason})`, { reason });
      expect(body).toEqual({
        success: false,
        error: `Session ended (${reason})`,
        code: 'SESSION_ENDED',
        reason,
      });
      // the contract's fields come first, as a reader of the raw JSON sees them
      expect(Object.keys(body)).toEqual(['success', 'error', 'code', 'reason']);
    }
    expect(errorBody('INVALID_TOKEN')).toEqual({
      success: false,
      error: 'Invalid or expired token',
      code: 'INVALID_TOKEN',
    });
  });

  it('every code has a message and a status of 400 or more; the draining and readiness 503s are retryable', () => {
    for (const code of Object.values(ErrorCode)) {
      expect(ERROR_MESSAGE[code].length).toBeGreaterThan(0);
      expect(ERROR_STATUS[code]).toBeGreaterThanOrEqual(400);
    }
    expect(ERROR_STATUS.URI_TOO_LONG).toBe(414);
    expect(ERROR_STATUS.SHUTTING_DOWN).toBe(503);
    expect(ERROR_STATUS.NOT_READY).toBe(503);
    expect(isRetryableStatus(ERROR_STATUS.SHUTTING_DOWN)).toBe(true);
  });
});
