// The docs and workshop surface: links that reproduce a moment, the embed and its lock, the
// presenter with its speaker notes, click-to-break faults, hostile links, saved work, and the
// accessibility audit in every mode.
import { expect, test } from '@playwright/test';
import fs from 'node:fs';
import path from 'node:path';
import { AppPage, seriousViolations } from './app-page';

/** The step of `rolloutscope run scenarios/<name> --json` (written by scripts/test) that `pick` picks. */
function cliStep(name: string, pick: (line: { step: number; actor: string; narration: string }) => boolean): number {
  const file = path.resolve(__dirname, '..', '..', 'target', 'e2e', name);
  const line = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l))
    .find(pick);
  if (!line) throw new Error(`no such step in ${name}`);
  return line.step;
}

test('a copied link reopens the same step with the same state, faults included', async ({ page, context, browser }) => {
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('rolling-update.yaml');
  await app.scrubTo(30);
  await page.locator('[data-testid="node"][data-node="node-2"]').getByTestId('node-cordon').click();
  await expect(page.locator('[data-testid="node"][data-node="node-2"]')).toContainText('SchedulingDisabled');
  for (let i = 0; i < 15; i++) await app.forward();
  const before = await app.visibleState();
  await page.getByTestId('copy-link').click();
  const link = await page.getByTestId('copied-link').inputValue();
  expect(link).toContain('do=31.cordon.');
  await expect.poll(() => page.url()).toBe(link);

  const other = new AppPage(await context.newPage());
  await other.page.goto(link);
  await expect(other.stepCount).toHaveText(/^Step 46 of/);
  expect(await other.visibleState()).toEqual(before);
  expect(other.consoleErrors).toEqual([]);

  // A run with an apply opens with the applied manifest in the editor, as its sender saw it.
  await app.editManifest((t) => t.replace(/replicas: \d+/, 'replicas: 7'));
  await app.applyButton.click();
  await page.getByTestId('copy-link').click();
  const applied = await page.getByTestId('copied-link').inputValue();
  // In a browser of its own, with none of the sender's saved work.
  const fresh = await browser.newContext({ baseURL: page.url() });
  const third = new AppPage(await fresh.newPage());
  await third.page.goto(applied);
  await expect(third.manifest).toHaveValue(/replicas: 7/);
  await fresh.close();
});

test('an embed locked to stages 3 to 4 cannot leave them, even at 360 px', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 800 });
  const app = new AppPage(page);
  await app.goto('?scenario=rolling-update&embed&from=stage3&to=stage4');
  const stageNow = async () => Number((await page.locator('.stage.current .stage-number').textContent()) ?? '0');
  expect([3, 4]).toContain(await stageNow());
  const first = await app.position();
  await app.backButton.click({ force: true });
  expect(await app.position()).toBe(first);
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('ArrowRight');
    expect([3, 4]).toContain(await stageNow());
  }
  await page.getByTestId('stage-2').click();
  expect([3, 4]).toContain(await stageNow());
  await expect(page.getByTestId('notice')).toContainText('stages 3 to 4');
  await page.keyboard.press('End');
  expect([3, 4]).toContain(await stageNow());
  await expect(page.getByTestId('full-view')).toHaveAttribute('href', /scenario=rolling-update/);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width).toBeLessThanOrEqual(360);
  await app.screenshot('embed-360');
  expect(await seriousViolations(page)).toEqual([]);
});

