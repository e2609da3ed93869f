// Browser measurements of the release build in dist/: time to interactive, the latency of a step
// forward, a step back and a scrub at 10, 100 and 1,000 pods, and the time the wasm core takes to
// run the 1,000-replica rollout to its end. A measurement, not a test: it reports numbers against
// budgets and never fails on them. Run through ./scripts/bench, which serves dist/ and passes:
//
//   node tests/bench/measure.mjs --url http://127.0.0.1:PORT [--native-ms MS --native-steps N]
//                                [--native-timeline-ms MS]
//                                [--out target/bench/browser.json] [--profile]
//
// Latencies are taken inside the page with performance.now(): from just before the click or
// input event to the first moment the step count shows the new position and layout is done.
// Leptos applies signal changes to the DOM from a microtask after the handler returns, so the
// script yields one macrotask at a time (a MessageChannel message: setTimeout(0) is clamped to
// 4 ms once nested) until the text changes, then reads offsetHeight to force style and layout.
// Paint is not included: headless Chromium paints on its own schedule.
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';

const args = parseArgs(process.argv.slice(2));
const BASE = args.url ?? 'http://127.0.0.1:8080';
const OUT = args.out ?? 'target/bench/browser.json';
const LOADS = Number(args.loads ?? 5);
const SAMPLES = Number(args.samples ?? 50);
const SIZES = (args.sizes ?? '10,100,1000').split(',').map(Number);
// The "End" run is repeated (Reset, then End) so the wasm figure is a median like the native one.
const END_RUNS = Number(args['end-runs'] ?? 3);
const NATIVE_MS = args['native-ms'] !== undefined ? Number(args['native-ms']) : null;
const DIST = args.dist ?? 'dist';
const NATIVE_STEPS = args['native-steps'] !== undefined ? Number(args['native-steps']) : null;
// The native timeline's jump to the end: the same work as the browser's End handler (the
// rollout plus the snapshots kept for stepping back), so the budget compares like with like.
const NATIVE_TIMELINE_MS =
  args['native-timeline-ms'] !== undefined ? Number(args['native-timeline-ms']) : null;

const BUDGET = { interactiveMs: 500, opP95Ms: 16, wasmOverNative: 2 };

// The same flags as the end-to-end suite: Debian's Chromium in a closed network.
const LAUNCH = {
  executablePath: '/usr/bin/chromium',
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
  ],
};
const VIEWPORT = { width: 1280, height: 720 };

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) throw new Error(`unexpected argument ${a}`);
    const [k, v] = a.slice(2).split('=', 2);
    if (v !== undefined) out[k] = v;
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) out[k] = argv[++i];
    else out[k] = true;
  }
  return out;
}

/** The scenario of benches/rollout.rs's `scenario_yaml`, so the browser and native runs agree. */
function scenarioYaml(replicas) {
  const perNode = 500;
  const nodes = Math.max(Math.ceil((replicas * 2) / perNode), 3);
  const lines = ['name: bench', 'seed: 1', 'cluster:', '  nodes:'];
  for (let i = 0; i < nodes; i++) {
    lines.push(`    - {name: node-${i}, cpu: "64", memory: 256Gi, pods: ${perNode}}`);
  }
  lines.push(
    'images:',
    '  web:1.0: {pull_time: 2s, listen_after: 1s}',
    '  web:2.0: {pull_time: 2s, listen_after: 1s, shutdown: 1s}',
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
    '          - name: web',
    '            image: web:1.0',
    '            resources: {requests: {cpu: 10m, memory: 16Mi}}',
    '            readinessProbe: {tcpSocket: {port: 8080}, periodSeconds: 5}',
    'actions:',
    '  - {at: 60s, set_image: web:2.0}',
    'run_until: complete',
  );
  return lines.join('\n') + '\n';
}

/** The link format v1 of src/ui/link.rs: base64url without padding. */
function scenarioUrl(replicas) {
  return `${BASE}/?v=1&yaml=${Buffer.from(scenarioYaml(replicas)).toString('base64url')}`;
}

function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  // Nearest rank: with 50 samples, p95 is the 48th smallest.
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}

