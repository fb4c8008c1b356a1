/**
 * A loopback stand-in for the streamed-audio WebSocket `GET /v1/avatar-session/{id}/audio`, built
 * from the protocol's `parseAudioStreamMessage` and `formatAudioStreamMessage`: Bearer checked on
 * the upgrade, `playbackStarted` at a turn's first audio, `playbackFinished` (playedMs from the
 * bytes) at its `end`, `interrupted` ones at `clear`. `pause()` stops reading the socket as the
 * real server does when it holds enough unplayed audio, so a client's backpressure shows.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  AUDIO_STREAM_ERROR,
  formatAudioStreamMessage,
  parseAudioStreamMessage,
  type AudioStreamServerMessage,
} from '@mouthpiece/protocol';
import { WebSocketServer, type WebSocket } from 'ws';

export interface AudioStandinTurn {
  turnId: string;
  sampleRate: number;
  bytes: number;
  /** Every binary frame's bytes in order, joined. */
  pcm: Buffer[];
  ended: boolean;
}

export interface AudioStandin {
  url: string;
  sessionId: string;
  token: string;
  turns: AudioStandinTurn[];
  clears: number;
  /** Stops reading every open socket (TCP backpressure) until resume(). */
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function audioStandin(sessionId = 'sess1', token = 'tok1'): Promise<AudioStandin> {
  const turns: AudioStandinTurn[] = [];
  const sockets = new Set<Socket>();
  const state = { clears: 0, paused: false };
  const http = createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ noServer: true });
  http.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    if (req.url !== `/v1/avatar-session/${sessionId}/audio`) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    if (req.headers.authorization !== `Bearer ${token}`) {
      const body = JSON.stringify({
        success: false,
        error: 'Invalid or expired token',
        code: 'INVALID_TOKEN',
      });
      socket.end(
        `HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => serve(ws, socket));
  });

  function serve(ws: WebSocket, socket: Socket): void {
    sockets.add(socket);
    if (state.paused) socket.pause();
    socket.on('close', () => sockets.delete(socket));
    const send = (m: AudioStreamServerMessage): void => ws.send(formatAudioStreamMessage(m));
    let open: AudioStandinTurn | undefined;
    ws.on('message', (data, isBinary) => {
      const buf = data as Buffer;
      if (isBinary) {
        if (!open) {
          send({
            type: 'error',
            code: AUDIO_STREAM_ERROR.NO_TURN,
            message: 'no turn is open on this socket',
          });
          return;
        }
        if (open.bytes === 0) send({ type: 'playbackStarted', turnId: open.turnId });
        open.bytes += buf.length;
        open.pcm.push(Buffer.from(buf));
        return;
      }
      const r = parseAudioStreamMessage(buf.toString('utf8'));
      if (!r.ok) {
        send({ type: 'error', code: r.code, message: r.message });
        return;
      }
      const m = r.message;
      switch (m.type) {
        case 'start':
          open = { turnId: m.turnId, sampleRate: m.sampleRate, bytes: 0, pcm: [], ended: false };
          turns.push(open);
          break;
        case 'end': {
          const t = open;
          if (!t || t.turnId !== m.turnId) {
            send({
              type: 'error',
              code: AUDIO_STREAM_ERROR.TURN_OPEN,
              message: 'end for a turn not open',
              turnId: m.turnId,
            });
            return;
          }
          t.ended = true;
          open = undefined;
          send({
            type: 'playbackFinished',
            turnId: t.turnId,
            interrupted: false,
            playedMs: (t.bytes / 2 / t.sampleRate) * 1000,
          });
          break;
        }
        case 'clear':
          state.clears++;
          if (open) send({ type: 'playbackFinished', turnId: open.turnId, interrupted: true, playedMs: 0 });
          open = undefined;
          break;
      }
    });
  }

  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    sessionId,
    token,
    turns,
    get clears() {
      return state.clears;
    },
    pause() {
      state.paused = true;
      for (const s of sockets) s.pause();
    },
    resume() {
      state.paused = false;
      for (const s of sockets) s.resume();
    },
    close: () =>
      new Promise((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close();
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