test('clicker keys drive presenter mode and the notes window follows', async ({ page, context }) => {
  const app = new AppPage(page);
  await app.goto('?scenario=rolling-update&present');
  const notes = await context.newPage();
  await notes.goto('./?notes');
  await expect(notes.getByTestId('speaker-notes')).toBeVisible();
  await page.bringToFront();
  await page.keyboard.press('PageDown');
  await expect(app.stepCount).toHaveText(/^Step 1 of/);
  await expect(page.getByTestId('stage-card')).toContainText('Declare the desired replicas');
  await page.keyboard.press('Space');
  await page.keyboard.press('ArrowRight');
  await expect(app.stepCount).toHaveText(/^Step 3 of/);
  await page.keyboard.press('PageUp');
  await expect(app.stepCount).toHaveText(/^Step 2 of/);
  await expect(notes.getByTestId('notes-step')).toContainText('Step 2 ');
  await expect(notes.getByTestId('notes-narration')).toHaveText((await app.narration.textContent()) ?? '');
  await expect(notes.getByTestId('notes-next')).toContainText('Step 3 ');
  // Notes opened once the presenter is under way show where it stands at once.
  const late = await context.newPage();
  await late.goto('./?notes');
  await expect(late.getByTestId('notes-step')).toContainText('Step 2 ');
  await late.close();
  await page.bringToFront();
  await page.keyboard.press('.');
  await expect(app.playButton).toHaveAttribute('aria-pressed', 'true');
  await page.keyboard.press('.');
  await expect(app.playButton).toHaveAttribute('aria-pressed', 'false');
  await page.keyboard.press('?');
  await expect(page.getByTestId('shortcut-help')).toContainText('clicker');
  await page.keyboard.press('Escape');
  await app.screenshot('presenter');
  await notes.screenshot({ path: `${require('node:path').resolve(__dirname, '..', '..', 'target', 'screenshots')}/speaker-notes.png`, fullPage: true });
  expect(await seriousViolations(page)).toEqual([]);
  expect(await seriousViolations(notes)).toEqual([]);
});

test('each fault shows its effect and survives a reload and step back', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('rolling-update.yaml');
  await app.scrubTo(40);
  // Delete a pod: the ReplicaSet controller replaces it.
  const victim = await page.getByTestId('pod').first().getAttribute('data-pod');
  await page.locator(`[data-testid="pod"][data-pod="${victim}"]`).getByTestId('delete-pod').click();
  await expect(app.stepCount).toHaveText(/^Step 41 of 41/);
  await expect(app.narration).toContainText(`${victim}`);
  // Make a node NotReady: after 50 s of silence the node lifecycle controller marks it.
  await page.locator('[data-testid="node"][data-node="node-3"]').getByTestId('node-fail').click();
  await expect(app.stepCount).toHaveText(/^Step 42 of/);
  // Until the node controller notices, the card says the kubelet stopped instead of offering
  // the fault again.
  const node3 = page.locator('[data-testid="node"][data-node="node-3"]');
  await expect(node3.getByTestId('node-fail')).toHaveCount(0);
  await expect(node3.getByTestId('node-kubelet-down')).toContainText('kubelet stopped: NotReady once 50 s pass');
  // The node's own status word (the card's text also holds the "Make NotReady" button's).
  const notReady = page.locator('[data-testid="node"][data-node="node-3"] .node-status');
  while ((await notReady.textContent()) !== 'NotReady') await app.forward();
  await app.screenshot('fault-node-not-ready');
  const after = await app.visibleState();
  // Reload: the link and the saved work bring back the same moment.
  await page.reload();
  await expect(app.stepCount).toHaveText(new RegExp(`^${after.step}`));
  expect(await app.visibleState()).toEqual(after);
  // Step back over both faults and forward again: they are replayed.
  const pos = await app.position();
  await app.scrubTo(35);
  await expect(page.locator(`[data-testid="pod"][data-pod="${victim}"]`)).toHaveCount(1);
  await app.scrubTo(pos);
  expect(await app.visibleState()).toEqual(after);
});

