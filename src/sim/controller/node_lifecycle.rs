//! The node lifecycle controller (`pkg/controller/nodelifecycle`): notices a node whose kubelet
//! stopped posting status, marks it NotReady and its pods not ready, and after the pods'
//! default `tolerationSeconds` evicts them so their ReplicaSets replace them elsewhere, and
//! removes the node's taints when its kubelet posts status again; with it, the taint eviction
//! controller (`pkg/controller/tainteviction`), which also evicts a pod from a node with a
//! scenario's `NoExecute` taint once its toleration runs out, and cancels the evictions a removed
//! taint leaves without cause.

use super::{Change, Outcome, Work};
use crate::sim::api::toleration::{self, Eviction};
use crate::sim::api::{
    ConditionStatus, Event, EventReason, Node, ObjectRef, Pod, PodCondition, PodConditionType,
    Taint, Time,
};
use crate::sim::store::Store;
use crate::sim::trace::Stage;
use std::collections::BTreeMap;

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
/// `--node-monitor-period`: how often the node lifecycle controller looks at every node.
pub const NODE_MONITOR_PERIOD_MS: u64 = 5_000;

/// `monitorNodeHealth` for one node: if its kubelet is silent, mark the node NotReady (which
/// taints it `unreachable:NoSchedule` at once) and every pod on it not Ready
/// (`MarkPodsNotReady`), and look again one monitor period later ([`taint_unreachable`]).
pub fn monitor_node_health(store: &Store, node: &str, now: Time) -> Outcome {
    let mut out = Outcome::default();
    let Some(n) = store.nodes.get(node) else {
        return out;
    };
    let silent = crate::sim::kubelet::node_down(store, node);
    if !silent {
        return mark_node_as_reachable(store, n, now);
    }
    // A look queued for an earlier silence of a kubelet that has run since: the lease it
    // renewed when it stopped again starts the grace period over.
    let down_since = store
        .kubelet_nodes
        .get(node)
        .and_then(|r| r.down_since)
        .unwrap_or(now);
    let silent_for = now.millis_since(down_since);
    if n.status.ready && silent_for < NODE_MONITOR_GRACE_MS {
        // The queue holds one look per node, so the look for this silence was folded into
        // that one: it is put off to the end of this grace period.
        out.requeue.push((
            NODE_MONITOR_GRACE_MS - silent_for,
            Work::NodeMonitor(node.into()),
        ));
        return out;
    }
    if !n.status.ready {
        return taint_unreachable(store, n, now);
    }
    let mut updated = n.clone();
    updated.status.ready = false;
    out.change(Change::UpdateNode(Box::new(updated)));
    out.requeue
        .push((NODE_MONITOR_PERIOD_MS, Work::NodeMonitor(node.into())));
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
        "The kubelet on {node} has not posted status for the node-monitor grace period ({}s), so the node controller marks {node} NotReady (Ready=Unknown, tainted unreachable:NoSchedule, so nothing new is placed there) and its {marked} pod{} not Ready{already}: {effect}. Its next look, {}s later, adds the NoExecute taint that starts the pods' eviction clocks.",
        NODE_MONITOR_GRACE_MS / 1000,
        if marked == 1 { "" } else { "s" },
        NODE_MONITOR_PERIOD_MS / 1000
    ));
    out
}

