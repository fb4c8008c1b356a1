import { MessageChannel } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { RpcClient, serveRpc, type RpcHandlers, type RpcRequest, type RpcResponse } from './rpc.js';

type Methods = {
  add(a: number, b: number): number;
  slow(ms: number): Promise<string>;
  fail(code: string): void;
  bytes(n: number): Uint8Array;
};

class CodedError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const handlers: RpcHandlers<Methods> = {
  add: (a, b) => a + b,
  slow: (ms) => new Promise((r) => setTimeout(() => r(`after ${ms}`), ms)),
  fail: (code) => {
    throw new CodedError(code, `failed with ${code}`);
  },
  bytes: (n) => new Uint8Array(n).fill(7),
};

function pair(timeoutMs?: number) {
  const { port1, port2 } = new MessageChannel();
  port2.on('message', (req: RpcRequest<Methods>) => {
    void serveRpc(handlers, req, (res, transfer) => port2.postMessage(res, transfer), {
      transferOf: (r) => (r instanceof Uint8Array ? [r.buffer as ArrayBuffer] : []),
    });
  });
  const client = new RpcClient<Methods>({
    post: (req) => port1.postMessage(req),
    error: (code, message) => new CodedError(code, message),
    ...(timeoutMs === undefined ? {} : { defaultTimeoutMs: timeoutMs }),
  });
  port1.on('message', (res: RpcResponse) => client.receive(res));
  return { client, close: () => (port1.close(), port2.close()) };
}

let open: Array<() => void> = [];
afterEach(() => {
  for (const c of open) c();
  open = [];
});

describe('typed RPC over a message port', () => {
  it('answers calls by id, in any order, with their results', async () => {
    const p = pair();
    open.push(p.close);
    const [slow, sum, bytes] = await Promise.all([
      p.client.call('slow', [30]),
      p.client.call('add', [2, 3]),
      p.client.call('bytes', [4]),
    ]);
    expect(slow).toBe('after 30');
    expect(sum).toBe(5);
    expect([...bytes]).toEqual([7, 7, 7, 7]);
    expect(p.client.pending).toBe(0);
  });

  it("rejects with the callee's error code and message", async () => {
    const p = pair();
    open.push(p.close);
    await expect(p.client.call('fail', ['unknown_session'])).rejects.toMatchObject({
      code: 'unknown_session',
      message: 'failed with unknown_session',
    });
  });

  it('answers an unknown method with invalid_request instead of throwing in the callee', async () => {
    const p = pair();
    open.push(p.close);
    const untyped = p.client as unknown as { call(m: string, a: unknown[]): Promise<unknown> };
    await expect(untyped.call('nope', [])).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('times a request out as unavailable and ignores its late answer', async () => {
    const p = pair(20);
    open.push(p.close);
    await expect(p.client.call('slow', [200])).rejects.toMatchObject({ code: 'unavailable' });
    expect(p.client.pending).toBe(0);
  });

  it('close rejects what is pending and every later call', async () => {
    const p = pair();
    open.push(p.close);
    const inFlight = p.client.call('slow', [100]);
    p.client.close(new Error('gone'));
    await expect(inFlight).rejects.toThrow('gone');
    await expect(p.client.call('add', [1, 1])).rejects.toThrow('gone');
  });

  it('rejects at once when the port refuses the message', async () => {
    const client = new RpcClient<Methods>({
      post: () => false,
      error: (code, message) => new CodedError(code, message),
    });
    await expect(client.call('add', [1, 2])).rejects.toMatchObject({ code: 'unavailable' });
    expect(client.pending).toBe(0);
  });
});
