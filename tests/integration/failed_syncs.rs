//! Failed controller syncs: the ReplicaSet controller's `FailedCreate` events and the
//! rate-limited requeue of a failing sync (spec §14.2 and §2 item 3), shown with a namespace whose
//! pod quota is smaller than the Deployment, the deployment controller's sync error on a
//! ReplicaSet name collision, and the conflict that refuses a pass's second Deployment write.

use rolloutscope::sim::api::{EventReason, Time};
use rolloutscope::sim::controller::{Change, deployment};
use rolloutscope::sim::kubectl::{self, Moment};
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
run_until: 5m
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

/// The times (ms) of the ReplicaSet syncs that failed, one per sync.
fn failed_sync_times(steps: &[Step]) -> Vec<u64> {
    failed_creates(steps)
        .iter()
        .map(|(t, _)| t.as_millis())
        .collect()
}

#[test]
fn a_failing_replica_set_is_retried_after_doubling_delays() {
    let times = failed_sync_times(&run(QUOTA));
    // Three syncs fail at 0 s (the first, then two informer events); the retry waiting since
    // the first comes 5 ms later, and each retry that fails again doubles the delay by the
    // failures counted so far: 5 ms × 2³, 2⁴, 2⁵, 2⁶.
    assert_eq!(&times[..8], &[0, 0, 0, 5, 45, 125, 285, 605], "{times:?}");
    // The pods' status updates around 1 s sync the ReplicaSet six more times, and each failure
    // counts: the retry waiting for 1.245 s (605 ms + 5 ms × 2⁷) is the fifteenth failure, so
    // it waits 5 ms × 2¹⁴ = 81.92 s; the ReplicaSet controller has no maxRetries, so the
    // sixteenth waits 163.84 s.
    let settled: Vec<u64> = times.iter().copied().filter(|t| *t > 1_100).collect();
    assert_eq!(settled, [1_245, 83_165, 247_005], "{times:?}");
}

/// A ReplicaSet that holds the name the new template hashes to, with another template, is a hash
/// collision (§4.5): the sync bumps `collisionCount` and returns the AlreadyExists error, which
/// the simulator requeues with rate limiting rather than after a fixed delay.
#[test]
fn a_name_collision_is_the_deployment_sync_error() {
    let scenario = Scenario::parse(QUOTA).unwrap_or_else(|e| panic!("{e:?}"));
    let mut sim = scenario.sim();
    while sim.store().replica_sets.is_empty() {
        sim.step().expect("the Deployment creates its ReplicaSet");
    }
    let mut store = sim.store().clone();
    let mut taken = store
        .replica_sets
        .values()
        .next()
        .cloned()
        .expect("a ReplicaSet");
    taken
        .spec
        .template
        .metadata
        .labels
        .insert("edited".to_string(), "yes".to_string());
    store.apply(Change::UpdateReplicaSet(taken.clone()), sim.now());
    let out = deployment::sync_deployment(&store, "web", sim.now());
    assert_eq!(
        out.error.as_deref(),
        Some(format!("replicasets.apps {:?} already exists", taken.metadata.name).as_str())
    );
    assert!(out.requeue.is_empty(), "{:?}", out.requeue);
    assert!(out.changes.iter().any(|c| matches!(
        c,
        Change::UpdateDeploymentStatus(d) if d.status.collision_count == Some(1)
    )));
}

