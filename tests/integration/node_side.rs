//! Node-side realism: the stall scenarios' back-off timings, kubectl STATUS transitions, the
//! kubectl tables, and the diagnosis of a Deployment that wants more replicas than are ready.
//! Expectations come from the spec (§15.3 image pull back-off, §15.5 CrashLoopBackOff, §15.8
//! columns) and are written as data.

use rolloutscope::sim::api::{
    ContainerState, ContainerStatus, EventReason, EventType, Pod, PodConditionType, PodPhase, Time,
};
use rolloutscope::sim::diagnosis::{Cause, diagnose};
use rolloutscope::sim::engine::Sim;
use rolloutscope::sim::kubectl::{self, Moment, Resource};
use rolloutscope::sim::scenario::{BUNDLED, Scenario};
use rolloutscope::sim::trace::Step;

fn scenario(file: &str) -> Scenario {
    Scenario::parse(scenario_text(file)).unwrap_or_else(|e| panic!("{file}: {e:?}"))
}

/// The text of a bundled scenario.
fn scenario_text(file: &str) -> &'static str {
    BUNDLED
        .iter()
        .find(|(f, _)| *f == file)
        .map(|(_, y)| *y)
        .unwrap_or_else(|| panic!("{file} is not bundled"))
}

/// Runs a bundled scenario until `at` (simulated seconds).
fn run_until(file: &str, at_secs: u64) -> (Sim, Vec<Step>) {
    run_scenario(scenario(file), at_secs)
}

/// Runs a scenario given as YAML until `at` (simulated seconds).
fn run_yaml(yaml: &str, at_secs: u64) -> (Sim, Vec<Step>) {
    run_scenario(
        Scenario::parse(yaml).unwrap_or_else(|e| panic!("{e:?}")),
        at_secs,
    )
}

/// Runs a scenario given as YAML until `at` (simulated milliseconds), to look at the cluster
/// as it is at that moment.
fn run_yaml_until(yaml: &str, at: Time) -> (Sim, Vec<Step>) {
    let mut sim = Scenario::parse(yaml)
        .unwrap_or_else(|e| panic!("{e:?}"))
        .sim();
    let mut steps = Vec::new();
    while let Some(step) = sim.step_until(at) {
        steps.push(step);
    }
    (sim, steps)
}

fn run_scenario(scenario: Scenario, at_secs: u64) -> (Sim, Vec<Step>) {
    let mut sim = scenario.sim();
    let mut steps = Vec::new();
    while let Some(step) = sim.step_until(Time::from_secs(at_secs)) {
        steps.push(step);
    }
    (sim, steps)
}

/// Times (ms) of the events of one pod with this reason whose message starts with `prefix`.
fn event_times(steps: &[Step], pod: &str, reason: EventReason, prefix: &str) -> Vec<u64> {
    steps
        .iter()
        .flat_map(|s| s.events.iter().map(move |e| (s.time, e)))
        .filter(|(_, e)| {
            e.involved_object.name == pod && e.reason == reason && e.message.starts_with(prefix)
        })
        .map(|(t, _)| t.as_millis())
        .collect()
}

fn first_pod_with_prefix(steps: &[Step], prefix: &str) -> String {
    steps
        .iter()
        .flat_map(|s| &s.events)
        .find(|e| e.involved_object.kind == "Pod" && e.involved_object.name.starts_with(prefix))
        .map(|e| e.involved_object.name.clone())
        .unwrap_or_else(|| panic!("no pod named {prefix}…"))
}

/// Checks each gap (seconds) against its back-off `b`: the kubelet restarts or re-pulls no
/// earlier than the back-off, and by the next pod-worker look after it (at most `slack(b)`
/// later).
fn check_gaps(what: &str, gaps_ms: &[u64], backoffs: &[u64], slack: impl Fn(u64) -> u64) {
    assert!(
        gaps_ms.len() >= backoffs.len(),
        "{what}: expected at least {} gaps, saw {gaps_ms:?}",
        backoffs.len()
    );
    for (i, (&gap, &b)) in gaps_ms.iter().zip(backoffs).enumerate() {
        let lo = b * 1000;
        let hi = lo + slack(b) * 1000;
        assert!(
            (lo..=hi).contains(&gap),
            "{what}: gap {} is {gap} ms, expected between {lo} and {hi} ms (back-off {b}s); all gaps {gaps_ms:?}",
            i + 1
        );
    }
}

#[test]
fn image_pull_back_off_doubles_from_ten_seconds() {
    let (_, steps) = run_until("image-typo.yaml", 180);
    let new_rs_pod = first_pod_with_prefix(
        &steps
            .iter()
            .filter(|s| s.events.iter().any(|e| e.message.contains("web:2.0-typo")))
            .cloned()
            .collect::<Vec<_>>(),
        "web-",
    );
    let failed = event_times(
        &steps,
        &new_rs_pod,
        EventReason::Failed,
        "Failed to pull image",
    );
    let pulling = event_times(&steps, &new_rs_pod, EventReason::Pulling, "Pulling image");
    // Each pull after a failure comes after the back-off, at the kubelet's next retry
    // (10 s × U[1, 1.5) after the last look), so at most 15 s late.
    let gaps: Vec<u64> = failed
        .iter()
        .zip(pulling.iter().skip(1))
        .map(|(f, p)| p - f)
        .collect();
    check_gaps(&new_rs_pod, &gaps, &[10, 20, 40], |_| 15);
    // Every failed pull is followed by `Error: ErrImagePull`; every wait by a BackOff pair.
    let err_pull = event_times(
        &steps,
        &new_rs_pod,
        EventReason::Failed,
        "Error: ErrImagePull",
    );
    assert_eq!(
        err_pull, failed,
        "{new_rs_pod}: one Error: ErrImagePull per failed pull"
    );
    let backoff = event_times(
        &steps,
        &new_rs_pod,
        EventReason::BackOff,
        "Back-off pulling image \"web:2.0-typo\"",
    );
    let err_backoff = event_times(
        &steps,
        &new_rs_pod,
        EventReason::Failed,
        "Error: ImagePullBackOff",
    );
    assert!(!backoff.is_empty());
    assert_eq!(backoff, err_backoff);
    // The pod worker looks again at once after the first failure only, woken by the new
    // sandbox's lifecycle event (1 s × U[1, 1.5) in the model); after a later failure it waits
    // for its own back-off, 10 s × U[1, 1.5), and finds the image still backing off.
    for (i, f) in failed.iter().enumerate() {
        let Some(gap) = backoff.iter().find(|b| **b > *f).map(|b| b - f) else {
            continue;
        };
        let expected = if i == 0 {
            1_000..=1_500
        } else {
            10_000..=15_000
        };
        assert!(
            expected.contains(&gap),
            "{new_rs_pod}: ImagePullBackOff {gap} ms after failed pull {}, expected {expected:?}",
            i + 1
        );
    }
}

/// A one-replica Deployment `web` on one node, with an `images:` block (empty, or ending in a
/// newline), the template's container lines and `run_until`.
fn one_pod_on_one_node(images: &str, containers: &str, run_until: &str) -> String {
    format!(
        r#"
name: one pod
seed: 3
cluster: {{nodes: [{{name: node-1}}]}}
{images}deployment:
  apiVersion: apps/v1
  kind: Deployment
  metadata: {{name: web}}
  spec:
    replicas: 1
    selector: {{matchLabels: {{app: web}}}}
    template:
      metadata: {{labels: {{app: web}}}}
      spec:
        containers:
{containers}
run_until: {run_until}
"#
    )
}

/// `ErrImageNeverPull` fails the pod's sync like a failed pull: the sync the new sandbox's
/// lifecycle event asked for looks again at once, and later looks come on the pod worker's
/// back-off, `10 s × U[1, 1.5)`.
#[test]
fn a_never_pulled_image_is_looked_at_again_like_a_failed_pull() {
    let yaml = one_pod_on_one_node(
        "",
        r#"          - {name: web, image: "web:1.0", imagePullPolicy: Never}"#,
        "60s",
    );
    let (_, steps) = run_yaml(&yaml, 60);
    let pod = first_pod_with_prefix(&steps, "web-");
    let at = event_times(
        &steps,
        &pod,
        EventReason::ErrImageNeverPull,
        "Container image \"web:1.0\" is not present with pull policy of Never",
    );
    let gaps: Vec<u64> = at.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(gaps.len() >= 3, "{at:?}");
    assert!((1_000..=1_500).contains(&gaps[0]), "{gaps:?}");
    assert!(
        gaps[1..].iter().all(|g| (10_000..=15_000).contains(g)),
        "{gaps:?}"
    );
}

/// `SyncPod` starts a pod's containers one after another, and each image pull blocks it: the
/// second container's pull begins when the first container has started.
#[test]
fn a_pods_containers_pull_their_images_in_turn() {
    let yaml = one_pod_on_one_node(
        "images:\n  a:1.0: {pull_time: 2s}\n  b:1.0: {pull_time: 3s}\n",
        "          - {name: a, image: \"a:1.0\"}\n          - {name: b, image: \"b:1.0\"}",
        "20s",
    );
    let (_, steps) = run_yaml(&yaml, 20);
    let pod = first_pod_with_prefix(&steps, "web-");
    let at = |reason, prefix| event_times(&steps, &pod, reason, prefix);
    // When the second pull fails, the sync the new sandbox asked for, held back by both pulls,
    // runs at once (1 s × U[1, 1.5) in the model) and shows ImagePullBackOff.
    let failing = yaml.replace(
        "b:1.0: {pull_time: 3s}",
        "b:1.0: {pull_time: 3s, pull: fail}",
    );
    let (_, failed) = run_yaml(&failing, 20);
    let failed_at = event_times(&failed, &pod, EventReason::Failed, "Error: ErrImagePull");
    let backoff_at = event_times(&failed, &pod, EventReason::BackOff, "Back-off pulling");
    assert_eq!(failed_at.first(), Some(&5_000));
    assert!(
        backoff_at
            .first()
            .is_some_and(|b| (6_000..=6_500).contains(b)),
        "{backoff_at:?}"
    );
    assert_eq!(at(EventReason::Pulling, "Pulling image \"a:1.0\""), [0]);
    assert_eq!(at(EventReason::Pulling, "Pulling image \"b:1.0\""), [2_000]);
    assert_eq!(
        at(EventReason::Started, "Container started"),
        [2_000, 5_000]
    );
    assert_eq!(
        at(
            EventReason::Pulled,
            "Successfully pulled image \"b:1.0\" in 3s (3s including waiting)"
        ),
        [5_000]
    );
}

/// A second container with the image the first one has just pulled finds it on the node: the
/// sync that goes on after the pull starts it at once, `already present on machine`, with no
/// pull of its own.
#[test]
fn a_second_container_of_the_same_image_finds_it_present() {
    let yaml = one_pod_on_one_node(
        "images:\n  a:1.0: {pull_time: 2s}\n",
        "          - {name: a, image: \"a:1.0\"}\n          - {name: b, image: \"a:1.0\"}",
        "10s",
    );
    let (_, steps) = run_yaml(&yaml, 10);
    let pod = first_pod_with_prefix(&steps, "web-");
    let at = |reason, prefix| event_times(&steps, &pod, reason, prefix);
    assert_eq!(at(EventReason::Pulling, "Pulling image"), [0]);
    let b: Vec<(u64, String)> = steps
        .iter()
        .flat_map(|s| s.events.iter().map(move |e| (s.time.as_millis(), e)))
        .filter(|(_, e)| e.involved_object.field_path.as_deref() == Some("spec.containers{b}"))
        .map(|(t, e)| (t, format!("{} {}", e.reason.as_str(), e.message)))
        .collect();
    assert_eq!(
        b,
        [
            (
                2_000,
                "Pulled Container image \"a:1.0\" already present on machine and can be accessed by the pod"
                    .to_string()
            ),
            (2_000, "Created Container created".to_string()),
            (2_000, "Started Container started".to_string()),
        ]
    );
}

#[test]
fn crash_loop_back_off_is_0_10_20_40_80_160_300_seconds() {
    let (_, steps) = run_until("crash-loop.yaml", 900);
    let pod = first_pod_with_prefix(&steps, "web-");
    let started = event_times(&steps, &pod, EventReason::Started, "Container started");
    // The app exits 5 s after each start; the next start is the restart.
    let gaps: Vec<u64> = started.windows(2).map(|w| w[1] - (w[0] + 5000)).collect();
    // Up to 60 s the pod worker looks again after the remaining back-off × U[1, 1.5); beyond
    // that every 60–90 s until it expires (§15.5, v1.35).
    check_gaps(&pod, &gaps, &[0, 10, 20, 40, 80, 160, 300], |b| {
        if b <= 60 { b / 2 + 1 } else { 90 }
    });
    let backoff_msg = format!("Back-off restarting failed container web in pod {pod}_default(");
    assert!(
        !event_times(&steps, &pod, EventReason::BackOff, &backoff_msg).is_empty(),
        "{pod}: no BackOff event"
    );
}

#[test]
fn aggressive_liveness_kills_after_three_failures_and_backs_off() {
    let (_, steps) = run_until("aggressive-liveness.yaml", 360);
    let pod = first_pod_with_prefix(&steps, "web-");
    let killed = event_times(
        &steps,
        &pod,
        EventReason::Killing,
        "Container web failed liveness probe, will be restarted",
    );
    let started = event_times(&steps, &pod, EventReason::Started, "Container started");
    let unhealthy = event_times(
        &steps,
        &pod,
        EventReason::Unhealthy,
        "Liveness probe failed:",
    );
    // One Unhealthy event per failed run: three runs (failureThreshold 3) per container.
    assert!(unhealthy.len() >= 3 * killed.len());
    // In event order: each container instance sees exactly three failed runs, then the kill.
    let mut failures_since_start = 0;
    for e in steps.iter().flat_map(|s| &s.events) {
        if e.involved_object.name != pod {
            continue;
        }
        match e.reason {
            EventReason::Started => failures_since_start = 0,
            EventReason::Unhealthy if e.message.starts_with("Liveness probe failed:") => {
                failures_since_start += 1;
            }
            EventReason::Killing => assert_eq!(
                failures_since_start, 3,
                "{pod}: liveness failures before the kill"
            ),
            _ => {}
        }
    }
    // The app exits 1 s after SIGTERM. The kubelet restarts it in the sync that killed it, and
    // its back-off check looks at the instance before: 30 s back, longer than the back-off
    // (none, 10 s, 20 s), until the back-off reaches 40 s and the fifth restart waits it out
    // from the fifth exit.
    let gaps: Vec<u64> = killed
        .iter()
        .zip(started.iter().skip(1))
        .map(|(k, s)| s - k)
        .collect();
    check_gaps(&pod, &gaps, &[1, 1, 1, 1, 41], |b| b / 2);
    // That fifth kill and its restart attempt are one sync, so the reason is cached before any
    // status shows the exit: the pod goes from Running straight to CrashLoopBackOff, never
    // Error, and its last state is the instance just killed (143, SIGTERM).
    let fifth_exit = Time::from_millis(killed[4] + 1000);
    let (sim, _) = run_scenario(
        scenario("aggressive-liveness.yaml"),
        fifth_exit.as_millis() / 1000 + 1,
    );
    let p = sim.store().pods.get(pod.as_str()).expect("the pod");
    assert_eq!(p.kubectl_status(), "CrashLoopBackOff");
    let cs = &p.status.container_statuses[0];
    assert!(
        matches!(
            cs.last_state,
            Some(ContainerState::Terminated { exit_code: 143, .. })
        ),
        "{cs:?}"
    );
    let statuses = status_transitions("aggressive-liveness.yaml", "web-", 360);
    assert!(
        !statuses.iter().any(|s| s.contains("Error")),
        "{statuses:?}"
    );
}

/// The name of the ReplicaSet whose pod template `matches`, once a bundled scenario has run
/// to `at_secs`.
fn replica_set_where(
    file: &str,
    at_secs: u64,
    matches: impl Fn(&rolloutscope::sim::api::PodSpec) -> bool,
) -> String {
    let (sim, _) = run_until(file, at_secs);
    sim.store()
        .replica_sets
        .values()
        .find(|rs| matches(&rs.spec.template.spec))
        .map(|rs| rs.metadata.name.clone())
        .unwrap_or_else(|| panic!("no such ReplicaSet in {file} at {at_secs}s"))
}

/// The STATUS column of one pod after every step, with repeats folded.
fn status_transitions(file: &str, pod_prefix: &str, limit_secs: u64) -> Vec<String> {
    let mut sim = scenario(file).sim();
    let mut seen: Vec<String> = Vec::new();
    let mut pod_name: Option<String> = None;
    while sim.step_until(Time::from_secs(limit_secs)).is_some() {
        if pod_name.is_none() {
            pod_name = sim
                .store()
                .pods
                .keys()
                .find(|n| n.starts_with(pod_prefix))
                .map(|n| n.to_string());
        }
        let Some(name) = &pod_name else { continue };
        let status = match sim.store().pods.get(name.as_str()) {
            Some(p) => {
                if p.kubectl_status() == "CrashLoopBackOff" {
                    assert_eq!(
                        p.status.phase,
                        PodPhase::Running,
                        "CrashLoopBackOff keeps Running"
                    );
                }
                p.kubectl_status()
            }
            None => "(gone)".to_string(),
        };
        if seen.last() != Some(&status) {
            seen.push(status);
        }
    }
    seen
}

#[test]
fn kubectl_status_transitions_follow_the_kubelet() {
    let crash = status_transitions("crash-loop.yaml", "web-", 130);
    assert_eq!(
        crash,
        [
            "Pending",
            "ContainerCreating",
            "Running",
            "Error",
            "Running",
            "Error",
            "CrashLoopBackOff",
            "Running",
            "Error",
            "CrashLoopBackOff",
            "Running",
            "Error",
            "CrashLoopBackOff",
            "Running",
            "Error",
            "CrashLoopBackOff",
        ],
        "crash-loop.yaml"
    );
    let new_hash = replica_set_where("image-typo.yaml", 31, |spec| {
        spec.containers[0].image == "web:2.0-typo"
    });
    let pulls = status_transitions("image-typo.yaml", &new_hash, 190);
    assert_eq!(
        pulls,
        [
            "Pending",
            "ContainerCreating",
            "ErrImagePull",
            "ImagePullBackOff",
            "ErrImagePull",
            "ImagePullBackOff",
            "ErrImagePull",
            "ImagePullBackOff",
            "ErrImagePull",
            "ImagePullBackOff",
            // Deleted while its container had never run: the status manager's `TerminatePod`
            // reports the container as ContainerStatusUnknown (exit code 137) and the pod as
            // Failed, which kubectl shows before the pod object goes.
            "Terminating",
            "ContainerStatusUnknown",
            "(gone)",
        ],
        "image-typo.yaml"
    );
    // An old pod of a rolling update that ignores SIGTERM: SIGKILL at the end of the 30 s grace
    // period (exit code 137), a Failed phase, and kubectl (v1.31+) shows Error, not
    // Terminating, for the moment before the pod object is removed.
    let old_hash = replica_set_where("rolling-update.yaml", 1, |spec| {
        spec.containers[0].image == "web:1.0"
    });
    let old = status_transitions("rolling-update.yaml", &old_hash, 200);
    assert_eq!(
        old[old.len() - 3..],
        ["Terminating", "Error", "(gone)"],
        "rolling-update.yaml: {old:?}"
    );
}

/// The first step after which a deleted pod has its terminal status, that pod, and the run at
/// that moment.
fn first_terminal_deleted_pod(scenario: Scenario) -> (Step, Pod, Sim) {
    let mut sim = scenario.sim();
    while let Some(step) = sim.step_until(Time::from_secs(200)) {
        if let Some(pod) = sim
            .store()
            .pods
            .values()
            .find(|p| p.metadata.deletion_timestamp.is_some() && p.is_terminal())
        {
            let pod = (**pod).clone();
            return (step, pod, sim);
        }
    }
    panic!("no deleted pod reaches a terminal phase");
}

/// Asserts a pod's terminal phase and kubectl STATUS, and that its first container terminated
/// with `code` and `reason` (the STATUS kubectl shows); returns that container's status.
fn assert_terminal<'a>(
    pod: &'a Pod,
    phase: PodPhase,
    code: i32,
    reason: &str,
) -> &'a ContainerStatus {
    assert_eq!(pod.status.phase, phase);
    assert_eq!(pod.kubectl_status(), reason);
    let cs = &pod.status.container_statuses[0];
    assert!(
        matches!(&cs.state, ContainerState::Terminated { exit_code, reason: r, .. } if *exit_code == code && r == reason),
        "{:?}",
        cs.state
    );
    cs
}

/// An app that exits 0 on SIGTERM (its image's `shutdown_exit_code`) leaves a deleted pod
/// Succeeded, its container terminated `Completed` with exit code 0, so kubectl shows
/// `Completed` rather than `Error` for the moment before it goes.
#[test]
fn an_app_that_exits_cleanly_on_sigterm_ends_completed() {
    let text = scenario_text("rolling-update.yaml").replace(
        "web:1.0: {pull_time: 2s, listen_after: 3s, ready: always}",
        "web:1.0: {pull_time: 2s, listen_after: 3s, ready: always, shutdown: 1s, shutdown_exit_code: 0}",
    );
    let (step, pod, _) = first_terminal_deleted_pod(Scenario::parse(&text).expect("parses"));
    assert_terminal(&pod, PodPhase::Succeeded, 0, "Completed");
    assert!(
        step.narration.contains("phase Succeeded") && step.narration.contains("STATUS Completed"),
        "{}",
        step.narration
    );
    let bad = text.replace("shutdown_exit_code: 0", "shutdown_exit_code: 300");
    let errs = Scenario::parse(&bad).expect_err("refused");
    assert!(
        errs.iter().any(|e| e
            .to_string()
            .contains("images[web:1.0].shutdown_exit_code: must be an integer from 0 to 255")),
        "{errs:?}"
    );
}

/// The first sync writes the pod's status before it creates the sandbox, and its image pull
/// then holds the pod worker: until the sync after it, the pod has no IP (`-o wide` shows
/// `<none>`) and PodReadyToStartContainers is False; with the container started, both are there.
#[test]
fn a_pod_has_no_ip_while_its_first_pull_holds_the_worker() {
    let (sim, steps) = run_until("rolling-update.yaml", 1);
    let pod = sim
        .store()
        .pods
        .values()
        .find(|p| !p.node_name.is_empty())
        .expect("a bound pod");
    assert_eq!(pod.kubectl_status(), "ContainerCreating");
    assert_eq!(pod.status.pod_ip, None);
    assert_eq!(
        pod.condition(PodConditionType::PodReadyToStartContainers)
            .map(|c| c.status),
        Some(rolloutscope::sim::api::ConditionStatus::False)
    );
    let m = Moment::new(&sim, &steps).at(Time::from_secs(1));
    let wide = kubectl::get(&m, &[Resource::Pods], true);
    // The IP column, the sixth, reads <none> on every pod row.
    assert!(
        wide.lines()
            .skip(1)
            .all(|l| l.split_whitespace().nth(5) == Some("<none>")),
        "{wide}"
    );
    let name = pod.metadata.name.to_string();
    let (sim, _) = run_until("rolling-update.yaml", 3);
    let pod = sim.store().pods.get(name.as_str()).expect("still there");
    assert_eq!(pod.kubectl_status(), "Running");
    assert!(
        pod.status
            .pod_ip
            .as_deref()
            .is_some_and(|ip| ip.starts_with("10.244.")),
        "{:?}",
        pod.status.pod_ip
    );
    assert_eq!(
        pod.condition(PodConditionType::PodReadyToStartContainers)
            .map(|c| c.status),
        Some(rolloutscope::sim::api::ConditionStatus::True)
    );
}

/// The last status a deleted pod's kubelet writes: every container terminated with the code
/// its process ended with, a terminal phase, Ready and PodReadyToStartContainers False; then,
/// at the same moment, the pod object goes.
#[test]
fn a_deleted_pod_ends_in_a_terminal_phase_before_it_goes() {
    let (step, pod, mut sim) = first_terminal_deleted_pod(scenario("rolling-update.yaml"));
    let cs = assert_terminal(&pod, PodPhase::Failed, 137, "Error");
    assert!(!cs.ready && !cs.started);
    for t in [
        PodConditionType::Ready,
        PodConditionType::PodReadyToStartContainers,
    ] {
        assert_eq!(
            pod.condition(t).map(|c| c.status),
            Some(rolloutscope::sim::api::ConditionStatus::False),
            "{t:?}"
        );
    }
    assert!(
        step.narration.contains("phase Failed") && step.narration.contains("STATUS Error"),
        "{}",
        step.narration
    );
    let name = pod.metadata.name.to_string();
    // The same pod is gone one step later or so, at the same time.
    let next = sim.step().expect("the run goes on");
    assert_eq!(next.time, step.time);
    let mut gone = sim.store().pods.get(name.as_str()).is_none();
    while !gone {
        let s = sim.step().expect("the run goes on");
        assert_eq!(s.time, step.time, "{name} is removed at once");
        gone = sim.store().pods.get(name.as_str()).is_none();
    }
}

#[test]
fn six_want_four_ready_is_diagnosed_as_no_capacity() {
    let (sim, steps) = run_until("six-want-four-ready.yaml", 180);
    let d = diagnose(&sim, &steps, "web");
    assert_eq!((d.desired, d.ready), (6, 4));
    assert_eq!(d.verdict.cause, Cause::InsufficientCapacity);
    assert!(!d.verdict.raising_replicas_helps);
    let msg = "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.";
    assert!(d.verdict.summary.contains(msg), "{}", d.verdict.summary);
    assert!(
        d.verdict.summary.contains("2 of 6 pods"),
        "{}",
        d.verdict.summary
    );
    assert!(
        d.verdict.advice.contains("Raising replicas will not help"),
        "{}",
        d.verdict.advice
    );
    let commands: Vec<&str> = d
        .cluster_signals
        .iter()
        .map(|s| s.command.as_str())
        .collect();
    for c in [
        "kubectl get deploy web",
        "kubectl rollout status deploy/web",
        "kubectl describe deploy web",
        "kubectl get pods -o wide",
        "kubectl get events --field-selector type=Warning",
    ] {
        assert!(commands.contains(&c), "missing {c} in {commands:?}");
    }
    assert!(
        d.cluster_signals
            .iter()
            .any(|s| s.sees.contains("cpu 2 of 2 requested (100%)"))
    );
    // The JSON form serializes.
    let json = serde_json::to_string(&d).expect("serialize");
    assert!(
        json.contains("\"cause\":\"InsufficientCapacity\""),
        "{json}"
    );
}

#[test]
fn each_stall_scenario_gets_its_cause() {
    for (file, at, cause) in [
        ("image-typo.yaml", 120, Cause::ImagePull),
        ("readiness-never-passes.yaml", 200, Cause::ReadinessFailing),
        ("aggressive-liveness.yaml", 200, Cause::CrashLoop),
        ("crash-loop.yaml", 300, Cause::CrashLoop),
        ("rolling-update.yaml", 600, Cause::Healthy),
    ] {
        let (sim, steps) = run_until(file, at);
        let d = diagnose(&sim, &steps, "web");
        assert_eq!(d.verdict.cause, cause, "{file} at {at}s: {d}");
        if cause != Cause::Healthy {
            assert!(!d.verdict.raising_replicas_helps, "{file}");
        }
        // What the diagnosis says describe pod shows is what it shows: the waiting reason in
        // the state, the pull error in the events.
        if cause == Cause::ImagePull {
            let describe = d
                .application_signals
                .iter()
                .find(|s| s.command.starts_with("kubectl describe pod "))
                .expect("a describe pod signal");
            let events =
                "; the pull error is in its Events: Failed to pull image \"web:2.0-typo\": ";
            let reason = describe
                .sees
                .split_once("State: Waiting, Reason: ")
                .and_then(|(_, rest)| rest.split_once(events))
                .map(|(reason, _)| reason)
                .unwrap_or_else(|| panic!("{}", describe.sees));
            assert!(
                ["ErrImagePull", "ImagePullBackOff"].contains(&reason),
                "{reason}"
            );
            let pod = describe.command.trim_start_matches("kubectl describe pod ");
            let m = Moment::new(&sim, &steps).at(Time::from_secs(at));
            let text = kubectl::describe_pod(&m, pod).unwrap_or_else(|e| e);
            assert!(
                text.contains(&format!("      Reason:       {reason}\n")),
                "{text}"
            );
            assert!(
                text.contains("Failed to pull image \"web:2.0-typo\": "),
                "{text}"
            );
        }
    }
}

#[test]
fn kubectl_get_prints_kubectl_columns() {
    let (sim, steps) = run_until("six-want-four-ready.yaml", 180);
    let m = Moment::new(&sim, &steps).at(Time::from_secs(180));
    let deploy = kubectl::get(&m, &[Resource::Deployments], false);
    assert_eq!(
        deploy,
        "NAME   READY   UP-TO-DATE   AVAILABLE   AGE\nweb    4/6     6            4           3m\n"
    );
    let pods = kubectl::get(&m, &[Resource::Pods], true);
    let mut lines = pods.lines();
    assert_eq!(
        lines.next(),
        Some(
            "NAME                   READY   STATUS    RESTARTS   AGE   IP           NODE     NOMINATED NODE   READINESS GATES"
        )
    );
    let pending: Vec<&str> = pods.lines().filter(|l| l.contains("Pending")).collect();
    assert_eq!(pending.len(), 2, "{pods}");
    for l in pending {
        assert!(
            l.ends_with(
                "0/1     Pending   0          3m    <none>       <none>   <none>           <none>"
            ),
            "{l:?}"
        );
    }
    let all = kubectl::get(
        &m,
        &[Resource::Deployments, Resource::ReplicaSets, Resource::Pods],
        false,
    );
    assert!(all.starts_with("NAME                  READY"), "{all}");
    assert!(all.contains("\ndeployment.apps/web   4/6 "), "{all}");
    assert!(all.contains("\n\nNAME                             DESIRED   CURRENT   READY   AGE\nreplicaset.apps/web-"), "{all}");
    assert!(all.contains("\npod/web-"), "{all}");

    let (sim, steps) = run_until("crash-loop.yaml", 240);
    let m = Moment::new(&sim, &steps).at(Time::from_secs(240));
    let pods = kubectl::get(&m, &[Resource::Pods], false);
    let row = pods.lines().nth(1).unwrap_or_default();
    assert!(
        row.contains("0/1     CrashLoopBackOff   5 (39s ago)   4m"),
        "{pods}"
    );
    let pod = sim.store().pods.keys().next().cloned().unwrap_or_default();
    let describe = kubectl::describe_pod(&m, &pod).expect("pod exists");
    // `describeStatus` gives a waiting container its reason only, never the back-off message.
    assert!(
        !describe.contains("back-off 1m20s restarting"),
        "{describe}"
    );
    assert!(!describe.contains("      Message:"), "{describe}");
    for want in [
        "    State:          Waiting\n      Reason:       CrashLoopBackOff\n",
        "    Last State:     Terminated\n      Reason:       Error\n      Exit Code:    1\n",
        "    Restart Count:  5\n",
        // `"%v \t%v \n"`: a space after the type widens the column by one.
        "  Type                        Status\n  PodReadyToStartContainers   True \n",
        "kubelet            spec.containers{web}: Back-off restarting failed container web in pod ",
        "  Normal   Scheduled  4m                     default-scheduler  Successfully assigned default/",
    ] {
        assert!(describe.contains(want), "missing {want:?} in\n{describe}");
    }
    let events = kubectl::get_events(&m);
    assert!(
        events.starts_with("LAST SEEN   TYPE      REASON              OBJECT"),
        "{events}"
    );
    assert!(
        events.contains("   Warning   BackOff             pod/web-"),
        "{events}"
    );
    assert_eq!(
        kubectl::rollout_status_now(&sim, "web", None),
        "Waiting for deployment \"web\" rollout to finish: 0 of 1 updated replicas are available...\n"
    );
}

