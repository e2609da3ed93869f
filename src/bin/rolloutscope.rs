//! `rolloutscope`: the command-line trace runner. It loads a scenario file and prints the trace
//! the simulator produces — the same core the browser runs — as readable text or JSON lines.

use rolloutscope::sim::api::Time;
use rolloutscope::sim::diagnosis;
use rolloutscope::sim::engine::Sim;
use rolloutscope::sim::kubectl::{self, EventSortBy, Moment, Resource};
use rolloutscope::sim::kubectl_yaml;
use rolloutscope::sim::scenario::{self, Scenario};
use rolloutscope::sim::trace::Step;
use rolloutscope::sim::{self, TraceFormat};
use std::fmt;
use std::io::{self, Write};
use std::process::ExitCode;

const USAGE: &str = "\
usage: rolloutscope run FILE [--json]
       rolloutscope diagnose FILE [--at TIME] [--json]
       rolloutscope kubectl FILE [--at TIME] -- KUBECTL-ARGS

  run FILE       run a scenario file and print one block per step (with the narration and events)
    --json       print one JSON object per step instead (step, time_ms, stage, actor, object,
                 narration, deployment, replica_sets, pods, events)
  diagnose FILE  explain why the Deployment has fewer ready replicas than it wants: the kubectl
                 commands an engineer would run, what each shows, and a verdict
    --json       print the diagnosis as one JSON object
  kubectl FILE   print what kubectl would print, for these KUBECTL-ARGS:
                   get deploy,rs,pods [-o wide]     (any of deploy, rs, pods, events, nodes, pdb)
                   get TYPE NAME… | TYPE/NAME… [-o wide]   (just those objects)
                   get deploy|rs|pods [NAME…] -o yaml|json   (the stored objects, as kubectl prints them)
                   get events [--field-selector type=Warning] [--sort-by=.lastTimestamp] [-o wide]
                   events                           (kubectl events: by the time last seen)
                   rollout status deploy/NAME [--watch=false] [--timeout=D] [--revision=N]
                                     (watches as kubectl does: a line for every change
                                      of the Deployment until the rollout is done, past
                                      its deadline or D; a failure goes to stderr, exit 1)
                   rollout history deploy/NAME [--revision N]
                   describe pod NAME
                   describe deploy NAME
                   describe rs NAME
                   describe node [NAME]             (every node without a name)
                   describe pdb NAME
                                    (a NAME that names nothing describes every object
                                     of the type whose name starts with it)
  --at TIME      run the scenario until this simulated time (30s, 2m, 1m30s) first; without it,
                 until the scenario's run_until";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("{msg}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<ExitCode, String> {
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
            print_run(&scenario, json)
                .map(|()| ExitCode::SUCCESS)
                .map_err(|e| format!("error writing output: {e}"))
        }
        "diagnose" => {
            let opts = Options::parse(&args[1..])?;
            if !opts.rest.is_empty() {
                return Err(format!("unexpected arguments {:?}\n\n{USAGE}", opts.rest));
            }
            let scenario = load(&opts.file)?;
            let (sim, steps, now) = run_to(&scenario, opts.at);
            let d = diagnosis::diagnose_at(&sim, &steps, &scenario.deployment.metadata.name, now);
            if opts.json {
                let line = serde_json::to_string(&d).map_err(|e| format!("error: {e}"))?;
                emit(&format!("{line}\n"))?;
            } else {
                emit(&d.to_string())?;
            }
            Ok(ExitCode::SUCCESS)
        }
        "kubectl" => {
            let opts = Options::parse(&args[1..])?;
            if opts.json {
                return Err(format!("--json is not a kubectl option here\n\n{USAGE}"));
            }
            // kubectl reports a command that failed (a rollout past its progress deadline, an
            // object that does not exist, a flag it refuses) on stderr and exits 1; a command
            // RolloutScope does not answer is a usage error of its own.
            let is_kubectl_error =
                |text: &str| text.starts_with("error: ") || text.starts_with("Error from server");
            let scenario = load(&opts.file)?;
            let (mut sim, steps, now) = run_to(&scenario, opts.at);
            let watch = match rollout_status_watch_args(&opts.rest) {
                Ok(watch) => watch,
                Err(e) if is_kubectl_error(&e) => {
                    eprintln!("{e}");
                    return Ok(ExitCode::FAILURE);
                }
                Err(e) => return Err(e),
            };
            if let Some(watch) = watch {
                // Watching, kubectl's default: the lines go to stdout as they come, and a
                // failure to stderr after them.
                // The watch lasts until its --timeout, or the end of the scenario if sooner.
                let last = scenario.time_limit().max(now);
                let (until, timeout) = match watch.timeout.map(|t| Time(now.0.saturating_add(t.0)))
                {
                    Some(end) if end <= last => (end, true),
                    _ => (last, false),
                };
                let (text, end) = kubectl::rollout_status_watch(
                    &mut sim,
                    watch.name,
                    watch.revision,
                    until,
                    timeout,
                );
                emit(&text)?;
                return match end {
                    Ok(()) => Ok(ExitCode::SUCCESS),
                    Err(e) => {
                        eprintln!("{e}");
                        Ok(ExitCode::FAILURE)
                    }
                };
            }
            let m = Moment::new(&sim, &steps).at(now);
            let text = match kubectl_command(&m, &opts.rest) {
                Ok(text) => text,
                Err(e) if is_kubectl_error(&e) => {
                    eprintln!("{e}");
                    return Ok(ExitCode::FAILURE);
                }
                Err(e) => return Err(e),
            };
            if is_kubectl_error(&text) {
                eprint!("{text}");
                return Ok(ExitCode::FAILURE);
            }
            emit(&text)?;
            Ok(ExitCode::SUCCESS)
        }
        "-h" | "--help" | "help" => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        other => Err(format!("unknown command {other:?}\n\n{USAGE}")),
    }
}

