//! The one native integration-test binary: upstream test vectors, golden traces, property tests
//! and the house rules, each in its own module.

mod cli;
mod deployment_side;
mod failed_syncs;
mod golden;
mod house_rules;
mod node_side;
mod properties;
mod vectors;