/// `describePod` as upstream prints two in-between pods: one no node has taken (no container
/// status, so no state lines) and one being deleted, whose deletion timestamp lies ahead (so
/// `Terminating (lasts <invalid>)`, `HumanDuration` of a negative time).
#[test]
fn describe_pod_of_a_pending_and_a_terminating_pod() {
    // The description of the first pod `which` picks, once `file` has run for `secs`.
    let describe = |file: &str, secs: u64, which: &dyn Fn(&rolloutscope::sim::api::Pod) -> bool| {
        let (sim, steps) = run_until(file, secs);
        let m = Moment::new(&sim, &steps).at(Time::from_secs(secs));
        let name = sim
            .store()
            .pods
            .values()
            .find(|p| which(p))
            .map(|p| p.metadata.name.clone())
            .unwrap_or_else(|| panic!("{file}: no such pod at {secs}s"));
        kubectl::describe_pod(&m, &name).unwrap_or_else(|e| e)
    };
    let text = describe("six-want-four-ready.yaml", 180, &|p| p.node_name.is_empty());
    assert!(text.contains("  web:\n    Image:      web:1.0\n"), "{text}");
    for absent in ["State:", "Ready:  ", "Restart Count:", "Container ID:"] {
        assert!(!text.contains(absent), "{absent:?} in\n{text}");
    }
    let text = describe("rolling-update.yaml", 75, &|p| {
        p.metadata
            .deletion_timestamp
            .is_some_and(|t| t >= Time::from_secs(77))
    });
    assert!(
        text.contains("Status:                    Terminating (lasts <invalid>)\n"),
        "{text}"
    );
}

/// A node whose kubelet stops is marked NotReady after the 50 s grace period, its pods stop
/// counting as available, and after the 300 s toleration they are evicted and replaced
/// elsewhere while they stay Terminating.
#[test]
fn a_failed_node_goes_not_ready_then_its_pods_are_evicted_and_replaced() {
    // Just before the grace period ends: node-2 still looks Ready.
    let (sim, _) = run_until("node-failure.yaml", 129);
    assert!(
        sim.store()
            .nodes
            .get("node-2")
            .is_some_and(|n| n.status.ready)
    );

    let (sim, steps) = run_until("node-failure.yaml", 131);
    let node = sim.store().nodes.get("node-2").expect("node-2 exists");
    assert!(
        !node.status.ready,
        "node-2 is NotReady 50s after its kubelet stopped"
    );
    let on_node: Vec<_> = sim
        .store()
        .pods
        .values()
        .filter(|p| p.node_name == "node-2")
        .collect();
    assert!(!on_node.is_empty());
    assert!(
        on_node.iter().all(|p| !p.is_ready()),
        "pods on a NotReady node are not Ready"
    );
    // `MarkPodsNotReady` leaves the container statuses as the lost kubelet left them, so a pod
    // that was running ready still shows 1/1 in kubectl's READY column.
    let m = Moment::new(&sim, &steps).at(Time::from_secs(121));
    let pods = kubectl::get(&m, &[Resource::Pods], true);
    assert!(
        pods.lines()
            .any(|l| l.contains(" 1/1 ") && l.contains(" node-2 ")),
        "{pods}"
    );
    assert!(steps.iter().any(|s| {
        s.time == Time::from_secs(130)
            && s.events
                .iter()
                .any(|e| e.message == "Node node-2 status is now: NodeNotReady")
    }));
    // A pod whose readiness probe had already turned it not Ready keeps its Ready condition as
    // the kubelet wrote it (reason ContainersNotReady): `MarkPodsNotReady` changes only the
    // status of a copy, so nothing changes for it and it gets no `Node is not ready` event.
    let (before, _) = run_until("node-failure.yaml", 129);
    let already: Vec<String> = before
        .store()
        .pods
        .values()
        .filter(|p| p.node_name == "node-2" && !p.is_ready())
        .map(|p| p.metadata.name.to_string())
        .collect();
    assert!(
        !already.is_empty(),
        "the scenario has a not-Ready pod on node-2 at 129s"
    );
    let marked: Vec<&str> = steps
        .iter()
        .filter(|s| s.time == Time::from_secs(130))
        .flat_map(|s| &s.events)
        .filter(|e| e.message == "Node is not ready")
        .map(|e| e.involved_object.name.as_str())
        .collect();
    assert_eq!(marked.len(), on_node.len() - already.len(), "{marked:?}");
    for name in &already {
        assert!(
            !marked.contains(&name.as_str()),
            "{name} was already not Ready"
        );
        let pod = sim.store().pods.get(name.as_str()).expect("still there");
        let ready = pod
            .status
            .conditions
            .iter()
            .find(|c| c.type_ == PodConditionType::Ready)
            .expect("a Ready condition");
        assert_eq!(ready.reason.as_deref(), Some("ContainersNotReady"));
    }

    let (sim, steps) = run_until("node-failure.yaml", 480);
    let evicted: Vec<_> = steps
        .iter()
        .flat_map(|s| &s.events)
        .filter(|e| e.reason == EventReason::TaintManagerEviction)
        .collect();
    assert!(
        !evicted.is_empty(),
        "pods are evicted after their 300s toleration"
    );
    let store = sim.store();
    assert!(
        store
            .pods
            .values()
            .filter(|p| p.node_name == "node-2")
            .all(|p| p.metadata.deletion_timestamp.is_some()),
        "every pod left on node-2 is Terminating"
    );
    // `addConditionAndDeletePod`: each was marked the target of a disruption before its
    // deletion, the condition last, as describe lists it.
    let evicted_names: Vec<&str> = evicted
        .iter()
        .map(|e| e.involved_object.name.as_str())
        .collect();
    for p in store
        .pods
        .values()
        .filter(|p| evicted_names.contains(&p.metadata.name.as_str()))
    {
        let last = p.status.conditions.last().expect("conditions");
        assert_eq!(last.type_, PodConditionType::DisruptionTarget);
        assert_eq!(last.status, rolloutscope::sim::api::ConditionStatus::True);
        assert_eq!(last.reason.as_deref(), Some("DeletionByTaintManager"));
        assert_eq!(
            last.message.as_deref(),
            Some("Taint manager: deleting due to NoExecute taint")
        );
        let m = Moment::new(&sim, &steps).at(Time::from_secs(480));
        let text = kubectl::describe_pod(&m, &p.metadata.name).unwrap_or_else(|e| e);
        assert!(
            text.contains(
                "  PodScheduled                True \n  DisruptionTarget            True \n"
            ),
            "{text}"
        );
    }
    let d = store.deployments.get("web").expect("web exists");
    assert_eq!(
        d.status.available_replicas, 10,
        "replacements run on the healthy nodes"
    );
    assert!(
        store
            .pods
            .values()
            .filter(|p| p.metadata.deletion_timestamp.is_none())
            .all(|p| p.node_name != "node-2"),
        "nothing new is scheduled on the NotReady node"
    );
}

/// node-failure.yaml with more actions after the kubelet on node-2 stops at 80 s.
fn node_failure_then(actions: &str) -> String {
    scenario_text("node-failure.yaml").replace(
        "  - {at: 80s, fail_node: node-2}\n",
        &format!("  - {{at: 80s, fail_node: node-2}}\n{actions}"),
    )
}

/// What a kubelet records on its node when it starts: its birth cry, the pressure conditions
/// of the node object it builds afresh, and the allocatable cgroup.
const KUBELET_START_EVENTS: [&str; 5] = [
    "Starting",
    "NodeHasSufficientMemory",
    "NodeHasNoDiskPressure",
    "NodeHasSufficientPID",
    "NodeAllocatableEnforced",
];

/// The names of the pods bound to `node` that `keep` picks, in name order.
fn pod_names_where(sim: &Sim, node: &str, keep: impl Fn(&Pod) -> bool) -> Vec<String> {
    sim.store()
        .pods
        .values()
        .filter(|p| p.node_name == node && keep(p))
        .map(|p| p.metadata.name.to_string())
        .collect()
}

/// The reasons of the events a step at `at` recorded on node `node`, in order.
fn node_event_reasons(steps: &[Step], at: u64, node: &str) -> Vec<&'static str> {
    steps
        .iter()
        .filter(|s| s.time == Time::from_secs(at))
        .flat_map(|s| &s.events)
        .filter(|e| e.involved_object.kind == "Node" && e.involved_object.name == node)
        .map(|e| e.reason.as_str())
        .collect()
}

#[test]
fn a_restarted_kubelet_brings_its_node_and_pods_back() {
    let yaml = node_failure_then("  - {at: 6m, restart_kubelet: node-2}\n");
    let (before, _) = run_yaml(&yaml, 359);
    let kept: Vec<(String, i32)> = before
        .store()
        .pods
        .values()
        .filter(|p| p.node_name == "node-2" && p.metadata.deletion_timestamp.is_none())
        .map(|p| {
            (
                p.metadata.name.to_string(),
                p.status.container_statuses[0].restart_count,
            )
        })
        .collect();
    // Deleted while the kubelet was away (a pod deleted at 78 s was being stopped already).
    let deleted_after = |p: &Pod, after: bool| {
        p.metadata
            .deletion_timestamp
            .is_some_and(|t| (t > Time::from_secs(110)) == after)
    };
    let deleted = pod_names_where(&before, "node-2", |p| deleted_after(p, true));
    let stopping = pod_names_where(&before, "node-2", |p| deleted_after(p, false));
    assert!(
        !kept.is_empty() && !deleted.is_empty(),
        "{kept:?} {deleted:?}"
    );
    assert!(
        before
            .store()
            .pods
            .values()
            .all(|p| p.node_name != "node-2" || !p.is_ready())
    );

    let (sim, steps) = run_yaml(&yaml, 480);
    // The kubelet's birth cry, its node object built afresh (three pressure conditions new),
    // the allocatable cgroup, then the update of the stored node whose conditions were Unknown.
    assert_eq!(
        node_event_reasons(&steps, 360, "node-2"),
        [
            KUBELET_START_EVENTS.as_slice(),
            &[
                "NodeHasSufficientMemory",
                "NodeHasNoDiskPressure",
                "NodeHasSufficientPID",
                "NodeReady",
            ],
        ]
        .concat()
    );
    let restart = steps
        .iter()
        .find(|s| s.time == Time::from_secs(360) && s.object == "node/node-2")
        .expect("the repair's step");
    assert!(
        restart
            .events
            .iter()
            .all(|e| e.source == "kubelet, node-2" && e.type_ == EventType::Normal)
    );
    assert!(
        restart
            .events
            .iter()
            .any(|e| e.message == "Starting kubelet.")
    );
    assert!(
        restart
            .events
            .iter()
            .any(|e| e.message == "Node node-2 status is now: NodeReady")
    );
    // The node controller's look 0–5 s later removes the NoExecute taint, and the evictions
    // still to come (300 s from 135 s) are cancelled: nothing on node-2 is evicted.
    let node = sim.store().nodes.get("node-2").expect("node-2");
    assert!(node.status.ready && node.taints().is_empty(), "{node:?}");
    let cancelled: Vec<&str> = steps
        .iter()
        .filter(|s| s.time >= Time::from_secs(360) && s.time <= Time::from_secs(365))
        .flat_map(|s| &s.events)
        .filter(|e| e.message.starts_with("Cancelling deletion of Pod default/"))
        .map(|e| e.involved_object.name.as_str())
        .collect();
    for (name, _) in &kept {
        assert!(cancelled.contains(&name.as_str()), "{name}: {cancelled:?}");
    }
    assert!(
        !steps
            .iter()
            .flat_map(|s| &s.events)
            .any(|e| e.message.starts_with("Marking for deletion"))
    );
    // The containers kept running: each pod is Ready again within one readiness period (5 s)
    // of the restart, with the restart count it had, and no replacement was made.
    for (name, restarts) in &kept {
        let pod = sim.store().pods.get(name.as_str()).expect("kept");
        assert!(pod.is_ready(), "{name}");
        assert_eq!(pod.status.container_statuses[0].restart_count, *restarts);
        let ready_at = pod
            .status
            .conditions
            .iter()
            .find(|c| c.type_ == PodConditionType::Ready)
            .map(|c| c.last_transition_time)
            .expect("Ready");
        assert!(
            ready_at >= Time::from_secs(360) && ready_at <= Time::from_secs(365),
            "{name}: {ready_at}"
        );
    }
    assert!(
        !steps
            .iter()
            .filter(|s| s.time >= Time::from_secs(360))
            .flat_map(|s| &s.events)
            .any(|e| e.reason == EventReason::SuccessfulCreate)
    );
    // The pods deleted while it was away are stopped now, with their grace period, and go.
    for name in &deleted {
        assert_eq!(
            event_times(&steps, name, EventReason::Killing, "Stopping container web"),
            [360_000],
            "{name}"
        );
        assert!(!sim.store().pods.contains_key(name.as_str()), "{name}");
    }
    // One the old run was stopping is not stopped again: its containers stopped meanwhile, and
    // the new run writes its final status and removes it.
    for name in &stopping {
        assert_eq!(
            event_times(&steps, name, EventReason::Killing, "Stopping container web"),
            [78_000],
            "{name}"
        );
        assert!(!sim.store().pods.contains_key(name.as_str()), "{name}");
    }
    let d = sim.store().deployments.get("web").expect("web");
    assert_eq!(d.status.available_replicas, 10);
    // describe node: the conditions turned healthy at the restart, the repeats counted.
    let (sim, steps) = run_yaml(&yaml, 370);
    let m = Moment::new(&sim, &steps).at(Time::from_secs(370));
    let text = kubectl::describe_node(&m, "node-2").unwrap_or_else(|e| e);
    assert!(
        text.contains("  Ready            True    Thu, 01 Jan 2026 00:06:00 +0000   Thu, 01 Jan 2026 00:06:00 +0000   KubeletReady "),
        "{text}"
    );
    assert!(text.contains("Taints:             <none>\n"), "{text}");
    assert!(
        text.contains("  Normal  NodeHasSufficientMemory  10s (x2 over 10s)  kubelet          Node node-2 status is now: NodeHasSufficientMemory\n"),
        "{text}"
    );
}

#[test]
fn a_kubelet_back_within_the_grace_period_leaves_its_node_ready() {
    let yaml = node_failure_then("  - {at: 100s, restart_kubelet: node-2}\n");
    let (before, _) = run_yaml(&yaml, 99);
    let ready = pod_names_where(&before, "node-2", |p| {
        p.is_ready() && p.metadata.deletion_timestamp.is_none()
    });
    assert!(!ready.is_empty());
    let (sim, steps) = run_yaml(&yaml, 200);
    // The new node object's pressure conditions are new, but the stored node's were never
    // Unknown: each event once, and no NodeReady.
    assert_eq!(
        node_event_reasons(&steps, 100, "node-2"),
        KUBELET_START_EVENTS
    );
    assert!(
        !steps
            .iter()
            .flat_map(|s| &s.events)
            .any(|e| e.reason == EventReason::NodeNotReady),
        "the node controller's look at 130 s finds a kubelet that posts status"
    );
    // Since v1.35 a restart leaves the readiness of a settled container of a Ready pod alone.
    let (after, _) = run_yaml(&yaml, 101);
    for name in &ready {
        assert!(
            after
                .store()
                .pods
                .get(name.as_str())
                .is_some_and(|p| p.is_ready()),
            "{name}"
        );
    }
    assert!(
        sim.store()
            .nodes
            .get("node-2")
            .is_some_and(|n| n.status.ready)
    );
}

#[test]
fn a_kubelet_that_stops_again_gets_a_new_grace_period() {
    let yaml = node_failure_then(
        "  - {at: 100s, restart_kubelet: node-2}\n  - {at: 120s, fail_node: node-2}\n",
    );
    let (_, steps) = run_yaml(&yaml, 200);
    let not_ready: Vec<u64> = steps
        .iter()
        .filter(|s| {
            s.events
                .iter()
                .any(|e| e.message == "Node node-2 status is now: NodeNotReady")
        })
        .map(|s| s.time.as_millis())
        .collect();
    assert_eq!(
        not_ready,
        [170_000],
        "50 s after the second stop, not after the first"
    );
}

/// A restarted kubelet is a new process with a new event recorder: its events fold neither
/// into the old process's (two `Starting kubelet.` lines, not `x2`) nor share its spam filter.
/// On a cordoned node it records NodeNotSchedulable again, its `lastNodeUnschedulable` starting
/// false.
#[test]
fn a_restarted_kubelet_records_as_a_new_process() {
    let yaml = node_failure_then(
        "  - {at: 90s, cordon: node-2}\n  - {at: 100s, restart_kubelet: node-2}\n  - {at: 110s, fail_node: node-2}\n  - {at: 3m, restart_kubelet: node-2}\n",
    );
    let (sim, steps) = run_yaml(&yaml, 190);
    assert_eq!(
        node_event_reasons(&steps, 100, "node-2"),
        [KUBELET_START_EVENTS.as_slice(), &["NodeNotSchedulable"]].concat()
    );
    let runs: Vec<u32> = steps
        .iter()
        .flat_map(|s| &s.events)
        .filter(|e| e.reason == EventReason::Starting)
        .map(|e| e.run)
        .collect();
    assert_eq!(runs, [1, 2]);
    let m = Moment::new(&sim, &steps).at(Time::from_secs(190));
    let text = kubectl::describe_node(&m, "node-2").unwrap_or_else(|e| e);
    assert_eq!(text.matches("Starting kubelet.").count(), 2, "{text}");
    assert!(
        text.contains("  Normal  Starting                 10s                kubelet          Starting kubelet.\n"),
        "{text}"
    );
}

/// The pods the taint eviction controller has evicted have no eviction left to cancel, even
/// when a drain's Eviction API call marked them again since.
#[test]
fn a_restart_after_the_evictions_cancels_none() {
    let yaml = scenario_text("drain-for-maintenance.yaml").replace(
        "  - {at: 40s, drain: \"node-2 --ignore-daemonsets\"}\n  - {at: 2m, uncordon: node-2}\nrun_until: 3m\n",
        "  - {at: 30s, fail_node: node-2}\n  - {at: 100s, drain: \"node-2 --ignore-daemonsets\"}\n  - {at: 7m, restart_kubelet: node-2}\nrun_until: 8m\n",
    );
    assert_ne!(yaml, scenario_text("drain-for-maintenance.yaml"));
    let (_, steps) = run_yaml(&yaml, 480);
    let said = |prefix: &str| {
        steps
            .iter()
            .flat_map(|s| &s.events)
            .filter(|e| e.message.starts_with(prefix))
            .count()
    };
    assert!(said("Marking for deletion Pod default/") > 0);
    assert_eq!(said("Cancelling deletion of Pod default/"), 0);
    assert!(narrated(
        &steps,
        "No pod there had an eviction still to come."
    ));
}

/// A pull under way when the kubelet stops goes with the old process: the new one pulls again
/// from the start, and the first pull's completion, still queued, does not end the second.
#[test]
fn a_restarted_kubelet_pulls_again_from_the_start() {
    let yaml = one_pod_on_one_node(
        "images:\n  web:1.0: {pull_time: 30s}\n",
        "          - {name: web, image: \"web:1.0\"}\nactions:\n  - {at: 5s, fail_node: node-1}\n  - {at: 10s, restart_kubelet: node-1}",
        "60s",
    );
    let (_, steps) = run_yaml(&yaml, 60);
    let pod = first_pod_with_prefix(&steps, "web-");
    assert_eq!(
        event_times(&steps, &pod, EventReason::Pulling, "Pulling image"),
        [0, 10_000]
    );
    assert_eq!(
        event_times(
            &steps,
            &pod,
            EventReason::Pulled,
            "Successfully pulled image \"web:1.0\" in 30s (30s including waiting)"
        ),
        [40_000]
    );
}

/// `kubectl delete pod --force --grace-period=0`: the pod object goes at once. A pod stuck
/// Terminating on a node whose kubelet is gone is simply removed; a running pod on a live node
/// is removed too, its kubelet stopping the containers (`Killing`) and its ReplicaSet replacing
/// it. kubectl's flag rules hold: `--grace-period=0` alone means 1, `--force` alone means 0.
#[test]
fn a_force_delete_removes_the_pod_at_once() {
    use rolloutscope::sim::commands::{Command, parse_delete_pod};
    assert_eq!(
        parse_delete_pod("web-1 --grace-period=0"),
        Ok(Command::DeletePod {
            pod: "web-1".into(),
            grace_period: Some(1),
            force: false
        })
    );
    assert_eq!(
        parse_delete_pod("web-1 --force"),
        Ok(Command::DeletePod {
            pod: "web-1".into(),
            grace_period: Some(0),
            force: true
        })
    );
    assert_eq!(
        parse_delete_pod("web-1 --now"),
        Ok(Command::DeletePod {
            pod: "web-1".into(),
            grace_period: Some(1),
            force: false
        })
    );
    assert_eq!(
        parse_delete_pod("web-1 --now --grace-period=3"),
        Err("error: --now and --grace-period cannot be specified together".to_string())
    );
    assert_eq!(
        parse_delete_pod("web-1 --foo=bar"),
        Err("error: unknown flag: --foo\nSee 'kubectl delete --help' for usage.".to_string())
    );
    assert_eq!(
        parse_delete_pod("web-1 --force --grace-period 5"),
        Err(
            "error: --force and --grace-period greater than 0 cannot be specified together"
                .to_string()
        )
    );
    assert_eq!(
        parse_delete_pod("web-1 --grace-period=-5"),
        Ok(Command::DeletePod {
            pod: "web-1".into(),
            grace_period: None,
            force: false
        })
    );
    assert_eq!(
        parse_delete_pod("web-1 --grace-period 7"),
        Ok(Command::DeletePod {
            pod: "web-1".into(),
            grace_period: Some(7),
            force: false
        })
    );
    let (before, _) = run_until("node-failure.yaml", 450);
    let stuck = pod_names_where(&before, "node-2", |p| {
        p.metadata.deletion_timestamp.is_some()
    });
    let live = pod_names_where(&before, "node-1", |p| {
        p.metadata.deletion_timestamp.is_none() && p.is_ready()
    });
    assert!(!stuck.is_empty() && !live.is_empty());
    let yaml = node_failure_then(&format!(
        "  - {{at: 7m31s, delete_pod: \"{} --force --grace-period=0\"}}\n  - {{at: 7m32s, delete_pod: \"{} --force\"}}\n  - {{at: 7m50s, restart_kubelet: node-2}}\n",
        stuck[0], live[0]
    ));
    let (sim, steps) = run_yaml(&yaml, 480);
    for name in [&stuck[0], &live[0]] {
        assert!(!sim.store().pods.contains_key(name.as_str()), "{name}");
    }
    let said: Vec<&str> = steps
        .iter()
        .filter(|s| s.actor == "kubectl" && s.narration.contains(" force deleted "))
        .map(|s| s.narration.as_str())
        .collect();
    assert_eq!(said.len(), 2);
    for (text, name) in said.iter().zip([&stuck[0], &live[0]]) {
        assert!(
            text.starts_with(&format!("Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.\npod \"{name}\" force deleted from default namespace\n")),
            "{text}"
        );
    }
    // The live pod's kubelet stops its container; the stuck one's hears of it only when it
    // starts again, whose housekeeping finds the container with no pod object and stops it.
    assert_eq!(
        event_times(
            &steps,
            &live[0],
            EventReason::Killing,
            "Stopping container web"
        ),
        [452_000]
    );
    assert_eq!(
        event_times(
            &steps,
            &stuck[0],
            EventReason::Killing,
            "Stopping container web"
        ),
        [470_000]
    );
    assert!(
        steps
            .iter()
            .filter(|s| s.time == Time::from_secs(452))
            .flat_map(|s| &s.events)
            .any(|e| e.reason == EventReason::SuccessfulCreate)
    );
}

/// A crash-looping container that the restarted kubelet starts at once (its back-off went with
/// the old process) is not Ready at once: its readiness worker is new and first waits a random
/// part of its period, holding the trigger of the container's start until then.
#[test]
fn a_restarted_kubelets_new_readiness_worker_waits_before_its_first_run() {
    let yaml = scenario_text("crash-loop.yaml").replace(
        "run_until:",
        "actions:\n  - {at: 4m, fail_node: node-1}\n  - {at: 4m20s, restart_kubelet: node-1}\nrun_until:",
    );
    assert!(yaml.contains("restart_kubelet"), "{yaml}");
    let (_, steps) = run_yaml(&yaml, 270);
    let pod = first_pod_with_prefix(&steps, "web-");
    assert_eq!(
        event_times(&steps, &pod, EventReason::Started, "Container started")
            .into_iter()
            .filter(|&t| t >= 260_000)
            .collect::<Vec<_>>(),
        [260_000]
    );
    let ready_at: Vec<u64> = steps
        .iter()
        .filter(|s| s.time >= Time::from_secs(260) && s.narration.contains("the pod turns Ready"))
        .map(|s| s.time.as_millis())
        .collect();
    assert!(
        ready_at
            .first()
            .is_some_and(|&t| t > 260_000 && t < 265_000),
        "{ready_at:?}"
    );
}

/// A second delete with a shorter grace period shortens a terminating pod's (`BeforeDelete`:
/// its deletionTimestamp moves back by the difference), and its kubelet kills the containers
/// again with it (`Killing` again): a container that ignores SIGTERM goes at the new deadline,
/// with exit code 137. A longer one changes nothing.
#[test]
fn a_shorter_grace_period_shortens_a_termination() {
    let (before, _) = run_until("rolling-update.yaml", 29);
    let pod = pod_names_where(&before, "node-2", |p| p.is_ready())
        .into_iter()
        .next()
        .expect("a ready pod on node-2");
    let yaml = scenario_text("rolling-update.yaml").replace(
        "actions:\n",
        &format!(
            "actions:\n  - {{at: 30s, delete_pod: {pod}}}\n  - {{at: 33s, delete_pod: \"{pod} --grace-period=40\"}}\n  - {{at: 35s, delete_pod: \"{pod} --grace-period=5\"}}\n"
        ),
    );
    let (sim, steps) = run_yaml(&yaml, 36);
    let p = sim
        .store()
        .pods
        .get(pod.as_str())
        .expect("still terminating");
    assert_eq!(p.metadata.deletion_grace_period_seconds, Some(5));
    assert_eq!(p.metadata.deletion_timestamp, Some(Time::from_secs(35)));
    assert_eq!(
        event_times(&steps, &pod, EventReason::Killing, "Stopping container web"),
        [30_000, 35_000]
    );
    let (sim, steps) = run_yaml(&yaml, 45);
    assert!(!sim.store().pods.contains_key(pod.as_str()));
    assert!(
        steps
            .iter()
            .any(|s| s.time == Time::from_secs(40) && s.narration.contains("(web exit code 137)")),
    );
}

#[test]
fn restarting_a_running_or_missing_kubelet_changes_nothing() {
    let yaml = scenario_text("node-failure.yaml").replace(
        "  - {at: 80s, fail_node: node-2}\n",
        "  - {at: 80s, restart_kubelet: node-2}\n  - {at: 81s, restart_kubelet: node-9}\n",
    );
    let (_, steps) = run_yaml(&yaml, 90);
    let said: Vec<&str> = steps
        .iter()
        .filter(|s| s.actor == "kubectl" && s.time >= Time::from_secs(80))
        .map(|s| s.narration.as_str())
        .collect();
    assert_eq!(
        said,
        [
            "The kubelet on node-2 is already running.",
            "The fault (the kubelet on node-9 starts again) has no target: Error from server (NotFound): nodes \"node-9\" not found",
        ]
    );
    assert!(
        steps
            .iter()
            .flat_map(|s| &s.events)
            .all(|e| e.reason != EventReason::Starting)
    );
}

/// A one-replica Deployment `app` on one node, as scenario YAML: `images` are entries of the
/// `images:` map (`a:1: {pull_time: 1s}`), `spec` pod-spec fields before the containers
/// (`terminationGracePeriodSeconds: 20`), `containers` the containers, each one flow mapping,
/// and `actions` the actions, each one flow mapping.
fn app_pod(
    images: &[&str],
    spec: &[&str],
    containers: &[&str],
    actions: &[&str],
    run_until: &str,
) -> String {
    let mut yaml =
        String::from("cluster:\n  nodes:\n    - {name: n, cpu: \"4\", memory: 8Gi}\nimages:\n");
    for image in images {
        yaml.push_str(&format!("  {image}\n"));
    }
    yaml.push_str("deployment:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: app}\n  spec:\n    replicas: 1\n    selector: {matchLabels: {app: app}}\n    template:\n      metadata: {labels: {app: app}}\n      spec:\n");
    for field in spec {
        yaml.push_str(&format!("        {field}\n"));
    }
    yaml.push_str("        containers:\n");
    for container in containers {
        yaml.push_str(&format!("          - {container}\n"));
    }
    if !actions.is_empty() {
        yaml.push_str("actions:\n");
        for action in actions {
            yaml.push_str(&format!("  - {action}\n"));
        }
    }
    yaml.push_str(&format!("run_until: {run_until}\n"));
    yaml
}

/// A one-replica scenario whose single image behaves as `image` and whose container carries
/// `probe` (YAML for the readiness probe).
fn one_pod(image: &str, probe: &str) -> String {
    app_pod(
        &[&format!("app:1: {{{image}}}")],
        &[],
        &[&format!(
            "{{name: app, image: app:1, readinessProbe: {{{probe}}}}}"
        )],
        &[],
        "2m",
    )
}

/// When the only pod's Ready condition last turned True, in milliseconds.
fn ready_since(sim: &Sim) -> Option<u64> {
    sim.store()
        .pods
        .values()
        .next()
        .and_then(|p| p.condition(rolloutscope::sim::api::PodConditionType::Ready))
        .filter(|c| c.status == rolloutscope::sim::api::ConditionStatus::True)
        .map(|c| c.last_transition_time.as_millis())
}

