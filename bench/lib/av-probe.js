// Browser side of the media benchmarks (loaded after e2e/harness/page-client.js): logs the received
// audio level every ~2 ms (a 256-sample analyser, 5.3 ms window) and, for every received video
// frame (or, with the SDK drawing, every display refresh of its canvas), how many dark
// (mouth-interior) pixels the mouth box holds, with the frame's display time.
(() => {
  const p = { audio: [], playout: [], frames: [], outputDelayMs: undefined };
  const trim = (a) => a.length > 30000 && a.splice(0, 15000);

  /** Darkness of the mouth box in `source` (a video or a canvas): pixels below luma 70. */
  const mouthReader = (source, box) => {
    const c = document.createElement('canvas');
    c.width = box.w;
    c.height = box.h;
    const g = c.getContext('2d', { willReadFrequently: true });
    return () => {
      g.drawImage(source, box.x, box.y, box.w, box.h, 0, 0, box.w, box.h);
      const d = g.getImageData(0, 0, box.w, box.h).data;
      let dark = 0;
      for (let i = 0; i < d.length; i += 4)
        if (d[i] * 0.299 + d[i + 1] * 0.587 + d[i + 2] * 0.114 < 70) dark++;
      return dark;
    };
  };

  /** The received audio's level at a WebAudio analyser, and the receiver's own playout log. */
  const listen = (stream, receiver) => {
    const ctx = new AudioContext();
    const analyser = ctx.createAnalyser();
    analyser.fftSize = 256;
    ctx.createMediaStreamSource(stream).connect(analyser);
    void ctx.resume();
    const buf = new Float32Array(analyser.fftSize);
    setInterval(() => {
      analyser.getFloatTimeDomainData(buf);
      let s = 0;
      for (const v of buf) s += v * v;
      p.audio.push([performance.now(), Math.sqrt(s / buf.length)]);
      trim(p.audio);
    }, 2);
    // the audio receiver's own playout log: when each packet was played, and its level
    let last = 0;
    setInterval(() => {
      for (const src of receiver.getSynchronizationSources()) {
        if (src.timestamp === last) continue;
        last = src.timestamp;
        p.playout.push([src.timestamp - performance.timeOrigin, src.audioLevel ?? 0]);
        trim(p.playout);
      }
    }, 2);
    // the output device's delay after playout (the analyser and the playout log are both before
    // it): Chromium's media-playout stats, mean delay per sample since the last reading
    let prev;
    setInterval(async () => {
      for (const s of (await receiver.getStats()).values()) {
        if (s.type !== 'media-playout' || !s.totalSamplesCount) continue;
        if (prev && s.totalSamplesCount > prev.totalSamplesCount)
          p.outputDelayMs =
            ((s.totalPlayoutDelay - prev.totalPlayoutDelay) /
              (s.totalSamplesCount - prev.totalSamplesCount)) *
            1000;
        prev = s;
      }
    }, 500);
  };

  /** The plain WHEP client's page (page-client.js): frames read from the video element. */
  p.start = (box, jitterBufferTargetMs) => {
    const t = window.mpTest;
    if (jitterBufferTargetMs !== undefined)
      for (const r of t.pc.getReceivers()) r.jitterBufferTarget = jitterBufferTargetMs;
    const receiver = t.pc.getReceivers().find((r) => r.track.kind === 'audio');
    listen(new MediaStream([receiver.track]), receiver);
    const video = t.video;
    const read = mouthReader(video, box);
    const onFrame = (now, meta) => {
      p.frames.push([meta.expectedDisplayTime ?? now, read()]);
      trim(p.frames);
      video.requestVideoFrameCallback(onFrame);
    };
    video.requestVideoFrameCallback(onFrame);
  };

  /**
   * The SDK in client rendering: the mouth read from the SDK's canvas once per display refresh,
   * the audio from the SDK's audio element's stream and the last peer connection's receiver.
   * The reading is taken after the refresh's requestAnimationFrame callbacks (the SDK draws in
   * one), so it is what that refresh presents: shown one refresh interval after the callbacks'
   * timestamp, which is the display time logged.
   */
  p.startCanvas = (canvas, audio, pc, box) => {
    const receiver = pc.getReceivers().find((r) => r.track.kind === 'audio');
    listen(audio.srcObject, receiver);
    const read = mouthReader(canvas, box);
    let prev;
    const intervals = [];
    const onFrame = (ts) => {
      if (prev !== undefined) {
        intervals.push(ts - prev);
        if (intervals.length > 120) intervals.shift();
      }
      prev = ts;
      const refreshMs = [...intervals].sort((a, b) => a - b)[intervals.length >> 1] ?? 16.7;
      p.refreshMs = refreshMs;
      setTimeout(() => {
        p.frames.push([ts + refreshMs, read()]);
        trim(p.frames);
      }, 0);
      requestAnimationFrame(onFrame);
    };
    requestAnimationFrame(onFrame);
  };

  /** The logs from page time `t0` on. */
  p.since = (t0) => ({
    audio: p.audio.filter(([t]) => t >= t0),
    playout: p.playout.filter(([t]) => t >= t0),
    frames: p.frames.filter(([t]) => t >= t0),
    outputDelayMs: p.outputDelayMs,
    events: (window.mpTest?.events ?? []).filter((e) => e.at >= t0),
  });

  /** POSTs a control call from the page, returning the page time it was sent. */
  p.post = async (url, token, init = {}) => {
    const t0 = performance.now();
    const r = await fetch(url, {
      method: 'POST',
      ...init,
      headers: { authorization: `Bearer ${token}`, ...(init.headers ?? {}) },
    });
    if (!r.ok) throw new Error(`${url}: ${r.status} ${await r.text()}`);
    return t0;
  };

  p.sayText = (base, token, text, turnId, isFinal = true) =>
    p.post(`${base}/say-text`, token, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text, turnId, isFinal }),
    });

  p.sayAudio = (base, token, b64, turnId, duration) => {
    const bytes = Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
    const form = new FormData();
    form.append('turnId', turnId);
    form.append('duration', String(duration));
    form.append('audio', new Blob([bytes], { type: 'audio/wav' }), 'speech.wav');
    return p.post(`${base}/say-audio`, token, { body: form });
  };

  window.mpProbe = p;
})();
