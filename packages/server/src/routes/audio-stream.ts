/**
 * `GET /v1/avatar-session/{id}/audio`: streamed audio in, a WebSocket (docs/api.md; the messages
 * are packages/protocol/src/audio-stream.ts). The session scope's onRequest hook authorizes the
 * upgrade, so a bad token, an unknown or ended session and the rate limits answer JSON errors
 * before any upgrade. Each socket is an AudioSocket (audio-socket.ts). The session ending closes
 * its sockets with a `session_ended` error. In cluster mode the socket must reach the node that
 * holds the session: upgrades are not forwarded (another node answers 503 saying so:
 * session-scope.ts).
 */
import websocket from '@fastify/websocket';
import { AUDIO_STREAM_MAX_FRAME_BYTES } from '@mouthpiece/protocol';
import type { FastifyPluginAsync } from 'fastify';
import { Counter } from 'prom-client';
import type { AppContext } from '../app-types.js';
import { AudioSocket } from './audio-socket.js';
import { sessionCallPath } from './session-paths.js';

export const audioStreamRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  await app.register(websocket, { options: { maxPayload: AUDIO_STREAM_MAX_FRAME_BYTES } });
  const open = new Map<string, Set<AudioSocket>>();
  const underruns = new Counter({
    name: 'mouthpiece_audio_stream_underruns_total',
    help: 'Times a streamed audio turn ran dry and played silence waiting for its audio',
    registers: [ctx.metrics.registry],
  });
  const turns = new Counter({
    name: 'mouthpiece_audio_stream_turns_total',
    help: 'Streamed audio turns over (played out or interrupted)',
    registers: [ctx.metrics.registry],
  });
  const unsubscribe = ctx.engine.onEvent((e) => {
    if (e.type !== 'audioTurnEnded') return;
    turns.inc();
    underruns.inc(e.underruns);
  });
  const unfollow = ctx.registry.onEnded((sessionId) => {
    for (const s of open.get(sessionId) ?? []) s.sessionEnded();
  });
  app.addHook('onClose', async () => {
    unsubscribe();
    unfollow();
  });

  app.get(
    sessionCallPath('audio'),
    {
      websocket: true,
      schema: { hide: true },
    },
    (socket, req) => {
      const sessionId = req.avatarSession.id;
      const handler = new AudioSocket({
        sessionId,
        engine: ctx.engine,
        socket,
        clock: ctx.clock,
        touch: () => ctx.registry.touch(sessionId),
        log: req.log,
      });
      let set = open.get(sessionId);
      if (!set) open.set(sessionId, (set = new Set()));
      set.add(handler);
      socket.on('message', (data, isBinary) => handler.receive(toBuffer(data), isBinary));
      socket.on('close', () => {
        handler.closed();
        set.delete(handler);
        if (set.size === 0) open.delete(sessionId);
      });
      socket.on('error', () => undefined); // a broken socket closes; 'close' cleans up
    },
  );
};

function toBuffer(data: Buffer | ArrayBuffer | Buffer[]): Buffer {
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.isBuffer(data) ? data : Buffer.from(data);
}
