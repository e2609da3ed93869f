//! Deployment-side details a learner sees in kubectl: which ReplicaSet the controller scales
//! first, the legacy `rollbackTo` annotation, `kubectl rollout undo`'s and `kubectl apply`'s
//! messages, and the `-o wide` SELECTOR column. Each test names the spec section or upstream
//! function it follows.

use rolloutscope::sim::api::{EventReason, ReplicaSet, Time};
use rolloutscope::sim::diagnosis::{Cause, diagnose};
use rolloutscope::sim::engine::Sim;
use rolloutscope::sim::kubectl::{self, Moment, Resource};
use rolloutscope::sim::scenario::Scenario;
use rolloutscope::sim::trace::Step;

/// A Deployment `web` of `replicas` pods of `web:1.0` with a readiness probe, the image list
/// the scenarios below share, and their `actions:` block.
fn scenario(replicas: u32, metadata: &str, selector: &str, actions: &str) -> String {
    format!(
        r#"name: deployment side
seed: 3
cluster:
  nodes:
    - {{name: node-1, cpu: "64", memory: 64Gi}}
images:
  web:1.0: {{pull_time: 1s}}
  web:2.0: {{pull_time: 1s, ready: never}}
  web:3.0: {{pull_time: 1s, ready: never}}
deployment:
  apiVersion: apps/v1
  kind: Deployment
  metadata: {metadata}
  spec:
    replicas: {replicas}
    selector: {selector}
    template:
      metadata: {{labels: {{app: web, tier: fe}}}}
      spec:
        containers:
          - name: web
            image: web:1.0
            readinessProbe:
              httpGet: {{path: /, port: 8080}}
actions:
{actions}
"#
    )
}

/// The manifest of an `apply` action: `web` at `image`, with these annotations and strategy.
fn applied(annotations: &str, strategy: &str, image: &str) -> String {
    format!(
        r#"    apply:
      apiVersion: apps/v1
      kind: Deployment
      metadata: {{name: web, annotations: {{{annotations}}}}}
      spec:
        replicas: 10
        strategy: {{type: {strategy}}}
        selector: {{matchLabels: {{app: web}}}}
        template:
          metadata: {{labels: {{app: web, tier: fe}}}}
          spec:
            containers:
              - name: web
                image: {image}
                readinessProbe:
                  httpGet: {{path: /, port: 8080}}"#
    )
}

/// A one-replica Deployment of `web:1.0` on one node, run for a minute, with extra lines for
/// the template's metadata, its pod spec and its container, and scheduled actions.
fn one_pod_scenario(metadata: &str, spec: &str, container: &str, actions: &str) -> String {
    let actions = if actions.is_empty() { " []" } else { actions };
    format!(
        r#"
name: one pod
seed: 1
cluster:
  nodes:
    - {{name: node-1, cpu: "4", memory: 8Gi}}
deployment:
  apiVersion: apps/v1
  kind: Deployment
  metadata: {{name: web}}
  spec:
    replicas: 1
    selector: {{matchLabels: {{app: web}}}}
    template:
      metadata: {metadata}
      spec:{spec}
        containers:
          - name: web
            image: web:1.0{container}
actions:{actions}
run_until: 60s
"#
    )
}

/// A scenario of the `scenarios/` folder.
fn bundled(file: &str) -> String {
    let path = format!("{}/scenarios/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

const PLAIN: &str = "{name: web}";
const BY_APP: &str = "{matchLabels: {app: web}}";

fn run(yaml: &str, until_secs: u64) -> (Sim, Vec<Step>) {
    let mut sim = Scenario::parse(yaml)
        .unwrap_or_else(|e| panic!("{e:?}\n{yaml}"))
        .sim();
    let mut steps = Vec::new();
    while let Some(step) = sim.step_until(Time::from_secs(until_secs)) {
        steps.push(step);
    }
    (sim, steps)
}

fn messages(steps: &[Step], reason: EventReason) -> Vec<String> {
    steps
        .iter()
        .flat_map(|s| &s.events)
        .filter(|e| e.reason == reason)
        .map(|e| e.message.clone())
        .collect()
}

/// Asserts that some step's narration says each of `texts`.
fn assert_narrated(steps: &[Step], texts: &[&str]) {
    let all = steps
        .iter()
        .map(|s| s.narration.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    for text in texts {
        assert!(all.contains(text), "no narration says {text:?}:\n{all}");
    }
}

/// Where each of two ReplicaSets is first named in `messages`.
fn places(messages: &[String], a: &ReplicaSet, b: &ReplicaSet) -> (usize, usize) {
    let position = |rs: &ReplicaSet| {
        messages
            .iter()
            .position(|m| m.contains(&rs.metadata.name))
            .unwrap_or_else(|| panic!("{} is not named in {messages:?}", rs.metadata.name))
    };
    (position(a), position(b))
}

/// §4.1: `FindNewReplicaSet` sorts the pass's ReplicaSet list by creation time in place, so a
/// Recreate scale-down meets the old ReplicaSets oldest first — here the revision-1 one, whose
/// name happens to sort after the stuck revision-2 one.
#[test]
fn old_replica_sets_are_scaled_down_oldest_first() {
    let actions = format!(
        "  - {{at: 30s, set_image: web:3.0}}\n  - at: 60s\n{}",
        applied("", "Recreate", "web:2.0")
    );
    let (sim, steps) = run(&scenario(10, PLAIN, BY_APP, &actions), 90);
    let store = sim.store();
    let mut by_age: Vec<_> = store.replica_sets.values().collect();
    by_age.sort_by_key(|rs| rs.metadata.creation_timestamp);
    let [first, second, ..] = by_age.as_slice() else {
        panic!("three ReplicaSets expected");
    };
    let downs: Vec<String> = messages(&steps, EventReason::ScalingReplicaSet)
        .into_iter()
        .filter(|m| m.starts_with("Scaled down") && m.ends_with(" to 0"))
        .collect();
    let (oldest, newer) = places(&downs, first, second);
    assert!(oldest < newer, "oldest first: {downs:?}");
}

/// §6.2: `scale` calls `FindActiveOrLatest` first, which sorts the caller's old ReplicaSets
/// newest first in place, so when the new ReplicaSet is saturated the old ones go to 0 newest
/// first: here, paused with revisions 1 and 2 still active and revision 3 saturated.
#[test]
fn a_saturated_scale_takes_the_old_replica_sets_to_zero_newest_first() {
    let yaml = "seed: 3\nimages:\n  web:1.0: {pull_time: 1s}\n  web:2.0: {pull_time: 1s, ready: after 8s}\n  web:3.0: {pull_time: 1s, ready: after 8s}\ndeployment:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web}\n  spec:\n    replicas: 4\n    strategy: {rollingUpdate: {maxSurge: 2, maxUnavailable: 0}}\n    selector: {matchLabels: {app: web}}\n    template:\n      metadata: {labels: {app: web}}\n      spec:\n        containers:\n          - name: web\n            image: web:1.0\n            readinessProbe: {httpGet: {path: /, port: 8080}, periodSeconds: 1}\nactions:\n  - {at: 20s, set_image: web:2.0}\n  - {at: 33s, set_image: web:3.0}\n  - {at: 34s, pause: {}}\n  - {at: 35s, scale: 2}\nrun_until: 80s\n";
    let (sim, steps) = run(yaml, 43);
    let mut by_age: Vec<_> = sim.store().replica_sets.values().collect();
    by_age.sort_by_key(|rs| rs.metadata.creation_timestamp);
    let [first, second, _] = by_age.as_slice() else {
        panic!("three ReplicaSets expected");
    };
    let downs: Vec<String> = steps
        .iter()
        .filter(|s| s.time == Time::from_secs(42))
        .flat_map(|s| &s.events)
        .filter(|e| e.reason == EventReason::ScalingReplicaSet)
        .map(|e| e.message.clone())
        .collect();
    let (oldest, newer) = places(&downs, first, second);
    assert!(newer < oldest, "newest first: {downs:?}");
}

/// §4.1: `EqualIgnoreHash` compares the whole template, so a change to the template's
/// `metadata.name` (which the API server keeps as written) starts a rollout.
#[test]
fn a_template_name_change_starts_a_rollout() {
    let manifest = |meta: &str| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web}}\nspec:\n  replicas: 2\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{{meta}labels: {{app: web}}}}\n    spec:\n      containers:\n        - name: web\n          image: web:1.0\n"
        )
    };
    let indent = |text: String| {
        text.lines()
            .map(|l| format!("      {l}\n"))
            .collect::<String>()
    };
    let yaml = format!(
        "seed: 3\ndeployment:\n{}actions:\n  - at: 20s\n    apply:\n{}run_until: 60s\n",
        manifest("")
            .lines()
            .map(|l| format!("  {l}\n"))
            .collect::<String>(),
        indent(manifest("name: foo, "))
    );
    let (sim, steps) = run(&yaml, 60);
    assert_eq!(sim.store().replica_sets.len(), 2, "a second ReplicaSet");
    assert_narrated(
        &steps,
        &["the pod template changed, so a new rollout starts"],
    );
}

/// `getRollbackTo`: an empty `deprecated.deployment.rollback.to` is no rollback request, so the
/// apply rolls out normally; the conversion for storage drops it, so it is never stored.
#[test]
fn an_empty_legacy_rollback_annotation_is_ignored() {
    let actions = format!(
        "  - at: 30s\n{}\n  - at: 60s\n{}",
        applied("", "RollingUpdate", "web:2.0"),
        applied(
            "deprecated.deployment.rollback.to: ''",
            "RollingUpdate",
            "web:3.0"
        )
    );
    let (sim, steps) = run(&scenario(4, PLAIN, BY_APP, &actions), 80);
    assert!(messages(&steps, EventReason::DeploymentRollback).is_empty());
    assert!(
        messages(&steps, EventReason::DeploymentRollbackRevisionNotFound).is_empty(),
        "no rollback at all"
    );
    assert_eq!(
        sim.store().deployments["web"]
            .metadata
            .annotations
            .get("deprecated.deployment.rollback.to"),
        None
    );
}

