//! Browser tests: the core compiled to wasm32 and run in headless Chromium by
//! `wasm-bindgen-test-runner` (see `scripts/test`).
//!
//! Plain `#[test]` functions are silently skipped on wasm, so every test here is a
//! `#[wasm_bindgen_test]`. The whole file is wasm-only: natively this binary is empty.
#![cfg(target_arch = "wasm32")]

use rolloutscope::sim;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

/// The native golden traces, compiled in: the browser must produce them byte for byte.
const GOLDEN: &[(&str, &str)] = &[
    (
        "pause-resume.yaml",
        include_str!("../golden/pause-resume.txt"),
    ),
    ("recreate.yaml", include_str!("../golden/recreate.txt")),
    (
        "rolling-update.yaml",
        include_str!("../golden/rolling-update.txt"),
    ),
    (
        "rolling-update-max-surge-0.yaml",
        include_str!("../golden/rolling-update-max-surge-0.txt"),
    ),
    (
        "rollout-undo.yaml",
        include_str!("../golden/rollout-undo.txt"),
    ),
    (
        "scale-during-rollout.yaml",
        include_str!("../golden/scale-during-rollout.txt"),
    ),
    (
        "six-want-four-ready.yaml",
        include_str!("../golden/six-want-four-ready.txt"),
    ),
    ("image-typo.yaml", include_str!("../golden/image-typo.txt")),
    (
        "missing-configmap.yaml",
        include_str!("../golden/missing-configmap.txt"),
    ),
    (
        "readiness-never-passes.yaml",
        include_str!("../golden/readiness-never-passes.txt"),
    ),
    (
        "aggressive-liveness.yaml",
        include_str!("../golden/aggressive-liveness.txt"),
    ),
    (
        "startup-probe-recovers.yaml",
        include_str!("../golden/startup-probe-recovers.txt"),
    ),
    (
        "node-failure.yaml",
        include_str!("../golden/node-failure.txt"),
    ),
    (
        "kubelet-restart.yaml",
        include_str!("../golden/kubelet-restart.txt"),
    ),
    ("crash-loop.yaml", include_str!("../golden/crash-loop.txt")),
    (
        "init-containers.yaml",
        include_str!("../golden/init-containers.txt"),
    ),
    (
        "one-replica-per-node.yaml",
        include_str!("../golden/one-replica-per-node.txt"),
    ),
    (
        "spread-over-zones.yaml",
        include_str!("../golden/spread-over-zones.txt"),
    ),
    (
        "drain-for-maintenance.yaml",
        include_str!("../golden/drain-for-maintenance.txt"),
    ),
    (
        "drain-blocked-by-budget.yaml",
        include_str!("../golden/drain-blocked-by-budget.txt"),
    ),
];

/// Same seed and same inputs give the same trace on wasm as natively: every bundled scenario's
/// trace in the browser equals the golden file the native suite checks.
#[wasm_bindgen_test]
fn bundled_scenarios_trace_exactly_as_natively() {
    assert_eq!(
        GOLDEN.len(),
        sim::scenario::BUNDLED.len(),
        "a bundled scenario has no golden trace here"
    );
    for (name, yaml) in sim::scenario::BUNDLED {
        let golden = GOLDEN
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, g)| *g)
            .unwrap_or_else(|| panic!("{name}: no golden trace in tests/wasm/main.rs"));
        match sim::trace_text(yaml) {
            Ok(trace) => {
                if trace != golden {
                    let line = trace
                        .lines()
                        .zip(golden.lines())
                        .position(|(a, b)| a != b)
                        .map_or_else(|| "length".to_string(), |i| format!("line {}", i + 1));
                    panic!("{name}: the wasm trace differs from the native golden file at {line}");
                }
            }
            Err(message) => panic!("{name}: {message}"),
        }
    }
}

/// Invalid input is rejected with field-path errors, never a panic, in the browser too.
#[wasm_bindgen_test]
fn invalid_scenarios_are_rejected_with_field_paths() {
    let bad = "deployment:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web}\n  spec:\n    replicas: -1\n    selector: {matchLabels: {app: web}}\n    template:\n      metadata: {labels: {app: web}}\n      spec:\n        containers: [{name: web, image: web:1.0}]\n";
    let err = sim::trace_text(bad).expect_err("replicas -1 is invalid");
    assert!(
        err.contains("spec.replicas: Invalid value: -1: must be greater than or equal to 0"),
        "{err}"
    );
}
