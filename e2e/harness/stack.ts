/** One real server and one Chromium per test file, started before its tests and stopped after. */
import { afterAll, beforeAll } from 'vitest';
import { launchBrowser, type TestBrowser } from './browser.js';
import { requireE2eEnvironment, startServer, type TestServer } from './server.js';

export interface Stack {
  server: TestServer;
  browser: TestBrowser;
}

export function useStack(env: Record<string, string> = {}): Stack {
  const stack = {} as Stack;
  beforeAll(async () => {
    requireE2eEnvironment();
    stack.server = await startServer(env);
    stack.browser = await launchBrowser();
  });
  afterAll(async () => {
    await stack.browser?.close();
    await stack.server?.stop();
  });
  return stack;
}