/// The node lifecycle controller's look at a node whose kubelet posts status again
/// (`processTaintBaseEviction` finds Ready True, and `markNodeAsReachable` removes the
/// `unreachable:NoExecute` taint: "Node is healthy again, removed all taints", a log line, not
/// an event); the taint eviction controller cancels the evictions still to come. Nothing when
/// the node never got the taint.
fn mark_node_as_reachable(store: &Store, n: &Node, now: Time) -> Outcome {
    let mut out = Outcome::default();
    if !n.status.ready
        || !n
            .spec
            .taints
            .iter()
            .any(|t| t.key == toleration::UNREACHABLE)
    {
        return out;
    }
    let node = n.metadata.name.as_str();
    let mut updated = n.clone();
    updated
        .spec
        .taints
        .retain(|t| t.key != toleration::UNREACHABLE);
    cancel_evictions(store, n, &updated, now, &mut out);
    let cancelled = out.events.len();
    out.change(Change::UpdateNode(Box::new(updated)));
    out.stage = Some(Stage::Retry);
    let what = match cancelled {
        0 => "No pod there had an eviction still to come.".to_string(),
        1 => "The taint eviction controller cancels the 1 eviction still to come: that pod stays."
            .to_string(),
        c => format!(
            "The taint eviction controller cancels the {c} evictions still to come: those pods stay."
        ),
    };
    out.say(format!(
        "The node controller's look at {node} finds it Ready again (its kubelet posts status), so it removes the node.kubernetes.io/unreachable:NoExecute taint. {what}"
    ));
    out
}

/// The node lifecycle controller's next pass over a node it found NotReady: the condition it
/// observes is now Unknown, so `processTaintBaseEviction` taints the node
/// `unreachable:NoExecute` (`markNodeForTainting`, written by the NoExecute tainting pass), and
/// the taint eviction controller starts timing every pod bound there.
fn taint_unreachable(store: &Store, n: &Node, now: Time) -> Outcome {
    let mut out = Outcome::default();
    let node = n.metadata.name.as_str();
    let tainted = n
        .spec
        .taints
        .iter()
        .any(|t| t.key == toleration::UNREACHABLE && t.effect == "NoExecute");
    if tainted {
        return out;
    }
    let mut updated = n.clone();
    // `reorganizeTaints` lists a new taint first.
    updated.spec.taints.insert(
        0,
        Taint {
            time_added: Some(now.truncate_to_secs()),
            ..Taint::new(toleration::UNREACHABLE, "", "NoExecute")
        },
    );
    let all_taints = updated.taints();
    out.change(Change::UpdateNode(Box::new(updated)));
    // The taint eviction controller looks at each pod on the newly tainted node: one whose
    // tolerations do not cover the NoExecute taint goes at once, the others after their
    // matching toleration's tolerationSeconds (300 s from the admission plugin unless the pod
    // tolerates the taint itself), and one that tolerates it without a time stays. The first
    // eviction is queued; each queues the next.
    let taints = no_execute(&all_taints);
    let mut groups: BTreeMap<Option<i64>, usize> = BTreeMap::new();
    // Every pod bound there counts, those being deleted too (`processPodOnNode` for each pod
    // the node's index holds).
    for pod in store.pods.values().filter(|p| p.node_name == node) {
        let secs = match pod_eviction(pod, &taints) {
            Eviction::Now => Some(0),
            Eviction::AfterSeconds(s) => Some(s),
            Eviction::Never => None,
        };
        *groups.entry(secs).or_default() += 1;
    }
    // Every pod there was bound before the taint, so each is due its toleration from now: the
    // first is the shortest (`None`, never, sorts first and is passed over).
    if let Some(secs) = groups.keys().find_map(|secs| *secs) {
        out.requeue.push((
            u64::try_from(secs).unwrap_or(0).saturating_mul(1000),
            Work::TaintEviction {
                node: node.into(),
                tainted_at: now,
            },
        ));
    }
    out.stage = Some(Stage::Retry);
    out.say(format!(
        "The node controller looks at {node} again, one --node-monitor-period ({}s) on, and finds it still not ready: it taints it node.kubernetes.io/unreachable:NoExecute, and the taint eviction controller starts timing each pod there. {}",
        NODE_MONITOR_PERIOD_MS / 1000,
        describe_tolerations(&groups, taints.len() > 1)
    ));
    out
}

