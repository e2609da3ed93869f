// The page object for RolloutScope's single page: every locator the specs use, by data-testid or
// role, so the specs read as behaviour and survive markup changes.
import { expect, type ConsoleMessage, type Locator, type Page } from '@playwright/test';
import path from 'node:path';

/** Where screenshots go: target/screenshots/ under the repository root. */
export const SCREENSHOT_DIR = path.resolve(__dirname, '..', '..', 'target', 'screenshots');

export class AppPage {
  readonly heading: Locator;
  readonly scenarioPicker: Locator;
  readonly trace: Locator;
  readonly traceError: Locator;
  /** Console errors and uncaught page errors seen since the page object was made. */
  readonly consoleErrors: string[] = [];

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { level: 1 });
    this.scenarioPicker = page.getByTestId('scenario-picker');
    this.trace = page.getByTestId('trace');
    this.traceError = page.getByRole('alert');
    page.on('console', (msg: ConsoleMessage) => {
      if (msg.type() === 'error') this.consoleErrors.push(msg.text());
    });
    page.on('pageerror', (err: Error) => this.consoleErrors.push(err.message));
  }

  /** Opens the app and waits until the wasm has mounted it. */
  async goto(): Promise<void> {
    await this.page.goto('/');
    await expect(this.heading).toHaveText('RolloutScope');
  }

  /** The file names the scenario picker offers; empty while no scenario is bundled. */
  async scenarioNames(): Promise<string[]> {
    if (await this.scenarioPicker.isDisabled()) return [];
    return this.scenarioPicker.locator('option').allTextContents();
  }

  /** Chooses a bundled scenario by its file name. */
  async chooseScenario(name: string): Promise<void> {
    await this.scenarioPicker.selectOption({ label: name });
  }

  /** Saves a full-page screenshot as target/screenshots/<name>.png. */
  async screenshot(name: string): Promise<string> {
    const file = path.join(SCREENSHOT_DIR, `${name}.png`);
    await this.page.screenshot({ path: file, fullPage: true });
    return file;
  }
}
