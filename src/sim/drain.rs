//! A node drain: what `kubectl drain NODE` does to the simulated cluster and what it prints. The
//! command cordons the node, asks the Eviction API to evict each pod on it (with no
//! PodDisruptionBudget in the namespace, every eviction is granted: the pod is marked
//! `DisruptionTarget` and deleted with its own grace period), and then waits, printing
//! `pod/NAME evicted` as each pod goes and `node/NAME drained` after the last. The wait is a
//! [`DrainWait`] in the store, which the simulator checks whenever a step removes a pod.

use super::api::{Pod, PodPhase, Time};
use super::commands::CommandError;
use super::controller::Change;
use super::controller::Outcome;
use super::store::Store;
use serde_json::Value;

/// The flags of `kubectl drain` that RolloutScope takes. `--ignore-daemonsets` and `--force`
/// change nothing here, since the namespace has no DaemonSet and every pod has a controller,
/// but a command line copied from a runbook carries them, so they are accepted and echoed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DrainFlags {
    pub ignore_daemonsets: bool,
    pub delete_emptydir_data: bool,
    pub force: bool,
}

impl DrainFlags {
    /// The flags as kubectl's command line gives them, each with a leading space.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for (on, flag) in [
            (self.ignore_daemonsets, " --ignore-daemonsets"),
            (self.delete_emptydir_data, " --delete-emptydir-data"),
            (self.force, " --force"),
        ] {
            if on {
                s.push_str(flag);
            }
        }
        s
    }
}

/// Reads the argument of a `drain` action or of the app's drain button: a node name, then any
/// of the flags above (`node-1 --ignore-daemonsets --delete-emptydir-data`).
///
/// # Errors
/// The reason in words when there is no node name, or a flag this model does not take.
pub fn parse(text: &str) -> Result<(String, DrainFlags), String> {
    let mut words = text.split_whitespace();
    let node = match words.next() {
        Some(n) if !n.starts_with('-') => n.to_string(),
        _ => {
            return Err(
                "must name a node, like \"node-1\" or \"node-1 --ignore-daemonsets --delete-emptydir-data\""
                    .into(),
            );
        }
    };
    let mut flags = DrainFlags::default();
    for w in words {
        match w {
            "--ignore-daemonsets" => flags.ignore_daemonsets = true,
            // The older spelling, which kubectl still takes with a deprecation warning.
            "--delete-emptydir-data" | "--delete-local-data" => flags.delete_emptydir_data = true,
            "--force" => flags.force = true,
            other if other.starts_with('-') => {
                return Err(format!(
                    "unknown flag: {other} (this model takes --ignore-daemonsets, --delete-emptydir-data and --force)"
                ));
            }
            other => {
                return Err(format!(
                    "names one node, then flags: {other:?} is neither (drain one node per action)"
                ));
            }
        }
    }
    Ok((node, flags))
}

/// One `kubectl drain` waiting for the pods it evicted to be gone (`waitForDelete`, which looks
/// every second). The pods are kept with their UIDs, as kubectl compares them: a pod of the same
/// name and another UID is a new pod, and the evicted one is gone.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DrainWait {
    pub node: String,
    pub since: Time,
    pub pods: Vec<(String, String)>,
}

/// The pod filters of kubectl's drain helper (`makeFilters`) that can turn a pod down here: a
/// pod that uses an `emptyDir` volume and has not finished would lose its data, so without
/// `--delete-emptydir-data` the whole drain stops before any eviction (`localStorageFilter`).
fn has_local_storage(pod: &Pod) -> bool {
    pod.spec
        .extra
        .get("volumes")
        .and_then(Value::as_array)
        .is_some_and(|vs| vs.iter().any(|v| v.get("emptyDir").is_some()))
}

