// The page object for RolloutScope: every locator the specs use, by data-testid or role, so the
// specs read as behaviour and survive markup changes.
import AxeBuilder from '@axe-core/playwright';
import { expect, type ConsoleMessage, type Locator, type Page } from '@playwright/test';
import path from 'node:path';

/** Where screenshots go: target/screenshots/ under the repository root. */
export const SCREENSHOT_DIR = path.resolve(__dirname, '..', '..', 'target', 'screenshots');

/**
 * The serious and critical accessibility violations axe finds on the page, one line each. It
 * judges what a person sees once the page has settled: a pod chip fades in over 250 ms, and
 * mid-fade its text is paler than it will be.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'));
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

/** One ReplicaSet lane's numbers, as the lane states them. */
export interface LaneCounts {
  desired: number;
  current: number;
  ready: number;
  available: number;
}

export class AppPage {
  readonly heading: Locator;
  readonly scenarioPicker: Locator;
  readonly stepCount: Locator;
  readonly simTime: Locator;
  readonly forwardButton: Locator;
  readonly backButton: Locator;
  readonly nextStageButton: Locator;
  readonly resetButton: Locator;
  readonly playButton: Locator;
  readonly scrubber: Locator;
  readonly narration: Locator;
  readonly manifest: Locator;
  readonly fieldErrors: Locator;
  readonly applyButton: Locator;
  readonly applyPreview: Locator;
  readonly conditions: Locator;
  readonly kubectlGet: Locator;
  readonly rolloutStatus: Locator;
  readonly kubectlDescribe: Locator;
  readonly kubectlHistory: Locator;
  readonly kubectlDescribeReplicaSet: Locator;
  readonly eventLog: Locator;
  readonly diagnosis: Locator;
  /** Console errors and uncaught page errors seen since the page object was made. */
  readonly consoleErrors: string[] = [];

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { level: 1 });
    this.scenarioPicker = page.getByTestId('scenario-picker');
    this.stepCount = page.getByTestId('step-count');
    this.simTime = page.getByTestId('sim-time');
    this.forwardButton = page.getByTestId('step-forward');
    this.backButton = page.getByTestId('step-back');
    this.nextStageButton = page.getByTestId('next-stage');
    this.resetButton = page.getByTestId('reset');
    this.playButton = page.getByTestId('play');
    this.scrubber = page.getByTestId('scrubber');
    this.narration = page.getByTestId('narration-text');
    this.manifest = page.getByTestId('manifest');
    this.fieldErrors = page.getByTestId('field-error');
    this.applyButton = page.getByTestId('apply');
    this.applyPreview = page.getByTestId('apply-preview');
    this.conditions = page.getByTestId('conditions');
    this.kubectlGet = page.getByTestId('kubectl-get');
    this.rolloutStatus = page.getByTestId('rollout-status');
    this.kubectlDescribe = page.getByTestId('kubectl-describe');
    this.kubectlHistory = page.getByTestId('kubectl-history');
    this.kubectlDescribeReplicaSet = page.getByTestId('kubectl-describe-rs');
    this.eventLog = page.getByTestId('event-log');
    this.diagnosis = page.getByTestId('diagnosis');
    page.on('console', (msg: ConsoleMessage) => {
      if (msg.type() === 'error') this.consoleErrors.push(msg.text());
    });
    page.on('pageerror', (err: Error) => this.consoleErrors.push(err.message));
  }

  /** Opens the app and waits until the wasm has mounted it. */
  async goto(query = ''): Promise<void> {
    await this.page.goto(`./${query}`);
    await expect(this.heading).toHaveText('RolloutScope');
    await expect(this.stepCount).toBeVisible();
  }

  /** Chooses a bundled scenario by its file name (`rolling-update.yaml`). */
  async chooseScenario(file: string): Promise<void> {
    const value = await this.scenarioPicker.locator(`option[data-file="${file}"]`).getAttribute('value');
    if (value === null) throw new Error(`no bundled scenario ${file}`);
    await this.scenarioPicker.selectOption(value);
    await expect(this.stepCount).toHaveText(/^Step 0 of/);
  }

  /** The number of steps taken, from "Step N of M". */
  async position(): Promise<number> {
    const text = (await this.stepCount.textContent()) ?? '';
    const m = /^Step (\d+) of (\d+)/.exec(text);
    if (!m) throw new Error(`unexpected step count: ${text}`);
    return Number(m[1]);
  }

  /** Whether the run is known to end here. */
  async atEnd(): Promise<boolean> {
    return ((await this.stepCount.textContent()) ?? '').includes('end of run');
  }

  /** Clicks "Step forward" and waits for the count to move. */
  async forward(): Promise<void> {
    const before = await this.position();
    await this.forwardButton.click();
    await expect(this.stepCount).toHaveText(new RegExp(`^Step ${before + 1} of`));
  }

  /** Moves to step `n` with the scrubber. */
  async scrubTo(n: number): Promise<void> {
    // The scrubber spans the steps discovered so far; "End" discovers the whole run.
    if (n > Number(await this.scrubber.getAttribute('max'))) {
      await this.page.getByTestId('to-end').click();
      await expect(this.stepCount).toContainText('end of run');
    }
    await this.scrubber.fill(String(n));
    await expect(this.stepCount).toHaveText(new RegExp(`^Step ${n} of`));
  }

  /** Every ReplicaSet lane's counts, by ReplicaSet name. */
  async laneCounts(): Promise<Record<string, LaneCounts>> {
    return this.page.getByTestId('rs-lane').evaluateAll((lanes) =>
      Object.fromEntries(
        lanes.map((lane) => [
          lane.getAttribute('data-rs') ?? '',
          {
            desired: Number(lane.getAttribute('data-desired')),
            current: Number(lane.getAttribute('data-current')),
            ready: Number(lane.getAttribute('data-ready')),
            available: Number(lane.getAttribute('data-available')),
          },
        ]),
      ),
    );
  }

  /** Everything a learner reads at this moment, for exact before/after comparisons. */
  async visibleState(): Promise<Record<string, unknown>> {
    return {
      step: await this.stepCount.textContent(),
      time: await this.simTime.textContent(),
      lanes: await this.laneCounts(),
      narration: await this.narration.textContent(),
      kubectl: await this.kubectlGet.textContent(),
      status: await this.rolloutStatus.textContent(),
      events: await this.eventLog.textContent(),
      conditions: await this.page.getByTestId('deployment').textContent(),
      pods: await this.page.getByTestId('pod').evaluateAll((pods) => pods.map((p) => p.getAttribute('aria-label'))),
    };
  }

  /** Replaces the manifest text as if typed. */
  async editManifest(edit: (text: string) => string): Promise<void> {
    const text = await this.manifest.inputValue();
    await this.manifest.fill(edit(text));
  }

  /** Saves a full-page screenshot as target/screenshots/<name>.png. */
  async screenshot(name: string): Promise<string> {
    const file = path.join(SCREENSHOT_DIR, `${name}.png`);
    await this.page.screenshot({ path: file, fullPage: true });
    return file;
  }
}
