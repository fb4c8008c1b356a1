// A plain TypeScript page, as a web team writes it with the SDK from npm: it opens the session
// named in its address (#baseUrl=…&sessionId=…&viewerToken=…) view-only.
import { AvatarSession, type AvatarSessionEvents } from '@mouthpiece/client';

const p = new URLSearchParams(location.hash.slice(1));
const session = new AvatarSession({ baseUrl: p.get('baseUrl') ?? '', logLevel: 'warn' });
const log: string[] = [];
const ended = (e: AvatarSessionEvents['speakingEnd']): void => {
  log.push(`end:${e.turnId}`);
};
session.on('videoReady', ({ width }) => log.push(`videoReady:${width}`));
session.on('speakingStart', ({ turnId }) => log.push(`start:${turnId}`));
session.on('speakingEnd', ended);
session.on('error', ({ code, message }) => log.push(`error:${code}:${message}`));
Object.assign(window, { mp: { session, log } });
session
  .initSession(
    { sessionId: p.get('sessionId') ?? '', viewerToken: p.get('viewerToken') ?? '' },
    { videoContainerId: 'avatar' },
  )
  .then(
    () => log.push('ready'),
    (e: Error) => log.push(`failed:${e.message}`),
  );
