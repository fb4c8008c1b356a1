/** Maps engine failures to API errors: a vanished engine session means the session ended. */
import { EngineError } from '@mouthpiece/engine/host';
import { EndReason } from '@mouthpiece/protocol';
import type { AppContext } from '../app-types.js';
import { sessionEnded } from '../auth/session-guard.js';
import { ApiError } from '../errors.js';

/**
 * Calls the engine for a session. When the engine no longer has the session, the answer is 410
 * with the registry's reason (an end that raced this call), or `engine_failed` when the registry
 * has not heard yet (the engine lost it; its failure event follows).
 */
export async function engineCall<T>(
  fn: () => Promise<T>,
  session?: { ctx: AppContext; id: string },
): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (err instanceof EngineError) {
      switch (err.code) {
        case 'unknown_session':
          throw session ? await goneAnswer(session.ctx, session.id) : new ApiError('SESSION_ENDED');
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

async function goneAnswer(ctx: AppContext, sessionId: string): Promise<ApiError> {
  const record = await ctx.registry.get(sessionId).catch(() => undefined);
  if (record?.status === 'ended' && record.endReason) return sessionEnded(record);
  const reason = EndReason.ENGINE_FAILED;
  return new ApiError('SESSION_ENDED', `Session ended (${reason})`, {}, { reason });
}
