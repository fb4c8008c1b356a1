// An LLM agent with an avatar: this server holds the Mouthpiece credential and the model's API
// key (both from the environment, never sent to the browser), creates a session per visitor, gives
// its page only the session id and a view-only token, and speaks the model's streamed answers
// through @mouthpiece/backend (agent.mjs). See README.md for the commands.
import http from 'node:http';
import { createBackendClient } from '@mouthpiece/backend';
import { Agent } from './agent.mjs';

const env = process.env;
const MOUTHPIECE_URL = (env.MOUTHPIECE_URL ?? 'http://localhost:8080').replace(/\/+$/, '');
const CREDENTIAL = env.MOUTHPIECE_CREDENTIAL;
const PORT = Number(env.PORT ?? 3000);
const AVATAR = env.AVATAR ?? 'amara';
const MODEL = {
  baseUrl: env.OPENAI_BASE_URL ?? 'http://localhost:11434/v1', // Ollama's; any OpenAI-compatible server
  apiKey: env.OPENAI_API_KEY ?? '',
  model: env.OPENAI_MODEL ?? 'llama3.2',
  systemPrompt:
    env.SYSTEM_PROMPT ??
    'You are a friendly assistant shown as a talking avatar. Answer in a few short spoken sentences.',
};
if (!CREDENTIAL) {
  console.error(
    'Set MOUTHPIECE_CREDENTIAL (create one with: npx mouthpiece credentials create --name agent)',
  );
  process.exit(1);
}

const mouthpiece = createBackendClient({ baseUrl: MOUTHPIECE_URL, credential: CREDENTIAL });
/** sessionId → Agent */
const agents = new Map();
const log = { info: (m) => console.log(m), warn: (m) => console.warn(m) };

async function createSession() {
  const session = await mouthpiece.createSession({ visualConfig: { avatarId: AVATAR } });
  const agent = new Agent({ session, model: MODEL, log });
  agents.set(session.sessionId, agent);
  session.startKeepAlive({
    onError: (err) => {
      log.warn(`keep-alive ${session.sessionId}: ${[err.code, err.message].filter(Boolean).join(' ')}`);
      if (err.status === 410 || err.status === 404) forget(session.sessionId);
    },
  });
  return session.viewerCredentials(); // the page may show the avatar, not drive it
}

function forget(sessionId) {
  agents.get(sessionId)?.close();
  agents.delete(sessionId);
}

const page = `<!doctype html>
<html><head><meta charset="utf-8"><title>Talk to the agent</title>
<style>
  body { font-family: system-ui; margin: 40px; max-width: 720px }
  #avatar { width: 384px; height: 384px; border-radius: 12px; overflow: hidden; background: #ddd }
  #log p { margin: 4px 0 } #log .you { color: #555 } #error { color: #b42318 }
</style></head>
<body>
  <h1>Talk to the agent</h1>
  <div id="avatar"></div>
  <form id="ask"><input id="text" size="50" placeholder="Ask something" autocomplete="off"> <button>Send</button></form>
  <p id="error" role="alert"></p>
  <div id="log"></div>
  <script src="${MOUTHPIECE_URL}/sdk/mouthpiece.js"></script>
  <script>
    const $ = (id) => document.getElementById(id);
    const say = (cls, text) => { const p = document.createElement('p'); p.className = cls; p.textContent = text; $('log').prepend(p); };
    window.agentEvents = [];
    let session;
    window.sessionReady = fetch('/session', { method: 'POST' }).then(async (r) => {
      const s = await r.json();
      if (!r.ok) throw new Error(s.error);
      return s;
    });
    window.sessionReady
      .then(async (s) => {
        session = s;
        const avatar = new Mouthpiece.AvatarSession({ baseUrl: ${JSON.stringify(MOUTHPIECE_URL)} });
        avatar.on('speakingStart', (e) => agentEvents.push({ type: 'speakingStart', turnId: e.turnId }));
        avatar.on('speakingEnd', (e) => agentEvents.push({ type: 'speakingEnd', turnId: e.turnId, interrupted: e.interrupted }));
        avatar.on('error', (e) => ($('error').textContent = e.message));
        await avatar.initSession(s, { videoContainerId: 'avatar' });
      })
      .catch((err) => ($('error').textContent = err.message));
    $('ask').onsubmit = async (ev) => {
      ev.preventDefault();
      const text = $('text').value.trim();
      if (!text || !session) return;
      $('text').value = '';
      say('you', 'You: ' + text);
      const r = await fetch('/message', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sessionId: session.sessionId, text }) });
      const a = await r.json();
      if (!r.ok) $('error').textContent = a.error;
      else say('agent', 'Agent: ' + a.spoken + (a.aborted ? ' (interrupted)' : ''));
    };
  </script>
</body></html>`;

async function readJson(req) {
  let s = '';
  for await (const c of req) s += c;
  try {
    return JSON.parse(s);
  } catch {
    return {};
  }
}

async function handle(req, res) {
  const path = new URL(req.url, 'http://localhost').pathname;
  const send = (status, body) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (req.method === 'GET' && path === '/') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    return res.end(page);
  }
  if (req.method === 'POST' && path === '/session') {
    try {
      return send(200, await createSession());
    } catch (err) {
      return send(err.status || 502, { error: `Mouthpiece refused to create a session: ${err.message}` });
    }
  }
  if (req.method === 'POST' && path === '/message') {
    const { sessionId, text } = await readJson(req);
    const agent = agents.get(sessionId);
    if (!agent) return send(404, { error: 'no such session here: reload the page' });
    if (typeof text !== 'string' || text.trim() === '') return send(400, { error: 'text is required' });
    try {
      return send(200, await agent.reply(text));
    } catch (err) {
      return send(502, { error: `the answer failed: ${[err.code, err.message].filter(Boolean).join(' ')}` });
    }
  }
  if (req.method === 'GET' && path === '/state') {
    const agent = agents.get(new URL(req.url, 'http://x').searchParams.get('sessionId'));
    if (!agent) return send(404, { error: 'no such session here' });
    return send(200, { generating: agent.generating, speaking: agent.speaking ?? null });
  }
  res.writeHead(404, { 'content-type': 'text/plain' });
  res.end('Not found');
}

http
  .createServer((req, res) => {
    handle(req, res).catch((err) => {
      console.error(err);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `The example server failed: ${err.message}` }));
    });
  })
  .listen(PORT, () =>
    console.log(
      `agent on http://localhost:${PORT} (Mouthpiece at ${MOUTHPIECE_URL}, model ${MODEL.model} at ${MODEL.baseUrl})`,
    ),
  );

for (const sig of ['SIGINT', 'SIGTERM'])
  process.on(sig, () => {
    void Promise.allSettled([...agents.values()].map((a) => (a.close(), a.session.end()))).then(() =>
      process.exit(0),
    );
  });
