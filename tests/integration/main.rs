//! The one native integration-test binary: upstream test vectors, golden traces, property tests
//! and the house rules, each in its own module.

use rolloutscope::sim::engine::Sim;

/// The name of the first pod in name order, or empty when there is none.
fn first_pod(sim: &Sim) -> String {
    sim.store()
        .pods
        .keys()
        .next()
        .map(|k| k.to_string())
        .unwrap_or_default()
}

mod cli;
mod deployment_side;
mod failed_syncs;
mod golden;
mod house_rules;
mod node_side;
mod properties;
mod vectors;
