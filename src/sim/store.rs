//! The cluster state ("the API server"): every object by name in ordered maps, the indexes the
//! controllers need to stay fast, and the one place where [`Change`]s are applied.
//!
//! Applying a change is where the API server's own rules live: `generation` bumps on spec or
//! annotation changes, `observedGeneration` stays with status writes, names and UIDs are given
//! to new objects, and deletions set `deletionTimestamp`.

use super::api::{
    ConditionStatus, Container, Deployment, Node, Pod, PodConditionType, PodPhase, PodSpec,
    PodStatus, ReplicaSet, Shared, Time, quantity,
};
use super::controller::Change;
use super::controller::scheduler::Plugins;
use super::kubelet::PodRuntime;
use imbl::{OrdMap, OrdSet};
use serde::Serialize;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;
use std::sync::Arc;

/// A pod's name as a map key. Shared rather than owned: the pod map, the kubelet map and the
/// owner index hold one allocation per pod between them, copying a tree node after a snapshot
/// (copy on write) copies pointers rather than strings, and walking an owner's pods can match
/// the index against the pod map by pointer before comparing any text.
pub type PodName = Arc<str>;

/// Resources held on a node by the pods bound to it (terminating ones included, as upstream:
/// they release their requests only when they are gone).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct NodeUsage {
    pub milli_cpu: i64,
    pub memory: i64,
    pub pods: i64,
}

/// Counts of one owner's pods, kept up to date as pods change, so the replica-set controller
/// does not walk every pod on every sync. `ready_times` holds the Ready transition times of the
/// ready, active pods (for minReadySeconds availability).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PodCounts {
    pub active: i32,
    pub ready: i32,
    pub terminating: i32,
    pub ready_times: BTreeMap<Time, i32>,
}

impl PodCounts {
    /// Ready pods that have been Ready for longer than `min_ready_seconds` at `now`
    /// (`IsPodAvailable`, strictly).
    pub fn available(&self, min_ready_seconds: i32, now: Time) -> i32 {
        if min_ready_seconds <= 0 {
            return self.ready;
        }
        let window = u64::try_from(min_ready_seconds).unwrap_or(0) * 1000;
        if now.as_millis() <= window {
            return 0;
        }
        let cutoff = Time(now.as_millis() - window);
        self.ready_times.range(..cutoff).map(|(_, n)| *n).sum()
    }

    /// The earliest Ready time among ready pods not yet available, if any.
    pub fn next_available_at(&self, min_ready_seconds: i32, now: Time) -> Option<Time> {
        let window = u64::try_from(min_ready_seconds).unwrap_or(0) * 1000;
        let cutoff = Time(now.as_millis().saturating_sub(window));
        self.ready_times
            .range(cutoff..)
            .next()
            .map(|(t, _)| t.plus_millis(window))
    }
}

/// What the deletion ranking (`ActivePodsWithRanks`) reads of an active pod, kept for each owner
/// by pod name. A scale-down ranks every active pod of the Deployment's ReplicaSet; reading these
/// from one compact index rather than from each pod object, its conditions and its container
/// statuses saves a handful of cache misses per pod, which at thousands of pods is most of the
/// cost of a scale-down.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RankFacts {
    /// The node the pod is bound to, empty when unassigned. Interned: every pod on a node shares
    /// one string.
    pub node: Arc<str>,
    /// The interned node's number ([`Store::interned_nodes`]), so that a scale-down finds each
    /// pod's co-location count in a table rather than by the node's name.
    pub node_index: usize,
    pub phase: PodPhase,
    /// Whether the Ready condition is True.
    pub ready: bool,
    /// The Ready condition's last transition time, when the pod has the condition.
    pub ready_time: Option<Time>,
    pub deletion_cost: i32,
    pub max_restarts: i32,
    /// The largest restart count among the sidecars, the ranking's tie-break after
    /// `max_restarts`.
    pub max_sidecar_restarts: i32,
    pub creation: Time,
    pub uid: Arc<str>,
}

impl RankFacts {
    /// The facts of `pod`, bound to the interned `node` numbered `node_index`. `uid` is reused
    /// when the caller already holds the pod's UID, so that refreshing the facts allocates
    /// nothing.
    pub fn of(pod: &Pod, node: Arc<str>, node_index: usize, uid: Option<Arc<str>>) -> RankFacts {
        // Looked up once for both the readiness and its time.
        let ready = pod.condition(PodConditionType::Ready);
        RankFacts {
            node,
            node_index,
            phase: pod.status.phase,
            ready: ready.is_some_and(|c| c.status == ConditionStatus::True),
            ready_time: ready.map(|c| c.last_transition_time),
            deletion_cost: super::api::meta::pod_deletion_cost(&pod.metadata.annotations)
                .unwrap_or(0),
            max_restarts: pod.max_restarts(),
            max_sidecar_restarts: pod.max_sidecar_restarts(),
            creation: pod.metadata.creation_timestamp,
            uid: uid.unwrap_or_else(|| Arc::from(pod.metadata.uid.as_str())),
        }
    }
}

