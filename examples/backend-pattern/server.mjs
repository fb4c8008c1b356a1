// The backend-created pattern: this server holds the session credential (from the environment,
// never sent to the browser), creates a session per visitor and hands only sessionId + token to
// its page, which shows the avatar with the Mouthpiece browser SDK's initSession().
//   MOUTHPIECE_URL=http://localhost:8080 MOUTHPIECE_CREDENTIAL=mp_… node server.mjs
import http from 'node:http';

const MOUTHPIECE_URL = (process.env.MOUTHPIECE_URL ?? 'http://localhost:8080').replace(/\/+$/, '');
const CREDENTIAL = process.env.MOUTHPIECE_CREDENTIAL;
const PORT = Number(process.env.PORT ?? 3000);
if (!CREDENTIAL) {
  console.error(
    'Set MOUTHPIECE_CREDENTIAL (create one with: npx mouthpiece credentials create --name example)',
  );
  process.exit(1);
}

const page = `<!doctype html>
<html><head><meta charset="utf-8"><title>My app with an avatar</title>
<style>body{font-family:system-ui;margin:40px} #avatar{width:384px;height:384px;border-radius:12px;overflow:hidden;background:#ddd}</style></head>
<body>
  <h1>Talk to our assistant</h1>
  <div id="avatar"></div>
  <p><input id="text" size="50" value="Hi! How can I help you today?"> <button id="say">Say</button> <button id="stop">Interrupt</button></p>
  <script src="${MOUTHPIECE_URL}/sdk/mouthpiece.js"></script>
  <script>
    const avatar = new Mouthpiece.AvatarSession({ baseUrl: ${JSON.stringify(MOUTHPIECE_URL)} });
    avatar.on('error', (e) => console.warn(e.code, e.message));
    fetch('/session', { method: 'POST' })
      .then((r) => r.json())
      .then(({ sessionId, token }) => avatar.initSession({ sessionId, token }, { videoContainerId: 'avatar' }));
    document.getElementById('say').onclick = () => avatar.sayText(document.getElementById('text').value);
    document.getElementById('stop').onclick = () => avatar.interrupt();
  </script>
</body></html>`;

http
  .createServer(async (req, res) => {
    if (req.method === 'POST' && req.url === '/session') {
      const r = await fetch(`${MOUTHPIECE_URL}/v1/avatar-session`, {
        method: 'POST',
        headers: { Authorization: `KS ${CREDENTIAL}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ visualConfig: { avatarId: 'amara' }, voiceConfig: { id: 'en-us-female' } }),
      });
      const body = await r.json();
      res.writeHead(r.status, { 'Content-Type': 'application/json' });
      // only what the page needs: never the credential
      res.end(
        JSON.stringify(r.ok ? { sessionId: body.sessionId, token: body.token } : { error: body.error }),
      );
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(page);
  })
  .listen(PORT, () =>
    console.log(`example app on http://localhost:${PORT} (Mouthpiece at ${MOUTHPIECE_URL})`),
  );
