/**
 * Fair synthesis for all sessions of an engine process. Each pool of the TTS (espeak's one worker
 * thread; each HTTP voice provider) gets at most its `concurrency` requests at a time; the rest
 * wait here in one lane per session and are taken round-robin, so a session that queued 50 000
 * characters delays another session's first sentence by at most one sentence. A lane only
 * synthesizes a little ahead of its own playback: its `lookahead` (speech/lookahead.ts) counts the
 * pieces ready but not yet played, and a lane waits while those plus its requests in flight reach
 * the high-water mark (`maxAhead`); playback releasing a piece wakes it. A request
 * whose `signal` aborts while waiting is withdrawn (interrupt, end); one in flight gets the signal
 * too (a provider closes its connection; espeak's finishes) and its result is dropped.
 */
import { Lookahead } from './lookahead.js';
import type { SpeechSegment, SynthesisRequest } from './types.js';
import type { Tts } from './tts.js';
import { CodedError } from '@mouthpiece/protocol';

/** Which requests may run side by side: espeak has one worker thread, HTTP providers more. */
export interface SynthesisPool {
  key: string;
  concurrency: number;
}

/** A TTS whose requests run in pools of limited concurrency (speech/router.ts, or `singlePool`). */
export interface PooledTts extends Tts {
  poolOf(req: SynthesisRequest): SynthesisPool;
}

/** A TTS with one pool for every request (tests, and a TTS without providers). */
export function singlePool(tts: Tts, concurrency = 1): PooledTts {
  return {
    synthesize: (req) => tts.synthesize(req),
    close: () => tts.close(),
    poolOf: () => ({ key: '', concurrency }),
  };
}

export interface ScheduledRequest extends SynthesisRequest {
  /** Needed now whatever the lane's lookahead (a transcript's reference reading). */
  urgent?: boolean;
}

/** What a session's speech is synthesized by: its lane of the scheduler (or a TTS in tests). */
export interface Synthesizer {
  synthesize(req: ScheduledRequest): Promise<SpeechSegment>;
}

export interface SynthesisLane extends Synthesizer {
  /** The session's speech ready and not yet played; the lane waits at its high-water mark. */
  readonly lookahead: Lookahead;
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
  lookahead: Lookahead;
  closed: boolean;
  stopListening: () => void;
}

export class AbortedError extends CodedError {
  static override code = 'ERR_SYNTHESIS_ABORTED';
  constructor() {
    super('synthesis aborted');
    this.name = 'AbortError';
  }
}

export class SynthesisScheduler {
  readonly #tts: PooledTts;
  readonly #maxAhead: number;
  readonly #lanes: Lane[] = [];
  #next = 0;
  /** Requests in flight per pool. */
  readonly #inFlight = new Map<string, number>();

  constructor(tts: PooledTts, o: { maxAhead?: number } = {}) {
    this.#tts = tts;
    this.#maxAhead = o.maxAhead ?? 2;
  }

  /** Requests waiting in every lane (not yet given to the TTS). */
  get waiting(): number {
    return this.#lanes.reduce((n, l) => n + l.jobs.length, 0);
  }

  /** A session's lane; its lookahead has the scheduler's high-water mark (`maxAhead`). */
  lane(id: string): SynthesisLane {
    const lookahead = new Lookahead(this.#maxAhead);
    const lane: Lane = {
      id,
      jobs: [],
      inFlight: 0,
      lookahead,
      closed: false,
      // playback consumed a piece: this lane may synthesize further ahead now
      stopListening: lookahead.onLow(() => this.#dispatch()),
    };
    this.#lanes.push(lane);
    return {
      lookahead,
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
          this.#dispatch();
        });
      },
      close: () => {
        lane.closed = true;
        lane.stopListening();
        for (const j of lane.jobs.splice(0)) j.reject(new AbortedError());
        const i = this.#lanes.indexOf(lane);
        if (i >= 0) this.#lanes.splice(i, 1);
      },
    };
  }

  /** Gives the TTS the next eligible requests. */
  #dispatch(): void {
    for (;;) {
      const picked = this.#pick();
      if (!picked) return;
      this.#run(picked.lane, picked.job);
    }
  }

  #pick(): { lane: Lane; job: Job } | undefined {
    const n = this.#lanes.length;
    for (let k = 0; k < n; k++) {
      const lane = this.#lanes[(this.#next + k) % n]!;
      const job = lane.jobs[0];
      if (!job) continue;
      if (!job.req.urgent && lane.lookahead.buffered + lane.inFlight >= lane.lookahead.highWater) continue;
      const pool = this.#tts.poolOf(job.req);
      if ((this.#inFlight.get(pool.key) ?? 0) >= pool.concurrency) continue;
      lane.jobs.shift();
      this.#next = (this.#next + k + 1) % n; // round-robin: the next lane goes first next time
      return { lane, job };
    }
    return undefined;
  }

  #run(lane: Lane, job: Job): void {
    const key = this.#tts.poolOf(job.req).key;
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
    queueMicrotask(() => this.#dispatch());
  }
}
