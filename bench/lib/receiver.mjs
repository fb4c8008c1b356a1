// Benchmark viewers: one libwebrtc process (@roamhq/wrtc) holding a WHEP peer per session, so N
// decoders do not run inside the browser on the cores being measured (docs/benchmarks.md).
// Driven over IPC: {type:'connect', id, whepUrl, events?} → {type:'connected', id} or
// {type:'error'}, {type:'stats'} → {type:'stats', peers:[…]}, {type:'close'}. With `events`, the
// peer opens the `events` data channel as the SDK does, says `ready` once connected, and passes
// every server message on as {type:'event', id, message}. With `video: false` the offer has no video
// m-line (a page that draws the avatar itself, render: 'client'): the engine sends audio and, on the
// events channel, binary animation frames, which are counted (messages and bytes) in the stats.
// With `gaps`, each decoded video frame's arrival is timed: {type:'gap', id, reset?} →
// {type:'gap', id, maxGapMs, frames} (the largest time between two frames since the last reset).
import wrtc from '@roamhq/wrtc';

const peers = new Map();

/** Per peer: binary (animation) and text messages received on the events channel, and their bytes. */
const channelCounts = new Map();

/** Per peer with `gaps`: decoded frames' arrival, the largest gap between two, since the last reset. */
const frameGaps = new Map();

function timeFrames(id, pc) {
  const g = { last: 0, maxGapMs: 0, frames: 0 };
  frameGaps.set(id, g);
  pc.ontrack = ({ track }) => {
    if (track.kind !== 'video') return;
    const sink = new wrtc.nonstandard.RTCVideoSink(track);
    sink.onframe = () => {
      const now = performance.now();
      if (g.last) g.maxGapMs = Math.max(g.maxGapMs, now - g.last);
      g.last = now;
      g.frames++;
    };
    pc.addEventListener('connectionstatechange', () => pc.connectionState === 'closed' && sink.stop());
  };
}

function gapOf(id, reset) {
  const g = frameGaps.get(id) ?? { maxGapMs: 0, frames: 0 };
  const out = { maxGapMs: g.maxGapMs, frames: g.frames };
  if (reset) Object.assign(g, { maxGapMs: 0, frames: 0 });
  return out;
}

async function connect(id, whepUrl, events, video, gaps) {
  const pc = new wrtc.RTCPeerConnection({ iceServers: [] });
  if (gaps) timeFrames(id, pc);
  if (video) pc.addTransceiver('video', { direction: 'recvonly' });
  pc.addTransceiver('audio', { direction: 'recvonly' });
  const counts = { binaryMessages: 0, binaryBytes: 0, textMessages: 0, textBytes: 0 };
  channelCounts.set(id, counts);
  if (events) {
    const channel = pc.createDataChannel('events', { ordered: true });
    channel.binaryType = 'arraybuffer';
    channel.onopen = () => channel.send(JSON.stringify({ type: 'ready' }));
    channel.onmessage = ({ data }) => {
      if (typeof data !== 'string') {
        counts.binaryMessages++;
        counts.binaryBytes += data.byteLength ?? 0;
        return;
      }
      counts.textMessages++;
      counts.textBytes += data.length;
      try {
        process.send({ type: 'event', id, message: JSON.parse(String(data)) });
      } catch {
        // not JSON: ignored, as the SDK does
      }
    };
  }
  const connected = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('not connected within 15 s')), 15_000);
    pc.onconnectionstatechange = () => {
      if (pc.connectionState === 'connected') {
        clearTimeout(timer);
        resolve();
      } else if (pc.connectionState === 'failed') {
        clearTimeout(timer);
        reject(new Error('connection failed'));
      }
    };
  });
  await pc.setLocalDescription(await pc.createOffer());
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
  if (res.status !== 201) throw new Error(`WHEP POST answered ${res.status}: ${await res.text()}`);
  await pc.setRemoteDescription({ type: 'answer', sdp: await res.text() });
  await connected;
  peers.set(id, pc);
}

async function stats() {
  const out = [];
  for (const [id, pc] of peers) {
    const s = {
      id,
      framesReceived: 0,
      framesDecoded: 0,
      framesDropped: 0,
      audioPackets: 0,
      audioEnergy: 0,
      audioBytes: 0,
      audioLost: 0,
      videoBytes: 0,
      ...channelCounts.get(id),
    };
    (await pc.getStats()).forEach((r) => {
      if (r.type === 'transport') s.transportBytes = r.bytesReceived ?? 0;
      if (r.type !== 'inbound-rtp') return;
      if (r.kind === 'video' || r.mediaType === 'video') {
        s.framesReceived = r.framesReceived ?? 0;
        s.framesDecoded = r.framesDecoded ?? 0;
        s.framesDropped = r.framesDropped ?? 0;
        s.width = r.frameWidth ?? 0;
        s.videoBytes = (r.bytesReceived ?? 0) + (r.headerBytesReceived ?? 0);
      } else {
        s.audioPackets = r.packetsReceived ?? 0;
        s.audioEnergy = r.totalAudioEnergy ?? 0;
        s.audioBytes = (r.bytesReceived ?? 0) + (r.headerBytesReceived ?? 0);
        s.audioLost = r.packetsLost ?? 0;
        // the decoder's output: samples received (48 kHz), those of them concealment made up
        s.audioSamples = r.totalSamplesReceived ?? 0;
        s.audioConcealed = r.concealedSamples ?? 0;
      }
    });
    out.push(s);
  }
  return out;
}

process.on('message', (m) => {
  if (m.type === 'connect') {
    connect(m.id, m.whepUrl, m.events === true, m.video !== false, m.gaps === true).then(
      () => process.send({ type: 'connected', id: m.id }),
      (err) => process.send({ type: 'error', id: m.id, message: String(err?.message ?? err) }),
    );
  } else if (m.type === 'gap') {
    process.send({ type: 'gap', id: m.id, ...gapOf(m.id, m.reset === true) });
  } else if (m.type === 'stats') {
    stats().then((peers) => process.send({ type: 'stats', peers }));
  } else if (m.type === 'close') {
    for (const pc of peers.values()) pc.close();
    process.exit(0);
  }
});
process.send({ type: 'up', pid: process.pid });
