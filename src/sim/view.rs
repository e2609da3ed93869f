//! Views: read-only rows derived from the cluster state for printing and rendering — the
//! Deployment's counts and conditions, one row per ReplicaSet and per Pod — in the shape of the
//! trace's JSON lines. The UI and the command-line runner read these, never the store.

use super::api::{Deployment, Pod, ReplicaSet};
use super::controller::deployment::util::{REVISION_ANNOTATION, max_surge, max_unavailable};
use super::engine::Sim;
use super::kubelet::PodRuntime;
use super::trace::Step;
use crate::sim::order;
use serde::Serialize;

/// A condition row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ConditionView {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    pub reason: String,
    pub message: String,
}

/// The Deployment's numbers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DeploymentView {
    pub name: String,
    pub generation: i64,
    pub observed_generation: i64,
    pub spec_replicas: i32,
    pub replicas: i32,
    pub updated_replicas: i32,
    pub ready_replicas: i32,
    pub available_replicas: i32,
    pub unavailable_replicas: i32,
    pub max_surge: i32,
    pub max_unavailable: i32,
    pub revision: String,
    pub paused: bool,
    pub conditions: Vec<ConditionView>,
}

/// One ReplicaSet row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReplicaSetView {
    pub name: String,
    pub uid: String,
    pub revision: String,
    pub image: String,
    /// The init containers' images, joined with `,` (empty without init containers): a rollout
    /// may change only these, and the lanes must still tell the revisions apart.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub init_images: String,
    pub replicas: i32,
    pub status_replicas: i32,
    pub ready_replicas: i32,
    pub available_replicas: i32,
    /// Whether its template is the Deployment's current one.
    pub current: bool,
}

impl ReplicaSetView {
    /// Its images as a person tells revisions apart by them: `web:1.0`, or with init
    /// containers `web:1.0 · init migrate:1.0`, in the order of the rollback's narration
    /// ([`crate::sim::api::PodSpec::images_with_init`]).
    pub fn images_label(&self) -> String {
        if self.init_images.is_empty() {
            self.image.clone()
        } else {
            format!("{} · init {}", self.image, self.init_images)
        }
    }
}

/// What a pod's chip shows for one probe of its first app container.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum ProbeMark {
    /// The container has no such probe, so there is nothing to show.
    #[default]
    Absent,
    /// The probe exists but has no result for the running container yet.
    NotRun,
    Passed,
    Failed,
}

impl ProbeMark {
    /// The mark of a probe that exists (`defined`) with this last observed result.
    fn of(defined: bool, last_observed: Option<bool>) -> Self {
        match (defined, last_observed) {
            (false, _) => ProbeMark::Absent,
            (true, None) => ProbeMark::NotRun,
            (true, Some(true)) => ProbeMark::Passed,
            (true, Some(false)) => ProbeMark::Failed,
        }
    }
}

/// The marks of the three probes of a pod's first app container.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ProbeGlyphs {
    pub startup: ProbeMark,
    pub readiness: ProbeMark,
    pub liveness: ProbeMark,
}

/// One Pod row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PodView {
    pub name: String,
    pub uid: String,
    pub replica_set: String,
    pub node: String,
    pub phase: String,
    pub ready: bool,
    pub restarts: i32,
    /// kubectl's STATUS column.
    pub status: String,
    pub terminating: bool,
    pub probes: ProbeGlyphs,
}

/// A Node row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NodeView {
    pub name: String,
    pub ready: bool,
    /// Its kubelet has stopped (a fault); the node stays Ready until the node controller's
    /// grace period runs out.
    pub kubelet_down: bool,
    pub unschedulable: bool,
    /// Its `topology.kubernetes.io/zone` label, which zone spreading reads.
    pub zone: Option<String>,
    /// The taints the scenario gave it, as `kubectl describe node` prints them.
    pub taints: Vec<String>,
    pub milli_cpu_requested: i64,
    pub milli_cpu_allocatable: i64,
    pub memory_requested: i64,
    pub memory_allocatable: i64,
    pub pods: i64,
    /// What a `kubectl drain` of the node still waits for, in words, while one runs.
    pub drain: Option<String>,
}