test('pods on a node gone NotReady say why they are not ready while kubectl counts them ready', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('node-failure.yaml');
  // The node controller's step (at 130 s) that marks node-2 NotReady after its grace period,
  // found in the CLI's trace of the same scenario.
  const notReady = cliStep(
    'node-failure.jsonl',
    (l) => l.actor === 'node-controller' && l.narration.includes('marks node-2 NotReady'),
  );
  await app.scrubTo(notReady - 1);
  const status = page.locator('[data-testid="node"][data-node="node-2"] .node-status');
  await expect(status).toHaveText('Ready');
  await app.forward();
  await expect(status).toHaveText('NotReady');
  const marked = page.locator('[data-testid="pod"][aria-label*="its node is NotReady"]');
  await expect(marked.first()).toBeVisible();
  // kubectl's READY column still counts that pod's containers ready.
  const name = await marked.first().getAttribute('data-pod');
  await expect(page.getByTestId('kubectl-get')).toContainText(new RegExp(`pod/${name} +1/1 +Running`));
  await app.screenshot('node-lost-pods');
  // Once the node controller has tainted the node NoExecute, restart its kubelet: the node is
  // Ready at once, the button goes, and the new run's first readiness runs bring the pods back
  // within one period; the NoExecute taint goes at the node controller's next look, which
  // cancels the evictions still to come.
  const tainted = cliStep(
    'node-failure.jsonl',
    (l) => l.actor === 'node-controller' && l.narration.includes('taints it node.kubernetes.io/unreachable:NoExecute'),
  );
  await app.scrubTo(tainted);
  const node2 = page.locator('[data-testid="node"][data-node="node-2"]');
  await node2.getByTestId('node-restart-kubelet').click();
  await expect(app.narration).toContainText('The kubelet on node-2 starts again');
  await expect(status).toHaveText('Ready');
  await expect(node2.getByTestId('node-restart-kubelet')).toHaveCount(0);
  await expect(app.eventLog).toContainText('Starting kubelet.');
  await expect(app.eventLog).toContainText('Node node-2 status is now: NodeReady');
  for (let i = 0; i < 20 && !((await app.eventLog.textContent()) ?? '').includes('Cancelling deletion'); i++) {
    await app.forward();
  }
  await expect(app.eventLog).toContainText(`Cancelling deletion of Pod default/`);
  await expect(page.locator('[data-testid="pod"][aria-label*="its node is NotReady"]')).toHaveCount(0);
  await app.screenshot('node-restarted');
  expect(app.consoleErrors).toEqual([]);
});

test('a pod stuck Terminating on a lost node can be force-deleted', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('node-failure.yaml');
  // At the end of the run node-2's evicted pods stay Terminating: no kubelet confirms.
  await page.getByTestId('to-end').click();
  await expect(app.stepCount).toContainText('end of run');
  const stuck = page.locator('[data-testid="pod"][data-status="Terminating"]').filter({ has: page.getByTestId('force-delete-pod') });
  const before = await stuck.count();
  expect(before).toBeGreaterThan(0);
  const name = await stuck.first().getAttribute('data-pod');
  await stuck.first().getByTestId('force-delete-pod').click();
  await expect(app.narration).toContainText(`pod "${name}" force deleted from default namespace`);
  await expect(app.narration).toContainText('Immediate deletion does not wait for confirmation');
  await expect(page.locator(`[data-testid="pod"][data-pod="${name}"]`)).toHaveCount(0);
  await expect(stuck).toHaveCount(before - 1);
  await app.screenshot('force-delete');
  // The new controls (✂! on the chips, Restart kubelet on the lost node) pass the same checks.
  await expect(page.locator('[data-testid="node"][data-node="node-2"]').getByTestId('node-restart-kubelet')).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  expect(app.consoleErrors).toEqual([]);
});

