/** Maps engine failures to API errors: a vanished engine session means the session ended. */
import { EngineError } from '@mouthpiece/engine/host';
import { ApiError } from '../errors.js';

export async function engineCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (err instanceof EngineError) {
      switch (err.code) {
        case 'unknown_session':
          throw new ApiError('SESSION_ENDED');
        case 'unknown_viewer':
          throw new ApiError('NOT_FOUND', 'No such WHEP resource');
        case 'unsupported_offer':
          throw new ApiError('UNSUPPORTED_OFFER', err.message);
        case 'invalid_request':
          throw new ApiError('INVALID_REQUEST', err.message);
        case 'engine_unavailable':
          throw new ApiError('ENGINE_UNAVAILABLE', undefined, { 'Retry-After': '2' });
        case 'internal':
          break;
      }
    }
    throw err;
  }
}
