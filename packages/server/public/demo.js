// The demo page: drives Mouthpiece through the browser SDK (window.Mouthpiece.AvatarSession).
(() => {
  const { AvatarSession } = window.Mouthpiece;
  const $ = (id) => document.getElementById(id);
  const log = (msg) =>
    ($('log').textContent = `${new Date().toLocaleTimeString()} ${msg}\n` + $('log').textContent);
  let session = null;
  let saidAt = 0;

  function makeSession(credential) {
    const s = new AvatarSession({ baseUrl: location.origin, credential, logLevel: 'warn' });
    s.on('stateChange', (v) => ($('state').textContent = v));
    s.on('connectionChange', (v) => {
      $('connection').textContent = v;
      $('connection').classList.toggle('on', v === 'CONNECTED');
    });
    s.on('speakingStart', () => {
      $('speaking').textContent = 'speaking';
      $('speaking').classList.add('on');
      if (saidAt)
        $('latency').textContent = `say → speakingStart: ${Math.round(performance.now() - saidAt)} ms`;
      saidAt = 0;
    });
    s.on('speakingEnd', (e) => {
      $('speaking').textContent = e.interrupted ? 'interrupted' : 'silent';
      $('speaking').classList.remove('on');
    });
    s.on('word', (w) => ($('caption').textContent = w.text));
    s.on('autoplayBlocked', () => ($('unmute').hidden = false));
    s.on('error', (e) => log(`${e.code}: ${e.message}`));
    return s;
  }

  async function catalog() {
    const headers = { authorization: `KS ${$('credential').value.trim()}` };
    const [a, v] = await Promise.all([fetch('/v1/avatars', { headers }), fetch('/v1/voices', { headers })]);
    if (!a.ok) return log(`catalog: ${(await a.json()).error}`);
    const fill = (sel, items) =>
      (sel.innerHTML = items.map((i) => `<option value="${i.id}">${i.name}</option>`).join(''));
    fill($('avatarId'), (await a.json()).avatars);
    fill($('voiceId'), (await v.json()).voices);
  }

  const guard = (fn) => async (e) => {
    e?.preventDefault?.();
    if (!session) return log('create or open a session first');
    try {
      await fn();
    } catch (err) {
      log(`${err.code ?? 'ERROR'}: ${err.message}`);
    }
  };

  $('load').onclick = () => void catalog();
  $('speed').oninput = () => ($('speedValue').textContent = `${Number($('speed').value).toFixed(1)}×`);
  $('create').onsubmit = async (e) => {
    e.preventDefault();
    if (!$('avatarId').value) await catalog();
    session = makeSession($('credential').value.trim());
    try {
      const id = await session.createSession({
        avatarId: $('avatarId').value,
        voiceId: $('voiceId').value || undefined,
        voiceSpeed: Number($('speed').value),
        videoContainerId: 'avatar',
      });
      log(`session ${id}`);
    } catch (err) {
      log(`${err.code}: ${err.message}`);
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
    await session.endSession();
    log('ended');
  });
  $('unmute').onclick = () => {
    session?.unmute();
    $('unmute').hidden = true;
  };

  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.get('sessionId') && hash.get('token')) {
    session = makeSession(undefined);
    session
      .initSession(
        { sessionId: hash.get('sessionId'), token: hash.get('token') },
        { videoContainerId: 'avatar' },
      )
      .then(() => log(`session ${hash.get('sessionId')}`))
      .catch((err) => log(`${err.code}: ${err.message}`));
  }
})();