function summarize(samples) {
  const s = [...samples].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: quantile(s, 0.5),
    p95: quantile(s, 0.95),
    min: s[0],
    max: s[s.length - 1],
  };
}

/** A fixed linear congruential sequence: the same scrub targets on every run. */
function* seeded(seed) {
  let x = BigInt(seed);
  const M = 1n << 64n;
  for (;;) {
    x = (x * 6364136223846793005n + 1442695040888963407n) % M;
    yield Number(x >> 33n);
  }
}

async function waitInteractive(page) {
  await page.waitForFunction(
    () => performance.getEntriesByName('rolloutscope-interactive').length > 0,
    null,
    { timeout: 60_000 },
  );
  return page.evaluate(() => performance.getEntriesByName('rolloutscope-interactive')[0].startTime);
}

// Installed in the page once: one timed operation. `act` names what to do; the step count text
// must change (and, for "end", read "end of run") before the clock stops. `handlerMs` is the
// part spent inside dispatchEvent — the click or input handler, which runs the core — and the
// rest is Leptos' DOM update plus style and layout.
const PAGE_HELPERS = () => {
  const tick = () =>
    new Promise((resolve) => {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => resolve();
      ch.port2.postMessage(0);
    });
  const q = (id) => document.querySelector(`[data-testid="${id}"]`);
  window.__bench = {
    q,
    count: () => q('step-count').textContent,
    position: () => Number(/Step (\d+) of (\d+)/.exec(q('step-count').textContent)[1]),
    known: () => Number(/Step (\d+) of (\d+)/.exec(q('step-count').textContent)[2]),
    // Lets the previous operation's frame be produced so its paint is not charged to the next.
    settle: () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))),
    async time(act, arg) {
      const before = q('step-count').textContent;
      const t0 = performance.now();
      if (act === 'scrub') {
        const input = q('scrubber');
        input.value = String(arg);
        input.dispatchEvent(new Event('input', { bubbles: true }));
      } else {
        q(act).click();
      }
      const tHandler = performance.now();
      let ticks = 0;
      for (;;) {
        const text = q('step-count').textContent;
        if (text !== before && (act !== 'to-end' || text.includes('end of run'))) break;
        if (++ticks > 10_000) throw new Error(`${act}: the step count stayed "${before}"`);
        await tick();
      }
      void document.body.offsetHeight;
      const t1 = performance.now();
      return { ms: t1 - t0, handlerMs: tHandler - t0, text: q('step-count').textContent };
    },
  };
};

async function openScenario(browser, replicas) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(scenarioUrl(replicas));
  const interactiveMs = await waitInteractive(page);
  await page.evaluate(PAGE_HELPERS);
  const loaded = await page.evaluate(() => ({
    manifest: window.__bench.q('manifest')?.value ?? '',
    notice: window.__bench.q('notice')?.textContent ?? '',
    count: window.__bench.count(),
  }));
  if (!new RegExp(`replicas: ${replicas}\\b`).test(loaded.manifest) || loaded.notice.trim() !== '') {
    throw new Error(
      `the ${replicas}-pod scenario did not open from its link (notice: ${JSON.stringify(loaded.notice)})`,
    );
  }
  return { context, page, errors, interactiveMs };
}

async function measureInteractive(browser) {
  const samples = [];
  for (let i = 0; i < LOADS; i++) {
    // A new context each time: an empty cache, as on a first visit.
    const context = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    await page.goto(`${BASE}/`);
    samples.push(await waitInteractive(page));
    await context.close();
  }
  return { samples, median: summarize(samples).p50 };
}

