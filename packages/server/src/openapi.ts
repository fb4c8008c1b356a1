/**
 * Finishes the OpenAPI document @fastify/swagger builds from the route schemas, so client
 * generators produce usable code: an operationId on every operation, one named error response
 * per status a route can answer (instead of 4XX/5XX), the request bodies schemas cannot express
 * (say-audio's multipart fields, WHEP's SDP), and the operations routes (health, readiness,
 * metrics). One table below says, per operation, its id and the statuses it can answer.
 */
import { AvatarInfo, EndReason, ErrorResponse } from '@mouthpiece/protocol';

type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components?: Record<string, Record<string, unknown>>;
};
type Operation = {
  operationId?: string;
  summary?: string;
  tags?: string[];
  requestBody?: unknown;
  responses?: Record<string, unknown>;
  [k: string]: unknown;
};

/** A named response for every error status, with the error body. */
const ERROR_RESPONSES: Record<number, [name: string, description: string]> = {
  400: ['BadRequest', 'The request is invalid; `error` says which field and why'],
  401: ['Unauthorized', 'Missing, malformed, expired or unknown credential or token; `error` says which'],
  403: ['Forbidden', 'Valid credential or token, but not for this operation or session'],
  404: ['NotFound', 'No such session (never created, or purged after retention) or resource'],
  405: ['MethodNotAllowed', 'The path exists under another method (see `Allow`)'],
  409: [
    'Conflict',
    'The turn is already final, or already playing; or an avatar id is taken, or not an uploaded one',
  ],
  410: ['SessionEnded', 'The session has ended; `reason` says why (idle_timeout, max_duration, …)'],
  413: ['PayloadTooLarge', 'The body is over its limit'],
  415: ['UnsupportedMediaType', 'Wrong Content-Type; `error` names the one this route takes'],
  422: [
    'UnsupportedOffer',
    'The SDP offer has no codec the server can send (VP8, VP9, AV1); or an uploaded photo cannot be animated (no face, several, too small)',
  ],
  429: [
    'TooManyRequests',
    'Rate limited, too many sessions for the credential, a full speech queue (see `Retry-After`), or too many event streams open for the session (close one)',
  ],
  500: ['ServerError', 'Internal error'],
  503: [
    'ServiceUnavailable',
    'At capacity, no engine process is running, storage locked or failing, not ready, or shutting down (see `Retry-After`)',
  ],
};

/** Statuses every operation can answer whatever it does (503 `SHUTTING_DOWN` while the server drains). */
const ANY = [503];

const TOKEN = [401, 403, 404, 410, 429, 500];
const BODY = [400, 413, 415];
const CREATE = [400, 401, 403, 413, 415, 429, 500, 503];
const ADMIN = [400, 401, 403, 404, 413, 415, 500];

const HEAD_OK = { description: "The GET's headers (ETag, Content-Length, Content-Type), no body" };
const NOT_MODIFIED = { description: 'Not modified: the If-None-Match ETag is the current one' };

const text = (type: string, description: string) => ({
  required: true,
  content: { [type]: { schema: { type: 'string', description } } },
});

/** Per `METHOD path`: operationId, error statuses, and what the route schemas cannot say. */
const OPERATIONS: Record<
  string,
  {
    id: string;
    errors: number[];
    body?: unknown;
    /** Success answers replacing the schema's. */
    success?: Record<string, unknown>;
    /** Answers added beside the schema's (a 304). */
    more?: Record<string, unknown>;
  }
