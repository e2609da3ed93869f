//! The scheduler (`pkg/scheduler`, default profile reduced to what a Deployment walk-through
//! needs): filters nodes by cordon, taints (the control plane's and a scenario's, unless the pod
//! tolerates them), node selector and required node affinity, host ports, pod count and resource
//! requests, topology spread constraints, required pod affinity and anti-affinity; scores the
//! rest with NodeResourcesFit, BalancedAllocation, PodTopologySpread, NodeAffinity,
//! InterPodAffinity and TaintToleration; binds, or reports `FailedScheduling` with upstream's
//! exact message.

use super::topology_spread::{self, SpreadFilter};
use super::{Change, Outcome, Work};
use crate::sim::api::selector::LabelSelector;
use crate::sim::api::{
    ConditionStatus, Event, EventReason, Node, ObjectRef, Pod, PodCondition, PodConditionType,
    Time, toleration,
};
use crate::sim::order;
use crate::sim::rng::Rng;
use crate::sim::store::{NodeUsage, PodName, Store, pod_requests};
use crate::sim::trace::{Stage, plural};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The component name upstream records on its events.
pub const COMPONENT: &str = "default-scheduler";
/// The scheduler's `reportingInstance`: the events.k8s.io recorder names it
/// `<reportingController>-<hostname>` (`eventBroadcasterImpl.NewRecorder`), and the scheduler runs
/// on a control-plane host the scenarios do not model, so the host is called `control-plane`.
pub const REPORTING_INSTANCE: &str = "default-scheduler-control-plane";
/// `DefaultMilliCPURequest`: what scoring assumes for a container without a CPU request.
pub const DEFAULT_MILLI_CPU_REQUEST: i64 = 100;
/// `DefaultMemoryRequest`: what scoring assumes for a container without a memory request.
pub const DEFAULT_MEMORY_REQUEST: i64 = 200 * 1024 * 1024;
/// `podMaxInUnschedulablePodsDuration`: an unschedulable pod is retried once it has waited longer
/// than this.
pub const UNSCHEDULABLE_RETRY_MS: u64 = 5 * 60 * 1000;
/// How often the scheduling queue looks for such pods (`flushUnschedulablePodsLeftover`).
pub const UNSCHEDULABLE_FLUSH_MS: u64 = 30 * 1000;

/// When a pod that failed to schedule at `failed_at`, and that no cluster event has woken since,
/// is tried again: the scheduling queue looks every 30 s from the scheduler's start (the
/// scenario's) and moves a pod that has waited longer than five minutes, strictly
/// (`flushUnschedulablePodsLeftover`); its back-off (at most 10 s) has long run out by then,
/// so it is scheduled at once. A pod that failed at 70 s is tried again at 390 s.
pub fn unschedulable_leftover_retry(failed_at: Time) -> Time {
    let waited = failed_at.as_millis().saturating_add(UNSCHEDULABLE_RETRY_MS);
    Time((waited / UNSCHEDULABLE_FLUSH_MS).saturating_add(1) * UNSCHEDULABLE_FLUSH_MS)
}

/// A set of the default profile's filter plugins that can turn a node down. Those that turned
/// every node down for a pod (its `UnschedulablePlugins`) decide which cluster events retry it:
/// each plugin's queueing hint asks for a retry only on a change that could let it pass
/// (`SchedulerQueueingHints`, locked on since v1.34).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Plugins(u8);

impl Plugins {
    pub const NONE: Plugins = Plugins(0);
    pub const NODE_UNSCHEDULABLE: Plugins = Plugins(1);
    pub const TAINT_TOLERATION: Plugins = Plugins(1 << 1);
    pub const NODE_AFFINITY: Plugins = Plugins(1 << 2);
    pub const NODE_PORTS: Plugins = Plugins(1 << 3);
    pub const NODE_RESOURCES_FIT: Plugins = Plugins(1 << 4);
    /// InterPodAffinity turning a node down for the pod's required affinity: its hint retries
    /// the pod when a pod is bound (one the affinity may ask for).
    pub const POD_AFFINITY: Plugins = Plugins(1 << 5);
    /// InterPodAffinity turning a node down for anti-affinity, the pod's or a bound pod's: its
    /// hint retries the pod when a bound pod is deleted.
    pub const POD_ANTI_AFFINITY: Plugins = Plugins(1 << 6);
    /// PodTopologySpread turning a node down for a `DoNotSchedule` constraint: its hints retry
    /// the pod when a pod one of its constraints selects is bound or deleted, or the taints of
    /// a node with every topology key change (the engine asks [`super::topology_spread`]).
    pub const POD_TOPOLOGY_SPREAD: Plugins = Plugins(1 << 7);
    pub const ALL: Plugins = Plugins(u8::MAX);
    /// The plugins whose hint retries a pod when a pod bound to a node is deleted: the room it
    /// held (NodeResourcesFit queues on any such deletion), its host ports (NodePorts queues
    /// only when it held some), and the anti-affinity it took part in go with it.
    pub const ON_ASSIGNED_POD_DELETE: Plugins = Plugins(1 << 3 | 1 << 4 | 1 << 6);
    /// The plugins whose hint retries a pod when a pod is bound to a node.
    pub const ON_ASSIGNED_POD_ADD: Plugins = Plugins::POD_AFFINITY;

    /// Both sets together.
    pub const fn union(self, other: Plugins) -> Plugins {
        Plugins(self.0 | other.0)
    }

    /// This set without `other`'s plugins.
    pub const fn without(self, other: Plugins) -> Plugins {
        Plugins(self.0 & !other.0)
    }

    /// Whether the sets share a plugin.
    pub const fn intersects(self, other: Plugins) -> bool {
        self.0 & other.0 != 0
    }

    /// What could make the pod fit, in words: the changes whose hints retry it.
    pub fn retry_hint(self) -> String {
        let hints = [
            (Plugins::NODE_UNSCHEDULABLE, "a node is uncordoned"),
            (Plugins::TAINT_TOLERATION, "a node's taints are lifted"),
            (Plugins::NODE_AFFINITY, "a node's labels change"),
            (
                Plugins::NODE_RESOURCES_FIT,
                "a scheduled pod is deleted or a node grows",
            ),
            (
                Plugins::NODE_PORTS,
                "a pod holding its host port is deleted",
            ),
            (
                Plugins::POD_AFFINITY,
                "a pod its affinity rules look for is scheduled",
            ),
            (
                Plugins::POD_ANTI_AFFINITY,
                "a pod it may not run beside (anti-affinity) is deleted",
            ),
            (
                Plugins::POD_TOPOLOGY_SPREAD,
                "a node's taints change or a pod its topology spread constraints count is bound or deleted",
            ),
        ];
        let phrases: Vec<&str> = hints
            .iter()
            .filter(|(p, _)| self.intersects(*p))
            .map(|(_, h)| *h)
            .collect();
        match phrases.split_last() {
            None => "the cluster changes".to_string(),
            Some((last, [])) => (*last).to_string(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        }
    }
}

/// Why a node was filtered out, by which plugin, with whether preemption could help.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct FilterFailure {
    pub reasons: Vec<String>,
    /// `UnschedulableAndUnresolvable`: evicting pods would not help.
    pub unresolvable: bool,
    /// The plugin that turned the node down.
    pub plugin: Plugins,
}

