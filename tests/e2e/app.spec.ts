// End-to-end behaviour of the app against the release build: loading, stepping through a
// rollout against the CLI's own JSON trace, exact step back, editing, a stuck rollout,
// keyboard-only use, and an accessibility audit.
import { expect, test } from '@playwright/test';
import fs from 'node:fs';
import path from 'node:path';
import { AppPage, seriousViolations, type LaneCounts } from './app-page';

/** One line of `rolloutscope run --json`, reduced to what the lanes show. */
interface TraceLine {
  step: number;
  replica_sets: { name: string; replicas: number; status_replicas: number; ready_replicas: number; available_replicas: number }[];
}

function cliTrace(): TraceLine[] {
  const file = path.resolve(__dirname, '..', '..', 'target', 'e2e', 'rolling-update.jsonl');
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as TraceLine);
}

/** What `rolloutscope kubectl scenarios/rolling-update.yaml -- …` printed (see scripts/test). */
function cliText(name: string): string {
  return fs.readFileSync(path.resolve(__dirname, '..', '..', 'target', 'e2e', name), 'utf8');
}

function expectedLanes(line: TraceLine): Record<string, LaneCounts> {
  return Object.fromEntries(
    line.replica_sets.map((rs) => [
      rs.name,
      { desired: rs.replicas, current: rs.status_replicas, ready: rs.ready_replicas, available: rs.available_replicas },
    ]),
  );
}

test('the page loads without console errors and shows every part', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  await expect(app.scenarioPicker).toBeVisible();
  await expect(page.getByTestId('stage-1')).toBeVisible();
  await expect(app.stepCount).toHaveText(/^Step 0 of 0/);
  await expect(app.manifest).toHaveValue(/kind: Deployment/);
  await expect(page.getByTestId('manifest-status')).toContainText('Valid manifest');
  await app.screenshot('app-loaded');
  expect(app.consoleErrors).toEqual([]);
});

test('stepping through the rolling update matches the CLI trace step by step', async ({ page }) => {
  test.setTimeout(180_000);
  const trace = cliTrace();
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('rolling-update.yaml');
  for (const line of trace) {
    await app.forward();
    expect(await app.laneCounts(), `step ${line.step}`).toEqual(expectedLanes(line));
    if (line.step === 90) await app.screenshot('rolling-update-mid-rollout');
  }
  await expect(app.stepCount).toContainText('end of run');
  await expect(app.forwardButton).toBeDisabled();
  await expect(app.rolloutStatus).toContainText('deployment "web" successfully rolled out');
  await expect(app.conditions).toContainText('NewReplicaSetAvailable');
  // The pods have a readiness probe only: their chips mark it and no startup or liveness probe.
  const marks = await page.getByTestId('pod').locator('.probes').allTextContents();
  expect(marks.length).toBeGreaterThan(0);
  expect(new Set(marks)).toEqual(new Set(['R✓']));
  await app.screenshot('rolling-update-complete');
  // The folded kubectl commands print what the CLI prints for the same moment, character for
  // character.
  await page.getByText('$ kubectl describe deployment web').click();
  await expect(app.kubectlDescribe).toHaveText(cliText('rolling-update-describe.txt'));
  await page.getByText('$ kubectl get deployment web -o yaml').click();
  await expect(page.getByTestId('kubectl-get-yaml')).toHaveText(cliText('rolling-update-yaml.txt'));
  await page.getByTestId('kubectl-get-yaml').scrollIntoViewIfNeeded();
  await app.screenshot('rolling-update-get-yaml');
  await page.getByText('$ kubectl rollout history deployment/web').click();
  await expect(app.kubectlHistory).toHaveText(cliText('rolling-update-history.txt'));
  await page.getByText(/^\$ kubectl describe rs web-/).click();
  await expect(app.kubectlDescribeReplicaSet).toHaveText(cliText('rolling-update-describe-rs.txt'));
  await page.getByText('$ kubectl describe nodes').click();
  await expect(page.getByTestId('kubectl-describe-nodes')).toHaveText(
    cliText('rolling-update-describe-nodes.txt'),
  );
  await app.kubectlDescribe.scrollIntoViewIfNeeded();
  await app.screenshot('rolling-update-describe');
  expect(app.consoleErrors).toEqual([]);
});