/// What applying one change touched, so the simulator can wake the right controllers (the
/// informers' event handlers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Touched {
    Deployment(String),
    ReplicaSet {
        name: String,
        owner: Option<String>,
    },
    Pod {
        /// The pod's key in the store, which work for the pod shares.
        name: PodName,
        /// The controlling owner's UID and name, when the change is `relevant` (only then does
        /// the owner want to hear of it).
        owner: Option<(String, String)>,
        /// Whether the pod is bound to a node.
        bound: bool,
        removed: bool,
        created: bool,
        /// Whether the change matters to the owner's counts (created, removed, deleted, Ready
        /// or terminal state changed).
        relevant: bool,
        /// Whether a status update made the pod Ready: its ReplicaSet then looks again once the
        /// pod can count as available (upstream `updatePod`).
        became_ready: bool,
        /// Whether a bound pod that went away held host ports: only then can its deletion free
        /// a port a pending pod waits for (NodePorts' queueing hint).
        freed_host_ports: bool,
        /// The labels of a pod that went away, which its watchers can no longer read from the
        /// store: PodTopologySpread's hint (for a bound pod) retries a pending pod only when one
        /// of its constraints selects them, and the disruption controller finds the pod's
        /// budgets by them.
        removed_labels: Option<Shared<BTreeMap<String, String>>>,
    },
    /// A node changed in a way that may let a pod fit: the plugins whose queueing hints retry
    /// a pod they turned down.
    Node {
        name: String,
        wakes: Plugins,
        /// The node's taints before the change, when they changed (cordoned or uncordoned,
        /// NotReady or Ready again, tainted or untainted): TaintToleration's and
        /// PodTopologySpread's hints read them.
        taints_before: Option<Vec<super::api::Taint>>,
    },
}

impl Touched {
    /// What a pod change touched: the pod, its controlling owner (UID and name) and its node.
    /// The owner is copied out only for a relevant change: most pod writes are status updates
    /// that the owner does not count.
    fn pod(name: PodName, pod: &Pod, removed: bool, created: bool, relevant: bool) -> Touched {
        Touched::Pod {
            name,
            owner: relevant
                .then(|| pod.metadata.controller_ref())
                .flatten()
                .map(|r| (r.uid.clone(), r.name.clone())),
            bound: !pod.node_name.is_empty(),
            removed,
            created,
            relevant,
            became_ready: false,
            freed_host_ports: removed
                && !pod.node_name.is_empty()
                && crate::sim::controller::scheduler::has_host_ports(pod),
            removed_labels: removed.then(|| pod.metadata.labels.clone()),
        }
    }
}

/// The cluster's objects.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Store {
    pub deployments: OrdMap<String, Deployment>,
    pub replica_sets: OrdMap<String, ReplicaSet>,
    /// Pods are shared values, so that copying a tree node after a snapshot (copy on write)
    /// copies pointers rather than every pod in the node.
    pub pods: OrdMap<PodName, Shared<Pod>>,
    pub nodes: OrdMap<String, Node>,
    /// Node-local kubelet state (pull back-offs, probe counters), keyed by pod name.
    pub kubelet: OrdMap<PodName, PodRuntime>,
    /// Pod names by the UID of their controlling owner, sharing the pod map's keys.
    pods_by_owner: OrdMap<String, OrdSet<PodName>>,
    /// Requests held on each node.
    node_usage: OrdMap<String, NodeUsage>,
    /// The next host number for pod IPs on each node.
    next_ip: OrdMap<String, u32>,
    /// The address each bound pod's sandbox gets on its node (the node's IPAM hands them out in
    /// binding order). The kubelet publishes it in `status.podIP` once the sandbox is up, not
    /// before: a pod whose first image pull holds its worker shows IP `<none>`.
    pub pod_ips: OrdMap<PodName, Arc<str>>,
    /// Pod counts by owner UID.
    counts: OrdMap<String, PodCounts>,
    /// Active pods by owner UID, then node: the co-location rank of the deletion ranking. Nested
    /// rather than keyed by a pair so that a lookup needs no owned key.
    on_node: OrdMap<String, OrdMap<String, i32>>,
    /// The ranking facts of each owner's active pods: owner UID, then pod name.
    rank_facts: OrdMap<String, OrdMap<PodName, RankFacts>>,
    /// One shared copy of each node name that pods are bound to, for [`RankFacts::node`], with
    /// its number: the count of names interned before it.
    node_names: OrdMap<Arc<str>, usize>,
    /// Node-local kubelet state shared by a node's pods.
    pub kubelet_nodes: OrdMap<String, crate::sim::kubelet::NodeRuntime>,
    /// Images the registry refuses to serve (the `fail_registry` fault).
    pub registry_down: OrdSet<String>,
    /// The namespace's ConfigMaps, by name, with their data keys (nothing reads the values).
    pub config_maps: OrdMap<String, BTreeSet<String>>,
    /// The namespace's Secrets, the same way.
    pub secrets: OrdMap<String, BTreeSet<String>>,
    /// The `kubectl drain` commands still waiting for the pods they evicted to go (client
    /// state, kept here so that a step back restores it with the pods).
    pub drains: Vec<crate::sim::drain::DrainWait>,
    /// How many `kubectl drain` commands have started: the next one's id.
    pub drains_started: u64,
    /// The namespace's PodDisruptionBudgets, by name.
    pub pdbs: OrdMap<String, crate::sim::api::PodDisruptionBudget>,
}