/// How the pods on a newly unreachable node tolerate its NoExecute taint (with `more`, its
/// NoExecute taints: a scenario's as well), by their eviction time in seconds (`None`: never),
/// as the narration says it.
fn describe_tolerations(groups: &BTreeMap<Option<i64>, usize>, more: bool) -> String {
    let default = toleration::DEFAULT_TOLERATION_SECONDS;
    let (taint, it) = if more {
        ("its NoExecute taints", "them")
    } else {
        ("the unreachable taint", "it")
    };
    match groups.len() {
        0 => return String::new(),
        1 if groups.contains_key(&Some(default)) => {
            return format!("Pods tolerate {taint} for {default}s before they are evicted.");
        }
        _ => {}
    }
    let parts: Vec<String> = groups
        .iter()
        .map(|(secs, &n)| {
            let pods = if n == 1 {
                "1 pod".to_string()
            } else {
                format!("{n} pods")
            };
            match secs {
                None => format!(
                    "{pods} tolerate{} {it} without a time limit and stay{}",
                    verb_s(n),
                    verb_s(n)
                ),
                Some(0) => format!(
                    "{pods} do{} not tolerate {it} and {} evicted at once",
                    if n == 1 { "es" } else { "" },
                    if n == 1 { "is" } else { "are" }
                ),
                Some(s) => format!("{pods} tolerate{} {it} for {s}s", verb_s(n)),
            }
        })
        .collect();
    format!("Of the pods there, {}.", parts.join(", "))
}

/// The third-person `s` of a verb whose subject counts `n`.
fn verb_s(n: usize) -> &'static str {
    if n == 1 { "s" } else { "" }
}

/// A node's `NoExecute` taints, of those it carries.
fn no_execute(taints: &[Taint]) -> Vec<&Taint> {
    taints.iter().filter(|t| t.effect == "NoExecute").collect()
}

/// Whether the node carries a `NoExecute` taint (unreachable, or one the scenario gave it): a
/// pod bound there is timed by the taint eviction controller.
pub fn has_no_execute_taint(node: &Node) -> bool {
    node.taints().iter().any(|t| t.effect == "NoExecute")
}

/// The `NoExecute` taints that decide when the pod goes: those it does not tolerate if any,
/// else those whose matching toleration has the shortest `tolerationSeconds`.
fn deciding_taints<'t>(pod: &Pod, taints: &[&'t Taint]) -> Vec<&'t Taint> {
    let tolerations = toleration::of_pod(&pod.spec);
    let seconds: Vec<Option<Option<i64>>> = taints
        .iter()
        .map(|t| toleration::toleration_seconds(&tolerations, t))
        .collect();
    if seconds.iter().any(Option::is_none) {
        return taints
            .iter()
            .zip(&seconds)
            .filter(|(_, s)| s.is_none())
            .map(|(t, _)| *t)
            .collect();
    }
    let shortest = seconds.iter().filter_map(|s| s.flatten()).min();
    taints
        .iter()
        .zip(&seconds)
        .filter(|(_, s)| shortest.is_some() && s.flatten() == shortest)
        .map(|(t, _)| *t)
        .collect()
}

/// When a pod goes from a node with these `NoExecute` taints, by its tolerations (the
/// template's and the admission plugin's).
fn pod_eviction(pod: &Pod, taints: &[&Taint]) -> Eviction {
    toleration::no_execute_eviction_all(&toleration::of_pod(&pod.spec), taints)
}

/// When a pod on a node tainted at `tainted_at` is due to be evicted (`None`: never). The
/// controller times a pod from when it saw it on the tainted node: the taint's time, or the
/// pod's binding when the scheduler placed it there later (a pod that tolerates the taint).
fn eviction_due(pod: &Pod, tainted_at: Time, taints: &[&Taint]) -> Option<Time> {
    let bound = pod
        .status
        .conditions
        .iter()
        .find(|c| c.type_ == PodConditionType::PodScheduled && c.status == ConditionStatus::True)
        .map_or(tainted_at, |c| c.last_transition_time);
    // A pod bound after this taint has a check of its own, started at its exact binding (the
    // condition's time is whole seconds): this one leaves it to that.
    if bound > tainted_at {
        return None;
    }
    let since = tainted_at;
    match pod_eviction(pod, taints) {
        Eviction::Now => Some(since),
        Eviction::AfterSeconds(s) => {
            Some(since.plus_millis(u64::try_from(s).unwrap_or(0).saturating_mul(1000)))
        }
        Eviction::Never => None,
    }
}

