// Browser side of the e2e tests: a plain WHEP client with the `events` data channel, getStats
// counters, a WebAudio analyser on the received audio, and mouth-region pixel motion.
(() => {
  const t = {
    pc: null,
    channel: null,
    events: [],
    video: null,
    analyser: null,
    location: null,
    readySent: false,
  };

  t.connect = async ({ whepUrl, iceServers = [], relay = false, dataChannel = true }) => {
    const pc = new RTCPeerConnection({ iceServers, iceTransportPolicy: relay ? 'relay' : 'all' });
    t.pc = pc;
    pc.addTransceiver('video', { direction: 'recvonly' });
    pc.addTransceiver('audio', { direction: 'recvonly' });
    if (dataChannel) {
      const ch = pc.createDataChannel('events', { ordered: true });
      t.channel = ch;
      ch.onmessage = (e) => {
        const m = JSON.parse(e.data);
        t.events.push({ ...m, at: performance.now() });
      };
    }
    const video = document.createElement('video');
    video.muted = true;
    video.autoplay = true;
    video.playsInline = true;
    document.body.appendChild(video);
    t.video = video;
    const stream = new MediaStream();
    pc.ontrack = (e) => {
      stream.addTrack(e.track);
      video.srcObject = stream;
      if (e.track.kind === 'audio') {
        const audio = new Audio();
        audio.muted = true;
        audio.srcObject = new MediaStream([e.track]);
        void audio.play().catch(() => {});
        const ctx = new AudioContext();
        const src = ctx.createMediaStreamSource(new MediaStream([e.track]));
        const analyser = ctx.createAnalyser();
        analyser.fftSize = 2048;
        src.connect(analyser);
        t.analyser = analyser;
        void ctx.resume();
      }
    };
    const onFrame = () => {
      if (!t.readySent && t.channel && t.channel.readyState === 'open') {
        t.channel.send(JSON.stringify({ type: 'ready' }));
        t.readySent = true;
      } else if (!t.readySent) {
        video.requestVideoFrameCallback(onFrame);
      }
    };
    video.requestVideoFrameCallback(onFrame);
    const offer = await pc.createOffer();
    await pc.setLocalDescription(offer);
    await new Promise((resolve) => {
      if (pc.iceGatheringState === 'complete') return resolve();
      pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && resolve();
      setTimeout(resolve, 3000);
    });
    const res = await fetch(whepUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/sdp' },
      body: pc.localDescription.sdp,
    });
    if (res.status !== 201) return { status: res.status, body: await res.text() };
    t.location = new URL(res.headers.get('location'), whepUrl).toString();
    await pc.setRemoteDescription({ type: 'answer', sdp: await res.text() });
    return { status: res.status, location: t.location };
  };

  t.stats = async () => {
    const out = {
      framesDecoded: 0,
      audioPackets: 0,
      audioBytes: 0,
      candidateType: null,
      width: 0,
      height: 0,
      connection: t.pc?.connectionState,
    };
    if (!t.pc) return out;
    const stats = await t.pc.getStats();
    let pair;
    stats.forEach((s) => {
      if (s.type === 'inbound-rtp' && s.kind === 'video') {
        out.framesDecoded = s.framesDecoded ?? 0;
        out.width = s.frameWidth ?? 0;
        out.height = s.frameHeight ?? 0;
      }
      if (s.type === 'inbound-rtp' && s.kind === 'audio') {
        out.audioPackets = s.packetsReceived ?? 0;
        out.audioBytes = s.bytesReceived ?? 0;
      }
      if (s.type === 'transport' && s.selectedCandidatePairId) pair = stats.get(s.selectedCandidatePairId);
    });
    if (!pair)
      stats.forEach(
        (s) => s.type === 'candidate-pair' && s.state === 'succeeded' && s.nominated && (pair = s),
      );
    if (pair) out.candidateType = stats.get(pair.localCandidateId)?.candidateType ?? null;
    return out;
  };

  t.audioRms = () => {
    if (!t.analyser) return 0;
    const buf = new Float32Array(t.analyser.fftSize);
    t.analyser.getFloatTimeDomainData(buf);
    let s = 0;
    for (const v of buf) s += v * v;
    return Math.sqrt(s / buf.length);
  };

  /** Peak analyser RMS over a window, sampled every 20 ms. */
  t.peakRms = async (ms) => {
    let peak = 0;
    const end = performance.now() + ms;
    while (performance.now() < end) {
      peak = Math.max(peak, t.audioRms());
      await new Promise((r) => setTimeout(r, 20));
    }
    return peak;
  };

  /** Mean absolute pixel change in the mouth region between frames, over a window. */
  t.mouthMotion = async (ms) => {
    const v = t.video;
    const c = document.createElement('canvas');
    c.width = v.videoWidth || 512;
    c.height = v.videoHeight || 512;
    const ctx = c.getContext('2d', { willReadFrequently: true });
    const s = c.height / 512;
    const x = Math.round(c.width / 2 - 60 * s);
    const y = Math.round(c.height - (512 - 250) * s);
    const w = Math.round(120 * s);
    const h = Math.round(80 * s);
    let prev = null;
    let total = 0;
    let n = 0;
    const end = performance.now() + ms;
    while (performance.now() < end) {
      ctx.drawImage(v, 0, 0, c.width, c.height);
      const d = ctx.getImageData(x, y, w, h).data;
      if (prev) {
        let diff = 0;
        for (let i = 0; i < d.length; i += 4)
          diff += Math.abs(d[i] - prev[i]) + Math.abs(d[i + 1] - prev[i + 1]);
        total += diff / (d.length / 4);
        n++;
      }
      prev = d;
      await new Promise((r) => setTimeout(r, 40));
    }
    return n ? total / n : 0;
  };

  t.waitFor = async (pred, ms = 10000) => {
    const end = performance.now() + ms;
    while (performance.now() < end) {
      if (await pred()) return true;
      await new Promise((r) => setTimeout(r, 50));
    }
    return false;
  };

  t.close = async () => {
    if (t.location) await fetch(t.location, { method: 'DELETE' }).catch(() => {});
    t.pc?.close();
  };

  window.mpTest = t;
})();
