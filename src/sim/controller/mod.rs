//! Controllers: the deployment controller, the replica-set controller and the scheduler. Each is a
//! function of the cluster state that returns an [`Outcome`] — the changes to apply, the events
//! to record, work to schedule later, and a sentence saying why — and never mutates the store.

pub mod deployment;
pub mod disruption;
pub mod node_lifecycle;
pub mod replica_set;
pub mod scheduler;
pub mod topology_spread;
pub mod workqueue;

use super::api::{
    Deployment, Event, Node, Pod, PodCondition, PodStatus, ReplicaSet, ReplicaSetStatus,
};
use super::kubelet::PodRuntime;
use super::store::PodName;
use super::trace::Stage;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// One write to the API server. Controllers return these; only the simulator applies them.
///
/// The whole objects a write carries (a Deployment, a pod, a node) are boxed: a change is as
/// large as its largest variant, and the frequent ones are pod status and kubelet writes, so
/// with those objects inline every change, and every outcome's list of them, was several times
/// the size it needs, and moving and growing those lists was a noticeable part of each step.
#[derive(Clone, Debug)]
pub enum Change {
    CreateReplicaSet(ReplicaSet),
    /// A write of a ReplicaSet's spec, labels and annotations.
    UpdateReplicaSet(ReplicaSet),
    UpdateReplicaSetStatus {
        name: String,
        status: ReplicaSetStatus,
    },
    DeleteReplicaSet(String),
    /// A write of a Deployment's spec, labels and annotations (or its creation).
    UpdateDeployment(Box<Deployment>),
    /// A write through the status subresource: status and annotations.
    UpdateDeploymentStatus(Box<Deployment>),
    CreatePod(Box<Pod>),
    /// Graceful deletion: sets `deletionTimestamp`; the kubelet removes the pod later.
    DeletePod {
        name: String,
        grace_seconds: i64,
    },
    /// The pod object disappears (termination finished, or an unscheduled pod was deleted).
    RemovePod(String),
    /// The scheduler's binding: `spec.nodeName` and the PodScheduled condition.
    BindPod {
        name: String,
        node: String,
        condition: PodCondition,
    },
    /// A write of a pod's status. The pod is named by a shared name (the store's key, when the
    /// writer has it), which the kubelet's frequent writes pass on without copying the text.
    UpdatePodStatus {
        name: PodName,
        status: PodStatus,
    },
    /// Node-local kubelet bookkeeping (not an API object), named as a status write is.
    SetPodRuntime {
        name: PodName,
        runtime: PodRuntime,
    },
    UpdateNode(Box<Node>),
    /// A ConfigMap (or, with `secret`, a Secret) is created, with these data keys.
    CreateConfig {
        secret: bool,
        name: String,
        keys: std::collections::BTreeSet<String>,
    },
    /// A fault: the registry serves an image or not (not an API object).
    SetRegistryDown {
        image: String,
        down: bool,
    },
    /// Node-local kubelet bookkeeping shared by a node's pods (the image puller).
    SetNodeRuntime {
        name: String,
        runtime: crate::sim::kubelet::NodeRuntime,
    },
    /// A `kubectl drain` starts, or moves on (client state, not an API object): the drain with
    /// the same id is replaced, and one that is over leaves.
    WatchDrain(Box<crate::sim::drain::DrainWait>),
    /// A write of a PodDisruptionBudget's status (by its controller or the Eviction API).
    UpdatePdbStatus {
        name: String,
        status: crate::sim::api::PodDisruptionBudgetStatus,
    },
}

/// A unit of pending work in the simulator's queue: which actor looks at which object.
/// The ordering only breaks ties between items due at the same instant and enqueued together.
///
/// Names are shared ([`ObjectName`]) rather than owned: work for a pod can share the store's key
/// for it instead of copying the text, and the queue, which moves and copies its items as its
/// tree rebalances, then moves pointers.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Work {
    /// A scenario action (index into the scenario's action list).
    Action(usize),
    SyncDeployment(ObjectName),
    SyncReplicaSet(ObjectName),
    SchedulePod(ObjectName),
    /// The kubelet looks at a pod: starts pulls and containers, restarts, reports status.
    KubeletSyncPod(ObjectName),
    /// An image pull that was started finishes.
    PullComplete {
        pod: ObjectName,
        container: usize,
    },
    /// A probe worker's period elapses.
    ProbeTick {
        pod: ObjectName,
        container: usize,
        probe: ProbeKind,
        instance: u32,
        /// The worker's ticker the tick belongs to ([`crate::sim::kubelet::ProbeWorker::ticker`]).
        ticker: u16,
    },
    /// A probe run that took time (the app's answer, or the timeout) ends.
    ProbeRunEnd {
        pod: ObjectName,
        container: usize,
        probe: ProbeKind,
        instance: u32,
    },
    /// A container's process exits on its own (`crash_after`).
    ContainerExit {
        pod: ObjectName,
        container: usize,
        instance: u32,
    },
    /// The kubelet's pod worker looks at a pod again after a failed or backed-off sync; `look`
    /// tells it from a look a later sync replaced.
    PodWorkerLook {
        pod: ObjectName,
        look: u32,
    },
    /// A terminating pod's containers have stopped; the pod object goes away.
    TerminationComplete(ObjectName),
    /// The node lifecycle controller checks a node's health after the grace period.
    NodeMonitor(ObjectName),
    /// Pods on a node tainted unreachable at `tainted_at` may have outlived their toleration.
    TaintEviction {
        node: ObjectName,
        tainted_at: crate::sim::api::Time,
    },
    /// A node's kubelet computes the node's status (its `nodeStatusUpdateFrequency` tick after a
    /// cordon or uncordon).
    KubeletNodeStatus(ObjectName),
    /// The disruption controller recounts a PodDisruptionBudget.
    SyncDisruptionBudget(ObjectName),
    /// The disruption controller's pod handler warns that several budgets count a pod.
    OverlappingBudgets {
        pod: ObjectName,
        chosen: ObjectName,
        count: usize,
    },
    /// A `kubectl drain` (by its id) tries again the evictions a budget refused.
    DrainRetry(u64),
    /// A `kubectl drain` (by its id) looks at the pods it waits for when one may be skipped or
    /// its timeout has run out.
    DrainPoll(u64),
}