test('step back restores exactly the earlier state', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('rolling-update.yaml');
  await app.scrubTo(95);
  const before = await app.visibleState();
  for (let i = 0; i < 5; i++) await app.forward();
  expect(await app.visibleState()).not.toEqual(before);
  for (let i = 0; i < 5; i++) await app.backButton.click();
  await expect(app.stepCount).toHaveText(/^Step 95 of/);
  expect(await app.visibleState()).toEqual(before);
  // Scrubbing far back and forward again lands on the same state too.
  await app.scrubTo(3);
  await app.scrubTo(95);
  expect(await app.visibleState()).toEqual(before);
});

test('an invalid edit shows the API-server error at its line and keeps the simulation', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('rolling-update.yaml');
  await app.scrubTo(40);
  const before = await app.visibleState();
  await app.editManifest((t) => t.replace('replicas: 10', 'replicas: -1'));
  await expect(app.fieldErrors).toHaveCount(1);
  await expect(app.fieldErrors.first()).toContainText(
    'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
  );
  const line = await app.fieldErrors.first().getAttribute('data-line');
  const text = await app.manifest.inputValue();
  expect(text.split('\n')[Number(line) - 1]).toContain('replicas: -1');
  await expect(page.locator('.gutter .bad')).toHaveText(`⚠${line}`);
  await expect(app.applyButton).toBeDisabled();
  expect(await app.visibleState()).toEqual(before);
  await app.screenshot('invalid-edit');

  // Fixing it enables apply; what the user typed is still there.
  await app.editManifest((t) => t.replace('replicas: -1', 'replicas: 12'));
  await expect(app.fieldErrors).toHaveCount(0);
  await expect(app.applyButton).toBeEnabled();
  await expect(app.applyPreview).toContainText('spec.replicas 10 → 12');
});

test('applying mid-run acts like kubectl apply at the current time', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('rolling-update.yaml');
  await app.scrubTo(30);
  const time = await app.simTime.textContent();
  await page.getByTestId('field-replicas').fill('14');
  await page.getByTestId('field-replicas').press('Enter');
  await expect(app.manifest).toHaveValue(/replicas: 14/);
  await app.applyButton.click();
  await expect(app.stepCount).toHaveText(/^Step 31 of 31/);
  await expect(app.simTime).toHaveText(time ?? '');
  await expect(page.getByTestId('deployment-desired')).toContainText('14');
  // The deployment controller soon scales for the new count, and says so with the numbers.
  for (let i = 0; i < 30 && !((await app.narration.textContent()) ?? '').includes('to 14'); i++) {
    await app.forward();
  }
  await expect(app.narration).toContainText('to 14');
  await app.screenshot('applied-mid-run');
});

test('a form edit before the first step replaces the manifest and the run follows it', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('recreate.yaml');
  await page.getByTestId('field-replicas').fill('2');
  await page.getByTestId('field-replicas').press('Tab');
  await expect(app.manifest).toHaveValue(/replicas: 2\n/);
  await app.applyButton.click();
  await expect(page.getByTestId('notice')).toContainText('starts over');
  await app.forward();
  await app.forward();
  await expect(page.getByTestId('deployment-desired')).toContainText('2');
});


test('the form switches to Recreate without leaving an invalid manifest, and keeps what it cannot read', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('rolling-update-max-surge-0.yaml');
  await expect(app.manifest).toHaveValue(/rollingUpdate:/);
  await page.getByTestId('field-strategy').selectOption('Recreate');
  // Recreate refuses a rollingUpdate block, so the switch removes it, and its fields go quiet.
  await expect(app.manifest).toHaveValue(/type: Recreate/);
  await expect(app.manifest).not.toHaveValue(/rollingUpdate|maxSurge/);
  await expect(app.fieldErrors).toHaveCount(0);
  await expect(page.getByTestId('field-maxSurge')).toBeDisabled();
  await expect(page.getByTestId('field-maxUnavailable')).toBeDisabled();
  await expect(app.applyButton).toBeEnabled();
  // Text the browser cannot read as a number leaves the manifest's replicas as they were.
  const replicas = page.getByTestId('field-replicas');
  await replicas.fill('');
  await replicas.pressSequentially('1e');
  await replicas.press('Tab');
  await expect(page.locator('.form-note')).toContainText('replicas: what is typed there is not a number');
  await expect(app.manifest).toHaveValue(/replicas: \d+/);
  await app.screenshot('form-recreate');
});