/// `setDeploymentAnnotationsTo`: a legacy rollback keeps the Deployment's own annotations and
/// takes every other one from the revision it returns to, so `owner` (added after revision 1)
/// is gone and `team` is back to revision 1's value.
#[test]
fn a_legacy_rollback_takes_the_annotations_of_its_revision() {
    let actions = format!(
        "  - at: 30s\n{}\n  - at: 60s\n{}",
        applied("team: b, owner: x", "RollingUpdate", "web:2.0"),
        applied(
            "team: b, owner: x, deprecated.deployment.rollback.to: '1'",
            "RollingUpdate",
            "web:2.0"
        )
    );
    let metadata = "{name: web, annotations: {team: a}}";
    let (sim, steps) = run(&scenario(4, metadata, BY_APP, &actions), 80);
    assert_eq!(
        messages(&steps, EventReason::DeploymentRollback),
        ["Rolled back deployment \"web\" to revision 1"]
    );
    let d = &sim.store().deployments["web"];
    assert_eq!(
        d.metadata.annotations.get("team").map(String::as_str),
        Some("a")
    );
    assert_eq!(d.metadata.annotations.get("owner"), None);
    assert_eq!(
        d.metadata
            .annotations
            .get("deprecated.deployment.rollback.to"),
        None
    );
}

/// kubectl's `DeploymentRollbacker`: the skipped-rollback message names the revision asked for,
/// which for a plain `rollout undo` is 0.
#[test]
fn a_skipped_undo_names_the_revision_asked_for() {
    let actions = "  - {at: 30s, set_image: web:2.0}\n  - {at: 60s, set_image: web:1.0}\n  - {at: 60s, rollout_undo: {}}\n  - {at: 61s, rollout_undo: {to_revision: 3}}";
    let (_, steps) = run(&scenario(4, PLAIN, BY_APP, actions), 70);
    assert_narrated(
        &steps,
        &[
            "deployment.apps/web skipped rollback (current template already matches revision 0)",
            "deployment.apps/web skipped rollback (current template already matches revision 3)",
        ],
    );
}

/// §10.1 step 8: the scenario's Deployment is created by `kubectl apply`, which records the
/// manifest in `kubectl.kubernetes.io/last-applied-configuration`, so `rollout undo` warns
/// before its own line that the next apply would undo it.
#[test]
fn an_undo_of_an_applied_deployment_warns_like_kubectl() {
    let (sim, steps) = run(&bundled("rollout-undo.yaml"), 400);
    assert_narrated(
        &steps,
        &[
            "Warning: resource deployments/web was previously managed with 'kubectl apply'. Rolling back will not update the kubectl.kubernetes.io/last-applied-configuration annotation, which may cause unexpected behavior on future 'kubectl apply' operations. Consider using 'kubectl apply' with your previous configuration file instead. deployment.apps/web rolled back: ",
        ],
    );
    // The undo keeps the annotation, and describe leaves it out as kubectl does.
    let d = sim.deployment("web").expect("the Deployment exists");
    assert!(
        d.metadata
            .annotations
            .contains_key("kubectl.kubernetes.io/last-applied-configuration")
    );
    let m = Moment::new(&sim, &steps).at(sim.now());
    let text = kubectl::describe_deployment(&m, "web").unwrap_or_else(|e| e);
    assert!(!text.contains("last-applied"), "{text}");
}

/// §10.1 step 8: kubectl prints the apply warning before it looks at the revisions, so an undo
/// it then refuses (here: the Deployment is paused) shows the warning above the error.
#[test]
fn a_refused_undo_of_an_applied_deployment_warns_first() {
    let actions = "  - {at: 30s, set_image: web:2.0}\n  - {at: 40s, pause: {}}\n  - {at: 41s, rollout_undo: {}}";
    let (_, steps) = run(&scenario(4, PLAIN, BY_APP, actions), 50);
    assert_narrated(
        &steps,
        &[
            "kubectl rollout undo deployment/web was refused:\nWarning: resource deployments/web was previously managed with 'kubectl apply'. Rolling back will not update the kubectl.kubernetes.io/last-applied-configuration annotation, which may cause unexpected behavior on future 'kubectl apply' operations. Consider using 'kubectl apply' with your previous configuration file instead.\nerror: you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again",
        ],
    );
}

/// `kubectl apply` of a manifest without a name fails in kubectl itself: it reads the live
/// object by name first, and the client refuses a request without one, so the API server never
/// sees it and nothing changes.
#[test]
fn applying_a_manifest_without_a_name_fails_in_kubectl() {
    let nameless = applied("", "RollingUpdate", "web:2.0").replace(
        "metadata: {name: web, annotations: {}}",
        "metadata: {labels: {a: b}}",
    );
    let yaml = scenario(
        2,
        "{name: web}",
        "{matchLabels: {app: web}}",
        &format!("  - at: 10s\n{nameless}"),
    );
    let (sim, steps) = run(&yaml, 20);
    assert_narrated(
        &steps,
        &[
            "kubectl apply -f deployment.yaml was refused:\nerror: error when retrieving current configuration of:\nResource: \"apps/v1, Resource=deployments\", GroupVersionKind: \"apps/v1, Kind=Deployment\"\nName: \"\", Namespace: \"default\"\nfrom server for: \"deployment.yaml\": resource name may not be empty",
        ],
    );
    let d = sim.store().deployments.get("web").expect("web");
    assert_eq!(d.metadata.generation, 1, "nothing reached the API server");
}

/// Apply's three-way merge for `replicas`: a manifest that never set it leaves it to `kubectl
/// scale` (or an autoscaler), and one whose last applied version set it takes it away, so the
/// API server defaults it to 1.
#[test]
fn apply_leaves_replicas_it_never_set_to_kubectl_scale() {
    let manifest = |replicas: &str| {
        format!(
            "    apply:\n      apiVersion: apps/v1\n      kind: Deployment\n      metadata: {{name: web}}\n      spec:\n{replicas}        selector: {{matchLabels: {{app: web}}}}\n        template:\n          metadata: {{labels: {{app: web, tier: fe}}}}\n          spec:\n            containers:\n              - name: web\n                image: web:1.0\n                readinessProbe: {{httpGet: {{path: /, port: 8080}}}}\n"
        )
    };
    let without = manifest("");
    let with_two = manifest("        replicas: 2\n");
    // Never set: scaled to 3, then the same manifest again, is unchanged at 3.
    let actions = format!("  - at: 5s\n{without}  - {{at: 10s, scale: 3}}\n  - at: 20s\n{without}");
    let (sim, steps) = run(&scenario(1, PLAIN, BY_APP, &actions), 30);
    assert_eq!(sim.deployment("web").and_then(|d| d.spec.replicas), Some(3));
    assert_narrated(&steps, &["deployment.apps/web unchanged."]);
    // Set to 2 by the last apply, scaled to 3, then left out: taken away, so 1.
    let actions =
        format!("  - at: 5s\n{with_two}  - {{at: 10s, scale: 3}}\n  - at: 20s\n{without}");
    let (sim, steps) = run(&scenario(1, PLAIN, BY_APP, &actions), 30);
    assert_eq!(sim.deployment("web").and_then(|d| d.spec.replicas), Some(1));
    assert_narrated(
        &steps,
        &["deployment.apps/web configured: spec.replicas 3 → 1"],
    );
}

/// Apply's three-way merge keeps what other commands set and no manifest did: a paused
/// Deployment stays paused when an edited manifest is applied (its template change waits for
/// `rollout resume`), and after `rollout restart` the same manifest again is unchanged rather
/// than undoing the restart.
#[test]
fn apply_keeps_a_pause_and_a_restart_it_never_set() {
    let actions = format!(
        "  - {{at: 10s, pause: {{}}}}\n  - at: 20s\n{}",
        applied("", "RollingUpdate", "web:2.0")
    );
    let (sim, steps) = run(&scenario(2, PLAIN, BY_APP, &actions), 40);
    let d = sim.deployment("web").expect("web");
    assert!(d.spec.paused, "the apply left spec.paused alone");
    assert_eq!(d.spec.template.spec.containers[0].image, "web:2.0");
    assert_eq!(sim.store().replica_sets.len(), 1, "no rollout while paused");
    assert_narrated(
        &steps,
        &["the pod template changed (image web:1.0 → web:2.0), but the Deployment is paused"],
    );

    // A manifest that says `paused: false` sets it, and so resumes the rollout.
    let resume = applied("", "RollingUpdate", "web:2.0").replace(
        "        replicas: 10\n",
        "        replicas: 10\n        paused: false\n",
    );
    let actions = format!("  - {{at: 10s, pause: {{}}}}\n  - at: 20s\n{resume}");
    let (sim, steps) = run(&scenario(2, PLAIN, BY_APP, &actions), 40);
    assert!(!sim.deployment("web").expect("web").spec.paused);
    assert_eq!(sim.store().replica_sets.len(), 2, "the rollout goes on");
    assert_narrated(&steps, &["spec.paused is now false"]);

    let actions = format!(
        "  - at: 5s\n{}\n  - {{at: 10s, rollout_restart: {{}}}}\n  - at: 40s\n{}",
        applied("", "RollingUpdate", "web:1.0"),
        applied("", "RollingUpdate", "web:1.0")
    );
    let (sim, steps) = run(&scenario(2, PLAIN, BY_APP, &actions), 50);
    let d = sim.deployment("web").expect("web");
    assert!(
        d.spec
            .template
            .metadata
            .annotations
            .contains_key("kubectl.kubernetes.io/restartedAt"),
        "the restart's annotation survives the apply"
    );
    let last = steps
        .iter()
        .rev()
        .find(|s| s.narration.starts_with("deployment.apps/web"))
        .map(|s| s.narration.clone());
    assert_eq!(last.as_deref(), Some("deployment.apps/web unchanged."));
}