/// A pod's CPU and memory requests as the scheduler counts them ([`aggregate_containers`]).
pub fn pod_requests(pod: &Pod) -> (i64, i64) {
    let request = |c: &Container, name: &str, parse: fn(&serde_json::Value) -> Option<i64>| {
        c.resources.requests.get(name).and_then(parse).unwrap_or(0)
    };
    (
        aggregate_containers(&pod.spec, |c| request(c, "cpu", quantity::parse_cpu_milli)),
        aggregate_containers(&pod.spec, |c| request(c, "memory", quantity::parse_bytes)),
    )
}

/// `PodRequests`' aggregation of one amount over a pod's containers: the app containers and
/// the sidecars together, or, if larger, the peak of an init container's run, which counts the
/// sidecars started before it. Init containers run one at a time, so their amounts never add
/// up.
pub fn aggregate_containers(spec: &PodSpec, amount: impl Fn(&Container) -> i64) -> i64 {
    let regular = spec
        .containers
        .iter()
        .map(&amount)
        .fold(0i64, i64::saturating_add);
    let (mut sidecars, mut init_peak) = (0i64, 0i64);
    for c in &spec.init_containers {
        let during = if c.is_restartable() {
            sidecars = sidecars.saturating_add(amount(c));
            sidecars
        } else {
            amount(c).saturating_add(sidecars)
        };
        init_peak = init_peak.max(during);
    }
    regular.saturating_add(sidecars).max(init_peak)
}

