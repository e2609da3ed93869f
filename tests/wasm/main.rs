//! Browser tests: the core compiled to wasm32 and run in headless Chromium by
//! `wasm-bindgen-test-runner` (see `scripts/test`).
//!
//! Plain `#[test]` functions are silently skipped on wasm, so every test here is a
//! `#[wasm_bindgen_test]`. The whole file is wasm-only: natively this binary is empty.
#![cfg(target_arch = "wasm32")]

use rolloutscope::sim;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

/// Every bundled scenario runs to a non-empty trace in the browser too.
#[wasm_bindgen_test]
fn bundled_scenarios_trace_in_the_browser() {
    for (name, yaml) in sim::scenario::BUNDLED {
        match sim::trace_text(yaml) {
            Ok(trace) => assert!(!trace.is_empty(), "{name}: the trace is empty"),
            Err(message) => panic!("{name}: {message}"),
        }
    }
}