/// Writes to stdout; a closed pipe (`| head`) ends the output quietly instead of panicking.
fn emit(text: &str) -> Result<(), String> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            Err(format!("error writing output: {e}"))
        }
        _ => Ok(()),
    }
}

/// The flags `diagnose` and `kubectl` share: the file, `--at`, `--json`, and what follows `--`.
struct Options {
    file: String,
    at: Option<Time>,
    json: bool,
    rest: Vec<String>,
}

impl Options {
    fn parse(args: &[String]) -> Result<Options, String> {
        let mut file = None;
        let mut at = None;
        let mut json = false;
        let mut rest = Vec::new();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--" => {
                    rest.extend(it.by_ref().cloned());
                }
                "--json" => json = true,
                "--at" => {
                    let v = it
                        .next()
                        .ok_or_else(|| format!("--at needs a time, e.g. --at 2m\n\n{USAGE}"))?;
                    at = Some(parse_at(v)?);
                }
                s if s.starts_with("--at=") => at = Some(parse_at(&s[5..])?),
                s if s.starts_with('-') => return Err(format!("unknown flag {s}\n\n{USAGE}")),
                s if file.is_none() => file = Some(s.to_string()),
                s => rest.push(s.to_string()),
            }
        }
        let file = file.ok_or_else(|| USAGE.to_string())?;
        Ok(Options {
            file,
            at,
            json,
            rest,
        })
    }
}

fn parse_at(v: &str) -> Result<Time, String> {
    let ms = scenario::parse_duration(&serde_json::Value::String(v.to_string()))
        .map_err(|e| format!("--at: {e}"))?;
    if ms > scenario::MAX_RUN_MS {
        return Err(format!(
            "--at: {v} is longer than RolloutScope simulates (at most 24h)"
        ));
    }
    Ok(Time(ms))
}

/// Runs the scenario to `at` (or to its `run_until`), returning the simulator, the steps taken
/// and the moment to look at.
fn run_to(scenario: &Scenario, at: Option<Time>) -> (Sim, Vec<Step>, Time) {
    match at {
        None => {
            let run = scenario::run_with(scenario, |_, _| {});
            let now = match scenario.run_until {
                scenario::RunUntil::At(t) => t.max(run.sim.now()),
                scenario::RunUntil::Complete => run.sim.now(),
            };
            (run.sim, run.steps, now)
        }
        Some(at) => {
            let mut sim = scenario.sim();
            let mut steps = Vec::new();
            while let Some(step) = sim.step_until(at) {
                steps.push(step);
            }
            (sim, steps, at)
        }
    }
}

