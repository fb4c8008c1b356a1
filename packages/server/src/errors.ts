/**
 * ApiError carries a stable code; one error handler turns every failure (ours, Fastify's, the
 * validator's, the multipart parser's) into `{success:false, error, code}` with the code's status.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_STATUS, errorBody, type ErrorBodyExtra, type ErrorCode } from '@mouthpiece/protocol';
import { CodedError } from '@mouthpiece/protocol';
import { StorageError } from './storage/errors.js';

export class ApiError extends CodedError {
  static override code = 'ERR_API';
  override readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;
  /** Fields the body carries beside `success`, `error` and `code` (a 410's `reason`). */
  readonly extra: ErrorBodyExtra;

  constructor(
    code: ErrorCode,
    message?: string,
    headers: Record<string, string> = {},
    extra: ErrorBodyExtra = {},
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
      return new ApiError('PAYLOAD_TOO_LARGE', `Payload too large: ${bodyLimitOf(req)}`);
    case 'FST_REQ_FILE_TOO_LARGE':
      return new ApiError('PAYLOAD_TOO_LARGE', 'Payload too large: the file is over the upload limit');
    case 'FST_FILES_LIMIT':
      return new ApiError(
        'PAYLOAD_TOO_LARGE',
        'Payload too large: the form carries more than one file; send one file, in the field "audio"',
      );
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return new ApiError(
        'PAYLOAD_TOO_LARGE',
        'Payload too large: the form has too many fields; send "audio", "turnId" and "duration"',
      );
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('INVALID_REQUEST', 'Body is not valid JSON');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError(
        'INVALID_REQUEST',
        'Body is empty but Content-Type is application/json: send a JSON object, or no Content-Type',
      );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError('URI_TOO_LONG', `A path segment is longer than ${MAX_PARAM_LENGTH} characters`);
    case 'FST_ERR_BAD_URL':
      return new ApiError('INVALID_REQUEST', 'The request path is not a valid URL (bad percent-encoding)');
    default:
      break;
  }
  if (err instanceof SyntaxError) return new ApiError('INVALID_REQUEST', 'Body is not valid JSON');
  // a store that is locked (after its retries) or failing (disk full, read-only, I/O, Redis unreachable)
  if (err instanceof StorageError)
    return new ApiError('STORAGE_UNAVAILABLE', undefined, { 'Retry-After': '2' });
  const status = err.statusCode ?? 500;
  if (status === 413) return new ApiError('PAYLOAD_TOO_LARGE', `Payload too large: ${bodyLimitOf(req)}`);
  if (status === 415) return unsupportedMediaType(req);
  if (status === 416) return new ApiError('RANGE_NOT_SATISFIABLE');
  if (status === 429) return new ApiError('RATE_LIMITED');
  if (status >= 400 && status < 500) return new ApiError('INVALID_REQUEST', err.message || undefined);
  return new ApiError('INTERNAL');
}

/** The one limit on path segments (session ids are 22 characters). */
export const MAX_PARAM_LENGTH = 200;

/** What a route's body may weigh, for a 413's message. */
function bodyLimitOf(req: FastifyRequest): string {
  const limit = req.routeOptions.bodyLimit;
  return limit ? `this route takes at most ${formatBytes(limit)}` : 'the body is over the limit';
}

/** `1 MiB`, `256 KiB`, `1500 bytes`. */
export function formatBytes(n: number): string {
  return n >= 1024 * 1024 && n % (1024 * 1024) === 0
    ? `${n / (1024 * 1024)} MiB`
    : n >= 1024 && n % 1024 === 0
      ? `${n / 1024} KiB`
      : `${n} bytes`;
}

/**
 * 415 naming the type the route expects (its schema's `consumes`, else JSON) and the one it
 * received: `Unsupported media type: expected application/json (received text/plain)`.
 */
