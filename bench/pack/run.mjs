// Pack route benchmark (issue 22): per avatar kind, the first list (its files hashed), a warm list,
// a 304, and the whole pack fetched (list + files); then the video pack's frames file streamed
// over loopback: throughput and the server's RSS while it streams (it must not hold the file).
// The server runs in a child process (target.mjs); this process only makes requests.
//   npm run bench:pack [-- --size 512 --frames 64] [--smoke]
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '512' },
    frames: { type: 'string', default: '64' },
    smoke: { type: 'boolean', default: false },
  },
});
const videoSize = values.smoke ? 256 : Number(values.size);
const videoFrames = values.smoke ? 8 : Number(values.frames);
const reps = values.smoke ? 3 : 20;

const target = fork(new URL('./target.mjs', import.meta.url), [JSON.stringify({ videoSize, videoFrames })], {
  stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
});
const [line] = await once(target.stdout, 'data');
const { port, sessions } = JSON.parse(String(line));
const origin = `http://127.0.0.1:${port}`;
const rss = async () => {
  target.send('rss');
  const [m] = await once(target, 'message');
  return m.rss;
};

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function timed(url, headers) {
  const start = performance.now();
  const res = await fetch(url, { headers });
  const body = new Uint8Array(await res.arrayBuffer());
  return { ms: performance.now() - start, res, body };
}

const rows = [];
for (const [kind, s] of Object.entries(sessions)) {
  const headers = { authorization: `Bearer ${s.token}` };
  const list = `${origin}/v1/avatar-session/${s.sessionId}/avatar`;
  const cold = await timed(list, headers);
  const { files } = JSON.parse(new TextDecoder().decode(cold.body)).avatar;
  const etag = cold.res.headers.get('etag');
  const warm = [];
  const notModified = [];
  for (let i = 0; i < reps; i++) {
    warm.push((await timed(list, headers)).ms);
    notModified.push((await timed(list, { ...headers, 'if-none-match': etag })).ms);
  }
  const start = performance.now();
  const listBytes = (await timed(list, headers)).body.length;
  // one file after another, as a renderer that loads them in order would
  let bytes = listBytes;
  for (const f of files) bytes += (await timed(`${origin}${f.url}`, headers)).body.length;
  rows.push({
    kind,
    files: files.length,
    bytes,
    firstListMs: +cold.ms.toFixed(1),
    warmListMs: +median(warm).toFixed(2),
    notModifiedMs: +median(notModified).toFixed(2),
    wholePackMs: +(performance.now() - start).toFixed(1),
  });
}

// the video frames, streamed: throughput, and the server's RSS sampled while it sends
const v = sessions.video;
const framesUrl = `${origin}/v1/avatar-session/${v.sessionId}/avatar/base.i420`;
const headers = { authorization: `Bearer ${v.token}` };
const rssBefore = await rss();
let rssPeak = rssBefore;
const speeds = [];
for (let i = 0; i < (values.smoke ? 1 : 5); i++) {
  const start = performance.now();
  const res = await fetch(framesUrl, { headers });
  const reader = res.body.getReader();
  let n = 0;
  let chunks = 0;
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    n += r.value.byteLength;
    if (++chunks % 64 === 0) rssPeak = Math.max(rssPeak, await rss());
  }
  speeds.push(n / 1e6 / ((performance.now() - start) / 1000));
  if (n !== Number(res.headers.get('content-length'))) throw new Error('short body');
}
const framesBytes = rows.find((r) => r.kind === 'video').bytes;

console.log('kind     files  bytes        first list ms  warm list ms  304 ms  whole pack ms');
for (const r of rows)
  console.log(
    `${r.kind.padEnd(8)} ${String(r.files).padStart(5)}  ${String(r.bytes).padStart(11)}  ${String(r.firstListMs).padStart(13)}  ${String(r.warmListMs).padStart(12)}  ${String(r.notModifiedMs).padStart(6)}  ${String(r.wholePackMs).padStart(13)}`,
  );
const stream = {
  mbPerSecond: +median(speeds).toFixed(0),
  serverRssBeforeMb: +(rssBefore / 1e6).toFixed(1),
  serverRssPeakMb: +(rssPeak / 1e6).toFixed(1),
  videoPackMb: +(framesBytes / 1e6).toFixed(1),
};
console.log(
  `video frames streamed: ${stream.mbPerSecond} MB/s over loopback; server RSS ${stream.serverRssBeforeMb} → peak ${stream.serverRssPeakMb} MB while sending a ${stream.videoPackMb} MB pack`,
);
console.log(JSON.stringify({ bench: 'pack', videoSize, videoFrames, rows, stream }));
target.send('stop');
await once(target, 'exit');
