/**
 * Every value read from a query, a header or a form field is exactly one string before it is
 * used: given twice, it is a 400 `INVALID_REQUEST` naming the parameter, never a TypeError (a
 * repeated query parameter arrives as an array) and never a silent pick (Node keeps the first of
 * a repeated `Authorization` or `Content-Type` and drops the rest; a proxy may keep the last).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from './errors.js';

/** What the readers below need of a request: Node's IncomingMessage, or a Fastify request (`raw`). */
export type HeaderSource = RawHeaders | { raw: RawHeaders };
interface RawHeaders {
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
}

function source(req: HeaderSource): RawHeaders {
  return 'raw' in req ? req.raw : req;
}

/** Every value of a header as sent, one per header line (Node's `headers` hides repeats). */
export function headerValues(req: HeaderSource, name: string): string[] {
  const { headers, rawHeaders } = source(req);
  const lower = name.toLowerCase();
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2)
    if (rawHeaders[i]!.toLowerCase() === lower) values.push(rawHeaders[i + 1]!);
  if (values.length > 0) return values;
  // a request built without raw headers: what `headers` holds
  const value = headers[lower];
  return value === undefined ? [] : [value].flat();
}

/** A header's one value (undefined when absent), or a 400 when it was given more than once. */
export function oneHeader(req: HeaderSource, name: string): string | undefined {
  const values = headerValues(req, name);
  if (values.length > 1) throw repeated(`Header "${headerName(name)}"`);
  return values[0];
}

/**
 * The one `Authorization` header, or undefined. Given twice it is a 400, whether as two header
 * lines or as one list joined with commas (what fetch's `Headers.append` and many proxies send):
 * no credential this server takes has a comma followed by a second `scheme value` pair.
 */
export function oneAuthorization(req: HeaderSource): string | undefined {
  const header = oneHeader(req, 'authorization');
  if (header !== undefined && /,\s*\S+\s+\S/.test(header))
    throw new ApiError(
      'INVALID_REQUEST',
      'Header "Authorization" must be given once (it holds a comma-separated list of credentials)',
    );
  return header;
}

/** A query parameter's one value (undefined when absent), or a 400 when it was given more than once. */
export function oneQueryValue(query: unknown, name: string): string | undefined {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  if (value === undefined || typeof value === 'string') return value;
  if (Array.isArray(value)) throw repeated(`Query parameter "${name}"`);
  throw new ApiError('INVALID_REQUEST', `Query parameter "${name}" must be one string`);
}

/**
 * A multipart text field's value, or a 400 when the form already had it (`seen` is what an
 * earlier part gave).
 */
export function oneFormField(seen: string | undefined, name: string, value: unknown): string {
  if (seen !== undefined) throw repeated(`Form field "${name}"`);
  return typeof value === 'string' ? value : String(value);
}

function repeated(what: string): ApiError {
  return new ApiError('INVALID_REQUEST', `${what} must be given once`);
}

/** `authorization` → `Authorization`, `content-type` → `Content-Type`, for messages. */
function headerName(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
}
