// The JavaScript module (target/js/, built by scripts/build-js) in Node: `run` prints exactly what
// the native runner prints, refuses bad scenarios and options with their problems, and is
// deterministic; `validate` answers as the API server would.
//
// Run with `node --test tests/node/` after ./scripts/build-js (scripts/test does both).
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { initSync, run, validate } from '../../target/js/rolloutscope.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (file) => readFileSync(new URL(file, new URL('../../', import.meta.url)), 'utf8');

const rollingUpdate = read('scenarios/rolling-update.yaml');

// A scenario with one problem: replicas -1 on line 6.
const badScenario = `deployment:
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    replicas: -1
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers: [{name: web, image: web:1.0}]
`;

// A manifest as a person would write it; `replicas` is on line 6.
const manifest = (replicas) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: web:1.0
`;

// The native runner's JSON lines, the same file the e2e phase writes. Produced afresh rather than
// reused, so a trace left from an older build can never pass or fail this suite.
let nativeLines;
before(() => {
  initSync({ module: readFileSync(new URL('../../target/js/rolloutscope_bg.wasm', import.meta.url)) });
  const jsonl = execFileSync(
    'cargo',
    ['run', '--quiet', '--no-default-features', '--bin', 'rolloutscope', '--',
      'run', 'scenarios/rolling-update.yaml', '--json'],
    { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  mkdirSync(new URL('../../target/e2e/', import.meta.url), { recursive: true });
  writeFileSync(new URL('../../target/e2e/rolling-update.jsonl', import.meta.url), jsonl);
  nativeLines = jsonl.trimEnd().split('\n');
});

test('run returns one object per step, each exactly the native --json line', () => {
  const steps = run(rollingUpdate);
  assert.ok(Array.isArray(steps));
  assert.equal(steps.length, nativeLines.length);
  assert.deepEqual(steps.map((step) => JSON.stringify(step)), nativeLines);
});

test("run with format 'text' returns the golden trace", () => {
  assert.equal(run(rollingUpdate, { format: 'text' }), read('tests/golden/rolling-update.txt'));
});

test('run is deterministic', () => {
  assert.deepEqual(run(rollingUpdate), run(rollingUpdate));
  assert.equal(run(rollingUpdate, { format: 'text' }), run(rollingUpdate, { format: 'text' }));
});

test("the seed option replaces the scenario's seed", () => {
  // rolling-update.yaml says `seed: 7`.
  const text = run(rollingUpdate, { format: 'text' });
  assert.equal(run(rollingUpdate, { format: 'text', seed: 7 }), text);
  assert.equal(run(rollingUpdate, { format: 'text', seed: 7n }), text);
  assert.notEqual(run(rollingUpdate, { format: 'text', seed: 8 }), text);
});

test('run throws an Error listing an invalid scenario\'s problems with field paths', () => {
  assert.throws(
    () => run(badScenario),
    (error) => {
      assert.ok(error instanceof Error);
      assert.match(
        error.message,
        /^line 6: spec\.replicas: Invalid value: -1: must be greater than or equal to 0$/m,
      );
      assert.ok(
        error.problems.some((p) => p.line === 6 && p.field.endsWith('spec.replicas')),
        JSON.stringify(error.problems),
      );
      return true;
    },
  );
});

test('run refuses options it does not know', () => {
  assert.throws(() => run(rollingUpdate, { sed: 7 }), TypeError);
  assert.throws(() => run(rollingUpdate, { format: 'yaml' }), TypeError);
  assert.throws(() => run(rollingUpdate, { seed: -1 }), TypeError);
  assert.throws(() => run(rollingUpdate, { seed: 1.5 }), TypeError);
  assert.throws(() => run(rollingUpdate, { seed: 2 ** 64 }), TypeError);
  assert.throws(() => run(rollingUpdate, { seed: 2n ** 64n }), TypeError);
  assert.throws(() => run(rollingUpdate, 'text'), TypeError);
});

test('validate returns no problems for a valid manifest', () => {
  assert.deepEqual(validate(manifest(3)), []);
});

test('validate returns the API server\'s error, at its line, for replicas -1', () => {
  assert.deepEqual(validate(manifest(-1)), [
    {
      line: 6,
      field: 'spec.replicas',
      message: 'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    },
  ]);
});

test('validate reports YAML syntax errors too', () => {
  const problems = validate('spec: [unclosed\n');
  assert.equal(problems.length, 1);
  assert.equal(typeof problems[0].line, 'number');
  assert.equal(problems[0].field, '');
});
