//! Failed pod creates: the ReplicaSet controller's `FailedCreate` events and the rate-limited
//! requeue of a failing sync (spec §14.2 and §2.3), shown with a namespace whose pod quota is
//! smaller than the Deployment.

use rolloutscope::sim::api::{EventReason, Time};
use rolloutscope::sim::scenario::Scenario;
use rolloutscope::sim::trace::Step;

/// Five replicas against a quota of three pods: two creates fail on every sync.
const QUOTA: &str = "
name: quota
seed: 3
cluster:
  nodes:
    - {name: node-1}
  quota: {pods: 3}
deployment:
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    replicas: 5
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers:
          - name: web
            image: web:1
run_until: 60s
";

fn run(yaml: &str) -> Vec<Step> {
    let scenario = Scenario::parse(yaml).unwrap_or_else(|e| panic!("{e:?}"));
    let mut sim = scenario.sim();
    let mut steps = Vec::new();
    while let Some(step) = sim.step_until(scenario.time_limit()) {
        steps.push(step);
    }
    steps
}

/// The `FailedCreate` messages of each step that has any, with the step's time.
fn failed_creates(steps: &[Step]) -> Vec<(Time, Vec<&str>)> {
    steps
        .iter()
        .map(|s| {
            let msgs: Vec<&str> = s
                .events
                .iter()
                .filter(|e| e.reason == EventReason::FailedCreate)
                .map(|e| e.message.as_str())
                .collect();
            (s.time, msgs)
        })
        .filter(|(_, m)| !m.is_empty())
        .collect()
}

#[test]
fn every_failed_create_of_a_batch_records_its_own_event() {
    let steps = run(QUOTA);
    // The first sync creates in batches 1, 2, 2: three pods fit, and both creates of the last
    // batch are refused, each under the name the API server generated for it.
    let (_, first) = failed_creates(&steps)
        .into_iter()
        .next()
        .expect("a FailedCreate event");
    assert_eq!(first.len(), 2, "{first:?}");
    for msg in &first {
        assert!(
            msg.starts_with("Error creating: pods \"web-")
                && msg.contains("is forbidden: exceeded quota: pods-quota"),
            "{msg}"
        );
    }
    assert_ne!(first[0], first[1], "each refused pod has its own name");
}