test('hostile links are refused cleanly and the app still works', async ({ page }) => {
  const app = new AppPage(page);
  let dialogs = 0;
  page.on('dialog', async (d) => {
    dialogs++;
    await d.dismiss();
  });
  const scriptName = Buffer.from('name: <img src=x onerror=alert(1)>\nseed: 1\ndeployment: {}\n').toString('base64url');
  const hugeReplicas = Buffer.from(
    'name: x\ndeployment:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web}\n  spec:\n    replicas: 99999999\n    selector: {matchLabels: {app: web}}\n    template:\n      metadata: {labels: {app: web}}\n      spec: {containers: [{name: web, image: web:1}]}\n',
  ).toString('base64url');
  const cases: [string, RegExp][] = [
    ['?scenario=%3Cscript%3Ealert(1)%3C/script%3E', /no built-in scenario/],
    [`?yaml=${scriptName}`, /not valid/],
    [`?yaml=${hugeReplicas}`, /at most 20000/],
    ['?yaml=@@@@', /damaged/],
    ['?step=12abc', /not a number/],
    ['?v=99&scenario=recreate', /newer RolloutScope/],
    // Long enough to be absurd, short enough for the test server to pass on.
    [`?yaml=${'_'.repeat(60_000)}`, /not UTF-8|not valid/],
    ['?scenario=recreate&do=1.cordon.bm9kZS05', /could not be repeated/],
  ];
  for (const [query, why] of cases) {
    await app.goto(query);
    await expect(page.getByTestId('notice')).toContainText(why);
    await expect(page.locator('img, script:not([src])')).toHaveCount(await page.locator('script:not([src])').count());
    await app.forward();
  }
  await app.screenshot('hostile-link');
  expect(dialogs).toBe(0);
  expect(app.consoleErrors).toEqual([]);
});

test('edits and position survive a reload, and reset asks before discarding actions', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('recreate.yaml');
  await app.scrubTo(10);
  await app.editManifest((t) => t.replace(/replicas: \d+/, 'replicas: 7'));
  await page.reload();
  await expect(app.stepCount).toHaveText(/^Step 10 of/);
  await expect(app.manifest).toHaveValue(/replicas: 7/);
  // A reload right after stepping, before the address bar has caught up (it follows at most
  // every 250 ms), still comes back to the step the page was at.
  await app.forward();
  await app.forward();
  await page.reload();
  await expect(app.stepCount).toHaveText(/^Step 12 of/);
  await expect(app.manifest).toHaveValue(/replicas: 7/);
  await app.scrubTo(10);
  // A bare address reopens the saved work too.
  await page.goto('./');
  await expect(app.stepCount).toHaveText(/^Step 10 of/);
  await expect(app.manifest).toHaveValue(/replicas: 7/);
  // With an action taken, reset asks; declining keeps everything.
  await page.locator('[data-testid="node"]').first().getByTestId('node-cordon').click();
  let asked = 0;
  page.once('dialog', async (d) => {
    asked++;
    await d.dismiss();
  });
  await app.resetButton.click();
  expect(asked).toBe(1);
  await expect(app.stepCount).toHaveText(/^Step 11 of/);
  page.once('dialog', (d) => d.accept());
  await app.resetButton.click();
  await expect(app.stepCount).toHaveText(/^Step 0 of/);
});

test('acting at an earlier step asks before it discards the actions taken later', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('recreate.yaml');
  await app.scrubTo(10);
  const node = page.locator('[data-testid="node"]').first();
  await node.getByTestId('node-cordon').click();
  await expect(app.stepCount).toHaveText(/^Step 11 of/);
  await app.scrubTo(5);
  // Declining keeps the later cordon (stepping forward replays it); accepting acts here.
  let asked = '';
  page.once('dialog', async (d) => {
    asked = d.message();
    await d.dismiss();
  });
  await page.locator('[data-testid="node"]').last().getByTestId('node-cordon').click();
  expect(asked).toContain('discards the 1 action you took later');
  await expect(app.stepCount).toHaveText(/^Step 5 of/);
  await app.scrubTo(11);
  await expect(node.getByTestId('node-cordon')).toHaveText('Uncordon');
  await app.scrubTo(5);
  page.once('dialog', (d) => d.accept());
  await page.locator('[data-testid="node"]').last().getByTestId('node-cordon').click();
  await expect(app.stepCount).toHaveText(/^Step 6 of 6/);
  await expect(page.locator('[data-testid="node"]').last().getByTestId('node-cordon')).toHaveText('Uncordon');
  await expect(node.getByTestId('node-cordon')).toHaveText('Cordon');
});

