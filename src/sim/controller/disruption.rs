//! The disruption controller (`pkg/controller/disruption`) and the Eviction API's budget check
//! (`pkg/registry/core/pod/storage/eviction.go`): a PodDisruptionBudget's status says how many
//! of its pods are healthy, how many must be, and so how many disruptions are allowed now; an
//! eviction of a pod it covers is granted only while one is, and spends it.

use super::{Change, Outcome};
use crate::sim::api::pdb::PodDisruptionBudgetStatus;
use crate::sim::api::{
    Event, EventReason, IntOrString, ObjectRef, Pod, PodDisruptionBudget, PodPhase, Time,
};
use crate::sim::store::Store;
use crate::sim::trace::{Stage, plural};
use std::collections::BTreeMap;

/// The component name upstream records on its events.
pub const COMPONENT: &str = "controllermanager";
/// `DeletionTimeout`: how long a pod the Eviction API let go may stay undeleted before the
/// controller counts it again.
const DELETION_TIMEOUT_MS: u64 = 2 * 60 * 1000;

/// The pods a budget counts (`getPodsForPdb`): every pod for an empty selector.
fn pods_of<'s>(store: &'s Store, pdb: &PodDisruptionBudget) -> Vec<&'s Pod> {
    store
        .pods
        .values()
        .filter(|p| pdb.counts(&p.metadata.labels))
        .map(|p| &**p)
        .collect()
}

/// `getExpectedScale`: the replicas the pods' controllers want, each controller once. A pod of
/// a Deployment's ReplicaSet counts the Deployment's `spec.replicas`, so the old and new
/// ReplicaSets of a rollout count once together.
fn expected_scale(store: &Store, pods: &[&Pod]) -> i32 {
    let mut scale: BTreeMap<String, i32> = BTreeMap::new();
    for p in pods {
        let Some(owner) = p.metadata.controller_ref() else {
            continue;
        };
        let Some(rs) = store.replica_sets.get(&owner.name) else {
            continue;
        };
        let deployment = rs
            .metadata
            .controller_ref()
            .filter(|r| r.kind == "Deployment")
            .and_then(|r| store.deployments.get(&r.name));
        match deployment {
            Some(d) => scale.insert(d.metadata.uid.clone(), d.replicas()),
            None => scale.insert(rs.metadata.uid.clone(), rs.spec.replicas),
        };
    }
    scale.values().sum()
}

/// `getExpectedPodCount`: the pods expected and the pods that must stay healthy, with the rule
/// in words for the narration.
fn expected_pod_count(
    store: &Store,
    pdb: &PodDisruptionBudget,
    pods: &[&Pod],
) -> (i32, i32, String) {
    let spec = &pdb.spec;
    if let Some(max) = &spec.max_unavailable {
        let expected = expected_scale(store, pods);
        let max_unavailable = max.scaled_value(expected, true).unwrap_or(0);
        let desired = expected.saturating_sub(max_unavailable).max(0);
        return (
            expected,
            desired,
            format!("maxUnavailable {max} of the {expected} its pods' controllers want"),
        );
    }
    match &spec.min_available {
        Some(IntOrString::Int(min)) => (
            i32::try_from(pods.len()).unwrap_or(i32::MAX),
            *min,
            format!(
                "minAvailable {min} (expectedPods {}: the pods it selects)",
                pods.len()
            ),
        ),
        Some(min) => {
            let expected = expected_scale(store, pods);
            let desired = min.scaled_value(expected, true).unwrap_or(0);
            (
                expected,
                desired,
                format!("minAvailable {min} of the {expected} its pods' controllers want"),
            )
        }
        None => (0, 0, "neither minAvailable nor maxUnavailable".into()),
    }
}

/// `trySync` for one budget: recount its pods and write its status when it changed.
pub fn sync_disruption_budget(store: &Store, name: &str, now: Time) -> Outcome {
    let mut out = Outcome::default();
    let Some(pdb) = store.pdbs.get(name) else {
        return out;
    };
    let pods = pods_of(store, pdb);
    if pods.is_empty() {
        out.events.push(Event::normal(
            COMPONENT,
            ObjectRef::new("PodDisruptionBudget", name),
            EventReason::NoPods,
            "No matching pods found".into(),
        ));
    }
    let (expected, desired, rule) = expected_pod_count(store, pdb, &pods);
    // `buildDisruptedPodMap`: a pod let go stays counted out until its deletion is seen, or for
    // two minutes at most.
    let disrupted: BTreeMap<String, Time> = pods
        .iter()
        .filter(|p| p.metadata.deletion_timestamp.is_none())
        .filter_map(|p| {
            let at = *pdb.status.disrupted_pods.get(&p.metadata.name)?;
            (at.plus_millis(DELETION_TIMEOUT_MS) >= now).then(|| (p.metadata.name.clone(), at))
        })
        .collect();
    // `countHealthyPods`: Ready, not being deleted and not just let go.
    let healthy = pods
        .iter()
        .filter(|p| p.metadata.deletion_timestamp.is_none())
        .filter(|p| !disrupted.contains_key(&p.metadata.name))
        .filter(|p| p.is_ready())
        .count();
    let healthy = i32::try_from(healthy).unwrap_or(i32::MAX);
    let allowed = if expected <= 0 {
        0
    } else {
        healthy.saturating_sub(desired).max(0)
    };
    let mut status = PodDisruptionBudgetStatus {
        observed_generation: pdb.metadata.generation,
        disrupted_pods: disrupted,
        disruptions_allowed: allowed,
        current_healthy: healthy,
        desired_healthy: desired,
        expected_pods: expected,
        conditions: pdb.status.conditions.clone(),
    };
    status.update_disruption_allowed_condition(pdb.metadata.generation, now);
    if status == pdb.status {
        return out;
    }
    out.stage = Some(Stage::Retry);
    out.say(format!(
        "The disruption controller recounts PodDisruptionBudget {name}: {rule}, so {desired} of its pods must stay healthy; {healthy} {are} (Ready and not being deleted), so {allowed} disruption{s} {is} allowed now.",
        are = if healthy == 1 { "is" } else { "are" },
        s = plural(allowed),
        is = if allowed == 1 { "is" } else { "are" },
    ));
    // A budget that was met and no longer is: worth saying what it does not guard against,
    // which learners often expect it to.
    let observed = pdb.status.observed_generation > 0;
    if observed && pdb.status.current_healthy >= desired && healthy < desired {
        out.say(
            "The budget is not met now, and it cannot stop that: it limits only evictions (kubectl drain asks for them); a rollout's scale-down, kubectl delete pod, a crash or a failed node take pods away without asking it.",
        );
    }
    out.change(Change::UpdatePdbStatus {
        name: name.to_string(),
        status,
    });
    out
}

