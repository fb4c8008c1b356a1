// A minimal viewer for sessions created by a backend: WHEP with the `events` data channel,
// keep-alive every 10 s, and the session's speech controls. Uses only browser APIs.
(() => {
  const $ = (id) => document.getElementById(id);
  const log = (msg) => {
    $('log').textContent = `${new Date().toLocaleTimeString()} ${msg}\n` + $('log').textContent;
  };
  let session = null;
  let pc = null;
  let resource = null;
  let keepAlive = null;
  let sentAt = 0;

  const api = (path, body) =>
    fetch(`/v1/avatar-session/${session.sessionId}/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
    });

  const setState = (s) => {
    $('state').textContent = s;
    $('state').classList.toggle('on', s === 'connected');
  };

  async function connect(sessionId, token) {
    session = { sessionId, token };
    setState('connecting');
    const init = await api('init-client');
    if (!init.ok) {
      setState('error');
      return log(`init-client failed: ${init.status} ${(await init.json()).error}`);
    }
    const cfg = await init.json();
    pc = new RTCPeerConnection({ iceServers: cfg.iceServers });
    pc.addTransceiver('video', { direction: 'recvonly' });
    pc.addTransceiver('audio', { direction: 'recvonly' });
    const channel = pc.createDataChannel('events', { ordered: true });
    channel.onmessage = (e) => onEvent(JSON.parse(e.data));
    const stream = new MediaStream();
    pc.ontrack = (e) => {
      stream.addTrack(e.track);
      $('video').srcObject = stream;
    };
    pc.onconnectionstatechange = () => setState(pc.connectionState);
    const video = $('video');
    video.requestVideoFrameCallback(() => {
      if (channel.readyState === 'open') channel.send(JSON.stringify({ type: 'ready' }));
      else channel.onopen = () => channel.send(JSON.stringify({ type: 'ready' }));
      video.muted = false;
      video.play().catch(() => {
        video.muted = true;
        $('unmute').hidden = false;
      });
    });
    await pc.setLocalDescription(await pc.createOffer());
    await new Promise((r) => {
      if (pc.iceGatheringState === 'complete') return r();
      pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && r();
      setTimeout(r, 2000);
    });
    const res = await fetch(cfg.whepUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/sdp' },
      body: pc.localDescription.sdp,
    });
    if (res.status !== 201) {
      setState('error');
      return log(`WHEP failed: ${res.status}`);
    }
    resource = new URL(res.headers.get('location'), cfg.whepUrl).toString();
    await pc.setRemoteDescription({ type: 'answer', sdp: await res.text() });
    keepAlive = setInterval(async () => {
      const r = await api('keep-alive');
      if (r.status === 404 || r.status === 410) stop('session ended');
    }, 10_000);
    log('connected');
  }

  function onEvent(e) {
    if (e.type === 'speakingStart') {
      $('speaking').textContent = 'speaking';
      $('speaking').classList.add('on');
      if (sentAt)
        $('latency').textContent = `say → speakingStart: ${Math.round(performance.now() - sentAt)} ms`;
      sentAt = 0;
    } else if (e.type === 'speakingEnd') {
      $('speaking').textContent = e.interrupted ? 'interrupted' : 'silent';
      $('speaking').classList.remove('on');
    } else if (e.type === 'word') {
      $('caption').textContent = e.text;
    } else if (e.type === 'sessionEnded') {
      stop(`session ended (${e.reason})`);
    }
  }

  function stop(msg) {
    clearInterval(keepAlive);
    if (resource) fetch(resource, { method: 'DELETE' }).catch(() => {});
    pc?.close();
    setState('ended');
    log(msg);
  }

  $('connect').onsubmit = (e) => {
    e.preventDefault();
    void connect($('sessionId').value.trim(), $('token').value.trim());
  };
  $('say').onsubmit = async (e) => {
    e.preventDefault();
    if (!session) return log('connect first');
    sentAt = performance.now();
    const r = await api('say-text', { text: $('text').value, isFinal: true });
    if (!r.ok) log(`say-text: ${r.status} ${(await r.json()).error}`);
  };
  $('interrupt').onclick = () => session && void api('interrupt');
  $('end').onclick = async () => {
    if (!session) return;
    await api('end');
    stop('ended');
  };
  $('unmute').onclick = () => {
    $('video').muted = false;
    void $('video').play();
    $('unmute').hidden = true;
  };
  window.addEventListener('pagehide', () => {
    if (resource) fetch(resource, { method: 'DELETE', keepalive: true }).catch(() => {});
  });

  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.get('sessionId') && hash.get('token')) {
    $('sessionId').value = hash.get('sessionId');
    $('token').value = hash.get('token');
    void connect(hash.get('sessionId'), hash.get('token'));
  }
})();
