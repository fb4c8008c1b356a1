/**
 * ApiError carries a stable code; one error handler turns every failure (ours, Fastify's, the
 * validator's, the multipart parser's) into `{success:false, error, code}` with the code's status.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_STATUS, errorBody, type ErrorCode } from '@mouthpiece/protocol';

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message?: string, headers: Record<string, string> = {}) {
    super(message ?? errorBody(code).error);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.headers = headers;
  }
}

/** The `WWW-Authenticate` value for 401s of token routes and of credential routes. */
export const BEARER_CHALLENGE = 'Bearer error="invalid_token"';
export const KS_CHALLENGE = 'KS realm="mouthpiece"';

function fromFastifyError(err: FastifyError): ApiError {
  if (err.validation) {
    return new ApiError('INVALID_REQUEST', validationMessage(err));
  }
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('UNSUPPORTED_MEDIA_TYPE');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
    case 'FST_FILES_LIMIT':
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return new ApiError('PAYLOAD_TOO_LARGE');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('INVALID_REQUEST', 'Body is not valid JSON');
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Expected multipart/form-data');
    default:
      break;
  }
  if (err instanceof SyntaxError) return new ApiError('INVALID_REQUEST', 'Body is not valid JSON');
  const status = err.statusCode ?? 500;
  if (status === 413) return new ApiError('PAYLOAD_TOO_LARGE');
  if (status === 415) return new ApiError('UNSUPPORTED_MEDIA_TYPE');
  if (status === 429) return new ApiError('RATE_LIMITED');
  if (status >= 400 && status < 500) return new ApiError('INVALID_REQUEST', err.message || undefined);
  return new ApiError('INTERNAL');
}

function validationMessage(err: FastifyError): string {
  const first = err.validation?.[0];
  if (!first) return 'Bad request';
  const path = (first.instancePath || '').replace(/^\//, '').replace(/\//g, '.');
  const missing = (first.params as { missingProperty?: string } | undefined)?.missingProperty;
  const field = missing ? (path ? `${path}.${missing}` : missing) : path;
  const where = err.validationContext === 'body' ? '' : `${err.validationContext ?? ''} `;
  return field
    ? `Invalid ${where}field "${field}": ${first.message ?? 'invalid'}`
    : `Invalid ${where}request: ${first.message ?? ''}`.trim();
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const api = err instanceof ApiError ? err : fromFastifyError(err);
    if (api.status >= 500) req.log.error({ err }, 'request failed');
    else req.log.debug({ code: api.code }, 'request rejected');
    for (const [k, v] of Object.entries(api.headers)) void reply.header(k, v);
    return reply.status(api.status).send(errorBody(api.code, api.message));
  });
  app.setNotFoundHandler((_req, reply) => reply.status(404).send(errorBody('NOT_FOUND')));
}
