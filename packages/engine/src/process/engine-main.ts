/**
 * An engine child process's IPC wiring: builds its EngineProcess (engine-process.ts) from the
 * pool's `init` with the real parts — libwebrtc media, the process's speech and decoder, the
 * renderers — and serves the pool's requests on it. Exits explicitly when told to, or when the
 * server goes away (libwebrtc can crash at a natural exit).
 */
import { createAudioDecoder } from '../audio/decoder.js';
import { performanceClock } from '../clock/media-scheduler.js';
import type { EngineLogLine, FromEngine, ToEngine } from '../host/protocol.js';
import { serveRpc } from '../ipc/rpc.js';
import { EngineError, type EngineEvent } from '../contract/types.js';
import { openAvatarRenderer } from '../render/avatar-renderer.js';
import { candidateFilter } from '../rtc/candidate-filter.js';
import { createWrtcMedia } from '../rtc/wrtc-media.js';
import { createSpeechSource } from '../session/speech-source.js';
import { createEngineSpeech } from '../speech/engine-speech.js';
import { EngineProcess, processAvatars } from './engine-process.js';

if (!process.send) {
  console.error('engine-main must be started by the engine pool (it needs an IPC channel)');
  process.exit(1);
}

const send = (m: FromEngine): void => {
  if (process.connected) process.send!(m);
};
const emit = (event: EngineEvent): void => send({ kind: 'event', event });
/** Logs through the control plane's logger (the engine has no log sink of its own). */
const log = (
  level: EngineLogLine['level'],
  fields: Record<string, unknown>,
  msg: string,
  sent?: () => void,
): void => {
  if (!process.connected) return sent?.();
  process.send!({ kind: 'log', level, fields, msg } satisfies FromEngine, () => sent?.());
};

const decoder = createAudioDecoder();
let engine: EngineProcess | undefined;

function shutdown(code = 0): never {
  engine?.close('engine_closed');
  process.exit(code);
}

process.on('message', (m: ToEngine) => {
  switch (m.kind) {
    case 'init': {
      const o = m.options;
      const acceptCandidate = candidateFilter(o.ice);
      // voices and providers: one espeak worker and the HTTP providers per process, shared fairly
      const speech = createEngineSpeech({
        config: o.speech,
        decoder,
        onRequest: (stat) => emit({ type: 'voiceRequest', ...stat }),
      });
      engine = new EngineProcess({
        settings: o,
        // the pool has read (and logged) the packs; their errors are not repeated here
        avatars: processAvatars(o.avatars),
        media: ({ width, height }) =>
          createWrtcMedia({ video: { width, height }, acceptCandidate, portRange: o.portRange }),
        speech: {
          hasVoice: (id) => speech.voices.list().some((v) => v.id === id),
          triesUnlistedVoices: speech.voices.unlistedProvider !== undefined,
          source: ({ sessionId, voiceId, speed }) =>
            createSpeechSource({ sessionId, synthesis: speech.synthesis, decoder, voiceId, speed }),
        },
        openRenderer: (avatar, { width, height, background, fps }) => {
          if (!avatar.pack) return Promise.reject(new Error(`avatar ${avatar.id} has no pack`));
          return openAvatarRenderer(avatar.pack.manifest, { width, height }, avatar.pack.dir, {
            background,
            fps,
          });
        },
        clock: performanceClock,
        emit,
        log,
        pid: process.pid,
      });
      engine.start();
      send({ kind: 'ready', pid: process.pid });
      break;
    }
    case 'avatars':
      engine?.setAvatars(processAvatars(m.avatars));
      break;
    case 'req':
      if (!engine) return; // the pool sends none before `init`
      void serveRpc(engine, m, send, {
        codeOf: (err) => (err instanceof EngineError ? err.code : 'internal'),
      });
      break;
    case 'shutdown':
      shutdown(0);
  }
});
process.on('disconnect', () => shutdown(0));
// a stop, not a crash: exit 0 tells the pool not to restart this process (host/pool.ts isStop)
process.on('SIGTERM', () => shutdown(0));
process.on('SIGINT', () => shutdown(0));
process.on('uncaughtException', (err) => {
  // exit once the line has left (process.send is asynchronous)
  log('error', { err: { message: err.message, stack: err.stack } }, 'engine process error', () =>
    shutdown(1),
  );
});