/// The kubectl subset RolloutScope answers, at one moment.
fn kubectl_command(m: &Moment<'_>, args: &[String]) -> Result<String, String> {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    let usage = || {
        format!(
            "unsupported kubectl command {:?}: RolloutScope answers get deploy,rs,pods[,events][,nodes][,pdb] [-o wide], get TYPE NAME… or TYPE/NAME… [-o wide], get deploy|rs|pods [NAME…] -o yaml|json, get events [--field-selector type=Warning] [--sort-by=.lastTimestamp], events, rollout status deploy/NAME [--watch=false] [--timeout=D] [--revision=N], rollout history deploy/NAME, describe pod NAME, describe deploy NAME, describe rs NAME, describe node [NAME], describe pdb NAME",
            words.join(" ")
        )
    };
    match words.as_slice() {
        ["get", kinds, flags @ ..] => {
            let mut wide = false;
            let mut object_output = None;
            let mut warnings_only = false;
            let mut sort_by = None;
            let mut names: Vec<&str> = Vec::new();
            let mut flags = flags.iter();
            while let Some(f) = flags.next() {
                match *f {
                    name if !name.starts_with('-') => names.push(name),
                    "-o" => match flags.next() {
                        Some(&"wide") => wide = true,
                        Some(&"yaml") => object_output = Some(kubectl_yaml::Output::Yaml),
                        Some(&"json") => object_output = Some(kubectl_yaml::Output::Json),
                        other => {
                            return Err(format!(
                                "error: unsupported output format {:?} (only -o wide, -o yaml or -o json)",
                                other.unwrap_or(&"")
                            ));
                        }
                    },
                    "-owide" | "-o=wide" | "--output=wide" => wide = true,
                    "-oyaml" | "-o=yaml" | "--output=yaml" => {
                        object_output = Some(kubectl_yaml::Output::Yaml);
                    }
                    "-ojson" | "-o=json" | "--output=json" => {
                        object_output = Some(kubectl_yaml::Output::Json);
                    }
                    "--field-selector" => match flags.next() {
                        Some(&"type=Warning") => warnings_only = true,
                        other => {
                            return Err(format!(
                                "error: unsupported field selector {:?} (only type=Warning)",
                                other.unwrap_or(&"")
                            ));
                        }
                    },
                    "--field-selector=type=Warning" => warnings_only = true,
                    f if f == "--sort-by" || f.starts_with("--sort-by=") => {
                        let path = match f.strip_prefix("--sort-by=") {
                            Some(p) => p,
                            None => flags.next().copied().unwrap_or(""),
                        };
                        sort_by = Some(EventSortBy::parse(path).ok_or_else(|| {
                            format!(
                                "error: unsupported --sort-by {path:?} (RolloutScope sorts events by .lastTimestamp, .firstTimestamp, .metadata.creationTimestamp or .count)"
                            )
                        })?);
                    }
                    _ => return Err(usage()),
                }
            }
            let resource = |k: &str| {
                Resource::parse(k).ok_or_else(|| {
                    format!(
                        "error: the server doesn't have a resource type {k:?} (RolloutScope knows deploy, rs, pods, events, nodes)"
                    )
                })
            };
            if let Some(output) = object_output {
                if warnings_only || sort_by.is_some() || wide {
                    return Err(
                        "error: -o yaml and -o json take no other output flag here".to_string()
                    );
                }
                let requests: Vec<(Resource, Option<&str>)> =
                    if kinds.contains('/') || !names.is_empty() {
                        named_requests(kinds, &names, resource)?
                            .into_iter()
                            .map(|(r, n)| (r, Some(n)))
                            .collect()
                    } else {
                        kinds
                            .split(',')
                            .map(|k| resource(k).map(|r| (r, None)))
                            .collect::<Result<_, _>>()?
                    };
                let (printed, missing) = kubectl_yaml::get_as(m, &requests, output)?;
                if missing.is_empty() {
                    return Ok(printed);
                }
                emit(&printed)?;
                return Err(missing.join("\n"));
            }
            // Named objects: `get TYPE NAME…` or `get TYPE/NAME…`, as kubectl takes them.
            if kinds.contains('/') || !names.is_empty() {
                let requests = named_requests(kinds, &names, resource)?;
                if warnings_only || sort_by.is_some() {
                    return Err(
                        "error: --field-selector and --sort-by are supported for listing events only"
                            .to_string(),
                    );
                }
                let (listed, missing) = kubectl::get_named(m, &requests, wide);
                if missing.is_empty() {
                    return Ok(listed);
                }
                // kubectl prints what it found, then an error for each name that names nothing.
                emit(&listed)?;
                return Err(missing.join("\n"));
            }
            let mut resources = Vec::new();
            for k in kinds.split(',') {
                resources.push(resource(k)?);
            }
            let listed = if warnings_only {
                if resources != [Resource::Events] {
                    return Err(
                        "error: --field-selector type=Warning is supported for events only"
                            .to_string(),
                    );
                }
                kubectl::get_warning_events(m, sort_by, wide)
            } else if sort_by.is_some() {
                if resources != [Resource::Events] {
                    return Err("error: --sort-by is supported for events only".to_string());
                }
                kubectl::get_events_sorted(m, sort_by, wide)
            } else {
                kubectl::get(m, &resources, wide)
            };
            // Finding nothing is no failure, and kubectl says so on stderr only.
            if listed.is_empty() {
                eprintln!("{}", kubectl::NO_RESOURCES);
            }
            Ok(listed)
        }
        ["rollout", "status", ..] => match rollout_status_args(&words[2..])? {
            StatusArgs {
                name,
                watch: false,
                revision,
                ..
            } => Ok(kubectl::rollout_status_now(m.sim, name, revision)),
            // Watching is answered before the moment is fixed (`rollout_status_watch_args`).
            _ => Err(usage()),
        },
        // A name that matches no object is taken as a prefix, as kubectl takes it.
        ["describe", "pod" | "pods" | "po", name] => {
            let pods = m.sim.store().pods.keys().map(|k| &**k);
            kubectl::describe_by_prefix(pods, name, |n| kubectl::describe_pod(m, n))
        }
        ["describe", "deployment" | "deployments" | "deploy", name] => {
            let deployments = m.sim.store().deployments.keys().map(String::as_str);
            kubectl::describe_by_prefix(deployments, name, |n| kubectl::describe_deployment(m, n))
        }
        ["describe", "replicaset" | "replicasets" | "rs", name] => {
            let rss = m.sim.store().replica_sets.keys().map(String::as_str);
            kubectl::describe_by_prefix(rss, name, |n| kubectl::describe_replica_set(m, n))
        }
        ["describe", "node" | "nodes" | "no", name] => {
            let nodes = m.sim.store().nodes.keys().map(String::as_str);
            kubectl::describe_by_prefix(nodes, name, |n| kubectl::describe_node(m, n))
        }
        ["describe", "node" | "nodes" | "no"] => Ok(kubectl::describe_nodes(m)),
        [
            "describe",
            "pdb" | "pdbs" | "poddisruptionbudget" | "poddisruptionbudgets",
            name,
        ] => {
            let budgets = m.sim.store().pdbs.keys().map(String::as_str);
            kubectl::describe_by_prefix(budgets, name, |n| {
                kubectl::describe_disruption_budget(m, n)
            })
        }
        // `kubectl events` says it found none on stderr and still succeeds.
        ["events"] => Ok(kubectl::events(m).unwrap_or_else(|none| {
            eprintln!("{none}");
            String::new()
        })),
        ["rollout", "history", rest @ ..] => {
            // The Deployment as `deploy/NAME` or `deploy NAME`, and `--revision=N` or
            // `--revision N` anywhere after `history`.
            let mut names = Vec::new();
            let mut revision = None;
            let mut words = rest.iter();
            while let Some(w) = words.next() {
                let value = match *w {
                    "--revision" => Some(words.next().copied().unwrap_or("")),
                    _ => w.strip_prefix("--revision="),
                };
                match value {
                    Some(v) => {
                        revision = Some(v.parse::<i64>().map_err(|_| {
                            format!("error: invalid argument {v:?} for \"--revision\" flag")
                        })?);
                    }
                    None => names.push(*w),
                }
            }
            if let Some(refusal) = no_history_for_kind(m, &names) {
                return Err(refusal);
            }
            let name = named_deployment(&names).ok_or_else(usage)??;
            kubectl::rollout_history(m.sim, name, revision)
        }
        _ => Err(usage()),
    }
}

