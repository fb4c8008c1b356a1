// The backend-created pattern, view-only page: this server holds the session credential (from the
// environment, never sent to the browser), creates a session per visitor, keeps its token and
// hands only sessionId + viewerToken to its page, which shows the avatar with the Mouthpiece
// browser SDK's initSession(). What the avatar says goes through this server (POST /say), which
// speaks with the token: a visitor cannot make the avatar say anything with a curl of their own.
//   MOUTHPIECE_URL=http://localhost:8080 MOUTHPIECE_CREDENTIAL=mp_… node server.mjs
import http from 'node:http';

const MOUTHPIECE_URL = (process.env.MOUTHPIECE_URL ?? 'http://localhost:8080').replace(/\/+$/, '');
const CREDENTIAL = process.env.MOUTHPIECE_CREDENTIAL;
const PORT = Number(process.env.PORT ?? 3000);
const CREATE_TIMEOUT_MS = 15_000;
/** Sessions live at most an hour by default; a token is kept no longer. */
const KEEP_TOKEN_MS = 60 * 60_000;
/** sessionId → { token, createdAt }: the session tokens, which never leave this server. */
const tokens = new Map();
if (!CREDENTIAL) {
  console.error(
    'Set MOUTHPIECE_CREDENTIAL (create one with: npx mouthpiece credentials create --name example)',
  );
  process.exit(1);
}

/**
 * Creates a Mouthpiece session for one visitor. Resolves to [status, body for the page]: the
 * session id and viewer token, or `{error}` saying what went wrong and what to do. Never rejects.
 */
