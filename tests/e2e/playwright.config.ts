// Playwright runs the end-to-end suite against the release build in dist/, served by Python's
// static server on 127.0.0.1. It drives Debian's Chromium (/usr/bin/chromium): Playwright's own
// browser download is never used. Run it through ./scripts/test, which builds dist/ first.
import { defineConfig, devices } from '@playwright/test';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '..', '..');
const port = Number(process.env.E2E_PORT ?? 4173);
const baseURL = `http://127.0.0.1:${port}`;

export default defineConfig({
  testDir: '.',
  outputDir: path.join(repoRoot, 'test-results'),
  forbidOnly: !!process.env.CI,
  retries: 0,
  workers: 1,
  timeout: 30_000,
  reporter: [['list']],
  use: {
    baseURL,
    trace: 'retain-on-failure',
  },
  projects: [
    {
      name: 'chromium',
      use: {
        ...devices['Desktop Chrome'],
        launchOptions: {
          executablePath: '/usr/bin/chromium',
          // The network here is closed: without the background-networking flags Chromium floods
          // it with refused connections.
          args: [
            '--headless',
            '--no-sandbox',
            '--disable-gpu',
            '--disable-quic',
            '--no-first-run',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
          ],
        },
      },
    },
  ],
  webServer: {
    command: `python3 -m http.server ${port} --bind 127.0.0.1 --directory dist`,
    cwd: repoRoot,
    url: baseURL,
    reuseExistingServer: false,
    // http.server logs every request to stderr; a server that fails to start still fails the run.
    stderr: 'ignore',
    timeout: 30_000,
  },
});