/// kubectl's refusal of a type given both as a word and in `TYPE/NAME` form.
const MIXED_FORMS: &str = "error: there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'";

/// The objects `get` names: `TYPE NAME…` (one type; `kinds` is the type) or `TYPE/NAME…`
/// (every word in that form), refused as kubectl refuses a mix of the two.
fn named_requests<'a>(
    kinds: &'a str,
    names: &[&'a str],
    resource: impl Fn(&str) -> Result<Resource, String>,
) -> Result<Vec<(Resource, &'a str)>, String> {
    let pair = |word: &'a str| -> Result<(Resource, &'a str), String> {
        match word.split_once('/') {
            Some((kind, name)) if !name.is_empty() => {
                let r = resource(kind)?;
                Ok((r, name))
            }
            _ => Err(format!(
                "error: arguments in resource/name form must have a single resource and name (got {word:?})"
            )),
        }
    };
    let requests: Vec<(Resource, &str)> = if kinds.contains('/') {
        if names.iter().any(|w| !w.contains('/')) {
            return Err(MIXED_FORMS.to_string());
        }
        std::iter::once(kinds)
            .chain(names.iter().copied())
            .map(pair)
            .collect::<Result<_, _>>()?
    } else {
        if kinds.contains(',') {
            return Err(
                "error: RolloutScope looks objects up by name for one resource type at a time (kubectl get TYPE NAME…)"
                    .to_string(),
            );
        }
        let r = resource(kinds)?;
        if names.iter().any(|w| w.contains('/')) {
            return Err(MIXED_FORMS.to_string());
        }
        names.iter().map(|n| (r, *n)).collect()
    };
    if requests.iter().any(|(r, _)| *r == Resource::Events) {
        return Err(
            "error: RolloutScope lists events, it does not look them up by name".to_string(),
        );
    }
    Ok(requests)
}