/// A drain in progress on `node`, as its node card says it: the evictions a budget refused and
/// the evicted pods still terminating, over every `kubectl drain` of the node.
fn drain_note(store: &super::store::Store, node: &str) -> Option<String> {
    // Two drains of one node may wait for the same pod: each pod counts once.
    let (mut refused, mut going, mut deleted) = (
        std::collections::BTreeSet::new(),
        std::collections::BTreeSet::new(),
        std::collections::BTreeSet::new(),
    );
    for d in store.drains.iter().filter(|d| d.node == node) {
        refused.extend(d.pending.iter());
        // A `--disable-eviction` drain deleted its pods rather than evicting them.
        let names = d.pods.iter().map(|(name, _)| name);
        if d.flags.disable_eviction {
            deleted.extend(names);
        } else {
            going.extend(names);
        }
    }
    going.retain(|n| !deleted.contains(n));
    // The budgets over the refused pods that can never allow one at this size.
    let stuck: std::collections::BTreeSet<&str> = refused
        .iter()
        .filter_map(|n| store.pods.get(n.as_str()))
        .flat_map(|p| {
            store
                .pdbs
                .values()
                .filter(|b| b.selects(&p.metadata.labels))
        })
        .filter(|b| super::drain::blocks_for_good(&b.status))
        .map(|b| b.metadata.name.as_str())
        .collect();
    let (refused, going, deleted) = (refused.len(), going.len(), deleted.len());
    if refused + going + deleted == 0 {
        return None;
    }
    let mut parts = Vec::new();
    for (n, verb) in [(going, "evicted"), (deleted, "deleted")] {
        if n > 0 {
            parts.push(format!(
                "{n} {verb} pod{} still terminating",
                super::trace::plural(n as i64)
            ));
        }
    }
    if refused > 0 {
        parts.push(format!(
            "{refused} eviction{} refused by a PodDisruptionBudget, retried every {} s",
            super::trace::plural(refused as i64),
            super::drain::RETRY_MS / 1000
        ));
    }
    if !stuck.is_empty() {
        parts.push(format!(
            "{} {} no disruption at this size",
            stuck.iter().copied().collect::<Vec<_>>().join(", "),
            if stuck.len() == 1 { "allows" } else { "allow" }
        ));
    }
    // A drain with a --timeout gives up at a known moment, which a trainer may want to point at.
    let gives_up = store
        .drains
        .iter()
        .filter(|d| d.node == node)
        .filter_map(|d| d.gives_up_at())
        .min();
    if let Some(at) = gives_up {
        parts.push(format!(
            "gives up at {} (--timeout)",
            super::kubelet::go_duration(at.as_millis())
        ));
    }
    Some(format!("kubectl drain waits: {}", parts.join("; ")))
}

/// The pods of one ReplicaSet as its lane counts them: how many, how many are ready, and how
/// many show each kubectl STATUS (in STATUS order). A lane too big for a chip per pod shows these
/// counts instead.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LaneCounts {
    pub replica_set: String,
    pub total: usize,
    pub ready: usize,
    pub by_status: Vec<(String, usize)>,
}

impl LaneCounts {
    /// The counts of a lane from each pod's kubectl STATUS and readiness.
    fn tally<'a>(
        replica_set: &str,
        pods: impl Iterator<Item = (std::borrow::Cow<'a, str>, bool)>,
    ) -> LaneCounts {
        let mut counts = LaneCounts {
            replica_set: replica_set.to_string(),
            ..LaneCounts::default()
        };
        let mut by_status = std::collections::BTreeMap::<std::borrow::Cow<'a, str>, usize>::new();
        for (status, ready) in pods {
            counts.total += 1;
            counts.ready += usize::from(ready);
            *by_status.entry(status).or_default() += 1;
        }
        counts.by_status = by_status
            .into_iter()
            .map(|(s, n)| (s.into_owned(), n))
            .collect();
        counts
    }

    /// One line: `1000 pods (998 ready): 2 ContainerCreating, 998 Running`.
    pub fn summary(&self) -> String {
        let parts: Vec<String> = self
            .by_status
            .iter()
            .map(|(s, n)| format!("{n} {s}"))
            .collect();
        format!(
            "{} pods ({} ready): {}",
            self.total,
            self.ready,
            parts.join(", ")
        )
    }
}

/// Everything a panel shows at one moment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ClusterView {
    pub deployment: Option<DeploymentView>,
    pub replica_sets: Vec<ReplicaSetView>,
    /// Pod rows: every pod's ([`ClusterView::of`]), or only those of the lanes drawn pod by pod
    /// ([`ClusterView::for_lanes`]); in name order either way.
    pub pods: Vec<PodView>,
    /// The pod counts of each ReplicaSet, in the order of `replica_sets`.
    pub lanes: Vec<LaneCounts>,
    pub nodes: Vec<NodeView>,
}