async function measureSize(browser, replicas, cdp) {
  const { context, page, errors, interactiveMs } = await openScenario(browser, replicas);
  const time = (act, arg) => page.evaluate(([a, x]) => window.__bench.time(a, x), [act, arg]);
  const settle = () => page.evaluate(() => window.__bench.settle());

  // "End" from step 0 discovers the whole run: the wasm core's run to completion plus the render
  // of the last step. Reset starts a new timeline, so each repeat discovers the run again.
  const endRuns = [];
  for (let r = 0; r < END_RUNS; r++) {
    if (r > 0) {
      await page.evaluate(() => window.__bench.q('reset').click());
      await page.waitForFunction(() => /^Step 0 of 0/.test(window.__bench.count()));
      await settle();
    }
    endRuns.push(await time('to-end'));
    await settle();
  }
  const total = await page.evaluate(() => window.__bench.known());

  // Start from the middle of the run, as someone studying a rollout would.
  const mid = Math.floor(total / 2);
  await time('scrub', mid);
  await settle();

  const ops = { forward: [], back: [], scrub: [] };
  const handler = { forward: [], back: [], scrub: [] };
  const record = (op, r) => {
    ops[op].push(r.ms);
    handler[op].push(r.handlerMs);
  };
  const profile = async (label, body) => {
    if (!cdp || replicas !== Math.max(...SIZES)) return body();
    const session = await context.newCDPSession(page);
    await session.send('Profiler.enable');
    await session.send('Profiler.setSamplingInterval', { interval: 100 });
    await session.send('Profiler.start');
    await body();
    const { profile: p } = await session.send('Profiler.stop');
    cdp.push({ label, profile: p });
    await session.detach();
  };

  const n = Math.min(SAMPLES, Math.max(1, total - mid));
  await profile('step forward', async () => {
    for (let i = 0; i < n; i++) {
      record('forward', await time('step-forward'));
      await settle();
    }
  });
  await profile('step back', async () => {
    for (let i = 0; i < n; i++) {
      record('back', await time('step-back'));
      await settle();
    }
  });
  const targets = seeded(12345);
  await profile('scrub', async () => {
    for (let i = 0; i < SAMPLES; i++) {
      const here = await page.evaluate(() => window.__bench.position());
      let target;
      do target = targets.next().value % (total + 1);
      while (target === here);
      record('scrub', await time('scrub', target));
      await settle();
    }
  });

  const podChips = await page.evaluate(() => document.querySelectorAll('[data-testid="pod"]').length);
  const domNodes = await page.evaluate(() => document.getElementsByTagName('*').length);
  await context.close();
  if (errors.length) console.error(`console errors at ${replicas} pods:\n  ${errors.join('\n  ')}`);
  const endMs = endRuns.map((r) => r.ms);
  const endHandlerMs = endRuns.map((r) => r.handlerMs);
  return {
    replicas,
    steps: total,
    interactive_ms: interactiveMs,
    pod_chips_at_end: podChips,
    dom_elements_at_end: domNodes,
    to_end: {
      runs_ms: endMs,
      median_ms: summarize(endMs).p50,
      handler_median_ms: summarize(endHandlerMs).p50,
    },
    step_forward: { ...summarize(ops.forward), handler_p50: summarize(handler.forward).p50 },
    step_back: { ...summarize(ops.back), handler_p50: summarize(handler.back).p50 },
    scrub: { ...summarize(ops.scrub), handler_p50: summarize(handler.scrub).p50 },
  };
}

/** Frame names of a CPU profile node: the function and, when known, its file. */
function frameName(node) {
  const f = node.callFrame;
  const where = f.url ? path.basename(f.url.split('?')[0]) : '';
  return `${f.functionName || '(anonymous)'}${where ? ` [${where}]` : ''}`;
}

/**
 * Where a CPU profile's time went: self time by function, and inclusive time of the app's own
 * functions (the `rolloutscope::` frames, which name the panel or core call a step spends its
 * time in). The release build strips wasm names, so the second list is empty unless the profiled
 * build kept them.
 */
function profileSummary(profile, limit = 8) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map();
  const inclusive = new Map();
  let totalMs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    totalMs += ms;
    const leaf = byId.get(profile.samples[i]);
    const key = frameName(leaf);
    self.set(key, (self.get(key) ?? 0) + ms);
    // Each app function once per sample, however deep the recursion.
    const seen = new Set();
    for (let id = leaf.id; id !== undefined; id = parent.get(id)) {
      const name = byId.get(id).callFrame.functionName;
      if (!name.includes('rolloutscope::')) continue;
      const short = name.replace(/::h[0-9a-f]{16}$/, '');
      if (seen.has(short)) continue;
      seen.add(short);
      inclusive.set(short, (inclusive.get(short) ?? 0) + ms);
    }
  }
  const top = (m) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([fn, ms]) => ({ fn, ms: +ms.toFixed(1), share: +(ms / totalMs).toFixed(3) }));
  return { total_ms: +totalMs.toFixed(1), top_self: top(self), top_app_inclusive: top(inclusive) };
}