/// The taint eviction controller's answer to a node left without `NoExecute` taints
/// (`handleNodeUpdate`: "All taints were removed from the node. Cancelling all evictions"): each
/// pod on it whose eviction was scheduled keeps running, with a `TaintManagerEviction` event
/// `Cancelling deletion of Pod default/<pod>`. A pod whose eviction has fired already has no
/// work left to cancel (upstream's timed worker is gone once it ran), so it gets none. The work
/// already queued finds no taint, or one added later, and does nothing (see
/// [`taint_eviction`]).
pub fn cancel_evictions(store: &Store, before: &Node, after: &Node, now: Time, out: &mut Outcome) {
    if !no_execute(&after.taints()).is_empty() {
        return;
    }
    let before_taints = before.taints();
    let had = no_execute(&before_taints);
    let tainted_at = had
        .iter()
        .filter_map(|t| t.time_added)
        .min()
        .unwrap_or(Time::ZERO);
    for p in store
        .pods
        .values()
        .filter(|p| p.node_name == before.metadata.name && !evicted_by_taint(p))
    {
        if let Eviction::AfterSeconds(secs) = pod_eviction(p, &had) {
            // The controller timed the pod from the taint, or from its binding if that came
            // later.
            let since = p
                .status
                .conditions
                .iter()
                .find(|c| {
                    c.type_ == PodConditionType::PodScheduled && c.status == ConditionStatus::True
                })
                .map_or(tainted_at, |c| c.last_transition_time.max(tainted_at));
            let due = since.plus_millis(u64::try_from(secs).unwrap_or(0).saturating_mul(1000));
            if due <= now {
                continue;
            }
            out.events.push(Event::normal(
                "taint-eviction-controller",
                ObjectRef::new("Pod", &p.metadata.name),
                EventReason::TaintManagerEviction,
                format!("Cancelling deletion of Pod default/{}", p.metadata.name),
            ));
        }
    }
}

/// Whether the taint eviction controller has evicted the pod already (its work for the pod
/// fired, which leaves nothing to cancel): the pod carries its `DisruptionTarget` condition.
fn evicted_by_taint(pod: &Pod) -> bool {
    pod.status.conditions.iter().any(|c| {
        c.type_ == PodConditionType::DisruptionTarget
            && c.reason.as_deref() == Some("DeletionByTaintManager")
    })
}

/// The taint eviction controller's answer to a pod removed from the API while its eviction was
/// still to come (`handlePodUpdate` finds it gone and calls `cancelWorkWithEvent`): a pod on a
/// node with `NoExecute` taints it tolerates for a time, which the controller has not marked
/// `DeletionByTaintManager` yet, gets a `TaintManagerEviction` event `Cancelling deletion of Pod
/// default/<pod>`. Work that has fired leaves nothing to cancel, and a pod that tolerates the
/// taints for ever never had work, so neither gets one. Returns whether it cancelled.
pub fn cancel_eviction_of_removed_pod(store: &Store, pod: &Pod, out: &mut Outcome) -> bool {
    let Some(node) = store.nodes.get(&pod.node_name) else {
        return false;
    };
    let taints = node.taints();
    if !matches!(
        pod_eviction(pod, &no_execute(&taints)),
        Eviction::AfterSeconds(_)
    ) {
        return false;
    }
    let evicted = evicted_by_taint(pod);
    if !evicted {
        out.events.push(Event::normal(
            "taint-eviction-controller",
            ObjectRef::new("Pod", &pod.metadata.name),
            EventReason::TaintManagerEviction,
            format!("Cancelling deletion of Pod default/{}", pod.metadata.name),
        ));
    }
    !evicted
}