/// The arguments of `rollout status`: the Deployment (`deploy/NAME` or `deploy NAME`), whether
/// to watch (`--watch=false`, `-w=false` turn it off, as kubectl's flag does), the `--timeout`
/// (`30s`, `2m`; `0` means none, kubectl's default) and the `--revision` to insist on.
struct StatusArgs<'a> {
    name: &'a str,
    watch: bool,
    timeout: Option<Time>,
    revision: Option<i64>,
}

/// `Some` when the kubectl words are a watching `rollout status`.
fn rollout_status_watch_args(rest: &[String]) -> Result<Option<StatusArgs<'_>>, String> {
    let words: Vec<&str> = rest.iter().map(String::as_str).collect();
    let ["rollout", "status", args @ ..] = words.as_slice() else {
        return Ok(None);
    };
    let args = rollout_status_args(args)?;
    Ok(args.watch.then_some(args))
}

/// Reads the arguments of `rollout status` ([`StatusArgs`]).
fn rollout_status_args<'a>(args: &[&'a str]) -> Result<StatusArgs<'a>, String> {
    let mut names = Vec::new();
    let mut watch = true;
    let mut timeout = None;
    let mut revision = None;
    let mut it = args.iter();
    while let Some(&w) = it.next() {
        let (flag, value) = match w.split_once('=') {
            Some((f, v)) if f.starts_with('-') => (f, Some(v)),
            _ => (w, None),
        };
        match flag {
            "--watch" | "-w" => {
                watch = match value.unwrap_or("true") {
                    "true" => true,
                    "false" => false,
                    v => return Err(format!("error: invalid argument {v:?} for \"{flag}\" flag")),
                }
            }
            "--timeout" => {
                let v = match value {
                    Some(v) => v,
                    None => it.next().copied().unwrap_or(""),
                };
                let t = if v == "0" {
                    Time(0)
                } else {
                    parse_at(v).map_err(|_| {
                    format!("error: invalid argument {v:?} for \"--timeout\" flag: time: invalid duration {v:?}")
                })?
                };
                timeout = (t.0 > 0).then_some(t);
            }
            "--revision" => {
                let v = match value {
                    Some(v) => v,
                    None => it.next().copied().unwrap_or(""),
                };
                let r = v.parse::<i64>().map_err(|_| {
                    format!("error: invalid argument {v:?} for \"--revision\" flag: strconv.ParseInt: parsing {v:?}: invalid syntax")
                })?;
                // `RolloutStatusOptions.Validate`.
                if r < 0 {
                    return Err(format!("error: revision must be a positive integer: {r}"));
                }
                revision = (r > 0).then_some(r);
            }
            f if f.starts_with('-') => return Err(format!("error: unknown flag: {f}")),
            _ => names.push(w),
        }
    }
    let name = named_deployment(&names).ok_or_else(|| {
        "error: rollout status needs one Deployment, as deploy/NAME".to_string()
    })??;
    Ok(StatusArgs {
        name,
        watch,
        timeout,
        revision,
    })
}