/// An event row of a step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EventView {
    #[serde(rename = "type")]
    pub type_: String,
    pub reason: String,
    pub object: String,
    pub message: String,
    /// The recorder's spam filter kept it from the API server (absent when false).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dropped: bool,
}

/// One JSON line of the trace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StepRecord {
    pub step: usize,
    pub time_ms: u64,
    pub stage: u8,
    pub actor: String,
    pub object: String,
    pub narration: String,
    pub deployment: Option<DeploymentView>,
    pub replica_sets: Vec<ReplicaSetView>,
    pub pods: Vec<PodView>,
    pub events: Vec<EventView>,
}

fn deployment_view(d: &Deployment) -> DeploymentView {
    DeploymentView {
        name: d.metadata.name.clone(),
        generation: d.metadata.generation,
        observed_generation: d.status.observed_generation,
        spec_replicas: d.replicas(),
        replicas: d.status.replicas,
        updated_replicas: d.status.updated_replicas,
        ready_replicas: d.status.ready_replicas,
        available_replicas: d.status.available_replicas,
        unavailable_replicas: d.status.unavailable_replicas,
        max_surge: max_surge(d),
        max_unavailable: max_unavailable(d),
        revision: d
            .metadata
            .annotations
            .get(REVISION_ANNOTATION)
            .cloned()
            .unwrap_or_default(),
        paused: d.spec.paused,
        conditions: d
            .status
            .conditions
            .iter()
            .map(|c| ConditionView {
                type_: c.type_.as_str().to_string(),
                status: c.status.as_str().to_string(),
                reason: c.reason.as_str().to_string(),
                message: c.message.clone(),
            })
            .collect(),
    }
}

fn replica_set_view(rs: &ReplicaSet, d: Option<&Deployment>) -> ReplicaSetView {
    ReplicaSetView {
        name: rs.metadata.name.clone(),
        uid: rs.metadata.uid.clone(),
        revision: rs.annotation(REVISION_ANNOTATION).unwrap_or("").to_string(),
        image: rs.spec.template.spec.images(","),
        init_images: rs.spec.template.spec.init_images(","),
        replicas: rs.spec.replicas,
        status_replicas: rs.status.replicas,
        ready_replicas: rs.status.ready_replicas,
        available_replicas: rs.status.available_replicas,
        current: d.is_some_and(|d| {
            super::controller::deployment::util::equal_ignore_hash(
                &rs.spec.template,
                &d.spec.template,
            )
        }),
    }
}

fn pod_view(p: &Pod, rs_name: &str, rt: Option<&PodRuntime>) -> PodView {
    // Probe glyphs describe the first app container (after the init containers, in the
    // kubelet's numbering) while it runs; an exited one has no current results.
    let first = rt
        .and_then(|r| r.containers.get(p.spec.init_containers.len()))
        .filter(|c| c.running_since.is_some());
    let spec = p.spec.containers.first();
    PodView {
        name: p.metadata.name.clone(),
        uid: p.metadata.uid.clone(),
        replica_set: rs_name.to_string(),
        node: p.node_name.clone(),
        phase: p.status.phase.as_str().to_string(),
        ready: p.is_ready(),
        restarts: p.max_restarts_of_any(),
        status: p.kubectl_status(),
        terminating: p.metadata.deletion_timestamp.is_some(),
        probes: ProbeGlyphs {
            startup: ProbeMark::of(
                spec.is_some_and(|s| s.startup_probe.is_some()),
                first.and_then(|c| c.startup.last_observed),
            ),
            readiness: ProbeMark::of(
                spec.is_some_and(|s| s.readiness_probe.is_some()),
                first.and_then(|c| c.readiness.last_observed),
            ),
            liveness: ProbeMark::of(
                spec.is_some_and(|s| s.liveness_probe.is_some()),
                first.and_then(|c| c.liveness.last_observed),
            ),
        },
    }
}

/// The ReplicaSets, newest revision first (ties by name), as the panels list them.
fn replica_sets_newest_first(store: &crate::sim::store::Store) -> Vec<&ReplicaSet> {
    let mut rss: Vec<&ReplicaSet> = store.replica_sets.values().collect();
    let rev = |r: &ReplicaSet| {
        r.annotation(REVISION_ANNOTATION)
            .and_then(|v| v.parse::<i64>().ok())
            .unwrap_or(0)
    };
    order::sort_by(&mut rss, |a, b| {
        rev(b)
            .cmp(&rev(a))
            .then_with(|| a.metadata.name.cmp(&b.metadata.name))
    });
    rss
}

