/**
 * The hook's lifecycle without React or a browser: a fake session (our seam, SessionLike) records
 * what the component asks of it. StrictMode's mount–unmount–mount starts one session, not two; an
 * unmount disconnects and never ends; a remount of the same session waits for that disconnect.
 */
import type { AvatarSessionCallbacks, AvatarSessionEvents, SessionAccess } from '@mouthpiece/client';
import { describe, expect, it } from 'vitest';
import { openSession, type SessionLike, type SessionView } from './session-lifecycle.js';

/** Lets every pending promise callback run. */
const settle = () => new Promise<void>((r) => setTimeout(r, 0));

class FakeSession implements SessionLike {
  readonly log: string[] = [];
  readonly #listeners = new Map<string, Set<(p: unknown) => void>>();
  /** Resolves the pending disconnect (a test holds it to see who waits for it). */
  releaseDisconnect: (() => void) | undefined;
  holdDisconnect = false;

  on<K extends keyof AvatarSessionEvents>(event: K, listener: AvatarSessionCallbacks[K]): () => void {
    const set = this.#listeners.get(event) ?? new Set();
    set.add(listener as (p: unknown) => void);
    this.#listeners.set(event, set);
    return () => set.delete(listener as (p: unknown) => void);
  }
  emit<K extends keyof AvatarSessionEvents>(event: K, payload: AvatarSessionEvents[K]): void {
    for (const l of this.#listeners.get(event) ?? []) l(payload);
  }
  listening(): number {
    return [...this.#listeners.values()].reduce((n, s) => n + s.size, 0);
  }
  initSession(s: SessionAccess): Promise<void> {
    this.log.push(`init ${s.sessionId}`);
    return Promise.resolve();
  }
  disconnect(): Promise<void> {
    this.log.push('disconnect');
    if (!this.holdDisconnect) return Promise.resolve();
    return new Promise((r) => (this.releaseDisconnect = r));
  }
  endSession(): Promise<void> {
    this.log.push('end');
    return Promise.resolve();
  }
  getSessionState(): 'IDLE' {
    return 'IDLE';
  }
  getConnectionState(): 'DISCONNECTED' {
    return 'DISCONNECTED';
  }
}

let n = 0;
function mount(made: FakeSession[], views: Partial<SessionView>[] = [], sessionId = `s${++n}`) {
  return openSession({
    create: () => {
      const s = new FakeSession();
      made.push(s);
      return s;
    },
    access: { sessionId, viewerToken: 'vt' },
    changed: (patch) => views.push(patch),
    listeners: () => undefined,
  });
}

describe('openSession / close', () => {
  it("StrictMode's mount, unmount, mount: one start, and the first object sends nothing", async () => {
    const made: FakeSession[] = [];
    const first = mount(made, [], 'strict');
    first.close(); // React runs the cleanup in the same tick
    mount(made, [], 'strict');
    await settle();
    expect(made).toHaveLength(2);
    expect(made[0]!.log.filter((l) => l.startsWith('init'))).toEqual([]);
    expect(made[1]!.log).toEqual(['init strict']);
  });

  it('an unmount disconnects (never ends) and unsubscribes', async () => {
    const made: FakeSession[] = [];
    const opened = mount(made);
    await settle();
    expect(made[0]!.listening()).toBeGreaterThan(0);
    opened.close();
    opened.close(); // idempotent
    await settle();
    expect(made[0]!.log).toEqual([expect.stringMatching(/^init /), 'disconnect']);
    expect(made[0]!.listening()).toBe(0);
  });

  it('a remount of the same session starts only once the earlier disconnect is done', async () => {
    const made: FakeSession[] = [];
    const a = mount(made, [], 'again');
    await settle();
    made[0]!.holdDisconnect = true;
    a.close();
    mount(made, [], 'again');
    await settle();
    expect(made[1]!.log).toEqual([]); // waiting: two viewers of one session would fight
    made[0]!.releaseDisconnect!();
    await settle();
    expect(made[1]!.log).toEqual(['init again']);
  });

  it('another session does not wait for it', async () => {
    const made: FakeSession[] = [];
    const a = mount(made, [], 'x');
    await settle();
    made[0]!.holdDisconnect = true;
    a.close();
    mount(made, [], 'y');
    await settle();
    expect(made[1]!.log).toEqual(['init y']);
  });

  it('state, connection, speaking (until every turn ended) and errors reach the view', async () => {
    const made: FakeSession[] = [];
    const views: Partial<SessionView>[] = [];
    mount(made, views);
    await settle();
    const s = made[0]!;
    s.emit('stateChange', 'READY');
    s.emit('connectionChange', 'CONNECTED');
    s.emit('speakingStart', { turnId: 't1' });
    s.emit('speakingStart', { turnId: 't2' });
    s.emit('speakingEnd', { turnId: 't1', interrupted: false });
    s.emit('speakingEnd', { turnId: 't2', interrupted: true });
    s.emit('error', { code: 'RTC_CONNECTION_FAILED', message: 'lost' });
    expect(views).toEqual([
      { state: 'READY' },
      { connection: 'CONNECTED' },
      { speaking: true },
      { speaking: true },
      { speaking: true },
      { speaking: false },
      { error: { code: 'RTC_CONNECTION_FAILED', message: 'lost' } },
    ]);
  });

  it('a failed start is the view’s error; the listeners get every event by name', async () => {
    const words: string[] = [];
    const views: Partial<SessionView>[] = [];
    const opened = openSession({
      create: () => {
        const s = new FakeSession();
        s.initSession = () => Promise.reject(Object.assign(new Error('gone'), { code: 'SESSION_NOT_FOUND' }));
        return s;
      },
      access: { sessionId: 'failing', token: 't' },
      changed: (patch) => views.push(patch),
      listeners: () => ({ word: ({ text }) => words.push(text) }),
    });
    await settle();
    expect(views).toEqual([{ error: { code: 'SESSION_NOT_FOUND', message: 'gone' } }]);
    opened.session.emit('word', { turnId: 't', text: 'hello', startMs: 0, endMs: 1 });
    expect(words).toEqual(['hello']);
  });
});
