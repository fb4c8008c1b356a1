/**
 * espeak-ng runs as JavaScript (emscripten output), and V8 compiles its hot code only after it
 * has run a while: cold, a worker's first sentences take 5–20× longer than warm ones ("Hello."
 * 143 ms on its first call, 7 ms from about the sixteenth; a 53-character sentence 191 → 38 ms;
 * measured on the 2-core VM: docs/benchmarks-changelog.md, "A quiet machine at last").
 * Without a warm-up every engine process's first sessions waited for the compiler: their first
 * five say-texts started speaking 160–350 ms after the request instead of about 60.
 *
 * So a TTS worker says these sentences to itself when it starts, one per turn of its event loop:
 * a request that arrives meanwhile waits for at most the one sentence in progress.
 */

/** Short everyday sentences: most of the synthesizer's paths (words, numbers, pauses, questions). */
export const WARM_UP_SENTENCES = [
  'Hello.',
  'Hi there, how are you today?',
  'Your order number 4521 shipped this morning.',
  'Thanks for waiting; I found the answer you asked for.',
  'Sure!',
  'Let me check that for you right away.',
  'Everything looks fine on our side, so please try again in a minute.',
  'Good afternoon, and welcome back to the show.',
];

/** How many times the sentences are said: about 16 sentences warm the code (see above). */
export const WARM_UP_ROUNDS = 3;

/**
 * Says each sentence WARM_UP_ROUNDS times through `say`, one per event-loop turn (setImmediate),
 * so messages between them are served first. A failure ends the warm-up quietly: it is only an
 * optimisation, and a real request will report the same fault. Resolves with the count said.
 */
export function warmUp(say: (text: string) => unknown, rounds = WARM_UP_ROUNDS): Promise<number> {
  const queue = Array.from({ length: rounds }, () => WARM_UP_SENTENCES).flat();
  let said = 0;
  return new Promise((resolve) => {
    const step = (): void => {
      const text = queue.shift();
      if (text === undefined) return resolve(said);
      try {
        say(text);
        said++;
      } catch {
        return resolve(said);
      }
      setImmediate(step);
    };
    setImmediate(step);
  });
}