impl ClusterView {
    /// The view of the simulator's current state, with a row for every pod.
    pub fn of(sim: &Sim) -> ClusterView {
        let store = sim.store();
        let mut view = Self::without_pods(sim);
        view.pods = store
            .pods
            .values()
            .map(|p| {
                let rs_name = p
                    .metadata
                    .controller_ref()
                    .map(|r| r.name.as_str())
                    .unwrap_or_default();
                pod_view(p, rs_name, store.kubelet.get(p.metadata.name.as_str()))
            })
            .collect();
        view.lanes = view
            .replica_sets
            .iter()
            .map(|rs| {
                let rows = view.pods.iter().filter(|p| p.replica_set == rs.name);
                LaneCounts::tally(&rs.name, rows.map(|p| (p.status.as_str().into(), p.ready)))
            })
            .collect();
        view
    }

    /// The view the ReplicaSet lanes draw: pod rows only for a lane of at most `chips_up_to`
    /// pods or one named in `expanded`, and counts for every lane. A step of a 1,000-pod run
    /// then costs a count per pod rather than a row of copied strings per pod.
    pub fn for_lanes(
        sim: &Sim,
        chips_up_to: usize,
        expanded: &std::collections::BTreeSet<String>,
    ) -> ClusterView {
        let store = sim.store();
        let mut view = Self::without_pods(sim);
        // Each lane's rows come together, in name order.
        for rs in replica_sets_newest_first(store) {
            let name = rs.metadata.name.as_str();
            let owned: Vec<&Pod> = store.pods_owned_by(&rs.metadata.uid).collect();
            let statuses = owned
                .iter()
                .map(|p| (p.kubectl_status_text(), p.is_ready()));
            view.lanes.push(LaneCounts::tally(name, statuses));
            if owned.len() <= chips_up_to || expanded.contains(name) {
                view.pods.extend(
                    owned
                        .iter()
                        .map(|p| pod_view(p, name, store.kubelet.get(p.metadata.name.as_str()))),
                );
            }
        }
        view
    }

    /// The Deployment, ReplicaSet and Node rows, without pods.
    fn without_pods(sim: &Sim) -> ClusterView {
        let store = sim.store();
        let d = store.deployments.values().next();
        let rss = replica_sets_newest_first(store);
        let nodes = store
            .nodes
            .values()
            .map(|n| {
                let u = store.node_usage(&n.metadata.name);
                NodeView {
                    name: n.metadata.name.clone(),
                    ready: n.status.ready,
                    kubelet_down: super::kubelet::node_down(store, &n.metadata.name),
                    unschedulable: n.spec.unschedulable,
                    zone: n
                        .metadata
                        .labels
                        .get(crate::sim::controller::topology_spread::ZONE_LABEL)
                        .cloned(),
                    taints: n.spec.taints.iter().map(super::api::Taint::text).collect(),
                    milli_cpu_requested: u.milli_cpu,
                    milli_cpu_allocatable: n.status.allocatable_milli_cpu,
                    memory_requested: u.memory,
                    memory_allocatable: n.status.allocatable_memory,
                    pods: u.pods,
                    drain: drain_note(store, &n.metadata.name),
                }
            })
            .collect();
        ClusterView {
            deployment: d.map(deployment_view),
            replica_sets: rss.iter().map(|rs| replica_set_view(rs, d)).collect(),
            pods: Vec::new(),
            lanes: Vec::new(),
            nodes,
        }
    }

    /// The summary line of the simulator's current state, without building pod rows (the
    /// runner prints it after every step, so it must not cost a walk over every pod).
    pub fn summary_of(sim: &Sim) -> String {
        Self::without_pods(sim).summary_line()
    }

    /// One line summing the state up, as the readable trace prints it after a step.
    pub fn summary_line(&self) -> String {
        let mut out = String::new();
        if let Some(d) = &self.deployment {
            out.push_str(&format!(
                "deploy/{} desired {} · updated {} · ready {} · available {}",
                d.name, d.spec_replicas, d.updated_replicas, d.ready_replicas, d.available_replicas
            ));
        }
        for rs in &self.replica_sets {
            out.push_str(&format!(
                " | rs/{} r{} {}/{}/{}",
                rs.name, rs.revision, rs.replicas, rs.status_replicas, rs.ready_replicas
            ));
        }
        out
    }
}

