/** The CLI run in-process for tests, its output captured, against a data folder with TURN off. */
import { runCli, type CliIo } from '../cli/run.js';

export async function runCliCaptured(
  argv: string[],
  dataDir: string,
  more: Partial<CliIo> = {},
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli({
    argv,
    env: { MOUTHPIECE_DATA_DIR: dataDir, MOUTHPIECE_TURN: 'off' },
    stdout: (s) => (out += s),
    stderr: (s) => (err += s),
    ...more,
  });
  return { code, out, err };
}
