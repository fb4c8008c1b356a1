/** Third-party WHEP players, bundled for the browser with esbuild at test time. */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export async function playersBundle(): Promise<string> {
  const result = await build({
    stdin: {
      contents: `
        import { WHEPClient } from 'whip-whep/whep.js';
        import { WebRTCPlayer } from '@eyevinn/webrtc-player';
        window.WHEPClient = WHEPClient;
        window.WebRTCPlayer = WebRTCPlayer;`,
      resolveDir: root,
      loader: 'js',
    },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'chrome110',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}
