/**
 * Certificates renewed on disk are taken up without a restart (docs/deploy.md, "Certificates"):
 * the HTTPS server (MOUTHPIECE_TLS_CERT/_KEY) swaps its secure context, managed coturn is sent
 * SIGUSR2 (which makes it read its certificate again). The files are polled by stat, so a renewal
 * that swaps a symlink (certbot's live/ folder) counts as a change like a file rewritten in place.
 */
import { readFileSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import type { Server as HttpsServer } from 'node:https';

/** How often renewed certificate files are looked for. */
export const CERT_POLL_MS = 60_000;

/**
 * Calls `onChange` when any of `files` changes (its size, mtime or inode), at most once a poll;
 * returns the stop. A file that disappears is not a change (a renewal writes it again).
 */
export function watchFiles(files: readonly string[], intervalMs: number, onChange: () => void): () => void {
  let pending: NodeJS.Timeout | undefined;
  const listener = (now: Stats, before: Stats): void => {
    if (now.nlink === 0 && now.mtimeMs === 0) return; // gone for now
    if (now.mtimeMs === before.mtimeMs && now.size === before.size && now.ino === before.ino) return;
    // a renewal writes the certificate and the key one after the other: one call for both
    clearTimeout(pending);
    pending = setTimeout(onChange, Math.min(1000, intervalMs));
    pending.unref();
  };
  for (const f of files) watchFile(f, { interval: intervalMs, persistent: false }, listener);
  return () => {
    clearTimeout(pending);
    for (const f of files) unwatchFile(f, listener);
  };
}

interface Logger {
  info(o: object, m: string): void;
  warn(o: object, m: string): void;
}

/**
 * Serves renewed `cert`/`key` files on `server` from the next TLS handshake on (connections already
 * open keep theirs). A pair that does not load (a key that does not match, a half-written file)
 * leaves the served one in place and says so; the next change tries again.
 */
export function reloadTlsOnChange(
  server: HttpsServer,
  files: { cert: string; key: string },
  log: Logger,
  intervalMs = CERT_POLL_MS,
): () => void {
  return watchFiles([files.cert, files.key], intervalMs, () => {
    try {
      server.setSecureContext({ cert: readFileSync(files.cert), key: readFileSync(files.key) });
      log.info({ cert: files.cert }, 'TLS certificate reloaded');
    } catch (err) {
      log.warn(
        { cert: files.cert, key: files.key, err: (err as Error).message },
        'renewed TLS certificate not loaded; the previous one is still served',
      );
    }
  });
}