/// `kubectl describe rs` of a ReplicaSet held back by the quota: 3 of 5 replicas, the
/// `ReplicaFailure` condition with reason `FailedCreate`, and the Warning events that say why.
#[test]
fn describe_replica_set_shows_the_replica_failure() {
    let scenario = Scenario::parse(QUOTA).unwrap_or_else(|e| panic!("{e:?}"));
    let mut sim = scenario.sim();
    let mut steps = Vec::new();
    let at = Time::from_secs(30);
    while let Some(step) = sim.step_until(at) {
        steps.push(step);
    }
    let rs = sim
        .store()
        .replica_sets
        .keys()
        .next()
        .cloned()
        .unwrap_or_default();
    let m = Moment::new(&sim, &steps).at(at);
    let text = kubectl::describe_replica_set(&m, &rs).unwrap_or_else(|e| e);
    for want in [
        "Replicas:       3 current / 5 desired\n",
        "Pods Status:    3 Running / 0 Waiting / 0 Succeeded / 0 Failed\n",
        "Conditions:\n  Type             Status  Reason\n  ----             ------  ------\n  ReplicaFailure   True    FailedCreate\nEvents:\n",
        "  Warning  FailedCreate      30s                replicaset-controller  Error creating: pods \"",
        "\" is forbidden: exceeded quota: pods-quota, requested: pods=1, used: pods=3, limited: pods=3\n",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
}

/// A pod that turns Ready wakes its ReplicaSet again after minReadySeconds, even while every
/// sync fails (spec §14.1 step 6): upstream `updatePod` enqueues the ReplicaSet for that moment
/// apart from the rate-limited retries, which by then wait for minutes.
#[test]
fn a_failing_replica_set_still_counts_pods_available_after_min_ready_seconds() {
    let yaml = QUOTA.replace("replicas: 5\n", "replicas: 5\n    minReadySeconds: 7\n");
    let scenario = Scenario::parse(&yaml).unwrap_or_else(|e| panic!("{e:?}"));
    let mut sim = scenario.sim();
    let mut ready_at = None;
    let mut available_at = None;
    while let Some(step) = sim.step_until(Time::from_secs(60)) {
        let rs = sim
            .store()
            .replica_sets
            .values()
            .next()
            .map(|rs| &rs.status);
        if let Some(s) = rs {
            if ready_at.is_none() && s.ready_replicas == 3 {
                ready_at = Some(step.time);
            }
            if available_at.is_none() && s.available_replicas == 3 {
                available_at = Some(step.time);
            }
        }
    }
    let (ready, available) = (
        ready_at.expect("3 ready"),
        available_at.expect("3 available"),
    );
    // The last of the three pods turned Ready just before the status saw it; each is counted
    // available 7 s and 1 ms after its Ready transition, so the last one soon after
    // ready + 7 s, long before the next retry (81.92 s later).
    assert!(
        available.as_millis() > ready.as_millis() + 6_000
            && available.as_millis() <= ready.as_millis() + 7_001,
        "ready at {ready}, available at {available}"
    );
}

/// An image with a leading space passes in a Deployment's pod template (upstream keeps that
/// for compatibility) but fails pod validation, so the ReplicaSet's creates fail with the API
/// server's Invalid message (`validateContainersOnlyForPod`).
#[test]
fn an_image_with_surrounding_whitespace_fails_every_pod_create() {
    let yaml = QUOTA
        .replace("quota: {pods: 3}", "quota: {pods: 30}")
        .replace("image: web:1", "image: \" web:1\"");
    let steps = run(&yaml);
    let creates = failed_creates(&steps);
    let (_, first) = creates.first().expect("a FailedCreate");
    assert_eq!(first.len(), 1, "the first batch of one fails: {first:?}");
    assert!(
        first[0].starts_with("Error creating: Pod \"web-")
            && first[0].ends_with(
                "\" is invalid: spec.containers[0].image: Invalid value: \" web:1\": must not have leading or trailing whitespace"
            ),
        "{}",
        first[0]
    );
    assert!(
        steps.iter().all(|s| s
            .events
            .iter()
            .all(|e| e.reason != EventReason::SuccessfulCreate)),
        "no pod is created"
    );
}

/// A Deployment name so long that name and hash exceed the 253 characters an object name may
/// have: the API server refuses the new ReplicaSet as invalid, which is "any other error" of
/// §4.5: Progressing=False with ReplicaSetCreateError, a Warning event with the same message,
/// no pods, and the sync retried with back-off.
#[test]
fn a_replica_set_name_over_253_characters_is_a_create_error() {
    let name = format!("w{}", "a".repeat(245));
    let yaml = QUOTA
        .replace(
            "metadata: {name: web}",
            &format!("metadata: {{name: {name}}}"),
        )
        .replace("  quota: {pods: 3}\n", "")
        .replace("run_until: 5m", "run_until: 1m");
    let scenario = Scenario::parse(&yaml).unwrap_or_else(|e| panic!("{e:?}"));
    let mut sim = scenario.sim();
    let mut steps = Vec::new();
    while let Some(step) = sim.step_until(scenario.time_limit()) {
        steps.push(step);
    }
    assert!(sim.store().replica_sets.is_empty());
    assert!(sim.store().pods.is_empty());
    let d = &sim.store().deployments[name.as_str()];
    let progressing = d
        .status
        .conditions
        .iter()
        .find(|c| c.type_.as_str() == "Progressing")
        .expect("a Progressing condition");
    assert_eq!(progressing.status.as_str(), "False");
    assert_eq!(progressing.reason.as_str(), "ReplicaSetCreateError");
    let rs = format!("{name}-");
    assert!(
        progressing
            .message
            .starts_with(&format!("Failed to create new replica set \"{rs}")),
        "{}",
        progressing.message
    );
    assert!(
        progressing
            .message
            .contains("is invalid: metadata.name: Invalid value: \"")
            && progressing
                .message
                .ends_with("\": must be no more than 253 characters"),
        "{}",
        progressing.message
    );
    let warnings: Vec<u64> = steps
        .iter()
        .filter(|s| {
            s.events
                .iter()
                .any(|e| e.reason == EventReason::ReplicaSetCreateError)
        })
        .map(|s| s.time.as_millis())
        .collect();
    assert!(warnings.len() > 3, "{warnings:?}");
    // Retried with the controller's rate-limited back-off: the gaps grow.
    let gaps: Vec<u64> = warnings.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(gaps.windows(2).all(|g| g[1] >= g[0]), "{gaps:?}");
}

/// Two replicas of `web:1.0` on one node, with these actions (a YAML flow list), run to 40 s
/// or `until`.
fn two_replicas(actions: &str, until: &str) -> String {
    format!(
        "
name: two replicas
cluster: {{nodes: [{{name: node-1}}]}}
deployment:
  apiVersion: apps/v1
  kind: Deployment
  metadata: {{name: web}}
  spec:
    replicas: 2
    selector: {{matchLabels: {{app: web}}}}
    template:
      metadata: {{labels: {{app: web}}}}
      spec: {{containers: [{{name: web, image: 'web:1.0'}}]}}
actions: {actions}
run_until: {until}
"
    )
}

/// A Deployment paused at 10 s, given a new image at 20 s and resumed at 30 s.
fn resumed() -> String {
    two_replicas(
        "[{at: 10s, pause: {}}, {at: 20s, set_image: 'web:2.0'}, {at: 30s, resume: {}}]",
        "40s",
    )
}

const CONFLICT: &str = "Operation cannot be fulfilled on deployments.apps \"web\": the object has been modified; please apply your changes to the latest version and try again";

/// Upstream's pass keeps working on the copy of the Deployment it read, so only its first write
/// that changes the Deployment lands; any later one is refused with a conflict and the sync is
/// retried. The first pass after a resume writes `DeploymentResumed`, creates the new
/// ReplicaSet, and its write of the revision and `NewReplicaSetCreated` is refused: so the
/// stored Progressing reasons go Paused → Resumed → ReplicaSetUpdated, never NewReplicaSetCreated.
#[test]
fn a_second_deployment_write_in_one_pass_is_refused_with_a_conflict() {
    let scenario = Scenario::parse(&resumed()).unwrap_or_else(|e| panic!("{e:?}"));
    let mut sim = scenario.sim();
    let mut reasons: Vec<String> = Vec::new();
    let mut resume_pass = None;
    while let Some(step) = sim.step_until(scenario.time_limit()) {
        if step.time < Time::from_secs(30) {
            continue;
        }
        if step.actor == "deployment-controller" && resume_pass.is_none() {
            resume_pass = Some(step.narration.clone());
        }
        let d = &sim.store().deployments["web"];
        let reason = d
            .status
            .conditions
            .iter()
            .find(|c| c.type_.as_str() == "Progressing")
            .map(|c| c.reason.as_str().to_string())
            .unwrap_or_default();
        if reasons.last() != Some(&reason) {
            reasons.push(reason);
        }
    }
    let narration = resume_pass.expect("a deployment-controller pass after the resume");
    assert!(
        narration.contains("DeploymentResumed")
            && narration.contains("refused with a conflict (the object has been modified)"),
        "{narration}"
    );
    assert_eq!(
        reasons,
        [
            "DeploymentPaused",
            "DeploymentResumed",
            "ReplicaSetUpdated",
            "NewReplicaSetAvailable"
        ]
    );
}

/// The pass that creates a Deployment's first ReplicaSet writes the revision and
/// `NewReplicaSetCreated`, then returns the conflict of its status write as its error, which
/// requeues it.
#[test]
fn the_pass_that_creates_a_replica_set_fails_on_its_second_write() {
    let scenario = Scenario::parse(&resumed()).unwrap_or_else(|e| panic!("{e:?}"));
    let mut sim = scenario.sim();
    sim.step().expect("the apply");
    let store = sim.store().clone();
    let out = deployment::sync_deployment(&store, "web", sim.now());
    assert_eq!(out.error.as_deref(), Some(CONFLICT));
    let writes: Vec<&str> = out
        .changes
        .iter()
        .filter_map(|c| match c {
            Change::UpdateDeploymentStatus(d) => {
                d.status.conditions.first().map(|c| c.reason.as_str())
            }
            _ => None,
        })
        .collect();
    assert_eq!(writes, ["NewReplicaSetCreated"]);
    // Once that write is stored, the next pass writes the status and succeeds.
    let mut sim = scenario.sim();
    let mut steps = 0;
    while sim
        .store()
        .deployments
        .get("web")
        .is_none_or(|d| d.status.observed_generation == 0)
    {
        sim.step().expect("the controller catches up");
        steps += 1;
    }
    let d = &sim.store().deployments["web"];
    assert_eq!(d.status.observed_generation, 1);
    assert!(steps <= 4, "{steps} steps");
    let store = sim.store().clone();
    assert_eq!(
        deployment::sync_deployment(&store, "web", sim.now()).error,
        None
    );
}

/// The legacy rollback annotation, applied with a new template: the pass that creates the new
/// ReplicaSet writes the Deployment's status, so its `Update` that copies the old template back
/// is refused; `rollback` records `DeploymentRollback` only once the update lands, so there is
/// one event, from the next pass.
#[test]
fn a_refused_legacy_rollback_records_no_event() {
    let yaml = two_replicas(
        "[{at: 30s, apply: {apiVersion: apps/v1, kind: Deployment, metadata: {name: web, annotations: {deprecated.deployment.rollback.to: '1'}}, spec: {replicas: 2, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: 'web:2.0'}]}}}}}]",
        "60s",
    );
    let steps = run(&yaml);
    let rollbacks: Vec<&Step> = steps
        .iter()
        .filter(|s| {
            s.events
                .iter()
                .any(|e| e.reason == EventReason::DeploymentRollback)
        })
        .collect();
    assert_eq!(rollbacks.len(), 1, "{rollbacks:#?}");
    assert!(steps.iter().any(|s| {
        s.time == Time::from_secs(30)
            && s.narration.contains("refused with a conflict")
            && s.narration
                .contains("rollback annotation asks for revision 1")
    }),);
}

/// Upstream's pass keeps the ReplicaSet list it read: when the scaling-event check has synced
/// the new ReplicaSet's minReadySeconds, the rollout's own sync of it, from the same stale
/// copy, is refused with a conflict, and the sync is retried.
#[test]
fn a_second_update_of_the_new_replica_set_in_one_pass_is_refused() {
    let yaml = two_replicas(
        "[{at: 30s, apply: {apiVersion: apps/v1, kind: Deployment, metadata: {name: web}, spec: {replicas: 2, minReadySeconds: 5, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: 'web:1.0'}]}}}}}]",
        "60s",
    );
    let steps = run(&yaml);
    let pass = steps
        .iter()
        .find(|s| s.time == Time::from_secs(30) && s.actor == "deployment-controller")
        .expect("the pass after the apply");
    assert!(
        pass.narration
            .contains("takes the Deployment's minReadySeconds, 5s (it had 0s)")
            && pass.narration.contains("second update of ReplicaSet web-")
            && pass.narration.contains("refused with a conflict"),
        "{}",
        pass.narration
    );
}

/// The Priority admission plugin refuses a pod whose `priorityClassName` names no PriorityClass,
/// or whose `priority` or `preemptionPolicy` differs from what its class gives, before the pod
/// is named: the event names it by its generateName. The built-in system classes are admitted.
#[test]
fn priority_admission_refuses_unknown_classes_and_written_priorities() {
    let with = |fields: &str| {
        QUOTA
            .replace("  quota: {pods: 3}\n", "")
            .replace("run_until: 5m", "run_until: 5s")
            .replace(
                "        containers:\n",
                &format!("{fields}        containers:\n"),
            )
    };
    let first_refusal = |fields: &str| {
        let steps = run(&with(fields));
        failed_creates(&steps)
            .first()
            .and_then(|(_, msgs)| msgs.first().map(|m| m.to_string()))
    };
    let refusal = first_refusal("        priorityClassName: high\n").unwrap_or_default();
    assert!(
        refusal.starts_with("Error creating: pods \"web-")
            && refusal.ends_with("-\" is forbidden: no PriorityClass with name high was found"),
        "{refusal}"
    );
    let refusal = first_refusal("        preemptionPolicy: Never\n").unwrap_or_default();
    assert!(
        refusal.ends_with("-\" is forbidden: the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name"),
        "{refusal}"
    );
    let refusal =
        first_refusal("        priorityClassName: system-cluster-critical\n        priority: 7\n")
            .unwrap_or_default();
    assert!(
        refusal.ends_with("-\" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 2000000000 from the given PriorityClass name"),
        "{refusal}"
    );
    assert_eq!(
        first_refusal(
            "        priorityClassName: system-node-critical\n        priority: 2000001000\n        preemptionPolicy: PreemptLowerPriority\n"
        ),
        None
    );
    assert_eq!(first_refusal("        priority: 0\n"), None);
    // The ServiceAccount plugin runs first: the namespace has only the `default` account.
    let refusal =
        first_refusal("        serviceAccountName: web-sa\n        priorityClassName: high\n")
            .unwrap_or_default();
    assert!(
        refusal.ends_with("-\" is forbidden: error looking up service account default/web-sa: serviceaccount \"web-sa\" not found"),
        "{refusal}"
    );
    assert_eq!(first_refusal("        serviceAccountName: default\n"), None);
    // The deprecated serviceAccount stands in for a missing serviceAccountName.
    let refusal = first_refusal("        serviceAccount: builder\n").unwrap_or_default();
    assert!(
        refusal.ends_with(
            "error looking up service account default/builder: serviceaccount \"builder\" not found"
        ),
        "{refusal}"
    );
    assert_eq!(
        first_refusal("        serviceAccountName: default\n        serviceAccount: builder\n"),
        None
    );
}
