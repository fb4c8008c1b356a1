/** Debian Chromium through playwright-core, with the flags docs/design.md §7.2 lists. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
const PAGE_CLIENT = fileURLToPath(new URL('./page-client.js', import.meta.url));

export interface TestBrowser {
  context: BrowserContext;
  newPage(origin: string): Promise<Page>;
  /** A page as an integrator writes it: an `#avatar` container and the SDK from /sdk/mouthpiece.js. */
  sdkPage(origin: string): Promise<Page>;
  close(): Promise<void>;
}

/** `args`: more Chromium flags (a test host name's address, a test certificate to accept). */
export async function launchBrowser(o: { args?: string[] } = {}): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install chromium (.ci/run installs it)`);
  const dir = mkdtempSync(join(tmpdir(), 'mp-chromium-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-features=WebRtcHideLocalIpsWithMdns',
      '--autoplay-policy=no-user-gesture-required',
      ...(o.args ?? []),
    ],
  });
  return {
    context,
    async newPage(origin) {
      const page = await context.newPage();
      await page.goto(`${origin}/healthz`);
      await page.addScriptTag({ path: PAGE_CLIENT });
      return page;
    },
    async sdkPage(origin) {
      const page = await context.newPage();
      await page.goto(`${origin}/healthz`);
      await page.setContent(
        '<html><body><div id="avatar" style="width:256px;height:256px"></div></body></html>',
      );
      await page.addScriptTag({ url: `${origin}/sdk/mouthpiece.js` });
      return page;
    },
    async close() {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The local ICE candidate of a page-client page's selected pair (`window.mpTest.pc`): how it connected. */
export function selectedLocalCandidate(
  page: Page,
): Promise<{ candidateType?: string; relayProtocol?: string; url?: string }> {
  return page.evaluate(async () => {
    const pc = (window as unknown as { mpTest: { pc: RTCPeerConnection } }).mpTest.pc;
    const stats = await pc.getStats();
    let found: { candidateType?: string; relayProtocol?: string; url?: string } = {};
    stats.forEach((s: { type: string; selectedCandidatePairId?: string }) => {
      if (s.type !== 'transport' || !s.selectedCandidatePairId) return;
      const pair = stats.get(s.selectedCandidatePairId) as { localCandidateId: string };
      found = stats.get(pair.localCandidateId) as typeof found;
    });
    return { candidateType: found.candidateType, relayProtocol: found.relayProtocol, url: found.url };
  });
}
