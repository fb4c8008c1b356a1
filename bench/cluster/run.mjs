// Cluster benchmark (docs/cluster.md): a real redis-server and two `mouthpiece serve` nodes on
// loopback. Measures the cost of forwarding: session creates and keep-alives sent to the node
// holding the session vs sent to the other node (forwarded over HTTP), as a ratio (target >= 0.5),
// and placement at saturation: creates sent to one node fill both nodes up to their
// MOUTHPIECE_MAX_SESSIONS, then answer 503 (sessions per node stay bounded).
//   npm run bench:cluster [-- --seconds 5 --concurrency 16 --max-sessions 6] [--smoke]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '16' },
    'max-sessions': { type: 'string', default: '6' },
    smoke: { type: 'boolean', default: false },
  },
});
const seconds = values.smoke ? 0.5 : Number(values.seconds);
const concurrency = values.smoke ? 4 : Number(values.concurrency);
const maxSessions = values.smoke ? 2 : Number(values['max-sessions']);
const CLI = fileURLToPath(new URL('../../packages/server/dist/cli.js', import.meta.url));
const REDIS = '/usr/bin/redis-server';
const dirs = [];
const procs = [];
const tmp = (p) => {
  const d = mkdtempSync(join(tmpdir(), p));
  dirs.push(d);
  return d;
};
const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** CPU time (user + system) a process has used, in ms (clock ticks of 10 ms). */
const cpuMs = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};

