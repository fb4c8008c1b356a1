/** Messages between the control plane and an engine process (over IPC, advanced serialization). */
import type { EngineErrorCode, EngineEvent } from './types.js';

export interface EngineProcessOptions {
  videoWidth: number;
  videoHeight: number;
  fps: number;
  avatarsDirs: string[];
  readyTimeoutMs: number;
  noChannelStartMs: number;
}

export type ToEngine =
  | { kind: 'init'; options: EngineProcessOptions }
  | { kind: 'req'; id: number; method: string; params: unknown[] }
  | { kind: 'shutdown' };

export type FromEngine =
  | { kind: 'ready'; pid: number }
  | { kind: 'res'; id: number; ok: true; result: unknown }
  | { kind: 'res'; id: number; ok: false; error: { code: EngineErrorCode; message: string } }
  | { kind: 'event'; event: EngineEvent };
