export { createBackendClient, type BackendClientOptions, type MouthpieceBackend } from './client.js';
export {
  BackendSession,
  type SessionTokens,
  type SayTextOptions,
  type CreateSessionBody,
} from './session.js';
export { MouthpieceError, CLIENT_ERROR } from './errors.js';
export type { Sleep } from './http.js';
export type { StreamTextOptions, StreamTextResult, SpokenTurn } from './stream-text.js';
export { SentenceSplitter, type Segment, type SplitterOptions } from './sentence-splitter.js';
export { stripMarkdown } from './markdown.js';
export type { AudioStream, AudioStreamEvents, AudioStreamOptions } from './audio-stream.js';
export { KeepAlive, type KeepAliveOptions } from './keep-alive.js';
export type { EventsOptions, ReceivedSessionEvent } from './session-events.js';
export { SseParser, type SseMessage } from './sse-parser.js';