/// `spec.strategy` is patched with `retainKeys`: applying `type: Recreate` over a live
/// RollingUpdate strategy (its `rollingUpdate` filled in by the API server) drops
/// `rollingUpdate` instead of failing validation, as on a real cluster.
#[test]
fn applying_recreate_drops_the_defaulted_rolling_update() {
    let actions = format!("  - at: 10s\n{}", applied("", "Recreate", "web:1.0"));
    let (sim, steps) = run(&scenario(2, PLAIN, BY_APP, &actions), 20);
    let d = sim.deployment("web").expect("web");
    assert_eq!(
        d.spec.strategy.type_.as_ref().map(|t| t.as_str()),
        Some("Recreate")
    );
    assert!(d.spec.strategy.rolling_update.is_none());
    assert_narrated(&steps, &["deployment.apps/web configured"]);
}

/// §5.1: a change of replicas is a scaling event only while some ReplicaSet wants pods; from
/// zero, the rollout grows the new ReplicaSet instead of sharing out a difference. Paused,
/// `sync` sizes the ReplicaSet `FindActiveOrLatest` picks: with none active, the new one.
#[test]
fn scaling_up_from_zero_is_not_a_scaling_event() {
    let actions = "  - {at: 10s, scale: 0}\n  - {at: 20s, scale: 3}";
    let (sim, steps) = run(&scenario(2, PLAIN, BY_APP, actions), 30);
    assert_narrated(
        &steps,
        &[
            "spec.replicas 2 → 0 (a scaling event: ReplicaSets are resized, no new rollout)",
            "spec.replicas 0 → 3 (not a scaling event, as no ReplicaSet has pods to resize: the rolling update brings the new ReplicaSet up to 3)",
        ],
    );
    assert_eq!(sim.deployment("web").map(|d| d.status.replicas), Some(3));

    let actions = "  - {at: 10s, scale: 0}\n  - {at: 15s, pause: {}}\n  - {at: 20s, scale: 3}";
    let (sim, steps) = run(&scenario(2, PLAIN, BY_APP, actions), 30);
    let rs = kubectl::new_replica_set_name(&sim, "web").expect("a new ReplicaSet");
    assert_narrated(
        &steps,
        &[
            "spec.replicas 0 → 3 (not a scaling event, as no ReplicaSet has pods to resize: the controller grows the newest ReplicaSet to 3)",
            &format!(
                "spec.replicas is now 3, and no ReplicaSet wants pods, so the new one, {rs}, is chosen: it takes the whole change from 0 to 3."
            ),
        ],
    );
}

/// §9: a rolling update switched to Recreate half-way keeps the new pods it has, and the
/// narration says so instead of claiming old and new never run together.
#[test]
fn recreate_after_a_rolling_update_keeps_the_new_pods() {
    let actions = format!(
        "  - {{at: 10s, set_image: web:2.0}}\n  - at: 20s\n{}",
        applied("", "Recreate", "web:2.0")
    );
    let (_, steps) = run(&scenario(10, PLAIN, BY_APP, &actions), 30);
    assert_narrated(
        &steps,
        &[
            "The Recreate strategy scales every old ReplicaSet to 0 before it grows the new one: web-",
        ],
    );
    assert!(
        !steps
            .iter()
            .any(|s| s.narration.contains("never runs old and new pods together")),
        "the new ReplicaSet already had pods"
    );
}

/// kubectl's own lines: `delete` names the namespace (kubectl ≥ v1.34), and `scale` reports
/// `scaled` even when the count was already the one asked for.
#[test]
fn delete_and_scale_print_what_kubectl_prints() {
    let actions = "  - {at: 20s, delete_pod: web-}\n  - {at: 25s, scale: 2}";
    let (_, steps) = run(&scenario(2, PLAIN, BY_APP, actions), 30);
    assert_narrated(
        &steps,
        &[
            "\" deleted from default namespace: it gets a deletionTimestamp",
            "deployment.apps/web scaled: spec.replicas already was 2, so nothing changes.",
        ],
    );
}

/// kubectl's refusals around `rollout restart` (`objectrestarter`, `rollout_restart.go`): a
/// paused Deployment, and a second restart within the same second, whose patch is empty; and
/// `set image` to the image already there, which sends nothing and prints nothing.
#[test]
fn restart_and_set_image_refuse_or_skip_like_kubectl() {
    let actions = "  - {at: 5s, rollout_restart: {}}\n  - {at: 5s, rollout_restart: {}}\n  - {at: 8s, set_image: web:1.0}\n  - {at: 10s, pause: {}}\n  - {at: 12s, rollout_restart: {}}\n  - {at: 14s, set_image: web:2.0}";
    let (sim, steps) = run(&scenario(1, PLAIN, BY_APP, actions), 20);
    assert_narrated(
        &steps,
        &[
            "error: failed to create patch for web: if restart has already been triggered within the past second, please wait before attempting to trigger another",
            "kubectl set image prints nothing: the container already runs web:1.0",
            "error: deployments.apps \"web\" can't restart paused deployment (run rollout resume first)",
            "but the Deployment is paused, so no rollout starts until kubectl rollout resume",
        ],
    );
    // The first restart, the pause and the paused set image each bump the generation; nothing
    // else does.
    assert_eq!(
        sim.deployment("web").map(|d| d.metadata.generation),
        Some(4)
    );
}

/// Apply compares what the manifest means, key order and layout aside: the same manifest
/// written in block style and another key order is `unchanged`.
#[test]
fn reapplying_the_same_manifest_differently_laid_out_is_unchanged() {
    let actions = "  - at: 5s\n    apply:\n      kind: Deployment\n      apiVersion: apps/v1\n      metadata:\n        name: web\n      spec:\n        template:\n          spec:\n            containers:\n              - readinessProbe: {httpGet: {port: 8080, path: /}}\n                image: web:1.0\n                name: web\n          metadata: {labels: {tier: fe, app: web}}\n        selector: {matchLabels: {app: web}}\n        replicas: 1";
    let (sim, steps) = run(&scenario(1, PLAIN, BY_APP, actions), 10);
    assert_narrated(&steps, &["deployment.apps/web unchanged."]);
    assert_eq!(
        sim.deployment("web").map(|d| d.metadata.generation),
        Some(1)
    );
}

/// Apply's three-way merge of annotations: a key the last applied manifest set and this one
/// leaves out is removed, any other live key stays. So the change cause a rollback copies back
/// survives the next apply, whose revision shows it, as on a real cluster.
#[test]
fn apply_keeps_annotations_it_never_set() {
    let actions = format!(
        "  - at: 10s\n{}\n  - {{at: 30s, rollout_undo: {{}}}}\n  - at: 50s\n{}",
        applied("", "RollingUpdate", "web:2.0"),
        applied("", "RollingUpdate", "web:3.0")
    );
    let meta = "{name: web, annotations: {kubernetes.io/change-cause: v1}}";
    let (sim, _) = run(&scenario(10, meta, BY_APP, &actions), 60);
    let history = kubectl::rollout_history(&sim, "web", None).unwrap_or_else(|e| e);
    let rows: Vec<&str> = history
        .lines()
        .skip(2)
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .collect();
    // Revision 2 dropped the cause its manifest no longer set; the undo (revision 3) copied it
    // back; the apply after it never set it, so revision 4 keeps it.
    assert_eq!(
        rows,
        ["2         <none>", "3         v1", "4         v1"],
        "{history}"
    );
}

/// §18.1: kubectl prints a refused apply as `The Deployment "<name>" is invalid: <cause>`.
#[test]
fn a_refused_apply_reads_like_kubectl() {
    let actions = "  - at: 5s\n    apply:\n      apiVersion: apps/v1\n      kind: Deployment\n      metadata: {name: web}\n      spec:\n        replicas: 1\n        selector: {matchLabels: {app: web2}}\n        template:\n          metadata: {labels: {app: web2}}\n          spec:\n            containers: [{name: web, image: web:1.0}]";
    let (_, steps) = run(&scenario(1, PLAIN, BY_APP, actions), 10);
    assert_narrated(
        &steps,
        &[
            "The Deployment \"web\" is invalid: spec.selector: Invalid value: {\"matchLabels\":{\"app\":\"web2\"}}: field is immutable",
        ],
    );
    // A manifest the API server refuses for its values is judged when it is applied: the
    // scenario loads, and the apply is a step that shows the refusal and changes nothing.
    let negative = "  - at: 5s\n    apply:\n      apiVersion: apps/v1\n      kind: Deployment\n      metadata: {name: web}\n      spec:\n        replicas: -1\n        selector: {matchLabels: {app: web}}\n        template:\n          metadata: {labels: {app: web}}\n          spec:\n            containers: [{name: web, image: web:1.0}]";
    let (sim, steps) = run(&scenario(1, PLAIN, BY_APP, negative), 10);
    assert_narrated(
        &steps,
        &[
            "The Deployment \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0",
        ],
    );
    assert_eq!(
        sim.deployment("web").map(|d| d.metadata.generation),
        Some(1)
    );
}