test('the image-typo scenario shows ImagePullBackOff and ProgressDeadlineExceeded', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('image-typo.yaml');
  const backOff = page.locator('[data-testid="pod"][data-status="ImagePullBackOff"]');
  while ((await backOff.count()) === 0) await app.forward();
  await expect(backOff.first()).toContainText('ImagePullBackOff');
  await expect(backOff.first()).toHaveAttribute('aria-label', /not ready/);
  while (!((await app.conditions.textContent()) ?? '').includes('ProgressDeadlineExceeded')) await app.forward();
  await expect(app.conditions).toContainText('Progressing False');
  await expect(app.eventLog).toContainText('⚠ Warning');
  await expect(app.rolloutStatus).toContainText('exceeded its progress deadline');
  await app.screenshot('image-typo-deadline');
  // The editor still holds the file as applied (web:1.0): applying it would undo the set image,
  // and the preview says why, before the change itself.
  await expect(app.applyPreview.locator('li').first()).toContainText('The live Deployment has moved on from this manifest');
  await expect(app.applyPreview).toContainText('web:2.0-typo → web:1.0');
  // Stage 5 from the Deployment panel: kubectl rollout undo, at this simulated moment.
  const undo = page.getByTestId('rollout-undo');
  await expect(undo).toHaveAttribute('title', 'kubectl rollout undo deployment/web');
  await undo.click();
  await expect(app.narration).toContainText('deployment.apps/web rolled back');
  for (let i = 0; i < 60 && (await backOff.count()) > 0; i++) await app.forward();
  await expect(backOff).toHaveCount(0);
  for (let i = 0; i < 60 && !((await page.getByTestId('deployment-available').textContent()) ?? '').includes('4'); i++) await app.forward();
  await expect(page.getByTestId('deployment-available')).toContainText('4');
  await expect(app.rolloutStatus).toContainText('successfully rolled out');
  await app.screenshot('image-typo-undone');
  // Scale from the same panel, with the count typed key by key; a count kubectl refuses changes
  // nothing and reads as a refusal.
  const count = page.getByTestId('scale-count');
  await count.fill('');
  await count.pressSequentially('-2');
  await expect(count).toHaveValue('-2');
  await page.getByTestId('scale').click();
  const notice = page.getByTestId('notice');
  await expect(notice).toContainText('✗ Refused: error: The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0');
  await expect(notice).toHaveClass(/refused/);
  await expect(page.getByTestId('deployment-desired')).toContainText('4');
  await expect(count).toHaveValue('-2');
  // What is typed stays while the run moves on, and Enter scales.
  await count.fill('');
  await count.pressSequentially('6');
  await app.forward();
  await expect(count).toHaveValue('6');
  await expect(page.getByTestId('scale')).toHaveAttribute('title', 'kubectl scale deployment/web --replicas=6');
  await count.press('Enter');
  await expect(app.narration).toContainText('deployment.apps/web scaled');
  await expect(notice).not.toHaveClass(/refused/);
  await expect(page.getByTestId('deployment-desired')).toContainText('6');
  // The revision to undo to is chosen from the ReplicaSets' revisions, as rollout history lists
  // them, and the button's command says the one chosen.
  const revision = page.getByTestId('undo-revision');
  await expect(revision.locator('option')).toHaveText(['the previous revision', 'revision 2 (web:2.0-typo)']);
  await revision.selectOption('2');
  await expect(revision).toHaveValue('2');
  await expect(undo).toHaveAttribute('title', 'kubectl rollout undo deployment/web --to-revision=2');
  await app.screenshot('deployment-commands');
  expect(app.consoleErrors).toEqual([]);
});

test('the chosen undo revision stays while the run moves, and the undo goes to it', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('rolling-update.yaml');
  await app.scrubTo(150);
  const revision = page.getByTestId('undo-revision');
  await expect(revision.locator('option')).toHaveText(['the previous revision', 'revision 1 (web:1.0)']);
  await revision.selectOption('1');
  await page.getByTestId('step-back').click();
  await expect(app.stepCount).toHaveText(/^Step 149 of/);
  await app.forward();
  await app.forward();
  await expect(revision).toHaveValue('1');
  const undo = page.getByTestId('rollout-undo');
  await expect(undo).toHaveAttribute('title', 'kubectl rollout undo deployment/web --to-revision=1');
  await undo.click();
  await expect(app.narration).toContainText('kubectl copied the pod template of revision 1 (web:1.0)');
  await app.screenshot('undo-to-revision');
  expect(app.consoleErrors).toEqual([]);
});

