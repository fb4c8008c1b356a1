// The demo page: drives Mouthpiece through the browser SDK (window.Mouthpiece.AvatarSession).
// Two modes: a credential typed into the page creates the session (demos only), or the page is
// opened on a backend-created session with `#sessionId=…&token=…` (or `&viewerToken=…`: view-only,
// the SDK refuses to speak, interrupt or end). A session this page created ends when the page goes
// away; a backend's session outlives a reload (the backend owns it).
(() => {
  const { AvatarSession } = window.Mouthpiece;
  const $ = (id) => document.getElementById(id);
  const hash = new URLSearchParams(location.hash.slice(1));
  const opened = !hash.get('sessionId')
    ? null
    : hash.get('token')
      ? { sessionId: hash.get('sessionId'), token: hash.get('token') }
      : hash.get('viewerToken')
        ? { sessionId: hash.get('sessionId'), viewerToken: hash.get('viewerToken') }
        : null;
  /** Sessions whose end this page asked for: their end is normal, whatever else reports it. */
  const endedHere = new WeakSet();
  let session = null;
  let saidAt = 0;
  /** "Draw in the browser" (render: 'client'), remembered by this browser. */
  const RENDER_KEY = 'mouthpiece.demo.render';
  const storage = (() => {
    try {
      return window.localStorage;
    } catch {
      return undefined; // storage blocked: the choice lasts this page only
    }
  })();
  $('clientRender').checked = storage?.getItem(RENDER_KEY) === 'client';
  $('clientRender').onchange = () =>
    storage?.setItem(RENDER_KEY, $('clientRender').checked ? 'client' : 'video');
  const render = () => ($('clientRender').checked ? 'client' : 'video');

  /** level: info (what happened), warn (worth knowing), error (it did not work). */
  function log(level, msg) {
    const line = document.createElement('div');
    line.className = `line ${level}`;
    line.textContent = `${new Date().toLocaleTimeString()} ${msg}`;
    $('log').prepend(line);
  }

  /** The box over the video: shown with `text` until the first frame; null hides it. */
  function poster(text, look = 'idle') {
    $('poster').hidden = text === null;
    $('posterText').textContent = text ?? '';
    $('poster').dataset.look = look;
  }

  function clearLabels() {
    $('caption').textContent = '';
    $('speaking').textContent = 'silent';
    $('speaking').classList.remove('on');
    $('unmute').hidden = true;
  }

  /** "Session ended (idle_timeout)" (410) or "The session ended (…)" (data channel) → the reason. */
  const endReason = (message) => /ended \((\w+)\)/i.exec(message)?.[1];

  function ended(s, reason) {
    // ended_by_client: this page or the backend called end — the way a session should finish
    const normal = endedHere.has(s) || reason === 'ended_by_client';
    log(normal ? 'info' : 'error', `session ended (${reason})`);
    poster(`The session ended (${reason})`, normal ? 'idle' : 'error');
  }

  function makeSession(options) {
    const s = new AvatarSession({ baseUrl: location.origin, logLevel: 'warn', render: render(), ...options });
    // events of a session this page has since replaced change nothing on screen
    const on = (event, fn) => s.on(event, (e) => s === session && fn(e));
    on('stateChange', (v) => {
      $('state').textContent = v;
      if (v === 'ENDED' || v === 'ERROR') clearLabels();
      if (v === 'ENDED') poster('The session ended');
    });
    on('connectionChange', (v) => {
      $('connection').textContent = v;
      $('connection').classList.toggle('on', v === 'CONNECTED');
      if (v === 'CONNECTING' && s.getSessionState() === 'READY') poster('reconnecting…', 'busy');
    });
    on('videoReady', () => poster(null));
    on('speakingStart', () => {
      $('speaking').textContent = 'speaking';
      $('speaking').classList.add('on');
      if (saidAt)
        $('latency').textContent = `say → speakingStart: ${Math.round(performance.now() - saidAt)} ms`;
      saidAt = 0;
    });
    on('speakingEnd', (e) => {
      $('speaking').textContent = e.interrupted ? 'interrupted' : 'silent';
      $('speaking').classList.remove('on');
    });
    on('word', (w) => ($('caption').textContent = w.text));
    on('autoplayBlocked', () => ($('unmute').hidden = false));
    on('renderFallback', (e) =>
      log('warn', `drawing in the browser is not possible here (${e.reason}): video instead`),
    );
    on('error', (e) => {
      const reason = e.code === 'SESSION_NOT_FOUND' && endReason(e.message);
      if (reason) return ended(s, reason);
      if (e.details?.code === 'REPLACED') {
        log('warn', e.message);
        return poster('Another page is showing this session now');
      }
      log('error', `${e.code}: ${e.message}`);
      if (s.getSessionState() !== 'READY') poster(e.message, 'error');
    });
    return s;
  }

  /** A fresh session object for the avatar box: the previous one's video goes. */
  async function replaceSession(options) {
    const old = session;
    if (old?.getSessionState() === 'READY' && old.viewOnly) {
      await old.disconnect(); // the session lives on
    } else if (old?.getSessionState() === 'READY') {
      endedHere.add(old);
      await old.endSession().catch(() => undefined);
      log('info', `session ${old.getSessionId()} ended`);
    }
    for (const v of $('avatar').querySelectorAll('video, canvas, audio')) v.remove();
    clearLabels();
    session = makeSession(options);
    poster('connecting…', 'busy');
    return session;
  }

  function failed(what, err) {
    log('error', `${err.code ?? 'ERROR'}: ${err.message}`);
    poster(`${what}: ${err.message}`, 'error');
  }

  async function catalog() {
    const headers = { authorization: `KS ${$('credential').value.trim()}` };
    try {
      const [a, v] = await Promise.all([fetch('/v1/avatars', { headers }), fetch('/v1/voices', { headers })]);
      if (!a.ok) return log('error', `catalog: ${(await a.json()).error}`);
      const fill = (sel, items) => sel.replaceChildren(...items.map((i) => new Option(i.name, i.id)));
      fill($('avatarId'), (await a.json()).avatars);
      fill($('voiceId'), (await v.json()).voices);
    } catch (err) {
      log('error', `catalog: ${err.message}`);
    }
  }

  const guard = (fn) => async (e) => {
    e?.preventDefault?.();
    if (!session) return log('warn', 'create or open a session first');
    try {
      await fn();
    } catch (err) {
      log('error', `${err.code ?? 'ERROR'}: ${err.message}`);
    }
  };

  $('load').onclick = () => void catalog();
  $('speed').oninput = () => ($('speedValue').textContent = `${Number($('speed').value).toFixed(1)}×`);
  $('create').onsubmit = async (e) => {
    e.preventDefault();
    if (!$('avatarId').value) await catalog();
    if (!$('avatarId').value) return;
    const s = await replaceSession({ credential: $('credential').value.trim() });
    try {
      const id = await s.createSession({
        avatarId: $('avatarId').value,
        voiceId: $('voiceId').value || undefined,
        voiceSpeed: Number($('speed').value),
        videoContainerId: 'avatar',
      });
      log('info', `session ${id}`);
    } catch (err) {
      if (s === session) failed('Could not create a session', err);
    }
  };
  $('say').onsubmit = guard(async () => {
    saidAt = performance.now();
    await session.sayText($('text').value);
  });
  $('stream').onclick = guard(async () => {
    const words = $('text').value.match(/\S+\s*/g) ?? [];
    const turnId = `stream-${Date.now()}`;
    saidAt = 0;
    for (const [i, w] of words.entries()) {
      const last = i === words.length - 1;
      if (last) saidAt = performance.now();
      await session.sayText(w, turnId, last);
      if (!last) await new Promise((r) => setTimeout(r, 60));
    }
  });
  $('mp3').onchange = guard(async () => {
    const file = $('mp3').files[0];
    if (!file) return;
    const duration = await new Promise((resolve) => {
      const a = new Audio(URL.createObjectURL(file));
      a.onloadedmetadata = () => resolve(a.duration);
      a.onerror = () => resolve(1);
    });
    saidAt = performance.now();
    await session.sayAudio(file, `upload-${Date.now()}`, duration);
  });
  $('interrupt').onclick = guard(() => session.interrupt());
  $('end').onclick = guard(async () => {
    if (session.getSessionState() === 'ENDED') return log('info', 'the session has already ended');
    endedHere.add(session);
    await session.endSession();
    log('info', 'session ended');
    poster('The session ended');
  });
  $('unmute').onclick = () => {
    session?.unmute();
    $('unmute').hidden = true;
  };

  if (opened) {
    $('create').hidden = true;
    if (opened.viewerToken) {
      // a viewer token only watches (the SDK would refuse each call): say so instead of offering them
      $('watching').hidden = false;
      for (const control of $('say').elements) control.disabled = true;
    } else {
      $('opened').hidden = false;
    }
    // the backend owns this session: a reload must show it again, not end it
    void replaceSession({ endOnPageHide: false }).then((s) => {
      log('info', `opening session ${opened.sessionId}`);
      s.initSession(opened, { videoContainerId: 'avatar' })
        .then(() => log('info', `session ${opened.sessionId} ready`))
        .catch((err) => failed('Could not open the session', err));
    });
    // another #sessionId=… pasted into this tab: open that one
    window.addEventListener('hashchange', () => location.reload());
  }
})();