export function unsupportedMediaType(req: FastifyRequest): ApiError {
  const consumes = (req.routeOptions.schema as { consumes?: string[] } | undefined)?.consumes ?? [
    'application/json',
  ];
  const sent = req.headers['content-type']?.split(';')[0]?.trim();
  return new ApiError(
    'UNSUPPORTED_MEDIA_TYPE',
    `Unsupported media type: expected ${consumes.join(' or ')} (received ${sent ? sent : 'no Content-Type'})`,
  );
}

function validationMessage(err: FastifyError): string {
  const first = err.validation?.[0];
  if (!first) return 'Bad request';
  const path = (first.instancePath || '').replace(/^\//, '').replace(/\//g, '.');
  const missing = (first.params as { missingProperty?: string } | undefined)?.missingProperty;
  const field = missing ? (path ? `${path}.${missing}` : missing) : path;
  const where = err.validationContext === 'body' ? '' : `${err.validationContext ?? ''} `;
  if (field) return `Invalid ${where}field "${field}": ${first.message ?? 'invalid'}`;
  if (err.validationContext === 'body')
    return `Invalid body: ${first.message ?? 'invalid'} (send a JSON object with Content-Type: application/json)`;
  return `Invalid ${where}request: ${first.message ?? ''}`.trim();
}

function send(api: ApiError, reply: FastifyReply): FastifyReply {
  for (const [k, v] of Object.entries(api.headers)) void reply.header(k, v);
  return reply.status(api.status).send(errorBody(api.code, api.message, api.extra));
}

/** Fastify's errors raised before routing (bad URL, over-long path parameter), in our body. */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  void send(fromFastifyError(err, req), reply);
}

/** What Node's HTTP parser's error codes mean, for the 400's message. */
const PARSER_ERRORS: Record<string, string> = {
  HPE_INVALID_METHOD: 'unknown method',
  HPE_INVALID_URL: 'the request target is not a path',
  HPE_INVALID_CONTENT_LENGTH: 'Content-Length is not a number',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'Content-Length and Transfer-Encoding together',
  HPE_INVALID_TRANSFER_ENCODING: 'Transfer-Encoding is invalid, or sent with Content-Length',
  HPE_INVALID_CHUNK_SIZE: 'a chunk size is not hexadecimal',
  HPE_INVALID_HEADER_TOKEN: 'a header name has characters HTTP does not allow',
  HPE_INVALID_VERSION: 'unknown HTTP version',
};

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
        : new ApiError(
            'INVALID_REQUEST',
            `Malformed HTTP request: ${PARSER_ERRORS[err.code ?? ''] ?? err.code ?? 'unreadable'}`,
          );
  writeRaw(socket, api);
}

/** Writes an error answer straight to a socket (no request object exists yet) and closes it. */
function writeRaw(socket: Duplex, api: ApiError): void {
  const body = JSON.stringify(errorBody(api.code, api.message, api.extra));
  const headers = Object.entries(api.headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  // closed once the answer is flushed
  socket.end(
    `HTTP/1.1 ${api.status} ${STATUS_CODES[api.status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\n${headers}Connection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}

/** A CONNECT (proxy tunnel) request: this is no proxy. Node would close the socket silently. */
export function refuseConnect(_req: unknown, socket: Duplex): void {
  writeRaw(
    socket,
    new ApiError('METHOD_NOT_ALLOWED', 'CONNECT is not supported: this server is not a proxy'),
  );
}

export function registerErrorHandling(app: FastifyInstance): void {
  // While the server drains, new requests get our 503 (Fastify's own would have its own body;
  // the app is built with return503OnClosing off).
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (req, _reply, done) => {
    if (closing)
      return done(new ApiError('SHUTTING_DOWN', undefined, { 'Retry-After': '2', Connection: 'close' }));
    // HTTP/1.1 needs a Host (Node's own refusal would be an empty 400: the app lets it through)
    if (req.raw.httpVersion === '1.1' && !req.headers.host)
      return done(new ApiError('INVALID_REQUEST', 'HTTP/1.1 requests need a Host header'));
    done();
  });
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