test('the missing-ConfigMap scenario shows CreateContainerConfigError, its diagnosis, and the applied manifest', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('missing-configmap.yaml');
  // Before the scenario's own apply at 30 s the editor holds the deployment it starts from.
  await expect(app.manifest).not.toHaveValue(/web-settings/);
  const stuck = page.locator('[data-testid="pod"][data-status="CreateContainerConfigError"]');
  while ((await stuck.count()) === 0) await app.forward();
  await expect(stuck.first()).toHaveAttribute('aria-label', /not ready, 0 restarts/);
  await expect(app.eventLog).toContainText('Error: configmap "web-settings" not found');
  // The editor now holds the manifest the scenario applied, the one that names the ConfigMap.
  await expect(app.manifest).toHaveValue(/configMapRef: \{name: web-settings\}/);
  while (!((await app.conditions.textContent()) ?? '').includes('ProgressDeadlineExceeded')) await app.forward();
  // Every wanted pod is still ready (the old ones), yet the diagnosis opens for the stuck rollout.
  const diagnosis = page.getByTestId('diagnosis');
  await expect(diagnosis).toContainText('1 new pod cannot start: STATUS CreateContainerConfigError');
  await expect(diagnosis).toContainText('configmap "web-settings" not found');
  await app.screenshot('missing-configmap-diagnosis');
  // The stuck pod's chip offers the fix; after it the pod starts at its worker's next look.
  const fix = page.getByTestId('create-config');
  await expect(fix.first()).toHaveAttribute('aria-label', 'Fix it: kubectl create configmap web-settings');
  await fix.first().click();
  await expect(app.narration).toContainText('configmap/web-settings created');
  // The pod still shows the kubelet's last status, but the fix is no longer offered (it would
  // be refused), and the diagnosis no longer asks for the ConfigMap.
  await expect(stuck.first()).toBeVisible();
  await expect(fix).toHaveCount(0);
  await expect(diagnosis).toContainText('exists now');
  await app.screenshot('missing-configmap-created');
  // One step back, before the create, the fix is offered again; forward replays the create.
  await page.keyboard.press('ArrowLeft');
  await expect(fix.first()).toBeVisible();
  await app.forward();
  await expect(fix).toHaveCount(0);
  for (let i = 0; i < 40 && (await stuck.count()) > 0; i++) await app.forward();
  await expect(stuck).toHaveCount(0);
  await app.screenshot('missing-configmap-fixed');
  expect(app.consoleErrors).toEqual([]);
});

test('the init-containers scenario walks Init:0/2 to Running, then shows Init:CrashLoopBackOff', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('init-containers.yaml');
  for (const status of ['Init:0/2', 'Init:1/2', 'PodInitializing']) {
    const chip = page.locator(`[data-testid="pod"][data-status="${status}"]`);
    while ((await chip.count()) === 0) await app.forward();
    await expect(chip.first()).toContainText(status);
    await expect(chip.first()).toHaveAttribute('aria-label', /not ready/);
  }
  await app.screenshot('init-containers-initializing');
  const looping = page.locator('[data-testid="pod"][data-status="Init:CrashLoopBackOff"]');
  while ((await looping.count()) === 0) await app.forward();
  await expect(looping.first()).toContainText('Init:CrashLoopBackOff');
  await expect(app.eventLog).toContainText('Back-off restarting failed container migrate');
  await app.screenshot('init-containers-crash-loop');
  expect(app.consoleErrors).toEqual([]);
});

test('the spread-over-zones scenario shows each node\'s zone and the pod the spread keeps Pending', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('spread-over-zones.yaml');
  await expect(page.getByTestId('node-zone')).toHaveText(['zone a', 'zone b', 'zone c']);
  // The sixth pod of the scale (the name is fixed by the scenario's seed; see its golden trace).
  const sixth = page.locator('[data-testid="pod"][data-pod="web-5484d9f8d8-hgw7n"]');
  const nodeC = page.locator('[data-testid="node"][data-node="node-c"]');
  while (!((await app.eventLog.textContent()) ?? '').includes('FailedScheduling')) await app.forward();
  await expect(app.eventLog).toContainText(
    "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't match pod topology spread constraints.",
  );
  await expect(app.narration).toContainText('a 2, b 2, c 1. The fewest is 1, so a domain may hold at most 2 with this pod.');
  await expect(sixth).toHaveAttribute('data-status', 'Pending');
  await expect(nodeC).toContainText('Ready,SchedulingDisabled');
  await expect(nodeC).toContainText('1 pod');
  await app.screenshot('spread-over-zones-pending');
  // The uncordon retries the pod and zone c takes it.
  while (!((await nodeC.textContent()) ?? '').includes('2 pods')) await app.forward();
  await expect(app.eventLog).toContainText('Successfully assigned default/web-5484d9f8d8-hgw7n to node-c');
  expect(app.consoleErrors).toEqual([]);
});