/// Runs the default filter plugins in order against one node; the first failing plugin decides.
pub fn filter_node(pod: &Pod, node: &Node, store: &Store) -> Result<(), FilterFailure> {
    filter_node_with(
        pod,
        pod_requests(pod),
        node,
        store.node_usage(&node.metadata.name),
        &host_ports_in_use(pod, store),
        &SpreadFilter::of(pod, store),
        &InterPodCounts::of(pod, store),
    )
}

/// [`filter_node`] with the pod's CPU and memory requests worked out once for every node, since
/// each takes parsing its quantities, and the requests already held on the node (`used`).
fn filter_node_with(
    pod: &Pod,
    (cpu, mem): (i64, i64),
    node: &Node,
    used: NodeUsage,
    ports_in_use: &PortsInUse<'_>,
    spread: &SpreadFilter,
    inter_pod: &InterPodCounts,
) -> Result<(), FilterFailure> {
    // The pod's tolerations include those the admission plugin added; read only for a node
    // with a taint, which is rare.
    let tolerates = |key: &str, effect: &str| {
        toleration::tolerated(&toleration::of_pod(&pod.spec), key, effect)
    };
    // NodeUnschedulable lets a cordoned node take a pod that tolerates its taint.
    if node.spec.unschedulable && !tolerates(toleration::UNSCHEDULABLE, "NoSchedule") {
        return Err(FilterFailure {
            reasons: vec!["node(s) were unschedulable".to_string()],
            unresolvable: true,
            plugin: Plugins::NODE_UNSCHEDULABLE,
        });
    }
    // TaintToleration: the node's NoSchedule and NoExecute taints, the node lifecycle
    // controller's (`unreachable` on a node whose kubelet stopped; the tolerations the admission
    // plugin added, NoExecute for 300 s, never cover its NoSchedule twin) and the scenario's.
    if !tolerates_node_taints(pod, node) {
        return Err(FilterFailure {
            reasons: vec!["node(s) had untolerated taint(s)".to_string()],
            unresolvable: true,
            plugin: Plugins::TAINT_TOLERATION,
        });
    }
    if !node_affinity_allows(pod, node) {
        return Err(FilterFailure {
            reasons: vec!["node(s) didn't match Pod's node affinity/selector".to_string()],
            unresolvable: true,
            plugin: Plugins::NODE_AFFINITY,
        });
    }
    // NodePorts: a host port another pod on the node holds (a failure preemption could
    // resolve).
    if host_port_taken(pod, node, ports_in_use) {
        return Err(FilterFailure {
            reasons: vec!["node(s) didn't have free ports for the requested pod ports".to_string()],
            unresolvable: false,
            plugin: Plugins::NODE_PORTS,
        });
    }
    // NodeResourcesFit (`fitsRequest`). A request larger than the node's whole allocatable is
    // unresolvable (PR #131345, v1.34): not even an empty node would take the pod, so preemption
    // reports the node as not helpful rather than as lacking victims.
    let mut reasons = Vec::new();
    let mut unresolvable = false;
    if used.pods + 1 > node.status.allocatable_pods {
        reasons.push("Too many pods".to_string());
    }
    if cpu > 0 && used.milli_cpu + cpu > node.status.allocatable_milli_cpu {
        reasons.push("Insufficient cpu".to_string());
        unresolvable |= cpu > node.status.allocatable_milli_cpu;
    }
    if mem > 0 && used.memory + mem > node.status.allocatable_memory {
        reasons.push("Insufficient memory".to_string());
        unresolvable |= mem > node.status.allocatable_memory;
    }
    if !reasons.is_empty() {
        return Err(FilterFailure {
            reasons,
            unresolvable,
            plugin: Plugins::NODE_RESOURCES_FIT,
        });
    }
    // PodTopologySpread, then InterPodAffinity, as the default profile orders them.
    spread.filter(node)?;
    inter_pod.filter(node)
}

/// Whether any of the pod's containers asks for a host port.
pub fn has_host_ports(pod: &Pod) -> bool {
    !host_ports(pod).is_empty()
}

/// The host ports a pod's containers ask for: (protocol, host IP, port), TCP and `0.0.0.0` when
/// unset (`GetHostPorts`: the regular containers and the sidecars).
fn host_ports(pod: &Pod) -> Vec<(&str, &str, i32)> {
    pod.spec
        .containers
        .iter()
        .chain(
            pod.spec
                .init_containers
                .iter()
                .filter(|c| c.is_restartable()),
        )
        .flat_map(|c| &c.ports)
        .filter_map(|p| {
            let port = p.host_port.filter(|&hp| hp > 0)?;
            Some((
                p.protocol.as_deref().unwrap_or("TCP"),
                p.host_ip
                    .as_deref()
                    .filter(|ip| !ip.is_empty())
                    .unwrap_or("0.0.0.0"),
                port,
            ))
        })
        .collect()
}

/// The host ports held on each node by the pods bound there (pods being deleted still hold
/// theirs until they are gone), read in one pass over the pods, and only when the pod being
/// scheduled asks for a host port (empty otherwise).
type PortsInUse<'s> = BTreeMap<&'s str, Vec<(&'s str, &'s str, i32)>>;

fn host_ports_in_use<'s>(pod: &Pod, store: &'s Store) -> PortsInUse<'s> {
    let mut in_use = PortsInUse::new();
    if host_ports(pod).is_empty() {
        return in_use;
    }
    for p in store.pods.values() {
        if p.node_name.is_empty() || p.is_terminal() {
            continue;
        }
        let ports = host_ports(p);
        if !ports.is_empty() {
            in_use
                .entry(p.node_name.as_str())
                .or_default()
                .extend(ports);
        }
    }
    in_use
}

/// Whether a host port the pod asks for is held on the node (`HostPortInfo.CheckConflict`:
/// the same protocol and port, on the same IP or where either side listens on `0.0.0.0`).
fn host_port_taken(pod: &Pod, node: &Node, in_use: &PortsInUse<'_>) -> bool {
    let Some(held) = in_use.get(node.metadata.name.as_str()) else {
        return false;
    };
    let wanted = host_ports(pod);
    held.iter().any(|&(proto, ip, port)| {
        wanted.iter().any(|&(w_proto, w_ip, w_port)| {
            w_proto == proto
                && w_port == port
                && (w_ip == ip || w_ip == "0.0.0.0" || ip == "0.0.0.0")
        })
    })
}