/// The eviction check for a pod the scheduler has just bound to a node with a `NoExecute` taint
/// (one that tolerates it, and the node's NoSchedule taints): the taint eviction controller
/// sees it there now and times it from now (`handlePodUpdate`).
pub fn eviction_for_bound_pod(node: &str, now: Time) -> Work {
    Work::TaintEviction {
        node: node.into(),
        tainted_at: now,
    }
}

/// `addConditionAndDeletePod`, as the taint eviction controller and the Eviction API both do
/// it: the pod is marked as the target of a disruption (`DisruptionTarget`, with the evictor's
/// reason and message), then deleted with `grace` seconds, or its own grace period.
pub fn add_condition_and_delete_pod(
    out: &mut Outcome,
    p: &Pod,
    (reason, message): (&'static str, &'static str),
    grace: Option<i64>,
    now: Time,
) {
    out.set_pod_condition(
        p.metadata.name.as_str().into(),
        p,
        PodCondition {
            type_: PodConditionType::DisruptionTarget,
            status: ConditionStatus::True,
            last_transition_time: now.truncate_to_secs(),
            reason: Some(reason.into()),
            message: Some(message.into()),
        },
    );
    out.change(Change::DeletePod {
        name: p.metadata.name.clone(),
        grace_seconds: grace.unwrap_or_else(|| p.spec.termination_grace_seconds()),
    });
}