async function cleanup() {
  for (const p of procs.reverse()) {
    if (p.exitCode !== null) continue;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGTERM');
    await Promise.race([exited, sleep(8000)]);
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

async function waitFor(check, what) {
  for (let i = 0; i < 400; i++) {
    if (await check().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error(`${what} did not come up`);
}

const redisPort = await freePort();
const redisDir = tmp('mp-bench-redis-');
procs.push(
  spawn(
    REDIS,
    [
      '--port',
      String(redisPort),
      '--bind',
      '127.0.0.1',
      '--dir',
      redisDir,
      '--appendonly',
      'yes',
      '--save',
      '',
    ],
    {
      stdio: 'ignore',
    },
  ),
);
const env = {
  ...process.env,
  MOUTHPIECE_REDIS_URL: `redis://127.0.0.1:${redisPort}`,
  MOUTHPIECE_ENGINE_PROCESSES: '1',
  MOUTHPIECE_TURN: 'off',
  MOUTHPIECE_LOG_LEVEL: 'warn',
  MOUTHPIECE_MAX_SESSIONS: String(maxSessions),
};

async function startNode(id) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const p = spawn(process.execPath, [CLI, 'serve'], {
    env: {
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      MOUTHPIECE_PUBLIC_URL: url,
      MOUTHPIECE_NODE_ID: id,
      MOUTHPIECE_DATA_DIR: tmp('mp-bench-node-'),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  procs.push(p);
  await waitFor(async () => (await fetch(`${url}/readyz`)).ok, `node ${id}`);
  return { id, port, url, pid: p.pid };
}

/** POSTs as fast as `concurrency` keep-alive connections allow for `secs`; counts 200s. */
function load({ port, path, headers, body, secs, onOk, concurrency: workers = concurrency }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: workers });
  let ok = 0;
  let errors = 0;
  const end = performance.now() + secs * 1000;
  const one = () =>
    new Promise((resolve) => {
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
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            if (res.statusCode === 200) {
              ok++;
              Promise.resolve(onOk?.(Buffer.concat(chunks).toString(), res.headers)).then(resolve, resolve);
            } else {
              errors++;
              resolve();
            }
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
  return Promise.all(Array.from({ length: workers }, worker)).then(() => {
    agent.destroy();
    return { rps: ok / ((performance.now() - started) / 1000), ok, errors };
  });
}

const post = (node, path, headers, json) =>
  fetch(`${node.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(json),
  });

try {
  await waitFor(async () => {
    const s = createServer();
    s.close();
    return (await fetch(`http://127.0.0.1:${redisPort}`).catch((e) => e)) instanceof Error;
  }, 'redis');
  const a = await startNode('bench-a');
  const b = await startNode('bench-b');
  const made = spawnSync(
    process.execPath,
    [CLI, 'credentials', 'create', '--name', 'bench', '--rps', '0', '--max-sessions', '100000', '--json'],
    {
      env: { ...env, MOUTHPIECE_DATA_DIR: tmp('mp-bench-cli-') },
      encoding: 'utf8',
    },
  );
  if (made.status !== 0) throw new Error(`credential: ${made.stderr}`);
  const { secret } = JSON.parse(made.stdout);
  const ks = { authorization: `KS ${secret}` };
  const createBody = JSON.stringify({ visualConfig: { avatarId: 'amara' } });

  // keep-alive of a session b holds: sent to b (owner) vs to a (forwarded)
  const s = await (await post(b, '/v1/avatar-session', ks, { visualConfig: { avatarId: 'amara' } })).json();
  const ka = {
    path: `/v1/avatar-session/${s.sessionId}/keep-alive`,
    headers: { authorization: `Bearer ${s.token}` },
    body: '{}',
  };
  await load({ port: b.port, ...ka, secs: Math.min(1, seconds) });
  await load({ port: a.port, ...ka, secs: Math.min(1, seconds) });
  // interleaved rounds, so a busy machine weighs on both sides alike
  const rounds = values.smoke ? 1 : 5;
  const kaOwner = { rps: 0, errors: 0, requests: 0, cpuB: 0 };
  const kaForwarded = { rps: 0, errors: 0, requests: 0, cpuA: 0, cpuB: 0 };
  for (let i = 0; i < rounds; i++) {
    for (const [port, sum] of [
      [b.port, kaOwner],
      [a.port, kaForwarded],
    ]) {
      const before = [cpuMs(a.pid), cpuMs(b.pid)];
      const r = await load({ port, ...ka, secs: seconds / rounds });
      sum.rps += r.rps / rounds;
      sum.errors += r.errors;
      sum.requests += r.ok;
      if ('cpuA' in sum) sum.cpuA += cpuMs(a.pid) - before[0];
      sum.cpuB += cpuMs(b.pid) - before[1];
    }
  }
  // CPU per call (user + system, from /proc): what a call costs each node whatever else runs
  const usPerCall = (ms, n) => (n ? (ms * 1000) / n : NaN);
  const cpu = {
    holderDirectUs: usPerCall(kaOwner.cpuB, kaOwner.requests),
    forwarderUs: usPerCall(kaForwarded.cpuA, kaForwarded.requests),
    holderForwardedUs: usPerCall(kaForwarded.cpuB, kaForwarded.requests),
  };

  // creates: each created session is ended at once so the nodes never fill. To b directly, then
  // to a while a is full (its one spare slot held), so a places every create on b (forwarded).
  const endOf = (node) => (text) => {
    const x = JSON.parse(text);
    return post(
      node,
      `/v1/avatar-session/${x.sessionId}/end`,
      { authorization: `Bearer ${x.token}` },
      {},
    ).then((r) => r.arrayBuffer());
  };
  // each create waits for its end: at most `createConcurrency` sessions live, under every node's cap
  const createConcurrency = Math.max(1, Math.floor(maxSessions / 2));
  const createSecs = Math.min(seconds, 3);
  const crOwner = await load({
    port: b.port,
    path: '/v1/avatar-session',
    headers: ks,
    body: createBody,
    secs: createSecs,
    concurrency: createConcurrency,
    onOk: endOf(b),
  });
  const fillers = [];
  for (let i = 0; i < maxSessions; i++)
    fillers.push(
      await (await post(a, '/v1/avatar-session', ks, { visualConfig: { avatarId: 'amara' } })).json(),
    );
  let placedOnB = 0;
  const crForwarded = await load({
    port: a.port,
    path: '/v1/avatar-session',
    headers: ks,
    body: createBody,
    secs: createSecs,
    concurrency: createConcurrency,
    onOk: (text, headers) => {
      if (headers['x-mouthpiece-node'] === 'bench-b') placedOnB++;
      return endOf(b)(text);
    },
  });
  for (const f of fillers)
    await post(a, `/v1/avatar-session/${f.sessionId}/end`, { authorization: `Bearer ${f.token}` }, {});
  await post(b, `/v1/avatar-session/${s.sessionId}/end`, { authorization: `Bearer ${s.token}` }, {});
  await sleep(1500); // ends and heartbeats settle

  // saturation: 2 × max + 2 creates, all sent to a
  const placed = { 'bench-a': 0, 'bench-b': 0, busy: 0, other: 0 };
  const held = [];
  for (let i = 0; i < 2 * maxSessions + 2; i++) {
    const r = await post(a, '/v1/avatar-session', ks, { visualConfig: { avatarId: 'amara' } });
    if (r.status === 503) placed.busy++;
    else if (r.ok) {
      placed[r.headers.get('x-mouthpiece-node')] = (placed[r.headers.get('x-mouthpiece-node')] ?? 0) + 1;
      held.push(await r.json());
    } else placed.other++;
  }
  for (const h of held)
    await post(a, `/v1/avatar-session/${h.sessionId}/end`, { authorization: `Bearer ${h.token}` }, {});

  // how long until every node answers 410: after a revoke (CLI) and after a node is killed
  const until410 = async (node, x) => {
    const start = performance.now();
    for (;;) {
      const r = await post(
        node,
        `/v1/avatar-session/${x.sessionId}/keep-alive`,
        { authorization: `Bearer ${x.token}` },
        {},
      );
      const body = await r.json();
      if (r.status === 410) return { ms: performance.now() - start, reason: body.reason };
      if (performance.now() - start > 30_000) return { ms: NaN, reason: `still ${r.status}` };
      await sleep(20);
    }
  };
  const cli = (args) =>
    spawnSync(process.execPath, [CLI, 'credentials', ...args], {
      env: { ...env, MOUTHPIECE_DATA_DIR: tmp('mp-bench-cli-') },
      encoding: 'utf8',
    });
  const cred2 = JSON.parse(cli(['create', '--name', 'revoke-me', '--rps', '0', '--json']).stdout);
  const victim = await (
    await post(
      a,
      '/v1/avatar-session',
      { authorization: `KS ${cred2.secret}` },
      { visualConfig: { avatarId: 'amara' } },
    )
  ).json();
  cli(['revoke', cred2.id]);
  const revocation = await until410(b, victim);
  const c = await startNode('bench-c');
  const onC = await (await post(c, '/v1/avatar-session', ks, { visualConfig: { avatarId: 'amara' } })).json();
  const cProc = procs.at(-1);
  const killed = new Promise((r) => cProc.once('exit', r));
  cProc.kill('SIGKILL');
  await killed;
  const failover = await until410(b, onC);

  const kaRatio = kaForwarded.rps / kaOwner.rps;
  const crRatio = crForwarded.rps / crOwner.rps;
  const fmt = (n, d = 0) => n.toFixed(d).padStart(10);
  console.log(
    `cluster: 2 nodes + redis on loopback, ${seconds} s per measurement, concurrency ${concurrency}`,
  );
  console.log('measurement                 to owner   forwarded   ratio');
  console.log(`keep-alive req/s         ${fmt(kaOwner.rps)} ${fmt(kaForwarded.rps)} ${fmt(kaRatio, 2)}`);
  console.log(
    `session create /s        ${fmt(crOwner.rps, 1)} ${fmt(crForwarded.rps, 1)} ${fmt(crRatio, 2)}`,
  );
  console.log(
    `CPU per keep-alive: holder ${cpu.holderDirectUs.toFixed(0)} us direct, ${cpu.holderForwardedUs.toFixed(0)} us forwarded; forwarding node ${cpu.forwarderUs.toFixed(0)} us`,
  );
  console.log(
    `  on separate machines a forwarding node serves min(1, holder/forwarder) = ${Math.min(1, cpu.holderDirectUs / cpu.forwarderUs).toFixed(2)} of the holder's rate`,
  );
  console.log(`forwarded creates placed on the node with room: ${placedOnB}/${crForwarded.ok}`);
  console.log(
    `saturation (max ${maxSessions} per node, ${2 * maxSessions + 2} creates to one node): a=${placed['bench-a']} b=${placed['bench-b']} 503=${placed.busy}`,
  );
  console.log(`revoke (CLI) -> 410 on another node: ${revocation.ms.toFixed(0)} ms (${revocation.reason})`);
  console.log(`node SIGKILL -> 410 on another node: ${failover.ms.toFixed(0)} ms (${failover.reason})`);
  console.log(
    `forwarding ratio keep-alive ${kaRatio.toFixed(2)}, create ${crRatio.toFixed(2)} (target >= 0.5)`,
  );
  console.log(
    JSON.stringify({
      bench: 'cluster',
      seconds,
      concurrency,
      cpuPerKeepAliveUs: {
        holderDirect: Math.round(cpu.holderDirectUs),
        holderForwarded: Math.round(cpu.holderForwardedUs),
        forwarder: Math.round(cpu.forwarderUs),
        separateMachinesRatio: +Math.min(1, cpu.holderDirectUs / cpu.forwarderUs).toFixed(3),
      },
      keepAlive: {
        ownerRps: Math.round(kaOwner.rps),
        forwardedRps: Math.round(kaForwarded.rps),
        ratio: +kaRatio.toFixed(3),
        errors: kaOwner.errors + kaForwarded.errors,
      },
      create: {
        ownerPerSec: +crOwner.rps.toFixed(1),
        forwardedPerSec: +crForwarded.rps.toFixed(1),
        ratio: +crRatio.toFixed(3),
        placedOnRoom: placedOnB,
        errors: crOwner.errors + crForwarded.errors,
      },
      revokeTo410Ms: Math.round(revocation.ms),
      revokeReason: revocation.reason,
      killTo410Ms: Math.round(failover.ms),
      killReason: failover.reason,
      saturation: {
        maxPerNode: maxSessions,
        sent: 2 * maxSessions + 2,
        nodeA: placed['bench-a'],
        nodeB: placed['bench-b'],
        busy503: placed.busy,
        other: placed.other,
      },
    }),
  );
} finally {
  await cleanup();
}