/// A required pod affinity or anti-affinity term (`PodAffinityTerm`): the pods it selects, in
/// the pod's own namespace (the only one), and the node label that makes a topology domain.
struct AffinityTerm {
    /// `None` for a missing or unreadable selector, which selects no pod.
    selector: Option<LabelSelector>,
    topology_key: String,
}

impl AffinityTerm {
    fn selects(&self, pod: &Pod) -> bool {
        self.selector
            .as_ref()
            .is_some_and(|s| s.matches(&pod.metadata.labels))
    }
}

/// The required terms of `pod`'s `podAffinity` or `podAntiAffinity` (`kind`), as the API
/// server stores them: `matchLabelKeys` and `mismatchLabelKeys` merged into the selector with
/// the pod's own values (`key In [v]`, `key NotIn [v]`; GA in v1.33), and a term whose
/// `namespaces` or `namespaceSelector` leaves out the pod's namespace (`default`, the only one)
/// selecting nothing.
fn required_terms(pod: &Pod, kind: &str) -> Vec<AffinityTerm> {
    let Some(terms) = required_affinity(&pod.spec, kind).and_then(serde_json::Value::as_array)
    else {
        return Vec::new();
    };
    terms.iter().map(|t| affinity_term(pod, t)).collect()
}

/// The preferred terms of `pod`'s `podAffinity` or `podAntiAffinity` (`kind`), each with its
/// weight, read as [`required_terms`] reads the required ones.
fn preferred_terms(pod: &Pod, kind: &str) -> Vec<(i64, AffinityTerm)> {
    preferred_affinity(&pod.spec, kind)
        .iter()
        .filter_map(|t| {
            let weight = t.get("weight").and_then(serde_json::Value::as_i64)?;
            Some((weight, affinity_term(pod, t.get("podAffinityTerm")?)))
        })
        .collect()
}

/// One `PodAffinityTerm` of `pod`'s spec, as the API server stores it (see [`required_terms`]).
fn affinity_term(pod: &Pod, t: &serde_json::Value) -> AffinityTerm {
    use crate::sim::api::selector::SelectorOperator;
    let namespace = crate::sim::api::DEFAULT_NAMESPACE;
    let keys = |field: &str| -> Vec<&str> {
        t.get(field)
            .and_then(serde_json::Value::as_array)
            .map(|ks| ks.iter().filter_map(serde_json::Value::as_str).collect())
            .unwrap_or_default()
    };
    let names = keys("namespaces");
    let ns_selector = t.get("namespaceSelector").filter(|s| !s.is_null());
    let in_namespace = match ns_selector {
        None => names.is_empty() || names.contains(&namespace),
        Some(sel) => {
            names.contains(&namespace)
                || serde_json::from_value::<LabelSelector>(sel.clone()).is_ok_and(|sel| {
                    sel.matches(&BTreeMap::from([(
                        "kubernetes.io/metadata.name".to_string(),
                        namespace.to_string(),
                    )]))
                })
        }
    };
    let mut selector: Option<LabelSelector> = t
        .get("labelSelector")
        .filter(|s| !s.is_null())
        .and_then(|s| serde_json::from_value(s.clone()).ok())
        .filter(|_| in_namespace);
    if let Some(sel) = selector.as_mut() {
        for (field, operator) in [
            ("matchLabelKeys", SelectorOperator::In),
            ("mismatchLabelKeys", SelectorOperator::NotIn),
        ] {
            sel.merge_label_keys(keys(field), operator, &pod.metadata.labels);
        }
    }
    AffinityTerm {
        selector,
        topology_key: t
            .get("topologyKey")
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
            .to_string(),
    }
}

/// The `requiredDuringSchedulingIgnoredDuringExecution` part of a pod spec's `nodeAffinity`,
/// `podAffinity` or `podAntiAffinity` (`kind`), kept verbatim in the spec and so read as JSON.
fn required_affinity<'s>(
    spec: &'s crate::sim::api::PodSpec,
    kind: &str,
) -> Option<&'s serde_json::Value> {
    spec.extra
        .get("affinity")
        .and_then(|a| a.get(kind))
        .and_then(|a| a.get("requiredDuringSchedulingIgnoredDuringExecution"))
}

/// Whether any pod's spec satisfies `has`. Every pod comes from a ReplicaSet's template, and only
/// a pod being deleted can outlive its ReplicaSet, so the templates are read, and the pods
/// themselves only while such an orphan is terminating: most passes never walk the pods.
fn any_pod_spec(store: &Store, has: fn(&crate::sim::api::PodSpec) -> bool) -> bool {
    store
        .replica_sets
        .values()
        .any(|rs| has(&rs.spec.template.spec))
        || (store
            .owners_with_terminating_pods()
            .any(|uid| !store.replica_sets.values().any(|rs| rs.metadata.uid == uid))
            && store
                .pods
                .values()
                .any(|p| p.metadata.deletion_timestamp.is_some() && has(&p.spec)))
}