/// Taint-based eviction (`processPodOnNode`, then `addConditionAndDeletePod` in
/// `pkg/controller/tainteviction`): pods still on a node with `NoExecute` taints (unreachable,
/// or the scenario's), seen there from `tainted_at`, once their toleration has run out are
/// marked with the DisruptionTarget condition and deleted. On an unreachable node the kubelet
/// is gone, so they stay Terminating, but their ReplicaSets replace them at once.
pub fn taint_eviction(store: &Store, node: &str, tainted_at: Time, now: Time) -> Outcome {
    let mut out = Outcome::default();
    let silent = crate::sim::kubelet::node_down(store, node);
    let Some(n) = store.nodes.get(node) else {
        return out;
    };
    // A node whose kubelet came back keeps its NoExecute taint until the node controller's next
    // look removes it: a pod whose time runs out meanwhile is still evicted.
    let all_taints = n.taints();
    let taints = no_execute(&all_taints);
    // Work begun before one of the taints was added (its `timeAdded`) belongs to a taint that was
    // removed since: that removal cancelled it, and the new taint has work of its own.
    if taints.is_empty()
        || taints
            .iter()
            .any(|t| t.time_added.is_some_and(|added| added > tainted_at))
    {
        return out;
    }
    // One pass over the store: each pod on the node with when it is due. Those already being
    // deleted are timed too: upstream's taint eviction filters nothing, so they get the event
    // and the condition, and the delete changes nothing for them.
    let live: Vec<(&Pod, Option<Time>)> = store
        .pods
        .values()
        .filter(|p| p.node_name == node)
        .map(|p| (&**p, eviction_due(p, tainted_at, &taints)))
        .collect();
    let victims: Vec<&Pod> = live
        .iter()
        .filter(|(_, due)| due.is_some_and(|due| due <= now))
        .map(|(p, _)| *p)
        .collect();
    // The next pod whose toleration runs out, if any: its own eviction.
    if let Some(next) = live
        .iter()
        .filter_map(|(_, due)| *due)
        .filter(|&due| due > now)
        .min()
    {
        out.requeue.push((
            next.millis_since(now),
            Work::TaintEviction {
                node: node.into(),
                tainted_at,
            },
        ));
    }
    for p in &victims {
        add_condition_and_delete_pod(
            &mut out,
            p,
            (
                "DeletionByTaintManager",
                "Taint manager: deleting due to NoExecute taint",
            ),
            None,
            now,
        );
        out.events.push(Event::normal(
            "taint-eviction-controller",
            ObjectRef::new("Pod", &p.metadata.name),
            EventReason::TaintManagerEviction,
            format!("Marking for deletion Pod default/{}", p.metadata.name),
        ));
    }
    if !victims.is_empty() {
        let deleting = victims
            .iter()
            .filter(|p| p.metadata.deletion_timestamp.is_some())
            .count();
        let which = match deleting {
            0 => String::new(),
            n if n == victims.len() => format!(
                " The {} already being deleted, so the delete changes nothing for {}: only the condition and the event are new.",
                if n == 1 { "pod was" } else { "pods were" },
                if n == 1 { "it" } else { "them" }
            ),
            n => format!(
                " {n} of them {} already being deleted, so the delete changes nothing for {}: only the condition and the event are new.",
                if n == 1 { "was" } else { "were" },
                if n == 1 { "it" } else { "them" }
            ),
        };
        out.stage = Some(Stage::Retry);
        // The victims' tolerations, as the narration gives them: all the same, or several; and
        // the taints that decide it (those not tolerated, or those whose toleration is the
        // shortest), not every NoExecute taint on the node.
        let times: Vec<Eviction> = victims.iter().map(|p| pod_eviction(p, &taints)).collect();
        let same = times.iter().all(|t| Some(t) == times.first());
        let deciding = victims
            .first()
            .map(|p| deciding_taints(p, &taints))
            .unwrap_or_default();
        let named: Vec<String> = deciding
            .iter()
            .map(|t| {
                if t.key == toleration::UNREACHABLE {
                    "unreachable:NoExecute".to_string()
                } else {
                    t.text()
                }
            })
            .collect();
        let one = victims.len() == 1;
        let (named, its) = (
            named.join(" and "),
            if deciding.len() == 1 {
                "taint"
            } else {
                "taints"
            },
        );
        let (pods, they, tolerate) = if one {
            ("The pod's", "this pod", "does not tolerate")
        } else {
            ("The pods'", "these pods", "do not tolerate")
        };
        let why = match times.first().filter(|_| same) {
            Some(Eviction::Now) => format!(
                "{node} is tainted {named} and {they} {tolerate} {} (or only for 0s)",
                if deciding.len() == 1 { "it" } else { "them" }
            ),
            Some(Eviction::AfterSeconds(s)) => {
                format!("{pods} {s}s toleration of {node}'s {named} {its} has run out")
            }
            _ => {
                format!("The tolerations of these pods for {node}'s NoExecute taints have run out")
            }
        };
        // What follows for the pods this eviction deletes (not those being deleted already).
        let fresh = victims.len() - deleting;
        let after = match (silent, fresh == 1) {
            _ if fresh == 0 => "",
            (true, true) => {
                "With the kubelet gone it stays Terminating, but its ReplicaSet no longer counts it and creates a replacement on a healthy node."
            }
            (true, false) => {
                "With the kubelet gone they stay Terminating, but their ReplicaSets no longer count them and create replacements on healthy nodes."
            }
            (false, true) => {
                "The node's kubelet stops its containers; its ReplicaSet no longer counts it and creates a replacement."
            }
            (false, false) => {
                "The node's kubelet stops their containers; their ReplicaSets no longer count them and create replacements."
            }
        };
        let others = live.len() - victims.len();
        let stay = match others {
            0 => String::new(),
            1 => " The 1 other pod there tolerates the taint for longer and stays for now."
                .to_string(),
            n => {
                format!(" The {n} other pods there tolerate the taint for longer and stay for now.")
            }
        };
        let tail: Vec<&str> = [which.trim(), after, stay.trim()]
            .into_iter()
            .filter(|t| !t.is_empty())
            .collect();
        out.say(format!(
            "{why}, so the {} pod{} on it {} evicted: marked DisruptionTarget (DeletionByTaintManager), then deleted. {}",
            victims.len(),
            if victims.len() == 1 { "" } else { "s" },
            if victims.len() == 1 { "is" } else { "are" },
            tail.join(" ")
        ));
    }
    out
}