impl StepRecord {
    /// The JSON-line record of a step with the state it left.
    pub fn new(step: &Step, sim: &Sim) -> StepRecord {
        let view = ClusterView::of(sim);
        StepRecord {
            step: step.index,
            time_ms: step.time.as_millis(),
            stage: step.stage.number(),
            actor: step.actor.clone(),
            object: step.object.clone(),
            narration: step.narration.clone(),
            deployment: view.deployment,
            replica_sets: view.replica_sets,
            pods: view.pods,
            events: step
                .events
                .iter()
                .map(|e| EventView {
                    type_: e.type_.as_str().to_string(),
                    reason: e.reason.as_str().to_string(),
                    object: e.involved_object.kubectl_object(),
                    message: e.message.clone(),
                    dropped: e.dropped,
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::scenario::Scenario;
    use crate::sim::timeline::Timeline;
    use std::collections::BTreeSet;

    /// The rolling update in mid-rollout, when both ReplicaSets have pods.
    fn mid_rollout() -> Timeline {
        let text = include_str!("../../scenarios/rolling-update.yaml");
        let sc = Scenario::parse(text).expect("bundled scenario");
        let mut tl = Timeline::of(&sc);
        tl.seek(90);
        tl
    }

    #[test]
    fn a_pod_marks_only_the_probes_its_container_has() {
        // The rolling update's pods have a readiness probe and nothing else.
        let tl = mid_rollout();
        let view = ClusterView::of(tl.sim());
        let running: Vec<&PodView> = view.pods.iter().filter(|p| p.ready).collect();
        assert!(!running.is_empty(), "some pods are ready mid-rollout");
        for p in running {
            assert_eq!(p.probes.readiness, ProbeMark::Passed, "{}", p.name);
            assert_eq!(p.probes.startup, ProbeMark::Absent, "{}", p.name);
            assert_eq!(p.probes.liveness, ProbeMark::Absent, "{}", p.name);
        }
        // A probe that exists but has not run yet is told apart from one that does not exist.
        let text = include_str!("../../scenarios/startup-probe-recovers.yaml");
        let sc = Scenario::parse(text).expect("bundled scenario");
        let mut tl = Timeline::of(&sc);
        let mut saw_not_run = false;
        for step in 1..=60 {
            tl.seek(step);
            let view = ClusterView::of(tl.sim());
            saw_not_run |= view.pods.iter().any(|p| {
                p.probes.liveness == ProbeMark::NotRun && p.probes.startup != ProbeMark::Absent
            });
        }
        assert!(
            saw_not_run,
            "a running container's liveness probe waits for its startup probe"
        );
    }

    #[test]
    fn lanes_view_counts_every_lane_and_rows_only_the_small_or_opened_ones() {
        let tl = mid_rollout();
        let full = ClusterView::of(tl.sim());
        assert_eq!(full.replica_sets.len(), 2, "both ReplicaSets are listed");
        // With room for every lane's chips, the lanes view has every row (grouped by lane
        // rather than in name order) and the same everything else.
        let mut roomy = ClusterView::for_lanes(tl.sim(), 1_000, &BTreeSet::new());
        roomy.pods.sort_by(|a, b| a.name.cmp(&b.name));
        assert_eq!(roomy, full);

        // With room for none, every lane keeps its counts but no rows.
        let counted = ClusterView::for_lanes(tl.sim(), 0, &BTreeSet::new());
        assert!(counted.pods.is_empty());
        assert_eq!(counted.lanes, full.lanes);
        for (lane, rs) in counted.lanes.iter().zip(&full.replica_sets) {
            assert_eq!(lane.replica_set, rs.name);
            let rows: Vec<&PodView> = full
                .pods
                .iter()
                .filter(|p| p.replica_set == rs.name)
                .collect();
            assert_eq!(lane.total, rows.len());
            assert_eq!(lane.ready, rows.iter().filter(|p| p.ready).count());
            assert_eq!(
                lane.by_status.iter().map(|(_, n)| n).sum::<usize>(),
                rows.len()
            );
        }

        // An opened lane gets its rows back, in name order, and only that lane.
        let opened = full.replica_sets[1].name.clone();
        let view = ClusterView::for_lanes(tl.sim(), 0, &BTreeSet::from([opened.clone()]));
        let want: Vec<PodView> = full
            .pods
            .iter()
            .filter(|p| p.replica_set == opened)
            .cloned()
            .collect();
        assert!(!want.is_empty());
        assert_eq!(view.pods, want);
    }

    #[test]
    fn a_lane_summary_reads_like_kubectl_statuses() {
        let counts = LaneCounts::tally(
            "web-1",
            [
                ("Running", true),
                ("ContainerCreating", false),
                ("Running", true),
            ]
            .into_iter()
            .map(|(s, r)| (s.into(), r)),
        );
        assert_eq!(
            counts.summary(),
            "3 pods (2 ready): 1 ContainerCreating, 2 Running"
        );
    }
}
