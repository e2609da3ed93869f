//! Property tests over random specs and action sequences: the rolling-update bounds hold at every
//! step, healthy rollouts complete, traces are deterministic, a drain respects its disruption
//! budget, and no input makes the simulator panic.

use proptest::prelude::*;
use rolloutscope::sim::api::{EventReason, IntOrString, PodPhase};
use rolloutscope::sim::controller::deployment::util::{max_surge, max_unavailable};
use rolloutscope::sim::scenario::{self, Scenario};
use rolloutscope::sim::trace_text;

/// A maxSurge/maxUnavailable value as written in a manifest.
fn int_or_percent() -> impl Strategy<Value = IntOrString> {
    prop_oneof![
        (0i32..5).prop_map(IntOrString::Int),
        (0i32..=100).prop_map(|p| IntOrString::String(format!("{p}%"))),
    ]
}

fn yaml_value(v: &IntOrString) -> String {
    match v {
        IntOrString::Int(i) => i.to_string(),
        IntOrString::String(s) => format!("\"{s}\""),
    }
}

/// A healthy rolling-update scenario: `replicas` pods of web:1.0, plenty of capacity, and a
/// template change once the first rollout is long complete.
fn healthy(
    replicas: i32,
    surge: &IntOrString,
    unavailable: &IntOrString,
    min_ready: i32,
    probe: bool,
    seed: u64,
) -> String {
    let probe = if probe {
        "            readinessProbe: {httpGet: {path: /, port: 80}, periodSeconds: 3}\n"
    } else {
        ""
    };
    let (surge, unavailable) = (yaml_value(surge), yaml_value(unavailable));
    [
        format!("name: prop\nseed: {seed}"),
        "cluster:\n  nodes:".to_string(),
        "    - {name: a, cpu: \"32\", memory: 64Gi}".to_string(),
        "    - {name: b, cpu: \"32\", memory: 64Gi}".to_string(),
        "images:".to_string(),
        "  web:1.0: {pull_time: 1s, listen_after: 2s, shutdown: 1s}".to_string(),
        "  web:2.0: {pull_time: 2s, listen_after: 1s, shutdown: 3s}".to_string(),
        "deployment:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web}\n  spec:".to_string(),
        format!("    replicas: {replicas}\n    minReadySeconds: {min_ready}"),
        "    selector: {matchLabels: {app: web}}".to_string(),
        format!("    strategy:\n      rollingUpdate: {{maxSurge: {surge}, maxUnavailable: {unavailable}}}"),
        "    template:\n      metadata: {labels: {app: web}}\n      spec:\n        containers:".to_string(),
        "          - name: web\n            image: web:1.0".to_string(),
        format!("{probe}actions:\n  - {{at: 120s, set_image: web:2.0}}\nrun_until: complete\n"),
    ]
    .join("\n")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    /// During a rolling update started from a fully available Deployment, the ReplicaSets' spec
    /// replicas never exceed replicas + maxSurge, the available pods never drop below
    /// replicas − maxUnavailable, and the rollout completes.
    #[test]
    fn rolling_update_respects_max_surge_and_max_unavailable(
        replicas in 1i32..24,
        surge in int_or_percent(),
        unavailable in int_or_percent(),
        min_ready in 0i32..4,
        probe in any::<bool>(),
        seed in 0u64..(i64::MAX as u64),
    ) {
        let both_zero = surge.raw_number() == Some(0) && unavailable.raw_number() == Some(0);
        prop_assume!(!both_zero);
        let sc = Scenario::parse(&healthy(replicas, &surge, &unavailable, min_ready, probe, seed))
            .map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        let mut violations = Vec::new();
        let run = scenario::run_with(&sc, |step, sim| {
            if step.time.as_millis() < 120_000 {
                return;
            }
            let store = sim.store();
            let Some(d) = store.deployments.get("web") else { return };
            let total: i32 = store.replica_sets.values().map(|rs| rs.spec.replicas).sum();
            let bound = d.replicas() + max_surge(d);
            if total > bound {
                violations.push(format!("step {}: ReplicaSets hold {total} > {bound}", step.index));
            }
            let now = sim.now();
            let available = store
                .pods
                .values()
                .filter(|p| p.is_active() && p.is_available(d.spec.min_ready_seconds, now))
                .count() as i32;
            let floor = d.replicas() - max_unavailable(d);
            if available < floor {
                violations.push(format!("step {}: {available} available < {floor}", step.index));
            }
        });
        prop_assert!(violations.is_empty(), "{}", violations.join("\n"));
        prop_assert_eq!(run.stopped.as_str(), "the rollout is complete");
    }

    /// The same scenario text gives a byte-identical trace.
    #[test]
    fn traces_are_deterministic(replicas in 1i32..12, seed in 0u64..(i64::MAX as u64), surge in int_or_percent()) {
        let text = healthy(replicas, &surge, &IntOrString::Int(1), 0, true, seed);
        prop_assert_eq!(trace_text(&text), trace_text(&text));
    }

    /// Random scenario text, random manifests and random actions never make the loader or the
    /// simulator panic, and runs always end.
    #[test]
    fn no_input_panics(
        replicas in -3i64..40,
        image in prop_oneof![Just("web:1.0"), Just("web:bad"), Just(""), Just("nginx")],
        pull in prop_oneof![Just("ok"), Just("fail"), Just("maybe")],
        ready in prop_oneof![Just("always"), Just("never"), Just("after 5s"), Just("soon")],
        crash in prop_oneof![Just(""), Just("crash_after: 4s, "), Just("crash_after: 0s, ")],
        actions in proptest::collection::vec((0u32..200, 0usize..12, -2i64..30), 0..6),
        cpu in prop_oneof![Just("\"1\""), Just("100m"), Just("0"), Just("abc")],
        budget in prop_oneof![Just(""), Just("{minAvailable: 2}"), Just("{maxUnavailable: \"50%\"}"), Just("{minAvailable: -1}")],
        seed in 0u64..(i64::MAX as u64),
    ) {
        let verbs = ["scale: {n}", "set_image: web:{n}", "rollout_undo: {}", "pause: {}", "resume: {}",
            "rollout_restart: {}", "cordon: a", "uncordon: a", "delete_pod: web", "rollout_undo: {to_revision: {n}}",
            "drain: a", "drain: \"a --delete-emptydir-data\""];
        let budget = if budget.is_empty() {
            String::new()
        } else {
            format!("\n  podDisruptionBudgets:\n    - {{apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {{name: web}}, spec: {}}}",
                budget.replace('}', ", selector: {matchLabels: {app: web}}}"))
        };
        let mut acts = String::new();
        for (at, v, n) in &actions {
            acts.push_str(&format!("  - {{at: {at}s, {}}}\n", verbs[*v].replace("{n}", &n.to_string())));
        }
        let text = [
            format!("seed: {seed}\ncluster:\n  nodes:\n    - {{name: a, cpu: {cpu}, memory: 4Gi}}{budget}"),
            format!("images:\n  {image}: {{pull: {pull}, ready: {ready}, {crash}listen_after: 2s}}"),
            "deployment:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web}\n  spec:".to_string(),
            format!("    replicas: {replicas}\n    progressDeadlineSeconds: 30"),
            "    selector: {matchLabels: {app: web}}".to_string(),
            "    template:\n      metadata: {labels: {app: web}}\n      spec:\n        containers:".to_string(),
            format!("          - name: web\n            image: \"{image}\""),
            "            resources: {requests: {cpu: 300m}}".to_string(),
            "            readinessProbe: {tcpSocket: {port: 80}}".to_string(),
            "            livenessProbe: {httpGet: {port: 80}, failureThreshold: 1}".to_string(),
            format!("actions:\n{acts}run_until: 5m\n"),
        ]
        .join("\n");
        if let Ok(sc) = Scenario::parse(&text) {
            let run = scenario::run_with(&sc, |_, _| {});
            prop_assert!(run.sim.now().as_millis() <= 300_000);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// A drain under a PodDisruptionBudget never evicts the pods it covers below the budget:
    /// from the drain on, the pods that are Ready and not being deleted never number fewer than
    /// the budget's desired healthy pods (every pod here turns Ready as it starts, so only
    /// evictions could take them down), and the drain ends with the node empty.
    #[test]
    fn a_drain_never_evicts_below_the_budget(
        replicas in 2usize..9,
        nodes in 2usize..5,
        bound in prop_oneof![
            (1usize..8).prop_map(|n| format!("minAvailable: {n}")),
            (0usize..=100).prop_map(|p| format!("maxUnavailable: \"{p}%\"")),
            (1usize..3).prop_map(|n| format!("maxUnavailable: {n}")),
        ],
        seed in 0u64..(i64::MAX as u64),
    ) {
        let node_list: String = (0..nodes)
            .map(|i| format!("    - {{name: n{i}, cpu: \"8\", memory: 16Gi}}\n"))
            .collect();
        let text = format!(
            "seed: {seed}\ncluster:\n  nodes:\n{node_list}  podDisruptionBudgets:\n    - {{apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {{name: web}}, spec: {{{bound}, selector: {{matchLabels: {{app: web}}}}}}}}\nimages:\n  web:1.0: {{pull_time: 1s, shutdown: 3s}}\ndeployment:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {{name: web}}\n  spec:\n    replicas: {replicas}\n    selector: {{matchLabels: {{app: web}}}}\n    template:\n      metadata: {{labels: {{app: web}}}}\n      spec:\n        containers:\n          - {{name: web, image: web:1.0, resources: {{requests: {{cpu: 100m}}}}}}\nactions:\n  - {{at: 30s, drain: n0}}\nrun_until: 3m\n"
        );
        let sc = Scenario::parse(&text).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        let mut violations = Vec::new();
        let mut drained = false;
        let run = scenario::run_with(&sc, |step, sim| {
            drained |= step.narration.contains("node/n0 drained");
            if step.time.as_millis() < 30_000 {
                return;
            }
            let healthy = sim
                .store()
                .pods
                .values()
                .filter(|p| p.metadata.deletion_timestamp.is_none() && p.is_ready())
                .count() as i32;
            let desired = sim.store().pdbs["web"].status.desired_healthy;
            // A budget the pods could never meet (minAvailable above the replicas) allows no
            // eviction at all, so it can be under water without any eviction's help.
            if desired <= replicas as i32 && healthy < desired {
                violations.push(format!("step {} at {}: {healthy} healthy < {desired}", step.index, step.time.as_millis()));
            }
        });
        prop_assert!(violations.is_empty(), "{violations:?}");
        let budget_allows = |desired: i32| desired < replicas as i32;
        let desired = run.sim.store().pdbs["web"].status.desired_healthy;
        if budget_allows(desired) {
            prop_assert!(drained, "the drain ends (desired {desired} of {replicas})");
            prop_assert!(run.sim.store().pods.values().all(|p| p.node_name != "n0"));
        }
    }
}

/// Regression: with maxUnavailable 0, an old ReplicaSet whose status still counted a pod it had
/// just deleted let a second scale-down through, and availability dipped to 9 of 10. Upstream's
/// cleanupUnhealthyReplicas refuses such a pass; so must we.
#[test]
fn stale_old_replica_set_status_does_not_break_max_unavailable_zero() {
    let text = healthy(
        10,
        &IntOrString::String("71%".into()),
        &IntOrString::Int(0),
        0,
        false,
        0,
    );
    let sc = Scenario::parse(&text).expect("valid scenario");
    let mut lowest = i32::MAX;
    let run = scenario::run_with(&sc, |step, sim| {
        if step.time.as_millis() >= 120_000 {
            let now = sim.now();
            let available = sim
                .store()
                .pods
                .values()
                .filter(|p| p.is_active() && p.is_available(0, now))
                .count() as i32;
            lowest = lowest.min(available);
        }
    });
    assert_eq!(run.stopped, "the rollout is complete");
    assert_eq!(
        lowest, 10,
        "available pods must never drop below 10 with maxUnavailable 0"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, .. ProptestConfig::default() })]

    /// For any crash timing, each restart follows the CrashLoopBackOff sequence: the first
    /// restart is immediate, then 10 s, 20 s, 40 s … capped at 300 s after the exit, plus at most
    /// the pod worker's jitter (half of the wait, which is itself capped at 60 s), and every
    /// restart adds exactly one to restartCount.
    #[test]
    fn restarts_follow_the_crash_loop_back_off(crash_after in 1u64..90, seed in 0u64..(i64::MAX as u64)) {
        let text = [
            format!("seed: {seed}\ncluster:\n  nodes:\n    - {{name: a, cpu: \"4\", memory: 8Gi}}"),
            format!("images:\n  app:1: {{crash_after: {crash_after}s}}"),
            "deployment:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: app}\n  spec:".to_string(),
            "    replicas: 1\n    selector: {matchLabels: {app: app}}".to_string(),
            "    template:\n      metadata: {labels: {app: app}}\n      spec:\n        containers:".to_string(),
            "          - name: app\n            image: app:1".to_string(),
            "run_until: 25m\n".to_string(),
        ]
        .join("\n");
        let sc = Scenario::parse(&text).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        let mut starts = Vec::new();
        let mut restart_counts = Vec::new();
        scenario::run_with(&sc, |step, sim| {
            if step.events.iter().any(|e| e.message == "Container started") {
                starts.push(step.time.as_millis());
                if let Some(p) = sim.store().pods.values().next() {
                    restart_counts.push(p.max_restarts());
                }
            }
        });
        prop_assert!(starts.len() >= 4, "a crash-looping container restarts repeatedly: {starts:?}");
        for (k, pair) in starts.windows(2).enumerate() {
            let exit = pair[0] + crash_after * 1000;
            let gap = pair[1] - exit;
            let backoff: u64 = if k == 0 { 0 } else { (10_000u64 << (k - 1).min(5)).min(300_000) };
            let slack = backoff.min(60_000) / 2 + 1_000;
            prop_assert!(gap >= backoff, "restart {} came {gap} ms after the exit, before the {backoff} ms back-off", k + 1);
            prop_assert!(gap <= backoff + slack, "restart {} came {gap} ms after the exit, later than {backoff} + {slack} ms", k + 1);
        }
        for (i, n) in restart_counts.iter().enumerate() {
            prop_assert_eq!(*n as usize, i, "restartCount after start {}", i + 1);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A scale-down sorts only the pods it deletes: the partial merge sort must leave in front
    /// exactly what the full one does, even for a comparison that is not a strict weak order (as
    /// the deletion ranking is not).
    #[test]
    fn a_partial_merge_sort_agrees_with_the_full_one(
        keys in proptest::collection::vec((0u8..4, 0u8..16), 0..90),
        k in 0usize..100,
    ) {
        use rolloutscope::sim::controller::replica_set::{merge_sort_by_less, merge_sort_prefix_by_less};
        // Same bucket compares by the second number, otherwise by bucket, and equal pairs tie:
        // intransitive on purpose.
        let less = |a: &(u8, u8), b: &(u8, u8)| {
            if a == b {
                false
            } else if a.0.abs_diff(b.0) <= 1 {
                a.1 < b.1
            } else {
                a.0 < b.0
            }
        };
        let indexed: Vec<(usize, (u8, u8))> = keys.iter().copied().enumerate().collect();
        let less_idx = |a: &(usize, (u8, u8)), b: &(usize, (u8, u8))| less(&a.1, &b.1);
        let mut full = indexed.clone();
        merge_sort_by_less(&mut full, &less_idx);
        let mut part = indexed;
        merge_sort_prefix_by_less(&mut part, k, &less_idx);
        let n = k.min(full.len());
        prop_assert_eq!(&part[..n], &full[..n]);
    }
}

/// Ranking facts whose fields collide often: a few nodes (two of them with the same co-location
/// count, one unassigned), every phase, few deletion costs, Ready times that tie, share an age
/// bucket or fall just apart (or are missing while Ready), and UIDs that repeat or are prefixes
/// of one another.
fn colliding_facts() -> impl Strategy<Value = Vec<rolloutscope::sim::store::RankFacts>> {
    use rolloutscope::sim::api::{PodPhase, Time};
    use rolloutscope::sim::store::RankFacts;
    use std::sync::Arc;
    let nodes: Vec<Arc<str>> = ["", "a", "b", "c"].into_iter().map(Arc::from).collect();
    let uids: Vec<Arc<str>> = [
        "",
        "u",
        "u1",
        "u2",
        "u10",
        "0123456789abcdef",
        "0123456789abcdef0",
    ]
    .into_iter()
    .map(Arc::from)
    .collect();
    let phases = [
        PodPhase::Pending,
        PodPhase::Running,
        PodPhase::Unknown,
        PodPhase::Failed,
    ];
    let times = [
        0, 9_000_000, 9_990_000, 9_995_000, 9_999_000, 9_999_500, 10_000_000, 10_000_100,
    ];
    let fact = (
        0..nodes.len(),
        0..phases.len(),
        any::<bool>(),
        0..times.len() + 1,
        prop_oneof![Just(0), Just(-5), Just(7)],
        0i32..3,
        0..times.len(),
        0..uids.len(),
        0i32..2,
    )
        .prop_map(
            move |(node, phase, ready, ready_time, cost, restarts, creation, uid, sidecar)| {
                RankFacts {
                    node: Arc::clone(&nodes[node]),
                    // Not read: `rank_pods_to_delete` is given the counts by node name.
                    node_index: usize::MAX,
                    phase: phases[phase],
                    ready,
                    ready_time: times.get(ready_time).map(|t| Time(*t)),
                    deletion_cost: cost,
                    max_restarts: restarts,
                    max_sidecar_restarts: sidecar,
                    creation: Time(times[creation]),
                    uid: Arc::clone(&uids[uid]),
                }
            },
        );
    proptest::collection::vec(fact, 0..260)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// A scale-down ranks only the lead groups it takes from, yet must pick exactly the pods,
    /// in exactly the order, that ranking every pod picks: for up to 16 pods, repeated scans of
    /// every pod left for the lowest with `less` (the earliest on ties); for more, the front of
    /// the merge sort of every pod with `less`. The ranking is not a total order, so this holds
    /// only if every decision that matters is the same.
    #[test]
    fn ranking_by_lead_groups_agrees_with_ranking_every_pod(
        facts in colliding_facts(),
        diff_at in 0usize..1000,
    ) {
        use rolloutscope::sim::api::Time;
        use rolloutscope::sim::controller::replica_set::{
            RankKey, less, merge_sort_prefix_by_less, rank_pods_to_delete,
        };
        let now = Time(10_000_000);
        // "a" and "b" have the same count, "c" another and the unassigned pods none.
        let rank_of = |node: &str| match node {
            "a" | "b" => 3,
            "c" => 1,
            _ => 0,
        };
        // Small counts, counts around the 16 where the paths meet, and large ones.
        let n = facts.len();
        let diff = match diff_at % 4 {
            0 => diff_at % 20,
            1 => 14 + diff_at % 6,
            _ => diff_at % (n + 2),
        };
        let refs: Vec<&rolloutscope::sim::store::RankFacts> = facts.iter().collect();
        let got = rank_pods_to_delete(&refs, &rank_of, diff, now);
        let keys: Vec<RankKey> = facts.iter().map(|f| RankKey::of(f, rank_of(&f.node))).collect();
        let less_at = |a: &usize, b: &usize| less(&keys[*a], &keys[*b], Some(now));
        let want: Vec<usize> = if diff >= n {
            (0..n).collect()
        } else if diff <= 16 {
            let mut left: Vec<usize> = (0..n).collect();
            let mut picked = Vec::new();
            for _ in 0..diff {
                let mut best = 0;
                for i in 1..left.len() {
                    if less_at(&left[i], &left[best]) {
                        best = i;
                    }
                }
                picked.push(left.remove(best));
            }
            picked
        } else {
            let mut order: Vec<usize> = (0..n).collect();
            merge_sort_prefix_by_less(&mut order, diff, &less_at);
            order.truncate(diff);
            order
        };
        prop_assert_eq!(got, want, "n {}, diff {}", n, diff);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    /// For any mix of plain init containers and sidecars, with any run times, failures and
    /// startup probes: no app container starts before every plain init container has exited
    /// with code 0 and every sidecar has started; a plain init container starts only after those
    /// before it are done; the pod stays Pending until it is initialized; and the run never
    /// panics.
    #[test]
    fn init_containers_gate_the_app_containers(
        inits in proptest::collection::vec((any::<bool>(), 0u64..6, any::<bool>(), any::<bool>()), 1..4),
        seed in 0u64..(i64::MAX as u64),
    ) {
        let mut images = vec!["  app:1: {listen_after: 1s}".to_string()];
        let mut containers = Vec::new();
        for (i, (sidecar, secs, fails, probe)) in inits.iter().enumerate() {
            // A plain init container that fails exits with code 1 on every run, so the pod never
            // initializes; one that succeeds completes after `secs`. A sidecar listens after
            // `secs`, which its startup probe, when it has one, waits for.
            let behaviour = match (sidecar, fails) {
                (false, true) => format!("{{crash_after: {secs}s, exit_code: 1}}"),
                (false, false) => format!("{{complete_after: {secs}s}}"),
                (true, _) => format!("{{listen_after: {secs}s}}"),
            };
            images.push(format!("  init{i}:1: {behaviour}"));
            let mut c = format!("          - name: init{i}\n            image: init{i}:1");
            if *sidecar {
                c.push_str("\n            restartPolicy: Always");
                if *probe {
                    c.push_str("\n            startupProbe: {tcpSocket: {port: 9000}, periodSeconds: 1, failureThreshold: 30}");
                }
            }
            containers.push(c);
        }
        let text = [
            format!("seed: {seed}\ncluster:\n  nodes:\n    - {{name: a, cpu: \"4\", memory: 8Gi}}"),
            format!("images:\n{}", images.join("\n")),
            "deployment:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: app}\n  spec:".to_string(),
            "    replicas: 1\n    selector: {matchLabels: {app: app}}".to_string(),
            "    template:\n      metadata: {labels: {app: app}}\n      spec:\n        initContainers:".to_string(),
            containers.join("\n"),
            "        containers:\n          - name: app\n            image: app:1".to_string(),
            "run_until: 3m\n".to_string(),
        ]
        .join("\n");
        let sc = Scenario::parse(&text).map_err(|e| TestCaseError::fail(format!("{e:?}\n{text}")))?;
        let never_initializes = inits.iter().any(|(sidecar, _, fails, _)| !sidecar && *fails);
        let mut app_started = false;
        let mut failure = None;
        scenario::run_with(&sc, |step, sim| {
            if failure.is_some() {
                return;
            }
            let Some(p) = sim.store().pods.values().next() else { return };
            let done = |i: usize, cs: &rolloutscope::sim::api::ContainerStatus| {
                if inits[i].0 {
                    cs.started
                } else {
                    cs.succeeded()
                }
            };
            let initialized = p.status.init_container_statuses.len() == inits.len()
                && p.status.init_container_statuses.iter().enumerate().all(|(i, cs)| done(i, cs));
            for e in &step.events {
                let path = e.involved_object.field_path.as_deref().unwrap_or("");
                if e.reason != EventReason::Started {
                    continue;
                }
                if path == "spec.containers{app}" {
                    app_started = true;
                    if !initialized && !p.status.container_statuses.iter().any(|c| c.restart_count > 0) {
                        failure = Some(format!("app started at {} before the pod initialized", step.time.as_millis()));
                    }
                }
                if let Some(i) = path
                    .strip_prefix("spec.initContainers{init")
                    .and_then(|rest| rest.strip_suffix('}'))
                    .and_then(|n| n.parse::<usize>().ok())
                {
                    let before_done = p.status.init_container_statuses[..i]
                        .iter()
                        .enumerate()
                        .all(|(j, cs)| done(j, cs));
                    if !before_done && !app_started {
                        failure = Some(format!("init{i} started at {} before those before it were done", step.time.as_millis()));
                    }
                }
            }
            if !app_started && p.status.phase != PodPhase::Pending && !p.status.init_container_statuses.is_empty() {
                failure = Some(format!("phase {:?} before the app started", p.status.phase));
            }
        });
        prop_assert!(failure.is_none(), "{}\n{text}", failure.unwrap_or_default());
        prop_assert_eq!(app_started, !never_initializes, "{}", text);
    }
}

/// A scenario whose pods carry one topology spread constraint, over `nodes` nodes spread
/// round-robin over `zones` zones, with a scale, a cordon, a template change and an uncordon.
#[allow(clippy::too_many_arguments)]
fn spread_scenario(
    seed: u64,
    nodes: usize,
    zones: usize,
    by_zone: bool,
    max_skew: i32,
    hard: bool,
    replicas: i32,
    scaled: i32,
    cordoned: usize,
) -> String {
    let mut lines = vec![format!("name: spread\nseed: {seed}\ncluster:\n  nodes:")];
    for i in 0..nodes {
        lines.push(format!(
            "    - {{name: n{i}, cpu: \"8\", memory: 16Gi, labels: {{topology.kubernetes.io/zone: z{}}}}}",
            i % zones
        ));
    }
    let key = if by_zone {
        "topology.kubernetes.io/zone"
    } else {
        "kubernetes.io/hostname"
    };
    let when = if hard {
        "DoNotSchedule"
    } else {
        "ScheduleAnyway"
    };
    lines.extend([
        "images:\n  web:1.0: {pull_time: 1s}\n  web:2.0: {pull_time: 1s, shutdown: 2s}".to_string(),
        "deployment:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web}\n  spec:".to_string(),
        format!("    replicas: {replicas}\n    selector: {{matchLabels: {{app: web}}}}"),
        "    template:\n      metadata: {labels: {app: web}}\n      spec:".to_string(),
        format!("        topologySpreadConstraints: [{{maxSkew: {max_skew}, topologyKey: {key}, whenUnsatisfiable: {when}, labelSelector: {{matchLabels: {{app: web}}}}}}]"),
        "        containers:\n          - name: web\n            image: web:1.0\n            resources: {requests: {cpu: 500m}}".to_string(),
        format!("actions:\n  - {{at: 30s, scale: {scaled}}}\n  - {{at: 45s, cordon: n{cordoned}}}\n  - {{at: 60s, set_image: web:2.0}}\n  - {{at: 150s, uncordon: n{cordoned}}}"),
        "run_until: 5m\n".to_string(),
    ]);
    lines.join("\n")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// PodTopologySpread's filter, checked from outside: every pod bound under a DoNotSchedule
    /// constraint lands in a domain whose matching pods, with it, exceed the fewest in any
    /// domain (as the step before saw them) by at most maxSkew. Every node carries both keys and
    /// the policies are the defaults, so every zone (or node) is a domain. Nothing panics, and
    /// the trace repeats.
    #[test]
    fn spread_constraints_hold_at_every_bind(
        seed in 0u64..1_000_000,
        nodes in 2usize..6,
        zones in 1usize..4,
        by_zone: bool,
        max_skew in 1i32..4,
        hard: bool,
        replicas in 1i32..9,
        scaled in 0i32..12,
        cordoned in 0usize..6,
    ) {
        let text = spread_scenario(seed, nodes, zones, by_zone, max_skew, hard, replicas, scaled, cordoned % nodes);
        let sc = Scenario::parse(&text).map_err(|e| TestCaseError::fail(format!("{e:?}\n{text}")))?;
        let key = if by_zone { "topology.kubernetes.io/zone" } else { "kubernetes.io/hostname" };
        // The matching pods per domain as the previous step left them.
        let mut before: Option<std::collections::BTreeMap<String, i64>> = None;
        let mut violations = Vec::new();
        scenario::run_with(&sc, |step, sim| {
            let store = sim.store();
            let domain_of = |node: &str| store.nodes.get(node).and_then(|n| n.metadata.labels.get(key)).cloned();
            let mut counts: std::collections::BTreeMap<String, i64> = store
                .nodes
                .values()
                .filter_map(|n| n.metadata.labels.get(key).map(|v| (v.clone(), 0)))
                .collect();
            for p in store.pods.values() {
                if !p.node_name.is_empty() && p.metadata.deletion_timestamp.is_none()
                    && let Some(d) = domain_of(&p.node_name)
                {
                    *counts.entry(d).or_default() += 1;
                }
            }
            if hard && let Some(prev) = &before {
                for e in step.events.iter().filter(|e| e.reason == EventReason::Scheduled) {
                    let node = e.message.rsplit(' ').next().unwrap_or_default();
                    let d = domain_of(node).unwrap_or_default();
                    let min = prev.values().copied().min().unwrap_or(0);
                    let with_it = prev.get(&d).copied().unwrap_or(0) + 1;
                    if with_it - min > i64::from(max_skew) {
                        violations.push(format!("step {}: {} to {node} ({d}): {with_it} against a fewest of {min} ({prev:?})", step.index, e.involved_object.name));
                    }
                }
            }
            before = Some(counts);
        });
        prop_assert!(violations.is_empty(), "{violations:?}\n{text}");
        prop_assert_eq!(trace_text(&text), trace_text(&text));
    }
}
