/**
 * An engine child process: libwebrtc, the renderer and the TTS worker live here, never in the
 * server. One media scheduler ticks every session. Exits explicitly when told to, or when the
 * server goes away (libwebrtc can crash at a natural exit).
 */
import { checkSessionChoices } from '@mouthpiece/protocol';
import { BUILTIN_AVATARS_DIR, readAvatarPacks, type AvatarPack } from '../avatar/catalog.js';
import { MediaScheduler } from '../clock/media-scheduler.js';
import type {
  EngineLogLine,
  EngineMethods,
  EngineProcessOptions,
  FromEngine,
  ToEngine,
} from '../host/protocol.js';
import { serveRpc, type RpcHandlers } from '../host/rpc.js';
import { EngineError, type AudioClip, type EngineEvent, type EngineMediaStats } from '../host/types.js';
import { EngineSession } from '../session/engine-session.js';
import { createSpeechSource } from '../session/speech-source.js';
import { createAudioDecoder } from '../audio/decoder.js';
import { openAvatarRenderer } from '../render/avatar-renderer.js';
import type { Renderer } from '../render/renderer.js';
import { candidateFilter } from '../rtc/candidate-filter.js';
import { createWrtcMedia } from '../rtc/wrtc-media.js';
import { createEngineSpeech, type EngineSpeech } from '../speech/engine-speech.js';

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

let options: EngineProcessOptions | undefined;
let acceptCandidate: (candidate: string) => boolean = () => false;
let avatars = new Map<string, AvatarPack>();

/** Reads the packs again: avatars added or removed while the service runs are seen by every process. */
function readAvatars(dirs: readonly string[]): void {
  const { packs } = readAvatarPacks([BUILTIN_AVATARS_DIR, ...dirs]);
  avatars = new Map(packs.map((p) => [p.manifest.id, p]));
}
const decoder = createAudioDecoder();
/**
 * Voices and providers (from `init`): one espeak worker and the HTTP providers per process,
 * shared fairly: each session synthesizes only a little ahead.
 */
let speech: EngineSpeech | undefined;
const sessions = new Map<string, EngineSession>();
/** Frame counters of sessions already closed, so the process totals are cumulative. */
const retired = { sent: 0, skipped: 0 };

const scheduler = new MediaScheduler((tick, ticksLeft) => {
  for (const s of sessions.values()) {
    try {
      s.tick(tick, ticksLeft);
    } catch (err) {
      failSession(s, err);
    }
  }
});

function failSession(s: EngineSession, err: unknown): void {
  log(
    'error',
    { sessionId: s.id, err: err instanceof Error ? err.message : String(err) },
    'session media failed',
  );
  sessions.delete(s.id);
  retire(s);
  try {
    s.close('engine_failed');
  } catch {
    // already broken
  }
  emit({ type: 'sessionFailed', sessionId: s.id, message: err instanceof Error ? err.message : String(err) });
}

function retire(s: EngineSession): void {
  retired.sent += s.framesSent;
  retired.skipped += s.framesSkipped;
}

/** Sessions whose renderer is loading (a video avatar's pack): closed before ready, they never start. */
const starting = new Map<string, { cancelled: boolean }>();

/**
 * A session's renderer, once its pack is resident (render/avatar-renderer.ts openAvatarRenderer:
 * a video pack loads off the media tick, so the process's other sessions keep their frames).
 */
async function startRenderer(
  sessionId: string,
  avatar: AvatarPack,
  size: { width: number; height: number },
  background: string | undefined,
  fps: number,
): Promise<Renderer> {
  const start = { cancelled: false };
  starting.set(sessionId, start);
  let renderer: Renderer;
  try {
    renderer = await openAvatarRenderer(avatar.manifest, size, avatar.dir, { background, fps });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    log('error', { sessionId, avatarId: avatar.manifest.id, err: message }, 'session start failed');
    throw new EngineError('internal', message, { cause: err });
  } finally {
    starting.delete(sessionId);
  }
  if (start.cancelled) {
    renderer.close();
    throw new EngineError('unknown_session', `Engine session ${sessionId} was closed while it started`);
  }
  return renderer;
}

