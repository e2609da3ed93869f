//! `rolloutscope`: the command-line trace runner. It loads a scenario file and prints the trace
//! the simulator produces — the same core the browser runs — as readable text or JSON lines.

use rolloutscope::sim::scenario::{self, Scenario};
use rolloutscope::sim::view::{ClusterView, StepRecord};
use std::io::{self, Write};
use std::process::ExitCode;

const USAGE: &str = "\
usage: rolloutscope run FILE [--json]

  run FILE     run a scenario file and print one line per step (with the narration and events)
  --json       print one JSON object per step instead (step, time_ms, stage, actor, narration,
               deployment, replica_sets, pods, events)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("{msg}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let Some(cmd) = args.first() else {
        return Err(USAGE.to_string());
    };
    match cmd.as_str() {
        "run" => {
            let mut file = None;
            let mut json = false;
            for a in &args[1..] {
                match a.as_str() {
                    "--json" => json = true,
                    s if s.starts_with('-') => return Err(format!("unknown flag {s}\n\n{USAGE}")),
                    s => file = Some(s.to_string()),
                }
            }
            let file = file.ok_or_else(|| USAGE.to_string())?;
            let scenario = load(&file)?;
            print_run(&scenario, json).map_err(|e| format!("error writing output: {e}"))
        }
        "-h" | "--help" | "help" => {
            println!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unknown command {other:?}\n\n{USAGE}")),
    }
}

/// Reads and parses a scenario, naming the file and line of every problem.
fn load(file: &str) -> Result<Scenario, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    Scenario::parse(&text).map_err(|errs| {
        errs.iter()
            .map(|e| match e.line {
                Some(l) => format!("{file}:{l}: {}", e.message),
                None => format!("{file}: {}", e.message),
            })
            .collect::<Vec<_>>()
            .join("\n")
    })
}

fn print_run(scenario: &Scenario, json: bool) -> io::Result<()> {
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut result = Ok(());
    if !json {
        writeln!(out, "# {}", scenario.name)?;
    }
    let run = scenario::run_with(scenario, |step, sim| {
        if result.is_err() {
            return;
        }
        result = if json {
            serde_json::to_string(&StepRecord::new(step, sim))
                .map_err(io::Error::other)
                .and_then(|line| writeln!(out, "{line}"))
        } else {
            write!(out, "{step}")
                .and_then(|()| writeln!(out, "      = {}", ClusterView::of(sim).summary_line()))
        };
    });
    result?;
    if !json {
        writeln!(out, "# stopped at {}: {}", run.sim.now(), run.stopped)?;
    }
    out.flush()
}