/// `kubectl drain NODE`: `RunDrain`, which cordons the node (`RunCordonOrUncordon`), lists the
/// pods bound to it (`GetPodsForDeletion`), and evicts each (`evictPods`), then waits.
pub fn drain(
    store: &Store,
    node: &str,
    flags: &DrainFlags,
    now: Time,
    out: &mut Outcome,
) -> Result<(), CommandError> {
    let (cordon, _) = super::commands::cordon(store, node, true, now, out)?;
    let pods: Vec<&Pod> = store
        .pods
        .values()
        .filter(|p| p.node_name == node)
        .map(|p| &**p)
        .collect();
    let finished = |p: &Pod| matches!(p.status.phase, PodPhase::Succeeded | PodPhase::Failed);
    let local: Vec<String> = pods
        .iter()
        .filter(|p| !flags.delete_emptydir_data && has_local_storage(p) && !finished(p))
        .map(|p| format!("default/{}", p.metadata.name))
        .collect();
    if !local.is_empty() {
        let err = format!(
            "cannot delete Pods with local storage (use --delete-emptydir-data to override): {}",
            local.join(", ")
        );
        out.say(format!(
            "{cordon}; error: unable to drain node {node:?} due to error: {err}, continuing command... There are pending nodes to be drained: {node}. error: {err}. The node stays cordoned, and no pod was evicted: a pod's emptyDir volume lives on the node and goes with the pod, so kubectl asks for --delete-emptydir-data before it evicts one."
        ));
        return Ok(());
    }
    if pods.is_empty() {
        out.say(format!(
            "{cordon}; node/{node} drained: there is no pod on it to evict, so the drain is done at once."
        ));
        return Ok(());
    }
    let mut lines = Vec::with_capacity(pods.len());
    for p in &pods {
        // `EvictionREST.Create`: with no PodDisruptionBudget selecting the pod, the eviction is
        // granted as it is for a pod already being deleted or finished: `addConditionAndDeletePod`
        // marks it, then deletes it with the pod's own grace period (kubectl's `--grace-period`
        // is -1, the pod's default, unless given).
        super::controller::node_lifecycle::add_condition_and_delete_pod(
            out,
            p,
            "EvictionByEvictionAPI",
            "Eviction API: evicting",
            now,
        );
        lines.push(format!("evicting pod default/{}", p.metadata.name));
    }
    out.change(Change::WatchDrain(Box::new(DrainWait {
        node: node.to_string(),
        since: now,
        pods: pods
            .iter()
            .map(|p| (p.metadata.name.clone(), p.metadata.uid.clone()))
            .collect(),
    })));
    let graces: std::collections::BTreeSet<i64> = pods
        .iter()
        .map(|p| p.spec.termination_grace_period_seconds.unwrap_or(30))
        .collect();
    let grace = match (graces.first(), graces.last()) {
        (Some(a), Some(b)) if a == b => format!("its {a}s grace period"),
        (Some(a), Some(b)) => format!("its own grace period ({a}s to {b}s)"),
        _ => String::new(),
    };
    out.say(format!(
        "{cordon}; {}. No PodDisruptionBudget stands in the way, so the Eviction API grants every eviction: each pod is marked DisruptionTarget (EvictionByEvictionAPI) and deleted with {grace}. Their ReplicaSets no longer count them and create replacements at once, which the scheduler places on other nodes. kubectl now waits: it prints pod/NAME evicted as each pod is gone, and node/{node} drained after the last.",
        lines.join(", ")
    ));
    Ok(())
}

/// What the drains in progress print now that a step has changed the pods: for each drain, the
/// `pod/NAME evicted` lines of its pods that are gone, and `node/NAME drained` when none is
/// left. Returns the sentence to add to the step's narration, and the drains still waiting.
pub fn progress(store: &Store, now: Time) -> Option<(String, Vec<DrainWait>)> {
    let mut said = Vec::new();
    let mut waiting = Vec::with_capacity(store.drains.len());
    for d in store.drains.iter() {
        let (gone, left): (Vec<_>, Vec<_>) = d.pods.iter().cloned().partition(|(name, uid)| {
            store
                .pods
                .get(name.as_str())
                .is_none_or(|p| p.metadata.uid != *uid)
        });
        if gone.is_empty() {
            waiting.push(d.clone());
            continue;
        }
        let evicted: Vec<String> = gone
            .iter()
            .map(|(name, _)| format!("pod/{name} evicted"))
            .collect();
        if left.is_empty() {
            said.push(format!(
                "kubectl drain {node}, which looks every second, prints {} and node/{node} drained: the drain is done, {} after it began.",
                evicted.join(", "),
                super::kubelet::go_duration(now.millis_since(d.since)),
                node = d.node,
            ));
        } else {
            said.push(format!(
                "kubectl drain {}, which looks every second, prints {} and waits for {} more pod{}.",
                d.node,
                evicted.join(", "),
                left.len(),
                super::trace::plural(left.len() as i64)
            ));
            waiting.push(DrainWait {
                pods: left,
                ..d.clone()
            });
        }
    }
    (!said.is_empty()).then(|| (said.join(" "), waiting))
}