test('a link opens at its own step, and another tab opening a link keeps this tab\'s typing', async ({ page, context }) => {
  const app = new AppPage(page);
  // Reopening the same link after stepping on shows the link's step, not the later one.
  await app.goto('?v=1&scenario=rolling-update&step=5');
  await expect(app.stepCount).toHaveText(/^Step 5 of/);
  await app.forward();
  await page.goto('about:blank');
  await app.goto('?v=1&scenario=rolling-update&step=5');
  await expect(app.stepCount).toHaveText(/^Step 5 of/);
  // Typed, unapplied text in this tab survives another tab opening a trainer's link.
  await app.editManifest((t) => `# my notes\n${t.replace(/replicas: \d+/, 'replicas: 6')}`);
  const other = new AppPage(await context.newPage());
  await other.goto('?v=1&scenario=recreate&step=3');
  await expect(other.stepCount).toHaveText(/^Step 3 of/);
  await page.reload();
  await expect(app.manifest).toHaveValue(/# my notes/);
  await expect(app.manifest).toHaveValue(/replicas: 6/);
  await expect(app.stepCount).toHaveText(/^Step 5 of/);
});

test('the embed and presenter modes have no serious accessibility violations', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto('?scenario=image-typo&embed&readonly&step=60');
  await expect(app.manifest).toHaveAttribute('readonly', '');
  await expect(app.applyButton).toBeHidden();
  // Read-only means the run cannot be changed: no kubectl commands, no faults, but the probe
  // marks are still explained.
  await expect(page.getByTestId('deployment-commands')).toBeHidden();
  for (const fault of ['delete-pod', 'crash-pod', 'fail-registry', 'node-fail', 'node-cordon']) {
    await expect(page.getByTestId(fault).first()).toBeHidden();
  }
  await expect(page.getByTestId('pod-legend')).toContainText('S startup');
  await expect(page.getByTestId('pod-legend').locator('.legend-buttons')).toBeHidden();
  expect(await seriousViolations(page)).toEqual([]);
  await app.screenshot('embed-readonly');
  await app.goto('?scenario=image-typo&present&step=60');
  expect(await seriousViolations(page)).toEqual([]);
});

test('the embed example drives the iframe with postMessage under a strict CSP', async ({ page }) => {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto('./embed-example.html');
  const frame = page.frameLocator('#rolloutscope');
  await expect(frame.getByTestId('step-count')).toHaveText(/^Step \d+ of/);
  await expect(page.locator('#host-step')).toContainText('step');
  await page.locator('#host-goto').click();
  await expect(page.locator('#host-step')).toContainText(/step 4\d/);
  const at = Number(/step (\d+)/.exec((await page.locator('#host-step').textContent()) ?? '')?.[1]);
  await page.locator('#host-next').click();
  await expect(page.locator('#host-step')).not.toContainText(`step ${at} `);
  await expect(frame.getByTestId('manifest')).toHaveAttribute('readonly', '');
  await page.locator('#host-load').click();
  await expect(frame.getByTestId('scenario-description')).toContainText('Recreate');
  await page.screenshot({ path: require('node:path').resolve(__dirname, '..', '..', 'target', 'screenshots', 'embed-example.png'), fullPage: true });
  expect(errors).toEqual([]);
});