> = {
  'post /v1/avatar-session': { id: 'createSession', errors: CREATE },
  'post /v1/avatar-session/create': { id: 'createSessionAlias', errors: CREATE },
  'post /v1/avatar-session/{sessionId}/init-client': { id: 'initClient', errors: TOKEN },
  'post /v1/avatar-session/{sessionId}/say-text': { id: 'sayText', errors: [...BODY, 409, ...TOKEN, 503] },
  'post /v1/avatar-session/{sessionId}/say-audio': {
    id: 'sayAudio',
    errors: [...BODY, 409, ...TOKEN, 503],
    body: {
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            required: ['audio', 'turnId', 'duration'],
            properties: {
              audio: {
                type: 'string',
                format: 'binary',
                description:
                  'MP3 or WAV, 100 ms to 5 min, at most 10 MiB by default. The form takes one file: sent under another field name (`file`, `blob`, …), it is taken as the audio; no file at all is a 400 INVALID_AUDIO.',
              },
              turnId: { type: 'string', description: 'The turn this audio belongs to' },
              duration: {
                type: 'string',
                description:
                  'Seconds, as a positive number. The decoded duration is what plays; it is echoed as `decodedDuration`.',
              },
            },
          },
        },
      },
    },
  },
  'post /v1/avatar-session/{sessionId}/interrupt': { id: 'interrupt', errors: [...TOKEN, 503] },
  'post /v1/avatar-session/{sessionId}/keep-alive': { id: 'keepAlive', errors: TOKEN },
  'post /v1/avatar-session/{sessionId}/end': { id: 'endSession', errors: TOKEN },
  'post /v1/avatar-session/{sessionId}/whep': {
    id: 'whepOffer',
    errors: [400, 413, 415, 422, ...TOKEN, 503],
    body: text(
      'application/sdp',
      'The SDP offer (receive-only audio and video; an `events` data channel optional)',
    ),
    success: {
      201: {
        description: 'The SDP answer; `Location` names the WHEP resource, `Link` the ICE servers',
        content: { 'application/sdp': { schema: { type: 'string' } } },
      },
    },
  },
  'patch /v1/avatar-session/{sessionId}/whep/{viewerId}': {
    id: 'whepTrickle',
    errors: [400, 404, 410, 413, 415, 500],
    body: text('application/trickle-ice-sdpfrag', 'Trickled ICE candidates'),
    success: { 204: { description: 'Candidates added' } },
  },
  'delete /v1/avatar-session/{sessionId}/whep/{viewerId}': { id: 'whepDelete', errors: [404, 410, 500] },
  'get /v1/avatar-session/{sessionId}/avatar': {
    id: 'getAvatarPack',
    errors: TOKEN,
    more: { 304: NOT_MODIFIED },
  },
  'get /v1/avatar-session/{sessionId}/avatar/{file}': {
    id: 'getAvatarPackFile',
    errors: TOKEN,
    success: {
      200: {
        description:
          'The file, streamed, with its strong ETag and Content-Length (PNG, JPEG, JSON or raw I420 frames)',
        content: {
          'image/png': { schema: { type: 'string', format: 'binary' } },
          'image/jpeg': { schema: { type: 'string', format: 'binary' } },
          'application/json': { schema: { type: 'object' } },
          'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
        },
      },
      304: NOT_MODIFIED,
    },
  },
  'head /v1/avatar-session/{sessionId}/avatar': {
    id: 'headAvatarPack',
    errors: TOKEN,
    success: { 200: HEAD_OK, 304: NOT_MODIFIED },
  },
  'head /v1/avatar-session/{sessionId}/avatar/{file}': {
    id: 'headAvatarPackFile',
    errors: TOKEN,
    success: { 200: HEAD_OK, 304: NOT_MODIFIED },
  },
  'get /v1/avatar-session/{sessionId}/events': {
    id: 'sessionEvents',
    errors: [400, ...TOKEN],
    success: {
      200: {
        description:
          'Server-Sent Events until the session ends: `id:` (1, 2, … per session), `event:` (speakingStart, word, speakingEnd, turnFailed, viewer, sessionEnded) and `data:` (JSON). A comment line every 15 s; the stream closes after `sessionEnded`. With `Last-Event-ID`, the kept events after it come first (at least the last 256, or those of the last 5 minutes; 0 or an id older than that: every event kept)',
        content: { 'text/event-stream': { schema: { type: 'string' } } },
      },
    },
  },
  'get /v1/avatars': { id: 'listAvatars', errors: [401, 403, 429, 500] },
  'get /v1/voices': { id: 'listVoices', errors: [401, 403, 429, 500] },
  'post /admin/v1/credentials': { id: 'adminCreateCredential', errors: ADMIN },
  'get /admin/v1/credentials': { id: 'adminListCredentials', errors: ADMIN },
  'post /admin/v1/credentials/{id}/revoke': { id: 'adminRevokeCredential', errors: ADMIN },
  'get /admin/v1/sessions': { id: 'adminListSessions', errors: ADMIN },
  'post /admin/v1/sessions/{id}/end': { id: 'adminEndSession', errors: [...ADMIN, 410] },
  'get /admin/v1/usage': { id: 'adminListUsage', errors: ADMIN },
  'get /admin/v1/usage/{credentialId}': { id: 'adminGetUsage', errors: ADMIN },
  'get /v1/avatars/{avatarId}/preview.png': {
    id: 'avatarPreview',
    errors: [404, 500],
    success: {
      200: {
        description: 'A 256×256 PNG thumbnail',
        content: { 'image/png': { schema: { type: 'string', format: 'binary' } } },
      },
    },
  },
  'post /admin/v1/avatars': {
    id: 'adminAddAvatar',
    errors: [...ADMIN, 409, 422],
    body: {
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            required: ['image', 'id', 'name'],
            properties: {
              image: {
                type: 'string',
                format: 'binary',
                description:
                  'A frontal portrait, PNG or JPEG: one face at least 128 px across (jaw to jaw), at most 4096 px a side and 20 MiB',
              },
              id: { type: 'string', description: 'lower-case letters, digits and dashes; not taken' },
              name: { type: 'string', description: 'shown in the catalog (1–80 characters)' },
              description: { type: 'string', description: 'optional, up to 500 characters' },
            },
          },
        },
      },
    },
    success: {
      201: {
        description: 'The new catalog entry (usable at once by every engine process)',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: { success: { type: 'boolean' }, avatar: AvatarInfo },
            },
          },
        },
      },
    },
  },
  'delete /admin/v1/avatars/{id}': { id: 'adminRemoveAvatar', errors: [...ADMIN, 409] },
};

