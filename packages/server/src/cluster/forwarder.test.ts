import type { ServerResponse } from 'node:http';
import net from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import multipart from '@fastify/multipart';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerErrorHandling } from '../errors.js';
import { clusterKey, FORWARD_HEADER, Forwarder } from './forwarder.js';

const KEY = clusterKey('a-jwt-secret-of-at-least-32-characters!!');

describe('forwarder (real sockets)', () => {
  let owner: FastifyInstance;
  let front: FastifyInstance;
  let frontUrl: string;
  const seen: Array<{ forwarded: boolean; xff: unknown }> = [];
  let forwarder: Forwarder;
  /** The owner's open event streams, and when each closed. */
  const streams: Array<{ res: ServerResponse; closed: Promise<void> }> = [];

  beforeAll(async () => {
    const ownerForwarder = new Forwarder(KEY, 'owner');
    owner = Fastify();
    await owner.register(multipart, { limits: { fileSize: 8 * 1024 * 1024 } });
    owner.addHook('onRequest', async (req) => {
      seen.push({ forwarded: ownerForwarder.isForwarded(req), xff: req.headers['x-forwarded-for'] });
    });
    owner.post('/gone', (_req, reply) =>
      reply.status(410).header('retry-after', '7').send({
        success: false,
        error: 'Session ended (node_failed)',
        code: 'SESSION_ENDED',
        reason: 'node_failed',
      }),
    );
    owner.post('/upload', async (req) => {
      const file = await req.file();
      let bytes = 0;
      let sum = 0;
      for await (const chunk of file!.file as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        for (const b of chunk) sum = (sum + b) % 65521;
      }
      return { bytes, sum, field: (file!.fields['turnId'] as { value?: string } | undefined)?.value };
    });
    // the header lines a request arrived with, as the holder's own single-value checks see them
    owner.post('/lines', async (req) => ({
      lines: req.raw.rawHeaders.filter((_v, i, all) =>
        /^(authorization|content-type)$/i.test(all[i - (i % 2)]!),
      ),
    }));
    owner.post('/sdp', { config: {} }, (_req, reply) =>
      reply.status(201).header('content-type', 'application/sdp').header('location', '/v/x').send('v=0\r\n'),
    );
    owner.get('/stream', (_req, reply) => {
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('id: 1\nevent: viewer\ndata: {"state":"connected"}\n\n');
      streams.push({ res, closed: new Promise((resolve) => res.once('close', resolve)) });
    });
    owner.addContentTypeParser('application/sdp', { parseAs: 'string' }, (_r, b, done) => done(null, b));
    const ownerUrl = await owner.listen({ port: 0, host: '127.0.0.1' });

    forwarder = new Forwarder(KEY, 'front');
    front = Fastify();
    registerErrorHandling(front);
    front.addHook('onRequest', async (req, reply) => {
      await forwarder.forward(req, reply, req.url === '/down' ? 'http://127.0.0.1:1' : ownerUrl);
      return reply;
    });
    for (const p of ['/gone', '/upload', '/sdp', '/down', '/lines'])
      front.post(p, () => ({ served: 'front' }));
    front.get('/stream', () => ({ served: 'front' }));
    frontUrl = await front.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await front?.close();
    await owner?.close();
  });

  it("passes the owner's status, headers and error body back unchanged", async () => {
    const r = await fetch(`${frontUrl}/gone`, { method: 'POST' });
    expect(r.status).toBe(410);
    expect(r.headers.get('retry-after')).toBe('7');
    expect(r.headers.get('x-mouthpiece-node-via')).toBe('front');
    expect(await r.json()).toEqual({
      success: false,
      error: 'Session ended (node_failed)',
      code: 'SESSION_ENDED',
      reason: 'node_failed',
    });
    expect(seen.at(-1)?.forwarded).toBe(true);
    expect(seen.at(-1)?.xff).toBe('127.0.0.1');
  });

  it('streams a multipart upload through, byte for byte', async () => {
    const audio = Buffer.alloc(3 * 1024 * 1024);
    for (let i = 0; i < audio.length; i++) audio[i] = (i * 7919) % 251;
    let sum = 0;
    for (const b of audio) sum = (sum + b) % 65521;
    const form = new FormData();
    form.append('turnId', 't1');
    form.append('audio', new Blob([audio], { type: 'audio/wav' }), 'a.wav');
    const r = await fetch(`${frontUrl}/upload`, { method: 'POST', body: form });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ bytes: audio.length, sum, field: 't1' });
  });

  it('passes an event stream through as it is written, and closes it at the owner when the reader goes', async () => {
    const r = await fetch(`${frontUrl}/stream`);
    expect(r.headers.get('content-type')).toBe('text/event-stream');
    const reader = r.body!.getReader();
    const text = async () => new TextDecoder().decode((await reader.read()).value);
    expect(await text()).toContain('id: 1\n'); // the owner's answer is still open: nothing buffered
    const { res, closed } = streams.at(-1)!;
    res.write('id: 2\nevent: viewer\ndata: {"state":"lost"}\n\n');
    expect(await text()).toContain('id: 2\n');
    await reader.cancel();
    await closed; // the owner's side of the stream is dropped too
    expect(res.destroyed).toBe(true);
  });

  it('endStreams cuts the event streams passing through (the node is closing)', async () => {
    const r = await fetch(`${frontUrl}/stream`);
    const reader = r.body!.getReader();
    await reader.read();
    forwarder.endStreams();
    // the reader's stream stops (as an end or an error, as the client library takes a cut socket)
    const stopped = await (async () => {
      for (;;) if ((await reader.read()).done) return 'ended';
    })().catch(() => 'cut');
    expect(['ended', 'cut']).toContain(stopped);
    await streams.at(-1)!.closed; // and the owner's side went with it
  });

  it('keeps content types and Location of a WHEP-like answer', async () => {
    const r = await fetch(`${frontUrl}/sdp`, {
      method: 'POST',
      headers: { 'content-type': 'application/sdp' },
      body: 'v=0\r\n',
    });
    expect(r.status).toBe(201);
    expect(r.headers.get('content-type')).toBe('application/sdp');
    expect(r.headers.get('location')).toBe('/v/x');
    expect(await r.text()).toBe('v=0\r\n');
  });

  it('passes a repeated Authorization or Content-Type on as sent, so the holder can refuse it', async () => {
    const port = Number(new URL(frontUrl).port);
    const out = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () =>
        socket.write(
          'POST /lines HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b\r\n' +
            'Content-Type: text/plain\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi',
        ),
      );
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString()));
      socket.on('error', reject);
      socket.on('close', () => resolve(text));
    });
    expect(out).toMatch(/^HTTP\/1\.1 200/);
    expect(JSON.parse(out.slice(out.indexOf('\r\n\r\n') + 4))).toEqual({
      lines: [
        'authorization',
        'Bearer a',
        'authorization',
        'Bearer b',
        'content-type',
        'text/plain',
        'content-type',
        'text/plain',
      ],
    });
  });

  it('an unreachable node is a retryable 503 with our error body', async () => {
    const r = await fetch(`${frontUrl}/down`, { method: 'POST', body: 'x' });
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('2');
    expect(await r.json()).toMatchObject({ success: false, code: 'ENGINE_UNAVAILABLE' });
  });

  it('a request without the cluster key, or with a wrong one, is not a forwarded one', () => {
    const f = new Forwarder(KEY, 'x');
    // as Node gives it: repeats joined in `headers`, one line each in `rawHeaders`
    const req = (...values: string[]) =>
      ({
        headers: values.length === 0 ? {} : { [FORWARD_HEADER]: values.join(', ') },
        rawHeaders: values.flatMap((v) => [FORWARD_HEADER, v]),
      }) as never;
    expect(f.isForwarded(req())).toBe(false);
    expect(f.isForwarded(req(KEY, KEY))).toBe(false);
    expect(f.isForwarded(req('nope'))).toBe(false);
    expect(f.isForwarded(req(clusterKey('another-secret-of-at-least-32-characters')))).toBe(false);
    expect(f.isForwarded(req(KEY))).toBe(true);
  });
});