test('dist/ uses only relative paths and no inline script', async () => {
  const fs = require('node:fs');
  const path = require('node:path');
  const dist = path.resolve(__dirname, '..', '..', 'dist');
  const html: string = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');
  expect(html).not.toMatch(/(src|href)="\/(?!\/)/);
  expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  expect(html).toContain("script-src 'self' 'wasm-unsafe-eval'");
  const boot = fs.readdirSync(dist).find((f: string) => f.startsWith('boot-'));
  expect(fs.readFileSync(path.join(dist, boot), 'utf8')).not.toMatch(/from '\//);
});

test('predict-then-step asks before each step and says whether the learner was right', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('rolling-update.yaml');
  await page.getByTestId('predict-toggle').click();
  await expect(page.getByTestId('predict')).toBeVisible();
  // Forward asks instead of stepping.
  await app.forwardButton.click();
  await expect(page.getByTestId('predict-prompt')).toBeVisible();
  await expect(app.stepCount).toHaveText(/^Step 0 of/);
  // Answer with the keyboard: each option is numbered.
  await page.keyboard.press('1');
  await expect(app.stepCount).toHaveText(/^Step 1 of/);
  await expect(page.getByTestId('predict-verdict')).toContainText(/Right|Not quite/);
  await expect(page.getByTestId('predict-score')).toHaveText(/of 1 right/);
  // Walk on to the first scaling question and answer it right, from the step it will take.
  let asked = '';
  for (let i = 0; i < 40 && !asked.includes('To how many replicas'); i++) {
    await page.keyboard.press('ArrowRight');
    asked = (await page.getByTestId('predict-prompt').textContent()) ?? '';
    if (!asked.includes('To how many replicas')) await page.getByTestId('predict-option').first().click();
  }
  expect(asked).toContain('To how many replicas');
  await app.screenshot('predict-question');
  const options = await page.getByTestId('predict-option').allTextContents();
  // The rolling update's first scale-up creates the ReplicaSet at its full 10.
  const right = options.findIndex((o) => / · 10$/.test(o));
  expect(right).toBeGreaterThanOrEqual(0);
  await page.getByTestId('predict-option').nth(right).click();
  await expect(page.getByTestId('predict-verdict')).toContainText('✓ Right: 10');
  await app.screenshot('predict-verdict');
});

test('readiness, crash and registry faults show their effects', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('rolling-update.yaml');
  await app.scrubTo(40);
  const pods = page.getByTestId('pod');
  const first = await pods.nth(0).getAttribute('data-pod');
  const second = await pods.nth(1).getAttribute('data-pod');
  await page.locator(`[data-testid="pod"][data-pod="${first}"]`).getByTestId('break-readiness').click();
  await expect(app.narration).toContainText('readiness endpoint');
  await page.locator(`[data-testid="pod"][data-pod="${second}"]`).getByTestId('crash-pod').click();
  await expect(app.narration).toContainText('crashes');
  const broken = page.locator(`[data-testid="pod"][data-pod="${first}"]`);
  for (let i = 0; i < 150 && (await broken.getAttribute('data-ready')) !== 'false'; i++) await app.forward();
  await expect(broken).toHaveAttribute('data-ready', 'false');
  await expect(broken).toHaveAttribute('data-status', 'Running');
  const crashed = page.locator(`[data-testid="pod"][data-pod="${second}"]`);
  for (let i = 0; i < 60 && !((await crashed.textContent()) ?? '').includes('↻1'); i++) await app.forward();
  await expect(crashed).toContainText('↻1');
  await expect(crashed).toHaveAttribute('aria-label', /1 restarts/);
  // The registry refuses web:2.0 as soon as the rollout creates its ReplicaSet, before any
  // node pulls it: the new pods stall in image pull errors while the old ones keep serving.
  await app.goto('?scenario=rolling-update&step=60');
  while ((await page.getByTestId('rs-lane').count()) < 2) await app.forward();
  const newLane = page.locator('[data-testid="rs-lane"]').filter({ hasText: 'web:2.0' });
  await newLane.getByTestId('fail-registry').click();
  await expect(app.narration).toContainText('registry stops serving web:2.0');
  const stalled = page.locator('[data-testid="pod"][data-status="ErrImagePull"], [data-testid="pod"][data-status="ImagePullBackOff"]');
  for (let i = 0; i < 80 && (await stalled.count()) === 0; i++) await app.forward();
  await expect(stalled.first()).toBeVisible();
  await expect(app.eventLog).toContainText('i/o timeout');
  await app.screenshot('fault-registry');
  expect(app.consoleErrors).toEqual([]);
});