async function createSession() {
  let r;
  try {
    r = await fetch(`${MOUTHPIECE_URL}/v1/avatar-session`, {
      method: 'POST',
      headers: { Authorization: `KS ${CREDENTIAL}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ visualConfig: { avatarId: 'amara' }, voiceConfig: { id: 'en-us-female' } }),
      signal: AbortSignal.timeout(CREATE_TIMEOUT_MS),
    });
  } catch (err) {
    const cause =
      err.name === 'TimeoutError'
        ? `no answer within ${CREATE_TIMEOUT_MS / 1000} s`
        : err.cause?.message || err.cause?.code || err.message;
    return [
      502,
      { error: `Mouthpiece is not reachable at ${MOUTHPIECE_URL}: ${cause}. Start it with npm start` },
    ];
  }
  const text = await r.text().catch(() => '');
  let body = {};
  try {
    body = JSON.parse(text) ?? {};
  } catch {
    // not JSON (a proxy's error page?): the status and the start of the text say enough
  }
  if (r.ok && body.sessionId && body.token && body.viewerToken) {
    const now = Date.now();
    for (const [id, t] of tokens) if (now - t.createdAt > KEEP_TOKEN_MS) tokens.delete(id);
    tokens.set(body.sessionId, { token: body.token, createdAt: now });
    // only these: never the credential, nor the token (it could make the avatar say anything)
    return [200, { sessionId: body.sessionId, viewerToken: body.viewerToken }];
  }
  if (r.ok) {
    return [
      502,
      { error: `${MOUTHPIECE_URL} answered without a session: is MOUTHPIECE_URL a Mouthpiece server?` },
    ];
  }
  const why = (body.error ?? (text.slice(0, 200) || r.statusText)).replace(/\.$/, '');
  const check =
    r.status === 401 || r.status === 403
      ? ' Check MOUTHPIECE_CREDENTIAL (make one with: npx mouthpiece credentials create --name example)'
      : '';
  return [
    r.status,
    {
      error: `Mouthpiece refused to create a session (${r.status}${body.code ? ` ${body.code}` : ''}): ${why}.${check}`,
    },
  ];
}

/**
 * say-text or interrupt on a visitor's session, with the token this server kept. A real backend
 * decides what the avatar says (an assistant's answer); this one says the visitor's text.
 * Resolves to [status, body for the page]; never rejects.
 */
async function sessionCall(sessionId, call, json) {
  const kept = tokens.get(sessionId);
  if (!kept) return [404, { error: 'No session of this page here: reload the page for a new one' }];
  try {
    const r = await fetch(`${MOUTHPIECE_URL}/v1/avatar-session/${sessionId}/${call}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${kept.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(json),
      signal: AbortSignal.timeout(CREATE_TIMEOUT_MS),
    });
    const body = await r.json().catch(() => ({}));
    if (r.status === 404 || r.status === 410) tokens.delete(sessionId);
    return r.ok
      ? [200, body]
      : [r.status, { error: `Mouthpiece answered ${r.status}: ${body.error ?? r.statusText}` }];
  } catch (err) {
    return [
      502,
      { error: `Mouthpiece is not reachable at ${MOUTHPIECE_URL}: ${err.cause?.message || err.message}` },
    ];
  }
}

/** The JSON body of a request (at most 64 KiB), or {} when it is not JSON. */
async function readJson(req) {
  let text = '';
  for await (const chunk of req) {
    text += chunk;
    if (text.length > 65_536) break;
  }
  try {
    return JSON.parse(text) ?? {};
  } catch {
    return {};
  }
}

const page = `<!doctype html>
<html><head><meta charset="utf-8"><title>My app with an avatar</title>
<style>
  body { font-family: system-ui; margin: 40px }
  #avatar { position: relative; width: 384px; height: 384px; border-radius: 12px; overflow: hidden; background: #ddd }
  #status { position: absolute; inset: 0; margin: 0; padding: 24px; display: flex; align-items: center; justify-content: center; text-align: center; color: #555 }
  #status[hidden] { display: none }
  #status.error { background: #f6e3e3; color: #b42318 }
</style></head>
<body>
  <h1>Talk to our assistant</h1>
  <div id="avatar"><p id="status" role="status">connecting…</p></div>
  <p><input id="text" size="50" value="Hi! How can I help you today?"> <button id="say">Say</button> <button id="stop">Interrupt</button></p>
  <script src="${MOUTHPIECE_URL}/sdk/mouthpiece.js"></script>
  <script>
    const status = document.getElementById('status');
    const show = (text, error) => {
      status.textContent = text;
      status.className = error ? 'error' : '';
      status.hidden = false;
    };
    let avatar;
    let sessionId;
    fetch('/session', { method: 'POST' })
      .then(async (r) => {
        const s = await r.json().catch(() => ({ error: 'The backend answered ' + r.status }));
        if (!r.ok) throw new Error(s.error);
        if (!window.Mouthpiece) throw new Error(${JSON.stringify(`Could not load ${MOUTHPIECE_URL}/sdk/mouthpiece.js`)});
        avatar = new Mouthpiece.AvatarSession({ baseUrl: ${JSON.stringify(MOUTHPIECE_URL)} });
        avatar.on('videoReady', () => (status.hidden = true));
        avatar.on('error', (e) => show(e.message, true));
        sessionId = s.sessionId;
        // view-only: this page shows the avatar and keeps the session alive; the backend speaks
        await avatar.initSession(
          { sessionId: s.sessionId, viewerToken: s.viewerToken },
          { videoContainerId: 'avatar' },
        );
      })
      .catch((err) => show(err.message, true));
    // the page asks its backend, which speaks with the session token
    const ask = (path, body) =>
      sessionId &&
      fetch(path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ sessionId, ...body }),
      })
        .then(async (r) => {
          if (!r.ok) throw new Error((await r.json().catch(() => ({}))).error ?? 'The backend answered ' + r.status);
        })
        .catch((e) => show(e.message, true));
    document.getElementById('say').onclick = () => ask('/say', { text: document.getElementById('text').value });
    document.getElementById('stop').onclick = () => ask('/interrupt', {});
  </script>
</body></html>`;

async function handle(req, res) {
  const path = new URL(req.url, 'http://localhost').pathname;
  if (req.method === 'POST' && path === '/session') {
    const [status, body] = await createSession();
    if (body.error) console.error(`POST /session → ${status}: ${body.error}`);
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
    return;
  }
  if (req.method === 'POST' && (path === '/say' || path === '/interrupt')) {
    const { sessionId, text } = await readJson(req);
    const [status, body] = await sessionCall(
      String(sessionId),
      path === '/say' ? 'say-text' : 'interrupt',
      path === '/say' ? { text: String(text ?? '') } : {},
    );
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
    return;
  }
  if (req.method === 'GET' && path === '/') {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(page);
    return;
  }
  res.writeHead(404, { 'Content-Type': 'text/plain' });
  res.end('Not found');
}

http
  .createServer((req, res) => {
    handle(req, res).catch((err) => {
      console.error(err);
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: `The example server failed: ${err.message}` }));
    });
  })
  .listen(PORT, () =>
    console.log(`example app on http://localhost:${PORT} (Mouthpiece at ${MOUTHPIECE_URL})`),
  );