/// kubectl's wide printers use `LabelSelectorAsSelector(...).String()`: expressions are
/// printed too, sorted by key with the labels.
#[test]
fn the_wide_selector_column_prints_match_expressions() {
    let selector =
        "{matchLabels: {app: web}, matchExpressions: [{key: tier, operator: In, values: [fe]}]}";
    let (sim, steps) = run(&scenario(2, PLAIN, selector, "  []"), 5);
    let m = Moment::new(&sim, &steps).at(Time::from_secs(5));
    let deploy = kubectl::get(&m, &[Resource::Deployments], true);
    assert!(deploy.contains(" app=web,tier in (fe)\n"), "{deploy}");
    let rs = kubectl::get(&m, &[Resource::ReplicaSets], true);
    assert!(
        rs.lines().nth(1).is_some_and(
            |l| l.contains(" app=web,pod-template-hash=") && l.ends_with(",tier in (fe)")
        ),
        "{rs}"
    );
}

/// Counted nouns agree with their counts: a single-replica Deployment with
/// `revisionHistoryLimit: 0` narrates one replica, one pod and one old ReplicaSet in the
/// singular (§11 for the clean-up the last sentence explains).
#[test]
fn single_counts_read_in_the_singular() {
    let yaml = scenario(1, PLAIN, BY_APP, "  - {at: 10s, set_image: web:1.1}").replace(
        "    replicas: 1\n",
        "    replicas: 1\n    revisionHistoryLimit: 0\n",
    );
    let (_, steps) = run(&yaml, 120);
    assert_narrated(
        &steps,
        &[
            "(revision 1) with 1 replica: there are no old pods",
            "wants 1 pod and has 0 active",
            "counts 1 of 1 pod ready",
            "The 1 replica is updated and available",
            "revisionHistoryLimit is 0 and there is 1 old ReplicaSet, so the oldest empty one is deleted",
        ],
    );
    let all: String = steps.iter().map(|s| s.narration.as_str()).collect();
    for wrong in ["1 replicas", "1 pods ", "All 1 ", "1 old ReplicaSets"] {
        assert!(!all.contains(wrong), "narration says {wrong:?}");
    }
}

/// `kubectl describe deployment` (kubectl v1.35's `DeploymentDescriber`) after a completed
/// rolling update: the Replicas line, the strategy, the pod template as `DescribePodTemplate`
/// prints it, the conditions with the space kubectl leaves after the type, no old ReplicaSet
/// (kubectl lists only those that still want pods) and the new one, and the ScalingReplicaSet
/// events, all aligned by one tab writer.
#[test]
fn describe_deployment_reads_like_kubectl() {
    let yaml = bundled("rolling-update.yaml");
    let (sim, steps) = run(&yaml, 75);
    let m = Moment::new(&sim, &steps).at(Time::from_secs(75));
    let text = kubectl::describe_deployment(&m, "web").unwrap_or_else(|e| e);
    let expected = "\
Name:                   web
Namespace:              default
CreationTimestamp:      Thu, 01 Jan 2026 00:00:00 +0000
Labels:                 app=web
Annotations:            deployment.kubernetes.io/revision: 2
Selector:               app=web
Replicas:               10 desired | 10 updated | 10 total | 10 available | 0 unavailable
StrategyType:           RollingUpdate
MinReadySeconds:        0
RollingUpdateStrategy:  25% max unavailable, 25% max surge
Pod Template:
  Labels:  app=web
  Containers:
   web:
    Image:      web:2.0
    Port:       8080/TCP
    Host Port:  0/TCP
    Requests:
      cpu:         250m
      memory:      128Mi
    Readiness:     http-get http://:8080/healthz delay=0s timeout=1s period=5s #success=1 #failure=3
    Environment:   <none>
    Mounts:        <none>
  Volumes:         <none>
  Node-Selectors:  <none>
  Tolerations:     <none>
Conditions:
  Type           Status  Reason
  ----           ------  ------
  Available      True    MinimumReplicasAvailable
  Progressing    True    NewReplicaSetAvailable
OldReplicaSets:  web-c676df4db (0/0 replicas created)
NewReplicaSet:   web-555bf46d9f (10/10 replicas created)
Events:
  Type    Reason             Age   From                   Message
  ----    ------             ----  ----                   -------
  Normal  ScalingReplicaSet  75s   deployment-controller  Scaled up replica set web-c676df4db from 0 to 10
";
    assert!(text.starts_with(expected), "{text}");
    assert!(
        text.ends_with(
            "  Normal  ScalingReplicaSet  2s    deployment-controller  Scaled down replica set web-c676df4db from 3 to 0\n"
        ),
        "{text}"
    );
    // Mid-rollout the old ReplicaSet still wants pods, so it is listed.
    let (sim, steps) = run(&yaml, 61);
    let m = Moment::new(&sim, &steps).at(Time::from_secs(61));
    let text = kubectl::describe_deployment(&m, "web").unwrap_or_else(|e| e);
    assert!(
        text.contains(
            "OldReplicaSets:  web-c676df4db (8/8 replicas created)\nNewReplicaSet:   web-555bf46d9f (5/5 replicas created)\n"
        ),
        "{text}"
    );
    assert_eq!(
        kubectl::describe_deployment(&m, "nope"),
        Err("Error from server (NotFound): deployments.apps \"nope\" not found".to_string())
    );
}

/// `kubectl describe replicaset` (kubectl v1.35's `describeReplicaSet`) of the old ReplicaSet
/// three seconds into the scale-down: `current / desired` is the ReplicaSet's status and spec
/// (8 / 8, the terminating pods no longer count), while `Pods Status` counts every pod it still
/// controls by phase, so the two pods shutting down are among the 10 Running.
#[test]
fn describe_replica_set_reads_like_kubectl() {
    let yaml = bundled("rolling-update.yaml");
    let (sim, steps) = run(&yaml, 63);
    let m = Moment::new(&sim, &steps).at(Time::from_secs(63));
    let text = kubectl::describe_replica_set(&m, "web-c676df4db").unwrap_or_else(|e| e);
    let expected = "\
Name:           web-c676df4db
Namespace:      default
Selector:       app=web,pod-template-hash=c676df4db
Labels:         app=web
                pod-template-hash=c676df4db
Annotations:    deployment.kubernetes.io/desired-replicas: 10
                deployment.kubernetes.io/max-replicas: 13
                deployment.kubernetes.io/revision: 1
Controlled By:  Deployment/web
Replicas:       8 current / 8 desired
Pods Status:    10 Running / 0 Waiting / 0 Succeeded / 0 Failed
Pod Template:
  Labels:  app=web
           pod-template-hash=c676df4db
  Containers:
   web:
    Image:      web:1.0
";
    assert!(text.starts_with(expected), "{text}");
    assert!(
        text.contains("  Tolerations:     <none>\nEvents:\n  Type    Reason            Age   From                   Message\n"),
        "{text}"
    );
    assert!(
        text.ends_with(
            "  Normal  SuccessfulDelete  3s    replicaset-controller  Deleted pod: web-c676df4db-gw7nc\n"
        ),
        "{text}"
    );
    assert!(!text.contains("Conditions:"), "{text}");
    assert_eq!(
        kubectl::describe_replica_set(&m, "nope"),
        Err("Error from server (NotFound): replicasets.apps \"nope\" not found".to_string())
    );
}