/// Readiness timing, data-driven: the status update at the container's start triggers a run and
/// restarts the worker's ticker, so runs come every periodSeconds from the start (a first run that
/// does not make the container ready is followed at once by a second, as its initial result
/// prompts a sync); a run within
/// initialDelaySeconds probes nothing, and the first probe is the first tick at or after the
/// delay (not the delay itself). The pod turns Ready after successThreshold passing runs in a row
/// once the app listens. Expected seconds after `Started`.
#[test]
fn readiness_turns_ready_at_the_probe_schedule() {
    // (listen_after s, initialDelaySeconds, periodSeconds, successThreshold, ready after s)
    let table: &[(u64, u64, u64, u64, u64)] = &[
        (0, 0, 10, 1, 0),
        (3, 0, 5, 1, 5),
        (3, 0, 5, 2, 10),
        (12, 5, 10, 1, 20),
        (0, 7, 10, 3, 30),
        (0, 15, 10, 1, 20),
        (0, 10, 10, 1, 10),
        (0, 4, 2, 1, 4),
        // The first run's initial result prompts a sync, whose status triggers a second run at
        // once: two passes in a row at the start.
        (0, 0, 10, 2, 0),
        (0, 0, 10, 3, 10),
    ];
    let mut failures = Vec::new();
    for &(listen, delay, period, st, want) in table {
        let text = one_pod(
            &format!("listen_after: {listen}s"),
            &format!(
                "httpGet: {{port: 80}}, initialDelaySeconds: {delay}, periodSeconds: {period}, successThreshold: {st}"
            ),
        );
        let sc = Scenario::parse(&text).unwrap_or_else(|e| panic!("{e:?}"));
        let run = rolloutscope::sim::scenario::run_with(&sc, |_, _| {});
        let started = event_times(
            &run.steps,
            &first_pod_with_prefix(&run.steps, "app-"),
            EventReason::Started,
            "",
        );
        let ready_at = ready_since(&run.sim);
        let got = ready_at.zip(started.first()).map(|(r, s)| (r - s) / 1000);
        if got != Some(want) {
            failures.push(format!("listen {listen}s delay {delay} period {period} success {st}: want {want}s, got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// timeoutSeconds: an app that answers in 2 s never passes a 1 s probe (each run is a timeout
/// `Unhealthy` event), and passes a 3 s one.
#[test]
fn a_probe_times_out_when_the_app_answers_slower_than_timeout_seconds() {
    let slow = one_pod(
        "response_time: 2s",
        "httpGet: {path: /ready, port: 80}, timeoutSeconds: 1, periodSeconds: 10",
    );
    let sc = Scenario::parse(&slow).unwrap_or_else(|e| panic!("{e:?}"));
    let run = rolloutscope::sim::scenario::run_with(&sc, |_, _| {});
    assert!(
        !run.sim.store().pods.values().any(|p| p.is_ready()),
        "a 1s probe never sees a 2s answer"
    );
    let timeouts = run
        .steps
        .iter()
        .flat_map(|s| &s.events)
        .filter(|e| {
            e.reason == EventReason::Unhealthy
                && e.message
                    .starts_with("Readiness probe failed: Get \"http://")
                && e.message.ends_with(
                    ": context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
                )
        })
        .count();
    assert!(
        timeouts >= 10,
        "one Unhealthy timeout event per run, got {timeouts}"
    );

    let patient = one_pod(
        "response_time: 2s",
        "httpGet: {path: /ready, port: 80}, timeoutSeconds: 3, periodSeconds: 10",
    );
    let sc = Scenario::parse(&patient).unwrap_or_else(|e| panic!("{e:?}"));
    let run = rolloutscope::sim::scenario::run_with(&sc, |_, _| {});
    assert!(
        run.sim.store().pods.values().all(|p| p.is_ready()),
        "a 3s probe waits for the 2s answer"
    );
}

/// The rolling-update scenario with extra actions spliced in before its own.
fn rolling_with(actions: &str, run_secs: u64) -> (Sim, Vec<Step>) {
    let base = BUNDLED
        .iter()
        .find(|(f, _)| *f == "rolling-update.yaml")
        .map(|(_, y)| *y)
        .expect("bundled");
    let yaml = base
        .replace("actions:\n", &format!("actions:\n{actions}"))
        .replace("run_until: complete", &format!("run_until: {run_secs}s"));
    let sc = Scenario::parse(&yaml).unwrap_or_else(|e| panic!("{e:?}"));
    let mut sim = sc.sim();
    let mut steps = Vec::new();
    while let Some(step) = sim.step_until(sc.time_limit()) {
        steps.push(step);
    }
    (sim, steps)
}

#[test]
fn a_broken_readiness_endpoint_makes_the_pod_not_ready_without_a_restart() {
    // web:1.0 pods are Ready by 20 s; the fault at 30 s, probes every 5 s, failureThreshold 3.
    let (sim, steps) = rolling_with("  - {at: 30s, break_readiness: web-}\n", 50);
    let fault = steps
        .iter()
        .find(|s| s.narration.starts_with("Fault: the readiness endpoint"))
        .expect("the fault step");
    let pod = fault.object.trim_start_matches("pod/").to_string();
    let p = sim.store().pods.get(pod.as_str()).expect("the pod stays");
    assert!(
        !kubectl::ready_cell(p).starts_with("1/"),
        "{}",
        kubectl::ready_cell(p)
    );
    assert_eq!(p.status.container_statuses[0].restart_count, 0);
    // Failures after the fault (earlier ones are the app still starting up).
    let after: Vec<u64> = event_times(
        &steps,
        &pod,
        EventReason::Unhealthy,
        "Readiness probe failed",
    )
    .into_iter()
    .filter(|t| *t > 30_000)
    .collect();
    assert!(after.len() >= 3, "{after:?}");
    // The pod stays Ready through the failures before the threshold, and the narration says so.
    let first_failure = steps
        .iter()
        .find(|s| s.time.as_millis() == after[0] && s.object == fault.object)
        .expect("the first failure's step");
    assert!(
        first_failure
            .narration
            .contains("so the pod stays Ready for now"),
        "{}",
        first_failure.narration
    );
}

#[test]
fn a_crashed_container_is_restarted() {
    let (sim, steps) = rolling_with("  - {at: 30s, crash_pod: web-}\n", 45);
    let fault = steps
        .iter()
        .find(|s| s.narration.starts_with("Fault: the process"))
        .expect("the fault step");
    let pod = fault.object.trim_start_matches("pod/").to_string();
    let p = sim.store().pods.get(pod.as_str()).expect("the pod stays");
    assert_eq!(p.status.container_statuses[0].restart_count, 1);
    // The crash exits with the image's exit code (1 by default), not with an exit it planned.
    assert!(
        matches!(
            &p.status.container_statuses[0].last_state,
            Some(ContainerState::Terminated { exit_code: 1, reason, .. }) if reason == "Error"
        ),
        "{:?}",
        p.status.container_statuses[0].last_state
    );
    assert!(steps.iter().any(|s| {
        s.time.as_millis() >= 30_000
            && s.events
                .iter()
                .any(|e| e.involved_object.name == pod && e.reason == EventReason::Started)
    }));
}

#[test]
fn a_failed_registry_stalls_new_pulls_with_a_timeout() {
    let (sim, steps) = rolling_with("  - {at: 10s, fail_registry: web:2.0}\n", 120);
    let failed: Vec<_> = steps
        .iter()
        .flat_map(|s| s.events.iter())
        .filter(|e| e.reason == EventReason::Failed && e.message.contains("i/o timeout"))
        .collect();
    assert!(!failed.is_empty());
    assert!(failed[0].message.contains(
        "Head \"https://registry-1.docker.io/v2/library/web/manifests/2.0\": dial tcp: i/o timeout"
    ), "{}", failed[0].message);
    // The old pods keep serving: the rollout stalls rather than breaking the service.
    let d = sim.deployment("web").expect("deployment");
    assert!(d.status.available_replicas >= 8, "{:?}", d.status);
    assert!(sim.store().pods.values().any(|p| {
        kubectl::get_pods(&Moment::new(&sim, &steps), "", false).contains("ImagePullBackOff")
            || p.status.phase == PodPhase::Pending
    }));
}

/// The times (ms) of a pod's liveness probe failures.
fn liveness_failures(steps: &[Step], pod: &str) -> Vec<u64> {
    event_times(steps, pod, EventReason::Unhealthy, "Liveness probe failed:")
}

/// Whether every time lies on the grid of `period` ms through `from`.
fn on_grid(times: &[u64], from: u64, period: u64) -> bool {
    times
        .iter()
        .all(|t| t >= &from && (t - from).is_multiple_of(period))
}

/// A probe worker outlives its container (§15.4): the liveness worker ticks every periodSeconds
/// from its first tick, across the restarts, and a new container only resets its result. So
/// every liveness run of the pod falls on one 10 s grid, and after each restart liveness first
/// runs at the grid's next tick.
#[test]
fn liveness_keeps_its_tick_grid_across_restarts() {
    let (_, steps) = run_until("aggressive-liveness.yaml", 360);
    let pod = first_pod_with_prefix(&steps, "web-");
    let runs = liveness_failures(&steps, &pod);
    let started = event_times(&steps, &pod, EventReason::Started, "Container started");
    assert!(started.len() >= 4, "{started:?}");
    let first = runs[0];
    assert!(on_grid(&runs, first, 10_000), "{runs:?}");
    for s in &started[1..] {
        let next_tick = first + ((s - first) / 10_000 + 1) * 10_000;
        let next_run = runs.iter().find(|t| *t > s);
        assert!(
            next_run.is_none() || next_run == Some(&next_tick),
            "restart at {s}: liveness next ran at {next_run:?}, its next tick is {next_tick}; {runs:?}"
        );
    }
}

/// One replica of `app:1` (and `app:2` for a later `set_image`) with the given probes.
fn probed_pod(images: &str, probes: &str, actions: &str) -> Scenario {
    let yaml = format!(
        "cluster:\n  nodes:\n    - {{name: a, cpu: \"4\", memory: 8Gi}}\nimages:\n{images}\n\
         deployment:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {{name: app}}\n  spec:\n\
         \x20   replicas: 1\n    selector: {{matchLabels: {{app: app}}}}\n\
         \x20   template:\n      metadata: {{labels: {{app: app}}}}\n      spec:\n        containers:\n\
         \x20         - name: app\n            image: app:1\n{probes}\n{actions}run_until: 3m\n"
    );
    Scenario::parse(&yaml).unwrap_or_else(|e| panic!("{e:?}\n{yaml}"))
}

/// Once the startup probe passes, liveness runs at its worker's next tick, not at once: its
/// worker has ticked all along, skipping while the container was not started. The app answers
/// in 2 s: within the startup probe's 5 s, never within liveness's 1 s.
#[test]
fn liveness_starts_on_its_next_tick_after_the_startup_probe_passes() {
    let sc = probed_pod(
        "  app:1: {pull_time: 1s, listen_after: 15s, response_time: 2s}",
        "            startupProbe: {httpGet: {port: 80}, periodSeconds: 10, failureThreshold: 10, timeoutSeconds: 5}\n\
         \x20           livenessProbe: {httpGet: {port: 80}, periodSeconds: 10, timeoutSeconds: 1}",
        "",
    );
    let run = rolloutscope::sim::scenario::run_with(&sc, |_, _| {});
    let pod = first_pod_with_prefix(&run.steps, "app-");
    let passed: Vec<u64> = run
        .steps
        .iter()
        .filter(|s| s.narration.starts_with("The startup probe of app in"))
        .filter(|s| s.narration.contains(" passed, "))
        .map(|s| s.time.as_millis())
        .collect();
    let runs = liveness_failures(&run.steps, &pod);
    let (Some(&passed), Some(&first)) = (passed.first(), runs.first()) else {
        panic!("startup passes {passed:?}, liveness failures {runs:?}");
    };
    assert!(
        first > passed && first - passed < 10_000,
        "startup passed at {passed}, liveness first ran at {first}"
    );
    assert!(on_grid(&runs, first, 10_000), "{runs:?}");
}

/// The random wait before a worker's first tick applies only while the kubelet started less
/// than one period ago (§15.4). A pod created 30 s into the run gets workers that tick from the
/// kubelet's first sync of the pod (its `Pulling` event), so a liveness probe on an app that
/// never answers fails exactly every 10 s from then.
#[test]
fn a_worker_created_after_the_first_period_ticks_from_its_creation() {
    let sc = probed_pod(
        "  app:1: {pull_time: 1s}\n  app:2: {pull_time: 1s, listen_after: 10m}",
        "            livenessProbe: {httpGet: {port: 80}, periodSeconds: 10}",
        "actions:\n  - {at: 30s, set_image: app:2}\n",
    );
    let run = rolloutscope::sim::scenario::run_with(&sc, |_, _| {});
    let pod = run
        .steps
        .iter()
        .flat_map(|s| &s.events)
        .find(|e| e.reason == EventReason::Pulling && e.message.contains("app:2"))
        .map(|e| e.involved_object.name.clone())
        .expect("a pod of app:2");
    let pulling = event_times(&run.steps, &pod, EventReason::Pulling, "Pulling image");
    let runs = liveness_failures(&run.steps, &pod);
    assert!(pulling[0] >= 30_000, "{pulling:?}");
    assert_eq!(runs.first(), Some(&(pulling[0] + 10_000)), "{runs:?}");
    assert!(on_grid(&runs, pulling[0], 10_000), "{runs:?}");
}

/// The crash-loop back-off expires only when the container ran more than 600 s since its last
/// restart (§15.5): upstream stamps the entry when it restarts the container, so the wait before
/// a restart does not count towards the run. An app that crashes 590 s after each start keeps
/// backing off 10 s, then 20 s, although 600 s pass between its exits.
#[test]
fn a_container_that_ran_under_ten_minutes_keeps_its_crash_back_off() {
    let yaml = "cluster:\n  nodes:\n    - {name: a, cpu: \"4\", memory: 8Gi}\n\
                images:\n  app:1: {pull_time: 1s, crash_after: 590s}\n\
                deployment:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: app}\n  spec:\n\
                \x20   replicas: 1\n    selector: {matchLabels: {app: app}}\n\
                \x20   template:\n      metadata: {labels: {app: app}}\n      spec:\n        containers:\n\
                \x20         - name: app\n            image: app:1\n\
                run_until: 32m\n";
    let sc = Scenario::parse(yaml).unwrap_or_else(|e| panic!("{e:?}"));
    let run = rolloutscope::sim::scenario::run_with(&sc, |_, _| {});
    let pod = first_pod_with_prefix(&run.steps, "app-");
    let started = event_times(&run.steps, &pod, EventReason::Started, "Container started");
    let gaps: Vec<u64> = started
        .windows(2)
        .map(|w| w[1] - (w[0] + 590_000))
        .collect();
    check_gaps(&pod, &gaps, &[0, 10, 20], |b| b / 2 + 1);
}

/// A container with limits and no requests requests its limits: `SetDefaults_Pod` defaults them
/// on each pod (never on the template), so the scheduler counts them and a third one-CPU pod
/// does not fit on a two-CPU node. The pod is Guaranteed; describe shows the admission
/// plugins' token volume and default tolerations.
#[test]
fn limits_without_requests_are_requested_by_each_pod() {
    let yaml = "
name: limits only
seed: 5
cluster:
  nodes:
    - {name: node-1, cpu: \"2\", memory: 8Gi}
deployment:
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    replicas: 3
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers:
          - name: web
            image: web:1.0
            resources: {limits: {cpu: \"1\", memory: 1Gi}}
run_until: 30s
";
    let mut sim = Scenario::parse(yaml)
        .unwrap_or_else(|e| panic!("{e:?}"))
        .sim();
    let mut steps = Vec::new();
    while let Some(step) = sim.step_until(Time::from_secs(30)) {
        steps.push(step);
    }
    let failed = failed_scheduling(&steps);
    assert!(
        failed
            .first()
            .is_some_and(|m| m.starts_with("0/1 nodes are available: 1 Insufficient cpu.")),
        "{failed:?}"
    );
    let running = sim
        .store()
        .pods
        .values()
        .filter(|p| p.status.phase == PodPhase::Running)
        .count();
    assert_eq!(running, 2);
    let m = Moment::new(&sim, &steps).at(Time::from_secs(30));
    let pod = sim
        .store()
        .pods
        .values()
        .find(|p| p.status.phase == PodPhase::Running)
        .map(|p| p.metadata.name.clone())
        .unwrap_or_default();
    let describe = kubectl::describe_pod(&m, &pod).unwrap_or_else(|e| e);
    for want in [
        "    Limits:\n      cpu:     1\n      memory:  1Gi\n    Requests:\n      cpu:        1\n      memory:     1Gi\n",
        "    Environment:  <none>\n    Mounts:\n      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-",
        "Volumes:\n  kube-api-access-",
        "    Type:                    Projected (a volume that contains injected data from multiple sources)\n    TokenExpirationSeconds:  3607\n    ConfigMapName:           kube-root-ca.crt\n    Optional:                false\n    DownwardAPI:             true\n",
        "QoS Class:                   Guaranteed\nNode-Selectors:              <none>\nTolerations:                 node.kubernetes.io/not-ready:NoExecute op=Exists for 300s\n                             node.kubernetes.io/unreachable:NoExecute op=Exists for 300s\nEvents:",
    ] {
        assert!(describe.contains(want), "missing {want:?} in\n{describe}");
    }
    let template = kubectl::describe_deployment(&m, "web").unwrap_or_else(|e| e);
    assert!(!template.contains("Requests:"), "{template}");
}

/// `kubectl get nodes` and `kubectl describe node` (`describeNode`, kubectl v1.35): where six
/// replicas want a CPU each on two 2-CPU nodes, each node lists its two non-terminated pods at
/// 50% of its CPU and is allocated at 100%, which is why the rest are Pending.
#[test]
fn describe_node_shows_why_a_node_is_full() {
    let (sim, steps) = run_until("six-want-four-ready.yaml", 180);
    let m = Moment::new(&sim, &steps).at(Time::from_secs(180));
    let nodes = kubectl::get(&m, &[Resource::Nodes], false);
    assert_eq!(
        nodes,
        "NAME     STATUS   ROLES    AGE   VERSION\nnode-1   Ready    <none>   3m    v1.35.0\nnode-2   Ready    <none>   3m    v1.35.0\n"
    );
    let text = kubectl::describe_node(&m, "node-1").unwrap_or_else(|e| e);
    for want in [
        "Name:               node-1\nRoles:              <none>\nLabels:             beta.kubernetes.io/arch=amd64\n                    beta.kubernetes.io/os=linux\n                    kubernetes.io/arch=amd64\n                    kubernetes.io/hostname=node-1\n                    kubernetes.io/os=linux\nAnnotations:        node.alpha.kubernetes.io/ttl: 0\n                    volumes.kubernetes.io/controller-managed-attach-detach: true\n",
        "Taints:             <none>\nUnschedulable:      false\n",
        "  Ready            True    ",
        "KubeletReady                 kubelet is posting ready status\n",
        // The lease renews every 10 s; 180 s is a renewal.
        "Unschedulable:      false\nLease:\n  HolderIdentity:  node-1\n  AcquireTime:     <unset>\n  RenewTime:       Thu, 01 Jan 2026 00:03:00 +0000\nConditions:\n",
        "Allocatable:\n  cpu:                2\n  ephemeral-storage:  102626232Ki\n  hugepages-1Gi:      0\n  hugepages-2Mi:      0\n  memory:             8Gi\n  pods:               110\n",
        "System Info:\n  Machine ID:                 ",
        "\n  Kernel Version:             6.1.0-31-amd64\n",
        "Non-terminated Pods:          (2 in total)\n",
        "1 (50%)       0 (0%)      128Mi (1%)       0 (0%)         3m\n",
        "Allocated resources:\n  (Total limits may be over 100 percent, i.e., overcommitted.)\n  Resource           Requests    Limits\n  --------           --------    ------\n  cpu                2 (100%)    0 (0%)\n  memory             256Mi (3%)  0 (0%)\n  ephemeral-storage  0 (0%)      0 (0%)\n  hugepages-1Gi      0 (0%)      0 (0%)\n  hugepages-2Mi      0 (0%)      0 (0%)\nEvents:              <none>\n",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
    assert_eq!(
        kubectl::describe_node(&m, "nope"),
        Err("Error from server (NotFound): nodes \"nope\" not found".to_string())
    );
}

/// A node whose kubelet stopped posting status: NotReady in `get nodes`, its conditions
/// Unknown (`NodeStatusUnknown`) since the node controller noticed, the `unreachable` taints
/// (NoExecute before NoSchedule), and the controller's NodeNotReady event.
#[test]
fn describe_node_shows_a_lost_node() {
    let (sim, steps) = run_until("node-failure.yaml", 420);
    let m = Moment::new(&sim, &steps).at(Time::from_secs(420));
    let nodes = kubectl::get(&m, &[Resource::Nodes], false);
    assert!(nodes.contains("node-2   NotReady   <none>"), "{nodes}");
    let text = kubectl::describe_node(&m, "node-2").unwrap_or_else(|e| e);
    for want in [
        "Taints:             node.kubernetes.io/unreachable:NoExecute\n                    node.kubernetes.io/unreachable:NoSchedule\n",
        "  Ready            Unknown   ",
        "NodeStatusUnknown   Kubelet stopped posting node status.\n",
        "  Normal  NodeNotReady  4m50s  node-controller  Node node-2 status is now: NodeNotReady\n",
        // Its lease was last renewed when the kubelet stopped, at 80 s.
        "  RenewTime:       Thu, 01 Jan 2026 00:01:20 +0000\n",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
}

/// describe pod names the container the runtime runs and the image it runs from: empty while
/// the image cannot be pulled, `containerd://` and 64 hex digits once created, a new ID after a
/// restart, and the image as a Docker reference with its digest.
#[test]
fn describe_pod_shows_container_and_image_ids() {
    let id_lines = |file: &str, secs: u64, status: &str| -> Vec<String> {
        let (sim, steps) = run_until(file, secs);
        let m = Moment::new(&sim, &steps).at(Time::from_secs(secs));
        let pod = kubectl::get_pods(&m, "", false)
            .lines()
            .find(|l| l.contains(status))
            .and_then(|l| l.split_whitespace().next().map(str::to_string))
            .unwrap_or_else(|| panic!("no {status} pod"));
        kubectl::describe_pod(&m, &pod)
            .unwrap_or_else(|e| e)
            .lines()
            .filter(|l| l.contains(" ID:"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(
        id_lines("image-typo.yaml", 120, "ImagePullBackOff"),
        ["    Container ID:   ", "    Image ID:       "]
    );
    let running = id_lines("crash-loop.yaml", 5, "Running");
    let later = id_lines("crash-loop.yaml", 240, "CrashLoopBackOff");
    for lines in [&running, &later] {
        let container = lines[0].trim_start_matches("    Container ID:   ");
        let hex = container.strip_prefix("containerd://").unwrap_or_default();
        assert_eq!(hex.len(), 64, "{lines:?}");
        assert!(hex.bytes().all(|b| b.is_ascii_hexdigit()), "{lines:?}");
        assert!(
            lines[1].starts_with("    Image ID:       docker.io/library/web@sha256:"),
            "{lines:?}"
        );
    }
    assert_ne!(
        running[0], later[0],
        "a restarted container is a new container"
    );
    assert_eq!(running[1], later[1], "the same image");
}

/// Init containers run one at a time before the app container: `migrate` to completion, then
/// the `proxy` sidecar until its startup probe passes; meanwhile STATUS walks `Init:0/2`,
/// `Init:1/2` and `PodInitializing` (the default waiting reason of a pod with init containers)
/// before `Running`, and READY counts the sidecar beside the app container.
#[test]
fn init_containers_run_in_turn_before_the_app_containers() {
    let statuses = status_transitions("init-containers.yaml", "web-", 30);
    assert_eq!(
        statuses,
        [
            "Pending",
            "Init:0/2",
            "Init:1/2",
            "PodInitializing",
            "Running"
        ],
    );
    let (sim, steps) = run_until("init-containers.yaml", 30);
    let pod = first_pod_with_prefix(&steps, "web-");
    let started = |name: &str| {
        let field = format!("spec.initContainers{{{name}}}");
        steps
            .iter()
            .flat_map(|s| s.events.iter().map(move |e| (s.time, e)))
            .find(|(_, e)| {
                e.involved_object.name == pod
                    && e.reason == EventReason::Started
                    && e.involved_object.field_path.as_deref() == Some(field.as_str())
            })
            .map(|(t, _)| t.as_millis())
            .unwrap_or_else(|| panic!("no Started event for {name} in {pod}"))
    };
    let app_started = event_times(&steps, &pod, EventReason::Started, "")
        .into_iter()
        .max()
        .expect("the app container started");
    // migrate pulls for 2 s and runs for 4 s; only then is proxy pulled (3 s) and started, and
    // web is pulled only once proxy's startup probe has passed.
    assert_eq!(started("migrate"), 2_000);
    assert_eq!(started("proxy"), 9_000);
    assert!(app_started > 11_000, "web started at {app_started} ms");
    let p = &sim.store().pods[pod.as_str()];
    assert_eq!(kubectl::ready_cell(p), "2/2");
    let m = Moment::new(&sim, &steps).at(Time::from_secs(30));
    let described = kubectl::describe_pod(&m, &pod).unwrap_or_else(|e| e);
    for line in [
        "Init Containers:\n  migrate:",
        "    State:          Terminated\n      Reason:       Completed\n      Exit Code:    0",
        "spec.initContainers{migrate}: Pulling image \"migrate:1.0\"",
    ] {
        assert!(described.contains(line), "{line:?} not in:\n{described}");
    }
}

/// A failing init container holds its pod in `Init:Error` after each exit, and shows
/// `Init:CrashLoopBackOff` when the pod worker looks again (the reason its last sync left) just
/// before the restart, with the crash-loop back-off of any container, the Initialized condition False, and
/// RESTARTS counting the init container while the pod initializes.
#[test]
fn a_failing_init_container_crash_loops_and_the_pod_never_initializes() {
    let new_hash = replica_set_where("init-containers.yaml", 61, |spec| {
        spec.init_containers[0].image == "migrate:2.0"
    });
    let statuses = status_transitions("init-containers.yaml", &new_hash, 200);
    assert_eq!(
        statuses,
        [
            "Pending",
            "Init:0/2",
            "Init:Error",
            "Init:0/2",
            "Init:Error",
            "Init:CrashLoopBackOff",
            "Init:0/2",
            "Init:Error",
            "Init:CrashLoopBackOff",
            "Init:0/2",
            "Init:Error",
            "Init:CrashLoopBackOff",
            "Init:0/2",
            "Init:Error",
        ],
    );
    let (sim, steps) = run_until("init-containers.yaml", 100);
    let pod = first_pod_with_prefix(&steps, &new_hash);
    let restarts = event_times(&steps, &pod, EventReason::Started, "");
    let gaps: Vec<u64> = restarts.windows(2).map(|w| w[1] - w[0]).collect();
    // Each run lasts 3 s before its exit; the back-off then counts from the exit.
    let waits: Vec<u64> = gaps.iter().map(|g| g - 3_000).collect();
    check_gaps(&pod, &waits, &[0, 10], |b| b / 2 + 1);
    let p = &sim.store().pods[pod.as_str()];
    assert_eq!(p.status.phase, PodPhase::Pending);
    let initialized = p
        .status
        .conditions
        .iter()
        .find(|c| c.type_ == rolloutscope::sim::api::PodConditionType::Initialized)
        .expect("an Initialized condition");
    assert_eq!(
        initialized.reason.as_deref(),
        Some("ContainersNotInitialized")
    );
    assert_eq!(
        initialized.message.as_deref(),
        Some("containers with incomplete status: [migrate proxy]")
    );
    assert!(
        kubectl::restarts_cell(p, Time::from_secs(100)).starts_with("2 ("),
        "{}",
        kubectl::restarts_cell(p, Time::from_secs(100))
    );
    // The rollout stalls at maxSurge: the old pods keep serving.
    let d = sim.deployment("web").expect("the Deployment");
    assert_eq!(d.status.available_replicas, 3);
    assert_eq!(d.status.updated_replicas, 1);
}

/// A deleted pod's sidecars get SIGTERM only after its app containers have exited, with what is
/// left of the grace period: web exits 4 s after SIGTERM, and proxy, which ignores SIGTERM, is
/// killed when the remaining 26 s run out; both Killing events come at once.
#[test]
fn sidecars_stop_after_the_app_containers() {
    let yaml = scenario_text("init-containers.yaml")
        .replace(
            "web:1.0: {pull_time: 2s, listen_after: 3s}",
            "web:1.0: {pull_time: 2s, listen_after: 3s, shutdown: 4s}",
        )
        .replace("actions:\n", "actions:\n  - {at: 30s, delete_pod: web-}\n");
    let (_, steps) = run_yaml(&yaml, 70);
    let pod = steps
        .iter()
        .flat_map(|s| &s.events)
        .find(|e| e.reason == EventReason::Killing)
        .map(|e| e.involved_object.name.clone())
        .expect("a Killing event");
    let killing = event_times(&steps, &pod, EventReason::Killing, "Stopping container");
    assert_eq!(killing, [30_000, 30_000]);
    let gone = steps
        .iter()
        .find(|s| {
            s.narration
                .starts_with(&format!("{pod}'s containers have stopped"))
        })
        .map(|s| s.time.as_millis())
        .expect("the pod is removed");
    assert_eq!(gone, 60_000);
}

/// A sidecar's readiness counts for the pod: with the proxy's readiness endpoint failing, the
/// app container's passing probe leaves the pod not Ready (READY 1/2), and the narration says
/// what it waits for. A sidecar killed for a failed startup probe is reported in the init
/// container's own words.
#[test]
fn a_sidecar_counts_for_readiness_and_is_killed_in_its_own_words() {
    let unready = scenario_text("init-containers.yaml")
        .replace(
            "proxy:1.31: {pull_time: 3s, listen_after: 2s}",
            "proxy:1.31: {pull_time: 3s, listen_after: 2s, ready: never}",
        )
        .replace(
            "              periodSeconds: 2\n",
            "              periodSeconds: 2\n            readinessProbe:\n              httpGet: {path: /ready, port: 15000}\n",
        );
    let (sim, steps) = run_yaml(&unready, 40);
    assert!(
        narrated(
            &steps,
            "so the container is ready but the pod stays not Ready until proxy is ready too"
        ),
        "no step says the pod waits for proxy"
    );
    for p in sim.store().pods.values() {
        assert_eq!(kubectl::ready_cell(p), "1/2", "{}", p.metadata.name);
        assert!(!p.is_ready());
    }
    let never_listens = scenario_text("init-containers.yaml").replace(
        "proxy:1.31: {pull_time: 3s, listen_after: 2s}",
        "proxy:1.31: {pull_time: 3s, listen_after: 10m}",
    );
    let (_, steps) = run_yaml(&never_listens, 40);
    assert!(
        steps
            .iter()
            .flat_map(|s| &s.events)
            .any(|e| e.reason == EventReason::Killing
                && e.message == "Init container proxy failed startup probe"),
        "no Killing event for the sidecar's failed startup probe"
    );
}

/// `killContainer` after a failed liveness probe: SIGTERM, then SIGKILL when the grace period
/// ends. The grace period is the probe's `terminationGracePeriodSeconds` when it sets one, else
/// the pod's. An app that ignores SIGTERM keeps running (and probing) until then and exits 137;
/// one that handles it exits after its shutdown time with 143. Data: (image, probe's grace
/// period, seconds from the Killing event to the restart, exit code).
#[test]
fn a_liveness_kill_waits_for_the_process_or_the_grace_period() {
    let table: &[(&str, &str, u64, i32)] = &[
        ("listen_after: 5m", "", 20, 137),
        (
            "listen_after: 5m",
            ", terminationGracePeriodSeconds: 3",
            3,
            137,
        ),
        ("listen_after: 5m, shutdown: 2s", "", 2, 143),
        (
            "listen_after: 5m, shutdown: 9s",
            ", terminationGracePeriodSeconds: 3",
            3,
            137,
        ),
    ];
    for &(image, probe_grace, want_gap, want_code) in table {
        let yaml = app_pod(
            &[&format!("app:1: {{{image}}}")],
            &["terminationGracePeriodSeconds: 20"],
            &[&format!(
                "{{name: app, image: app:1, livenessProbe: {{tcpSocket: {{port: 80}}, periodSeconds: 5, failureThreshold: 1{probe_grace}}}}}"
            )],
            &[],
            "2m",
        );
        let (sim, steps) = run_yaml(&yaml, 60);
        let pod = first_pod_with_prefix(&steps, "app-");
        let killed = event_times(
            &steps,
            &pod,
            EventReason::Killing,
            "Container app failed liveness probe",
        );
        let started = event_times(&steps, &pod, EventReason::Started, "Container started");
        let gap = started
            .get(1)
            .zip(killed.first())
            .map(|(s, k)| (s - k) / 1000);
        assert_eq!(
            gap,
            Some(want_gap),
            "{image} {probe_grace}: kills {killed:?}, starts {started:?}"
        );
        // The first restart needs no back-off; the exit shows as the last state.
        drop((sim, steps));
        let (sim, steps) = run_yaml_until(&yaml, Time::from_millis(started[1]));
        let m = Moment::new(&sim, &steps);
        let text = kubectl::describe_pod(&m, &pod).unwrap_or_else(|e| e);
        assert!(
            text.contains(&format!(
                "    Last State:     Terminated\n      Reason:       Error\n      Exit Code:    {want_code}\n"
            )),
            "{image} {probe_grace}:\n{text}"
        );
    }
}

/// A restart under `imagePullPolicy: Always` pulls first. Meanwhile the pod stays Running and
/// shows how the last instance ended (STATUS `Error`, the terminated state with its exit code),
/// as the status computed before the pull does; once the container runs again, that state is
/// its Last State and the restart is counted.
#[test]
fn a_restart_that_pulls_first_keeps_the_last_state() {
    let yaml = &app_pod(
        &["app:1: {pull_time: 3s, crash_after: 5s, exit_code: 3}"],
        &[],
        &["{name: app, image: app:1, imagePullPolicy: Always}"],
        &[],
        "1m",
    );
    let (sim, steps) = run_yaml(yaml, 60);
    let pod = first_pod_with_prefix(&steps, "app-");
    let started = event_times(&steps, &pod, EventReason::Started, "Container started");
    assert!(started.len() >= 2, "{started:?}");
    // Between the crash (5 s after the first start) and the restart, the image is pulled: the
    // node has it, so the registry only confirms the digest, in 50 ms.
    let during = Time::from_millis(started[0] + 5020);
    assert!(during.as_millis() < started[1], "{started:?}");
    drop((sim, steps));
    let (sim, steps) = run_yaml_until(yaml, during);
    let m = Moment::new(&sim, &steps);
    let get = kubectl::get(&m, &[Resource::Pods], false);
    assert!(get.contains(" Error "), "{get}");
    let text = kubectl::describe_pod(&m, &pod).unwrap_or_else(|e| e);
    assert!(text.contains("Status:           Running\n"), "{text}");
    assert!(
        text.contains(
            "    State:          Terminated\n      Reason:       Error\n      Exit Code:    3\n"
        ),
        "{text}"
    );
    let (sim, steps) = run_yaml_until(yaml, Time::from_millis(started[1]));
    let m = Moment::new(&sim, &steps);
    let text = kubectl::describe_pod(&m, &pod).unwrap_or_else(|e| e);
    assert!(
        text.contains(
            "    Last State:     Terminated\n      Reason:       Error\n      Exit Code:    3\n"
        ),
        "{text}"
    );
    assert!(text.contains("    Restart Count:  1\n"), "{text}");
}

/// A pod deleted while a container is stopping after a failed liveness probe: the container
/// already had its SIGTERM, so the deletion's second one changes nothing and it exits when its
/// shutdown from the first ends (here 3 s after the kill), not 3 s after the deletion.
#[test]
fn a_deletion_during_a_probe_kill_keeps_the_shutdown_under_way() {
    let yaml = &app_pod(
        &["app:1: {listen_after: 5m, shutdown: 3s}"],
        &[],
        &[
            "{name: app, image: app:1, livenessProbe: {tcpSocket: {port: 80}, periodSeconds: 5, failureThreshold: 1}}",
        ],
        &["{at: 8s, delete_pod: app-}"],
        "30s",
    );
    let (sim, steps) = run_yaml(yaml, 30);
    let pod = first_pod_with_prefix(&steps, "app-");
    let killed = event_times(
        &steps,
        &pod,
        EventReason::Killing,
        "Container app failed liveness probe",
    );
    let last = killed.iter().copied().filter(|&t| t < 8000).max();
    assert!(
        last.is_some_and(|t| t + 3000 > 8000),
        "the deletion comes during a kill: {killed:?}"
    );
    let gone = steps
        .iter()
        .find(|s| {
            s.narration
                .contains(&format!("{pod}'s containers have stopped"))
        })
        .map(|s| s.time.as_millis());
    assert_eq!(gone, last.map(|t| t + 3000), "kills at {killed:?}");
    assert!(!sim.store().pods.contains_key(pod.as_str()));
}

/// The scheduler records through events.k8s.io: a pod that fails to schedule again and again
/// (at 0 s, then every 5 min 30 s: the queue's flush every 30 s moves it once it has waited more
/// than five minutes) gets one event whose second occurrence makes it a series of 2, written at
/// once; later repeats only count in the recorder's cache until its thirty-minute refresh writes
/// them. So describe shows `(x2 over …)` with the second failure's age for half an hour.
#[test]
fn repeated_failed_scheduling_is_an_event_series() {
    let (_, steps) = run_until("six-want-four-ready.yaml", 60);
    let pending = steps
        .iter()
        .flat_map(|s| &s.events)
        .find(|e| e.reason == EventReason::FailedScheduling)
        .map(|e| e.involved_object.name.clone())
        .expect("a pod fails to schedule");
    for (at_secs, want) in [
        (
            4 * 60,
            "  Warning  FailedScheduling  4m    default-scheduler",
        ),
        (
            12 * 60,
            "  Warning  FailedScheduling  6m30s (x2 over 12m)  default-scheduler",
        ),
        (
            31 * 60,
            "  Warning  FailedScheduling  3m30s (x6 over 31m)  default-scheduler",
        ),
    ] {
        let at = Time::from_secs(at_secs);
        let (sim_at, steps_at) = run_until("six-want-four-ready.yaml", at_secs);
        let m = Moment::new(&sim_at, &steps_at).at(at);
        let text = kubectl::describe_pod(&m, &pending).unwrap_or_else(|e| e);
        assert!(text.contains(want), "at {at_secs}s, want {want:?}:\n{text}");
    }
}

/// One sync at a time per pod: the sync that kills a container after a failed liveness probe
/// stays in `killContainer` for the grace period, so a second container that crashes meanwhile
/// is restarted only when that kill has ended, and a second failing probe's kill waits too.
#[test]
fn a_probe_kill_holds_the_pod_worker_for_its_grace_period() {
    let yaml = &app_pod(
        &["a:1: {listen_after: 5m}", "b:1: {crash_after: 8s}"],
        &["terminationGracePeriodSeconds: 20"],
        &[
            "{name: a, image: a:1, livenessProbe: {tcpSocket: {port: 80}, periodSeconds: 5, failureThreshold: 1}}",
            "{name: b, image: b:1}",
        ],
        &[],
        "1m",
    );
    let (_, steps) = run_yaml(yaml, 60);
    let pod = first_pod_with_prefix(&steps, "app-");
    let kills = event_times(
        &steps,
        &pod,
        EventReason::Killing,
        "Container a failed liveness probe",
    );
    let b_started: Vec<u64> = steps
        .iter()
        .flat_map(|s| s.events.iter().map(move |e| (s.time, e)))
        .filter(|(_, e)| {
            e.involved_object.name == pod
                && e.reason == EventReason::Started
                && e.involved_object.field_path.as_deref() == Some("spec.containers{b}")
        })
        .map(|(t, _)| t.as_millis())
        .collect();
    assert!(
        !kills.is_empty() && b_started.len() >= 2,
        "kills {kills:?}, b started {b_started:?}"
    );
    // b crashes 8 s after its start, inside a's 20 s grace period, and restarts when a has gone.
    assert!(
        b_started[0] + 8000 < kills[0] + 20_000,
        "kills {kills:?}, b started {b_started:?}"
    );
    assert_eq!(
        b_started[1],
        kills[0] + 20_000,
        "kills {kills:?}, b started {b_started:?}"
    );
}

/// The readiness run a container's start triggers comes with the status update after the sync
/// that started it, and that sync goes on to pull and start the containers after it. Here `a`
/// starts at 1 s and `b`'s 5 s pull holds the sync until 6 s: `a`'s ticker starts then, and its
/// tick at 16 s is the first past its 15 s delay (not 21 s, on a ticker from 1 s).
#[test]
fn readiness_is_triggered_when_the_sync_that_started_the_container_ends() {
    let yaml = &app_pod(
        &["a:1: {pull_time: 1s}", "b:1: {pull_time: 5s}"],
        &[],
        &[
            "{name: a, image: a:1, readinessProbe: {tcpSocket: {port: 80}, initialDelaySeconds: 15, periodSeconds: 10}}",
            "{name: b, image: b:1}",
        ],
        &[],
        "1m",
    );
    let (sim, steps) = run_yaml(yaml, 60);
    let pod = first_pod_with_prefix(&steps, "app-");
    let started = event_times(&steps, &pod, EventReason::Started, "Container started");
    let ready_at = ready_since(&sim);
    assert_eq!(started.len(), 2, "{started:?}");
    assert_eq!(ready_at, Some(started[1] + 10_000), "started {started:?}");
}

/// A probe worker has nothing to probe until the pod status names its container, and the sync
/// that started the container writes the status only when it has ended, here after the next
/// container's 30 s pull. So neither a startup probe nor a liveness probe runs before then, and
/// the container turns Ready only after the pull, with or without a startup probe.
#[test]
fn probes_wait_until_the_sync_that_started_the_container_has_ended() {
    for probes in [
        "startupProbe: {tcpSocket: {port: 80}, periodSeconds: 1}, readinessProbe: {tcpSocket: {port: 80}, periodSeconds: 10}",
        "readinessProbe: {tcpSocket: {port: 80}, periodSeconds: 10}, livenessProbe: {tcpSocket: {port: 80}, periodSeconds: 1}",
    ] {
        let yaml = app_pod(
            &["a:1: {pull_time: 1s}", "b:1: {pull_time: 30s}"],
            &[],
            &[
                &format!("{{name: a, image: a:1, {probes}}}"),
                "{name: b, image: b:1}",
            ],
            &[],
            "1m",
        );
        let (_, steps) = run_yaml(&yaml, 60);
        let pod = first_pod_with_prefix(&steps, "app-");
        let started = event_times(&steps, &pod, EventReason::Started, "Container started");
        assert_eq!(started.len(), 2, "{probes}: {started:?}");
        let first_probe = steps
            .iter()
            .find(|s| s.narration.contains("probe of a in"))
            .map(|s| s.time.as_millis());
        assert!(
            first_probe.is_some_and(|t| t >= started[1]),
            "{probes}: a's first probe at {first_probe:?}, b started at {}",
            started[1]
        );
    }
}

/// When the pod's readiness probes failed with a 503 (`Unhealthy` events), in milliseconds.
fn readiness_503s(steps: &[Step], pod: &str) -> Vec<u64> {
    event_times(
        steps,
        pod,
        EventReason::Unhealthy,
        "Readiness probe failed: HTTP probe failed with statuscode: 503",
    )
}

/// A readiness result that changes prompts a sync of the pod (`handleProbeSync`), and every sync
/// computes the pod's status (`UpdatePodStatus`), which triggers a readiness run at once for each
/// container that is started but not ready and restarts that worker's ticker. A container that
/// turns not Ready is probed again at once, so the flip brings two `Unhealthy` events at one
/// instant and the runs go on a period after them.
#[test]
fn a_readiness_change_triggers_a_run_for_a_container_not_ready() {
    let yaml = app_pod(
        &["a:1: {pull_time: 1s}"],
        &[],
        &["{name: a, image: a:1, readinessProbe: {httpGet: {port: 80}, periodSeconds: 10}}"],
        &["{at: 30s, break_readiness: app-}"],
        "2m",
    );
    let (_, steps) = run_yaml(&yaml, 120);
    let pod = first_pod_with_prefix(&steps, "app-");
    let failed = readiness_503s(&steps, &pod);
    assert!(failed.len() >= 5, "{failed:?}");
    // Three failures in a row turn the pod not Ready; the sync that follows runs the fourth.
    assert_eq!(failed[1] - failed[0], 10_000, "{failed:?}");
    assert_eq!(failed[2] - failed[1], 10_000, "{failed:?}");
    assert_eq!(failed[3], failed[2], "{failed:?}");
    assert_eq!(failed[4] - failed[3], 10_000, "{failed:?}");
    let triggered = steps
        .iter()
        .find(|s| {
            s.narration
                .contains("run at once because the pod's sync found")
        })
        .expect("the triggered run narrates why it came");
    assert_eq!(triggered.time.as_millis(), failed[3]);
}

/// The first four readiness runs of container a, which is never ready, in seconds after its
/// neighbour b started (when the sync that started both ended, and a was first probed), for b
/// running image `b` with `b_probe`.
fn a_runs_beside(b: &str, b_probe: &str) -> Vec<u64> {
    let yaml = app_pod(
        &[
            "a:1: {pull_time: 1s, ready: never}",
            &format!("b:1: {{pull_time: 1s, {b}}}"),
        ],
        &[],
        &[
            "{name: a, image: a:1, readinessProbe: {httpGet: {port: 80}, periodSeconds: 10}}",
            &format!("{{name: b, image: b:1{b_probe}}}"),
        ],
        &[],
        "1m",
    );
    let (_, steps) = run_yaml(&yaml, 40);
    let pod = first_pod_with_prefix(&steps, "app-");
    let started = event_times(&steps, &pod, EventReason::Started, "Container started");
    let a_failed = readiness_503s(&steps, &pod);
    a_failed
        .iter()
        .map(|t| (t - started[1]) / 1000)
        .take(4)
        .collect()
}

/// Another container's readiness change prompts the sync too: a container still not ready is
/// probed at once and its ticker restarts from that run. Here b turns Ready 7 s after it starts;
/// a, which never does, runs twice at 0 s (its worker's first result prompts a sync too), then
/// at 7 and 17 s rather than 10 and 20 s.
#[test]
fn a_neighbours_readiness_change_restarts_the_ticker_of_a_container_not_ready() {
    let runs = a_runs_beside(
        "listen_after: 3s",
        ", readinessProbe: {tcpSocket: {port: 81}, periodSeconds: 7}",
    );
    assert_eq!(runs, [0, 0, 7, 17]);
}

/// Every sync of the pod computes its status, so a neighbour's crash (the sync that follows its
/// exit) probes a container that is not ready at once too. b exits 4 s after each start: at 4 s
/// the sync restarts it at once, at 8 s the sync finds it in its 10 s back-off. Each sync probes
/// a (after its two runs at 0 s), whose next run follows 10 s after the last.
#[test]
fn a_pod_sync_triggers_a_run_for_a_container_not_ready() {
    assert_eq!(a_runs_beside("crash_after: 4s", ""), [0, 0, 4, 8]);
}

/// The sync a readiness change prompts waits while a liveness kill holds the pod worker: the
/// pod turns not Ready at once, but the run that sync's status computation triggers comes only
/// when the killed container has exited and restarted: a takes 25 s to stop, and b runs on its
/// ticker meanwhile.
#[test]
fn a_prompted_sync_waits_while_a_kill_holds_the_pod_worker() {
    let yaml = app_pod(
        &[
            "a:1: {pull_time: 1s, listen_after: 1000s, shutdown: 25s}",
            "b:1: {pull_time: 1s, listen_after: 1s}",
        ],
        &[],
        &[
            "{name: a, image: a:1, livenessProbe: {tcpSocket: {port: 80}, initialDelaySeconds: 55, periodSeconds: 5, failureThreshold: 1}}",
            "{name: b, image: b:1, readinessProbe: {httpGet: {port: 8080}, periodSeconds: 10}}",
        ],
        &["{at: 40s, break_readiness: app-}"],
        "2m",
    );
    let (_, steps) = run_yaml(&yaml, 110);
    let pod = first_pod_with_prefix(&steps, "app-");
    let failed = readiness_503s(&steps, &pod);
    let killed = event_times(&steps, &pod, EventReason::Killing, "Container a failed");
    assert_eq!(killed.len(), 1, "{killed:?}");
    let after_kill: Vec<u64> = failed.iter().copied().filter(|&t| t > killed[0]).collect();
    let restarted = *event_times(&steps, &pod, EventReason::Started, "Container started")
        .last()
        .expect("a restarts");
    // The flip (no second run with it), two ticks during the kill, the run the waiting sync
    // triggers when a has restarted, then every 10 s from that run.
    let f = after_kill[0];
    assert_eq!(
        after_kill[..5],
        [f, f + 10_000, f + 20_000, restarted, restarted + 10_000],
        "restarted at {restarted}"
    );
}

/// §15.5: a container whose environment needs a ConfigMap the namespace lacks is never created:
/// the image is there, then `Error: configmap "web-settings" not found`, waiting reason
/// CreateContainerConfigError with that message, no restart counted, and the kubelet tries
/// again each time the pod worker looks (its 10 s × U[1, 1.5) back-off after a failed sync).
/// The old pods keep serving until the progress deadline says the rollout is stuck.
#[test]
fn a_missing_config_map_is_create_container_config_error() {
    let (sim, steps) = run_until("missing-configmap.yaml", 110);
    let new_pod = sim
        .store()
        .pods
        .values()
        .find(|p| p.spec.containers[0].image == "web:2.0")
        .expect("a new pod");
    assert_eq!(new_pod.kubectl_status(), "CreateContainerConfigError");
    assert_eq!(new_pod.status.phase, PodPhase::Pending);
    let cs = &new_pod.status.container_statuses[0];
    assert_eq!(cs.restart_count, 0);
    assert!(
        matches!(&cs.state, ContainerState::Waiting { reason, message }
            if reason == "CreateContainerConfigError" && message == "configmap \"web-settings\" not found"),
        "{:?}",
        cs.state
    );
    let failures: Vec<&Step> = steps
        .iter()
        .filter(|s| {
            s.events.iter().any(|e| {
                e.reason == EventReason::Failed
                    && e.message == "Error: configmap \"web-settings\" not found"
            })
        })
        .collect();
    assert!(failures.len() >= 3, "retried: {}", failures.len());
    // The first look again comes with the new sandbox's lifecycle event (the relist, within
    // 1 to 1.5 s), as after a first failed pull; the later ones after the pod worker's back-off.
    for (i, pair) in failures.windows(2).enumerate() {
        let gap = pair[1].time.millis_since(pair[0].time);
        let want = if i == 0 { 1_000..1_500 } else { 10_000..15_000 };
        assert!(want.contains(&gap), "retry gap {i}: {gap} ms");
    }
    let d = sim.deployment("web").expect("web");
    assert_eq!(d.status.available_replicas, 3, "the old pods serve on");
    assert!(
        narrated(&steps, "ProgressDeadlineExceeded"),
        "the rollout is reported stuck"
    );
    let diagnosis = diagnose(&sim, &steps, "web");
    assert_eq!(diagnosis.verdict.cause, Cause::ContainerConfig);
    assert!(
        diagnosis
            .verdict
            .summary
            .contains("STATUS CreateContainerConfigError (configmap \"web-settings\" not found)"),
        "{}",
        diagnosis.verdict.summary
    );
}

/// Right after `kubectl create configmap`, the stuck pod still shows the kubelet's last
/// status; the diagnosis says the object exists now instead of asking to create it again.
#[test]
fn the_diagnosis_knows_a_missing_config_map_was_created() {
    let (sim, steps) = run_until("missing-configmap.yaml", 120);
    let d = diagnose(&sim, &steps, "web");
    assert_eq!(d.verdict.cause, Cause::ContainerConfig);
    assert!(
        d.verdict.summary.starts_with(
            "1 new pod still shows STATUS CreateContainerConfigError (configmap \"web-settings\" not found), though the ConfigMap or Secret named there exists now"
        ),
        "{}",
        d.verdict.summary
    );
    assert!(
        !d.verdict.advice.contains("Create it"),
        "{}",
        d.verdict.advice
    );
    let (sim, steps) = run_until("missing-configmap.yaml", 119);
    let d = diagnose(&sim, &steps, "web");
    assert!(
        d.verdict.advice.contains("Create it"),
        "{}",
        d.verdict.advice
    );
}

/// `kubectl create configmap` lets the stuck pod start at its pod worker's next look (no
/// restart counted), and the rollout completes; creating one that exists is refused as kubectl
/// refuses it.
#[test]
fn creating_the_missing_config_map_lets_the_rollout_finish() {
    let (sim, steps) = run_until("missing-configmap.yaml", 300);
    let created = steps
        .iter()
        .find(|s| s.object == "configmap/web-settings")
        .expect("the create step");
    assert!(
        created
            .narration
            .starts_with("configmap/web-settings created."),
        "{}",
        created.narration
    );
    let d = sim.deployment("web").expect("web");
    assert_eq!(
        (d.status.updated_replicas, d.status.available_replicas),
        (3, 3)
    );
    assert!(
        sim.store().pods.values().all(|p| {
            p.spec.containers[0].image == "web:2.0" && p.kubectl_status() == "Running"
        })
    );
    let yaml = scenario_text("missing-configmap.yaml").replace(
        "create_configmap: {name: web-settings",
        "create_secret: {name: web-db",
    );
    let (_, steps) = run_yaml(&yaml, 130);
    assert!(steps.iter().any(|s| s.narration.ends_with(
        "was refused: error: failed to create secret: secrets \"web-db\" already exists"
    )));
}

/// `makeEnvironmentVariables`' other refusals: a missing key names the object with its
/// namespace, a missing Secret reads like a missing ConfigMap, and `optional: true` skips what
/// is missing.
#[test]
fn environment_references_fail_or_pass_like_the_kubelet() {
    let yaml = |env: &str| {
        one_pod_on_one_node(
            "",
            &format!("          - name: web\n            image: web:1.0\n{env}"),
            "20s",
        )
        .replace(
            "cluster: {nodes: [{name: node-1}]}",
            "cluster: {nodes: [{name: node-1}], configMaps: {cfg: {A: \"1\"}}}",
        )
    };
    let status_of = |env: &str| {
        let (sim, _) = run_yaml(&yaml(env), 20);
        let pod = sim.store().pods.values().next().expect("a pod").clone();
        match &pod.status.container_statuses[0].state {
            ContainerState::Waiting { message, .. } if !message.is_empty() => message.clone(),
            _ => pod.kubectl_status(),
        }
    };
    assert_eq!(
        status_of(
            "            env: [{name: B, valueFrom: {configMapKeyRef: {name: cfg, key: B}}}]"
        ),
        "couldn't find key B in ConfigMap default/cfg"
    );
    assert_eq!(
        status_of("            envFrom: [{secretRef: {name: db}}]"),
        "secret \"db\" not found"
    );
    assert_eq!(
        status_of(
            "            envFrom: [{secretRef: {name: db, optional: true}}]\n            env: [{name: B, valueFrom: {configMapKeyRef: {name: cfg, key: B, optional: true}}}, {name: A, valueFrom: {configMapKeyRef: {name: cfg, key: A}}}]"
        ),
        "Running"
    );
}

/// The steps of a run that recorded an event with this reason.
fn steps_with(steps: &[Step], reason: EventReason) -> impl Iterator<Item = &Step> {
    steps
        .iter()
        .filter(move |s| s.events.iter().any(|e| e.reason == reason))
}

/// The narration of the first step that recorded an event with this reason.
fn first_narration_with(steps: &[Step], reason: EventReason) -> String {
    steps_with(steps, reason)
        .next()
        .map(|s| s.narration.clone())
        .unwrap_or_default()
}

/// The messages of a run's events with this reason, in order.
fn event_messages(steps: &[Step], reason: EventReason) -> Vec<&str> {
    steps
        .iter()
        .flat_map(|s| &s.events)
        .filter(|e| e.reason == reason)
        .map(|e| e.message.as_str())
        .collect()
}

/// The Unhealthy messages of a run, in order.
fn unhealthy(steps: &[Step]) -> Vec<String> {
    event_messages(steps, EventReason::Unhealthy)
        .into_iter()
        .map(String::from)
        .collect()
}

/// §15.4: a probe whose port names no port of the container cannot be run
/// (`ResolveContainerPort` fails): `… probe errored and resulted in unknown state: …`, and the
/// run is thrown away. Readiness keeps its initial Failure, so the pod is never Ready; liveness
/// keeps its initial Success, so the container is never killed, even though the app never
/// listens.
#[test]
fn a_probe_on_a_port_name_the_container_lacks_errors_and_is_not_counted() {
    let sc = probed_pod(
        "  app:1: {pull_time: 1s, listen_after: 100s}",
        "            ports: [{containerPort: 8080, name: web}]
            readinessProbe: {httpGet: {path: /ready, port: http}, periodSeconds: 10}
            livenessProbe: {tcpSocket: {port: health}, periodSeconds: 10}",
        "",
    );
    let (sim, steps) = run_scenario(sc, 60);
    let messages = unhealthy(&steps);
    assert!(
        messages.contains(&"Readiness probe errored and resulted in unknown state: strconv.Atoi: parsing \"http\": invalid syntax".to_string()),
        "{messages:?}"
    );
    assert!(
        messages.contains(&"Liveness probe errored and resulted in unknown state: strconv.Atoi: parsing \"health\": invalid syntax".to_string()),
        "{messages:?}"
    );
    assert!(
        messages.iter().all(|m| m.contains(" errored ")),
        "{messages:?}"
    );
    let pod = sim.store().pods.values().next().expect("the pod");
    assert_eq!(pod.status.container_statuses[0].restart_count, 0);
    assert!(!pod.is_ready());
    assert!(
        steps
            .iter()
            .flat_map(|s| &s.events)
            .all(|e| e.reason != EventReason::Killing)
    );
    // An app that listens and is ready at once: still never Ready, as no run of its readiness
    // probe counts.
    let sc = probed_pod(
        "  app:1: {pull_time: 1s, listen_after: 1s, ready: always}",
        "            ports: [{containerPort: 8080, name: web}]
            readinessProbe: {httpGet: {path: /ready, port: http}, periodSeconds: 10}",
        "",
    );
    let (sim, _) = run_scenario(sc, 60);
    let pod = sim.store().pods.values().next().expect("the pod");
    assert!(!pod.is_ready());
}

/// A failing exec probe's event carries what its command printed, as the scenario's image
/// says it (the Kubernetes docs' `cat /tmp/healthy` on busybox), and nothing when it says
/// nothing; `describe pod` shows the same text.
#[test]
fn a_failing_exec_probe_reports_its_commands_output() {
    let probe = "            livenessProbe: {exec: {command: [cat, /tmp/healthy]}, periodSeconds: 5, failureThreshold: 3}";
    let sc = probed_pod(
        "  app:1: {pull_time: 1s, listen_after: 1h, exec_output: \"cat: can't open '/tmp/healthy': No such file or directory\"}",
        probe,
        "",
    );
    let (_, steps) = run_scenario(sc, 30);
    let messages = unhealthy(&steps);
    assert!(
        messages.contains(
            &"Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory"
                .to_string()
        ),
        "{messages:?}"
    );
    let sc = probed_pod("  app:1: {pull_time: 1s, listen_after: 1h}", probe, "");
    let (_, steps) = run_scenario(sc, 30);
    assert!(
        unhealthy(&steps).contains(&"Liveness probe failed: ".to_string()),
        "{:?}",
        unhealthy(&steps)
    );
}

/// §15.4 step 8: every probe but TCP waits for its answer within `timeoutSeconds`; an exec
/// probe's timeout is the kubelet's `command "…" timed out`, a gRPC one's `health rpc did not
/// complete`, and a gRPC probe of a port that refuses connections runs into the timeout while
/// it dials.
#[test]
fn exec_and_grpc_probes_time_out_like_http() {
    let sc = probed_pod(
        "  app:1: {pull_time: 1s, response_time: 3s}",
        "            readinessProbe: {exec: {command: [cat, /tmp/ready]}, periodSeconds: 5}
            livenessProbe: {grpc: {port: 9090}, periodSeconds: 5}",
        "",
    );
    let (sim, steps) = run_scenario(sc, 40);
    let messages = unhealthy(&steps);
    for m in [
        "Readiness probe failed: command \"cat /tmp/ready\" timed out",
        "Liveness probe failed: timeout: health rpc did not complete within 1s",
    ] {
        assert!(messages.contains(&m.to_string()), "{m}: {messages:?}");
    }
    let pod = sim.store().pods.values().next().expect("the pod");
    assert!(!pod.is_ready());
    assert!(
        steps
            .iter()
            .flat_map(|s| &s.events)
            .any(|e| e.message == "Container app failed liveness probe, will be restarted")
    );
    let sc = probed_pod(
        "  app:1: {pull_time: 1s, listen_after: 20s}",
        "            livenessProbe: {grpc: {port: 9090}, periodSeconds: 5, failureThreshold: 10}",
        "",
    );
    let (_, steps) = run_scenario(sc, 20);
    let messages = unhealthy(&steps);
    assert!(
        messages.first().is_some_and(|m| m
            .starts_with("Liveness probe failed: timeout: failed to connect service \"10.244.")
            && m.ends_with(":9090\" within 1s: context deadline exceeded")),
        "{messages:?}"
    );
}

/// A sidecar gets SIGTERM only once the app containers have exited, with what is left of the
/// grace period (at least 2 s): one that needs 5 s to stop after an app that used the whole
/// 30 s is SIGKILLed (137), whatever its own exit code on SIGTERM would have been.
#[test]
fn a_sidecar_out_of_grace_ends_by_sigkill_whatever_its_shutdown_code() {
    let yaml = app_pod(
        &["a:1: {}", "s:1: {shutdown: 5s, shutdown_exit_code: 0}"],
        &["initContainers: [{name: side, image: \"s:1\", restartPolicy: Always}]"],
        &["{name: a, image: \"a:1\"}"],
        &["{at: 10s, scale: 0}"],
        "2m",
    );
    let (_, pod, _) = first_terminal_deleted_pod(Scenario::parse(&yaml).expect("parses"));
    let side = &pod.status.init_container_statuses[0];
    assert!(
        matches!(&side.state, ContainerState::Terminated { exit_code: 137, reason, .. } if reason == "Error"),
        "{:?}",
        side.state
    );
}

/// A pod deleted while its first image pull holds the worker reports its sandbox (and so its
/// IP) in the status its termination writes.
#[test]
fn a_pod_deleted_during_its_first_pull_shows_its_ip_while_it_terminates() {
    let yaml = app_pod(
        &["a:1: {pull_time: 20s}"],
        &[],
        &["{name: a, image: \"a:1\"}"],
        &["{at: 5s, scale: 0}"],
        "1m",
    );
    let mut sim = Scenario::parse(&yaml).expect("parses").sim();
    let mut seen = None;
    while let Some(_step) = sim.step_until(Time::from_secs(60)) {
        if let Some(p) = sim
            .store()
            .pods
            .values()
            .find(|p| p.metadata.deletion_timestamp.is_some())
        {
            seen = Some(p.status.pod_ip.clone());
            if p.status.pod_ip.is_some() {
                break;
            }
        }
    }
    let ip = seen
        .expect("the pod is deleted")
        .expect("its IP is reported");
    assert!(ip.starts_with("10.244."), "{ip}");
}

/// Three nodes, all cordoned, then a scale-up: the new pods cannot be placed until node-2 is
/// uncordoned. Shared by the cordon tests.
fn cordoned_cluster(extra_actions: &str) -> String {
    format!(
        r#"
name: cordoned
seed: 7
cluster: {{nodes: [{{name: node-1}}, {{name: node-2}}, {{name: node-3}}]}}
images:
  web:1.0: {{pull_time: 2s, listen_after: 3s, ready: always}}
deployment:
  apiVersion: apps/v1
  kind: Deployment
  metadata: {{name: web}}
  spec:
    replicas: 3
    selector: {{matchLabels: {{app: web}}}}
    template:
      metadata: {{labels: {{app: web}}}}
      spec:
        containers:
        - name: web
          image: web:1.0
          resources: {{requests: {{cpu: 250m, memory: 128Mi}}}}
actions:
  - {{at: 30s, cordon: node-1}}
  - {{at: 31s, cordon: node-2}}
  - {{at: 32s, cordon: node-3}}
  - {{at: 40s, scale: 5}}
  - {{at: 90s, uncordon: node-2}}
{extra_actions}run_until: 3m
"#
    )
}

/// The kubelet notes a cordon and an uncordon on its node at its next 10 s status sync
/// (`recordNodeSchedulableEvent`), as `NodeNotSchedulable` and `NodeSchedulable`; a pending pod
/// is retried the moment a node becomes schedulable again (`SchedulerPopFromBackoffQ`), and a
/// cordon wakes no pending pod, since it can only make things worse.
#[test]
fn cordon_and_uncordon_are_noted_by_the_kubelet_and_uncordon_retries_at_once() {
    let (sim, steps) = run_yaml(&cordoned_cluster(""), 180);
    let node_events: Vec<(u64, String, String)> = steps
        .iter()
        .flat_map(|s| s.events.iter().map(move |e| (s.time.as_millis() / 1000, e)))
        .filter(|(_, e)| e.involved_object.kind == "Node")
        .map(|(t, e)| (t, e.source.to_string(), e.message.clone()))
        .collect();
    let expect = |t: u64, node: &str, status: &str| {
        (
            t,
            format!("kubelet, {node}"),
            format!("Node {node} status is now: {status}"),
        )
    };
    assert_eq!(
        node_events,
        vec![
            expect(40, "node-1", "NodeNotSchedulable"),
            expect(40, "node-2", "NodeNotSchedulable"),
            expect(40, "node-3", "NodeNotSchedulable"),
            expect(100, "node-2", "NodeSchedulable"),
        ]
    );
    // The two new pods fail at 40 s and are not tried again until the uncordon at 90 s, when
    // they are bound at once.
    let scheduler: Vec<(u64, &str)> = steps
        .iter()
        .filter(|s| s.actor == "default-scheduler")
        .flat_map(|s| {
            s.events
                .iter()
                .map(move |e| (s.time.as_millis() / 1000, e.reason.as_str()))
        })
        .collect();
    assert_eq!(
        scheduler
            .iter()
            .filter(|(t, _)| *t > 3)
            .copied()
            .collect::<Vec<_>>(),
        vec![
            (40, "FailedScheduling"),
            (40, "FailedScheduling"),
            (90, "Scheduled"),
            (90, "Scheduled"),
        ]
    );
    let m = Moment::new(&sim, &steps).at(Time::from_secs(180));
    let text = kubectl::describe_node(&m, "node-1").unwrap_or_else(|e| e);
    assert!(
        text.contains("  Normal  NodeNotSchedulable  2m20s  kubelet  Node node-1 status is now: NodeNotSchedulable\n"),
        "{text}"
    );
}

/// The scheduler's queueing hints: a pod turned down only because every node is cordoned
/// (NodeUnschedulable) is not retried when a running pod is deleted, since that frees room but
/// uncordons nothing; only the replacement pod is tried (and turned down) then, and all wait
/// for the uncordon at 90 s.
#[test]
fn a_deleted_pod_does_not_retry_pods_that_only_a_cordon_keeps_out() {
    let (sim, _) = run_yaml(&cordoned_cluster(""), 50);
    let running = sim
        .store()
        .pods
        .values()
        .find(|p| !p.node_name.is_empty())
        .map(|p| p.metadata.name.clone())
        .expect("a pod placed before the cordons");
    let yaml = cordoned_cluster(&format!("  - {{at: 60s, delete_pod: {running}}}\n"));
    let (_, steps) = run_yaml(&yaml, 180);
    let scheduler: Vec<(u64, String, &str)> = steps
        .iter()
        .filter(|s| s.actor == "default-scheduler" && s.time > Time::from_secs(3))
        .flat_map(|s| {
            s.events.iter().map(move |e| {
                (
                    s.time.as_millis() / 1000,
                    e.involved_object.name.clone(),
                    e.reason.as_str(),
                )
            })
        })
        .collect();
    let failed_at = |t: u64| {
        scheduler
            .iter()
            .filter(|(at, _, r)| *at == t && *r == "FailedScheduling")
            .count()
    };
    assert_eq!((failed_at(40), failed_at(60)), (2, 1), "{scheduler:?}");
    assert!(
        scheduler
            .iter()
            .filter(|(at, _, _)| *at == 90)
            .all(|(_, _, r)| *r == "Scheduled")
            && scheduler.iter().filter(|(at, _, _)| *at == 90).count() == 3,
        "{scheduler:?}"
    );
    let narration = steps
        .iter()
        .find(|s| s.actor == "default-scheduler" && s.time == Time::from_secs(40))
        .map(|s| s.narration.clone())
        .unwrap_or_default();
    assert!(
        narration
            .contains("the scheduler tries it again when a node is uncordoned, or else at 360s"),
        "{narration}"
    );
}

/// A cordon undone before the kubelet's next status sync is never seen by it: no event.
#[test]
fn a_cordon_undone_within_one_status_sync_leaves_no_event() {
    let (_, steps) = run_yaml(&cordoned_cluster("  - {at: 33s, uncordon: node-3}\n"), 180);
    assert!(
        !steps
            .iter()
            .flat_map(|s| &s.events)
            .any(|e| e.involved_object.name == "node-3"),
        "node-3 was cordoned and uncordoned between two status syncs"
    );
}

/// `describe node` orders taints by effect, then key: a cordoned node that went NotReady lists
/// both `unreachable` taints before `unschedulable`.
#[test]
fn describe_node_orders_the_taints_of_a_cordoned_lost_node() {
    let (sim, steps) = run_yaml(&cordoned_cluster("  - {at: 95s, fail_node: node-1}\n"), 170);
    let m = Moment::new(&sim, &steps).at(Time::from_secs(170));
    let text = kubectl::describe_node(&m, "node-1").unwrap_or_else(|e| e);
    assert!(
        text.contains(
            "Taints:             node.kubernetes.io/unreachable:NoExecute\n                    node.kubernetes.io/unreachable:NoSchedule\n                    node.kubernetes.io/unschedulable:NoSchedule\n"
        ),
        "{text}"
    );
}

/// Deleting a pod that was never bound removes it at once (`CheckGracefulDelete` gives it a
/// grace period of 0), and the narration says so rather than promising it 30 s to shut down.
#[test]
fn deleting_an_unbound_pod_removes_it_at_once() {
    let (before, _) = run_yaml(&cordoned_cluster(""), 45);
    let pending = before
        .store()
        .pods
        .values()
        .find(|p| p.node_name.is_empty())
        .map(|p| p.metadata.name.to_string())
        .expect("a pod the cordons keep pending");
    let (sim, steps) = run_yaml(
        &cordoned_cluster(&format!("  - {{at: 50s, delete_pod: {pending}}}\n")),
        50,
    );
    let delete = steps
        .iter()
        .find(|s| s.actor == "kubectl" && s.narration.contains(&pending))
        .expect("the delete step");
    assert!(
        delete.narration.contains("it was on no node yet, so nothing has to shut down and the API server removes it at once (grace period 0)"),
        "{}",
        delete.narration
    );
    assert!(
        !sim.store().pods.contains_key(pending.as_str()),
        "{pending} is gone at once"
    );
    assert_eq!(
        sim.store()
            .pods
            .values()
            .filter(|p| p.node_name.is_empty())
            .count(),
        2,
        "its replacement is pending in its place"
    );
}

/// A node change that can only make things worse (here a node going NotReady, which adds its
/// unreachable taints) wakes no pending pod: upstream's queueing hints skip it, so no new
/// FailedScheduling follows it.
#[test]
fn a_node_going_not_ready_does_not_retry_pending_pods() {
    let yaml = cordoned_cluster("").replace(
        "  - {at: 90s, uncordon: node-2}\n",
        "  - {at: 60s, fail_node: node-1}\n",
    );
    let (sim, steps) = run_yaml(&yaml, 180);
    assert!(
        !sim.store()
            .nodes
            .get("node-1")
            .is_some_and(|n| n.status.ready),
        "node-1 went NotReady at 110s"
    );
    let failed: Vec<u64> = steps
        .iter()
        .flat_map(|s| s.events.iter().map(move |e| (s.time.as_millis() / 1000, e)))
        .filter(|(_, e)| e.reason == EventReason::FailedScheduling)
        .map(|(t, _)| t)
        .collect();
    assert_eq!(failed, vec![40, 40]);
}

/// §15.4 step 5: deleting a pod stops its liveness and startup workers, but its readiness
/// worker goes on while the containers shut down. An app that ignores SIGTERM (the whole 30 s
/// grace period) and whose readiness endpoint fails after the delete turns not Ready after
/// failureThreshold probes, and kubectl shows `0/1 Terminating`.
#[test]
fn readiness_keeps_probing_a_terminating_pod() {
    let yaml = one_pod_on_one_node(
        "images:\n  web:1.0: {pull_time: 1s}\n",
        "          - name: web\n            image: web:1.0\n            readinessProbe:\n              httpGet: {path: /ready, port: 8080}\n              periodSeconds: 5\n",
        "45s",
    );
    let (_, steps) = run_yaml(&yaml, 8);
    let pod = first_pod_with_prefix(&steps, "web-");
    let yaml = yaml.replace(
        "run_until: 45s",
        &format!(
            "actions:\n  - {{at: 10s, delete_pod: {pod}}}\n  - {{at: 12s, break_readiness: {pod}}}\nrun_until: 45s"
        ),
    );
    let (sim, steps) = run_yaml(&yaml, 30);
    let failures = event_times(
        &steps,
        &pod,
        EventReason::Unhealthy,
        "Readiness probe failed",
    );
    assert!(failures.len() >= 3, "{failures:?}");
    let m = Moment::new(&sim, &steps).at(Time::from_secs(30));
    let pods = kubectl::get(&m, &[Resource::Pods], false);
    let line = pods
        .lines()
        .find(|l| l.starts_with(pod.as_str()))
        .unwrap_or_else(|| panic!("{pod} in {pods}"));
    assert!(
        line.contains(" 0/1 ") && line.contains("Terminating"),
        "{line}"
    );
    // No liveness or startup probe ran after the delete: this pod has none; the narration says
    // the ReplicaSet had already let the pod go.
    assert!(steps.iter().any(|s| {
        s.narration
            .contains("stopped counting toward its ReplicaSet when its deletion began")
    }));
}

/// The kubelet computes a pod's status before it acts (`generateAPIPodStatus` before the
/// runtime's `SyncPod`), and keeps why it left a container waiting for the next computation
/// (`reasonCache`). So a crashed container in back-off shows `Error` until the kubelet looks at
/// the pod again: without probes that is the pod worker's look when the back-off runs out,
/// whose status shows `CrashLoopBackOff` (its own step) just before the restart; with a
/// readiness probe that passed, it is the worker's next tick, which finds the container stopped
/// and prompts a sync.
#[test]
fn a_crashed_container_shows_error_until_the_kubelet_looks_again() {
    let statuses = |probe: &str| -> Vec<(u64, String)> {
        let yaml = one_pod_on_one_node(
            "images:\n  web:1.0: {pull_time: 1s, crash_after: 5s}\n",
            &format!("          - name: web\n            image: web:1.0\n{probe}"),
            "2m",
        );
        let mut sim = Scenario::parse(&yaml)
            .unwrap_or_else(|e| panic!("{e:?}"))
            .sim();
        let mut seen: Vec<(u64, String)> = Vec::new();
        while let Some(step) = sim.step_until(Time::from_secs(120)) {
            let Some(p) = sim.store().pods.values().next() else {
                continue;
            };
            let status = p.kubectl_status();
            if seen.last().is_none_or(|(_, s)| *s != status) {
                seen.push((step.time.as_millis(), status));
            }
        }
        seen
    };
    // No probes: the second crash (at 12 s) shows Error through its 10 s back-off; the look
    // that restarts it shows CrashLoopBackOff first, at the same moment.
    let plain = statuses("");
    let words: Vec<&str> = plain.iter().map(|(_, s)| s.as_str()).collect();
    assert_eq!(
        &words[..8],
        [
            "Pending",
            "ContainerCreating",
            "Running",
            "Error",
            "Running",
            "Error",
            "CrashLoopBackOff",
            "Running"
        ],
        "{plain:?}"
    );
    let (error_at, back_off_at) = (plain[5].0, plain[6].0);
    assert!(back_off_at - error_at >= 10_000, "{plain:?}");
    assert_eq!(
        back_off_at, plain[7].0,
        "shown just before the restart: {plain:?}"
    );
    // A readiness probe every 4 s that has passed: its next tick after the crash finds the
    // container stopped, and the sync it prompts shows CrashLoopBackOff before the back-off
    // has run out.
    let probed = statuses(
        "            readinessProbe:\n              tcpSocket: {port: 8080}\n              periodSeconds: 4\n",
    );
    let i = probed
        .iter()
        .position(|(_, s)| s == "CrashLoopBackOff")
        .unwrap_or_else(|| panic!("{probed:?}"));
    let (error_at, back_off_at) = (probed[i - 1].0, probed[i].0);
    assert_eq!(probed[i - 1].1, "Error", "{probed:?}");
    assert!(
        back_off_at > error_at && back_off_at - error_at <= 4_000,
        "{probed:?}"
    );
    assert_ne!(
        probed.get(i + 1).map(|(t, _)| *t),
        Some(back_off_at),
        "{probed:?}"
    );
}

/// A restart under `imagePullPolicy: Always` whose pull fails (the registry broke while the
/// container ran): the pod stays Running with the crash as its Last State, and the crash-loop
/// back-off still holds and grows, as `doBackOff` looks at the last exited instance before the
/// image is pulled: every start attempt moves it on (10 s, 20 s, 40 s, 80 s), until one comes
/// within it and the pod shows CrashLoopBackOff between the pulls.
#[test]
fn a_restart_whose_pull_fails_stays_under_the_crash_loop_back_off() {
    let yaml = &app_pod(
        &["app:1: {pull_time: 1s, crash_after: 20s}"],
        &[],
        &["{name: app, image: app:1, imagePullPolicy: Always}"],
        &["{at: 10s, fail_registry: app:1}"],
        "5m",
    );
    let (sim, steps) = run_yaml(yaml, 300);
    let pod = first_pod_with_prefix(&steps, "app-");
    let back_offs = event_times(
        &steps,
        &pod,
        EventReason::BackOff,
        "Back-off restarting failed container",
    );
    assert!(
        !back_offs.is_empty(),
        "the crash-loop back-off holds a restart"
    );
    // The first hold comes only after start attempts whose pulls failed have grown it past
    // the pod worker's looks (10 s × U[1, 1.5) after a failed sync).
    let pulls = event_times(&steps, &pod, EventReason::Failed, "Failed to pull image");
    let pulls_before = pulls.iter().filter(|&&t| t < back_offs[0]).count();
    assert!(pulls_before >= 2, "{pulls:?} {back_offs:?}");
    let m = Moment::new(&sim, &steps);
    let text = kubectl::describe_pod(&m, &pod).unwrap_or_else(|e| e);
    assert!(text.contains("Status:           Running\n"), "{text}");
    assert!(
        text.contains(
            "    Last State:     Terminated\n      Reason:       Error\n      Exit Code:    1\n"
        ),
        "{text}"
    );
    assert!(pulls.len() >= 3, "{pulls:?}");
}

/// A pull holds the sync that started it, and so the pod worker: a container that exits while
/// the sync pulls the image of a container after it is restarted only when that sync has ended
/// (here its first crash, so at once then), not while the pull runs.
#[test]
fn a_container_that_exits_during_another_ones_pull_restarts_after_it() {
    let yaml = &app_pod(
        &[
            "app:1: {pull_time: 1s, crash_after: 2s}",
            "side:1: {pull_time: 30s}",
        ],
        &[],
        &["{name: app, image: app:1}", "{name: side, image: side:1}"],
        &[],
        "1m",
    );
    let (_, steps) = run_yaml(yaml, 40);
    let pod = first_pod_with_prefix(&steps, "app-");
    let started = event_times(&steps, &pod, EventReason::Started, "Container started");
    // app at 1 s, then side and app's restart when side's 30 s pull ends, at 31 s.
    assert_eq!(started, [1_000, 31_000, 31_000], "{started:?}");
}

/// Tolerations decide the taint-based eviction (`getMinTolerationTime` over the tolerations
/// that match `node.kubernetes.io/unreachable:NoExecute`): the admission plugin's 300 s unless
/// the template tolerates the taint itself, then its `tolerationSeconds`; a toleration without
/// a time keeps the pod on the lost node for good, and a tolerated cordon does not stop the
/// scheduler.
#[test]
fn tolerations_decide_when_pods_leave_a_lost_node() {
    let with_tolerations = |tolerations: &str| {
        scenario_text("node-failure.yaml").replace(
            "      spec:\n        containers:",
            &format!("      spec:\n        tolerations:\n{tolerations}        containers:"),
        )
    };
    let evicted_at = |yaml: &str| -> Vec<u64> {
        let (_, steps) = run_yaml(yaml, 480);
        steps_with(&steps, EventReason::TaintManagerEviction)
            .map(|s| s.time.as_millis())
            .collect()
    };
    // The template's own 60 s: NotReady at 130 s, tainted unreachable:NoExecute at the node
    // controller's next pass, 135 s, evicted at 195 s.
    let short = with_tolerations(
        "          - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 60}\n",
    );
    assert_eq!(evicted_at(&short), [195_000]);
    // The bundled scenario keeps the admission plugin's 300 s.
    assert_eq!(evicted_at(scenario_text("node-failure.yaml")), [435_000]);
    // Tolerating everything, with no time: never evicted, and the ReplicaSet keeps counting
    // the pods there as existing (not Ready).
    let forever = with_tolerations("          - {operator: Exists}\n");
    assert!(evicted_at(&forever).is_empty());
    let (sim, _) = run_yaml(&forever, 480);
    assert!(
        sim.store()
            .pods
            .values()
            .any(|p| p.node_name == "node-2" && p.metadata.deletion_timestamp.is_none()),
        "the pods stay on node-2"
    );
    // A cordon the pods tolerate: the scheduler still places the new pods of the rollout
    // there.
    let cordoned = scenario_text("node-failure.yaml")
        .replace("  - {at: 80s, fail_node: node-2}\n", "")
        .replace("  - {at: 60s, set_image: web:2.0}\n", "  - {at: 30s, cordon: node-1}\n  - {at: 31s, cordon: node-2}\n  - {at: 32s, cordon: node-3}\n  - {at: 60s, set_image: web:2.0}\n");
    let tolerant = cordoned.replace(
        "      spec:\n        containers:",
        "      spec:\n        tolerations:\n          - {key: node.kubernetes.io/unschedulable, operator: Exists, effect: NoSchedule}\n        containers:",
    );
    let bound_after = |yaml: &str| {
        let (_, steps) = run_yaml(yaml, 120);
        steps
            .iter()
            .filter(|s| s.time.as_millis() > 60_000)
            .flat_map(|s| &s.events)
            .filter(|e| e.reason == EventReason::Scheduled)
            .count()
    };
    assert_eq!(bound_after(&cordoned), 0, "every node is cordoned");
    assert!(bound_after(&tolerant) > 0, "the pods tolerate the cordon");
}

/// The NodeAffinity filter reads `requiredDuringSchedulingIgnoredDuringExecution` as well as
/// `nodeSelector`: terms ORed, requirements ANDed, with In, NotIn, Exists, DoesNotExist, Gt and
/// Lt on the node's labels and `metadata.name` among its fields. A pod no node matches is
/// unschedulable with the plugin's reason.
#[test]
fn required_node_affinity_filters_nodes() {
    let placed = |affinity: &str| -> (Vec<String>, Vec<String>) {
        let yaml = format!(
            "cluster:\n  nodes:\n    - {{name: n1, labels: {{zone: a, gen: \"3\"}}}}\n    - {{name: n2, labels: {{zone: b, gen: \"5\"}}}}\nimages:\n  app:1: {{}}\ndeployment:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {{name: app}}\n  spec:\n    replicas: 2\n    selector: {{matchLabels: {{app: app}}}}\n    template:\n      metadata: {{labels: {{app: app}}}}\n      spec:\n        affinity:\n          nodeAffinity:\n            requiredDuringSchedulingIgnoredDuringExecution:\n              nodeSelectorTerms:\n{affinity}        containers:\n          - {{name: app, image: app:1}}\nrun_until: 20s\n"
        );
        let (sim, steps) = run_yaml(&yaml, 20);
        let nodes = sim
            .store()
            .pods
            .values()
            .map(|p| p.node_name.clone())
            .collect();
        let failures = steps
            .iter()
            .flat_map(|s| &s.events)
            .filter(|e| e.reason == EventReason::FailedScheduling)
            .map(|e| e.message.clone())
            .collect();
        (nodes, failures)
    };
    let only = |affinity: &str, node: &str| {
        let (nodes, failures) = placed(affinity);
        assert!(failures.is_empty(), "{affinity}: {failures:?}");
        assert!(nodes.iter().all(|n| n == node), "{affinity}: {nodes:?}");
    };
    only(
        "                - matchExpressions: [{key: zone, operator: In, values: [b]}]\n",
        "n2",
    );
    only(
        "                - matchExpressions: [{key: zone, operator: NotIn, values: [b]}]\n",
        "n1",
    );
    only(
        "                - matchExpressions: [{key: gen, operator: Gt, values: [\"4\"]}]\n",
        "n2",
    );
    only(
        "                - matchExpressions: [{key: gen, operator: Lt, values: [\"4\"]}]\n",
        "n1",
    );
    only(
        "                - matchFields: [{key: metadata.name, operator: In, values: [n1]}]\n",
        "n1",
    );
    // Requirements of one term are ANDed; terms are ORed.
    only(
        "                - matchExpressions: [{key: zone, operator: In, values: [a, b]}, {key: gen, operator: Exists}, {key: gpu, operator: DoesNotExist}, {key: gen, operator: In, values: [\"5\"]}]\n",
        "n2",
    );
    let (nodes, _) = placed(
        "                - matchExpressions: [{key: zone, operator: In, values: [a]}]\n                - matchExpressions: [{key: zone, operator: In, values: [b]}]\n",
    );
    assert!(nodes.iter().all(|n| n == "n1" || n == "n2") && !nodes.is_empty());
    // No node in zone c.
    let (nodes, failures) =
        placed("                - matchExpressions: [{key: zone, operator: In, values: [c]}]\n");
    assert!(nodes.iter().all(String::is_empty), "{nodes:?}");
    assert!(
        failures.iter().all(|m| m.starts_with(
            "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector."
        )) && !failures.is_empty(),
        "{failures:?}"
    );
}

/// NodePorts: two replicas asking for host port 8080 on one node; the second cannot be placed
/// while the first holds the port.
#[test]
fn a_host_port_fits_one_pod_per_node() {
    let yaml = &app_pod(
        &["app:1: {pull_time: 1s}"],
        &[],
        &["{name: app, image: app:1, ports: [{containerPort: 8080, hostPort: 8080}]}"],
        &[],
        "1m",
    );
    let yaml = yaml.replace("replicas: 1", "replicas: 2");
    let (sim, steps) = run_yaml(&yaml, 20);
    let failures = failed_scheduling(&steps);
    assert!(!failures.is_empty());
    assert!(
        failures.iter().all(|m| m.starts_with(
            "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports."
        )),
        "{failures:?}"
    );
    let bound = sim
        .store()
        .pods
        .values()
        .filter(|p| !p.node_name.is_empty())
        .count();
    assert_eq!(bound, 1);
    // A sidecar's host port counts too (`GetHostPorts`).
    let sidecar = yaml
        .replace(", ports: [{containerPort: 8080, hostPort: 8080}]", "")
        .replace(
            "        containers:\n",
            "        initContainers:\n          - {name: proxy, image: app:1, restartPolicy: Always, ports: [{containerPort: 9000, hostPort: 9000}]}\n        containers:\n",
        );
    assert!(sidecar.contains("hostPort: 9000") && !sidecar.contains("hostPort: 8080"));
    let (sim, _) = run_yaml(&sidecar, 20);
    let bound = sim
        .store()
        .pods
        .values()
        .filter(|p| !p.node_name.is_empty())
        .count();
    assert_eq!(bound, 1);
    // Without the host port both fit.
    let (sim, _) = run_yaml(&yaml.replace(", hostPort: 8080", ""), 20);
    let bound = sim
        .store()
        .pods
        .values()
        .filter(|p| !p.node_name.is_empty())
        .count();
    assert_eq!(bound, 2);
}

/// Pods with different tolerations on lost nodes each go when their own runs out: a rollout
/// paused half-way leaves old pods (the admission plugin's 300 s) and new ones (the template's
/// 60 s) on both nodes when their kubelets stop; every one of them is evicted, the new ones
/// 60 s after the NoExecute taint (5 s after NotReady) and the old ones 300 s after.
#[test]
fn mixed_tolerations_on_a_lost_node_each_run_out() {
    let (sim, steps) = run_yaml(MIXED_TOLERATIONS, 600);
    let evictions: Vec<(u64, String)> = steps
        .iter()
        .flat_map(|s| s.events.iter().map(move |e| (s.time.as_millis(), e)))
        .filter(|(_, e)| e.reason == EventReason::TaintManagerEviction)
        .map(|(t, e)| (t, e.involved_object.name.clone()))
        .collect();
    let times: std::collections::BTreeSet<u64> = evictions.iter().map(|(t, _)| *t).collect();
    assert_eq!(
        times.into_iter().collect::<Vec<_>>(),
        [145_000, 385_000],
        "{evictions:?}"
    );
    // No pod that was on the lost nodes is left there undeleted.
    assert!(
        sim.store()
            .pods
            .values()
            .filter(|p| !p.node_name.is_empty())
            .all(|p| p.metadata.deletion_timestamp.is_some()),
        "every bound pod is being deleted"
    );
}

/// Old pods tolerate a lost node for 300 s, the new template's for 60 s.
const MIXED_TOLERATIONS: &str = r#"name: mixed tolerations
seed: 7
cluster:
  nodes:
    - {name: node-1}
    - {name: node-2}
images:
  web:1.0: {pull_time: 1s}
  web:2.0: {pull_time: 1s, listen_after: 3s}
deployment:
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    replicas: 4
    strategy: {rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers:
          - {name: web, image: web:1.0, readinessProbe: {tcpSocket: {port: 8080}, periodSeconds: 2}}
actions:
  - at: 10s
    apply:
      apiVersion: apps/v1
      kind: Deployment
      metadata: {name: web}
      spec:
        replicas: 4
        strategy: {rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}
        selector: {matchLabels: {app: web}}
        template:
          metadata: {labels: {app: web}, annotations: {x: "5"}}
          spec:
            tolerations:
              - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 60}
            containers:
              - {name: web, image: web:2.0, readinessProbe: {tcpSocket: {port: 8080}, periodSeconds: 2}}
  - {at: 15s, pause: {}}
  - {at: 30s, fail_node: node-1}
  - {at: 30s, fail_node: node-2}
run_until: 10m
"#;

/// InterPodAffinity: a Deployment whose pods repel each other per node
/// (`podAntiAffinity` on `kubernetes.io/hostname`) fits one replica per node, and its surge pod
/// in a rolling update with maxUnavailable 0 has nowhere to go ("didn't match pod anti-affinity
/// rules"), so the rollout stalls; a Deployment whose pods attract each other packs them on the
/// first pod's node.
#[test]
fn pod_anti_affinity_and_affinity_place_replicas() {
    let deployment = |affinity: &str, actions: &str| {
        format!(
            "cluster:\n  nodes:\n    - {{name: n1}}\n    - {{name: n2}}\n    - {{name: n3}}\nimages:\n  app:1: {{pull_time: 1s}}\n  app:2: {{pull_time: 1s}}\ndeployment:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {{name: app}}\n  spec:\n    replicas: 3\n    strategy: {{rollingUpdate: {{maxSurge: 1, maxUnavailable: 0}}}}\n    selector: {{matchLabels: {{app: app}}}}\n    template:\n      metadata: {{labels: {{app: app}}}}\n      spec:\n        affinity:\n          {affinity}:\n            requiredDuringSchedulingIgnoredDuringExecution:\n              - {{labelSelector: {{matchLabels: {{app: app}}}}, topologyKey: kubernetes.io/hostname}}\n        containers:\n          - {{name: app, image: app:1}}\n{actions}run_until: 2m\n"
        )
    };
    let (sim, steps) = run_yaml(
        &deployment(
            "podAntiAffinity",
            "actions:\n  - {at: 20s, set_image: app:2}\n",
        ),
        120,
    );
    let mut nodes: Vec<&str> = sim
        .store()
        .pods
        .values()
        .filter(|p| p.spec.containers[0].image == "app:1")
        .map(|p| p.node_name.as_str())
        .collect();
    nodes.sort_unstable();
    assert_eq!(nodes, ["n1", "n2", "n3"], "one replica per node");
    let surge_failures: Vec<&str> = steps
        .iter()
        .filter(|s| s.time.as_millis() >= 20_000)
        .flat_map(|s| &s.events)
        .filter(|e| e.reason == EventReason::FailedScheduling)
        .map(|e| e.message.as_str())
        .collect();
    assert!(
        !surge_failures.is_empty()
            && surge_failures.iter().all(|m| m.starts_with(
                "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules."
            )),
        "{surge_failures:?}"
    );
    assert!(
        sim.store()
            .pods
            .values()
            .all(|p| p.spec.containers[0].image == "app:1" || p.node_name.is_empty()),
        "the new pod stays Pending"
    );
    // With `matchLabelKeys: [pod-template-hash]` a pod repels only its own revision, so the
    // rollout goes through.
    let own_revision = deployment(
        "podAntiAffinity",
        "actions:\n  - {at: 20s, set_image: app:2}\n",
    )
    .replace(
        "topologyKey: kubernetes.io/hostname}",
        "topologyKey: kubernetes.io/hostname, matchLabelKeys: [pod-template-hash]}",
    );
    let (sim, _) = run_yaml(&own_revision, 120);
    let images: std::collections::BTreeSet<&str> = sim
        .store()
        .pods
        .values()
        .filter(|p| p.metadata.deletion_timestamp.is_none())
        .map(|p| p.spec.containers[0].image.as_str())
        .collect();
    assert_eq!(images.into_iter().collect::<Vec<_>>(), ["app:2"]);
    // A term about another namespace selects none of these pods: five replicas fit three nodes.
    let elsewhere = deployment("podAntiAffinity", "")
        .replace("replicas: 3", "replicas: 5")
        .replace(
            "topologyKey: kubernetes.io/hostname}",
            "topologyKey: kubernetes.io/hostname, namespaces: [other]}",
        );
    let (sim, _) = run_yaml(&elsewhere, 30);
    assert!(sim.store().pods.values().all(|p| !p.node_name.is_empty()));
    // Attraction: every replica lands on the first one's node.
    let (sim, _) = run_yaml(&deployment("podAffinity", ""), 30);
    let nodes: std::collections::BTreeSet<&str> = sim
        .store()
        .pods
        .values()
        .map(|p| p.node_name.as_str())
        .collect();
    assert_eq!(nodes.len(), 1, "{nodes:?}");
}

/// The one-replica-per-node scenario: the surge pod of a rollout under required anti-affinity
/// finds no node, the rollout passes its progress deadline, and the diagnosis says why and how
/// to get through; once an apply allows one unavailable pod instead, the rollout completes.
#[test]
fn one_replica_per_node_stalls_until_the_rollout_needs_no_surge() {
    let (sim, steps) = run_until("one-replica-per-node.yaml", 160);
    assert_eq!(
        kubectl::rollout_status_now(&sim, "web", None),
        "error: deployment \"web\" exceeded its progress deadline\n"
    );
    let d = rolloutscope::sim::diagnosis::diagnose_at(&sim, &steps, "web", Time::from_secs(160));
    assert!(
        d.verdict.advice.contains("matchLabelKeys"),
        "{:?}",
        d.verdict
    );
    let (sim, _) = run_until("one-replica-per-node.yaml", 300);
    assert_eq!(
        kubectl::rollout_status_now(&sim, "web", None),
        "deployment \"web\" successfully rolled out\n"
    );
}

/// The diagnosis says an older revision keeps serving only when one has available pods (the
/// image typo of a second revision), not for a first rollout whose only pods cannot pull; and a
/// crash-looping pod without a readiness probe is not said to fail one.
#[test]
fn the_diagnosis_claims_only_what_the_cluster_shows() {
    let (sim, steps) = run_until("image-typo.yaml", 150);
    let d = diagnose(&sim, &steps, "web");
    assert_eq!(d.verdict.cause, Cause::ImagePull);
    assert!(
        d.verdict
            .summary
            .contains("The old ReplicaSet keeps serving (")
            && d.verdict.summary.contains(" available); READY is "),
        "{}",
        d.verdict.summary
    );

    let first = one_pod_on_one_node(
        "images: {web:bad: {pull: fail}}\n",
        "          - {name: web, image: web:bad}",
        "60s",
    );
    let (sim, steps) = run_yaml(&first, 30);
    let d = diagnose(&sim, &steps, "web");
    assert_eq!(d.verdict.cause, Cause::ImagePull);
    assert!(
        d.verdict
            .summary
            .ends_with("No older ReplicaSet has pods left to serve meanwhile; READY is 0/1."),
        "{}",
        d.verdict.summary
    );
    assert!(
        d.cluster_signals
            .iter()
            .any(|s| s.sees.starts_with("1 pod: 1 ImagePullBackOff; 0 ready")),
        "{:?}",
        d.cluster_signals
    );

    // Pods whose containers all run but whose readiness probe fails are said to, in number.
    let (sim, steps) = run_until("readiness-never-passes.yaml", 180);
    let d = diagnose(&sim, &steps, "web");
    assert!(
        d.application_signals.iter().any(|s| s.sees
            == "2 running pods are not Ready (READY 0/1): their readiness probe does not pass"),
        "{:?}",
        d.application_signals
    );

    let (sim, steps) = run_until("crash-loop.yaml", 300);
    let d = diagnose(&sim, &steps, "web");
    assert_eq!(d.verdict.cause, Cause::CrashLoop);
    let said: Vec<&str> = d
        .application_signals
        .iter()
        .map(|s| s.sees.as_str())
        .collect();
    assert!(
        !said.iter().any(|s| s.contains("readiness probe")),
        "{said:?}"
    );
}

/// The crash fault stops the first app container, which the kubelet numbers after the init
/// containers: here after a completed migration and a running sidecar proxy.
#[test]
fn the_crash_fault_crashes_the_first_app_container() {
    let yaml = scenario_text("init-containers.yaml")
        .replace("actions:\n", "actions:\n  - {at: 50s, crash_pod: web-}\n");
    let (_, steps) = run_yaml(&yaml, 51);
    let at_50: Vec<&str> = steps
        .iter()
        .filter(|s| s.time == Time::from_secs(50))
        .map(|s| s.narration.as_str())
        .collect();
    assert!(
        at_50
            .iter()
            .any(|n| n.contains("Container web of web-") && n.contains("exited with code")),
        "{at_50:#?}"
    );
}

/// §15.4 step 8: a probe runs with `timeoutSeconds`, and the worker waits for it. An app that
/// answers in 3 s passes a readiness probe with a 5 s timeout 3 s after the run starts; a
/// liveness probe with a 2 s timeout fails 2 s after each run starts, and a run that outlasts
/// the 1 s period is followed at once by the next (the ticker keeps one tick), so three
/// failures in a row take 6 s, not 2 s.
#[test]
fn a_probe_run_takes_until_the_answer_or_the_timeout() {
    let yaml = one_pod_on_one_node(
        "images: {web:1.0: {response_time: 3s}}\n",
        "          - name: web
            image: web:1.0
            readinessProbe: {httpGet: {path: /r, port: 8080}, timeoutSeconds: 5}
            livenessProbe: {httpGet: {path: /l, port: 8080}, periodSeconds: 1, timeoutSeconds: 2, failureThreshold: 3}",
        "20s",
    );
    let (_, steps) = run_yaml(&yaml, 20);
    let started = web_started_at(&steps);
    let ready = steps
        .iter()
        .find(|s| s.narration.contains("the pod turns Ready"))
        .expect("the pod turns Ready")
        .time;
    assert_eq!(ready, started.plus_millis(3_000));
    let failures: Vec<Time> = steps
        .iter()
        .filter(|s| {
            s.events.iter().any(|e| {
                e.reason == EventReason::Unhealthy
                    && e.message.starts_with("Liveness probe failed: ")
                    && e.message.ends_with("context deadline exceeded (Client.Timeout exceeded while awaiting headers)")
            })
        })
        .map(|s| s.time)
        .collect();
    assert!(failures.len() >= 3, "{failures:?}");
    let first = failures[0];
    // The first run starts on the worker's first tick, within a period of the start.
    assert!(first > started.plus_millis(2_000) && first <= started.plus_millis(3_000));
    assert_eq!(failures[1], first.plus_millis(2_000));
    assert_eq!(failures[2], first.plus_millis(4_000));
    let killed = steps
        .iter()
        .find(|s| {
            s.events
                .iter()
                .any(|e| e.message == "Container web failed liveness probe, will be restarted")
        })
        .expect("the container is killed")
        .time;
    assert_eq!(killed, failures[2]);
}

/// A gRPC probe dials with `WithBlock`, so a run that starts before the app listens waits out
/// `timeoutSeconds` and fails then, whatever the app does meanwhile. A run that outlasts the
/// period holds one of its ticker's ticks, so the next run starts as it ends, and the ticker
/// keeps its schedule: the run after comes at the schedule's next tick, not a period later.
#[test]
fn a_long_probe_run_keeps_its_tickers_schedule() {
    let yaml = one_pod_on_one_node(
        "images: {web:1.0: {listen_after: 6s, ready: never}}\n",
        "          - name: web
            image: web:1.0
            readinessProbe: {grpc: {port: 8080}, periodSeconds: 2, timeoutSeconds: 3}",
        "20s",
    );
    let (_, steps) = run_yaml(&yaml, 20);
    let started = web_started_at(&steps);
    let runs: Vec<(u64, &str)> = steps
        .iter()
        .filter(|s| s.narration.starts_with("The readiness probe of web"))
        .map(|s| (s.time.millis_since(started), s.narration.as_str()))
        .collect();
    let at = |ms: u64| -> Vec<&str> {
        runs.iter()
            .filter(|(t, _)| *t == ms)
            .map(|(_, n)| *n)
            .collect()
    };
    // The run at the start times out 3 s later; so does the one its result triggers, as the
    // port opens only 6 s after the start.
    assert!(
        at(3_000)
            .iter()
            .any(|n| n.contains("within 3s: context deadline exceeded")),
        "{runs:?}"
    );
    assert!(
        at(6_000)
            .iter()
            .any(|n| n.contains("within 3s: context deadline exceeded")),
        "{runs:?}"
    );
    // That run (from 3 s, a restarted ticker ticking at 5 s and 7 s) held the tick at 5 s: the
    // next run starts as it ends, finds the app serving NOT_SERVING, and the one after comes
    // at the ticker's 7 s.
    assert!(
        at(6_000)
            .iter()
            .any(|n| n.contains("NOT_SERVING") && n.ends_with("the kubelet probes again in 1s.")),
        "{runs:?}"
    );
    assert!(!at(7_000).is_empty(), "{runs:?}");
    assert!(at(8_000).is_empty() && !at(9_000).is_empty(), "{runs:?}");
}

/// When the kubelet first started container `web`.
fn web_started_at(steps: &[Step]) -> Time {
    steps
        .iter()
        .find(|s| s.narration.contains("created and started container web"))
        .expect("the container starts")
        .time
}

/// PodTopologySpread's default scoring (hostname maxSkew 3, weight 2) spreads a ReplicaSet's
/// pods over nodes: a maxSurge-0 rollout of three pods on three equal nodes, where each new pod
/// takes the room an old, terminating one leaves, ends with one new pod per node whatever the
/// seed (free capacity alone sent two to the same node in some seeds), and the narration gives
/// the spread in the node's score.
#[test]
fn a_replica_sets_pods_are_spread_over_nodes() {
    for seed in 1..=10 {
        let yaml = format!(
            r#"
name: spread
seed: {seed}
cluster: {{nodes: [{{name: node-1}}, {{name: node-2}}, {{name: node-3}}]}}
images:
  web:1.0: {{pull_time: 1s}}
  web:2.0: {{pull_time: 1s}}
deployment:
  apiVersion: apps/v1
  kind: Deployment
  metadata: {{name: web}}
  spec:
    replicas: 3
    strategy: {{rollingUpdate: {{maxSurge: 0, maxUnavailable: 1}}}}
    selector: {{matchLabels: {{app: web}}}}
    template:
      metadata: {{labels: {{app: web}}}}
      spec: {{containers: [{{name: web, image: "web:1.0"}}]}}
actions: [{{at: 30s, set_image: "web:2.0"}}]
run_until: 3m
"#
        );
        let (sim, steps) = run_yaml(&yaml, 180);
        let mut per_node: Vec<String> = sim
            .store()
            .pods
            .values()
            .map(|p| p.node_name.clone())
            .collect();
        per_node.sort();
        assert_eq!(per_node, ["node-1", "node-2", "node-3"], "seed {seed}");
        assert!(
            narrated(&steps, "2 × spread 100 (it runs 0 of web-"),
            "seed {seed}"
        );
    }
}

/// NodePorts' queueing hint: a pod turned down for a host port is retried when a bound pod that
/// held host ports goes away, not when any pod does. Six replicas on three nodes gain
/// `hostPort: 8080` in a rollout: three new pods find no free port, and the old pods deleted
/// meanwhile (which hold no host port) do not retry them, so each is turned down once.
#[test]
fn a_deleted_pod_without_host_ports_does_not_retry_pods_waiting_for_a_port() {
    let pod = |image: &str, host_port: &str| {
        format!(
            "{{metadata: {{labels: {{app: web}}}}, spec: {{containers: [{{name: web, image: '{image}', ports: [{{containerPort: 8080{host_port}}}], resources: {{requests: {{cpu: 250m, memory: 128Mi}}}}}}]}}}}"
        )
    };
    let yaml = format!(
        "
name: host ports
seed: 7
cluster: {{nodes: [{{name: node-1}}, {{name: node-2}}, {{name: node-3}}]}}
images:
  web:2.0: {{pull_time: 3s, shutdown: 2s}}
deployment:
  apiVersion: apps/v1
  kind: Deployment
  metadata: {{name: web}}
  spec: {{replicas: 6, selector: {{matchLabels: {{app: web}}}}, template: {}}}
actions:
  - {{at: 30s, apply: {{apiVersion: apps/v1, kind: Deployment, metadata: {{name: web}}, spec: {{replicas: 6, selector: {{matchLabels: {{app: web}}}}, template: {}}}}}}}
run_until: 90s
",
        pod("web:1.0", ""),
        pod("web:2.0", ", hostPort: 8080")
    );
    let (_, steps) = run_yaml(&yaml, 90);
    let refused: Vec<&str> = steps
        .iter()
        .flat_map(|s| &s.events)
        .filter(|e| e.reason == EventReason::FailedScheduling)
        .map(|e| e.involved_object.name.as_str())
        .collect();
    let mut distinct = refused.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert!(!refused.is_empty());
    assert_eq!(refused.len(), distinct.len(), "{refused:?}");
}

/// A Deployment of `replicas` pods of `app:1` (1 CPU each) spread by `constraints` (YAML
/// flow items for `topologySpreadConstraints`) over `nodes`, with `actions`.
fn spread_yaml(nodes: &str, replicas: u32, constraints: &str, actions: &str) -> String {
    format!(
        "cluster:\n  nodes:\n{nodes}images:\n  app:1: {{pull_time: 1s}}\ndeployment:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {{name: app}}\n  spec:\n    replicas: {replicas}\n    selector: {{matchLabels: {{app: app}}}}\n    template:\n      metadata: {{labels: {{app: app}}}}\n      spec:\n        topologySpreadConstraints: [{constraints}]\n        containers:\n          - name: app\n            image: app:1\n            resources: {{requests: {{cpu: \"1\"}}}}\n{actions}run_until: 5m\n"
    )
}

/// Three zones of one node each; zone a's node is sixteen times the others, so that scoring on
/// free capacity alone would crowd it.
const THREE_ZONES: &str = "    - {name: a1, cpu: \"64\", labels: {topology.kubernetes.io/zone: a}}\n    - {name: b1, cpu: \"4\", labels: {topology.kubernetes.io/zone: b}}\n    - {name: c1, cpu: \"4\", labels: {topology.kubernetes.io/zone: c}}\n";

const ZONE_SKEW_1: &str = "{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: app}}}";

/// The zones the bound pods run in, counted: `a=2 b=2 c=2`.
fn pods_per_zone(sim: &Sim) -> String {
    let mut per_zone: std::collections::BTreeMap<String, usize> = Default::default();
    for p in sim
        .store()
        .pods
        .values()
        .filter(|p| !p.node_name.is_empty())
    {
        let zone =
            &sim.store().nodes[p.node_name.as_str()].metadata.labels["topology.kubernetes.io/zone"];
        *per_zone.entry(zone.clone()).or_default() += 1;
    }
    per_zone
        .iter()
        .map(|(z, n)| format!("{z}={n}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The FailedScheduling messages of a run, in order.
fn failed_scheduling(steps: &[Step]) -> Vec<&str> {
    event_messages(steps, EventReason::FailedScheduling)
}

/// NodeResourcesFit marks a node whose whole allocatable is smaller than the pod's request as
/// unresolvable (PR #131345, v1.34): preemption calls it not helpful, while a node that is only
/// full has no victims to offer.
#[test]
fn a_node_too_small_for_the_pod_is_not_helpful_to_preempt_on() {
    let yaml = "cluster:\n  nodes:\n    - {name: small, cpu: \"1\"}\n    - {name: big, cpu: \"3\"}\nimages:\n  app:1: {pull_time: 1s}\ndeployment:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: app}\n  spec:\n    replicas: 2\n    selector: {matchLabels: {app: app}}\n    template:\n      metadata: {labels: {app: app}}\n      spec:\n        containers:\n          - name: app\n            image: app:1\n            resources: {requests: {cpu: \"2\"}}\nrun_until: 30s\n";
    let (_, steps) = run_yaml(yaml, 30);
    assert_eq!(
        failed_scheduling(&steps).first().copied(),
        Some(
            "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling."
        )
    );
}

/// PodTopologySpread with a pod's own constraints (upstream `podtopologyspread`): a
/// `DoNotSchedule` zone constraint with maxSkew 1 places six replicas two per zone although
/// free capacity alone would crowd the big node; a cordoned node still counts as an empty
/// zone (nodeTaintsPolicy defaults to Ignore), so the third replica has nowhere to go until the
/// node is uncordoned, with upstream's reason; a node without the key can never take the pod.
#[test]
fn topology_spread_constraints_filter_nodes_by_skew() {
    let (sim, steps) = run_yaml(&spread_yaml(THREE_ZONES, 6, ZONE_SKEW_1, ""), 60);
    assert_eq!(pods_per_zone(&sim), "a=2 b=2 c=2");
    assert!(failed_scheduling(&steps).is_empty());

    // Zone c's only node cordoned from the start: a and b may hold one each (c has 0).
    let cordoned = spread_yaml(
        THREE_ZONES,
        3,
        ZONE_SKEW_1,
        "actions:\n  - {at: 0s, cordon: c1}\n  - {at: 90s, uncordon: c1}\n",
    );
    let (sim, steps) = run_yaml(&cordoned, 60);
    assert_eq!(pods_per_zone(&sim), "a=1 b=1");
    let (unconstrained, _) = run_yaml(&cordoned.replace(ZONE_SKEW_1, ""), 60);
    assert_eq!(
        unconstrained
            .store()
            .pods
            .values()
            .filter(|p| !p.node_name.is_empty())
            .count(),
        3,
        "without the constraint the third pod fits"
    );
    let failures = failed_scheduling(&steps);
    assert_eq!(
        failures.first().copied(),
        Some(
            "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't match pod topology spread constraints. no new claims to deallocate, preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
        ),
        "{failures:?}"
    );
    let narration = first_narration_with(&steps, EventReason::FailedScheduling);
    assert!(
        narration.contains("The spread over topology.kubernetes.io/zone (maxSkew 1, DoNotSchedule) counts the matching pods per domain: a 1, b 1, c 0. The fewest is 0, so a domain may hold at most 1 with this pod."),
        "{narration}"
    );
    assert!(narration.contains("a node is uncordoned"), "{narration}");
    let d = rolloutscope::sim::diagnosis::diagnose_at(&sim, &steps, "app", Time::from_secs(60));
    assert!(
        d.verdict.advice.contains("nodeTaintsPolicy"),
        "{:?}",
        d.verdict
    );
    // Uncordoning retries the pod (NodeUnschedulable's hint) and zone c takes it.
    let (sim, _) = run_yaml(&cordoned, 120);
    assert_eq!(pods_per_zone(&sim), "a=1 b=1 c=1");
    // Cordoning another node of the constraint's domains changes its taints, which
    // PodTopologySpread's node hint answers with a retry (and a second FailedScheduling) whatever
    // the nodeTaintsPolicy; without that retry it would wait for the five-minute flush.
    let recordoned = cordoned.replace("{at: 90s, uncordon: c1}", "{at: 40s, cordon: b1}");
    let (_, steps) = run_yaml(&recordoned, 60);
    let failures = failed_scheduling(&steps);
    assert_eq!(
        failures.get(1).copied(),
        Some(
            "0/3 nodes are available: 1 node(s) didn't match pod topology spread constraints, 2 node(s) were unschedulable. no new claims to deallocate, preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling."
        ),
        "{failures:?}"
    );

    // With nodeTaintsPolicy: Honor the cordoned node is no domain: two zones, 2 and 1.
    let honor = ZONE_SKEW_1.replace("DoNotSchedule,", "DoNotSchedule, nodeTaintsPolicy: Honor,");
    let (sim, steps) = run_yaml(
        &spread_yaml(
            THREE_ZONES,
            3,
            &honor,
            "actions:\n  - {at: 0s, cordon: c1}\n",
        ),
        60,
    );
    let per_zone = pods_per_zone(&sim);
    assert!(per_zone == "a=2 b=1" || per_zone == "a=1 b=2", "{per_zone}");
    assert!(failed_scheduling(&steps).is_empty());

    // A node without the zone label is no domain and can never take the pod (unresolvable,
    // said as upstream says it); with minDomains 3 and only two zones left, the fewest counts
    // as 0, so the third pod fits nowhere.
    let unlabelled = THREE_ZONES.replace(", labels: {topology.kubernetes.io/zone: c}", "");
    let min_domains = ZONE_SKEW_1.replace("maxSkew: 1,", "maxSkew: 1, minDomains: 3,");
    let (_, steps) = run_yaml(&spread_yaml(&unlabelled, 3, &min_domains, ""), 60);
    let failures = failed_scheduling(&steps);
    assert!(
        failures.first().is_some_and(|m| m.starts_with(
            "0/3 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing required label), 2 node(s) didn't match pod topology spread constraints."
        )),
        "{failures:?}"
    );
}

/// The pods counted are the selector's, old revisions too. Two replicas, one on each of two
/// schedulable nodes, and a third node cordoned (an empty domain, so each node may hold one):
/// a rolling update with maxUnavailable 0 has nowhere for its surge pod, since the old pods
/// count. With `matchLabelKeys: [pod-template-hash]` each revision is spread on its own and the
/// rollout completes.
#[test]
fn topology_spread_counts_every_revision_unless_match_label_keys_splits_them() {
    let host = "{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: app}}}";
    let rollout = |constraint: &str| {
        spread_yaml(
            THREE_ZONES,
            2,
            constraint,
            "actions:\n  - {at: 0s, cordon: c1}\n  - {at: 20s, set_image: app:2}\n",
        )
        .replace(
            "images:\n  app:1: {pull_time: 1s}\n",
            "images:\n  app:1: {pull_time: 1s}\n  app:2: {pull_time: 1s}\n",
        )
        .replace(
            "    replicas: 2\n",
            "    replicas: 2\n    strategy: {rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}\n",
        )
    };
    let images = |sim: &Sim| -> Vec<String> {
        let mut v: Vec<String> = sim
            .store()
            .pods
            .values()
            .filter(|p| !p.node_name.is_empty() && p.metadata.deletion_timestamp.is_none())
            .map(|p| p.spec.containers[0].image.clone())
            .collect();
        v.sort();
        v
    };
    let (sim, steps) = run_yaml(&rollout(host), 120);
    assert_eq!(images(&sim), ["app:1", "app:1"]);
    let failures = failed_scheduling(&steps);
    assert!(
        !failures.is_empty()
            && failures.iter().all(|m| m.starts_with(
                "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't match pod topology spread constraints."
            )),
        "{failures:?}"
    );
    let split = host.replace("}}}", "}}, matchLabelKeys: [pod-template-hash]}");
    let (sim, _) = run_yaml(&rollout(&split), 120);
    assert_eq!(images(&sim), ["app:2", "app:2"]);
    // The API server merged the key into each pod's stored selector, as describe shows.
    let pod = sim
        .store()
        .pods
        .values()
        .find(|p| p.metadata.deletion_timestamp.is_none())
        .expect("a pod");
    let hash = &pod.metadata.labels["pod-template-hash"];
    let described =
        kubectl::describe_pod(&Moment::new(&sim, &[]), &pod.metadata.name).expect("described");
    assert!(
        described.contains(&format!(
            "Topology Spread Constraints:  kubernetes.io/hostname:DoNotSchedule when max skew 1 is exceeded for selector app=app,pod-template-hash in ({hash})\n"
        )),
        "{described}"
    );
}

/// ScheduleAnyway constraints score (weight 2) rather than filter: with the zone constraint
/// soft, six replicas still go two per zone against the big node's free capacity, and the
/// narration gives the spread score its reason.
#[test]
fn schedule_anyway_constraints_score_nodes() {
    let soft = ZONE_SKEW_1.replace("DoNotSchedule", "ScheduleAnyway");
    let (sim, steps) = run_yaml(&spread_yaml(THREE_ZONES, 6, &soft, ""), 60);
    assert_eq!(pods_per_zone(&sim), "a=2 b=2 c=2");
    assert!(failed_scheduling(&steps).is_empty());
    assert!(
        narrated(
            &steps,
            "the pod's ScheduleAnyway constraints count 1 in its topology.kubernetes.io/zone domain; fewer scores higher"
        ),
        "the spread score is explained"
    );
}

/// The spread-over-zones scenario: after the scale to 6 with zone c's node cordoned, zones a
/// and b hold two pods each and the sixth stays Pending for the spread constraint; the
/// diagnosis names the cordoned domain; the uncordon at 2 minutes places it in zone c.
#[test]
fn spread_over_zones_waits_for_the_cordoned_zone() {
    let (sim, steps) = run_until("spread-over-zones.yaml", 90);
    assert_eq!(pods_per_zone(&sim), "a=2 b=2 c=1");
    assert_eq!(
        failed_scheduling(&steps),
        [
            "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't match pod topology spread constraints. no new claims to deallocate, preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
        ]
    );
    let d = rolloutscope::sim::diagnosis::diagnose_at(&sim, &steps, "web", Time::from_secs(90));
    assert_eq!(d.verdict.cause, Cause::Unschedulable, "{:?}", d.verdict);
    assert!(d.verdict.advice.contains("cordoned"), "{:?}", d.verdict);
    let (sim, _) = run_until("spread-over-zones.yaml", 180);
    assert_eq!(pods_per_zone(&sim), "a=2 b=2 c=2");
    assert_eq!(
        kubectl::rollout_status_now(&sim, "web", None),
        "deployment \"web\" successfully rolled out\n"
    );
}

/// The problems a scenario is refused with, one per line (it must be refused).
fn load_errors(yaml: &str) -> String {
    match Scenario::parse(yaml) {
        Ok(_) => panic!("accepted:\n{yaml}"),
        Err(errs) => errs
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// A Deployment `app` of `replicas` pods of `app:1` requesting 1 CPU each, with `tolerations`
/// (YAML flow items), on `nodes`, running for `run`.
fn tainted_yaml(nodes: &str, replicas: u32, tolerations: &str, run: &str) -> String {
    format!(
        "cluster:\n  nodes:\n{nodes}images:\n  app:1: {{pull_time: 1s}}\ndeployment:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {{name: app}}\n  spec:\n    replicas: {replicas}\n    selector: {{matchLabels: {{app: app}}}}\n    template:\n      metadata: {{labels: {{app: app}}}}\n      spec:\n        tolerations: [{tolerations}]\n        containers:\n          - name: app\n            image: app:1\n            resources: {{requests: {{cpu: \"1\"}}}}\nrun_until: {run}\n"
    )
}

/// The pods bound to each node, counted: `cp=0 w1=2`.
fn pods_per_node(sim: &Sim) -> String {
    sim.store()
        .nodes
        .keys()
        .map(|n| {
            let count = sim
                .store()
                .pods
                .values()
                .filter(|p| p.node_name == *n && p.metadata.deletion_timestamp.is_none())
                .count();
            format!("{n}={count}")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A scenario with `actions` (YAML flow items, one per action) put before its `run_until`.
fn with_actions(yaml: &str, actions: &[&str]) -> String {
    let list: String = actions.iter().map(|a| format!("  - {a}\n")).collect();
    yaml.replacen("run_until: ", &format!("actions:\n{list}run_until: "), 1)
}

/// TaintToleration with a scenario's taints: a kubeadm control plane's
/// `node-role.kubernetes.io/control-plane:NoSchedule` keeps every pod off it, and a pod that
/// finds the worker full is told "1 node(s) had untolerated taint(s)"; a toleration lets pods
/// use it; `kubectl describe node` lists the taint.
#[test]
fn a_no_schedule_taint_keeps_pods_off_unless_they_tolerate_it() {
    let nodes = "    - {name: cp, cpu: \"4\", taints: [\"node-role.kubernetes.io/control-plane:NoSchedule\"]}\n    - {name: w1, cpu: \"2\"}\n";
    let (sim, steps) = run_yaml(&tainted_yaml(nodes, 3, "", "1m"), 60);
    assert_eq!(pods_per_node(&sim), "cp=0 w1=2");
    let failures = failed_scheduling(&steps);
    assert_eq!(
        failures.first().copied(),
        Some(
            "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling."
        ),
        "{failures:?}"
    );
    let d = rolloutscope::sim::diagnosis::diagnose_at(&sim, &steps, "app", Time::from_secs(60));
    assert!(
        d.verdict.advice.contains("tolerate its taint"),
        "{:?}",
        d.verdict
    );
    let described = kubectl::describe_node(&Moment::new(&sim, &steps), "cp").expect("cp");
    assert!(
        described
            .contains("Taints:             node-role.kubernetes.io/control-plane:NoSchedule\n"),
        "{described}"
    );
    let tolerating = tainted_yaml(
        nodes,
        3,
        "{key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}",
        "1m",
    );
    let (sim, steps) = run_yaml(&tolerating, 60);
    assert_eq!(
        pods_per_node(&sim),
        "cp=2 w1=1",
        "the emptier node scores higher"
    );
    assert!(failed_scheduling(&steps).is_empty());
    // `Equal` needs the taint's value: a toleration for another value does not count.
    let valued = "    - {name: cp, cpu: \"4\", taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}\n    - {name: w1, cpu: \"2\"}\n";
    let wrong = tainted_yaml(
        valued,
        3,
        "{key: dedicated, value: db, effect: NoSchedule}",
        "1m",
    );
    assert_eq!(pods_per_node(&run_yaml(&wrong, 60).0), "cp=0 w1=2");
    let right = tainted_yaml(
        valued,
        3,
        "{key: dedicated, value: gpu, effect: NoSchedule}",
        "1m",
    );
    assert_eq!(pods_per_node(&run_yaml(&right, 60).0), "cp=2 w1=1");
}

/// A `PreferNoSchedule` taint only scores (TaintToleration, weight 3): pods go to the untainted
/// node while it has room, and the narration gives the score; then the tainted node takes the
/// rest rather than leave them Pending.
#[test]
fn a_prefer_no_schedule_taint_scores_nodes_down() {
    let nodes = "    - {name: a, cpu: \"8\", taints: [{key: spot, effect: PreferNoSchedule}]}\n    - {name: b, cpu: \"3\"}\n";
    let (sim, steps) = run_yaml(&tainted_yaml(nodes, 5, "", "1m"), 60);
    assert_eq!(pods_per_node(&sim), "a=2 b=3");
    assert!(failed_scheduling(&steps).is_empty());
    assert!(
        narrated(
            &steps,
            "+ 3 × taints 100 (PreferNoSchedule taints it does not tolerate count against a node)"
        ),
        "the taint score is explained"
    );
}

/// A `NoExecute` taint: a pod that tolerates it for 30 s is placed there and evicted 30 s
/// later by the taint eviction controller (DisruptionTarget, TaintManagerEviction), and its
/// replacement goes the same way; one that tolerates it without a time stays.
#[test]
fn a_no_execute_taint_evicts_pods_when_their_toleration_runs_out() {
    let nodes = "    - {name: edge, cpu: \"4\", taints: [\"maintenance=soon:NoExecute\"]}\n";
    let (_, steps) = run_yaml(
        &tainted_yaml(
            nodes,
            1,
            "{key: maintenance, operator: Exists, effect: NoExecute, tolerationSeconds: 30}",
            "2m",
        ),
        100,
    );
    let evictions: Vec<u64> = steps_with(&steps, EventReason::TaintManagerEviction)
        .map(|s| s.time.as_millis() / 1000)
        .collect();
    assert_eq!(evictions, [30, 60, 90]);
    let narration = first_narration_with(&steps, EventReason::TaintManagerEviction);
    assert!(
        narration.starts_with("The pod's 30s toleration of edge's maintenance=soon:NoExecute taint has run out, so the 1 pod on it is evicted"),
        "{narration}"
    );
    let (sim, steps) = run_yaml(
        &tainted_yaml(
            nodes,
            1,
            "{key: maintenance, operator: Exists, effect: NoExecute}",
            "2m",
        ),
        100,
    );
    assert_eq!(pods_per_node(&sim), "edge=1");
    assert!(
        !steps
            .iter()
            .flat_map(|s| &s.events)
            .any(|e| e.reason == EventReason::TaintManagerEviction)
    );
    // Once the node fails, the admission plugin's 300 s toleration of unreachable decides, and
    // the narration names that taint, not the one the pod tolerates for ever.
    let failing = tainted_yaml(
        nodes,
        1,
        "{key: maintenance, operator: Exists, effect: NoExecute}",
        "8m",
    );
    let failing = with_actions(&failing, &["{at: 10s, fail_node: edge}"]);
    let (_, steps) = run_yaml(&failing, 480);
    let narration = first_narration_with(&steps, EventReason::TaintManagerEviction);
    assert!(
        narration.starts_with("The pod's 300s toleration of edge's unreachable:NoExecute taint has run out, so the 1 pod on it is evicted")
            && narration.contains("With the kubelet gone it stays Terminating"),
        "{narration}"
    );
}

/// A pod removed from the API while its taint eviction is still to come cancels that work, and
/// the taint eviction controller says so (`cancelWorkWithEvent`): scaled down at 20 s, one of two
/// pods that tolerate the node's NoExecute taint for 60 s goes after its 30 s grace period with
/// `Cancelling deletion of Pod default/<pod>`; the other is evicted at 60 s, and its own removal
/// brings no such event, since its work had fired.
#[test]
fn a_pod_removed_before_its_taint_eviction_cancels_it() {
    let nodes = "    - {name: edge, cpu: \"4\", taints: [\"maintenance=soon:NoExecute\"]}\n";
    let yaml = with_actions(
        &tainted_yaml(
            nodes,
            2,
            "{key: maintenance, operator: Exists, effect: NoExecute, tolerationSeconds: 60}",
            "100s",
        ),
        &["{at: 20s, scale: 1}"],
    );
    let (_, steps) = run_yaml(&yaml, 100);
    let evictions: Vec<(u64, &str)> = steps_with(&steps, EventReason::TaintManagerEviction)
        .flat_map(|s| {
            s.events
                .iter()
                .filter(|e| e.reason == EventReason::TaintManagerEviction)
                .map(|e| (s.time.as_millis() / 1000, e.message.as_str()))
        })
        .collect();
    let texts: Vec<String> = evictions
        .iter()
        .map(|(t, m)| format!("{t}s {}", m.split(" Pod ").next().unwrap_or(m)))
        .collect();
    assert_eq!(
        texts,
        ["50s Cancelling deletion of", "60s Marking for deletion"],
        "{evictions:?}"
    );
    let narration = first_narration_with(&steps, EventReason::TaintManagerEviction);
    assert!(
        narration.ends_with("the pod is gone. The taint eviction controller had timed it for eviction once its toleration of the node's NoExecute taint ran out: with the pod gone, that work is cancelled."),
        "{narration}"
    );
}

/// The scenario file's taints are checked with their paths.
#[test]
fn node_taints_in_a_scenario_are_checked() {
    let nodes = "    - {name: a, taints: [{key: \"\", effect: NoSchedule}, {key: x, effect: Sometimes}, \"bad key!:NoSchedule\", {key: y, effect: NoSchedule}, \"y=1:NoSchedule\"]}\n";
    let joined = load_errors(&tainted_yaml(nodes, 1, "", "1m"));
    for expected in [
        "cluster.nodes[0].taints[0].key: Required value",
        "cluster.nodes[0].taints[1].effect: Unsupported value: \"Sometimes\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
        "cluster.nodes[0].taints[2].key: Invalid value: \"bad key!\"",
        "cluster.nodes[0].taints[4]: Duplicate value: \"y=1:NoSchedule\": taints must be unique by key and effect pair",
    ] {
        assert!(joined.contains(expected), "{expected}\nin\n{joined}");
    }
}

/// NodeAffinity's preferred terms score (weight 2, the matched weights normalized so the best
/// node gets 100): three pods go to the node with the preferred label while it has room, against
/// free capacity, and the narration gives the score; a node that matches no term is still used
/// once the preferred one is full.
#[test]
fn preferred_node_affinity_scores_nodes() {
    let yaml = "cluster:\n  nodes:\n    - {name: a, cpu: \"3\", labels: {disk: ssd}}\n    - {name: b, cpu: \"8\"}\nimages:\n  app:1: {pull_time: 1s}\ndeployment:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: app}\n  spec:\n    replicas: 5\n    selector: {matchLabels: {app: app}}\n    template:\n      metadata: {labels: {app: app}}\n      spec:\n        affinity:\n          nodeAffinity:\n            preferredDuringSchedulingIgnoredDuringExecution:\n              - weight: 50\n                preference: {matchExpressions: [{key: disk, operator: In, values: [ssd]}]}\n        containers:\n          - name: app\n            image: app:1\n            resources: {requests: {cpu: \"1\"}}\nrun_until: 1m\n";
    let (sim, steps) = run_yaml(yaml, 60);
    assert_eq!(pods_per_node(&sim), "a=3 b=2");
    assert!(
        narrated(
            &steps,
            "+ 2 × node affinity 100 (the preferred node affinity terms it matches weigh 50)"
        ),
        "the affinity score is explained"
    );
    // Weights outside 1–100 are refused at their path.
    let bad = yaml.replace("weight: 50", "weight: 0");
    let errors = load_errors(&bad);
    assert!(
        errors.contains("spec.template.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100"),
        "{errors}"
    );
}

/// InterPodAffinity's score (weight 2): a preferred pod anti-affinity on the hostname (weight
/// 100) spreads six replicas two per node, where free capacity alone with the default spread
/// puts three on the big node; the narration gives the score; a weight outside 1–100 is refused.
#[test]
fn preferred_pod_anti_affinity_scores_nodes() {
    let yaml = "seed: 5\ncluster:\n  nodes:\n    - {name: a, cpu: \"64\"}\n    - {name: b, cpu: \"4\"}\n    - {name: c, cpu: \"4\"}\nimages:\n  app:1: {pull_time: 1s}\ndeployment:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: app}\n  spec:\n    replicas: 6\n    selector: {matchLabels: {app: app}}\n    template:\n      metadata: {labels: {app: app}}\n      spec:\n        affinity:\n          podAntiAffinity:\n            preferredDuringSchedulingIgnoredDuringExecution:\n              - weight: 100\n                podAffinityTerm: {labelSelector: {matchLabels: {app: app}}, topologyKey: kubernetes.io/hostname}\n        containers:\n          - name: app\n            image: app:1\n            resources: {requests: {cpu: \"1\"}}\nrun_until: 1m\n";
    let (sim, steps) = run_yaml(yaml, 60);
    assert_eq!(pods_per_node(&sim), "a=2 b=2 c=2");
    assert!(
        narrated(
            &steps,
            "+ 2 × pod affinity 100 (its preferred anti-affinity terms and the preferred terms of pods that select it sum to 0 here, from -200 to 0 over the nodes)"
        ),
        "the pod affinity score is explained"
    );
    let without = yaml.replace(
        "        affinity:\n          podAntiAffinity:\n            preferredDuringSchedulingIgnoredDuringExecution:\n              - weight: 100\n                podAffinityTerm: {labelSelector: {matchLabels: {app: app}}, topologyKey: kubernetes.io/hostname}\n",
        "",
    );
    assert_eq!(pods_per_node(&run_yaml(&without, 60).0), "a=3 b=2 c=1");
    let bad = yaml.replace("weight: 100", "weight: 101");
    let errors = load_errors(&bad);
    assert!(
        errors.contains("spec.template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 101: must be in the range 1-100"),
        "{errors}"
    );
}

/// `kubectl taint` as a scenario action: a NoExecute taint evicts the pods on the node that do
/// not tolerate it at once and their replacements go elsewhere; tainting again with the same key
/// and effect is refused as kubectl refuses it; removing the taint lets pods back.
#[test]
fn a_taint_action_evicts_and_an_untaint_lets_pods_back() {
    let nodes = "    - {name: a, cpu: \"4\"}\n    - {name: b, cpu: \"4\"}\n";
    let yaml = with_actions(
        &tainted_yaml(nodes, 4, "", "3m"),
        &[
            "{at: 20s, taint: \"a maintenance=now:NoExecute\"}",
            "{at: 30s, taint: \"a maintenance=again:NoExecute\"}",
            "{at: 60s, untaint: \"a maintenance:NoExecute\"}",
            "{at: 70s, scale: 8}",
        ],
    );
    let (sim, steps) = run_yaml(&yaml, 40);
    assert_eq!(pods_per_node(&sim), "a=0 b=4");
    let evicted: Vec<u64> = steps_with(&steps, EventReason::TaintManagerEviction)
        .map(|s| s.time.as_millis() / 1000)
        .collect();
    assert_eq!(evicted, [20], "one step evicts both pods at the taint");
    let at = |secs: u64| kubectl_said_at(&steps, secs);
    assert!(
        at(20).starts_with("node/a tainted: new pods that do not tolerate it are kept off"),
        "{}",
        at(20)
    );
    assert!(
        at(30).contains("error: node a already has maintenance taint(s) with same effect(s) and --overwrite is false"),
        "{}",
        at(30)
    );
    let (sim, _) = run_yaml(&yaml, 120);
    let per_node = pods_per_node(&sim);
    assert!(
        per_node.starts_with("a=") && !per_node.starts_with("a=0"),
        "{per_node}"
    );
}

/// Removing a NoExecute taint cancels the evictions it scheduled ("Cancelling deletion of Pod",
/// as the taint eviction controller records it), and a later taint times the pods afresh:
/// pods that tolerate `maint` for 60 s, tainted at 20 s, untainted at 40 s and tainted again at
/// 70 s, go at 130 s, not at 80 s.
#[test]
fn an_untaint_cancels_the_evictions_and_a_new_taint_starts_over() {
    let nodes = "    - {name: a, cpu: \"4\"}\n";
    let yaml = tainted_yaml(
        nodes,
        2,
        "{key: maint, operator: Exists, effect: NoExecute, tolerationSeconds: 60}",
        "3m",
    );
    let yaml = with_actions(
        &yaml,
        &[
            "{at: 20s, taint: \"a maint=one:NoExecute\"}",
            "{at: 40s, untaint: \"a maint:NoExecute\"}",
            "{at: 70s, taint: \"a maint=two:NoExecute\"}",
        ],
    );
    let (_, steps) = run_yaml(&yaml, 180);
    let messages: Vec<(u64, &str)> = steps
        .iter()
        .flat_map(|s| s.events.iter().map(move |e| (s.time.as_millis() / 1000, e)))
        .filter(|(_, e)| e.reason == EventReason::TaintManagerEviction)
        .map(|(t, e)| (t, e.message.as_str()))
        .collect();
    let cancelled = messages
        .iter()
        .filter(|(t, m)| *t == 40 && m.starts_with("Cancelling deletion of Pod default/app-"))
        .count();
    assert_eq!(cancelled, 2, "{messages:?}");
    let marked: Vec<u64> = messages
        .iter()
        .filter(|(_, m)| m.starts_with("Marking for deletion"))
        .map(|(t, _)| *t)
        .collect();
    assert_eq!(marked.first(), Some(&130), "{messages:?}");
}

/// The narrations of kubectl's steps at `secs`, one per line.
fn kubectl_said_at(steps: &[Step], secs: u64) -> String {
    steps
        .iter()
        .filter(|s| s.time.as_millis() == secs * 1000 && s.actor == "kubectl")
        .map(|s| s.narration.clone())
        .collect::<Vec<_>>()
        .join("\n")
}

/// `kubectl drain` as a scenario action: the node is cordoned, each pod on it is evicted
/// (marked DisruptionTarget by the Eviction API and deleted with its grace period) and replaced
/// on the other node, and kubectl prints `pod/… evicted` as each pod goes and `node/a drained`
/// after the last. A second drain of the drained node has nothing to evict.
#[test]
fn a_drain_cordons_evicts_and_waits_for_the_pods_to_go() {
    let nodes = "    - {name: a, cpu: \"4\"}\n    - {name: b, cpu: \"4\"}\n";
    let yaml = with_actions(
        &tainted_yaml(nodes, 4, "", "2m"),
        &[
            "{at: 20s, drain: \"a --ignore-daemonsets\"}",
            "{at: 60s, drain: a}",
        ],
    );
    let (sim, steps) = run_yaml(&yaml, 20);
    let on_a: Vec<_> = sim
        .store()
        .pods
        .values()
        .filter(|p| p.node_name == "a")
        .collect();
    assert_eq!(on_a.len(), 2, "{}", pods_per_node(&sim));
    for p in &on_a {
        assert!(
            p.metadata.deletion_timestamp.is_some(),
            "{}",
            p.metadata.name
        );
        let marked = disruption_target(p);
        assert_eq!(
            marked.and_then(|c| c.reason.as_deref()),
            Some("EvictionByEvictionAPI"),
            "{:?}",
            p.status.conditions
        );
        assert_eq!(
            marked.and_then(|c| c.message.as_deref()),
            Some("Eviction API: evicting")
        );
    }
    assert!(sim.store().nodes["a"].spec.unschedulable);
    let said = kubectl_said_at(&steps, 20);
    let names: Vec<String> = on_a
        .iter()
        .map(|p| format!("evicting pod default/{}", p.metadata.name))
        .collect();
    assert!(
        said.starts_with(&format!("node/a cordoned; {}. ", names.join(", "))),
        "{said}"
    );
    let (sim, steps) = run_yaml(&yaml, 120);
    assert_eq!(pods_per_node(&sim), "a=0 b=4");
    let printed: Vec<&str> = steps
        .iter()
        .filter_map(|s| {
            s.narration
                .split_once("kubectl drain a, which looks every second, prints ")
        })
        .map(|(_, rest)| rest)
        .collect();
    assert_eq!(printed.len(), 2, "{printed:?}");
    assert!(
        printed[0].ends_with("evicted and waits for 1 more pod."),
        "{printed:?}"
    );
    assert!(
        printed[1].contains("evicted and node/a drained: the drain is done, "),
        "{printed:?}"
    );
    assert!(sim.store().drains.is_empty());
    assert_eq!(
        kubectl_said_at(&steps, 60),
        "node/a already cordoned; node/a drained: there is no pod on it to evict, so the drain is done at once."
    );
}

/// kubectl's drain filters: a pod with an `emptyDir` volume stops the drain before any
/// eviction unless `--delete-emptydir-data` is given (the node stays cordoned); an unknown node
/// is refused as the API server refuses it; a misspelt flag is refused when the file loads.
#[test]
fn a_drain_refuses_pods_with_local_storage_without_the_flag() {
    let nodes = "    - {name: a, cpu: \"4\"}\n    - {name: b, cpu: \"4\"}\n";
    let with_scratch = tainted_yaml(nodes, 2, "", "1m").replace(
        "        containers:\n",
        "        volumes: [{name: scratch, emptyDir: {}}]\n        containers:\n",
    );
    let drain =
        |arg: &str| with_actions(&with_scratch, &[&format!("{{at: 20s, drain: \"{arg}\"}}")]);
    let (sim, steps) = run_yaml(&drain("a"), 30);
    let said = kubectl_said_at(&steps, 20);
    assert!(
        said.starts_with("node/a cordoned; error: unable to drain node \"a\" due to error: cannot delete Pods with local storage (use --delete-emptydir-data to override): default/app-"),
        "{said}"
    );
    // `CheckErr` prints the aggregate's lines without kubectl's `error: ` prefix.
    assert!(
        said.contains(", continuing command... There are pending nodes to be drained: a. cannot delete Pods with local storage"),
        "{said}"
    );
    assert!(sim.store().nodes["a"].spec.unschedulable);
    assert!(
        sim.store()
            .pods
            .values()
            .all(|p| p.metadata.deletion_timestamp.is_none()),
        "no pod is evicted"
    );
    let (sim, _) = run_yaml(&drain("a --delete-emptydir-data"), 60);
    assert!(
        pods_per_node(&sim).starts_with("a=0"),
        "{}",
        pods_per_node(&sim)
    );
    let (_, steps) = run_yaml(&drain("z"), 30);
    assert_eq!(
        kubectl_said_at(&steps, 20),
        "kubectl drain z was refused: Error from server (NotFound): nodes \"z\" not found"
    );
    assert!(
        load_errors(&drain("a --ignore-daemonset")).contains(
            "unknown flag: --ignore-daemonset (this model takes --ignore-daemonsets, --delete-emptydir-data, --force, --dry-run=client, --grace-period=N, --timeout=DURATION, --pod-selector=QUERY, --disable-eviction and --skip-wait-for-delete-timeout=N)"
        ),
        "{}",
        load_errors(&drain("a --ignore-daemonset"))
    );
}

/// A pod's DisruptionTarget condition, if it has one.
fn disruption_target(
    p: &rolloutscope::sim::api::Pod,
) -> Option<&rolloutscope::sim::api::PodCondition> {
    p.status
        .conditions
        .iter()
        .find(|c| c.type_ == rolloutscope::sim::api::PodConditionType::DisruptionTarget)
}

/// The names of the pods bound to `node`, in name order.
fn pod_names_on(sim: &Sim, node: &str) -> Vec<String> {
    pod_names_where(sim, node, |_| true)
}

/// Whether any step's narration says `text`.
fn narrated(steps: &[Step], text: &str) -> bool {
    steps.iter().any(|s| s.narration.contains(text))
}

/// Asserts that a `kubectl drain` of `node` ended, printing `node/NODE drained`.
fn assert_drained(steps: &[Step], node: &str) {
    let line = format!("node/{node} drained: the drain is done");
    assert!(narrated(steps, &line), "no step says {line:?}");
}

/// A scenario with PodDisruptionBudgets (`spec` given as YAML flow mappings) selecting `app=app`.
fn with_budgets(yaml: &str, specs: &[&str]) -> String {
    let list: String = specs
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            format!("    - {{apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {{name: budget-{i}}}, spec: {spec}}}\n")
        })
        .collect();
    yaml.replacen(
        "images:",
        &format!("  podDisruptionBudgets:\n{list}images:"),
        1,
    )
}

/// A drain under a PodDisruptionBudget (minAvailable 3 of 4): the first eviction spends the one
/// disruption allowed, the second is refused with 429 and kubectl's retry line, and it goes at
/// the first retry after the replacement is Ready, 5 s later; `kubectl get pdb` prints the
/// budget.
#[test]
fn a_budget_lets_a_drain_evict_one_pod_at_a_time() {
    let nodes = "    - {name: a, cpu: \"4\"}\n    - {name: b, cpu: \"4\"}\n";
    let yaml = with_actions(
        &with_budgets(
            &tainted_yaml(nodes, 4, "", "2m"),
            &["{minAvailable: 3, selector: {matchLabels: {app: app}}}"],
        ),
        &["{at: 20s, drain: a}"],
    );
    let (sim, steps) = run_yaml(&yaml, 20);
    // The replacement (image present, no readiness probe) is Ready within the same second, so
    // the controller allows a disruption again; the evicted pod, still terminating, is one of the
    // 5 pods an integer minAvailable expects.
    let budget = &sim.store().pdbs["budget-0"];
    assert_eq!(
        (
            budget.status.expected_pods,
            budget.status.desired_healthy,
            budget.status.current_healthy,
            budget.status.disruptions_allowed
        ),
        (5, 3, 4, 1),
        "{:?}",
        budget.status
    );
    let on_a: Vec<String> = pod_names_on(&sim, "a");
    let [first, second] = on_a.as_slice() else {
        panic!("two pods on a: {}", pods_per_node(&sim));
    };
    let said = kubectl_said_at(&steps, 20);
    assert!(
        said.starts_with(&format!(
            "node/a cordoned; evicting pod default/{first}, evicting pod default/{second}, error when evicting pods/\"{second}\" -n \"default\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget. "
        )),
        "{said}"
    );
    assert!(
        said.contains("(The disruption budget budget-0 needs 3 healthy pods and has 4 currently; an eviction before it spent"),
        "{said}"
    );
    assert!(
        sim.store().pods[first.as_str()]
            .metadata
            .deletion_timestamp
            .is_some()
    );
    assert!(
        sim.store().pods[second.as_str()]
            .metadata
            .deletion_timestamp
            .is_none()
    );
    let (sim, steps) = run_yaml(&yaml, 120);
    assert_eq!(pods_per_node(&sim), "a=0 b=4");
    let retried = kubectl_said_at(&steps, 25);
    assert!(
        retried.starts_with(&format!("kubectl drain a tries again: evicting pod default/{second}. The Eviction API grants the eviction")),
        "{retried}"
    );
    assert_drained(&steps, "a");
    let table = kubectl::get(
        &Moment::new(&sim, &steps),
        &[Resource::PodDisruptionBudgets],
        false,
    );
    assert_eq!(
        table.lines().next(),
        Some("NAME       MIN AVAILABLE   MAX UNAVAILABLE   ALLOWED DISRUPTIONS   AGE")
    );
    assert!(
        table
            .lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("budget-0   3               N/A               1 ")),
        "{table}"
    );

    let described = kubectl::describe_disruption_budget(&Moment::new(&sim, &steps), "budget-0")
        .expect("described");
    assert!(
        described.starts_with("Name:           budget-0\nNamespace:      default\nMin available:  3\nSelector:       app=app\nStatus:\n    Allowed disruptions:  1\n    Current:              4\n    Desired:              3\n    Total:                4\nEvents:"),
        "{described}"
    );
}

/// The disruption controller's counts: a percentage is taken of the replicas the pods'
/// controllers want (the Deployment's, once, however many ReplicaSets a rollout has), rounded
/// up; healthy pods are Ready and not being deleted.
#[test]
fn a_budget_counts_the_deployments_replicas_once_during_a_rollout() {
    let nodes = "    - {name: a, cpu: \"8\"}\n";
    let yaml = with_actions(
        &with_budgets(
            &tainted_yaml(nodes, 4, "", "1m"),
            &["{maxUnavailable: \"30%\", selector: {matchLabels: {app: app}}}"],
        )
        .replace(
            "    replicas: 4\n",
            "    replicas: 4\n    strategy: {rollingUpdate: {maxSurge: 2, maxUnavailable: 0}}\n",
        )
        .replace("images:\n", "images:\n  app:2: {pull_time: 10s}\n"),
        &["{at: 20s, set_image: app:2}"],
    );
    let (sim, _) = run_yaml(&yaml, 25);
    let pods = sim.store().pods.len();
    assert!(pods > 4, "the surge is under way: {pods} pods");
    let status = &sim.store().pdbs["budget-0"].status;
    // 30% of 4 rounds up to 2 unavailable, so 2 must stay healthy; the 4 old pods are.
    assert_eq!(
        (
            status.expected_pods,
            status.desired_healthy,
            status.current_healthy,
            status.disruptions_allowed
        ),
        (4, 2, 4, 2),
        "{status:?}"
    );
}

/// A PodDisruptionBudget in a scenario is validated as the API server validates one, and
/// decoded as strictly as kubectl applies one.
#[test]
fn a_budget_is_validated_like_the_api_server_does() {
    let nodes = "    - {name: a, cpu: \"4\"}\n";
    let errors =
        |spec: &str| load_errors(&with_budgets(&tainted_yaml(nodes, 1, "", "1m"), &[spec]));
    assert!(
        errors("{minAvailable: 1, maxUnavailable: 1, selector: {matchLabels: {app: app}}}").contains(
            "spec: Invalid value: {\"MinAvailable\":1,\"Selector\":{\"matchLabels\":{\"app\":\"app\"}},\"MaxUnavailable\":1,\"UnhealthyPodEvictionPolicy\":null}: minAvailable and maxUnavailable cannot be both set"
        ),
        "{}",
        errors("{minAvailable: 1, maxUnavailable: 1, selector: {matchLabels: {app: app}}}")
    );
    assert!(
        errors("{minAvailable: \"120%\"}")
            .contains("spec.minAvailable: Invalid value: \"120%\": must not be greater than 100%")
    );
    assert!(
        errors("{maxUnavailable: -1}")
            .contains("spec.maxUnavailable: Invalid value: -1: must be greater than or equal to 0")
    );
    assert!(
        errors("{minAvailable: 1, unhealthyPodEvictionPolicy: Never}").contains(
            "spec.unhealthyPodEvictionPolicy: Unsupported value: \"Never\": supported values: \"AlwaysAllow\", \"IfHealthyBudget\""
        )
    );
    assert!(
        errors("{minAvailabe: 1}")
            .contains("podDisruptionBudgets[0].spec.minAvailabe: unknown key"),
        "{}",
        errors("{minAvailabe: 1}")
    );
}

/// `unhealthyPodEvictionPolicy`: with two pods on node a, one of them unready (its readiness
/// endpoint broken), a budget of `minAvailable: 2` refuses both evictions under the default
/// `IfHealthyBudget` (the budget is not met, so even the unready pod stays), and lets the
/// unready one go under `AlwaysAllow`; with `minAvailable: 1` the budget is met, so the unready
/// pod goes without spending a disruption and the ready one is refused.
#[test]
fn an_unready_pod_is_evicted_as_the_unhealthy_pod_eviction_policy_says() {
    let yaml = |spec: &str| {
        format!(
            "cluster:\n  nodes:\n    - {{name: a, cpu: \"4\"}}\n    - {{name: b, cpu: \"4\", taints: [\"hold=on:NoSchedule\"]}}\n  podDisruptionBudgets:\n    - {{apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {{name: app}}, spec: {spec}}}\nimages:\n  app:1: {{pull_time: 1s}}\ndeployment:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {{name: app}}\n  spec:\n    replicas: 2\n    selector: {{matchLabels: {{app: app}}}}\n    template:\n      metadata: {{labels: {{app: app}}}}\n      spec:\n        containers:\n          - name: app\n            image: app:1\n            readinessProbe: {{httpGet: {{path: /, port: 8080}}, periodSeconds: 1}}\nactions:\n  - {{at: 10s, break_readiness: app-}}\n  - {{at: 30s, untaint: \"b hold:NoSchedule\"}}\n  - {{at: 40s, drain: a}}\nrun_until: 1m\n"
        )
    };
    // Whether the unready and the ready pod on a were evicted.
    let outcome = |spec: &str| {
        let (sim, _) = run_yaml(&yaml(spec), 40);
        let on_a: Vec<_> = sim
            .store()
            .pods
            .values()
            .filter(|p| p.node_name == "a")
            .map(|p| (p.is_ready(), p.metadata.deletion_timestamp.is_some()))
            .collect();
        assert_eq!(on_a.len(), 2, "two pods on a: {on_a:?}");
        let gone = |ready: bool| on_a.iter().any(|&(r, g)| r == ready && g);
        assert!(on_a.iter().any(|&(r, _)| !r), "one is unready: {on_a:?}");
        (gone(false), gone(true))
    };
    let sel = "selector: {matchLabels: {app: app}}";
    assert_eq!(
        outcome(&format!("{{minAvailable: 2, {sel}}}")),
        (false, false)
    );
    assert_eq!(
        outcome(&format!(
            "{{minAvailable: 2, unhealthyPodEvictionPolicy: AlwaysAllow, {sel}}}"
        )),
        (true, false)
    );
    assert_eq!(
        outcome(&format!("{{minAvailable: 1, {sel}}}")),
        (true, false)
    );
}

/// Budgets that overlap or select oddly, as upstream handles them: a pod two budgets cover gets
/// the controller's `MultiplePodDisruptionBudgets` warning at each of its events and cannot be
/// evicted (500), so the
/// drain ends in kubectl's error lines; `selector: {}` counts every pod for the controller, and
/// the Eviction API ignores such a budget; a budget that counts no pod says `NoPods` when it is
/// first counted, and a deleted pod of another app does not wake it; a budget's name is only
/// checked as a path segment (`Budget_1` passes, `a/b` does not).
#[test]
fn overlapping_and_odd_budgets_behave_as_upstream() {
    let nodes = "    - {name: a, cpu: \"4\"}\n    - {name: b, cpu: \"4\"}\n";
    let base = tainted_yaml(nodes, 2, "", "1m");
    let app = "selector: {matchLabels: {app: app}}";
    let overlapping = with_actions(
        &with_budgets(
            &base,
            &[
                &format!("{{minAvailable: 1, {app}}}"),
                &format!("{{maxUnavailable: 1, {app}}}"),
                "{minAvailable: 1, selector: {matchLabels: {app: db}}}",
            ],
        ),
        &["{at: 20s, drain: a}"],
    );
    let (_, steps) = run_yaml(&overlapping, 60);
    let warnings = event_messages(&steps, EventReason::MultiplePodDisruptionBudgets);
    assert!(
        warnings
            .first()
            .is_some_and(|m| m.starts_with("Pod \"default\"/\"app-")
                && m.ends_with(
                    "\" matches multiple PodDisruptionBudgets.  Chose \"budget-0\" arbitrarily."
                )),
        "{warnings:?}"
    );
    // Warned at each of the two pods' events (created, scheduled, started, Ready, evicted…),
    // not only when each was created.
    assert!(warnings.len() > 4, "{warnings:?}");
    let said = kubectl_said_at(&steps, 20);
    for part in [
        "-n \"default\": This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
        "There are pending pods in node \"a\" when an error occurred: error when evicting pods/",
        ", continuing command... There are pending nodes to be drained: a. error when evicting pods/",
    ] {
        assert!(said.contains(part), "{part:?} in {said}");
    }
    let no_pods: Vec<u64> = steps
        .iter()
        .filter(|s| {
            s.events
                .iter()
                .any(|e| e.reason == EventReason::NoPods && e.involved_object.name == "budget-2")
        })
        .map(|s| s.time.as_millis())
        .collect();
    assert_eq!(no_pods, [0], "NoPods only when first counted");
    // `{}`: the controller counts both pods; the Eviction API lets them go regardless.
    let everything = with_actions(
        &with_budgets(&base, &["{minAvailable: 2, selector: {}}"])
            .replace("name: budget-0", "name: Budget_1"),
        &["{at: 20s, drain: a}"],
    );
    let (sim, steps) = run_yaml(&everything, 60);
    assert_eq!(sim.store().pdbs["Budget_1"].status.expected_pods, 2);
    let described = kubectl::describe_disruption_budget(&Moment::new(&sim, &steps), "Budget_1")
        .expect("described");
    assert!(
        described.contains("Selector:       <none>\n"),
        "{described}"
    );
    assert!(
        pods_per_node(&sim).starts_with("a=0"),
        "{}",
        pods_per_node(&sim)
    );
    let refused = load_errors(
        &with_budgets(&base, &["{minAvailable: 1}"]).replace("name: budget-0", "name: \"a/b\""),
    );
    assert!(
        refused.contains("metadata.name: Invalid value: \"a/b\": may not contain '/'"),
        "{refused}"
    );
}

/// Two `kubectl drain` commands of one node are two processes: each evicts and retries on its
/// own schedule and each prints its own `node/a drained`.
#[test]
fn two_drains_of_one_node_each_retry_and_finish() {
    let nodes = "    - {name: a, cpu: \"4\"}\n    - {name: b, cpu: \"4\"}\n";
    let yaml = with_actions(
        &with_budgets(
            &tainted_yaml(nodes, 4, "", "2m"),
            &["{minAvailable: 3, selector: {matchLabels: {app: app}}}"],
        ),
        &["{at: 20s, drain: a}", "{at: 21s, drain: a}"],
    );
    let (_, steps) = run_yaml(&yaml, 120);
    let retries: Vec<u64> = steps
        .iter()
        .filter(|s| s.actor == "kubectl" && s.narration.starts_with("kubectl drain a tries again"))
        .map(|s| s.time.as_millis() / 1000)
        .collect();
    // The second drain finds the replacement Ready and the budget allowing one again, so its
    // eviction is granted at once; the first keeps its own schedule and finds the pod going.
    assert_eq!(retries, [25], "{retries:?}");
    let drained = steps
        .iter()
        .map(|s| {
            s.narration
                .matches("node/a drained: the drain is done")
                .count()
        })
        .sum::<usize>();
    assert_eq!(drained, 2, "each drain ends");
}

/// Two pods on node a under a budget that allows no disruption (minAvailable 2 of 2), so the
/// drain at 20 s is refused for both; `extra` actions follow. Node b is tainted until 10 s so
/// that both pods start on a; `grace` is the pods' termination grace period.
fn blocked_drain(grace: u32, extra: &str) -> String {
    format!(
        "cluster:\n  nodes:\n    - {{name: a, cpu: \"4\"}}\n    - {{name: b, cpu: \"4\", taints: [\"hold=on:NoSchedule\"]}}\n  podDisruptionBudgets:\n    - {{apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {{name: app, namespace: default}}, spec: {{minAvailable: 2, selector: {{matchLabels: {{app: app}}}}}}}}\n    - {{apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {{name: all}}, spec: {{maxUnavailable: 0, selector: {{}}}}}}\nimages:\n  app:1: {{pull_time: 1s}}\ndeployment:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {{name: app}}\n  spec:\n    replicas: 2\n    selector: {{matchLabels: {{app: app}}}}\n    template:\n      metadata: {{labels: {{app: app}}}}\n      spec:\n        terminationGracePeriodSeconds: {grace}\n        containers:\n          - {{name: app, image: app:1}}\nactions:\n  - {{at: 10s, untaint: \"b hold:NoSchedule\"}}\n  - {{at: 20s, drain: a}}\n{extra}run_until: 1m\n"
    )
}

/// A refused drain whose pods go another way: scaled to 0, they are deleted. Pods still
/// terminating at a retry are let go without a budget, and kubectl waits for them; pods already
/// gone (NotFound) count as done. Either way the drain ends. Both budgets count the pods (one
/// with `selector: {}`), and both are recounted, so neither is left behind.
#[test]
fn a_refused_drain_ends_when_its_pods_go_another_way() {
    // 30 s grace: the pods are still terminating at the 25 s retry.
    let (_, steps) = run_yaml(&blocked_drain(30, "  - {at: 22s, scale: 0}\n"), 60);
    let retried = kubectl_said_at(&steps, 25);
    assert!(
        retried.contains(
            "being deleted already, so the Eviction API lets them go without asking a budget"
        ),
        "{retried}"
    );
    assert_drained(&steps, "a");
    // 1 s grace: the pods are gone before the retry.
    let (_, steps) = run_yaml(&blocked_drain(1, "  - {at: 22s, scale: 0}\n"), 60);
    let retried = kubectl_said_at(&steps, 25);
    assert!(
        retried.starts_with("kubectl drain a would try its refused evictions again, but the pods are gone (NotFound), which it counts as done. kubectl prints node/a drained."),
        "{retried}"
    );
    // Both budgets were recounted as the pods came and went.
    let (sim, _) = run_yaml(&blocked_drain(30, ""), 19);
    let healthy: Vec<i32> = sim
        .store()
        .pdbs
        .values()
        .map(|b| b.status.current_healthy)
        .collect();
    assert_eq!(healthy, [2, 2], "{:?}", sim.store().pdbs);
}

/// `kubectl drain --dry-run=client` prints what it would do, each line marked `(dry run)`, and
/// changes nothing: the node stays schedulable and every pod stays.
#[test]
fn a_dry_run_drain_prints_and_changes_nothing() {
    let nodes = "    - {name: a, cpu: \"4\"}\n    - {name: b, cpu: \"4\"}\n";
    let yaml = with_actions(
        &tainted_yaml(nodes, 4, "", "1m"),
        &["{at: 20s, drain: \"a --ignore-daemonsets --dry-run=client\"}"],
    );
    let (sim, steps) = run_yaml(&yaml, 30);
    let said = kubectl_said_at(&steps, 20);
    let on_a: Vec<String> = sim
        .store()
        .pods
        .values()
        .filter(|p| p.node_name == "a")
        .map(|p| format!("evicting pod default/{} (dry run)", p.metadata.name))
        .collect();
    assert_eq!(on_a.len(), 2);
    assert!(
        said.starts_with(&format!(
            "node/a cordoned (dry run); {}, node/a drained (dry run). A client dry run asks the API server nothing",
            on_a.join(", ")
        )),
        "{said}"
    );
    assert!(!sim.store().nodes["a"].spec.unschedulable);
    assert!(
        sim.store()
            .pods
            .values()
            .all(|p| p.metadata.deletion_timestamp.is_none())
    );
    assert_eq!(
        steps
            .iter()
            .find(|s| s.actor == "kubectl" && s.time.as_millis() == 20_000)
            .map(|s| s.object.as_str()),
        Some("node/a")
    );
}

/// A budget limits evictions only: a pod deleted with `kubectl delete pod` takes it below its
/// minimum, and the disruption controller says what the budget does not guard against.
#[test]
fn a_deleted_pod_takes_a_budget_below_its_minimum() {
    let nodes = "    - {name: a, cpu: \"4\"}\n";
    let yaml = with_actions(
        &with_budgets(
            &tainted_yaml(nodes, 2, "", "1m"),
            &["{minAvailable: 2, selector: {matchLabels: {app: app}}}"],
        ),
        &["{at: 20s, delete_pod: app-}"],
    );
    // The replacement is Ready within the same second (its image is there, it has no probe),
    // so the budget is met again at once; the drop is still seen and said.
    let (_, steps) = run_yaml(&yaml, 20);
    let warned: Vec<&Step> = steps
        .iter()
        .filter(|s| {
            s.narration.contains(
                "The budget is not met now, and it cannot stop that: it limits only evictions",
            )
        })
        .collect();
    assert_eq!(warned.len(), 1, "said once, when it drops");
    assert_eq!(warned[0].actor, "disruption-controller");
    assert_eq!(warned[0].time, Time::from_secs(20));
}

/// `kubectl drain --grace-period=N` gives each evicted pod N seconds, not its own 30; a word
/// where the number belongs is refused as kubectl's flag parser refuses it, and 0 (delete the
/// object at once) is refused as not modelled.
#[test]
fn a_drain_grace_period_sets_each_pods_shutdown_time() {
    let nodes = "    - {name: a, cpu: \"4\"}\n    - {name: b, cpu: \"4\"}\n";
    let base = tainted_yaml(nodes, 2, "", "1m");
    let drain = |flags: &str| with_actions(&base, &[&format!("{{at: 20s, drain: \"a {flags}\"}}")]);
    let (sim, steps) = run_yaml(&drain("--grace-period=5"), 20);
    let deleting: Vec<_> = sim
        .store()
        .pods
        .values()
        .filter(|p| p.node_name == "a")
        .map(|p| p.metadata.deletion_grace_period_seconds)
        .collect();
    assert!(
        !deleting.is_empty() && deleting.iter().all(|g| *g == Some(5)),
        "{deleting:?}"
    );
    let said = kubectl_said_at(&steps, 20);
    assert!(
        said.contains("the 5s grace period --grace-period asks for"),
        "{said}"
    );
    assert!(
        load_errors(&drain("--grace-period=soon")).contains(
            "invalid argument \"soon\" for \"--grace-period\" flag: strconv.ParseInt: parsing \"soon\": invalid syntax"
        )
    );
    assert!(
        load_errors(&drain("--grace-period=0"))
            .contains("--grace-period=0 deletes each pod object at once")
    );
    // Under 2 s the kubelet gives its minimum (`minimumGracePeriodInSeconds`).
    let (_, steps) = run_yaml(&drain("--grace-period=1"), 25);
    assert!(
        narrated(
            &steps,
            "grace period 1s, which the kubelet raises to its 2s minimum"
        ),
        "the kubelet's minimum"
    );
    // Negative is kubectl's default: each pod's own.
    let (sim, _) = run_yaml(&drain("--grace-period=-1"), 20);
    assert!(
        sim.store()
            .pods
            .values()
            .filter(|p| p.node_name == "a")
            .all(|p| p.metadata.deletion_grace_period_seconds == Some(30))
    );
}

/// A drain with a shorter `--grace-period` of a pod already terminating says that the API
/// server would shorten its grace period, which this model does not.
#[test]
fn a_drain_of_a_terminating_pod_says_its_grace_period_is_kept() {
    let nodes = "    - {name: a, cpu: \"4\"}\n";
    let yaml = with_actions(
        &tainted_yaml(nodes, 1, "", "1m"),
        &[
            "{at: 19s, delete_pod: app-}",
            "{at: 20s, drain: \"a --grace-period=3\"}",
        ],
    );
    let (_, steps) = run_yaml(&yaml, 20);
    let said = kubectl_said_at(&steps, 20);
    assert!(
        said.contains(
            "already has to the 3s --grace-period asks for; RolloutScope keeps the longer one."
        ),
        "{said}"
    );
}

/// `kubectl drain --timeout`: a drain a budget keeps refusing gives up at its first retry after
/// the timeout, printing each retry's line and then the pods still to drain and one error per
/// pod, as `evictPods` and `RunDrain` print them; the node stays cordoned and the pods stay.
#[test]
fn a_drain_timeout_gives_up_on_evictions_a_budget_refuses() {
    let yaml = blocked_drain(30, "").replace("drain: a}", "drain: \"a --timeout=12s\"}");
    // The budget needs both of its pods, so it can never allow one: the narration and the node
    // card say so, and when kubectl gives up.
    let (sim, steps) = run_yaml(&yaml, 20);
    assert!(
        kubectl_said_at(&steps, 20).contains("Budget app needs 2 healthy pods of the 2 it expects, so it allows no disruption until the Deployment has more replicas or the budget is relaxed"),
        "{}",
        kubectl_said_at(&steps, 20)
    );
    let note = rolloutscope::sim::view::ClusterView::of(&sim)
        .nodes
        .into_iter()
        .find(|n| n.name == "a")
        .and_then(|n| n.drain);
    assert_eq!(
        note.as_deref(),
        Some(
            "kubectl drain waits: 2 evictions refused by a PodDisruptionBudget, retried every 5 s; app allows no disruption at this size; gives up at 35s (--timeout)"
        )
    );
    let (sim, steps) = run_yaml(&yaml, 60);
    let retries: Vec<u64> = steps
        .iter()
        .filter(|s| s.actor == "kubectl" && s.narration.starts_with("kubectl drain a tries again"))
        .map(|s| s.time.as_millis() / 1000)
        .collect();
    assert_eq!(retries, [25, 30, 35], "{retries:?}");
    let said = kubectl_said_at(&steps, 35);
    let pods: Vec<String> = pod_names_on(&sim, "a");
    assert_eq!(pods.len(), 2, "{}", pods_per_node(&sim));
    let errors: Vec<String> = pods
        .iter()
        .map(|p| {
            format!("error when evicting pods/\"{p}\" -n \"default\": global timeout reached: 12s")
        })
        .collect();
    let aggregate = format!("[{}]", errors.join(", "));
    assert!(
        said.starts_with(&format!(
            "kubectl drain a tries again: evicting pod default/{}, evicting pod default/{}. The --timeout of 12s has run out (15s after the drain began), so kubectl gives up on {}, {} without asking the Eviction API",
            pods[0], pods[1], pods[0], pods[1]
        )),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            "kubectl prints There are pending pods in node \"a\" when an error occurred: {aggregate} pod/{} pod/{}; error: unable to drain node \"a\" due to error: {aggregate}, continuing command... There are pending nodes to be drained: a. {}.",
            pods[0],
            pods[1],
            errors.join(" ")
        )),
        "{said}"
    );
    assert!(sim.store().drains.is_empty(), "the drain is over");
    assert!(sim.store().nodes["a"].spec.unschedulable);
    assert!(
        load_errors(&blocked_drain(30, "").replace("drain: a}", "drain: \"a --timeout=60\"}"))
            .contains("invalid argument \"60\" for \"--timeout\" flag: time: missing unit in duration \"60\""),
    );
}

/// Two nodes with two pods each; node a's kubelet stops at 10 s, and `drain` (its flags) runs
/// at 20 s, while the node still reads Ready.
fn dead_node_drain(flags: &str) -> String {
    let nodes = "    - {name: a, cpu: \"4\"}\n    - {name: b, cpu: \"4\"}\n";
    with_actions(
        &tainted_yaml(nodes, 4, "", "2m"),
        &[
            "{at: 10s, fail_node: a}",
            &format!("{{at: 20s, drain: \"a{flags}\"}}"),
        ],
    )
}

/// A drain of a node whose kubelet is gone: the evicted pods stay Terminating, so the drain
/// waits for ever, unless `--skip-wait-for-delete-timeout` lets it stop waiting once a pod's
/// deletion timestamp (the end of its grace period, 20 s + 30 s) is more than N seconds past,
/// or `--timeout` gives up on them.
#[test]
fn a_drain_of_a_dead_node_waits_unless_told_to_skip_or_give_up() {
    let (sim, _) = run_yaml(&dead_node_drain(""), 120);
    assert_eq!(sim.store().drains.len(), 1, "the drain still waits");
    // Skipped at the first look with more than 10 whole seconds past 50 s: 61 s.
    let (sim, steps) = run_yaml(&dead_node_drain(" --skip-wait-for-delete-timeout=10"), 120);
    let said = kubectl_said_at(&steps, 61);
    let stuck: Vec<String> = pod_names_on(&sim, "a");
    assert_eq!(stuck.len(), 2, "{}", pods_per_node(&sim));
    assert!(
        said.starts_with(&format!(
            "kubectl drain a, which looks every second, prints pod \"{}\" has DeletionTimestamp older than 10 seconds, skipping, pod \"{}\" has DeletionTimestamp older than 10 seconds, skipping.",
            stuck[0], stuck[1]
        )),
        "{said}"
    );
    assert!(
        said.ends_with("kubectl prints node/a drained: the drain is done, 41s after it began."),
        "{said}"
    );
    assert!(sim.store().drains.is_empty());
    // Given up when the timeout runs out, at 20 s + 30.5 s: the wait's context ends.
    let (sim, steps) = run_yaml(&dead_node_drain(" --timeout=30.5s"), 120);
    let said: String = steps
        .iter()
        .filter(|s| s.time.as_millis() == 50_500 && s.actor == "kubectl")
        .map(|s| s.narration.clone())
        .collect();
    let errors: Vec<String> = stuck
        .iter()
        .map(|p| format!("error when waiting for pod \"{p}\" in namespace \"default\" to terminate: context deadline exceeded"))
        .collect();
    assert!(
        said.contains(&format!(
            "There are pending pods in node \"a\" when an error occurred: [{}] pod/{} pod/{};",
            errors.join(", "),
            stuck[0],
            stuck[1]
        )),
        "{said}"
    );
    assert!(sim.store().drains.is_empty());
    // A skip too long to come due is never scheduled past the end of time.
    let (sim, _) = run_yaml(
        &dead_node_drain(" --skip-wait-for-delete-timeout=9223372036854775807"),
        120,
    );
    assert_eq!(sim.store().drains.len(), 1);
    // A later drain skips the pods at once: they are not listed for deletion at all.
    let yaml = dead_node_drain("").replace(
        "run_until: ",
        "  - {at: 90s, drain: \"a --skip-wait-for-delete-timeout=5\"}\nrun_until: ",
    );
    let (_, steps) = run_yaml(&yaml, 120);
    assert_eq!(
        kubectl_said_at(&steps, 90),
        "node/a already cordoned; node/a drained: no pod on it is left to evict once --pod-selector and --skip-wait-for-delete-timeout have picked, so the drain is done at once."
    );
}

/// `--disable-eviction` deletes the pods, which no budget holds back (no DisruptionTarget
/// condition, no 429), and prints `pod/NAME deleted` as each goes; with a `--timeout` that runs
/// out first, `deletePods` fails with one plain error, which kubectl prints with `error: `.
#[test]
fn a_drain_with_eviction_disabled_deletes_past_a_budget() {
    let (sim, steps) = run_yaml(&dead_node_drain(" --disable-eviction --timeout=5s"), 60);
    assert!(sim.store().drains.is_empty());
    let said = kubectl_said_at(&steps, 25);
    assert!(
        said.ends_with("error: unable to drain node \"a\" due to error: context deadline exceeded, continuing command... There are pending nodes to be drained: a. error: context deadline exceeded. The drain gave up 5s after it began, and the node stays cordoned."),
        "{said}"
    );
    let yaml = blocked_drain(1, "").replace("drain: a}", "drain: \"a --disable-eviction\"}");
    let (sim, steps) = run_yaml(&yaml, 20);
    let said = kubectl_said_at(&steps, 20);
    assert!(
        said.starts_with("node/a cordoned; With --disable-eviction kubectl deletes the 2 pods, as kubectl delete pod does, with its 1s grace period: no PodDisruptionBudget is asked"),
        "{said}"
    );
    assert!(
        sim.store()
            .pods
            .values()
            .filter(|p| p.node_name == "a")
            .all(|p| {
                p.metadata.deletion_timestamp.is_some()
                    && p.status.conditions.iter().all(|c| {
                        c.type_ != rolloutscope::sim::api::PodConditionType::DisruptionTarget
                    })
            })
    );
    let (_, steps) = run_yaml(&yaml, 60);
    assert!(
        narrated(&steps, " deleted and node/a drained: the drain is done"),
        "the drain ends"
    );
}

/// `--pod-selector` drains only the pods whose labels match; a query kubectl cannot parse is
/// refused with kubectl's words.
#[test]
fn a_drain_pod_selector_picks_the_pods_to_evict() {
    let nodes = "    - {name: a, cpu: \"4\"}\n    - {name: b, cpu: \"4\"}\n";
    let base = tainted_yaml(nodes, 4, "", "1m");
    let drain = |flags: &str| with_actions(&base, &[&format!("{{at: 20s, drain: \"a {flags}\"}}")]);
    let (sim, steps) = run_yaml(&drain("--pod-selector=app!=app"), 40);
    assert!(
        kubectl_said_at(&steps, 20)
            .starts_with("node/a cordoned; node/a drained: no pod on it is left to evict"),
        "{}",
        kubectl_said_at(&steps, 20)
    );
    assert_eq!(pods_per_node(&sim), "a=2 b=2");
    // Quotes keep a query with spaces one word, as a shell does.
    let (sim, _) = run_yaml(&drain("--pod-selector 'app notin (app)'"), 40);
    assert_eq!(pods_per_node(&sim), "a=2 b=2");
    let (sim, _) = run_yaml(&drain("--pod-selector='app in (app)'"), 60);
    assert_eq!(pods_per_node(&sim), "a=0 b=4");
    let (sim, _) = run_yaml(&drain("--pod-selector=app"), 60);
    assert_eq!(pods_per_node(&sim), "a=0 b=4");
    assert!(
        load_errors(&drain("--pod-selector=app=(x)"))
            .contains("--pod-selector=<pod_selector> must be a valid label selector"),
        "{}",
        load_errors(&drain("--pod-selector=app=(x)"))
    );
}

/// A pod whose containers have stopped for its deletion reports a terminal phase (Failed here:
/// its container exits on SIGTERM with a non-zero code), and then its ContainersReady and Ready
/// conditions are False with reason PodFailed (PodCompleted for Succeeded) and no message, as
/// `generateContainersReadyConditionForTerminalPhase` writes them.
#[test]
fn a_terminal_pod_is_not_ready_with_its_phases_reason() {
    use rolloutscope::sim::api::{PodConditionType, PodPhase};
    let nodes = "    - {name: a, cpu: \"4\"}\n";
    let yaml = with_actions(
        &tainted_yaml(nodes, 1, "", "1m"),
        &["{at: 20s, delete_pod: app-}"],
    );
    let mut sim = Scenario::parse(&yaml)
        .unwrap_or_else(|e| panic!("{e:?}"))
        .sim();
    let mut seen = Vec::new();
    while sim.step_until(Time::from_secs(60)).is_some() {
        for p in sim.store().pods.values() {
            let reason = match p.status.phase {
                PodPhase::Succeeded => "PodCompleted",
                PodPhase::Failed => "PodFailed",
                _ => continue,
            };
            for c in &p.status.conditions {
                if matches!(
                    c.type_,
                    PodConditionType::Ready | PodConditionType::ContainersReady
                ) {
                    seen.push((
                        c.status.as_str(),
                        c.reason.as_deref() == Some(reason),
                        c.message.is_none(),
                    ));
                }
            }
        }
    }
    assert_eq!(seen, [("False", true, true), ("False", true, true)]);
}

/// A pod quota does not charge pods stuck terminating on a lost node once their deletion
/// timestamp plus grace period has passed (`QuotaV1Pod`), from the quota controller's next
/// 5-minute recount: here the taint eviction deletes them at 360 s (grace 30 s, so free after
/// 420 s), the recount at 600 s frees the quota, and the ReplicaSet's next rate-limited retry
/// creates the replacements.
#[test]
fn a_quota_stops_charging_pods_stuck_terminating_on_a_lost_node() {
    let yaml = "cluster:\n  nodes:\n    - {name: a}\n    - {name: b}\n  quota: {pods: 4}\nimages:\n  app:1: {pull_time: 1s}\ndeployment:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: app}\n  spec:\n    replicas: 4\n    selector: {matchLabels: {app: app}}\n    template:\n      metadata: {labels: {app: app}}\n      spec:\n        containers:\n          - {name: app, image: app:1}\nactions:\n  - {at: 10s, fail_node: a}\nrun_until: 20m\n";
    let running = |sim: &Sim| {
        sim.store()
            .pods
            .values()
            .filter(|p| p.metadata.deletion_timestamp.is_none())
            .count()
    };
    let (sim, steps) = run_yaml(yaml, 599);
    assert_eq!(running(&sim), 2, "the quota still charges the stuck pods");
    assert!(
        steps
            .iter()
            .flat_map(|s| &s.events)
            .any(|e| e.message.contains("used: pods=4, limited: pods=4")),
        "the replacements are refused until then"
    );
    let (sim, _) = run_yaml(yaml, 20 * 60);
    assert_eq!(running(&sim), 4, "{}", pods_per_node(&sim));
    let replaced_at = sim
        .store()
        .pods
        .values()
        .map(|p| p.metadata.creation_timestamp)
        .max()
        .map(|t| t.as_millis() / 1000);
    assert!(replaced_at.is_some_and(|t| t >= 600), "{replaced_at:?}");
}

/// The taint eviction controller times every pod bound to the lost node, those already being
/// deleted too (`processPodOnNode` filters nothing): when the 300 s toleration runs out, each
/// gets the `Marking for deletion` event and the DisruptionTarget condition, and the delete
/// changes nothing for those already Terminating.
#[test]
fn taint_eviction_marks_pods_already_being_deleted_too() {
    let (sim, steps) = run_until("node-failure.yaml", 440);
    let on_node: Vec<_> = sim
        .store()
        .pods
        .values()
        .filter(|p| p.node_name == "node-2")
        .collect();
    assert_eq!(on_node.len(), 6, "{}", pods_per_node(&sim));
    for p in &on_node {
        let marked = disruption_target(p);
        assert_eq!(
            marked.and_then(|c| c.reason.as_deref()),
            Some("DeletionByTaintManager"),
            "{}",
            p.metadata.name
        );
    }
    let marking = steps
        .iter()
        .flat_map(|s| &s.events)
        .filter(|e| e.message.starts_with("Marking for deletion Pod default/"))
        .count();
    assert_eq!(marking, 6);
    assert!(narrated(
        &steps,
        "3 of them were already being deleted, so the delete changes nothing for them"
    ));
}

/// The scheduler's events are events.k8s.io records, aged from their eventTime to the
/// millisecond: `describe pod` and `get events` say 4s for a pod scheduled at 125.7 s, seen at
/// 130 s, as `kubectl events` does, and `describe` lists them first (no `lastTimestamp`).
#[test]
fn scheduler_events_are_aged_from_their_event_time() {
    let (sim, steps) = run_until("missing-configmap.yaml", 130);
    let scheduled_at = steps
        .iter()
        .filter(|s| s.events.iter().any(|e| e.reason == EventReason::Scheduled))
        .map(|s| s.time)
        .max()
        .expect("a pod is scheduled");
    let pod = steps
        .iter()
        .filter(|s| s.time == scheduled_at)
        .flat_map(|s| &s.events)
        .find(|e| e.reason == EventReason::Scheduled)
        .map(|e| e.involved_object.name.clone())
        .unwrap_or_default();
    assert!(scheduled_at.as_millis() % 1000 > 0, "{scheduled_at:?}");
    let m = Moment::new(&sim, &steps).at(Time::from_secs(130));
    let age = format!("{}s", (130_000 - scheduled_at.as_millis()) / 1000);
    let described = kubectl::describe_pod(&m, &pod).expect("described");
    let events: Vec<&str> = described
        .lines()
        .skip_while(|l| !l.starts_with("Events:"))
        .skip(3)
        .collect();
    assert!(
        events.first().is_some_and(
            |l| l.contains("Scheduled") && l.split_whitespace().nth(2) == Some(age.as_str())
        ),
        "{described}"
    );
    let listed = kubectl::get_events(&m);
    assert!(
        listed.lines().any(|l| l.starts_with(&format!("{age} "))
            && l.contains(&pod)
            && l.contains("Scheduled")),
        "{listed}"
    );
}

/// `kubectl events` keeps the API's name order among events seen at the same moment, as
/// kubectl's sort does for a dozen events or fewer: `<object>.<hex>`, so a pod's events come
/// before its ReplicaSet's and the Deployment's (`.` sorts after `-`).
#[test]
fn kubectl_events_ties_keep_name_order() {
    let (sim, steps) = run_until("crash-loop.yaml", 180);
    let m = Moment::new(&sim, &steps).at(Time::from_secs(180));
    let listed = kubectl::events(&m).expect("events");
    let first: Vec<&str> = listed
        .lines()
        .skip(1)
        .take(4)
        .filter_map(|l| l.split_whitespace().nth(2))
        .collect();
    assert_eq!(
        first,
        [
            "Scheduled",
            "Pulling",
            "SuccessfulCreate",
            "ScalingReplicaSet"
        ],
        "{listed}"
    );
}

/// `describeContainerEnvVars`: in a pod, a `fieldRef` to the pod's name or namespace shows its
/// value (kubectl's resolver takes no other path), and a `resourceFieldRef` shows the
/// container's quantity in whole divisors, rounded up, with `node allocatable` for a zero limit,
/// in the pod and in the Deployment's template alike.
#[test]
fn describe_shows_env_values_from_the_pod_and_its_resources() {
    let yaml = "cluster:\n  nodes:\n    - {name: a}\nimages:\n  app:1: {pull_time: 1s}\ndeployment:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: app}\n  spec:\n    replicas: 1\n    selector: {matchLabels: {app: app}}\n    template:\n      metadata: {labels: {app: app}}\n      spec:\n        containers:\n          - name: app\n            image: app:1\n            resources: {requests: {cpu: 250m, memory: 100M}}\n            env:\n              - {name: POD_NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}\n              - {name: NODE, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}\n              - {name: CPU_LIMIT, valueFrom: {resourceFieldRef: {resource: limits.cpu}}}\n              - {name: CPU_REQ, valueFrom: {resourceFieldRef: {resource: requests.cpu, divisor: 1m}}}\n              - {name: MEM_REQ, valueFrom: {resourceFieldRef: {resource: requests.memory, divisor: 1Mi}}}\nrun_until: 30s\n";
    let (sim, steps) = run_yaml(yaml, 30);
    let m = Moment::new(&sim, &steps).at(Time::from_secs(30));
    let pod = crate::first_pod(&sim);
    let described = kubectl::describe_pod(&m, &pod).expect("described");
    let env: Vec<String> = described
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("Environment:"))
        .skip(1)
        .take(5)
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(
        env,
        [
            format!("POD_NAME: {pod} (v1:metadata.name)"),
            "NODE: (v1:spec.nodeName)".to_string(),
            "CPU_LIMIT: node allocatable (limits.cpu)".to_string(),
            "CPU_REQ: 250 (requests.cpu)".to_string(),
            "MEM_REQ: 96 (requests.memory)".to_string(),
        ],
        "{described}"
    );
    let template = kubectl::describe_deployment(&m, "app").expect("described");
    let lines: Vec<String> = template
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    for line in [
        "POD_NAME: (v1:metadata.name)",
        "MEM_REQ: 96 (requests.memory)",
    ] {
        assert!(lines.iter().any(|l| l == line), "{template}");
    }
}