/** When the served build was made: the native bench compiles the working tree, dist/ may be older. */
function distBuilt() {
  try {
    const wasm = fs.readdirSync(DIST).find((f) => f.endsWith('.wasm'));
    return wasm ? fs.statSync(path.join(DIST, wasm)).mtime.toISOString() : null;
  } catch {
    return null;
  }
}

const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '—');
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : '—');
const verdict = (ok) => (ok ? 'PASS' : 'OVER');

async function main() {
  const browser = await chromium.launch(LAUNCH);
  const version = browser.version();
  const profiles = args.profile ? [] : null;
  let interactive;
  const sizes = [];
  try {
    interactive = await measureInteractive(browser);
    for (const n of SIZES) {
      process.stderr.write(`measuring ${n} pods…\n`);
      sizes.push(await measureSize(browser, n, profiles));
    }
  } finally {
    await browser.close();
  }

  const big = sizes.find((s) => s.replicas === 1000) ?? sizes[sizes.length - 1];
  const wasmMs = big.to_end.median_ms;
  const wasmCoreMs = big.to_end.handler_median_ms;
  const ratio = NATIVE_MS ? wasmMs / NATIVE_MS : null;
  const coreRatio = NATIVE_MS ? wasmCoreMs / NATIVE_MS : null;
  const sameWorkRatio = NATIVE_TIMELINE_MS ? wasmCoreMs / NATIVE_TIMELINE_MS : null;
  const budgetRatio = sameWorkRatio ?? ratio;

  const budgets = [
    {
      name: 'interactive (median of fresh loads)',
      value: interactive.median,
      unit: 'ms',
      budget: `< ${BUDGET.interactiveMs} ms`,
      pass: interactive.median < BUDGET.interactiveMs,
    },
    ...['step_forward', 'step_back', 'scrub'].map((op) => ({
      name: `${op.replace('_', ' ')} p95 at ${big.replicas} pods`,
      value: big[op].p95,
      unit: 'ms',
      budget: `< ${BUDGET.opP95Ms} ms`,
      pass: big[op].p95 < BUDGET.opP95Ms,
    })),
  ];
  if (budgetRatio !== null) {
    budgets.push({
      name: `wasm/native, ${big.replicas} replicas to completion`,
      value: budgetRatio,
      unit: '×',
      budget: `< ${BUDGET.wasmOverNative}×`,
      pass: budgetRatio < BUDGET.wasmOverNative,
    });
  }

  const result = {
    date: new Date().toISOString(),
    chromium: version,
    url: BASE,
    dist_built: distBuilt(),
    interactive_ms: interactive,
    sizes,
    native:
      NATIVE_MS === null
        ? null
        : {
            what: 'scenario::run_with (the command-line runner), median of 7, cargo bench --bench rollout',
            run_ms: NATIVE_MS,
            steps: NATIVE_STEPS,
            timeline_end_ms: NATIVE_TIMELINE_MS,
          },
    wasm: {
      what: 'End button from step 0: Session::run_to_end (Timeline::seek, with a snapshot every 8 steps) plus the render of the last step',
      run_ms: wasmMs,
      core_in_handler_ms: wasmCoreMs,
      steps: big.steps,
    },
    wasm_over_native: ratio,
    wasm_core_over_native: coreRatio,
    wasm_core_over_native_timeline: sameWorkRatio,
    budgets,
    profiles: profiles?.map((p) => ({ during: p.label, ...profileSummary(p.profile) })),
  };
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, JSON.stringify(result, null, 2) + '\n');
  if (profiles) {
    for (const p of profiles) {
      const file = path.join(path.dirname(OUT), `profile-${p.label.replace(/\s+/g, '-')}.cpuprofile`);
      fs.writeFileSync(file, JSON.stringify(p.profile));
    }
  }

  // The table.
  const out = [];
  out.push(`RolloutScope in the browser (Chromium ${version}), ${BASE}; ${DIST}/ built ${result.dist_built ?? '?'}`);
  if (profiles) out.push(`(profiling: the ${big.replicas}-pod latencies include the sampling profiler's overhead)`);
  out.push('');
  out.push(
    `Interactive after navigation: median ${f1(interactive.median)} ms of ${LOADS} fresh loads ` +
      `(${interactive.samples.map(f1).join(', ')})`,
  );
  out.push('');
  out.push('Latency, click/input to step count updated and layout done (ms; handler = core inside the event):');
  out.push('  pods  steps  operation      n    p50    p95    max   handler p50');
  for (const s of sizes) {
    for (const [op, label] of [
      ['step_forward', 'step forward'],
      ['step_back', 'step back'],
      ['scrub', 'scrub'],
    ]) {
      const m = s[op];
      out.push(
        `  ${String(s.replicas).padStart(4)}  ${String(s.steps).padStart(5)}  ${label.padEnd(13)} ` +
          `${String(m.n).padStart(2)} ${f2(m.p50).padStart(6)} ${f2(m.p95).padStart(6)} ` +
          `${f2(m.max).padStart(6)}   ${f2(m.handler_p50).padStart(6)}`,
      );
    }
  }
  out.push('');
  out.push('Run to the end ("End" from step 0, median of runs; handler = the core\'s Timeline run):');
  for (const s of sizes) {
    out.push(
      `  ${String(s.replicas).padStart(4)} pods: ${f1(s.to_end.median_ms).padStart(8)} ms ` +
        `(handler ${f1(s.to_end.handler_median_ms)} ms, render ${f1(s.to_end.median_ms - s.to_end.handler_median_ms)} ms; ` +
        `${s.steps} steps; runs ${s.to_end.runs_ms.map(f1).join(', ')})`,
    );
  }
  if (NATIVE_MS !== null) {
    out.push(
      `  native scenario::run_with, ${big.replicas} replicas: ${f1(NATIVE_MS)} ms (${NATIVE_STEPS ?? '?'} steps)`,
    );
    if (NATIVE_TIMELINE_MS !== null) {
      out.push(
        `  native Timeline jump to the end (the same work as End's handler): ${f1(NATIVE_TIMELINE_MS)} ms`,
      );
      out.push(`  wasm/native, same work: ${f2(sameWorkRatio)}× (End's handler against the native timeline)`);
    }
    out.push(
      `  against run_with: ${f2(ratio)}× for End (core and render); ${f2(coreRatio)}× for the core alone ` +
        '(the timeline also keeps a snapshot every 8 steps; run_with does not)',
    );
  } else {
    out.push('  native: skipped (--no-native)');
  }
  out.push('');
  out.push('Budgets:');
  for (const b of budgets) {
    out.push(
      `  ${verdict(b.pass)}  ${b.name.padEnd(40)} ${(b.unit === '×' ? f2(b.value) : f1(b.value)).padStart(8)} ${b.unit}  (${b.budget})`,
    );
  }
  if (profiles) {
    out.push('');
    out.push(`CPU profile at ${big.replicas} pods (.cpuprofile files in ${path.dirname(OUT)}/):`);
    for (const p of result.profiles) {
      out.push(`  during ${p.during} (${f1(p.total_ms)} ms sampled), self time:`);
      for (const t of p.top_self) {
        out.push(`    ${(t.share * 100).toFixed(1).padStart(5)}%  ${t.fn}`);
      }
      if (p.top_app_inclusive.length) {
        out.push('   app functions, inclusive time:');
        for (const t of p.top_app_inclusive) {
          out.push(`    ${(t.share * 100).toFixed(1).padStart(5)}%  ${t.fn}`);
        }
      }
    }
  }
  out.push('');
  out.push(`JSON: ${OUT}`);
  console.log(out.join('\n'));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