test('side by side runs the same scenario under two strategies in step', async ({ page }) => {
  // About 150 clicks, each recorded by the trace: slow on a loaded machine, not in the app.
  test.setTimeout(120_000);
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('rolling-update.yaml');
  await app.editManifest((t) =>
    t.replace('  replicas: 10\n', '  replicas: 10\n  strategy:\n    rollingUpdate:\n      maxSurge: 0\n      maxUnavailable: 1\n'),
  );
  await page.getByTestId('compare-open').click();
  await expect(page.getByTestId('compare-left')).toContainText('not created yet');
  for (let i = 0; i < 3; i++) await page.getByTestId('compare-forward').click();
  await expect(page.getByTestId('compare-left')).toContainText('maxSurge 3 · maxUnavailable 2');
  await expect(page.getByTestId('compare-right')).toContainText('maxSurge 0 · maxUnavailable 1');
  // Step both past the image change at 60 s and watch the two rollouts diverge.
  for (let i = 0; i < 150; i++) await page.getByTestId('compare-forward').click();
  await expect(page.getByTestId('compare-time')).toHaveText(/t = \d+/);
  const lanes = (side: string) => page.getByTestId(side).getByTestId('rs-lane');
  await expect(lanes('compare-left')).toHaveCount(2);
  await expect(lanes('compare-right')).toHaveCount(2);
  await app.screenshot('side-by-side');
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByTestId('compare-close').click();
  await expect(page.getByTestId('compare')).toHaveCount(0);
  // While comparing, the page's shortcuts leave the run behind it alone, and Escape closes.
  await page.getByTestId('compare-open').click();
  await page.locator('body').press('ArrowRight');
  await page.locator('body').press('Escape');
  await expect(page.getByTestId('compare')).toHaveCount(0);
  await expect(app.stepCount).toHaveText(/^Step 0 of/);
  expect(app.consoleErrors).toEqual([]);
});

test('presenter mode fits a projector: pods, counts and narration on one screen', async ({ page }) => {
  // At 1280×720 the narration, every pod and the Deployment's counts are on screen; at
  // 1920×1080 the conditions and the nodes too.
  const screens: [number, number, string[]][] = [
    [1280, 720, ['.panel.narration', '[data-testid="pod"] >> nth=-1', '.counts']],
    [1920, 1080, ['.panel.narration', '[data-testid="pod"] >> nth=-1', '.panel.deployment', '.panel.nodes']],
  ];
  for (const [width, height, parts] of screens) {
    await page.setViewportSize({ width, height });
    const app = new AppPage(page);
    await app.goto('?scenario=rolling-update&present&step=120');
    await expect(app.stepCount).toHaveText(/^Step 120 of/);
    for (const part of parts) {
      const box = await page.locator(part).boundingBox();
      expect(box && box.y + box.height, `${part} at ${width}×${height}`).toBeLessThanOrEqual(height);
    }
    // Labels read from the back of the room: nothing the audience reads is under 15 px.
    const small = await page.evaluate(() =>
      [...document.querySelectorAll('.count dt, .count dd, .badge, .pod, .node h3, .position, .narration-text, .stage-title')]
        .map((e) => parseFloat(getComputedStyle(e).fontSize))
        .filter((px) => px < 15));
    expect(small).toEqual([]);
    await app.screenshot(`presenter-${width}x${height}`);
  }
  // A pod's fault buttons fold away on a projector but come back under the pointer.
  const chip = page.getByTestId('pod').filter({ has: page.getByTestId('delete-pod') }).first();
  const remove = chip.getByTestId('delete-pod');
  expect((await remove.boundingBox())?.width ?? 0).toBeLessThanOrEqual(1);
  const before = await chip.boundingBox();
  await chip.hover();
  expect((await remove.boundingBox())?.width ?? 0).toBeGreaterThan(10);
  // They unfold over the row above: the chip itself does not move from under the pointer.
  expect(await chip.boundingBox()).toEqual(before);
});

test('a presenter jumps from command to command with a and Shift+A', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto('?scenario=rolling-update&present');
  await page.keyboard.press('a');
  await expect(app.stepCount).toHaveText(/^Step 1 of/);
  await page.keyboard.press('a');
  await expect(app.simTime).toHaveText('t = 60s');
  await expect(app.narration).toContainText('deployment.apps/web image updated');
  const at = await app.position();
  expect(at).toBeGreaterThan(50);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Shift+A');
  expect(await app.position()).toBe(at);
  await page.getByTestId('next-action').click();
  await expect(page.getByTestId('notice')).toContainText('No later step is a kubectl command');
});