test('the six-want-four-ready scenario shows the diagnosis', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('six-want-four-ready.yaml');
  await page.keyboard.press('End');
  while (!(await app.atEnd())) {
    await app.nextStageButton.click();
  }
  await expect(app.diagnosis).toBeVisible();
  await expect(app.diagnosis).toContainText('6 wanted, 4 ready');
  await expect(app.diagnosis).toContainText('kubectl');
  await app.screenshot('six-want-four-ready-diagnosis');
});

test('the controls work from the keyboard alone', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('rolling-update.yaml');
  // Tab from the picker to the step-forward button and press it with Enter and Space.
  await app.scenarioPicker.focus();
  for (let i = 0; i < 20; i++) {
    await page.keyboard.press('Tab');
    if (await app.forwardButton.evaluate((el) => el === document.activeElement)) break;
  }
  await expect(app.forwardButton).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(app.stepCount).toHaveText(/^Step 1 of/);
  await page.keyboard.press('Space');
  await expect(app.stepCount).toHaveText(/^Step 2 of/);
  // Page-wide keys: arrows step, Shift+arrow moves by stage, ? lists the keys.
  await page.keyboard.press('ArrowRight');
  await expect(app.stepCount).toHaveText(/^Step 3 of/);
  await page.keyboard.press('ArrowLeft');
  await expect(app.stepCount).toHaveText(/^Step 2 of/);
  await page.keyboard.press('Shift+ArrowRight');
  expect(await app.position()).toBeGreaterThan(2);
  await page.keyboard.press('?');
  await expect(page.getByTestId('shortcut-help')).toBeVisible();
  await app.screenshot('keyboard-help');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('shortcut-help')).toBeHidden();
  // The stage rail is reachable and operable too.
  await page.getByTestId('stage-4').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('stage-4')).toHaveAttribute('aria-current', 'step');
  // Play and pause from the keyboard.
  await page.getByTestId('stage-4').blur();
  await page.keyboard.press('k');
  await expect(app.playButton).toHaveAttribute('aria-pressed', 'true');
  await page.keyboard.press('k');
  await expect(app.playButton).toHaveAttribute('aria-pressed', 'false');
  // Until the run has gone to its end, the count is of the steps so far; Step forward pressed
  // at the last step hands the focus to the timeline rather than dropping it.
  await expect(app.stepCount).toHaveText(/ so far$/);
  await page.keyboard.press('End');
  await expect(app.stepCount).toHaveText(/end of run$/);
  await page.keyboard.press('ArrowLeft');
  await app.forwardButton.focus();
  await page.keyboard.press('Enter');
  await expect(app.forwardButton).toBeDisabled();
  await expect(page.getByTestId('scrubber')).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await expect(app.stepCount).not.toHaveText(/end of run$/);
  await expect(app.stepCount).not.toHaveText(/so far/);
});

test('every bundled scenario loads and steps without errors', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  const files = await app.scenarioPicker.locator('option').evaluateAll((os) => os.map((o) => o.getAttribute('data-file') ?? ''));
  expect(files.length).toBeGreaterThanOrEqual(13);
  for (const file of files) {
    await app.chooseScenario(file);
    for (let i = 0; i < 8; i++) await app.forward();
    await expect(page.getByTestId('rs-lane').first()).toBeVisible();
  }
  expect(app.consoleErrors).toEqual([]);
});