/// What the Eviction API answers for one pod (`EvictionREST.Create`).
pub enum Eviction {
    /// The pod may go: the caller marks and deletes it. `spent` is the budget whose
    /// disruption it used, with its status after the eviction.
    Granted {
        spent: Option<(String, PodDisruptionBudgetStatus)>,
    },
    /// 429 TooManyRequests: the pod stays, and kubectl tries again later. `budget` names the
    /// budget that refused it.
    TooManyRequests { budget: String, cause: String },
    /// 500: the pod is covered by more than one budget, which the Eviction API does not support.
    MoreThanOneBudget,
}

/// The message of a 429 refusal, as kubectl prints it.
pub const TOO_MANY_REQUESTS: &str =
    "Cannot evict pod as it would violate the pod's disruption budget.";
/// The message of a refusal for a pod under two budgets.
pub const MORE_THAN_ONE: &str = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.";

/// The Eviction API's decision for `pod`, with `spent` holding the budget statuses earlier
/// evictions of the same command already wrote (kubectl evicts a node's pods in parallel, and
/// each eviction reads the budget the previous one left).
pub fn evict(
    store: &Store,
    pod: &Pod,
    spent: &BTreeMap<String, PodDisruptionBudgetStatus>,
    now: Time,
) -> Eviction {
    // `canIgnorePDB`: a finished, pending or already deleting pod is deleted without a budget.
    if matches!(
        pod.status.phase,
        PodPhase::Succeeded | PodPhase::Failed | PodPhase::Pending
    ) || pod.metadata.deletion_timestamp.is_some()
    {
        return Eviction::Granted { spent: None };
    }
    let budgets: Vec<&PodDisruptionBudget> = store
        .pdbs
        .values()
        .filter(|b| b.selects(&pod.metadata.labels))
        .collect();
    let pdb = match budgets.as_slice() {
        [] => return Eviction::Granted { spent: None },
        [one] => *one,
        _ => return Eviction::MoreThanOneBudget,
    };
    let name = &pdb.metadata.name;
    let mut status = spent.get(name).unwrap_or(&pdb.status).clone();
    // An unready pod does not count as healthy: with the default `IfHealthyBudget` it may go
    // without spending a disruption while the budget is met, and with `AlwaysAllow` always.
    if !pod.is_ready() {
        let always = pdb.spec.unhealthy_pod_eviction_policy.as_deref() == Some("AlwaysAllow");
        if always
            || (status.current_healthy >= status.desired_healthy && status.desired_healthy > 0)
        {
            return Eviction::Granted { spent: None };
        }
    }
    // `checkAndDecrement`.
    if status.observed_generation < pdb.metadata.generation {
        return Eviction::TooManyRequests {
            budget: name.clone(),
            cause: format!("The disruption budget {name} is still being processed by the server."),
        };
    }
    if status.disruptions_allowed <= 0 {
        return Eviction::TooManyRequests {
            budget: name.clone(),
            cause: format!(
                "The disruption budget {name} needs {} healthy pods and has {} currently",
                status.desired_healthy, status.current_healthy
            ),
        };
    }
    status.disruptions_allowed -= 1;
    if status.disruptions_allowed == 0 {
        status.update_disruption_allowed_condition(pdb.metadata.generation, now);
    }
    status
        .disrupted_pods
        .insert(pod.metadata.name.clone(), now.truncate_to_secs());
    Eviction::Granted {
        spent: Some((name.clone(), status)),
    }
}

/// `getPdbForPod`'s warning: a pod that several budgets count is routed to one of them (here
/// the first by name; upstream's pick is arbitrary), and said so on the pod.
pub fn overlapping_budgets(pod: &str, chosen: &str, count: usize) -> Outcome {
    let mut out = Outcome {
        stage: Some(Stage::Retry),
        ..Default::default()
    };
    out.events.push(Event::warning(
        COMPONENT,
        ObjectRef::new("Pod", pod),
        EventReason::MultiplePodDisruptionBudgets,
        format!(
            "Pod \"default\"/{pod:?} matches multiple PodDisruptionBudgets.  Chose {chosen:?} arbitrarily."
        ),
    ));
    out.say(format!(
        "The disruption controller's pod handler sees pod {pod} change, and {count} PodDisruptionBudgets count it: it picks one, {chosen} (upstream's pick is arbitrary), and warns, as it does at each change of the pod. The Eviction API refuses to evict a pod that more than one budget covers."
    ));
    out
}
