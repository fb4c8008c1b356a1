/**
 * The engine process pool: the real EngineHost. Forks engine processes from the built
 * `dist/process/engine-main.js` (advanced serialization, so uploads pass as bytes), spreads
 * sessions across them, pings them, and restarts a dead one; a dead process ends only its own
 * sessions (`sessionFailed`). One that was told to stop (SIGTERM, SIGINT) is not restarted.
 * Nothing here loads a native module.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { engineCatalog } from './catalog.js';
import { EngineChannel } from './channel.js';
import { RenderKind } from '../avatar/manifest.js';
import { DEFAULT_ICE_DENY } from '../rtc/candidate-filter.js';
import { DEFAULT_SPEECH_CONFIG } from '../speech/voice-book.js';
import type { EngineMethods, EngineProcessOptions, SessionMethod } from './protocol.js';
import {
  EngineError,
  type AudioClip,
  type AudioTurnStart,
  type AudioTurnWriteAnswer,
  type EngineCatalog,
  type EngineEvent,
  type EngineHost,
  type EngineSessionOptions,
  type EngineMediaStats,
  type EngineStats,
  type QueueAnswer,
  type SayAudioAnswer,
  type TextChunk,
  type ViewerAnswer,
  type ViewerOffer,
} from '../contract/types.js';
import { warnMediaTrouble } from './media-warnings.js';
import type { EnginePoolOptions } from './pool-options.js';

export type { EnginePoolOptions } from './pool-options.js';

/**
 * Where a new session goes: the process with the fewest sessions; among equals, the next in turn
 * (so sessions made one after another, each ended before the next, spread over every process
 * instead of all landing on the first).
 */
export function pickWorker<W extends { sessions: { size: number } }>(alive: readonly W[], turn: number): W {
  const fewest = Math.min(...alive.map((w) => w.sessions.size));
  const equals = alive.filter((w) => w.sessions.size === fewest);
  return equals[turn % equals.length]!;
}

interface Worker {
  index: number;
  child: ChildProcess;
  channel: EngineChannel;
  sessions: Set<string>;
  alive: boolean;
  /** When it became ready (performance.now()). */
  readyAt: number;
  /** Restarts in a row without a healthy period between them (drives the back-off). */
  restarts: number;
  /** Its media counters at the last health ping. */
  media?: EngineMediaStats;
}

/**
 * Whether an engine process's exit was a stop rather than a death: it exited 0 (it shuts down
 * cleanly on `shutdown`, SIGTERM and SIGINT; a crash exits 1 or by another signal), or SIGTERM or
 * SIGINT ended it before its handlers were set. A stop is logged at info and not restarted.
 */
function isStop(code: number | null, signal: NodeJS.Signals | null): boolean {
  return code === 0 || signal === 'SIGTERM' || signal === 'SIGINT';
}

/** The engine entry file: the built JS next to this module (from `dist`), or `dist` when run from sources. */
export function engineMainPath(): string {
  const here = fileURLToPath(import.meta.url);
  const file = here.endsWith('.ts')
    ? here.replace(/\/src\/host\/pool\.ts$/, '/dist/process/engine-main.js')
    : fileURLToPath(new URL('../process/engine-main.js', import.meta.url));
  if (!existsSync(file)) throw new Error(`${file} is missing: build first (npx tsc -b)`);
  return file;
}

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

export async function createEnginePool(opts: EnginePoolOptions = {}): Promise<EngineHost> {
  const pool = new EnginePool(opts);
  await pool.start();
  return pool;
}

class EnginePool implements EngineHost {
  readonly #opts: EnginePoolOptions;
  readonly #processOptions: EngineProcessOptions;
  readonly #avatarsDirs: readonly string[];
  #catalog: EngineCatalog;
  #stamp = '';
  readonly #workers: Array<Worker | undefined> = [];
  readonly #sessionWorker = new Map<string, Worker>();
  readonly #listeners = new Set<(e: EngineEvent) => void>();
  readonly #log: NonNullable<EnginePoolOptions['logger']>;
  readonly #main: string;
  #pingTimer: NodeJS.Timeout | undefined;
  /** Placements so far: breaks ties between equally loaded processes in turn. */
  #placements = 0;
  #closed = false;

