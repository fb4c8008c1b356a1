// The agent: one conversation per avatar session. A user message streams a chat completion from
// any OpenAI-compatible server into the avatar with streamText (one turn per sentence); a message
// that arrives while the avatar is answering is a barge-in: the model's stream is aborted and the
// avatar interrupted, so nothing of the old answer is spoken after it. The session's events()
// tell when the avatar is speaking (turn-taking) without relaying anything from the page.

/**
 * The model's reply as an async iterable of text deltas: `POST {baseUrl}/chat/completions` with
 * `stream: true`, read as Server-Sent Events (`data: {choices:[{delta:{content}}]}` … `data: [DONE]`).
 * Aborting `signal` closes the HTTP stream, so the model stops generating.
 */
export async function* chatCompletion({ baseUrl, apiKey, model, messages, signal }) {
  const res = await fetch(`${baseUrl.replace(/\/+$/, '')}/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
    },
    body: JSON.stringify({ model, messages, stream: true }),
    signal,
  });
  if (!res.ok || !res.body) {
    const text = await res.text().catch(() => '');
    throw new Error(`the model server answered ${res.status}: ${text.slice(0, 300)}`);
  }
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of res.body) {
    buf += decoder.decode(chunk, { stream: true });
    let nl;
    while ((nl = buf.search(/\r?\n/)) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + (buf[nl] === '\r' ? 2 : 1));
      if (!line.startsWith('data:')) continue; // comments, event names, blank lines
      const data = line.slice(5).trim();
      if (data === '[DONE]') return;
      const delta = JSON.parse(data).choices?.[0]?.delta?.content;
      if (typeof delta === 'string' && delta !== '') yield delta;
    }
  }
}

export class Agent {
  /** Whether the avatar is speaking, from the session's events; undefined until they answer. */
  speaking = undefined;
  /** The answer being generated now: { controller, done }. */
  #answer;
  #history;
  #turns = 0;
  /** The last turn given to the avatar: its speakingEnd (with no answer generating) ends our turn. */
  #lastTurnId;
  /** Messages start their answers one at a time (two at once would both barge in, then both speak). */
  #starting = Promise.resolve();

  constructor({ session, model, log = console }) {
    this.session = session;
    this.model = model;
    this.log = log;
    this.#history = model.systemPrompt ? [{ role: 'system', content: model.systemPrompt }] : [];
    this.events = new AbortController();
    void this.#watch();
  }

  get generating() {
    return this.#answer !== undefined;
  }

  /** Answers a user message; resolves with what the avatar was given to say. */
  async reply(text) {
    // answers start one at a time: two messages at once would both barge in, then both speak
    const previous = this.#starting;
    let started;
    this.#starting = new Promise((r) => (started = r));
    let answer;
    try {
      await previous;
      // barge-in: the old answer stops where it is (model stream and speech), the new one follows
      if (this.#answer || this.speaking !== false) {
        const old = this.#answer;
        old?.controller.abort();
        await this.session.interrupt(); // also waits for the old answer's last post
        await old?.finished.catch(() => undefined); // its history entry before the new message
      }
      answer = this.#begin(text);
    } finally {
      started();
    }
    return answer.finished;
  }

  /** Starts streaming the answer to one message: { controller, finished }. */
  #begin(text) {
    this.#history.push({ role: 'user', content: text });
    const controller = new AbortController();
    const n = ++this.#turns;
    const deltas = chatCompletion({ ...this.model, messages: this.#history, signal: controller.signal });
    const answer = { controller };
    answer.finished = this.session
      .streamText(deltas, {
        signal: controller.signal,
        turnIdPrefix: `answer${n}`,
        onTurn: (t) => {
          this.#lastTurnId = t.turnId;
          this.log.info?.(`turn ${t.turnId}: ${JSON.stringify(t.text)}`);
        },
      })
      .then((r) => {
        // the history holds what was said: an interrupted answer ends where the avatar stopped being fed
        if (r.text) this.#history.push({ role: 'assistant', content: r.text });
        return { spoken: r.text, turns: r.turns.map((t) => t.turnId), aborted: r.aborted };
      })
      .finally(() => {
        if (this.#answer === answer) this.#answer = undefined;
      });
    this.#answer = answer;
    return answer;
  }

  close() {
    this.events.abort();
    this.#answer?.controller.abort();
  }

  /** Turn-taking from the session's events: speaking from speakingStart to the last speakingEnd. */
  async #watch() {
    try {
      for await (const { event } of this.session.events({ signal: this.events.signal })) {
        if (event.type === 'speakingStart') this.speaking = true;
        else if (event.type === 'speakingEnd' || event.type === 'turnFailed') {
          // between two sentences of an answer the avatar is still answering
          const last = !this.#answer && event.turnId === this.#lastTurnId;
          if (last || (event.type === 'speakingEnd' && event.interrupted)) this.speaking = false;
        } else if (event.type === 'sessionEnded') this.close();
      }
    } catch (err) {
      // a server without the events route: every new message then interrupts (harmless when idle)
      this.speaking = undefined;
      this.log.warn?.(
        `session events unavailable (${err.code ?? err.message}); barge-in interrupts every time`,
      );
    }
  }
}