/// `kubectl rollout history` of another kind of object than a Deployment: kubectl fetches the
/// object first (NotFound when it is missing), then finds no history viewer for its kind
/// (`HistoryViewerFor`: `no history viewer has been implemented for "ReplicaSet.apps"`).
fn no_history_for_kind(m: &Moment<'_>, names: &[&str]) -> Option<String> {
    let (kind, name) = match names {
        [target] => target.split_once('/')?,
        [kind, name] => (*kind, *name),
        _ => return None,
    };
    let store = m.sim.store();
    let (group_kind, resource, exists) = match Resource::parse(kind)? {
        Resource::Deployments => return None,
        Resource::ReplicaSets => (
            "ReplicaSet.apps",
            "replicasets.apps",
            store.replica_sets.contains_key(name),
        ),
        Resource::Pods => ("Pod", "pods", store.pods.contains_key(name)),
        Resource::Nodes => ("Node", "nodes", store.nodes.contains_key(name)),
        Resource::PodDisruptionBudgets => (
            "PodDisruptionBudget.policy",
            "poddisruptionbudgets.policy",
            store.pdbs.contains_key(name),
        ),
        Resource::Events => ("Event", "events", true),
    };
    Some(if exists {
        format!("error: no history viewer has been implemented for {group_kind:?}")
    } else {
        kubectl::not_found(resource, name)
    })
}

/// The Deployment a `rollout` subcommand's words name, as `deploy/NAME` or `deploy NAME`:
/// `None` when the words are neither, an error for another kind of resource.
fn named_deployment<'a>(names: &[&'a str]) -> Option<Result<&'a str, String>> {
    match names {
        [target] => Some(deployment_target(target)),
        [kind, name] if Resource::parse(kind) == Some(Resource::Deployments) => Some(Ok(name)),
        _ => None,
    }
}

/// The Deployment a `rollout` subcommand names as `deploy/NAME`, with any of kubectl's words
/// for the kind (`deployment/`, `deployments.apps/`, …).
fn deployment_target(target: &str) -> Result<&str, String> {
    target
        .split_once('/')
        .filter(|(kind, name)| {
            !name.is_empty() && Resource::parse(kind) == Some(Resource::Deployments)
        })
        .map(|(_, name)| name)
        .ok_or_else(|| format!("error: rollout supports deploy/NAME, not {target:?}"))
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

/// Streams the run's trace to stdout through the core's writer, the one the JavaScript module
/// prints through too.
fn print_run(scenario: &Scenario, json: bool) -> io::Result<()> {
    let format = if json {
        TraceFormat::JsonLines
    } else {
        TraceFormat::Text
    };
    let mut out = IoWriter {
        inner: io::BufWriter::new(io::stdout().lock()),
        error: None,
    };
    let written = sim::write_trace(scenario, format, &mut out);
    if let Some(e) = out.error.take() {
        return Err(e);
    }
    written.map_err(io::Error::other)?;
    out.inner.flush()
}

/// An `io::Write` seen as the `fmt::Write` the core writes to. It keeps the I/O error it hit,
/// since `fmt::Error` carries none and the runner reports what went wrong.
struct IoWriter<W: Write> {
    inner: W,
    error: Option<io::Error>,
}

impl<W: Write> fmt::Write for IoWriter<W> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.inner.write_all(s.as_bytes()).map_err(|e| {
            self.error = Some(e);
            fmt::Error
        })
    }
}
