/**
 * A model's streamed text → say-text turns. Each sentence (or long clause, or line) is its own
 * final turn, so the avatar starts speaking after the first sentence instead of after the whole
 * answer (a turn only plays at `isFinal: true`). One request in flight, in order: pieces that
 * complete while one is being posted wait and go together in the next turn, so a fast model costs
 * one request per turn the avatar can speak, not one per token. Blank pieces are never sent.
 * The source is read without waiting for the posts (the model's stream never stalls on us);
 * an abort, an interrupt or a failed post stops reading it (its `return()` closes the stream);
 * a source that throws stops the posts and rejects with its error, once the post in flight settled.
 */
import { stripMarkdown } from './markdown.js';
import { SentenceSplitter, type SplitterOptions } from './sentence-splitter.js';

export interface StreamTextOptions extends SplitterOptions {
  /** Stops the rest: nothing more is read or posted; the promise resolves with what was posted. */
  signal?: AbortSignal;
  /** `'strip'` (default) reads markdown as a person would; `'keep'` speaks the text as it is. */
  markdown?: 'strip' | 'keep';
  /** Turn ids are `${turnIdPrefix}-1`, `-2`, … (default a random prefix). */
  turnIdPrefix?: string;
  /** Most characters one turn gathers from pieces waiting behind a post (default 1000). */
  maxTurnChars?: number;
  /** Called as each turn is accepted by the server. */
  onTurn?: (turn: SpokenTurn) => void;
}

export interface SpokenTurn {
  turnId: string;
  text: string;
}

export interface StreamTextResult {
  /** The turns the server accepted, in order. */
  turns: SpokenTurn[];
  /** Their text joined: what the avatar says (unless interrupted while saying it). */
  text: string;
  /** The signal fired, or the session was interrupted, before the source was finished. */
  aborted: boolean;
}

/**
 * Posts one final turn; resolves when the server accepted it. `stop` fires on abort: it may end a
 * wait before a retry, but a request already sent completes, so an interrupt sent after the
 * stream settled always lands after its last turn.
 */
export type PostTurn = (turn: SpokenTurn, stop: AbortSignal) => Promise<void>;

export async function streamTextTurns(
  source: AsyncIterable<string>,
  post: PostTurn,
  opts: StreamTextOptions = {},
): Promise<StreamTextResult> {
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  if (opts.signal?.aborted) stop.abort();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const splitter = new SentenceSplitter(opts);
  const strip = (opts.markdown ?? 'strip') === 'strip';
  const prefix = opts.turnIdPrefix ?? `s${Math.random().toString(36).slice(2, 10)}`;
  const maxTurnChars = opts.maxTurnChars ?? 1000;
  const turns: SpokenTurn[] = [];
  const waiting: string[] = [];
  let posting: Promise<void> | undefined;
  let failure: Error | undefined;

  const enqueue = (pieces: { text: string; code: boolean }[]): void => {
    for (const p of pieces) {
      if (p.code && strip) continue; // code is shown, not read aloud
      const text = strip ? stripMarkdown(p.text) : p.text;
      if (text.trim() !== '') waiting.push(text.replace(/\s*\n\s*/g, ' ').trim());
    }
    if (!posting && waiting.length > 0) posting = pump();
  };

  /** Posts what waits, one request at a time, until nothing waits. */
  const pump = async (): Promise<void> => {
    try {
      while (waiting.length > 0 && !stop.signal.aborted) {
        let text = waiting.shift()!;
        while (waiting.length > 0 && text.length + 1 + waiting[0]!.length <= maxTurnChars)
          text += ` ${waiting.shift()!}`;
        const turn = { turnId: `${prefix}-${turns.length + 1}`, text };
        await post(turn, stop.signal);
        turns.push(turn);
        try {
          opts.onTurn?.(turn);
        } catch {
          // a failing listener is the caller's bug; it never stops the answer
        }
      }
    } catch (err) {
      if (!stop.signal.aborted) failure = err instanceof Error ? err : new Error(String(err));
      stop.abort();
    } finally {
      posting = undefined;
    }
  };

  const it = source[Symbol.asyncIterator]();
  const aborted = new Promise<'aborted'>((resolve) => {
    if (stop.signal.aborted) resolve('aborted');
    stop.signal.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
  try {
    for (;;) {
      const next = await Promise.race([it.next(), aborted]);
      if (next === 'aborted') break;
      if (next.done) {
        enqueue(splitter.end());
        break;
      }
      if (typeof next.value === 'string' && next.value !== '') enqueue(splitter.push(next.value));
    }
  } catch (err) {
    // the model failed mid-answer: nothing more is posted, and its error is the caller's
    if (!stop.signal.aborted && failure === undefined)
      failure = err instanceof Error ? err : new Error(String(err));
    stop.abort();
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    // stop reading the source: closes the model's HTTP stream when it is one
    if (stop.signal.aborted) void Promise.resolve(it.return?.()).catch(() => undefined);
  }
  while (posting) await posting;
  if (failure !== undefined) throw failure;
  const wasAborted = stop.signal.aborted;
  return { turns, text: turns.map((t) => t.text).join(' '), aborted: wasAborted };
}