impl Store {
    /// The pods whose controlling owner has the given UID, in name order.
    ///
    /// A ReplicaSet's pods are named after it (`<rs>-<5 random>`), so they mostly sit side by
    /// side in the pod map: the pods between the owner's first and last name are walked in step
    /// with its sorted name set, which finds each one with a comparison or two instead of a
    /// lookup from the root. Any other pod in that stretch is passed over. The index shares the
    /// pod map's keys, so a pod of the owner is recognised by pointer, without reading its name.
    pub fn pods_owned_by<'a>(&'a self, owner_uid: &str) -> impl Iterator<Item = &'a Pod> + 'a {
        let names = self.pods_by_owner.get(owner_uid);
        let span = names.and_then(|n| Some((n.get_min()?, n.get_max()?)));
        let mut wanted = names.into_iter().flat_map(|n| n.iter()).peekable();
        span.into_iter()
            .flat_map(|(first, last)| {
                self.pods
                    .range::<_, str>((Bound::Included(&**first), Bound::Included(&**last)))
            })
            .filter_map(move |(name, pod)| {
                let same = |w: &&PodName| Arc::ptr_eq(w, name) || **w == *name;
                while wanted.next_if(|w| !same(w) && **w < *name).is_some() {}
                wanted.next_if(same).map(|_| &**pod)
            })
    }

    /// The ranking facts of the active pods whose controlling owner has the given UID, in name
    /// order: the same pods, in the same order, as the active ones of [`Store::pods_owned_by`].
    pub fn rank_facts_of<'a>(
        &'a self,
        owner_uid: &str,
    ) -> impl Iterator<Item = (&'a PodName, &'a RankFacts)> + 'a {
        self.rank_facts
            .get(owner_uid)
            .into_iter()
            .flat_map(|m| m.iter())
    }

    /// Each node name that ranking facts hold ([`RankFacts::node`]), the empty name of
    /// unassigned pods included, with its number ([`RankFacts::node_index`]). The numbers run
    /// from 0 up without a gap.
    pub fn interned_nodes(&self) -> impl Iterator<Item = (&str, usize)> + '_ {
        self.node_names.iter().map(|(n, i)| (&**n, *i))
    }

    /// Brings the ranking facts of the pod filed under `key` up to date after a change: filed
    /// while the pod is active, dropped when it is not, and rewritten only when they differ (a
    /// write copies the index's path after a snapshot).
    fn refresh_rank(&mut self, key: &PodName, pod: &Pod) {
        let Some(r) = pod.metadata.controller_ref() else {
            return;
        };
        let current = self.rank_facts.get(&r.uid).and_then(|m| m.get(key));
        if !pod.is_active() {
            if current.is_some()
                && let Some(m) = self.rank_facts.get_mut(&r.uid)
            {
                m.remove(key);
                if m.is_empty() {
                    self.rank_facts.remove(&r.uid);
                }
            }
            return;
        }
        let (node, node_index) = match current {
            Some(f) if *f.node == *pod.node_name => (Arc::clone(&f.node), f.node_index),
            _ => match self.node_names.get_key_value(pod.node_name.as_str()) {
                Some((n, i)) => (Arc::clone(n), *i),
                None => {
                    let n: Arc<str> = Arc::from(pod.node_name.as_str());
                    let i = self.node_names.len();
                    self.node_names.insert(Arc::clone(&n), i);
                    (n, i)
                }
            },
        };
        let facts = RankFacts::of(pod, node, node_index, current.map(|f| Arc::clone(&f.uid)));
        if current == Some(&facts) {
            return;
        }
        with_entry(&mut self.rank_facts, &r.uid, |m| {
            m.insert(Arc::clone(key), facts);
        });
    }

    /// The ReplicaSets controlled by the Deployment with the given UID, in name order.
    pub fn replica_sets_owned_by<'a>(
        &'a self,
        owner_uid: &'a str,
    ) -> impl Iterator<Item = &'a ReplicaSet> + 'a {
        self.replica_sets.values().filter(move |rs| {
            rs.metadata
                .controller_ref()
                .is_some_and(|r| r.uid == owner_uid)
        })
    }

    /// The Deployment that controls a ReplicaSet, if any.
    pub fn owner_deployment(&self, rs: &ReplicaSet) -> Option<&Deployment> {
        let r = rs.metadata.controller_ref()?;
        self.deployments
            .get(&r.name)
            .filter(|d| d.metadata.uid == r.uid)
    }

    /// Every node in name order with the requests held on it. The usage index is keyed by node
    /// name too, so it is walked in step with the nodes rather than looked up for each one: the
    /// scheduler reads every node for every pod it places, and at thousands of pods on dozens of
    /// nodes those lookups were a good part of a run.
    pub fn nodes_with_usage(&self) -> impl Iterator<Item = (&Node, NodeUsage)> + '_ {
        let mut usage = self.node_usage.iter().peekable();
        self.nodes.iter().map(move |(name, node)| {
            // One comparison of the names per step: the usage before this node is passed over,
            // the node's own taken, and the usage after it left for the next node.
            let mut used = NodeUsage::default();
            while let Some((n, u)) = usage.peek() {
                match n.as_str().cmp(name.as_str()) {
                    Ordering::Less => {}
                    Ordering::Equal => {
                        used = **u;
                        usage.next();
                        break;
                    }
                    Ordering::Greater => break,
                }
                usage.next();
            }
            (node, used)
        })
    }

    /// Requests currently held on a node.
    pub fn node_usage(&self, node: &str) -> NodeUsage {
        self.node_usage.get(node).copied().unwrap_or_default()
    }

    /// The UIDs of the owners that have terminating pods (few: one per ReplicaSet at most).
    pub fn owners_with_terminating_pods(&self) -> impl Iterator<Item = &str> {
        self.counts
            .iter()
            .filter(|(_, c)| c.terminating > 0)
            .map(|(uid, _)| uid.as_str())
    }

    /// How many pods are terminating (deleted, not yet gone).
    pub fn terminating_pods(&self) -> i64 {
        self.counts.values().map(|c| i64::from(c.terminating)).sum()
    }

    /// Active pods of the owner with this UID on `node`.
    pub fn active_on_node(&self, owner_uid: &str, node: &str) -> i32 {
        self.on_node
            .get(owner_uid)
            .and_then(|by_node| by_node.get(node))
            .copied()
            .unwrap_or(0)
    }

    /// The counts of the pods controlled by the owner with this UID.
    pub fn pod_counts(&self, owner_uid: &str) -> &PodCounts {
        static EMPTY: PodCounts = PodCounts {
            active: 0,
            ready: 0,
            terminating: 0,
            ready_times: BTreeMap::new(),
        };
        self.counts.get(owner_uid).unwrap_or(&EMPTY)
    }

    fn index_pod(&mut self, name: &PodName, pod: &Pod) {
        if let Some(r) = pod.metadata.controller_ref() {
            self.pods_by_owner
                .entry(r.uid.clone())
                .or_default()
                .insert(Arc::clone(name));
        }
        self.account(pod, 1);
    }

    fn unindex_pod(&mut self, pod: &Pod) {
        self.account(pod, -1);
        if let Some(r) = pod.metadata.controller_ref()
            && let Some(set) = self.pods_by_owner.get_mut(&r.uid)
        {
            set.remove(pod.metadata.name.as_str());
            if set.is_empty() {
                self.pods_by_owner.remove(&r.uid);
            }
        }
    }

    /// Adds (`sign` 1) or removes (`sign` −1) a pod's contribution to its owner's counts.
    fn account(&mut self, pod: &Pod, sign: i32) {
        account(&mut self.on_node, &mut self.counts, pod, sign);
    }

    fn summary(pod: &Pod) -> (bool, bool, bool) {
        (pod.is_active(), pod.is_ready(), pod.is_terminal())
    }

    fn charge_node(&mut self, node: &str, pod: &Pod, sign: i64) {
        charge_node(&mut self.node_usage, node, pod, sign);
    }

    /// The data keys of the ConfigMap (or, with `secret`, the Secret) called `name`, if the
    /// namespace has it.
    pub fn config_object(&self, secret: bool, name: &str) -> Option<&BTreeSet<String>> {
        if secret {
            self.secrets.get(name)
        } else {
            self.config_maps.get(name)
        }
    }

    /// Adds a node (scenario set-up).
    pub fn add_node(&mut self, node: Node) {
        self.nodes.insert(node.metadata.name.clone(), node);
    }

    /// Applies one change at time `now` and reports what it touched, if anything. Changes that refer to
    /// objects that no longer exist are dropped, as the API server would answer NotFound.
    pub fn apply(&mut self, change: Change, now: Time) -> Option<Touched> {
        match change {
            Change::CreateReplicaSet(mut rs) => {
                rs.metadata.generation = 1;
                rs.metadata.creation_timestamp = now.truncate_to_secs();
                let name = rs.metadata.name.clone();
                let owner = rs.metadata.controller_ref().map(|r| r.name.clone());
                self.replica_sets.insert(name.clone(), rs);
                Some(Touched::ReplicaSet { name, owner })
            }
            Change::UpdateReplicaSet(rs) => {
                let name = rs.metadata.name.clone();
                let cur = self.replica_sets.get_mut(&name)?;
                if cur.spec != rs.spec {
                    cur.metadata.generation += 1;
                }
                cur.spec = rs.spec;
                let meta = rs.metadata.into_inner();
                cur.metadata.annotations = meta.annotations;
                cur.metadata.labels = meta.labels;
                let owner = cur.metadata.controller_ref().map(|r| r.name.clone());
                Some(Touched::ReplicaSet { name, owner })
            }
            Change::UpdateReplicaSetStatus { name, status } => {
                let cur = self.replica_sets.get_mut(&name)?;
                cur.status = status;
                let owner = cur.metadata.controller_ref().map(|r| r.name.clone());
                Some(Touched::ReplicaSet { name, owner })
            }
            Change::DeleteReplicaSet(name) => {
                let rs = self.replica_sets.remove(&name)?;
                let owner = rs.metadata.controller_ref().map(|r| r.name.clone());
                Some(Touched::ReplicaSet { name, owner })
            }
            Change::UpdateDeployment(mut d) => {
                let name = d.metadata.name.clone();
                // An empty rollback annotation converts to no `rollbackTo`, and the conversion
                // back to apps/v1 for storage drops it; the internal objects compared for the
                // generation still carry it.
                let rollback_key = crate::sim::controller::deployment::util::DEPRECATED_ROLLBACK_TO;
                let bump = self.deployments.get(&name).is_some_and(|cur| {
                    cur.spec != d.spec || cur.metadata.annotations != d.metadata.annotations
                });
                if d.metadata
                    .annotations
                    .get(rollback_key)
                    .is_some_and(|v| v.is_empty())
                {
                    d.metadata.annotations.remove(rollback_key);
                }
                match self.deployments.get_mut(&name) {
                    Some(cur) => {
                        if bump {
                            cur.metadata.generation += 1;
                        }
                        cur.spec = d.spec;
                        cur.metadata.annotations = d.metadata.annotations;
                        cur.metadata.labels = d.metadata.labels;
                    }
                    None => {
                        let mut d = *d;
                        d.metadata.generation = 1;
                        d.metadata.creation_timestamp = now.truncate_to_secs();
                        d.status = Default::default();
                        self.deployments.insert(name.clone(), d);
                    }
                }
                Some(Touched::Deployment(name))
            }
            Change::UpdateDeploymentStatus(d) => {
                let name = d.metadata.name.clone();
                let cur = self.deployments.get_mut(&name)?;
                // The status subresource keeps spec and labels but takes annotations and status.
                cur.status = d.status;
                cur.metadata.annotations = d.metadata.annotations;
                Some(Touched::Deployment(name))
            }
            Change::CreatePod(pod) => {
                let mut pod = *pod;
                pod.metadata.creation_timestamp = now.truncate_to_secs();
                // The pod defaulting of the API server (`SetDefaults_Pod`); the spec shared with
                // the template is copied only when there is something to default.
                if pod.spec.has_limits_without_requests() {
                    pod.spec.default_requests_to_limits();
                }
                pod.metadata.generation = 1;
                crate::sim::controller::topology_spread::merge_match_label_keys(&mut pod);
                // The API server's `applySchedulingGatedCondition`: a pod created with scheduling
                // gates says so in its PodScheduled condition (kubectl STATUS SchedulingGated).
                if !pod.spec.scheduling_gates().is_empty()
                    && !pod
                        .status
                        .conditions
                        .iter()
                        .any(|c| c.type_ == PodConditionType::PodScheduled)
                {
                    set_pod_condition(
                        &mut pod.status.conditions,
                        super::api::PodCondition {
                            type_: PodConditionType::PodScheduled,
                            status: super::api::ConditionStatus::False,
                            last_transition_time: now.truncate_to_secs(),
                            reason: Some("SchedulingGated".into()),
                            message: Some(
                                "Scheduling is blocked due to non-empty scheduling gates".into(),
                            ),
                        },
                    );
                }
                let key = PodName::from(pod.metadata.name.as_str());
                self.index_pod(&key, &pod);
                self.refresh_rank(&key, &pod);
                let touched = Touched::pod(Arc::clone(&key), &pod, false, true, true);
                self.pods.insert(key, Shared::new(pod));
                Some(touched)
            }
            Change::DeletePod {
                name,
                grace_seconds,
            } => {
                let (key, pod) = self.pods.get_key_value_mut(name.as_str())?;
                let key = Arc::clone(key);
                // A pod being deleted already may only have its grace period shortened
                // (`BeforeDelete`): its deletionTimestamp moves back by the difference, but never
                // into the past, where it stops at now with a grace period of 1.
                if let Some(at) = pod.metadata.deletion_timestamp {
                    let old = pod.metadata.deletion_grace_period_seconds.unwrap_or(0);
                    if old == 0 || grace_seconds >= old {
                        return None;
                    }
                    let started = at
                        .as_millis()
                        .saturating_sub(u64::try_from(old).unwrap_or(0).saturating_mul(1000));
                    let mut period = grace_seconds;
                    let mut new_at = Time::from_millis(started).plus_secs(grace_seconds);
                    if new_at < now {
                        new_at = now.truncate_to_secs();
                        if period != 0 {
                            period = 1;
                        }
                    }
                    pod.metadata.deletion_timestamp = Some(new_at);
                    pod.metadata.deletion_grace_period_seconds = Some(period);
                    let touched = Touched::pod(Arc::clone(&key), pod, false, false, true);
                    return Some(touched);
                }
                // An unscheduled pod has no kubelet to wait for: it goes at once, as upstream.
                if pod.node_name.is_empty() {
                    return self.apply(Change::RemovePod(name), now);
                }
                // The pod is edited in place and accounted before and after, rather than copied.
                account(&mut self.on_node, &mut self.counts, pod, -1);
                pod.metadata.deletion_timestamp =
                    Some(now.plus_secs(grace_seconds).truncate_to_secs());
                pod.metadata.deletion_grace_period_seconds = Some(grace_seconds);
                account(&mut self.on_node, &mut self.counts, pod, 1);
                let touched = Touched::pod(Arc::clone(&key), pod, false, false, true);
                let pod = Shared::clone(pod);
                self.refresh_rank(&key, &pod);
                Some(touched)
            }
            Change::RemovePod(name) => {
                let (key, pod) = self.pods.remove_with_key(name.as_str())?;
                self.unindex_pod(&pod);
                if let Some(r) = pod.metadata.controller_ref()
                    && let Some(m) = self.rank_facts.get_mut(&r.uid)
                    && m.remove(&key).is_some()
                    && m.is_empty()
                {
                    self.rank_facts.remove(&r.uid);
                }
                if !pod.node_name.is_empty() && !pod.is_terminal() {
                    self.charge_node(&pod.node_name, &pod, -1);
                }
                self.kubelet.remove(name.as_str());
                self.pod_ips.remove(name.as_str());
                Some(Touched::pod(key, &pod, true, false, true))
            }
            Change::BindPod {
                name,
                node,
                condition,
            } => {
                let ip = {
                    let n = self.next_ip.entry(node.clone()).or_insert(2);
                    let host = *n;
                    *n = if *n >= 254 { 2 } else { *n + 1 };
                    host
                };
                let cidr = self.nodes.get(&node).map_or(0, |n| n.spec.pod_cidr_index);
                let (key, pod) = self.pods.get_key_value_mut(name.as_str())?;
                let key = Arc::clone(key);
                account(&mut self.on_node, &mut self.counts, pod, -1);
                self.pod_ips
                    .insert(Arc::clone(&key), format!("10.244.{cidr}.{ip}").into());
                pod.status.host_ip = Some(format!("192.168.49.{}", cidr + 2));
                set_pod_condition(&mut pod.status.conditions, condition);
                charge_node(&mut self.node_usage, &node, pod, 1);
                pod.node_name = node;
                account(&mut self.on_node, &mut self.counts, pod, 1);
                let touched = Touched::pod(Arc::clone(&key), pod, false, false, false);
                let pod = Shared::clone(pod);
                self.refresh_rank(&key, &pod);
                Some(touched)
            }
            Change::UpdatePodStatus { name, status } => {
                let (key, pod) = self.pods.get_key_value_mut(&*name)?;
                let key = Arc::clone(key);
                // The new status goes in place; the old one is kept aside, and swapped back in
                // for a moment if the pod must be un-accounted as it was.
                let before = Self::summary(pod);
                let mut old_status = std::mem::replace(&mut pod.status, status);
                fn ready(s: &PodStatus) -> Option<&super::api::PodCondition> {
                    s.conditions
                        .iter()
                        .find(|c| c.type_ == super::api::PodConditionType::Ready)
                }
                let relevant = before != Self::summary(pod)
                    || (pod.is_ready() && ready(&old_status) != ready(&pod.status));
                if relevant {
                    std::mem::swap(&mut pod.status, &mut old_status);
                    account(&mut self.on_node, &mut self.counts, pod, -1);
                    std::mem::swap(&mut pod.status, &mut old_status);
                    account(&mut self.on_node, &mut self.counts, pod, 1);
                }
                let (_, _, was_terminal) = before;
                if !was_terminal && pod.is_terminal() && !pod.node_name.is_empty() {
                    charge_node(&mut self.node_usage, &pod.node_name, pod, -1);
                }
                // The ranking facts read only the phase, the Ready condition and the restart
                // counts of the status (the app containers' and, apart, the sidecars', as
                // `RankFacts::of` reads them); most status writes (a container's state) leave
                // them be, and then the index is not even looked at.
                let restarts =
                    |s: &PodStatus| (s.max_restarts(), s.max_sidecar_restarts(&pod.spec));
                let rank_changed = old_status.phase != pod.status.phase
                    || ready(&old_status) != ready(&pod.status)
                    || restarts(&old_status) != restarts(&pod.status);
                let (_, was_ready, _) = before;
                let mut touched = Touched::pod(Arc::clone(&key), pod, false, false, relevant);
                if let Touched::Pod { became_ready, .. } = &mut touched {
                    *became_ready = !was_ready && pod.is_ready();
                }
                if rank_changed {
                    let pod = Shared::clone(pod);
                    self.refresh_rank(&key, &pod);
                }
                Some(touched)
            }
            Change::SetPodRuntime { name, runtime } => {
                // A pod's runtime is filed only while the pod exists (removing the pod removes
                // it), so one already filed is replaced without looking the pod up. A new one is
                // filed under the pod map's key, so the two share it.
                match self.kubelet.get_mut(&*name) {
                    Some(cur) => *cur = runtime,
                    None => {
                        if let Some((key, _)) = self.pods.get_key_value(&*name) {
                            self.kubelet.insert(Arc::clone(key), runtime);
                        }
                    }
                }
                None
            }
            Change::SetNodeRuntime { name, runtime } => {
                self.kubelet_nodes.insert(name, runtime);
                None
            }
            Change::CreateConfig { secret, name, keys } => {
                if secret {
                    self.secrets.insert(name, keys);
                } else {
                    self.config_maps.insert(name, keys);
                }
                None
            }
            Change::WatchDrain(wait) => {
                if wait.id == self.drains_started {
                    self.drains_started += 1;
                }
                self.drains.retain(|d| d.id != wait.id);
                if !wait.is_done() {
                    self.drains.push(*wait);
                }
                None
            }
            Change::UpdatePdbStatus { name, status } => {
                if let Some(b) = self.pdbs.get_mut(&name) {
                    b.status = status;
                }
                None
            }
            Change::SetRegistryDown { image, down } => {
                if down {
                    self.registry_down.insert(image);
                } else {
                    self.registry_down.remove(&image);
                }
                None
            }
            Change::UpdateNode(node) => {
                let name = node.metadata.name.clone();
                // Only changes that can make a pod fit wake the scheduler, and only for the
                // plugins they can satisfy. Upstream's queueing hints skip the rest: a node that
                // only learned about a new image, and one that became less fit (cordoned,
                // NotReady and tainted, smaller), since a pod that did not fit before fits no
                // better after that. A new node may satisfy any plugin.
                // The taints before the change, when they changed: TaintToleration's hint
                // retries a pod that did not tolerate those and tolerates the new ones.
                let taints_before = self
                    .nodes
                    .get(&name)
                    .map(Node::taints)
                    .filter(|before| *before != node.taints());
                let taints_changed = taints_before.is_some();
                let wakes = match self.nodes.get(&name) {
                    None => Plugins::ALL,
                    Some(old) => [
                        (
                            old.spec.unschedulable && !node.spec.unschedulable,
                            Plugins::NODE_UNSCHEDULABLE,
                        ),
                        // NodeAffinity reads labels, and InterPodAffinity their topology keys.
                        (
                            old.metadata.labels != node.metadata.labels,
                            Plugins::NODE_AFFINITY
                                .union(Plugins::POD_AFFINITY)
                                .union(Plugins::POD_ANTI_AFFINITY),
                        ),
                        (
                            old.status.allocatable_milli_cpu < node.status.allocatable_milli_cpu
                                || old.status.allocatable_memory < node.status.allocatable_memory
                                || old.status.allocatable_pods < node.status.allocatable_pods,
                            Plugins::NODE_RESOURCES_FIT,
                        ),
                    ]
                    .into_iter()
                    .filter(|(changed, _)| *changed)
                    .fold(Plugins::NONE, |all, (_, p)| all.union(p)),
                };
                self.nodes.insert(name.clone(), *node);
                (wakes != Plugins::NONE || taints_changed).then_some(Touched::Node {
                    name,
                    wakes,
                    taints_before,
                })
            }
        }
    }
}