/** The operations routes, which carry no schema of their own. */
const OPERATIONS_PATHS: Doc['paths'] = {
  '/healthz': {
    get: {
      operationId: 'health',
      summary: 'Liveness: the process answers',
      tags: ['operations'],
      responses: {
        200: { description: 'Alive', content: { 'application/json': { schema: { type: 'object' } } } },
        503: { $ref: '#/components/responses/ServiceUnavailable' },
      },
    },
  },
  '/readyz': {
    get: {
      operationId: 'ready',
      summary: 'Readiness: storage and engine checks, active sessions',
      tags: ['operations'],
      responses: {
        200: { description: 'Ready', content: { 'application/json': { schema: { type: 'object' } } } },
        503: {
          description: 'Not ready (`NOT_READY`; `checks` says what fails), or shutting down',
          content: {
            'application/json': {
              schema: {
                allOf: [
                  { $ref: '#/components/schemas/ErrorResponse' },
                  {
                    type: 'object',
                    properties: { checks: { type: 'object' }, sessions: { type: 'integer' } },
                  },
                ],
              },
            },
          },
        },
      },
    },
  },
  '/metrics': {
    get: {
      operationId: 'metrics',
      summary: 'Prometheus metrics',
      tags: ['operations'],
      responses: {
        200: {
          description: 'Metrics in the Prometheus text format',
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
        503: { $ref: '#/components/responses/ServiceUnavailable' },
      },
    },
  },
};

export function finishOpenApi<T>(input: T): T {
  const doc = input as unknown as Doc;
  doc.components ??= {};
  doc.components['schemas'] = {
    ...doc.components['schemas'],
    ErrorResponse: {
      ...ErrorResponse,
      $id: undefined,
      properties: {
        ...ErrorResponse.properties,
        reason: {
          ...ErrorResponse.properties.reason,
          description: `410 SESSION_ENDED only: why the session ended (${Object.values(EndReason).join(', ')})`,
        },
      },
    },
  };
  doc.components['responses'] = Object.fromEntries(
    Object.values(ERROR_RESPONSES).map(([name, description]) => [
      name,
      {
        description,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } },
      },
    ]),
  );
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, shared] of Object.entries(ops)) {
      const spec = OPERATIONS[`${method} ${path}`];
      if (!spec) continue;
      // a GET+HEAD route's two methods share one object in the swagger output
      const op = { ...shared };
      ops[method] = op;
      op.operationId = spec.id;
      if (spec.body) op.requestBody = spec.body;
      const responses: Record<string, unknown> = {};
      for (const [status, r] of Object.entries(op.responses ?? {}))
        if (/^2\d\d$/.test(status))
          responses[status] = { ...(r as object), description: successDescription(r) };
      Object.assign(responses, spec.success ?? {});
      if (spec.success) for (const s of Object.keys(responses)) if (!(s in spec.success)) delete responses[s];
      Object.assign(responses, spec.more ?? {});
      for (const status of [...new Set([...spec.errors, ...ANY])].sort((a, b) => a - b))
        responses[String(status)] = { $ref: `#/components/responses/${ERROR_RESPONSES[status]![0]}` };
      op.responses = responses;
    }
  }
  Object.assign(doc.paths, OPERATIONS_PATHS);
  constToEnum(doc);
  return input;
}

/** OpenAPI 3.0 schemas have no `const` (TypeBox writes literals with it): `enum` of one value. */
function constToEnum(node: unknown): void {
  if (Array.isArray(node)) for (const x of node) constToEnum(x);
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if ('const' in o) {
      o['enum'] = [o['const']];
      delete o['const'];
    }
    for (const v of Object.values(o)) constToEnum(v);
  }
}

function successDescription(r: unknown): string {
  const d = (r as { description?: string }).description;
  return d && d !== 'Default Response' ? d : 'Success';
}
