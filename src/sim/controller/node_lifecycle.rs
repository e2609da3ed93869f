//! The node lifecycle controller (`pkg/controller/nodelifecycle`): notices a node whose kubelet
//! stopped posting status, marks it NotReady and its pods not ready, and after the pods'
//! default `tolerationSeconds` evicts them so their ReplicaSets replace them elsewhere.

use super::{Change, Outcome, Work};
use crate::sim::api::{
    ConditionStatus, Event, EventReason, ObjectRef, PodCondition, PodConditionType, Time,
};
use crate::sim::store::Store;
use crate::sim::trace::Stage;

/// The component name upstream records on its events.
pub const COMPONENT: &str = "node-controller";
/// `--node-monitor-grace-period`: how long a silent node stays Ready. Its default is 50 s since
/// v1.32 (kubernetes PR #126287; 40 s before). The simulated kubelet renewed its lease at the
/// moment it fell silent, so NotReady comes exactly this long after the fault; on a real
/// cluster the lease's 10 s renewals and the controller's 5 s checks add up to 15 s more.
pub const NODE_MONITOR_GRACE_MS: u64 = 50_000;
/// `nodeStatusUpdateFrequency`: how often a kubelet computes its node's status, which is when
/// it notices that the node was cordoned or uncordoned.
pub const NODE_STATUS_UPDATE_MS: u64 = 10_000;
/// The `tolerationSeconds` (300) every pod gets for `node.kubernetes.io/unreachable:NoExecute`.
pub const DEFAULT_TOLERATION_MS: u64 = 300_000;

/// `monitorNodeHealth` for one node: if its kubelet is silent, mark the node NotReady and every
/// pod on it not Ready (`MarkPodsNotReady`), then schedule the taint-based eviction.
pub fn monitor_node_health(store: &Store, node: &str, now: Time) -> Outcome {
    let mut out = Outcome::default();
    let Some(n) = store.nodes.get(node) else {
        return out;
    };
    let silent = crate::sim::kubelet::node_down(store, node);
    if !silent || !n.status.ready {
        return out;
    }
    let mut updated = n.clone();
    updated.status.ready = false;
    out.change(Change::UpdateNode(Box::new(updated)));
    out.events.push(Event::normal(
        COMPONENT,
        ObjectRef::new("Node", node),
        EventReason::NodeNotReady,
        format!("Node {node} status is now: NodeNotReady"),
    ));
    // Pods being deleted are marked too, but they had stopped counting as available when
    // their deletion began (`FilterActivePods`), so the narration counts them apart.
    let (mut marked, mut already, mut terminating) = (0, 0, 0);
    for pod in store
        .pods
        .values()
        .filter(|p| p.node_name == node && !p.is_terminal())
    {
        // `MarkPodsNotReady` edits a copy of the pod's own Ready condition: only its status
        // turns False, its reason and message stay, and a pod whose Ready was already False
        // (a failing readiness probe, say) is unchanged, so it is neither written nor given a
        // `NodeNotReady` event. The container statuses (and so kubectl's READY column) and
        // ContainersReady keep what the lost kubelet last said.
        let Some(ready) = pod
            .status
            .conditions
            .iter()
            .find(|c| c.type_ == PodConditionType::Ready)
        else {
            continue;
        };
        if ready.status == ConditionStatus::False {
            already += 1;
            continue;
        }
        let not_ready = PodCondition {
            status: ConditionStatus::False,
            last_transition_time: now.truncate_to_secs(),
            ..ready.clone()
        };
        if out.set_pod_condition(pod.metadata.name.as_str().into(), pod, not_ready) {
            marked += 1;
            if pod.metadata.deletion_timestamp.is_some() {
                terminating += 1;
            }
            out.events.push(Event::warning(
                COMPONENT,
                ObjectRef::new("Pod", &pod.metadata.name),
                EventReason::NodeNotReady,
                "Node is not ready".to_string(),
            ));
        }
    }
    out.requeue
        .push((DEFAULT_TOLERATION_MS, Work::TaintEviction(node.into())));
    out.stage = Some(Stage::Retry);
    let already = match already {
        0 => String::new(),
        1 => " (1 other was not Ready already, so it is left as it is)".to_string(),
        n => format!(" ({n} others were not Ready already, so they are left as they are)"),
    };
    let counted = marked - terminating;
    let effect = match (counted, terminating) {
        (0, 0) => "no pod's availability changes".to_string(),
        (_, 0) if marked == 1 => "it stops counting as available".to_string(),
        (_, 0) => "they stop counting as available".to_string(),
        (0, _) => "all of them were already Terminating, so none counted as available".to_string(),
        (c, t) => format!(
            "{c} of them stop{} counting as available ({t} already Terminating did not count)",
            if c == 1 { "s" } else { "" }
        ),
    };
    out.say(format!(
        "The kubelet on {node} has not posted status for the node-monitor grace period ({}s), so the node controller marks {node} NotReady (Ready=Unknown, tainted unreachable) and its {marked} pod{} not Ready{already}: {effect}. Pods tolerate the unreachable taint for {}s before they are evicted.",
        NODE_MONITOR_GRACE_MS / 1000,
        if marked == 1 { "" } else { "s" },
        DEFAULT_TOLERATION_MS / 1000
    ));
    out
}