/// Adds (`sign` 1) or removes (`sign` −1) a pod's contribution to its owner's counts and to the
/// co-location index. A free function over the two indexes, so that it can account a pod that is
/// borrowed from the store's pod map for an edit in place.
fn account(
    on_node: &mut OrdMap<String, OrdMap<String, i32>>,
    counts: &mut OrdMap<String, PodCounts>,
    pod: &Pod,
    sign: i32,
) {
    let Some(r) = pod.metadata.controller_ref() else {
        return;
    };
    let active = pod.is_active();
    if active {
        let owner_gone = with_entry(on_node, &r.uid, |by_node| {
            let node_gone = with_entry(by_node, &pod.node_name, |n| {
                *n += sign;
                *n == 0
            });
            if node_gone {
                by_node.remove(&pod.node_name);
            }
            by_node.is_empty()
        });
        if owner_gone {
            on_node.remove(&r.uid);
        }
    }
    with_entry(counts, &r.uid, |c| {
        if active {
            c.active += sign;
            if pod.is_ready() {
                c.ready += sign;
                let t = pod
                    .condition(super::api::PodConditionType::Ready)
                    .map_or(Time::ZERO, |c| c.last_transition_time);
                let e = c.ready_times.entry(t).or_default();
                *e += sign;
                if *e == 0 {
                    c.ready_times.remove(&t);
                }
            }
        } else if pod.metadata.deletion_timestamp.is_some() && !pod.is_terminal() {
            c.terminating += sign;
        }
    });
}