/** A scenario of `replicas` healthy pods on three nodes, as a v1 link's `yaml` value. */
function bigScenarioLink(replicas: number): string {
  const yaml = [
    'name: big lane',
    'seed: 3',
    'cluster:',
    '  nodes:',
    ...[1, 2, 3].map((i) => `    - {name: node-${i}, cpu: "16", memory: 32Gi, pods: 110}`),
    'deployment:',
    '  apiVersion: apps/v1',
    '  kind: Deployment',
    '  metadata: {name: web}',
    '  spec:',
    `    replicas: ${replicas}`,
    '    selector: {matchLabels: {app: web}}',
    '    template:',
    '      metadata: {labels: {app: web}}',
    '      spec:',
    '        containers:',
    '          - {name: web, image: web:1.0, resources: {requests: {cpu: 10m, memory: 16Mi}}}',
    'run_until: complete',
  ].join('\n');
  return `?v=1&yaml=${Buffer.from(yaml + '\n').toString('base64url')}`;
}

test('a big ReplicaSet shows counts until asked for its chips, and the event log shows its newest line', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto(bigScenarioLink(60));
  await page.getByTestId('to-end').click();
  await expect(app.stepCount).toContainText('end of run');
  const lane = page.getByTestId('rs-lane');
  await expect(lane).toHaveCount(1);
  // Sixty pods are too many for a chip each: the lane counts them by kubectl STATUS.
  await expect(lane.locator('.pod-summary')).toContainText('60 pods (60 ready): 60 Running');
  await expect(lane.getByTestId('pod')).toHaveCount(0);
  await app.screenshot('big-lane-counts');
  await lane.getByRole('button', { name: 'Show all 60 pods' }).click();
  await expect(lane.getByTestId('pod')).toHaveCount(60);
  await expect(lane.getByTestId('pod').first()).toHaveAttribute('data-status', 'Running');
  // The chips stay drawn while stepping back, and follow the pods.
  await app.backButton.click();
  await expect(lane.getByTestId('pod')).not.toHaveCount(0);
  await app.screenshot('big-lane-chips');
  // And the lane folds back to its counts on request.
  await lane.getByRole('button', { name: 'Show counts instead' }).click();
  await expect(lane.getByTestId('pod')).toHaveCount(0);
  await expect(lane.locator('.pod-summary')).toContainText('60 pods');
  // The log is scrolled to its end: its last row is inside the scrolled area.
  const log = app.eventLog.locator('.event-scroll');
  const inView = await log.evaluate((el) => {
    const rows = el.querySelectorAll('[data-testid="event-row"]');
    const last = rows[rows.length - 1].getBoundingClientRect();
    const box = el.getBoundingClientRect();
    return { scrolls: el.scrollHeight > el.clientHeight, lastInView: last.bottom <= box.bottom + 1 && last.top >= box.top - 1 };
  });
  expect(inView).toEqual({ scrolls: true, lastInView: true });
  expect(app.consoleErrors).toEqual([]);
});

test('a tainted node shows its taint, and pods that do not tolerate it stay off it', async ({ page }) => {
  const app = new AppPage(page);
  const yaml = [
    'name: tainted control plane',
    'seed: 1',
    'cluster:',
    '  nodes:',
    '    - {name: control-plane, cpu: "4", taints: ["node-role.kubernetes.io/control-plane:NoSchedule"]}',
    '    - {name: worker, cpu: "2"}',
    'deployment:',
    '  apiVersion: apps/v1',
    '  kind: Deployment',
    '  metadata: {name: web}',
    '  spec:',
    '    replicas: 3',
    '    selector: {matchLabels: {app: web}}',
    '    template:',
    '      metadata: {labels: {app: web}}',
    '      spec:',
    '        containers:',
    '          - {name: web, image: web:1.0, resources: {requests: {cpu: "1"}}}',
    'run_until: 1m',
  ].join('\n');
  await app.goto(`?v=1&yaml=${Buffer.from(yaml + '\n').toString('base64url')}`);
  const cp = page.locator('[data-testid="node"][data-node="control-plane"]');
  await expect(cp.getByTestId('node-taint')).toHaveText('taint node-role.kubernetes.io/control-plane:NoSchedule');
  await page.getByTestId('to-end').click();
  await expect(app.stepCount).toContainText('end of run');
  await expect(cp).toContainText('0 pods');
  await expect(app.eventLog).toContainText('1 node(s) had untolerated taint(s)');
  await app.screenshot('tainted-control-plane');
  expect(app.consoleErrors).toEqual([]);
});