  constructor(opts: EnginePoolOptions) {
    this.#opts = opts;
    this.#log = opts.logger ?? silent;
    this.#main = engineMainPath();
    const width = opts.videoWidth ?? 512;
    const height = opts.videoHeight ?? 512;
    this.#avatarsDirs = opts.avatarsDirs ?? [];
    const catalog = engineCatalog(this.#avatarsDirs, { width, height }, opts.speech ?? DEFAULT_SPEECH_CONFIG);
    for (const e of catalog.errors) this.#log.warn({ error: e }, 'avatar pack skipped');
    if (catalog.avatars.length === 0) throw new Error('No valid avatar pack found');
    this.#processOptions = {
      videoWidth: width,
      videoHeight: height,
      fps: opts.fps ?? 25,
      avatars: catalog.packs,
      readyTimeoutMs: opts.readyTimeoutMs ?? 5000,
      noChannelStartMs: opts.noChannelStartMs ?? 500,
      ice: opts.ice ?? { deny: DEFAULT_ICE_DENY, allowTcp: false, relays: [] },
      ...(opts.portRange ? { portRange: opts.portRange } : {}),
      speech: opts.speech ?? DEFAULT_SPEECH_CONFIG,
      clientRenderKinds: [...(opts.clientRenderKinds ?? Object.values(RenderKind))],
    };
    this.#stamp = this.#foldersStamp();
    this.#catalog = {
      avatars: catalog.avatars,
      voices: catalog.voices,
      defaultVoiceId: catalog.defaultVoiceId,
      ...(catalog.unlistedVoiceProvider ? { unlistedVoiceProvider: catalog.unlistedVoiceProvider } : {}),
    };
  }

  async start(): Promise<void> {
    const n = Math.max(1, this.#opts.processes ?? availableParallelism());
    await Promise.all(Array.from({ length: n }, (_, i) => this.#spawn(i)));
    const every = this.#opts.pingIntervalMs ?? 5000;
    this.#pingTimer = setInterval(() => this.#ping(), every);
    this.#pingTimer.unref();
  }

  /**
   * The catalog, read again when a pack folder changed since (an avatar added or removed by the
   * CLI or another server sharing the data dir): a stat of each folder per call.
   */
  catalog(): EngineCatalog {
    if (this.#foldersStamp() !== this.#stamp) this.refreshCatalog();
    return this.#catalog;
  }

  #foldersStamp(): string {
    return this.#avatarsDirs
      .map((d) => {
        try {
          return statSync(d).mtimeMs;
        } catch {
          return -1;
        }
      })
      .join(',');
  }

  /**
   * Reads the pack folders again and hands every engine process the packs (a process that starts
   * later gets them in its `init`), so an avatar added or removed is usable everywhere at once.
   */
  refreshCatalog(): EngineCatalog {
    this.#stamp = this.#foldersStamp();
    const { videoWidth: width, videoHeight: height } = this.#processOptions;
    const catalog = engineCatalog(this.#avatarsDirs, { width, height });
    for (const e of catalog.errors) this.#log.warn({ error: e }, 'avatar pack skipped');
    this.#catalog = { ...this.#catalog, avatars: catalog.avatars };
    this.#processOptions.avatars = catalog.packs;
    for (const w of this.#workers) w?.channel.send({ kind: 'avatars', avatars: catalog.packs });
    return this.#catalog;
  }

  async createSession(o: EngineSessionOptions): Promise<void> {
    this.catalog(); // a pack folder changed since: the processes hear of it before this request
    const alive = this.#workers.filter((w): w is Worker => !!w?.alive);
    if (alive.length === 0) throw new EngineError('engine_unavailable', 'No engine process is running');
    const worker = pickWorker(alive, this.#placements++);
    worker.sessions.add(o.sessionId);
    this.#sessionWorker.set(o.sessionId, worker);
    try {
      await worker.channel.request('createSession', [o]);
    } catch (err) {
      worker.sessions.delete(o.sessionId);
      this.#sessionWorker.delete(o.sessionId);
      throw err;
    }
  }

  sayText(sessionId: string, chunk: TextChunk): Promise<QueueAnswer> {
    return this.#call(sessionId, 'sayText', [sessionId, chunk]);
  }

  sayAudio(sessionId: string, clip: AudioClip): Promise<SayAudioAnswer> {
    return this.#call(sessionId, 'sayAudio', [sessionId, clip], 30_000);
  }

  openAudioTurn(sessionId: string, turn: AudioTurnStart): Promise<QueueAnswer> {
    return this.#call(sessionId, 'openAudioTurn', [sessionId, turn]);
  }

  writeAudioTurn(sessionId: string, turnId: string, pcm: Uint8Array): Promise<AudioTurnWriteAnswer> {
    return this.#call(sessionId, 'writeAudioTurn', [sessionId, turnId, pcm]);
  }

  endAudioTurn(sessionId: string, turnId: string): Promise<void> {
    return this.#call(sessionId, 'endAudioTurn', [sessionId, turnId]);
  }

  interrupt(sessionId: string): Promise<void> {
    return this.#call(sessionId, 'interrupt', [sessionId]);
  }

  connectViewer(sessionId: string, offer: ViewerOffer): Promise<ViewerAnswer> {
    return this.#call(sessionId, 'connectViewer', [sessionId, offer]);
  }

  addIceCandidates(sessionId: string, viewerId: string, sdpFragment: string): Promise<void> {
    return this.#call(sessionId, 'addIceCandidates', [sessionId, viewerId, sdpFragment]);
  }

  disconnectViewer(sessionId: string, viewerId: string): Promise<void> {
    return this.#call(sessionId, 'disconnectViewer', [sessionId, viewerId]);
  }

  async closeSession(sessionId: string, reason: string): Promise<void> {
    const worker = this.#sessionWorker.get(sessionId);
    if (!worker) return;
    this.#sessionWorker.delete(sessionId);
    worker.sessions.delete(sessionId);
    if (worker.alive)
      await worker.channel.request('closeSession', [sessionId, reason]).catch(() => undefined);
  }

  onEvent(listener: (event: EngineEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  stats(): EngineStats {
    return {
      kind: 'process-pool',
      processes: this.#workers.filter((w) => w?.alive).length,
      sessions: this.#sessionWorker.size,
      media: this.#workers.flatMap((w) => (w?.alive && w.media ? [w.media] : [])),
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#pingTimer);
    await Promise.all(
      this.#workers.map(async (w) => {
        if (!w) return;
        const exited = new Promise<void>((r) =>
          w.child.exitCode !== null || w.child.signalCode !== null ? r() : w.child.once('exit', () => r()),
        );
        w.channel.send({ kind: 'shutdown' });
        const timer = setTimeout(() => w.child.kill('SIGKILL'), 3000);
        await exited;
        clearTimeout(timer);
      }),
    );
  }

  #call<K extends SessionMethod>(
    sessionId: string,
    method: K,
    params: Parameters<EngineMethods[K]>,
    timeoutMs?: number,
  ): Promise<Awaited<ReturnType<EngineMethods[K]>>> {
    const worker = this.#sessionWorker.get(sessionId);
    if (!worker) return Promise.reject(new EngineError('unknown_session', `No engine session ${sessionId}`));
    return worker.channel.request(method, params, timeoutMs);
  }

  #spawn(index: number): Promise<void> {
    const child = fork(this.#main, [], {
      serialization: 'advanced',
      execArgv: [...process.execArgv, ...(this.#opts.execArgv ?? [])],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const channel = new EngineChannel(child);
    const restarts = this.#workers[index]?.restarts ?? 0;
    const worker: Worker = { index, child, channel, sessions: new Set(), alive: false, readyAt: 0, restarts };
    this.#workers[index] = worker;
    channel.onEvent = (e) => {
      if (e.type === 'turnFailed')
        // the reason and the provider's status, never the key or the text
        this.#log.warn(
          { sessionId: e.sessionId, turnId: e.turnId, reason: e.reason, detail: e.detail },
          'a voice provider failed a turn',
        );
      this.#emit(e);
    };
    channel.onLog = (line) => this.#log[line.level]({ pid: child.pid, ...line.fields }, line.msg);
    child.once('exit', (code, signal) => this.#onExit(worker, code, signal));
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('an engine process did not start within 20 s')),
        20_000,
      );
      channel.onReady = () => {
        clearTimeout(timer);
        worker.alive = true;
        worker.readyAt = performance.now();
        this.#log.info({ pid: child.pid, index }, 'engine process ready');
        resolve();
      };
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      channel.send({ kind: 'init', options: this.#processOptions });
    });
  }

  #onExit(worker: Worker, code: number | null, signal: NodeJS.Signals | null): void {
    worker.alive = false;
    if (this.#closed) return;
    const stopped = isStop(code, signal);
    const fields = { pid: worker.child.pid, code, signal, sessions: [...worker.sessions] };
    // a stop (the service going down: SIGTERM or Ctrl-C reach every process) is not a death
    if (stopped) this.#log.info(fields, 'engine process stopped');
    else this.#log.error(fields, 'engine process died');
    for (const sessionId of worker.sessions) {
      this.#sessionWorker.delete(sessionId);
      this.#emit({
        type: 'sessionFailed',
        sessionId,
        message: `engine process ${stopped ? 'stopped' : 'exited'} (${signal ?? code})`,
      });
    }
    worker.sessions.clear();
    if (stopped) return;
    const healthy =
      worker.readyAt > 0 && performance.now() - worker.readyAt >= (this.#opts.healthyAfterMs ?? 10_000);
    if (healthy) worker.restarts = 0; // a rare crash after a healthy run restarts fast
    const delayMs = Math.min(10_000, 200 * 2 ** Math.min(worker.restarts++, 6));
    this.#log.warn(
      { index: worker.index, delayMs, restartsInARow: worker.restarts },
      'engine process restarting',
    );
    setTimeout(() => {
      if (this.#closed) return;
      this.#spawn(worker.index)
        .then(() => this.#log.warn({ index: worker.index }, 'engine process restarted'))
        .catch((err: unknown) => this.#log.error({ err }, 'engine process restart failed'));
    }, delayMs).unref();
  }

  #ping(): void {
    for (const w of this.#workers) {
      if (!w?.alive) continue;
      w.channel.request('ping', [], 10_000).then(
        (media) => {
          warnMediaTrouble(this.#log, w.media, media);
          w.media = media;
        },
        () => {
          if (w.alive) {
            this.#log.error({ pid: w.child.pid }, 'engine process unresponsive; killing it');
            w.child.kill('SIGKILL');
          }
        },
      );
    }
  }

  #emit(e: EngineEvent): void {
    for (const l of [...this.#listeners]) {
      try {
        l(e);
      } catch {
        // a listener's failure is its own
      }
    }
  }
}