/// The `preferredDuringSchedulingIgnoredDuringExecution` terms of a pod spec's `nodeAffinity`,
/// `podAffinity` or `podAntiAffinity` (`kind`), kept verbatim in the spec and so read as JSON.
fn preferred_affinity<'s>(
    spec: &'s crate::sim::api::PodSpec,
    kind: &str,
) -> &'s [serde_json::Value] {
    spec.extra
        .get("affinity")
        .and_then(|a| a.get(kind))
        .and_then(|a| a.get("preferredDuringSchedulingIgnoredDuringExecution"))
        .and_then(serde_json::Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// Whether a pod template (or pod spec) has required pod anti-affinity terms.
fn has_anti_affinity(spec: &crate::sim::api::PodSpec) -> bool {
    required_affinity(spec, "podAntiAffinity")
        .and_then(serde_json::Value::as_array)
        .is_some_and(|terms| !terms.is_empty())
}

/// The InterPodAffinity plugin's pre-filter state: per topology domain (node label key and
/// value), how many bound pods the incoming pod's affinity terms match (a pod counts when it
/// matches them all), how many its anti-affinity terms match, and how many bound pods' own
/// anti-affinity terms select the incoming pod. Empty, and read no further, when neither the
/// pod nor any ReplicaSet's template has such terms.
#[derive(Default)]
struct InterPodCounts {
    affinity_terms: Vec<AffinityTerm>,
    anti_affinity_terms: Vec<AffinityTerm>,
    affinity: BTreeMap<(String, String), u32>,
    anti_affinity: BTreeMap<(String, String), u32>,
    existing_anti_affinity: BTreeMap<(String, String), u32>,
    /// The pod matches its own affinity terms (the first of a group that attracts itself).
    self_affine: bool,
}

impl InterPodCounts {
    fn of(pod: &Pod, store: &Store) -> InterPodCounts {
        let affinity_terms = required_terms(pod, "podAffinity");
        let anti_affinity_terms = required_terms(pod, "podAntiAffinity");
        // When no pod has anti-affinity, the pass over the pods is spared.
        let any_anti_affinity = any_pod_spec(store, has_anti_affinity);
        // A bound pod's terms are read once for each ReplicaSet: its pods share them (the
        // merged label keys, the pod-template-hash among them, are the same for all of them).
        let mut terms_by_owner: BTreeMap<String, Vec<AffinityTerm>> = BTreeMap::new();
        let mut counts = InterPodCounts {
            self_affine: !affinity_terms.is_empty()
                && affinity_terms.iter().all(|t| t.selects(pod)),
            affinity_terms,
            anti_affinity_terms,
            ..InterPodCounts::default()
        };
        if counts.affinity_terms.is_empty()
            && counts.anti_affinity_terms.is_empty()
            && !any_anti_affinity
        {
            return counts;
        }
        for existing in store.pods.values() {
            let Some(node) = store.nodes.get(existing.node_name.as_str()) else {
                continue;
            };
            if existing.is_terminal() || existing.metadata.name == pod.metadata.name {
                continue;
            }
            let domain = |key: &str| {
                node.metadata
                    .labels
                    .get(key)
                    .map(|value| (key.to_string(), value.clone()))
            };
            if !counts.affinity_terms.is_empty()
                && counts.affinity_terms.iter().all(|t| t.selects(existing))
            {
                for t in &counts.affinity_terms {
                    if let Some(tp) = domain(&t.topology_key) {
                        *counts.affinity.entry(tp).or_default() += 1;
                    }
                }
            }
            for t in counts
                .anti_affinity_terms
                .iter()
                .filter(|t| t.selects(existing))
            {
                if let Some(tp) = domain(&t.topology_key) {
                    *counts.anti_affinity.entry(tp).or_default() += 1;
                }
            }
            if any_anti_affinity && has_anti_affinity(&existing.spec) {
                let owner = existing
                    .metadata
                    .controller_ref()
                    .map(|r| r.name.clone())
                    .unwrap_or_else(|| existing.metadata.name.clone());
                let terms = terms_by_owner
                    .entry(owner)
                    .or_insert_with(|| required_terms(existing, "podAntiAffinity"));
                for t in terms.iter() {
                    if t.selects(pod)
                        && let Some(tp) = domain(&t.topology_key)
                    {
                        *counts.existing_anti_affinity.entry(tp).or_default() += 1;
                    }
                }
            }
        }
        counts
    }

    /// `Filter`: the pod's affinity (unresolvable), its anti-affinity, then the bound pods'
    /// anti-affinity, each with its reason.
    fn filter(&self, node: &Node) -> Result<(), FilterFailure> {
        let labels = &node.metadata.labels;
        let count = |map: &BTreeMap<(String, String), u32>, key: &str| {
            labels
                .get(key)
                .map(|v| map.get(&(key.to_string(), v.clone())).copied().unwrap_or(0))
        };
        let affinity_ok = self
            .affinity_terms
            .iter()
            .all(|t| labels.contains_key(&t.topology_key))
            && (self
                .affinity_terms
                .iter()
                .all(|t| count(&self.affinity, &t.topology_key).unwrap_or(0) > 0)
                || (self.affinity.is_empty() && self.self_affine));
        if !affinity_ok {
            return Err(FilterFailure {
                reasons: vec!["node(s) didn't match pod affinity rules".to_string()],
                unresolvable: true,
                plugin: Plugins::POD_AFFINITY,
            });
        }
        if self
            .anti_affinity_terms
            .iter()
            .any(|t| count(&self.anti_affinity, &t.topology_key).unwrap_or(0) > 0)
        {
            return Err(FilterFailure {
                reasons: vec!["node(s) didn't match pod anti-affinity rules".to_string()],
                unresolvable: false,
                plugin: Plugins::POD_ANTI_AFFINITY,
            });
        }
        if labels.iter().any(|(k, v)| {
            self.existing_anti_affinity
                .get(&(k.clone(), v.clone()))
                .is_some_and(|&n| n > 0)
        }) {
            return Err(FilterFailure {
                reasons: vec![
                    "node(s) didn't satisfy existing pods anti-affinity rules".to_string(),
                ],
                unresolvable: false,
                plugin: Plugins::POD_ANTI_AFFINITY,
            });
        }
        Ok(())
    }
}

/// The NodeAffinity filter's second half: the pod's
/// `affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution`, whose node selector
/// terms are ORed and each term's requirements ANDed (`nodeSelectorTermsMatch`). A term with
/// neither expressions nor fields matches no node. Kept verbatim in the pod spec, so read as
/// JSON; a pod without it fits every node.
/// The NodeAffinity filter: the pod's `nodeSelector` and required node affinity allow the node.
pub(super) fn node_affinity_allows(pod: &Pod, node: &Node) -> bool {
    pod.spec
        .node_selector
        .iter()
        .all(|(k, v)| node.metadata.labels.get(k) == Some(v))
        && required_node_affinity_matches(pod, node)
}

/// The TaintToleration filter (`FindMatchingUntoleratedTaint` over the `NoSchedule` and
/// `NoExecute` taints): the pod tolerates every such taint the node carries.
pub(super) fn tolerates_node_taints(pod: &Pod, node: &Node) -> bool {
    let taints = node.taints();
    taints.is_empty()
        || toleration::untolerated_taint(&toleration::of_pod(&pod.spec), &taints).is_none()
}

/// The NodeAffinity filter's second half: the pod's required node affinity.
fn required_node_affinity_matches(pod: &Pod, node: &Node) -> bool {
    let Some(required) = required_affinity(&pod.spec, "nodeAffinity") else {
        return true;
    };
    let terms = required
        .get("nodeSelectorTerms")
        .and_then(serde_json::Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    terms
        .iter()
        .any(|term| node_selector_term_matches(term, node))
}

/// One `NodeSelectorTerm` against a node: every label requirement and every field requirement
/// holds. A term with neither matches no node.
fn node_selector_term_matches(term: &serde_json::Value, node: &Node) -> bool {
    let list = |key: &str| {
        term.get(key)
            .and_then(serde_json::Value::as_array)
            .map_or(&[][..], Vec::as_slice)
    };
    let (expressions, fields) = (list("matchExpressions"), list("matchFields"));
    if expressions.is_empty() && fields.is_empty() {
        return false;
    }
    expressions
        .iter()
        .all(|r| requirement_matches(r, |key| node.metadata.labels.get(key).map(String::as_str)))
        && fields.iter().all(|r| {
            requirement_matches(r, |key| {
                (key == "metadata.name").then_some(node.metadata.name.as_str())
            })
        })
}

/// Whether a pod spec has pod affinity terms InterPodAffinity's score reads when the pod is
/// already on a node: required affinity, preferred affinity or preferred anti-affinity.
fn has_scored_pod_affinity(spec: &crate::sim::api::PodSpec) -> bool {
    required_affinity(spec, "podAffinity")
        .and_then(serde_json::Value::as_array)
        .is_some_and(|terms| !terms.is_empty())
        || !preferred_affinity(spec, "podAffinity").is_empty()
        || !preferred_affinity(spec, "podAntiAffinity").is_empty()
}

/// `hardPodAffinityWeight`: what an existing pod's required affinity term that selects the
/// incoming pod adds to its domain's score.
const HARD_POD_AFFINITY_WEIGHT: i64 = 1;

/// InterPodAffinity's score (weight 2; `PreScore`, `Score`, `NormalizeScore`): each bound pod
/// adds to the score of its node's topology domains the weights of the incoming pod's preferred
/// affinity terms that select it and subtracts those of its preferred anti-affinity terms; and,
/// the other way round, its own preferred terms that select the incoming pod count the same
/// way, with 1 for each of its required affinity terms that does. A node scores the sum over
/// the domains it belongs to, normalized as `100 × (score − min) / (max − min)` over the
/// feasible nodes. With each node's raw sum. `None` when nothing is counted or every node
/// scores the same.
fn pod_affinity_scores(
    pod: &Pod,
    store: &Store,
    feasible: &[(&Node, NodeUsage)],
) -> Option<PodAffinityScores> {
    let affinity = preferred_terms(pod, "podAffinity");
    let anti_affinity = preferred_terms(pod, "podAntiAffinity");
    let others_count = any_pod_spec(store, has_scored_pod_affinity);
    if affinity.is_empty() && anti_affinity.is_empty() && !others_count {
        return None;
    }
    let mut topology_score: BTreeMap<(String, String), i64> = BTreeMap::new();
    // Which kinds of term counted, for the narration, in the order `SOURCES` names them.
    let mut counted = [false; 4];
    let mut add = |node: &Node, key: &str, weight: i64, source: usize| {
        if let Some(value) = node.metadata.labels.get(key) {
            *topology_score
                .entry((key.to_string(), value.clone()))
                .or_default() += weight;
            counted[source] = true;
        }
    };
    // The terms of a bound pod are read once for each owner: its pods share them.
    let mut terms_by_owner: BTreeMap<String, OwnTerms> = BTreeMap::new();
    for existing in store.pods.values() {
        let Some(node) = store.nodes.get(existing.node_name.as_str()) else {
            continue;
        };
        if existing.is_terminal() || existing.metadata.name == pod.metadata.name {
            continue;
        }
        for (w, t) in &affinity {
            if t.selects(existing) {
                add(node, &t.topology_key, *w, 0);
            }
        }
        for (w, t) in &anti_affinity {
            if t.selects(existing) {
                add(node, &t.topology_key, -*w, 1);
            }
        }
        if !others_count || !has_scored_pod_affinity(&existing.spec) {
            continue;
        }
        let owner = existing
            .metadata
            .controller_ref()
            .map(|r| r.name.clone())
            .unwrap_or_else(|| existing.metadata.name.clone());
        let own = terms_by_owner.entry(owner).or_insert_with(|| OwnTerms {
            required: required_terms(existing, "podAffinity"),
            affinity: preferred_terms(existing, "podAffinity"),
            anti_affinity: preferred_terms(existing, "podAntiAffinity"),
        });
        for t in own.required.iter().filter(|t| t.selects(pod)) {
            add(node, &t.topology_key, HARD_POD_AFFINITY_WEIGHT, 3);
        }
        for (w, t) in own.affinity.iter().filter(|(_, t)| t.selects(pod)) {
            add(node, &t.topology_key, *w, 2);
        }
        for (w, t) in own.anti_affinity.iter().filter(|(_, t)| t.selects(pod)) {
            add(node, &t.topology_key, -*w, 2);
        }
    }
    if topology_score.is_empty() {
        return None;
    }
    let raw: Vec<i64> = feasible
        .iter()
        .map(|(node, _)| {
            topology_score
                .iter()
                .filter(|((key, value), _)| node.metadata.labels.get(key) == Some(value))
                .map(|(_, score)| score)
                .sum()
        })
        .collect();
    let (min, max) = (
        raw.iter().copied().min().unwrap_or(0),
        raw.iter().copied().max().unwrap_or(0),
    );
    if max == min {
        return None;
    }
    const SOURCES: [&str; 4] = [
        "its preferred affinity terms",
        "its preferred anti-affinity terms",
        "the preferred terms of pods that select it",
        "the required affinity terms of pods that select it (1 each)",
    ];
    Some(PodAffinityScores {
        per_node: raw
            .iter()
            .map(|&r| ((100.0 * ((r - min) as f64 / (max - min) as f64)) as i64, r))
            .collect(),
        min,
        max,
        sources: SOURCES
            .iter()
            .zip(counted)
            .filter(|(_, c)| *c)
            .map(|(s, _)| *s)
            .collect(),
    })
}

/// What InterPodAffinity's score saw: each feasible node's normalized score and raw sum, the
/// lowest and highest sums, and the kinds of term that counted.
struct PodAffinityScores {
    per_node: Vec<(i64, i64)>,
    min: i64,
    max: i64,
    sources: Vec<&'static str>,
}

impl PodAffinityScores {
    /// The score's reason in words for the feasible node at `i`.
    fn words(&self, i: usize) -> String {
        let Some(&(score, sum)) = self.per_node.get(i) else {
            return String::new();
        };
        let sources = match self.sources.split_last() {
            Some((last, [])) => (*last).to_string(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => "its terms".to_string(),
        };
        format!(
            " + 2 × pod affinity {score} ({sources} sum to {sum} here, from {} to {} over the nodes)",
            self.min, self.max
        )
    }
}

/// A bound pod's affinity terms that InterPodAffinity's score reads.
struct OwnTerms {
    required: Vec<AffinityTerm>,
    affinity: Vec<(i64, AffinityTerm)>,
    anti_affinity: Vec<(i64, AffinityTerm)>,
}

/// NodeAffinity's score (weight 2; `Score` over `PreferredSchedulingTerms`, then
/// `DefaultNormalizeScore`): for each feasible node the summed `weight` of the pod's
/// `preferredDuringSchedulingIgnoredDuringExecution` terms whose preference it matches (a term
/// of weight 0 or with an empty preference counts for nothing), normalized so that the best
/// node gets 100 (`DefaultNormalizeScore`). With the weights, each node's sum. `None` when the
/// nodes do not differ in it: then every node scores the same.
fn node_affinity_scores(pod: &Pod, feasible: &[(&Node, NodeUsage)]) -> Option<Vec<(i64, i64)>> {
    let terms = preferred_affinity(&pod.spec, "nodeAffinity");
    if terms.is_empty() {
        return None;
    }
    let sums: Vec<i64> = feasible
        .iter()
        .map(|(node, _)| {
            terms
                .iter()
                .filter_map(|t| {
                    let weight = t.get("weight").and_then(serde_json::Value::as_i64)?;
                    let preference = t.get("preference")?;
                    (weight != 0 && node_selector_term_matches(preference, node)).then_some(weight)
                })
                .sum()
        })
        .collect();
    let max = sums.iter().copied().max().unwrap_or(0);
    if max <= 0 || sums.iter().all(|&s| s == max) {
        return None;
    }
    Some(sums.iter().map(|&s| (100 * s / max, s)).collect())
}

/// One `NodeSelectorRequirement` against a node's labels (or fields), `value_of` giving the
/// node's value for a key: `In`, `NotIn`, `Exists`, `DoesNotExist`, and `Gt` / `Lt`, which
/// compare the value and the requirement's one value as integers.
fn requirement_matches<'n>(
    r: &serde_json::Value,
    value_of: impl Fn(&str) -> Option<&'n str>,
) -> bool {
    let text = |k: &str| r.get(k).and_then(serde_json::Value::as_str).unwrap_or("");
    let values: Vec<&str> = r
        .get("values")
        .and_then(serde_json::Value::as_array)
        .map(|v| v.iter().filter_map(serde_json::Value::as_str).collect())
        .unwrap_or_default();
    let value = value_of(text("key"));
    let number = |v: &str| v.parse::<i64>().ok();
    match text("operator") {
        "In" => value.is_some_and(|v| values.contains(&v)),
        "NotIn" => value.is_none_or(|v| !values.contains(&v)),
        "Exists" => value.is_some(),
        "DoesNotExist" => value.is_none(),
        "Gt" | "Lt" => {
            let (Some(have), [want]) = (value.and_then(number), values.as_slice()) else {
                return false;
            };
            let Some(want) = number(want) else {
                return false;
            };
            if text("operator") == "Gt" {
                have > want
            } else {
                have < want
            }
        }
        _ => false,
    }
}

/// A feasible node's scores from the default profile's plugins that tell the simulated nodes
/// apart, each 0–100: NodeResourcesFit (LeastAllocated, weight 1), NodeResourcesBalancedAllocation
/// (weight 1; skipped for a pod that requests nothing), PodTopologySpread (weight 2; the pod's
/// `ScheduleAnyway` constraints, or the system defaults for a pod that sets none and that a
/// ReplicaSet owns), and TaintToleration
/// (weight 3) when a feasible node has a `PreferNoSchedule` taint, and NodeAffinity's preferred
/// terms (weight 2) and InterPodAffinity (weight 2). The other scoring plugins give every
/// simulated node the same score, except ImageLocality, which is not modelled.
#[derive(Clone, Copy, Debug)]
struct Scores {
    fit: i64,
    balanced: Option<i64>,
    spread: Option<i64>,
    /// TaintToleration (weight 3), only when the feasible nodes differ in it.
    taints: Option<i64>,
    /// NodeAffinity's preferred terms (weight 2): the normalized score and the matched weight,
    /// only when the feasible nodes differ in it.
    affinity: Option<(i64, i64)>,
    /// InterPodAffinity (weight 2): the normalized score and the node's raw sum, only when the
    /// feasible nodes differ in it.
    pod_affinity: Option<(i64, i64)>,
}

impl Scores {
    /// The weighted sum the scheduler ranks nodes by.
    fn total(self) -> i64 {
        self.fit
            + self.balanced.unwrap_or(0)
            + 2 * self.spread.unwrap_or(0)
            + 3 * self.taints.unwrap_or(0)
            + 2 * self.affinity.map_or(0, |(score, _)| score)
            + 2 * self.pod_affinity.map_or(0, |(score, _)| score)
    }
}

/// TaintToleration's score for each feasible node: its `PreferNoSchedule` taints the pod does
/// not tolerate, counted, then normalized in reverse (`DefaultNormalizeScore`: the node with the
/// most gets 0, one with none 100). `None` when the feasible nodes do not differ in it (none
/// has such a taint, or all have as many): then every node scores the same.
fn taint_scores(pod: &Pod, feasible: &[(&Node, NodeUsage)]) -> Option<Vec<i64>> {
    if feasible
        .iter()
        .all(|(n, _)| !n.spec.taints.iter().any(|t| t.effect == "PreferNoSchedule"))
    {
        return None;
    }
    let tolerations = toleration::of_pod(&pod.spec);
    let counts: Vec<i64> = feasible
        .iter()
        .map(|(n, _)| toleration::intolerable_prefer_no_schedule(&tolerations, &n.taints()))
        .collect();
    let max = counts.iter().copied().max().unwrap_or(0);
    // Equal counts give every node the same score, which ranks none above another.
    if max == 0 || counts.iter().all(|&c| c == max) {
        return None;
    }
    Some(counts.iter().map(|&c| 100 - 100 * c / max).collect())
}

/// `NodeResourcesBalancedAllocation`: how evenly the node's CPU and memory would be requested
/// with this pod, `(1 − |cpu fraction − memory fraction| / 2) × 100`, fractions at most 1. It
/// counts real requests (no defaults), and skips a pod that requests nothing (v1.33+), so that
/// best-effort pods are not all sent to the same node.
fn balanced_allocation((cpu, mem): (i64, i64), node: &Node, used: NodeUsage) -> Option<i64> {
    if cpu == 0 && mem == 0 {
        return None;
    }
    let fraction = |req: i64, cap: i64| {
        if cap <= 0 {
            0.0
        } else {
            (req as f64 / cap as f64).min(1.0)
        }
    };
    let f_cpu = fraction(used.milli_cpu + cpu, node.status.allocatable_milli_cpu);
    let f_mem = fraction(used.memory + mem, node.status.allocatable_memory);
    let std = ((f_cpu - f_mem) / 2.0).abs();
    Some(((1.0 - std) * 100.0) as i64)
}

/// The natural logarithm from additions, multiplications and divisions only, so that native
/// and WebAssembly builds agree to the last bit (the platforms' `log` need not): `x = m · 2^k`
/// with `m` in [1, 2), then `ln m = 2 atanh((m − 1)/(m + 1))` by its series. For `x ≥ 1`.
pub(super) fn ln_f64(x: f64) -> f64 {
    const LN_2: f64 = std::f64::consts::LN_2;
    if x.is_nan() || x < 1.0 {
        return 0.0;
    }
    let mut m = x;
    let mut k = 0.0;
    while m >= 2.0 {
        m /= 2.0;
        k += 1.0;
    }
    let z = (m - 1.0) / (m + 1.0);
    let z2 = z * z;
    let mut term = z;
    let mut sum = 0.0;
    let mut n = 1.0;
    while n < 60.0 {
        sum += term / n;
        term *= z2;
        n += 2.0;
    }
    k * LN_2 + 2.0 * sum
}

/// `NodeResourcesFit` with the LeastAllocated strategy: the mean free share of CPU and memory,
/// 0–100, counting pods without requests at the scheduler's non-zero defaults.
/// `(cpu, mem)` are the pod's requests and `used` the requests already held on the node.
fn score_node((cpu, mem): (i64, i64), node: &Node, used: NodeUsage) -> i64 {
    let non_zero = |v: i64, d: i64| if v == 0 { d } else { v };
    let pods_on_node = used.pods;
    let cpu_req = used.milli_cpu.max(pods_on_node * DEFAULT_MILLI_CPU_REQUEST)
        + non_zero(cpu, DEFAULT_MILLI_CPU_REQUEST);
    let mem_req = used.memory.max(pods_on_node * DEFAULT_MEMORY_REQUEST)
        + non_zero(mem, DEFAULT_MEMORY_REQUEST);
    let free = |req: i64, cap: i64| {
        if cap <= 0 || req > cap {
            0
        } else {
            (cap - req) * 100 / cap
        }
    };
    (free(cpu_req, node.status.allocatable_milli_cpu)
        + free(mem_req, node.status.allocatable_memory))
        / 2
}

/// The `FailedScheduling` message (§15.1, v1.34–v1.36 form): the filter histogram, then the
/// post-filter messages of the DRA plugin and of preemption.
///
/// Example: `0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate,
/// preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.`
pub fn failed_scheduling_message(n_nodes: usize, failures: &[FilterFailure]) -> String {
    if n_nodes == 0 {
        return "no nodes available to schedule pods".to_string();
    }
    let mut filter_hist: BTreeMap<String, usize> = BTreeMap::new();
    let mut preempt_hist: BTreeMap<String, usize> = BTreeMap::new();
    for f in failures {
        for r in &f.reasons {
            *filter_hist.entry(r.clone()).or_default() += 1;
        }
        let p = if f.unresolvable {
            "Preemption is not helpful for scheduling"
        } else {
            "No preemption victims found for incoming pod"
        };
        *preempt_hist.entry(p.to_string()).or_default() += 1;
    }
    let render = |h: &BTreeMap<String, usize>| {
        let mut parts: Vec<String> = h.iter().map(|(r, n)| format!("{n} {r}")).collect();
        order::sort(&mut parts);
        parts.join(", ")
    };
    format!(
        "0/{n_nodes} nodes are available: {}. no new claims to deallocate, preemption: 0/{n_nodes} nodes are available: {}.",
        render(&filter_hist),
        render(&preempt_hist)
    )
}

/// `scheduleOne`: places one pending pod. Ties between equally good nodes are broken by the
/// seeded generator, as upstream picks at random among the best.
pub fn schedule_pod(store: &Store, name: &str, now: Time, rng: &mut Rng) -> (Outcome, Plugins) {
    let mut out = Outcome::default();
    // The pod's key in the store: the retry and the kubelet's work share it.
    let Some((key, pod)) = store.pods.get_key_value(name) else {
        return (out, Plugins::NONE);
    };
    if !pod.node_name.is_empty() || pod.metadata.deletion_timestamp.is_some() {
        return (out, Plugins::NONE);
    }
    // The `SchedulingGates` PreEnqueue plugin: a gated pod waits outside the scheduling queue,
    // untried and without a FailedScheduling event, until its gates are removed.
    if !pod.spec.scheduling_gates().is_empty() {
        return (out, Plugins::NONE);
    }
    let mut failures = Vec::new();
    let requests = pod_requests(pod);
    let ports_in_use = host_ports_in_use(pod, store);
    let spread_filter = SpreadFilter::of(pod, store);
    let inter_pod = InterPodCounts::of(pod, store);
    let mut feasible: Vec<(&Node, NodeUsage)> = Vec::new();
    for (node, used) in store.nodes_with_usage() {
        match filter_node_with(
            pod,
            requests,
            node,
            used,
            &ports_in_use,
            &spread_filter,
            &inter_pod,
        ) {
            Ok(()) => feasible.push((node, used)),
            Err(f) => failures.push(f),
        }
    }
    let fits = feasible.len();
    let rejected = failures
        .iter()
        .fold(Plugins::NONE, |all, f| all.union(f.plugin));
    // The nodes with the top score, in name order: a higher score starts the list again.
    let feasible_nodes: Vec<&Node> = feasible.iter().map(|(n, _)| *n).collect();
    let spread = topology_spread::scores(pod, store, &feasible_nodes);
    let taint_scores = taint_scores(pod, &feasible);
    let affinity_scores = node_affinity_scores(pod, &feasible);
    let pod_affinity_scores = pod_affinity_scores(pod, store, &feasible);
    let mut top = i64::MIN;
    let mut candidates: Vec<(usize, &Node, Scores)> = Vec::new();
    for (i, &(node, used)) in feasible.iter().enumerate() {
        let scores = Scores {
            fit: score_node(requests, node, used),
            balanced: balanced_allocation(requests, node, used),
            spread: spread.as_ref().map(|s| s.normalized[i]),
            taints: taint_scores.as_ref().map(|t| t[i]),
            affinity: affinity_scores.as_ref().map(|a| a[i]),
            pod_affinity: pod_affinity_scores.as_ref().map(|a| a.per_node[i]),
        };
        let total = scores.total();
        if total > top {
            top = total;
            candidates.clear();
        }
        if total == top {
            candidates.push((i, node, scores));
        }
    }
    if candidates.is_empty() {
        let message = failed_scheduling_message(store.nodes.len(), &failures);
        out.events.push(Event::warning(
            COMPONENT,
            ObjectRef::new("Pod", name),
            EventReason::FailedScheduling,
            message.clone(),
        ));
        out.set_pod_condition(
            PodName::clone(key),
            pod,
            PodCondition {
                type_: PodConditionType::PodScheduled,
                status: ConditionStatus::False,
                last_transition_time: now.truncate_to_secs(),
                reason: Some("Unschedulable".into()),
                message: Some(message.as_str().into()),
            },
        );
        // A cluster event whose queueing hint may help retries the pod at once
        // (`wake_unschedulable`); without one it waits in the unschedulable queue for five
        // minutes and up to 30 s more. With no node at all, no plugin ran, and every event
        // retries it.
        let retry_at = unschedulable_leftover_retry(now);
        out.requeue.push((
            retry_at.millis_since(now),
            Work::SchedulePod(Arc::clone(key)),
        ));
        out.stage = Some(Stage::Retry);
        let rejectors = rejected;
        let (cpu, mem) = requests;
        out.say(format!(
            "No node can take {name} (it requests {} CPU and {} memory): {message}{} The pod stays Pending; the scheduler tries it again when {}, or else at {retry_at}, once it has waited more than five minutes.",
            format_cpu(cpu),
            format_mem(mem),
            spread_words(&spread_filter, rejectors),
            rejectors.retry_hint()
        ));
        return (out, rejectors);
    }
    let (chosen, node, scores) = candidates[rng.below(candidates.len() as u64) as usize];
    let node_name = node.metadata.name.clone();
    // A pod placed on a node with a NoExecute taint (it tolerates it: unreachable, or the
    // scenario's) is timed by the taint eviction controller from now.
    if super::node_lifecycle::has_no_execute_taint(node) {
        out.requeue.push((
            0,
            super::node_lifecycle::eviction_for_bound_pod(&node_name, now),
        ));
    }
    out.change(Change::BindPod {
        name: name.to_string(),
        node: node_name.clone(),
        condition: PodCondition {
            type_: PodConditionType::PodScheduled,
            status: ConditionStatus::True,
            last_transition_time: now.truncate_to_secs(),
            reason: None,
            message: None,
        },
    });
    out.events.push(Event::normal(
        COMPONENT,
        ObjectRef::new("Pod", name),
        EventReason::Scheduled,
        [
            "Successfully assigned ",
            crate::sim::api::DEFAULT_NAMESPACE,
            "/",
            name,
            " to ",
            &node_name,
        ]
        .concat(),
    ));
    out.stage = Some(Stage::Schedule);
    let used = store.node_usage(&node_name);
    // Upstream's `selectHost` picks at random among the nodes with the top score, so a tie is
    // said as one: the best of one among equals would be half the story.
    let choice = match candidates.len() {
        1 => "scores highest".to_string(),
        k => format!(
            "ties with {} other node{} for the highest score and wins the scheduler's random pick among them (seeded)",
            k - 1,
            if k == 2 { "" } else { "s" }
        ),
    };
    let score_words = spread.as_ref().map(|s| s.words(chosen)).unwrap_or_default();
    let balance_words = scores
        .balanced
        .map(|b| format!(" + balance {b}"))
        .unwrap_or_default();
    let affinity_words = scores
        .affinity
        .map(|(a, weight)| {
            format!(" + 2 × node affinity {a} (the preferred node affinity terms it matches weigh {weight})")
        })
        .unwrap_or_default();
    let pod_affinity_words = pod_affinity_scores
        .as_ref()
        .map(|a| a.words(chosen))
        .unwrap_or_default();
    let taint_words = scores
        .taints
        .map(|t| format!(" + 3 × taints {t} (PreferNoSchedule taints it does not tolerate count against a node)"))
        .unwrap_or_default();
    let requested = format!(
        "{} of {} CPU and {} of {} memory requested before this pod",
        format_cpu(used.milli_cpu),
        format_cpu(node.status.allocatable_milli_cpu),
        format_mem(used.memory),
        format_mem(node.status.allocatable_memory),
    );
    // Upstream's `schedulePod` scores nothing when one node passes the filters ("When only one
    // node after predicate, just use it"), so no score is told then.
    let placed = if fits == 1 {
        format!(
            "{node_name} ({requested}) is the only one, so the scheduler binds the pod there without scoring."
        )
    } else {
        format!(
            "{node_name} ({requested}) {choice}: {} = free capacity {}{balance_words}{score_words}{affinity_words}{pod_affinity_words}{taint_words}. The pod is bound there.",
            scores.total(),
            scores.fit,
        )
    };
    out.say(format!(
        "{name} fits on {} of {} node{}; {placed}{}",
        fits,
        store.nodes.len(),
        plural(store.nodes.len() as i64),
        spread_words(&spread_filter, rejected),
    ));
    out.requeue.push((0, Work::KubeletSyncPod(Arc::clone(key))));
    (out, Plugins::NONE)
}

/// The topology spread arithmetic, said when PodTopologySpread turned a node away, with a
/// space before it; empty otherwise.
fn spread_words(filter: &SpreadFilter, rejected: Plugins) -> String {
    if rejected.intersects(Plugins::POD_TOPOLOGY_SPREAD) {
        format!(" {}", filter.explain())
    } else {
        String::new()
    }
}

/// Milli-CPU as kubectl shows it (`500m`, `2`).
pub fn format_cpu(milli: i64) -> String {
    if milli % 1000 == 0 {
        format!("{}", milli / 1000)
    } else {
        format!("{milli}m")
    }
}

/// Bytes as kubectl shows them (`128Mi`, `8Gi`).
pub fn format_mem(bytes: i64) -> String {
    const GI: i64 = 1 << 30;
    const MI: i64 = 1 << 20;
    const KI: i64 = 1 << 10;
    if bytes != 0 && bytes % GI == 0 {
        format!("{}Gi", bytes / GI)
    } else if bytes != 0 && bytes % MI == 0 {
        format!("{}Mi", bytes / MI)
    } else if bytes != 0 && bytes % KI == 0 {
        format!("{}Ki", bytes / KI)
    } else {
        bytes.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The logarithm made of plain arithmetic agrees with the platform's to within rounding
    /// for the domain counts the spread weights take (ln 3 for one node, ln 1002 for 1,000).
    #[test]
    fn ln_from_plain_arithmetic_matches_the_platform() {
        for x in (1..=1_002).map(f64::from) {
            let (ours, platform) = (ln_f64(x), x.ln());
            assert!(
                (ours - platform).abs() < 1e-12,
                "ln {x}: {ours} vs {platform}"
            );
        }
    }

    /// BalancedAllocation: 1 CPU of 4 and 1Gi of 8Gi requested with the pod is
    /// `(1 − |0.25 − 0.125| / 2) × 100` = 93.75, truncated; a pod that requests nothing skips it.
    #[test]
    fn balanced_allocation_scores_the_spread_between_cpu_and_memory() {
        let mut node = Node::default();
        node.status.allocatable_milli_cpu = 4000;
        node.status.allocatable_memory = 8 << 30;
        let used = NodeUsage {
            milli_cpu: 500,
            memory: 512 << 20,
            pods: 1,
        };
        assert_eq!(balanced_allocation((500, 512 << 20), &node, used), Some(93));
        assert_eq!(balanced_allocation((0, 0), &node, used), None);
    }

    /// The queue's flush looks every 30 s and wants more than five minutes of waiting: a pod
    /// that failed at 70 s is moved at 390 s (at 360 s it has waited 290 s); one that failed
    /// exactly on a flush waits for the flush after the five minutes are up.
    #[test]
    fn an_unschedulable_pod_is_retried_at_the_first_flush_after_five_minutes() {
        assert_eq!(
            unschedulable_leftover_retry(Time::from_secs(70)),
            Time::from_secs(390)
        );
        assert_eq!(
            unschedulable_leftover_retry(Time::from_secs(60)),
            Time::from_secs(390)
        );
        assert_eq!(
            unschedulable_leftover_retry(Time(59_999)),
            Time::from_secs(360)
        );
        assert_eq!(
            unschedulable_leftover_retry(Time::ZERO),
            Time::from_secs(330)
        );
    }
}
