// The first end-to-end checks: the release build loads cleanly and shows its two main pieces.
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { AppPage } from './app-page';

test('the page loads without console errors and shows the picker and the trace', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();

  await expect(app.scenarioPicker).toBeVisible();
  await expect(app.trace).toBeVisible();
  await app.screenshot('app-loaded');
  expect(app.consoleErrors).toEqual([]);
});

test('the page has no serious accessibility violations', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();

  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
});

test('choosing each scenario shows its trace or the simulator error', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();

  const names = await app.scenarioNames();
  if (names.length === 0) {
    await expect(app.scenarioPicker).toBeDisabled();
    return;
  }
  for (const name of names) {
    await app.chooseScenario(name);
    const traced = ((await app.trace.textContent()) ?? '').trim() !== '';
    const failed = await app.traceError.isVisible();
    // Exactly one of the two: the trace, or the simulator's reason for having none.
    expect({ name, traced, failed }).toEqual({ name, traced: !failed, failed });
  }
  expect(app.consoleErrors).toEqual([]);
});
