//! The simulated control plane: a pure, deterministic model of a Kubernetes namespace in which a
//! Deployment is reconciled step by step.
//!
//! Nothing in here reads a clock, touches a browser API or uses ambient randomness: time is the
//! logical [`api::Time`], randomness comes from the one seeded generator inside the simulator,
//! and every map that is iterated is a `BTreeMap`.

pub mod api;
pub mod commands;
pub mod controller;
pub mod diagnosis;
pub mod engine;
pub mod kubectl;
pub mod kubelet;
pub mod manifest;
pub mod rng;
pub mod scenario;
pub mod store;
pub mod timeline;
pub mod trace;
pub mod validation;
pub mod view;
pub mod yaml;

/// Runs a scenario file's text to its end and returns the readable trace: each step followed by
/// a one-line summary of the state it left.
///
/// # Errors
/// The scenario's problems, one per line, when the text is not a valid scenario.
pub fn trace_text(scenario_yaml: &str) -> Result<String, String> {
    let scenario = scenario::Scenario::parse(scenario_yaml).map_err(|errs| {
        errs.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    })?;
    let mut out = format!("# {}\n", scenario.name);
    let run = scenario::run_with(&scenario, |step, sim| {
        out.push_str(&step.to_string());
        out.push_str("      = ");
        out.push_str(&view::ClusterView::summary_of(sim));
        out.push('\n');
    });
    out.push_str(&format!(
        "# stopped at {}: {}\n",
        run.sim.now(),
        run.stopped
    ));
    Ok(out)
}
