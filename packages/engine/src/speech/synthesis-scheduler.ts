/**
 * Fair synthesis for all sessions of an engine process. Each pool of the TTS (espeak's one worker
 * thread; each HTTP voice provider) gets at most its `concurrency` requests at a time; the rest
 * wait here in one lane per session and are taken round-robin, so a session that queued 50 000
 * characters delays another session's first sentence by at most one sentence. A lane only
 * synthesizes a little ahead of its own playback (`maxAhead` pieces ready but not yet played,
 * counting its requests in flight); the owner calls `poke()` when playback moves on. A request
 * whose `signal` aborts while waiting is withdrawn (interrupt, end); one in flight gets the signal
 * too (a provider closes its connection; espeak's finishes) and its result is dropped.
 */
import type { SpeechSegment, SynthesisRequest } from './types.js';
import type { Tts } from './tts.js';

/** A TTS whose requests run in separate pools (speech/router.ts); one pool otherwise. */
type PooledTts = Tts & { poolOf?(req: SynthesisRequest): { key: string; concurrency: number } };

export interface ScheduledRequest extends SynthesisRequest {
  /** Needed now whatever the lane's lookahead (a transcript's reference reading). */
  urgent?: boolean;
}

/** What a session's speech is synthesized by: its lane of the scheduler (or a TTS in tests). */
export interface Synthesizer {
  synthesize(req: ScheduledRequest): Promise<SpeechSegment>;
}

export interface SynthesisLane extends Synthesizer {
  /** Withdraws everything waiting and closes the lane. */
  close(): void;
}

interface Job {
  req: ScheduledRequest;
  resolve(s: SpeechSegment): void;
  reject(e: Error): void;
}

interface Lane {
  id: string;
  jobs: Job[];
  inFlight: number;
  /** Pieces synthesized but not yet played. */
  ahead: () => number;
  closed: boolean;
}

export class AbortedError extends Error {
  constructor() {
    super('synthesis aborted');
    this.name = 'AbortError';
  }
}

export class SynthesisScheduler {
  readonly #tts: PooledTts;
  readonly #maxAhead: number;
  readonly #concurrency: number;
  readonly #lanes: Lane[] = [];
  #next = 0;
  /** Requests in flight per pool. */
  readonly #inFlight = new Map<string, number>();

  constructor(tts: PooledTts, o: { maxAhead?: number; concurrency?: number } = {}) {
    this.#tts = tts;
    this.#maxAhead = o.maxAhead ?? 2;
    this.#concurrency = o.concurrency ?? 1;
  }

  /** Requests waiting in every lane (not yet given to the TTS). */
  get waiting(): number {
    return this.#lanes.reduce((n, l) => n + l.jobs.length, 0);
  }

  lane(id: string, ahead: () => number): SynthesisLane {
    const lane: Lane = { id, jobs: [], inFlight: 0, ahead, closed: false };
    this.#lanes.push(lane);
    return {
      synthesize: (req) => {
        if (lane.closed || req.signal?.aborted) return Promise.reject(new AbortedError());
        return new Promise<SpeechSegment>((resolve, reject) => {
          const job: Job = { req, resolve, reject };
          lane.jobs.push(job);
          req.signal?.addEventListener(
            'abort',
            () => {
              const i = lane.jobs.indexOf(job);
              if (i >= 0) {
                lane.jobs.splice(i, 1);
                reject(new AbortedError());
              }
            },
            { once: true },
          );
          this.poke();
        });
      },
      close: () => {
        lane.closed = true;
        for (const j of lane.jobs.splice(0)) j.reject(new AbortedError());
        const i = this.#lanes.indexOf(lane);
        if (i >= 0) this.#lanes.splice(i, 1);
      },
    };
  }

  /** Gives the TTS the next eligible requests (call when a lane's playback moved on). */
  poke(): void {
    for (;;) {
      const picked = this.#pick();
      if (!picked) return;
      this.#run(picked.lane, picked.job);
    }
  }

  #pool(req: SynthesisRequest): { key: string; concurrency: number } {
    return this.#tts.poolOf?.(req) ?? { key: '', concurrency: this.#concurrency };
  }

  #pick(): { lane: Lane; job: Job } | undefined {
    const n = this.#lanes.length;
    for (let k = 0; k < n; k++) {
      const lane = this.#lanes[(this.#next + k) % n]!;
      const job = lane.jobs[0];
      if (!job) continue;
      if (!job.req.urgent && lane.ahead() + lane.inFlight >= this.#maxAhead) continue;
      const pool = this.#pool(job.req);
      if ((this.#inFlight.get(pool.key) ?? 0) >= pool.concurrency) continue;
      lane.jobs.shift();
      this.#next = (this.#next + k + 1) % n; // round-robin: the next lane goes first next time
      return { lane, job };
    }
    return undefined;
  }

  #run(lane: Lane, job: Job): void {
    const key = this.#pool(job.req).key;
    this.#inFlight.set(key, (this.#inFlight.get(key) ?? 0) + 1);
    lane.inFlight++;
    const { urgent: _urgent, ...req } = job.req;
    this.#tts.synthesize(req).then(
      (seg) =>
        this.#settle(lane, key, () =>
          job.req.signal?.aborted ? job.reject(new AbortedError()) : job.resolve(seg),
        ),
      (err: unknown) =>
        this.#settle(lane, key, () =>
          job.req.signal?.aborted
            ? job.reject(new AbortedError())
            : job.reject(err instanceof Error ? err : new Error(String(err))),
        ),
    );
  }

  #settle(lane: Lane, key: string, finish: () => void): void {
    this.#inFlight.set(key, (this.#inFlight.get(key) ?? 1) - 1);
    lane.inFlight--;
    finish();
    // after the owner's reaction to the result has run (it counts the new piece as ahead)
    queueMicrotask(() => this.poke());
  }
}