/// Adds (`sign` 1) or releases (`sign` −1) a pod's requests on a node.
fn charge_node(node_usage: &mut OrdMap<String, NodeUsage>, node: &str, pod: &Pod, sign: i64) {
    let (cpu, mem) = pod_requests(pod);
    with_entry(node_usage, node, |u| {
        u.milli_cpu += sign * cpu;
        u.memory += sign * mem;
        u.pods += sign;
    });
}

/// Runs `f` on the value under `key`, inserting the default first if it is missing. Unlike
/// `entry`, it makes an owned key only when the key is new, which on these small, hot indexes is
/// the rare case.
fn with_entry<V: Clone + Default, R>(
    map: &mut OrdMap<String, V>,
    key: &str,
    f: impl FnOnce(&mut V) -> R,
) -> R {
    match map.get_mut(key) {
        Some(v) => f(v),
        None => {
            let mut v = V::default();
            let r = f(&mut v);
            map.insert(key.to_string(), v);
            r
        }
    }
}

/// Sets a pod condition, keeping the old transition time when the status did not change. The
/// conditions are kept in type order.
pub fn set_pod_condition(
    conditions: &mut Vec<super::api::PodCondition>,
    cond: super::api::PodCondition,
) {
    if let Some(cur) = conditions.iter_mut().find(|c| c.type_ == cond.type_) {
        let keep_time = cur.status == cond.status;
        let t = cur.last_transition_time;
        *cur = cond;
        if keep_time {
            cur.last_transition_time = t;
        }
    } else {
        // Every write of a pod's conditions comes through here, so they are already in type
        // order and a new type goes straight to its place, as appending and sorting would put it.
        let at = conditions.partition_point(|c| c.type_ < cond.type_);
        conditions.insert(at, cond);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::api::PodCondition;
    use PodConditionType::*;

    /// `PodRequests` with init containers: app containers and sidecars add up; a plain init
    /// container counts alone with the sidecars started before it, and the larger total wins.
    #[test]
    fn init_containers_count_at_their_peak() {
        let container = |name: &str, cpu: &str, sidecar: bool| {
            let mut c = Container {
                name: name.into(),
                ..Default::default()
            };
            c.resources.requests.insert("cpu".into(), cpu.into());
            if sidecar {
                c.extra.insert("restartPolicy".into(), "Always".into());
            }
            c
        };
        let pod = |inits: Vec<Container>, apps: Vec<Container>| Pod {
            spec: Shared::new(PodSpec {
                init_containers: inits,
                containers: apps,
                ..Default::default()
            }),
            ..Default::default()
        };
        let web = || container("web", "250m", false);
        // No init containers: the app containers' sum.
        assert_eq!(pod_requests(&pod(vec![], vec![web(), web()])).0, 500);
        // A migration asking for more than the app: its peak.
        let migrate = container("migrate", "1", false);
        assert_eq!(
            pod_requests(&pod(vec![migrate.clone()], vec![web()])).0,
            1000
        );
        // A sidecar runs beside everything after it: 100m + 250m, or 100m + 1 during migrate.
        let proxy = container("proxy", "100m", true);
        assert_eq!(pod_requests(&pod(vec![proxy.clone()], vec![web()])).0, 350);
        assert_eq!(
            pod_requests(&pod(vec![proxy.clone(), migrate.clone()], vec![web()])).0,
            1100
        );
        // A sidecar started after the migration does not count during it.
        assert_eq!(
            pod_requests(&pod(vec![migrate, proxy], vec![web()])).0,
            1000
        );
    }

    /// A new condition type goes to its place in type order, wherever it arrives, and setting
    /// a type again replaces it in place.
    #[test]
    fn pod_conditions_stay_in_type_order() {
        let cond = |type_, status| PodCondition {
            type_,
            status,
            last_transition_time: Time::ZERO,
            reason: None,
            message: None,
        };
        let mut conditions = Vec::new();
        for t in [
            PodScheduled,
            PodReadyToStartContainers,
            Initialized,
            ContainersReady,
            Ready,
        ] {
            set_pod_condition(&mut conditions, cond(t, ConditionStatus::False));
        }
        set_pod_condition(&mut conditions, cond(Ready, ConditionStatus::True));
        let types: Vec<_> = conditions.iter().map(|c| (c.type_, c.status)).collect();
        assert_eq!(
            types,
            [
                (PodReadyToStartContainers, ConditionStatus::False),
                (Initialized, ConditionStatus::False),
                (Ready, ConditionStatus::True),
                (ContainersReady, ConditionStatus::False),
                (PodScheduled, ConditionStatus::False),
            ]
        );
    }
}
