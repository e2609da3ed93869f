//! The simulated control plane: a pure, deterministic model of a Kubernetes namespace in which a
//! Deployment is reconciled step by step.
//!
//! Nothing in here reads a clock, touches a browser API or uses ambient randomness: time is the
//! logical [`api::Time`], randomness comes from the one seeded generator inside the simulator,
//! and every map that is iterated is a `BTreeMap`.

pub mod api;
pub mod chunked;
pub mod commands;
pub mod controller;
pub mod diagnosis;
pub mod drain;
pub mod engine;
pub mod fingerprint;
pub mod kubectl;
pub mod kubectl_yaml;
pub mod kubelet;
pub mod label_query;
pub mod manifest;
pub mod order;
pub mod recorder;
pub mod rng;
pub mod scenario;
pub mod store;
pub mod three_way;
pub mod timeline;
pub mod trace;
pub mod validation;
pub mod view;
pub mod yaml;

use std::fmt;

/// The two printed forms of a run, as `rolloutscope run` prints them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    /// The readable trace (the golden format): a `# name` header, each step followed by a
    /// one-line summary of the state it left, and a closing line saying why the run stopped.
    Text,
    /// One [`view::StepRecord`] JSON object per step, one per line, and nothing else.
    JsonLines,
}

/// Runs `scenario` to its end and writes its trace to `out` as each step is taken, so a long
/// run streams instead of being held whole. The command-line runner and the JavaScript module
/// both print through here, which keeps their outputs identical.
///
/// # Errors
/// The first error `out` returns (or a step record that fails to serialize); nothing more is
/// written after it, though the run itself still goes to its end, since it cannot fail.
pub fn write_trace(
    scenario: &scenario::Scenario,
    format: TraceFormat,
    out: &mut impl fmt::Write,
) -> fmt::Result {
    if format == TraceFormat::Text {
        writeln!(out, "# {}", scenario.name)?;
    }
    let mut result = Ok(());
    let run = scenario::run_with(scenario, |step, sim| {
        if result.is_err() {
            return;
        }
        result = match format {
            TraceFormat::Text => write!(out, "{step}")
                .and_then(|()| writeln!(out, "      = {}", view::ClusterView::summary_of(sim))),
            TraceFormat::JsonLines => serde_json::to_string(&view::StepRecord::new(step, sim))
                .map_err(|_| fmt::Error)
                .and_then(|line| writeln!(out, "{line}")),
        };
    });
    result?;
    if format == TraceFormat::Text {
        writeln!(out, "# stopped at {}: {}", run.stopped_at, run.stopped)?;
        // An action after `run_until` is allowed (a run may stop early to look at a moment),
        // but its author should know it never ran. The first action is the Deployment's own
        // creation, not one of the file's.
        if let scenario::RunUntil::At(end) = scenario.run_until {
            for (i, a) in scenario.actions.iter().enumerate().skip(1) {
                if a.at > end {
                    writeln!(
                        out,
                        "# never ran: actions[{}] at {} ({}) is after run_until {end}",
                        i - 1,
                        a.at,
                        a.command.describe()
                    )?;
                }
            }
        }
    }
    Ok(())
}

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
    let mut out = String::new();
    write_trace(&scenario, TraceFormat::Text, &mut out).map_err(|e| e.to_string())?;
    Ok(out)
}
