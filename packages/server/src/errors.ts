/**
 * ApiError carries a stable code; one error handler turns every failure (ours, Fastify's, the
 * validator's, the multipart parser's) into `{success:false, error, code}` with the code's status.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_STATUS, errorBody, type ErrorCode } from '@mouthpiece/protocol';

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;
  /** Fields the body carries beside `success`, `error` and `code` (e.g. a 410's `reason`). */
  readonly extra: Record<string, string>;

  constructor(
    code: ErrorCode,
    message?: string,
    headers: Record<string, string> = {},
    extra: Record<string, string> = {},
  ) {
    super(message ?? errorBody(code).error);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.headers = headers;
    this.extra = extra;
  }
}

/** The `WWW-Authenticate` value for 401s of token routes and of credential routes. */
export const BEARER_CHALLENGE = 'Bearer error="invalid_token"';
export const KS_CHALLENGE = 'KS realm="mouthpiece"';

function fromFastifyError(err: FastifyError, req: FastifyRequest): ApiError {
  if (err.validation) {
    return new ApiError('INVALID_REQUEST', validationMessage(err));
  }
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return unsupportedMediaType(req);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
    case 'FST_FILES_LIMIT':
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return new ApiError('PAYLOAD_TOO_LARGE');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('INVALID_REQUEST', 'Body is not valid JSON');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError('URI_TOO_LONG', `A path segment is longer than ${MAX_PARAM_LENGTH} characters`);
    case 'FST_ERR_BAD_URL':
      return new ApiError('INVALID_REQUEST', 'The request path is not a valid URL (bad percent-encoding)');
    default:
      break;
  }
  if (err instanceof SyntaxError) return new ApiError('INVALID_REQUEST', 'Body is not valid JSON');
  const status = err.statusCode ?? 500;
  if (status === 413) return new ApiError('PAYLOAD_TOO_LARGE');
  if (status === 415) return unsupportedMediaType(req);
  if (status === 429) return new ApiError('RATE_LIMITED');
  if (status >= 400 && status < 500) return new ApiError('INVALID_REQUEST', err.message || undefined);
  return new ApiError('INTERNAL');
}

/** The one limit on path segments (session ids are 22 characters). */
export const MAX_PARAM_LENGTH = 200;

/** 415 naming what was sent and what the route takes (its schema's `consumes`, else JSON). */
export function unsupportedMediaType(req: FastifyRequest): ApiError {
  const consumes = (req.routeOptions.schema as { consumes?: string[] } | undefined)?.consumes ?? [
    'application/json',
  ];
  const sent = req.headers['content-type']?.split(';')[0]?.trim();
  return new ApiError(
    'UNSUPPORTED_MEDIA_TYPE',
    `Unsupported media type ${sent ? `"${sent}"` : '(no Content-Type)'}: this route takes ${consumes.join(' or ')}`,
  );
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

function send(api: ApiError, reply: FastifyReply): FastifyReply {
  for (const [k, v] of Object.entries(api.headers)) void reply.header(k, v);
  return reply.status(api.status).send({ ...api.extra, ...errorBody(api.code, api.message) });
}

/** Fastify's errors raised before routing (bad URL, over-long path parameter), in our body. */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  void send(fromFastifyError(err, req), reply);
}

/** Errors Node's HTTP parser raises before Fastify sees a request (431, 408, 400), in our body. */
export function clientErrorHandler(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const api =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new ApiError(
          'HEADERS_TOO_LARGE',
          'Request headers too large (the request line and headers are limited to 16 KiB)',
        )
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new ApiError('REQUEST_TIMEOUT')
        : new ApiError('INVALID_REQUEST', 'Malformed HTTP request');
  const body = JSON.stringify(errorBody(api.code, api.message));
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${api.status} ${STATUS_CODES[api.status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  socket.destroy();
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const api = err instanceof ApiError ? err : fromFastifyError(err, req);
    if (api.status >= 500) req.log.error({ err }, 'request failed');
    else req.log.debug({ code: api.code }, 'request rejected');
    return send(api, reply);
  });
  // Routes by method, so a path that exists under another method answers 405 with `Allow`.
  const routes: Array<{ re: RegExp; methods: string[] }> = [];
  app.addHook('onRoute', (route) => {
    if (route.url.includes('*')) return; // catch-all static files: not a method hint
    const re = new RegExp(`^${route.url.replace(/:[^/]+/g, '[^/]+').replace(/\/$/, '')}/?$`);
    const methods = [route.method].flat().filter((m) => m !== 'HEAD' && m !== 'OPTIONS');
    routes.push({ re, methods });
  });
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0]!;
    const allow = [...new Set(routes.filter((r) => r.re.test(path)).flatMap((r) => r.methods))];
    if (allow.length > 0 && !allow.includes(req.method))
      return send(
        new ApiError(
          'METHOD_NOT_ALLOWED',
          `Method ${req.method} is not allowed here; use ${allow.join(' or ')}`,
          {
            Allow: allow.join(', '),
          },
        ),
        reply,
      );
    return send(
      new ApiError('NOT_FOUND', `No route ${req.method} ${path} (see GET /v1/openapi.json)`),
      reply,
    );
  });
}