test('a node card taints its node NoExecute, which evicts its pods, and removes the taint', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('rolling-update.yaml');
  await app.scrubTo(40);
  const node = page.locator('[data-testid="node"][data-node="node-1"]');
  const toggle = node.getByTestId('node-taint-toggle');
  await expect(toggle).toHaveText('Taint NoExecute');
  await toggle.click();
  await expect(app.narration).toContainText('node/node-1 tainted');
  await expect(node.getByTestId('node-taint')).toHaveText('taint maintenance=true:NoExecute');
  while (!((await app.eventLog.textContent()) ?? '').includes('TaintManagerEviction')) await app.forward();
  await expect(app.eventLog).toContainText('Marking for deletion Pod default/');
  await app.screenshot('node-tainted-no-execute');
  await expect(toggle).toHaveText('Remove taint');
  await toggle.click();
  await expect(app.narration).toContainText('node/node-1 untainted');
  await expect(node.getByTestId('node-taint')).toHaveCount(0);
  expect(app.consoleErrors).toEqual([]);
});

test('the drain scenario: a node card drains its node, the budget refuses one eviction, and kubectl waits until it is drained', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('drain-for-maintenance.yaml');
  // Every pod is Ready by step 50, so the budget (minAvailable 5 of 6) allows one disruption.
  await app.scrubTo(50);
  const budget = page.getByTestId('kubectl-get-pdb');
  await expect(budget).toContainText('ALLOWED DISRUPTIONS');
  const describeBudget = page.getByTestId('kubectl-describe-pdb');
  await page.locator('summary', { hasText: '$ kubectl describe pdb web' }).click();
  await expect(describeBudget).toContainText('Allowed disruptions:  1');
  const node = page.locator('[data-testid="node"][data-node="node-1"]');
  await expect(node).toContainText('2 pods');
  await node.getByTestId('node-drain').click();
  await expect(app.narration).toContainText('node/node-1 cordoned; evicting pod default/web-');
  await expect(app.narration).toContainText("Cannot evict pod as it would violate the pod's disruption budget.");
  await expect(node).toContainText('Ready,SchedulingDisabled');
  await expect(node.getByTestId('node-drain-status')).toHaveText(
    'kubectl drain waits: 1 evicted pod still terminating; 1 eviction refused by a PodDisruptionBudget, retried every 5 s');
  await app.screenshot('node-drain-refused-by-budget');
  while (!((await app.narration.textContent()) ?? '').includes('node/node-1 drained: the drain is done')) await app.forward();
  await expect(node).toContainText('0 pods');
  await expect(node.getByTestId('node-drain')).toHaveCount(0);
  await expect(node.getByTestId('node-drain-status')).toHaveCount(0);
  await app.screenshot('node-drained');
  expect(app.consoleErrors).toEqual([]);
});

test('the blocked drain scenario: the node card says the budget never allows an eviction, kubectl gives up at its timeout, and a scale-up lets a second drain finish', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('drain-blocked-by-budget.yaml');
  const forwardUntil = async (text: string) => {
    for (let i = 0; i < 200 && !((await app.narration.textContent()) ?? '').includes(text); i++) await app.forward();
    await expect(app.narration).toContainText(text);
  };
  await forwardUntil('node/node-2 cordoned; evicting pod default/web-');
  await expect(app.narration).toContainText('Budget web needs 3 healthy pods of the 3 it expects, so it allows no disruption');
  const node = page.locator('[data-testid="node"][data-node="node-2"]');
  await expect(node.getByTestId('node-drain-status')).toHaveText(
    'kubectl drain waits: 1 eviction refused by a PodDisruptionBudget, retried every 5 s; web allows no disruption at this size; gives up at 1m10s (--timeout)');
  await app.screenshot('node-drain-blocked-by-budget');
  await forwardUntil('global timeout reached: 30s');
  await expect(app.narration).toContainText('error: unable to drain node "node-2"');
  await expect(node.getByTestId('node-drain-status')).toHaveCount(0);
  await expect(node).toContainText('Ready,SchedulingDisabled');
  await expect(node).toContainText('1 pod');
  await app.screenshot('node-drain-timed-out');
  await forwardUntil('node/node-2 drained: the drain is done');
  await expect(node).toContainText('0 pods');
  expect(app.consoleErrors).toEqual([]);
});

test('the page has no serious accessibility violations', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('image-typo.yaml');
  await app.scrubTo(60);
  expect(await seriousViolations(page)).toEqual([]);
});