/// Taint-based eviction (`processPodOnNode`, then `addConditionAndDeletePod` in
/// `pkg/controller/tainteviction`): pods still on an unreachable node after their toleration
/// are marked with the DisruptionTarget condition and deleted. Their kubelet is gone, so they
/// stay Terminating, but their ReplicaSets replace them at once.
pub fn taint_eviction(store: &Store, node: &str, now: Time) -> Outcome {
    let mut out = Outcome::default();
    let silent = crate::sim::kubelet::node_down(store, node);
    if !silent {
        return out;
    }
    let victims: Vec<_> = store
        .pods
        .values()
        .filter(|p| p.node_name == node && p.metadata.deletion_timestamp.is_none())
        .collect();
    for p in &victims {
        // `addConditionAndDeletePod`: the pod is marked as the target of a disruption, then
        // deleted.
        out.set_pod_condition(
            p.metadata.name.as_str().into(),
            p,
            PodCondition {
                type_: PodConditionType::DisruptionTarget,
                status: ConditionStatus::True,
                last_transition_time: now.truncate_to_secs(),
                reason: Some("DeletionByTaintManager".into()),
                message: Some("Taint manager: deleting due to NoExecute taint".into()),
            },
        );
        out.change(Change::DeletePod {
            name: p.metadata.name.clone(),
            grace_seconds: p.spec.termination_grace_period_seconds.unwrap_or(30),
        });
        out.events.push(Event::normal(
            "taint-eviction-controller",
            ObjectRef::new("Pod", &p.metadata.name),
            EventReason::TaintManagerEviction,
            format!("Marking for deletion Pod default/{}", p.metadata.name),
        ));
    }
    if !victims.is_empty() {
        // Pods already being deleted are left as they are: the count says which were evicted.
        let deleting = store
            .pods
            .values()
            .filter(|p| p.node_name == node && p.metadata.deletion_timestamp.is_some())
            .count();
        let which = if deleting > 0 {
            " not already being deleted"
        } else {
            ""
        };
        out.stage = Some(Stage::Retry);
        out.say(format!(
            "{node} has been unreachable for longer than the pods' 300s toleration, so the {} pod{} on it{which} {} evicted: marked DisruptionTarget (DeletionByTaintManager), then deleted. With the kubelet gone they stay Terminating, but their ReplicaSets no longer count them and create replacements on healthy nodes.",
            victims.len(),
            if victims.len() == 1 { "" } else { "s" },
            if victims.len() == 1 { "is" } else { "are" }
        ));
    }
    out
}
