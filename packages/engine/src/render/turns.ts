/**
 * The renderers' work off the media tick (a vector head's poses, a photo's tilt pictures, the
 * slices of a session's start: decoding a sprite pack's pictures, laying a photo or a video pack
 * out) in pieces, one piece per turn of the event loop for the whole process. Each renderer used to
 * set its own timers: when two sessions started together, or one started while another's poses
 * were still warming, their timers fell due in the same turn and their pieces ran back to back,
 * holding every session's media tick for the sum (a photo start beside a fresh vector session held
 * it 60–110 ms; session-start-stall.test.ts). Now the pieces queue: a turn runs at most one, and
 * the media ticks due meanwhile run between two. A session's start (nextTurn) goes before
 * background warming (defer), which waits PIECE_GAP_MS between pieces so it never takes the thread.
 */

/** The wait before a background piece: warming takes at most one piece per this long. */
export const PIECE_GAP_MS = 15;

/** Slices of a session's start, awaited: they keep the process alive and go first. */
const starts: Array<() => void> = [];
/** Background pieces: they do not keep the process alive. */
const background: Array<() => void> = [];
let timer: NodeJS.Timeout | undefined;

function schedule(): void {
  if (timer) return;
  if (starts.length > 0) timer = setTimeout(runOne, 0);
  else if (background.length > 0) timer = setTimeout(runOne, PIECE_GAP_MS).unref();
}

function runOne(): void {
  timer = undefined;
  const piece = starts.shift() ?? background.shift();
  try {
    piece?.();
  } finally {
    schedule();
  }
}

/** Runs `fn` in the background, in a turn of its own, after the pieces queued before it. */
export function defer(fn: () => void): void {
  background.push(fn);
  schedule();
}

/**
 * Resolves in a turn of its own, before any background piece: code that awaits it runs its next
 * slice as that turn's piece (it continues as the turn's timer returns; the next piece waits for a
 * later turn).
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    starts.push(resolve);
    if (timer && starts.length === 1) {
      // a background piece's timer was waiting its gap (unreferenced): a start goes sooner
      clearTimeout(timer);
      timer = undefined;
    }
    schedule();
  });
}