test('a pod chip describes its pod in the kubectl panel, as the CLI does', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('rolling-update.yaml');
  for (let i = 0; i < 40; i++) await app.forward();
  const chip = page.getByTestId('describe-pod').first();
  const name = (await chip.getAttribute('title'))?.replace('kubectl describe pod ', '') ?? '';
  await chip.click();
  const describe = page.getByTestId('kubectl-describe-pod');
  await expect(describe).toContainText(`Name:             ${name}`);
  await expect(describe).toContainText('QoS Class:');
  await expect(describe).toContainText('Controlled By:  ReplicaSet/');
  await expect(page.getByText(`$ kubectl describe pod ${name}`)).toBeVisible();
  await describe.scrollIntoViewIfNeeded();
  await app.screenshot('describe-pod');
  // Beside it, folded, the same pod as `kubectl get pod -o yaml` prints it.
  await page.getByText(`$ kubectl get pod ${name} -o yaml`).click();
  const yaml = page.getByTestId('kubectl-get-pod-yaml');
  await expect(yaml).toContainText(`apiVersion: v1\nkind: Pod\nmetadata:\n`);
  await expect(yaml).toContainText(`  name: ${name}\n  namespace: default\n`);
  await expect(yaml).toContainText('    - mountPath: /var/run/secrets/kubernetes.io/serviceaccount\n      name: kube-api-access-');
  await expect(yaml).toContainText('  qosClass: Burstable\n');
  await yaml.scrollIntoViewIfNeeded();
  await app.screenshot('get-pod-yaml');
  expect(app.consoleErrors).toEqual([]);
});

test('arrows step from the scenario list and the timeline, and switching scenario asks first', async ({ page }) => {
  const app = new AppPage(page);
  await app.goto();
  await app.chooseScenario('rolling-update.yaml');
  const shown = () => app.scenarioPicker.evaluate((s: HTMLSelectElement) => s.selectedOptions[0]?.dataset.file);
  // With focus left on the list, → and ← step; they do not choose the next scenario.
  await app.scenarioPicker.focus();
  await page.keyboard.press('ArrowRight');
  await expect(app.stepCount).toHaveText(/^Step 1 of/);
  expect(await shown()).toBe('rolling-update.yaml');
  // On the timeline, → steps past the steps found so far and End runs to the end of the run.
  for (let i = 0; i < 11; i++) await app.forward();
  await app.scrubber.focus();
  await page.keyboard.press('ArrowRight');
  await expect(app.stepCount).toHaveText(/^Step 13 of/);
  await page.keyboard.press('End');
  await expect(app.stepCount).toContainText('end of run');
  // Home stays the slider's: the first step, keeping the steps found (starting over would
  // forget them, and ask once there are actions).
  await app.scrubber.focus();
  await page.keyboard.press('Home');
  await expect(app.stepCount).toHaveText(/^Step 0 of [1-9]\d*/);
  // After an action, choosing another scenario asks; declining keeps the run and the list.
  await app.scrubTo(12);
  await page.getByTestId('delete-pod').first().click();
  const at = await app.position();
  page.once('dialog', (d) => d.dismiss());
  const other = await app.scenarioPicker.locator('option[data-file="recreate.yaml"]').getAttribute('value');
  await app.scenarioPicker.selectOption(other ?? '');
  expect(await shown()).toBe('rolling-update.yaml');
  await expect(app.stepCount).toHaveText(new RegExp(`^Step ${at} of`));
  page.once('dialog', (d) => d.accept());
  await app.scenarioPicker.selectOption(other ?? '');
  await expect(app.stepCount).toHaveText(/^Step 0 of/);
  expect(await shown()).toBe('recreate.yaml');
  // An apply made before step 1 is work too: switching away asks.
  await app.editManifest((t) => t.replace(/replicas: \d+/, 'replicas: 7'));
  await app.applyButton.click();
  let asked = 0;
  page.once('dialog', (d) => {
    asked++;
    return d.dismiss();
  });
  const third = await app.scenarioPicker.locator('option[data-file="rolling-update.yaml"]').getAttribute('value');
  await app.scenarioPicker.selectOption(third ?? '');
  expect(asked).toBe(1);
  expect(await shown()).toBe('recreate.yaml');
  await expect(app.manifest).toHaveValue(/replicas: 7/);
  expect(app.consoleErrors).toEqual([]);
});
