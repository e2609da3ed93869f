//! Golden traces: every bundled scenario's readable trace is compared, byte for byte, with the
//! text file under `tests/golden/`. Run with `UPDATE_GOLDEN=1` to rewrite the files after an
//! intended change, and read the diff before committing it.

use rolloutscope::sim::scenario::{BUNDLED, RunUntil, Scenario};
use rolloutscope::sim::trace_text;
use std::path::PathBuf;

fn golden_path(file: &str) -> PathBuf {
    let stem = file.trim_end_matches(".yaml");
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{stem}.txt"))
}

/// The first line where two texts differ, with both versions, for a readable failure.
fn first_difference(expected: &str, actual: &str) -> String {
    for (i, (e, a)) in expected.lines().zip(actual.lines()).enumerate() {
        if e != a {
            return format!("line {}:\n  expected: {e}\n  actual:   {a}", i + 1);
        }
    }
    format!(
        "one text is a prefix of the other ({} vs {} lines)",
        expected.lines().count(),
        actual.lines().count()
    )
}

#[test]
fn bundled_scenarios_match_their_golden_traces() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut failures = Vec::new();
    for (file, yaml) in BUNDLED {
        let actual = match trace_text(yaml) {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("{file}: does not load:\n{e}"));
                continue;
            }
        };
        let path = golden_path(file);
        if update {
            std::fs::write(&path, &actual).expect("write golden file");
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(expected) if expected == actual => {}
            Ok(expected) => failures.push(format!(
                "{file}: trace differs from {} ({})",
                path.display(),
                first_difference(&expected, &actual)
            )),
            Err(e) => failures.push(format!(
                "{file}: no golden file {} ({e}); run with UPDATE_GOLDEN=1",
                path.display()
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Scenarios with `run_until: complete` must get there; stall scenarios (`run_until` a
/// duration) show a rollout that does not finish, so they must run to their time instead.
#[test]
fn every_bundled_scenario_has_a_golden_file_and_completes() {
    assert!(
        BUNDLED.len() >= 6,
        "the issue asks for at least six scenarios"
    );
    for (file, yaml) in BUNDLED {
        let scenario = Scenario::parse(yaml).unwrap_or_else(|e| panic!("{file}: {e:?}"));
        let text = trace_text(yaml).unwrap_or_else(|e| panic!("{file}: {e}"));
        let last = text.lines().last().unwrap_or_default();
        let expected = match scenario.run_until {
            RunUntil::Complete => "the rollout is complete".to_string(),
            RunUntil::At(t) => format!("reached run_until {t}"),
        };
        assert!(
            last.ends_with(&expected),
            "{file} should end with {expected:?}, but ended with {last:?}"
        );
    }
}

#[test]
fn a_trace_is_byte_identical_across_runs() {
    for (file, yaml) in BUNDLED {
        assert_eq!(
            trace_text(yaml),
            trace_text(yaml),
            "{file} is not deterministic"
        );
    }
}

/// The step-through timeline the browser drives must stop where the runner stops and hold the
/// same steps, so "step 40" means the same moment in the app, the CLI and the golden file.
#[test]
fn timelines_hold_the_same_steps_as_the_runner() {
    use rolloutscope::sim::scenario::run_with;
    use rolloutscope::sim::timeline::Timeline;
    for (file, yaml) in BUNDLED {
        let scenario = Scenario::parse(yaml).unwrap_or_else(|e| panic!("{file}: {e:?}"));
        let run = run_with(&scenario, |_, _| {});
        // The end is known as soon as the last step is reached, before any step past it.
        let mut tl = Timeline::of(&scenario);
        tl.seek(run.steps.len());
        assert_eq!(tl.known_end(), Some(run.steps.len()), "{file}");
        let mut tl = Timeline::of(&scenario);
        while tl.forward().is_some() {}
        assert_eq!(tl.known_end(), Some(run.steps.len()), "{file}");
        assert_eq!(tl.steps(), &run.steps[..], "{file}");
        // Going back to the middle and forward again finds the same end.
        tl.seek(run.steps.len() / 2);
        assert_eq!(tl.position(), run.steps.len() / 2, "{file}");
        tl.seek(usize::MAX);
        assert_eq!(tl.position(), run.steps.len(), "{file}");
    }
}

/// A long jump forward (the app's "End", or a stage search) takes a faster path than stepping
/// one at a time; it must leave exactly the same state, including at the end of the run where
/// the last, empty step is undone.
#[test]
fn jumping_ahead_leaves_the_state_stepping_leaves() {
    use rolloutscope::sim::timeline::Timeline;
    for (file, yaml) in BUNDLED {
        let scenario = Scenario::parse(yaml).unwrap_or_else(|e| panic!("{file}: {e:?}"));
        let mut stepped = Timeline::of(&scenario);
        while stepped.forward().is_some() {}
        let end = stepped.position();
        for target in [end / 3, end - 1, end, usize::MAX] {
            let mut jumped = Timeline::of(&scenario);
            jumped.seek(target);
            let mut walked = Timeline::of(&scenario);
            for _ in 0..target.min(end) {
                walked.forward();
            }
            assert_eq!(jumped.position(), walked.position(), "{file} to {target}");
            assert_eq!(jumped.steps(), walked.steps(), "{file} to {target}");
            assert_eq!(jumped.known_end(), walked.known_end(), "{file} to {target}");
            assert_eq!(jumped.next_step(), walked.next_step(), "{file} to {target}");
            assert_eq!(
                format!("{:?}", jumped.sim()),
                format!("{:?}", walked.sim()),
                "{file} to {target}: the state differs"
            );
        }
    }
}

/// The store keeps the deletion ranking's facts of every active pod as an index, updated as pods
/// change; after every step of every bundled scenario it must hold exactly what reading the pods
/// themselves gives, in the same order.
#[test]
fn the_ranking_index_matches_the_pods_at_every_step() {
    for (file, yaml) in BUNDLED {
        assert_ranking_index_holds(file, yaml);
    }
    // Sidecar restarts are a tie-break of their own: one that restarts while an app container
    // has restarted more, in a pod that is never Ready, must still reach the index.
    let restarting_sidecar = r#"
name: a sidecar restarts under a busier app container
seed: 5
cluster: {nodes: [{name: node-1}]}
images:
  app:1: {crash_after: 4s, ready: never}
  proxy:1: {crash_after: 25s}
deployment:
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: app}
  spec:
    replicas: 2
    selector: {matchLabels: {app: app}}
    template:
      metadata: {labels: {app: app}}
      spec:
        initContainers:
          - name: proxy
            image: "proxy:1"
            restartPolicy: Always
            readinessProbe: {tcpSocket: {port: 15000}}
        containers:
          - name: app
            image: "app:1"
            readinessProbe: {httpGet: {path: /, port: 8080}}
run_until: 3m
"#;
    assert_ranking_index_holds("restarting-sidecar", restarting_sidecar);
}

/// After every step of the scenario, each ReplicaSet's ranking index holds what reading its
/// active pods gives, in the same order.
fn assert_ranking_index_holds(file: &str, yaml: &str) {
    use rolloutscope::sim::store::RankFacts;
    use std::sync::Arc;
    let scenario = Scenario::parse(yaml).unwrap_or_else(|e| panic!("{file}: {e:?}"));
    let mut sim = scenario.sim();
    while let Some(step) = sim.step_until(scenario.time_limit()) {
        let store = sim.store();
        for rs in store.replica_sets.values() {
            let uid = &rs.metadata.uid;
            let indexed: Vec<(String, RankFacts)> = store
                .rank_facts_of(uid)
                .map(|(name, f)| (name.to_string(), f.clone()))
                .collect();
            let read: Vec<(String, RankFacts)> = store
                .pods_owned_by(uid)
                .filter(|p| p.is_active())
                .map(|p| {
                    let index = store
                        .interned_nodes()
                        .find(|(n, _)| *n == p.node_name)
                        .map_or(usize::MAX, |(_, i)| i);
                    let facts = RankFacts::of(p, Arc::from(p.node_name.as_str()), index, None);
                    (p.metadata.name.clone(), facts)
                })
                .collect();
            assert_eq!(
                indexed, read,
                "{file}, step {}: {}",
                step.index, rs.metadata.name
            );
        }
    }
}