/// The pod template's fields RolloutScope keeps without modelling them still show as kubectl
/// describes them: named ports, command and arguments, limits before requests, environment
/// sources and variables of each source, mounts by path, init containers, volumes, the
/// priority class, node selectors and tolerations.
#[test]
fn describe_deployment_shows_the_whole_pod_template() {
    let yaml = scenario(1, PLAIN, BY_APP, "  []")
        .replace(
            "          - name: web\n            image: web:1.0\n",
            "          - name: web
            image: web:1.0
            ports: [{name: http, containerPort: 8080}, {containerPort: 9090, protocol: UDP}]
            command: [serve]
            args: [--port, \"8080\"]
            resources: {limits: {memory: 256Mi}, requests: {cpu: \"0.5\", memory: 128Mi}}
            env:
              - {name: MODE, value: blue}
              - {name: POD, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
              - {name: PASS, valueFrom: {secretKeyRef: {name: db, key: password}}}
            envFrom: [{configMapRef: {name: web-config}}, {prefix: DB_, secretRef: {name: db, optional: true}}]
            volumeMounts:
              - {name: data, mountPath: /var/data}
              - {name: cfg, mountPath: /etc/web, readOnly: true}
",
        )
        .replace(
            "actions:\n",
            "        volumes: [{name: data, emptyDir: {}}, {name: cfg, configMap: {name: web}}, {name: info, downwardAPI: {items: [{path: labels, fieldRef: {fieldPath: metadata.labels}}, {path: cpu, resourceFieldRef: {containerName: web, resource: limits.cpu}}]}}]
        priorityClassName: high
        initContainers: [{name: migrate, image: \"web:1.0\", command: [migrate, --up]}]
        nodeSelector: {disk: ssd}
        tolerations: [{key: dedicated, operator: Equal, value: web, effect: NoSchedule}]
actions:
",
        );
    let (sim, steps) = run(&yaml, 5);
    let m = Moment::new(&sim, &steps).at(Time::from_secs(5));
    let text = kubectl::describe_deployment(&m, "web").unwrap_or_else(|e| e);
    let expected = "\
  Init Containers:
   migrate:
    Image:      web:1.0
    Port:       <none>
    Host Port:  <none>
    Command:
      migrate
      --up
    Environment:  <none>
    Mounts:       <none>
  Containers:
   web:
    Image:       web:1.0
    Ports:       8080/TCP (http), 9090/UDP
    Host Ports:  0/TCP (http), 0/UDP
    Command:
      serve
    Args:
      --port
      8080
    Limits:
      memory:  256Mi
    Requests:
      cpu:      500m
      memory:   128Mi
    Readiness:  http-get http://:8080/ delay=0s timeout=1s period=10s #success=1 #failure=3
    Environment Variables from:
      web-config  ConfigMap                 Optional: false
      db          Secret with prefix 'DB_'  Optional: true
    Environment:
      MODE:  blue
      POD:    (v1:metadata.name)
      PASS:  <set to the key 'password' in secret 'db'>  Optional: false
    Mounts:
      /etc/web from cfg (ro)
      /var/data from data (rw)
  Volumes:
   data:
    Type:       EmptyDir (a temporary directory that shares a pod's lifetime)
    Medium:
    SizeLimit:  <unset>
   cfg:
    Type:      ConfigMap (a volume populated by a ConfigMap)
    Name:      web
    Optional:  false
   info:
    Type:  DownwardAPI (a volume populated by information about the pod)
    Items:
      metadata.labels -> labels
      limits.cpu -> cpu
  Priority Class Name:  high
  Node-Selectors:       disk=ssd
  Tolerations:          dedicated=web:NoSchedule
"
    // An empty last cell after a tab is still padded by the tab writer, as in kubectl.
    .replace("    Medium:\n", "    Medium:     \n");
    assert!(text.contains(&expected), "{text}");
}

/// `kubectl describe pod` shows each container's own requests (`describeResources` per
/// container), not the pod's total under every container.
#[test]
fn describe_pod_shows_each_containers_own_requests() {
    let yaml = scenario(1, PLAIN, BY_APP, "  []").replace(
        "          - name: web\n            image: web:1.0\n",
        "          - name: side
            image: web:1.0
            resources: {requests: {cpu: 50m, memory: 32Mi}}
          - name: web
            image: web:1.0
            resources: {requests: {cpu: 100m, memory: 64Mi}}
",
    );
    let (sim, steps) = run(&yaml, 5);
    let m = Moment::new(&sim, &steps).at(Time::from_secs(5));
    let pod = sim.store().pods.keys().next().map(|k| k.to_string());
    let text = kubectl::describe_pod(&m, pod.as_deref().unwrap_or("")).unwrap_or_else(|e| e);
    let cpus: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("cpu:"))
        .map(|l| l.trim_start().trim_start_matches("cpu:").trim())
        .collect();
    assert_eq!(cpus, ["50m", "100m"], "{text}");
}

/// client-go's event aggregation: a ReplicaSet that creates 15 pods sends nine
/// `Created pod: …` events, then one combined event whose count grows to 6 and whose wording
/// is the latest pod's; `kubectl describe` and `get events` show that one record.
#[test]
fn similar_events_combine_after_nine_wordings() {
    let (sim, steps) = run(&scenario(15, PLAIN, BY_APP, "  []"), 30);
    let records: Vec<_> = kubectl::event_records(&steps, sim.now())
        .into_iter()
        .filter(|r| r.event.reason == EventReason::SuccessfulCreate)
        .collect();
    let created: Vec<String> = steps
        .iter()
        .flat_map(|s| &s.events)
        .filter(|e| e.reason == EventReason::SuccessfulCreate)
        .map(|e| e.message.clone())
        .collect();
    assert_eq!(created.len(), 15);
    assert_eq!(records.len(), 10, "{records:?}");
    assert!(
        records[..9]
            .iter()
            .all(|r| r.count == 1 && r.event.message.starts_with("Created pod: "))
    );
    let combined = &records[9];
    assert_eq!(combined.count, 6);
    // The tenth and later events were sent combined; the record reads as the last one.
    assert!(created[14].starts_with("(combined from similar events): Created pod: "));
    assert_eq!(combined.event.message, created[14]);
    let m = Moment::new(&sim, &steps).at(Time::from_secs(30));
    let events = kubectl::get_events(&m);
    assert_eq!(
        events.matches("(combined from similar events)").count(),
        1,
        "{events}"
    );
}

/// client-go's spam filter: a pod whose readiness probe never passes keeps failing every
/// period, but the kubelet's recorder sends 25 events about the pod and then one every five
/// minutes. `kubectl` shows the Unhealthy record as the API server has it: the count and last
/// time of the latest failure that got through, the dropped ones counted in.
#[test]
fn the_spam_filter_holds_back_a_noisy_pods_events() {
    let yaml = bundled("readiness-never-passes.yaml");
    let (sim, steps) = run(&yaml, 900);
    // Every Unhealthy emission: time, dropped, pod and wording.
    let unhealthy: Vec<(Time, bool, String, String)> = steps
        .iter()
        .flat_map(|s| s.events.iter().map(move |e| (s.time, e)))
        .filter(|(_, e)| e.reason == EventReason::Unhealthy)
        .map(|(t, e)| {
            (
                t,
                e.dropped,
                e.involved_object.name.clone(),
                e.message.clone(),
            )
        })
        .collect();
    let (pod, message) = unhealthy
        .iter()
        .find(|u| u.1)
        .map(|u| (u.2.clone(), u.3.clone()))
        .expect("some failure is dropped within 15 minutes");
    let mine: Vec<_> = unhealthy
        .iter()
        .filter(|u| u.2 == pod && u.3 == message)
        .collect();
    let last_sent = mine.iter().rposition(|u| !u.1).expect("one was sent");
    let record = kubectl::event_records(&steps, sim.now())
        .into_iter()
        .find(|r| r.event.involved_object.name == pod && r.event.message == message)
        .expect("the pod's Unhealthy record");
    assert!(last_sent + 1 < mine.len(), "the latest ones were dropped");
    assert_eq!(record.count as usize, last_sent + 1);
    assert_eq!(record.last_timestamp, mine[last_sent].0.truncate_to_secs());
    assert!(!record.event.dropped);
    // The dropped failures show in the trace, marked.
    let text: String = steps.iter().map(|s| s.to_string()).collect();
    assert!(text.contains(
        "[dropped by the recorder's spam filter: 25 events per object, then 1 per 5 min]"
    ));
}

/// A port's host port and a TCP probe's host are part of the template: kubectl describes them,
/// and changing one alone starts a new rollout (`EqualIgnoreHash` compares the whole
/// template). Tolerations are listed by key, the manifest's order kept on ties.
#[test]
fn host_ports_probe_hosts_and_tolerations_are_kept_and_described() {
    let with = |host_port: u32| {
        scenario(1, PLAIN, BY_APP, "  []")
            .replace(
                "          - name: web\n            image: web:1.0\n",
                &format!(
                    "          - name: web
            image: web:1.0
            ports: [{{containerPort: 80, hostPort: {host_port}}}]
            livenessProbe: {{tcpSocket: {{host: 10.0.0.1, port: 80}}}}
"
                ),
            )
            .replace(
                "actions:\n",
                "        tolerations: [{key: b-b, operator: Exists}, {key: b, value: x, effect: NoSchedule}, {operator: Exists}]
actions:
",
            )
    };
    let (sim, steps) = run(&with(8080), 5);
    let m = Moment::new(&sim, &steps).at(Time::from_secs(5));
    let text = kubectl::describe_deployment(&m, "web").unwrap_or_else(|e| e);
    assert!(text.contains("    Host Port:     8080/TCP\n"), "{text}");
    assert!(
        text.contains("    Liveness:      tcp-socket 10.0.0.1:80 "),
        "{text}"
    );
    assert!(
        text.contains("  Tolerations:     op=Exists\n                   b=x:NoSchedule\n                   b-b op=Exists\n"),
        "{text}"
    );
    // Without a tab writer (`rollout history --revision`) the raw continuation shows: a tab
    // alone, as `printPodTolerationsMultiline` writes it.
    let history = kubectl::rollout_history(&sim, "web", Some(1)).unwrap_or_else(|e| e);
    assert!(
        history.contains("  Tolerations:\top=Exists\n\tb=x:NoSchedule\n\tb-b op=Exists\n"),
        "{history}"
    );
    let decode = |yaml: &str| {
        rolloutscope::sim::scenario::Scenario::parse(yaml)
            .map(|s| s.deployment.spec.template.clone())
            .map_err(|e| format!("{e:?}"))
    };
    assert_ne!(decode(&with(8080)), decode(&with(8081)));
}

/// Quantities are stored canonically, as the API server's decoding into `resource.Quantity`
/// leaves them: a manifest that only writes the same amounts differently (`0.5` as `500m`,
/// `1024Mi` as `1Gi`, `"1000000"` as `1M`) is no change (kubectl says `unchanged`, no new
/// ReplicaSet, no new generation), and describe prints the canonical text.
#[test]
fn quantities_are_stored_canonically() {
    let yaml = r#"
name: quantities
seed: 1
cluster:
  nodes:
    - {name: node-1, cpu: "4", memory: 8Gi}
deployment:
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    replicas: 2
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers:
          - name: web
            image: web:1.0
            resources:
              requests: {cpu: 0.5, memory: 1024Mi, ephemeral-storage: "1000000"}
              limits: {cpu: "1", memory: 1.5Gi}
actions:
  - at: 30s
    apply:
      apiVersion: apps/v1
      kind: Deployment
      metadata: {name: web}
      spec:
        replicas: 2
        selector: {matchLabels: {app: web}}
        template:
          metadata: {labels: {app: web}}
          spec:
            containers:
              - name: web
                image: web:1.0
                resources:
                  requests: {cpu: 500m, memory: 1Gi, ephemeral-storage: 1M}
                  limits: {cpu: 1000m, memory: 1536Mi}
run_until: 60s
"#;
    let (sim, steps) = run(yaml, 60);
    // The same template: no new ReplicaSet. The manifest kubectl records did change, so apply
    // patches that annotation ("configured") and the API server bumps the generation.
    assert_eq!(sim.store().replica_sets.len(), 1);
    let d = sim.deployment("web").expect("the Deployment exists");
    assert_eq!(d.metadata.generation, 2);
    assert_narrated(
        &steps,
        &[
            "deployment.apps/web configured: only the kubectl.kubernetes.io/last-applied-configuration annotation changed",
        ],
    );
    let m = Moment::new(&sim, &steps).at(Time::from_secs(60));
    let text = kubectl::describe_deployment(&m, "web").unwrap_or_else(|e| e);
    let want = "\
    Limits:
      cpu:     1
      memory:  1536Mi
    Requests:
      cpu:                500m
      ephemeral-storage:  1M
      memory:             1Gi
";
    assert!(text.contains(want), "{text}");
}

/// §17 from the instant `kubectl set image` lands: the watch first sees the new generation not
/// yet observed, then one line per Deployment write (the controller's annotation update and
/// each status update), identical ones repeated, until the rollout is done. The first pass's
/// own status write is refused with a conflict (its copy is stale after the annotation
/// update), so `0 out of 10` is printed once, by the next pass's write.
#[test]
fn rollout_status_watch_starts_at_the_spec_update() {
    let yaml = bundled("rolling-update.yaml");
    let mut sim = Scenario::parse(&yaml)
        .unwrap_or_else(|e| panic!("{e:?}"))
        .sim();
    while let Some(step) = sim.step() {
        if step.actor == "kubectl" && step.time > Time::ZERO {
            break;
        }
    }
    let (out, end) =
        kubectl::rollout_status_watch(&mut sim, "web", None, Time::from_secs(600), false);
    assert_eq!(end, Ok(()));
    let w = |rest: &str| format!("Waiting for deployment \"web\" rollout to finish: {rest}...");
    let mut want = vec![
        "Waiting for deployment spec update to be observed...".to_string(),
        "Waiting for deployment spec update to be observed...".to_string(),
    ];
    for (n, times) in [(0, 1), (3, 1), (5, 4), (8, 4)] {
        want.extend(
            (0..times).map(|_| w(&format!("{n} out of 10 new replicas have been updated"))),
        );
    }
    want.extend((0..3).map(|_| w("3 old replicas are pending termination")));
    want.push(w("8 of 10 updated replicas are available"));
    want.push("deployment \"web\" successfully rolled out".to_string());
    assert_eq!(out.lines().collect::<Vec<_>>(), want, "{out}");
}

/// Describe shows a template's topology spread constraints (sorted by topology key, with their
/// selectors) and a container's seccomp profile, in the template and in each pod, and a pod
/// without requests or limits is BestEffort.
#[test]
fn describe_shows_spread_constraints_seccomp_and_qos() {
    let yaml = one_pod_scenario(
        "{labels: {app: web}}",
        "
        topologySpreadConstraints:
          - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: web}}}
          - {maxSkew: 2, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule}",
        "
            securityContext: {seccompProfile: {type: RuntimeDefault}}",
        "",
    );
    let yaml = yaml.as_str();
    let (sim, steps) = run(yaml, 20);
    let m = Moment::new(&sim, &steps).at(Time::from_secs(20));
    let spread = "Topology Spread Constraints:  kubernetes.io/hostname:DoNotSchedule when max skew 2 is exceeded\n";
    let zone = "zone:ScheduleAnyway when max skew 1 is exceeded for selector app=web\n";
    let template = kubectl::describe_deployment(&m, "web").unwrap_or_else(|e| e);
    for want in [
        "    SeccompProfile:             RuntimeDefault\n",
        spread,
        zone,
    ] {
        assert!(template.contains(want), "missing {want:?} in\n{template}");
    }
    let pod = crate::first_pod(&sim);
    let text = kubectl::describe_pod(&m, &pod).unwrap_or_else(|e| e);
    for want in [
        "    SeccompProfile:  RuntimeDefault\n",
        "QoS Class:                    BestEffort\n",
        spread,
        zone,
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
}

/// describe pod's header follows the pod: its priority (the class's value, as admission set it)
/// and its priority class, its service account (the namespace has only `default`,
/// so a template names that one or none), the template's annotations with the `restartedAt`
/// that `kubectl rollout restart` put there, and the pod's seccomp profile.
#[test]
fn describe_pod_header_follows_the_pod() {
    let yaml = one_pod_scenario(
        "{labels: {app: web}, annotations: {team: blue}}",
        "
        serviceAccountName: default
        priorityClassName: system-cluster-critical
        securityContext: {seccompProfile: {type: RuntimeDefault}}",
        "",
        "
  - {at: 20s, rollout_restart: {}}",
    );
    let yaml = yaml.as_str();
    let (sim, steps) = run(yaml, 60);
    let m = Moment::new(&sim, &steps).at(Time::from_secs(60));
    let pod = sim
        .store()
        .pods
        .values()
        .find(|p| p.metadata.deletion_timestamp.is_none())
        .map(|p| p.metadata.name.clone())
        .unwrap_or_default();
    let text = kubectl::describe_pod(&m, &pod).unwrap_or_else(|e| e);
    for want in [
        "Priority:             2000000000\nPriority Class Name:  system-cluster-critical\nService Account:      default\n",
        "Annotations:          kubectl.kubernetes.io/restartedAt: 2026-01-01T00:00:20Z\n                      team: blue\nStatus:               Running\nSeccompProfile:       RuntimeDefault\n",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
}

/// `get pod -o json` of a pod whose template sets who its process runs as: the runtime reports
/// `runAsUser` and `runAsGroup` (the container's over the pod's), and the groups with the pod's
/// `supplementalGroups` and `fsGroup`.
#[test]
fn get_pod_reports_the_user_the_security_context_asks_for() {
    let yaml = one_pod_scenario(
        "{labels: {app: web}}",
        "
        securityContext: {runAsUser: 1000, runAsGroup: 3000, fsGroup: 2000, supplementalGroups: [4000]}",
        "
            securityContext: {runAsUser: 1001}",
        "",
    );
    let (sim, steps) = run(&yaml, 30);
    let m = Moment::new(&sim, &steps).at(Time::from_secs(30));
    let (text, missing) = rolloutscope::sim::kubectl_yaml::get_as(
        &m,
        &[(Resource::Pods, None)],
        rolloutscope::sim::kubectl_yaml::Output::Json,
    )
    .expect("pods print as JSON");
    assert!(missing.is_empty());
    let list: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(
        list["items"][0]["status"]["containerStatuses"][0]["user"],
        serde_json::json!({"linux": {"gid": 3000, "supplementalGroups": [2000, 3000, 4000], "uid": 1001}})
    );
}

/// `verifyRunAsNonRoot`: `runAsNonRoot: true` without a `runAsUser` cannot start a container
/// whose image runs as root, nor with `runAsUser: 0` (the kubelet's
/// CreateContainerConfigError, and the diagnosis says why); a non-zero `runAsUser`, or an image
/// that runs as another user, starts. A `runtimeClassName` is refused at admission: the
/// cluster has no RuntimeClass.
#[test]
fn run_as_non_root_needs_a_non_root_user() {
    let stuck = |spec: &str, container: &str, images: &str| {
        let yaml = one_pod_scenario("{labels: {app: web}}", spec, container, "")
            .replace("deployment:\n", &format!("{images}deployment:\n"));
        let (sim, steps) = run(&yaml, 30);
        let pod = sim.store().pods.values().next().cloned();
        let message = pod
            .as_ref()
            .and_then(|p| match &p.status.container_statuses[0].state {
                rolloutscope::sim::api::ContainerState::Waiting { reason, message }
                    if reason == "CreateContainerConfigError" =>
                {
                    Some(message.clone())
                }
                _ => None,
            });
        (sim, steps, pod, message)
    };
    let (sim, steps, pod, message) = stuck(
        "
        securityContext: {runAsNonRoot: true}",
        "",
        "",
    );
    let pod = pod.expect("a pod");
    let want = format!(
        "container has runAsNonRoot and image will run as root (pod: \"{}_default({})\", container: web)",
        pod.metadata.name, pod.metadata.uid
    );
    assert_eq!(message.as_deref(), Some(want.as_str()));
    assert!(messages(&steps, EventReason::Failed).contains(&format!("Error: {want}")));
    let d = diagnose(&sim, &steps, "web");
    assert_eq!(d.verdict.cause, Cause::ContainerConfig);
    assert!(
        d.verdict.summary.contains("asks for runAsNonRoot"),
        "{}",
        d.verdict.summary
    );
    let (.., message) = stuck(
        "",
        "
            securityContext: {runAsNonRoot: true, runAsUser: 0}",
        "",
    );
    assert!(
        message
            .is_some_and(|m| m.starts_with("container's runAsUser breaks non-root policy (pod: ")),
    );
    for (spec, images) in [
        (
            "
        securityContext: {runAsNonRoot: true, runAsUser: 1000}",
            "",
        ),
        (
            "
        securityContext: {runAsNonRoot: true}",
            "images:\n  web:1.0: {user: 101}\n",
        ),
    ] {
        let (_, _, pod, message) = stuck(spec, "", images);
        assert_eq!(message, None, "{spec} {images}");
        assert!(pod.is_some_and(|p| p.is_ready()), "{spec} {images}");
    }
    let yaml = one_pod_scenario(
        "{labels: {app: web}}",
        "
        runtimeClassName: gvisor",
        "",
        "",
    );
    let (sim, steps) = run(&yaml, 10);
    assert!(sim.store().pods.is_empty());
    let refusals = messages(&steps, EventReason::FailedCreate);
    assert!(
        refusals
            .first()
            .is_some_and(|m| m.starts_with("Error creating: pods \"web-")
                && m.ends_with(
                    "-\" is forbidden: pod rejected: RuntimeClass \"gvisor\" not found"
                )),
        "{refusals:?}"
    );
}

/// §18.2: a scenario file's errors come in line order, but the Deployment's keep the API
/// server's order among themselves (`spec.replicas` before the selector check), wherever their
/// fields sit in the manifest.
#[test]
fn the_deployment_errors_keep_the_api_servers_order() {
    let yaml = "images:\n  web:1.0: {pull_time: soon}\ndeployment:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web}\n  spec:\n    selector: {matchLabels: {app: other}}\n    template:\n      metadata: {labels: {app: web}}\n      spec:\n        containers:\n          - {name: web, image: web:1.0}\n    replicas: -1\nactions:\n  - {at: soon, scale: 2}\n";
    let errors = Scenario::parse(yaml).expect_err("the file is refused");
    let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(
        fields,
        [
            "images[web:1.0].pull_time",
            "deployment.spec.replicas",
            "deployment.spec.template.metadata.labels",
            "actions[0].at",
        ],
        "{errors:?}"
    );
}

/// §15.8 and `applySchedulingGatedCondition`: a pod created with scheduling gates carries
/// PodScheduled False (reason SchedulingGated), shows STATUS SchedulingGated, and the scheduler
/// never tries it, so there is no FailedScheduling event.
#[test]
fn a_pod_with_scheduling_gates_waits_untried() {
    let yaml = one_pod_scenario(
        "{labels: {app: web}}",
        "
        schedulingGates: [{name: example.com/quota}]",
        "",
        "",
    );
    let (sim, steps) = run(&yaml, 60);
    let pod = sim.store().pods.values().next().expect("the pod exists");
    assert!(pod.node_name.is_empty(), "never scheduled");
    assert_eq!(pod.kubectl_status(), "SchedulingGated");
    let cond = pod
        .condition(rolloutscope::sim::api::PodConditionType::PodScheduled)
        .expect("PodScheduled");
    assert_eq!(cond.reason.as_deref(), Some("SchedulingGated"));
    assert_eq!(
        cond.message.as_deref(),
        Some("Scheduling is blocked due to non-empty scheduling gates")
    );
    assert!(messages(&steps, EventReason::FailedScheduling).is_empty());
    assert!(messages(&steps, EventReason::Scheduled).is_empty());
    // The diagnosis names the gate, not a scheduling failure.
    let d = diagnose(&sim, &steps, "web");
    assert_eq!(d.verdict.cause, Cause::SchedulingGated);
    assert!(
        d.verdict
            .summary
            .starts_with("1 pod stays Pending with STATUS SchedulingGated")
            && d.verdict.summary.contains("(example.com/quota)"),
        "{}",
        d.verdict.summary
    );
}

/// §15.6: a readiness gate whose condition nobody sets keeps a pod whose containers are all
/// ready not Ready (reason ReadinessGatesNotReady), so the Deployment counts it neither ready
/// nor available; `get pods -o wide` shows READINESS GATES 0/1.
#[test]
fn a_readiness_gate_nobody_sets_keeps_the_pod_not_ready() {
    let yaml = one_pod_scenario(
        "{labels: {app: web}}",
        "
        readinessGates: [{conditionType: example.com/lb-ready}]",
        "",
        "",
    );
    let (sim, steps) = run(&yaml, 60);
    let pod = sim.store().pods.values().next().expect("the pod exists");
    use rolloutscope::sim::api::{ConditionStatus, PodConditionType};
    let status = |t| pod.condition(t).map(|c| c.status);
    assert_eq!(
        status(PodConditionType::ContainersReady),
        Some(ConditionStatus::True)
    );
    let ready = pod.condition(PodConditionType::Ready).expect("Ready");
    assert_eq!(ready.status, ConditionStatus::False);
    assert_eq!(ready.reason.as_deref(), Some("ReadinessGatesNotReady"));
    assert_eq!(
        ready.message.as_deref(),
        Some(
            "corresponding condition of pod readiness gate \"example.com/lb-ready\" does not exist."
        )
    );
    let d = sim.deployment("web").expect("web");
    assert_eq!(d.status.ready_replicas, 0);
    let m = Moment::new(&sim, &steps).at(Time::from_secs(60));
    let wide = kubectl::get(&m, &[Resource::Pods], true);
    assert!(
        wide.lines()
            .nth(1)
            .is_some_and(|l| l.contains(" 1/1 ") && l.trim_end().ends_with(" 0/1")),
        "{wide}"
    );
    // `describe pod` lists the gate before the conditions, `<none>` as no condition has its type.
    let pod_name = pod.metadata.name.clone();
    let text = kubectl::describe_pod(&m, &pod_name).unwrap_or_else(|e| e);
    assert!(
        text.contains(
            "Readiness Gates:\n  Type                   Status\n  example.com/lb-ready   <none> \nConditions:\n"
        ),
        "{text}"
    );
    assert_narrated(&steps, &["ReadinessGatesNotReady"]);
    // The diagnosis blames the gate, not the readiness probe, and kubectl's READY is 1/1.
    let d = diagnose(&sim, &steps, "web");
    assert_eq!(d.verdict.cause, Cause::ReadinessGates);
    assert!(
        d.verdict.summary.starts_with(
            "1 pod has every container ready, yet not Ready: Ready False, reason ReadinessGatesNotReady, because no condition of type \"example.com/lb-ready\" is True on it."
        ),
        "{}",
        d.verdict.summary
    );
    assert!(
        d.application_signals.iter().any(|sig| sig.sees
            == "1 pod shows READY 1/1 (every container ready) but READINESS GATES 0/1: no condition \"example.com/lb-ready\" is True"),
        "{:?}",
        d.application_signals
    );
}

/// `kubectl set image deployment/web *=web:2.0` (a scenario's `set_image` without a container
/// name) sets the image of every container, init containers included, as kubectl's wildcard
/// matches them all.
#[test]
fn set_image_with_the_wildcard_changes_every_container() {
    let yaml = one_pod_scenario(
        "{labels: {app: web}}",
        "
        initContainers: [{name: init, image: web:1.0}]",
        "
          - name: side
            image: web:1.0",
        "
  - {at: 10s, set_image: web:2.0}",
    );
    let (sim, steps) = run(&yaml, 20);
    let d = sim.deployment("web").expect("web");
    let spec = &d.spec.template.spec;
    let images: Vec<&str> = spec
        .init_containers
        .iter()
        .chain(&spec.containers)
        .map(|c| c.image.as_str())
        .collect();
    assert_eq!(images, ["web:2.0", "web:2.0", "web:2.0"]);
    assert_narrated(
        &steps,
        &[
            "deployment.apps/web image updated: the pod template changed (image web:1.0, web:1.0 → web:2.0, web:2.0)",
        ],
    );
}

/// `names.SimpleNameGenerator`: a pod's `generateName` base (`<rs>-`) is cut to 58 characters
/// before the 5 random ones, so a long Deployment name still gives 63-character pod names; the
/// pod keeps its whole `generateName`.
#[test]
fn long_names_give_pods_of_at_most_63_characters() {
    let long = "a-deployment-with-a-name-long-enough-to-need-cutting-short";
    let (sim, _) = run(
        &scenario(
            2,
            &format!("{{name: {long}}}"),
            BY_APP,
            "  - {at: 1s, scale: 3}",
        ),
        10,
    );
    let pods: Vec<&str> = sim.store().pods.keys().map(|k| &**k).collect();
    assert_eq!(pods.len(), 3);
    for p in pods {
        assert_eq!(p.len(), 63, "{p}");
        assert!(p.starts_with(&long[..50]), "{p}");
    }
    for p in sim.store().pods.values() {
        let rs = &p.metadata.owner_references[0].name;
        assert_eq!(p.metadata.generate_name, format!("{rs}-"));
        assert!(p.metadata.generate_name.len() > 58);
    }
}

/// `kubectl events` with nothing recorded yet says so, as kubectl does on stderr.
#[test]
fn kubectl_events_before_any_event_finds_none() {
    let scenario = Scenario::parse(rolloutscope::sim::scenario::BUNDLED[0].1).expect("parses");
    let sim = scenario.sim();
    let m = Moment::new(&sim, &[]);
    assert_eq!(
        kubectl::events(&m),
        Err("No events found in default namespace.".to_string())
    );
}

/// `kubectl set image deployment/web '*=web:3.0'`: the wildcard names every container, as
/// kubectl's `setImage` matches `*`.
#[test]
fn set_image_with_the_wildcard_sets_every_container() {
    let actions = "  - {at: 5s, set_image: {container: \"*\", image: web:3.0}}";
    let (sim, steps) = run(&scenario(2, PLAIN, BY_APP, actions), 6);
    assert_narrated(&steps, &["deployment.apps/web image updated"]);
    let d = sim.deployment("web").expect("web");
    assert_eq!(d.spec.template.spec.images(","), "web:3.0");
}

/// An apply that changes only the Deployment's own labels says so: no rollout, and not "means
/// the same".
#[test]
fn an_apply_of_new_deployment_labels_says_what_changed() {
    let manifest = applied("", "RollingUpdate", "web:1.0");
    let relabelled = manifest.replace(
        "metadata: {name: web, annotations: {}}",
        "metadata: {name: web, annotations: {}, labels: {team: blue}}",
    );
    assert_ne!(manifest, relabelled);
    let actions = format!("  - at: 5s\n{manifest}\n  - at: 10s\n{relabelled}");
    let (_, steps) = run(&scenario(10, PLAIN, BY_APP, &actions), 11);
    assert_narrated(
        &steps,
        &[
            "deployment.apps/web configured: metadata.labels changed (team=blue added): the Deployment's own labels, not its pods', so no new rollout starts.",
        ],
    );
}

/// `kubectl create configmap` checks each key before it sends anything, and the API server
/// checks the name: both refusals read as kubectl prints them, and nothing is created.
#[test]
fn create_configmap_refuses_a_bad_key_or_name_as_kubectl_does() {
    let actions = "  - {at: 5s, create_configmap: {name: c2, data: {\"bad key\": v}}}\n  - {at: 6s, create_configmap: {name: Bad_Name}}\n  - {at: 7s, create_secret: {name: s1, data: {\"..x\": v}}}";
    let (sim, steps) = run(&scenario(1, PLAIN, BY_APP, actions), 8);
    assert_narrated(
        &steps,
        &[
            "was refused: error: \"bad key\" is not a valid key name for a ConfigMap: a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
            "was refused: error: failed to create configmap: ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of",
            "was refused: error: \"..x\" is not valid key name for a Secret must not start with '..'",
        ],
    );
    assert!(sim.store().config_maps.is_empty() && sim.store().secrets.is_empty());
}

/// Deleting a pod that is already terminating changes nothing, and the narration says so.
#[test]
fn deleting_a_terminating_pod_again_changes_nothing() {
    let (before, _) = run(&scenario(1, PLAIN, BY_APP, "  - {at: 100s, scale: 1}"), 10);
    let pod = before
        .store()
        .pods
        .keys()
        .next()
        .expect("a pod")
        .to_string();
    let actions = format!("  - {{at: 10s, delete_pod: {pod}}}\n  - {{at: 12s, delete_pod: {pod}}}");
    let (_, steps) = run(&scenario(1, PLAIN, BY_APP, &actions), 13);
    assert_narrated(
        &steps,
        &["it was being deleted already, so nothing changes: its grace period keeps running"],
    );
    assert_eq!(
        messages(&steps, EventReason::SuccessfulCreate).len(),
        2,
        "one replacement only"
    );
}

/// A value of the wrong kind or a misspelt key in a node or an action's argument is an error,
/// never the default in disguise.
#[test]
fn misspelt_or_mistyped_scenario_values_are_errors() {
    let base = "deployment:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web}\n  spec:\n    selector: {matchLabels: {app: web}}\n    template:\n      metadata: {labels: {app: web}}\n      spec:\n        containers:\n          - {name: web, image: web:1.0}\n";
    let cases: [(&str, &str, &str); 8] = [
        (
            "cluster: {nodes: [{name: n1, pods: \"1\"}]}\n",
            "cluster.nodes[0].pods",
            "Invalid value: \"1\": must be an integer",
        ),
        (
            "cluster: {nodes: [{name: n1, pods: -1}]}\n",
            "cluster.nodes[0].pods",
            "Invalid value: -1: must be greater than or equal to 0",
        ),
        (
            "cluster: {nodes: [{name: n1, labels: [a]}]}\n",
            "cluster.nodes[0].labels",
            "must be a mapping of label keys to values, like {zone: a}",
        ),
        (
            "images: {web:1.0: {exit_code: 256}}\n",
            "images[web:1.0].exit_code",
            "must be an integer from 0 to 255",
        ),
        (
            "actions:\n  - {at: 5s, rollout_undo: {revision: 1}}\n",
            "actions[0].rollout_undo.revision",
            "unknown key (expected one of: to_revision)",
        ),
        (
            "actions:\n  - {at: 5s, create_configmap: {name: x, dat: {a: b}}}\n",
            "actions[0].create_configmap.dat",
            "unknown key (expected one of: name, data)",
        ),
        (
            "actions:\n  - {at: 5s, pause: {now: true}}\n",
            "actions[0].pause.now",
            "unknown key (this action takes no arguments: write {})",
        ),
        (
            "actions:\n  - {at: 5s, set_image: {container: 1, image: web:2.0}}\n",
            "actions[0].set_image.container",
            "must be a container name, or \"*\" for every container",
        ),
    ];
    for (extra, field, message) in cases {
        let yaml = format!("{extra}{base}");
        let errors = Scenario::parse(&yaml).expect_err(&yaml);
        assert!(
            errors
                .iter()
                .any(|e| e.field == field && e.message.ends_with(message)),
            "{yaml}\n{errors:?}"
        );
    }
}

/// A fault aimed at nothing is no refused kubectl command: the step says the fault had no
/// target, with the API server's NotFound.
#[test]
fn a_fault_without_a_target_says_so() {
    let actions = "  - {at: 5s, fail_node: node-9}\n  - {at: 6s, crash_pod: nope}";
    let (_, steps) = run(&scenario(1, PLAIN, BY_APP, actions), 7);
    assert_narrated(
        &steps,
        &[
            "The fault (the kubelet on node-9 stops) has no target: Error from server (NotFound): nodes \"node-9\" not found",
            "The fault (the container of nope crashes) has no target: Error from server (NotFound): pods \"nope\" not found",
        ],
    );
}

/// `run_until: complete` runs at most an hour: an action after that never runs, and the run
/// says so instead of calling the rollout incomplete.
#[test]
fn an_action_past_the_complete_cap_is_named_as_the_reason_the_run_stopped() {
    let yaml = scenario(1, PLAIN, BY_APP, "  - {at: 2h, scale: 3}");
    let parsed = Scenario::parse(&yaml).expect("parses");
    let run = rolloutscope::sim::scenario::run_with(&parsed, |_, _| {});
    assert_eq!(
        run.stopped,
        "an action comes after the 1h0m0s that run_until: complete runs at most, so it never ran (give run_until a time after it)"
    );
}

/// An action after a `run_until` time is allowed (a run may stop early to look at a moment),
/// and the trace's last lines say it never ran.
#[test]
fn the_trace_names_actions_after_run_until() {
    let yaml = scenario(
        1,
        PLAIN,
        BY_APP,
        "  - {at: 5s, scale: 2}\n  - {at: 90s, scale: 3}",
    ) + "run_until: 60s\n";
    let text = rolloutscope::sim::trace_text(&yaml).expect("runs");
    assert!(
        text.ends_with("# never ran: actions[1] at 90s (kubectl scale deployment/web --replicas=3) is after run_until 60s\n"),
        "{text}"
    );
}

/// §12.5 with §2 item 3: with less than a second to its progress deadline, the controller
/// requeues the Deployment at once through the rate limiter, 5 ms later while the queue's token
/// bucket holds tokens. Here a pod's deletion syncs it at exactly its deadline (60 s: not yet
/// past it, as `DeploymentTimedOut` wants the deadline strictly before now), so it turns
/// `ProgressDeadlineExceeded` 5 ms later, not a whole rate-limited tick (100 ms) later.
#[test]
fn the_deadline_is_looked_at_again_five_milliseconds_on() {
    let yaml = scenario(4, PLAIN, BY_APP, "  - {at: 30s, set_image: web:2.0}").replace(
        "    replicas: 4\n",
        "    replicas: 4\n    progressDeadlineSeconds: 30\n",
    );
    let (_, steps) = run(&yaml, 70);
    let flip = steps
        .iter()
        .find(|s| s.narration.contains("reason ProgressDeadlineExceeded"))
        .expect("the rollout passes its deadline");
    let synced_at_deadline = steps
        .iter()
        .any(|s| s.time == Time::from_secs(60) && s.actor.starts_with("deployment-controller"));
    assert!(synced_at_deadline, "no Deployment sync at 60 s");
    assert_eq!(flip.time, Time(60_005));
}

/// §6: a Deployment scaled to 0 in the middle of a rollout may hold nothing, whatever its
/// maxSurge; the narration of the proportional scale-down says so rather than add the surge.
#[test]
fn scaling_to_zero_mid_rollout_allows_no_surge() {
    let yaml = scenario(
        4,
        "{name: web}",
        "{matchLabels: {app: web}}",
        "  - {at: 10s, set_image: web:2.0}\n  - {at: 20s, scale: 0}",
    );
    let (sim, steps) = run(&yaml, 25);
    assert_narrated(
        &steps,
        &["the ReplicaSets may hold 0 in total (spec.replicas is 0, so no surge applies)"],
    );
    assert!(
        sim.store()
            .replica_sets
            .values()
            .all(|rs| rs.spec.replicas == 0)
    );
}

/// The narration's arithmetic says where its numbers come from: a maxUnavailable above the
/// replicas is capped at them, and the Deployment status names what `calculateStatus` counted
/// unavailable pods against (the ReplicaSets' wants as the pass began) when that is not
/// spec.replicas.
#[test]
fn narration_says_where_capped_and_counted_numbers_come_from() {
    let yaml = "
name: capped
cluster: {nodes: [{name: node-1, cpu: '8'}]}
images:
  web:2.0: {ready: never}
deployment:
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    replicas: 2
    strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 5}}
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers:
          - name: web
            image: web:1.0
            readinessProbe: {httpGet: {path: /, port: 8080}}
actions: [{at: 20s, set_image: web:2.0}]
run_until: 40s
";
    let (_, steps) = run(yaml, 40);
    assert_narrated(
        &steps,
        &[
            "Because maxUnavailable is 5, capped at the 2 replicas, at least 2 − 2 = 0 pods must stay available",
        ],
    );
    let rolling = bundled("rolling-update.yaml");
    let (_, steps) = run(&rolling, 61);
    assert_narrated(
        &steps,
        &["(1 unavailable, counted against the 11 pods the ReplicaSets wanted as this pass began)"],
    );
}
