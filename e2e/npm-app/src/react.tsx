// A React page in StrictMode with @mouthpiece/react from npm: <Avatar> opens the session named in
// the address view-only; window.unmount() takes it off the page.
import { StrictMode, useState, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { Avatar, type AvatarProps } from '@mouthpiece/react';

const p = new URLSearchParams(location.hash.slice(1));
const log: string[] = [];
Object.assign(window, { mp: { log } });

function App(): ReactNode {
  const [shown, setShown] = useState(true);
  Object.assign(window, { unmount: () => setShown(false) });
  const on: AvatarProps['on'] = {
    videoReady: ({ width }) => log.push(`videoReady:${width}`),
    speakingStart: ({ turnId }) => log.push(`start:${turnId}`),
    speakingEnd: ({ turnId, interrupted }) => log.push(`end:${turnId}:${interrupted}`),
    error: ({ code, message }) => log.push(`error:${code}:${message}`),
  };
  if (!shown) return <p id="gone">gone</p>;
  return (
    <Avatar
      baseUrl={p.get('baseUrl') ?? ''}
      sessionId={p.get('sessionId') ?? ''}
      viewerToken={p.get('viewerToken') ?? ''}
      config={{ logLevel: 'warn' }}
      style={{ width: 256, height: 256 }}
      on={on}
    />
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
