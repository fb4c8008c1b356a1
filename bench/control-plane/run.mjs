// Control-plane benchmark: keep-alive throughput and latency of our route vs a bare Fastify route
// in the same run (target ≥ 0.5 of bare), and the session create rate. The servers run in a child
// process; this process only generates load over keep-alive connections on loopback.
//   npm run bench:control-plane [-- --seconds 5 --concurrency 32] [--smoke]
import { fork } from 'node:child_process';
import http from 'node:http';
import { once } from 'node:events';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '32' },
    smoke: { type: 'boolean', default: false },
  },
});
const seconds = values.smoke ? 0.5 : Number(values.seconds);
const concurrency = Number(values.concurrency);

const target = fork(new URL('./target.mjs', import.meta.url), [], {
  stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
});
const [line] = await once(target.stdout, 'data');
const t = JSON.parse(String(line));

function load({ port, path, headers, body, seconds }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  const one = () =>
    new Promise((resolve) => {
      const start = performance.now();
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path,
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', ...headers },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode !== 200) errors++;
            latencies.push(performance.now() - start);
            resolve();
          });
        },
      );
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(body);
    });
  const worker = async () => {
    while (performance.now() < end) await one();
  };
  const started = performance.now();
  return Promise.all(Array.from({ length: concurrency }, worker)).then(() => {
    agent.destroy();
    const elapsed = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const q = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
    return { rps: latencies.length / elapsed, p50: q(0.5), p99: q(0.99), requests: latencies.length, errors };
  });
}

const warm = Math.min(1, seconds);
await load({ port: t.bare, path: '/keep-alive', body: '{}', seconds: warm / 2 });
await load({
  port: t.ours,
  path: `/v1/avatar-session/${t.sessionId}/keep-alive`,
  headers: { authorization: `Bearer ${t.token}` },
  body: '{}',
  seconds: warm / 2,
});
const bare = await load({ port: t.bare, path: '/keep-alive', body: '{}', seconds });
const ours = await load({
  port: t.ours,
  path: `/v1/avatar-session/${t.sessionId}/keep-alive`,
  headers: { authorization: `Bearer ${t.token}` },
  body: '{}',
  seconds,
});
const create = await load({
  port: t.ours,
  path: '/v1/avatar-session',
  headers: { authorization: `KS ${t.secret}` },
  body: JSON.stringify({ visualConfig: { avatarId: 'amara' } }),
  seconds: Math.min(seconds, 2),
});
target.kill('SIGTERM');

const ratio = ours.rps / bare.rps;
const fmt = (n, d = 0) => n.toFixed(d).padStart(10);
console.log(`control plane, ${seconds} s per measurement, concurrency ${concurrency}, loopback`);
console.log('route                      req/s     p50 ms     p99 ms   errors');
console.log(
  `bare Fastify POST    ${fmt(bare.rps)} ${fmt(bare.p50, 2)} ${fmt(bare.p99, 2)} ${fmt(bare.errors)}`,
);
console.log(
  `our keep-alive       ${fmt(ours.rps)} ${fmt(ours.p50, 2)} ${fmt(ours.p99, 2)} ${fmt(ours.errors)}`,
);
console.log(
  `session create       ${fmt(create.rps)} ${fmt(create.p50, 2)} ${fmt(create.p99, 2)} ${fmt(create.errors)}`,
);
console.log(`keep-alive ratio ours/bare: ${ratio.toFixed(2)} (target >= 0.5)`);
console.log(
  JSON.stringify({
    bench: 'control-plane',
    seconds,
    concurrency,
    keepAlive: {
      rps: Math.round(ours.rps),
      p50Ms: +ours.p50.toFixed(3),
      p99Ms: +ours.p99.toFixed(3),
      errors: ours.errors,
    },
    bare: { rps: Math.round(bare.rps), p50Ms: +bare.p50.toFixed(3), p99Ms: +bare.p99.toFixed(3) },
    ratio: +ratio.toFixed(3),
    createRps: Math.round(create.rps),
  }),
);
process.exit(0);