/// An object's name as [`Work`] carries it. It hashes, compares and serializes as the text
/// itself, so the queue's order and fingerprints are those of the names.
pub type ObjectName = Arc<str>;

/// The three probe types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ProbeKind {
    Startup,
    Readiness,
    Liveness,
}

impl ProbeKind {
    /// The word upstream puts in front of probe messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Startup => "Startup",
            Self::Readiness => "Readiness",
            Self::Liveness => "Liveness",
        }
    }

    /// The probe type as a word within a sentence: `liveness`.
    pub fn word(self) -> &'static str {
        match self {
            Self::Startup => "startup",
            Self::Readiness => "readiness",
            Self::Liveness => "liveness",
        }
    }
}

/// What one actor decided in one step.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub changes: Vec<Change>,
    pub events: Vec<Event>,
    /// Work to do later: `(delay in milliseconds, work)`.
    pub requeue: Vec<(u64, Work)>,
    /// Sentences explaining why, with the real numbers.
    pub narration: Narration,
    /// The stage this action belongs to; `None` lets the simulator infer it.
    pub stage: Option<Stage>,
    /// The error a controller's sync returned (`syncHandler`'s `err`): the simulator requeues
    /// the key with rate limiting instead of forgetting it ([`workqueue::RateLimiter`]).
    pub error: Option<String>,
    /// The sync asked for its key back through the rate limiter (`enqueueRateLimited`), as the
    /// deployment controller does within the last second of a progress deadline: the simulator
    /// requeues it as it requeues a failure, then forgets it as it forgets a success.
    pub rate_limited: bool,
    /// The actor's name as the trace prints it, when the actor knows it and the outcome is a
    /// step: a kubelet is named after its node (`kubelet/node-1`), which it has at hand, where
    /// the simulator would look the pod up again to find it.
    pub actor: Option<String>,
}

/// The sentences of an outcome's narration, in the order said. Nearly every step says one, so
/// the first is kept apart and only a second one starts a vector: a vector for the first would
/// allocate on every step.
#[derive(Clone, Debug, Default)]
pub struct Narration {
    first: Option<String>,
    more: Vec<String>,
}

impl Narration {
    /// Whether nothing has been said.
    pub fn is_empty(&self) -> bool {
        self.first.is_none()
    }

    /// Adds a sentence. A pass may reach the same decision twice (upstream re-syncs revisions in
    /// both the scaling-event check and the rollout); it is said once.
    fn say(&mut self, sentence: String) {
        match &self.first {
            None => self.first = Some(sentence),
            Some(first) => {
                if *first != sentence && !self.more.contains(&sentence) {
                    self.more.push(sentence);
                }
            }
        }
    }

    /// The sentences joined by spaces, or `None` if nothing was said. A lone sentence is
    /// returned as it is rather than copied.
    pub fn into_text(self) -> Option<String> {
        let mut text = self.first?;
        text.reserve(self.more.iter().map(|s| s.len() + 1).sum());
        for sentence in &self.more {
            text.push(' ');
            text.push_str(sentence);
        }
        Some(text)
    }
}

impl Outcome {
    /// Whether the action changed anything anyone can observe.
    pub fn is_noop(&self) -> bool {
        self.changes.iter().all(|c| {
            matches!(
                c,
                Change::SetPodRuntime { .. }
                    | Change::SetNodeRuntime { .. }
                    | Change::SetRegistryDown { .. }
            )
        }) && self.events.is_empty()
    }

    /// Adds a change. The vector grows from room for one, doubling, rather than from the
    /// standard first growth of four: a change is a large value and most outcomes carry one or
    /// two, so four would take a block big enough to send the allocator through its slower path
    /// on almost every step.
    pub fn change(&mut self, change: Change) {
        if self.changes.len() == self.changes.capacity() {
            self.changes.reserve_exact(self.changes.len().max(1));
        }
        self.changes.push(change);
    }

    /// Writes one condition of pod `name` as a controller does (`UpdatePodCondition`, then a
    /// status patch only when that changed something). Returns whether it wrote.
    pub fn set_pod_condition(&mut self, name: PodName, pod: &Pod, condition: PodCondition) -> bool {
        let mut status = pod.status.clone();
        super::store::set_pod_condition(&mut status.conditions, condition);
        let changed = status != pod.status;
        if changed {
            self.change(Change::UpdatePodStatus { name, status });
        }
        changed
    }

    /// Adds a sentence to the narration.
    pub fn say(&mut self, sentence: impl Into<String>) {
        self.narration.say(sentence.into());
    }

    /// Sets the stage unless one is set already.
    pub fn stage_default(&mut self, stage: Stage) {
        if self.stage.is_none() {
            self.stage = Some(stage);
        }
    }

    /// Raises the stage to `stage` if it is later than the current one: a step that both
    /// scales and reports failure is labelled with the later stage.
    pub fn stage_at_least(&mut self, stage: Stage) {
        if self.stage.is_none_or(|s| s < stage) {
            self.stage = Some(stage);
        }
    }
}