function session(id: string): EngineSession {
  const s = sessions.get(id);
  if (!s) throw new EngineError('unknown_session', `No engine session ${id}`);
  return s;
}

const methods: RpcHandlers<EngineMethods> = {
  ping: (): EngineMediaStats => {
    let framesSent = retired.sent;
    let framesSkipped = retired.skipped;
    for (const s of sessions.values()) {
      framesSent += s.framesSent;
      framesSkipped += s.framesSkipped;
    }
    return { pid: process.pid, sessions: sessions.size, framesSent, framesSkipped, ...scheduler.sample() };
  },
  createSession: async (o) => {
    if (!options || !speech) throw new EngineError('engine_unavailable', 'The engine is not initialised');
    readAvatars(options.avatarsDirs);
    const voices = speech.voices;
    const check = checkSessionChoices(o, {
      findAvatar: (id) => avatars.get(id)?.manifest,
      hasVoice: (id) => voices.list().some((v) => v.id === id),
      triesUnlistedVoices: voices.unlistedProvider !== undefined,
    });
    if (!check.ok) throw new EngineError('invalid_request', check.message);
    const avatar = avatars.get(o.avatarId)!; // the check found it
    const { videoWidth: width, videoHeight: height, fps } = options;
    const renderer = await startRenderer(o.sessionId, avatar, { width, height }, o.background, fps);
    const media = createWrtcMedia({
      video: { width, height },
      acceptCandidate,
      portRange: options.portRange,
    });
    sessions.set(
      o.sessionId,
      new EngineSession({
        sessionId: o.sessionId,
        fps,
        readyTimeoutMs: options.readyTimeoutMs,
        noChannelStartMs: options.noChannelStartMs,
        emit,
        speech: createSpeechSource({
          sessionId: o.sessionId,
          synthesis: speech.synthesis,
          decoder,
          voiceId: o.voiceId,
          speed: o.voiceSpeed,
        }),
        audioSink: media.audioSink,
        peerFactory: media.peerFactory,
        clientRender: options.clientRenderKinds.includes(avatar.manifest.render),
        avatarKind: avatar.manifest.render,
        videoSink: media.videoSink,
        renderer,
      }),
    );
  },
  sayText: (id, chunk) => session(id).sayText(chunk),
  sayAudio: (id, clip: AudioClip) => session(id).sayAudio({ ...clip, audio: new Uint8Array(clip.audio) }),
  openAudioTurn: (id, start) => session(id).audioStreams.open(start),
  writeAudioTurn: (id, turnId, pcm) => session(id).audioStreams.write(turnId, new Uint8Array(pcm)),
  endAudioTurn: (id, turnId) => session(id).audioStreams.end(turnId),
  interrupt: (id) => {
    session(id).interrupt();
  },
  connectViewer: async (id, offer) => ({
    answerSdp: await session(id).connectViewer(offer.viewerId, offer.offerSdp, offer.iceServers),
  }),
  addIceCandidates: (id, viewerId, frag) => session(id).addIceCandidates(viewerId, frag),
  disconnectViewer: (id, viewerId) => session(id).disconnectViewer(viewerId),
  closeSession: (id, reason) => {
    const start = starting.get(id);
    if (start) start.cancelled = true;
    const s = sessions.get(id);
    sessions.delete(id);
    s?.close(reason);
    if (s) retire(s);
  },
};

function shutdown(code = 0): never {
  scheduler.stop();
  for (const s of sessions.values()) s.close('engine_closed');
  process.exit(code);
}

process.on('message', (m: ToEngine) => {
  switch (m.kind) {
    case 'init': {
      options = m.options;
      acceptCandidate = candidateFilter(m.options.ice);
      speech = createEngineSpeech({
        config: m.options.speech,
        decoder,
        onRequest: (stat) => emit({ type: 'voiceRequest', ...stat }),
      });
      // the pool has read (and logged) the same packs already; their errors are not repeated here
      readAvatars(m.options.avatarsDirs);
      scheduler.start();
      send({ kind: 'ready', pid: process.pid });
      break;
    }
    case 'req':
      void serveRpc(methods, m, send, {
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
