//! The replica-set controller (`pkg/controller/replicaset`): keeps the number of active pods of a
//! ReplicaSet at `spec.replicas` — creating pods in slow-start batches, deleting the least
//! valuable ones first — and reports ready and available counts.

use super::{Change, Outcome, Work};
use crate::sim::api::{
    ConditionReason, ConditionStatus, Event, EventReason, ObjectMeta, ObjectRef, OwnerReference,
    Pod, PodPhase, ReplicaSet, ReplicaSetCondition, ReplicaSetConditionType, ReplicaSetStatus,
    Time,
};
use crate::sim::rng::Rng;
use crate::sim::store::{PodCounts, PodName, RankFacts, Store};
use crate::sim::trace::{Stage, plural};
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Arc;

/// The component name upstream records on its events.
pub const COMPONENT: &str = "replicaset-controller";
/// `burstReplicas`: the most pods one sync creates or deletes.
pub const BURST_REPLICAS: usize = 500;
pub use crate::sim::api::meta::POD_DELETION_COST_ANNOTATION;

/// Limits the simulated API server places on pod creation (a pod-count quota), so that
/// `FailedCreate` and `ReplicaFailure` can be shown.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PodQuota {
    pub name: String,
    pub max_pods: Option<usize>,
}

/// `syncReplicaSet`: one pass over the named ReplicaSet. `names` stands for the API server's
/// `generateName`, which gives each new pod its random suffix.
pub fn sync_replica_set(
    store: &Store,
    name: &str,
    now: Time,
    names: &mut Rng,
    quota: &PodQuota,
) -> Outcome {
    let mut out = Outcome::default();
    let Some(rs) = store.replica_sets.get(name) else {
        return out;
    };
    let counts = store.pod_counts(&rs.metadata.uid);

    let manage_err = if rs.metadata.deletion_timestamp.is_none() {
        manage_replicas(store, rs, counts, now, names, quota, &mut out)
    } else {
        None
    };

    let mut status = calculate_status(rs, counts, manage_err.as_deref(), now);
    status.observed_generation = rs.metadata.generation;
    if status != rs.status {
        narrate_status(rs, &status, &mut out);
        out.change(Change::UpdateReplicaSetStatus {
            name: name.to_string(),
            status: status.clone(),
        });
    }

    // Modern requeue (§14.1): wake up when the next ready pod becomes available.
    if manage_err.is_none()
        && rs.spec.min_ready_seconds > 0
        && status.ready_replicas != status.available_replicas
    {
        let next = counts.next_available_at(rs.spec.min_ready_seconds, now);
        // IsPodAvailable compares strictly, so look one millisecond after the boundary.
        let delay = next.map_or_else(
            || min_ready_ms(rs.spec.min_ready_seconds),
            |t| t.millis_since(now) + 1,
        );
        out.requeue.push((delay, Work::SyncReplicaSet(name.into())));
    }
    // A failed create or delete is the sync's error: the simulator requeues the ReplicaSet with
    // rate limiting (§14.2).
    out.error = manage_err;
    out
}

/// `minReadySeconds` in milliseconds (a negative one, which validation refuses, as 0).
pub fn min_ready_ms(min_ready_seconds: i32) -> u64 {
    u64::try_from(min_ready_seconds).unwrap_or(0) * 1000
}

fn narrate_status(rs: &ReplicaSet, new: &ReplicaSetStatus, out: &mut Outcome) {
    let old = &rs.status;
    if new.ready_replicas != old.ready_replicas || new.available_replicas != old.available_replicas
    {
        out.stage_at_least(Stage::Readiness);
        let min_ready = if rs.spec.min_ready_seconds > 0 {
            format!(
                " (available = ready for more than minReadySeconds {}s)",
                rs.spec.min_ready_seconds
            )
        } else {
            String::new()
        };
        // The status of a sync that deletes pods counts the pod list it started from, so it
        // may count more ready pods than the ReplicaSet now wants; said as it is.
        let counted = if new.ready_replicas > rs.spec.replicas {
            format!(
                "{} counts {} pods ready (it wants {}; this sync's status still counts the pods it is deleting)",
                rs.metadata.name, new.ready_replicas, rs.spec.replicas
            )
        } else {
            format!(
                "{} counts {} of {} pod{} ready",
                rs.metadata.name,
                new.ready_replicas,
                rs.spec.replicas,
                plural(rs.spec.replicas)
            )
        };
        out.say(format!(
            "{counted} and {} available{min_ready}.",
            new.available_replicas
        ));
    } else if out.narration.is_empty() {
        out.stage_default(Stage::Reconcile);
        out.say(format!(
            "{} now counts {} active pod{} of {} wanted{} (pods being deleted are not counted).",
            rs.metadata.name,
            new.replicas,
            if new.replicas == 1 { "" } else { "s" },
            rs.spec.replicas,
            match new.terminating_replicas {
                Some(n) if n > 0 => format!(" and {n} terminating"),
                _ => String::new(),
            }
        ));
    }
}

/// How often the resource quota controller recounts every quota's usage
/// (`--resource-quota-sync-period`, 5 minutes).
const QUOTA_RESYNC_MS: u64 = 300_000;

/// Whether a pod is charged to the namespace's pod quota (`QuotaV1Pod`): not when its phase is
/// terminal, nor once it is stuck terminating (a lost node) past its deletion timestamp plus
/// its grace period. Nothing announces that moment, so the usage drops only at the quota
/// controller's next full recount after it, every 5 minutes.
fn quota_charged(p: &crate::sim::api::Pod, now: Time) -> bool {
    if p.is_terminal() {
        return false;
    }
    let (Some(deleted_at), Some(grace)) = (
        p.metadata.deletion_timestamp,
        p.metadata.deletion_grace_period_seconds,
    ) else {
        return true;
    };
    let last_recount = Time::from_millis(now.as_millis() / QUOTA_RESYNC_MS * QUOTA_RESYNC_MS);
    last_recount <= deleted_at.plus_secs(grace)
}

/// The PriorityClasses every cluster has: `system-node-critical` and `system-cluster-critical`
/// (`SystemPriorityClasses`), with their values; the scenarios declare no others.
const SYSTEM_PRIORITY_CLASSES: &[(&str, i64)] = &[
    ("system-node-critical", 2_000_001_000),
    ("system-cluster-critical", 2_000_000_000),
];

/// The value of a PriorityClass the cluster has, which admission writes into each pod's
/// `priority` (`kubectl describe pod` prints it): `None` for a class that does not exist.
pub fn priority_class_value(class: &str) -> Option<i64> {
    SYSTEM_PRIORITY_CLASSES
        .iter()
        .find(|(name, _)| *name == class)
        .map(|(_, value)| *value)
}

/// An admission plugin's refusal of a pod being created (`admission.NewForbidden`), which names
/// the pod by its `generateName` as the API server has not named it yet.
fn admission_forbidden(pod: &crate::sim::api::Pod, why: &str) -> String {
    let name = if pod.metadata.generate_name.is_empty() {
        &pod.metadata.name
    } else {
        &pod.metadata.generate_name
    };
    format!("pods {name:?} is forbidden: {why}")
}

/// The ServiceAccount admission plugin (`plugin/pkg/admission/serviceaccount`, `Admit`): the
/// pod's service account must exist. The simulated namespace has only `default`, which the
/// plugin fills in when the template names none, so any other name is refused:
/// `error looking up service account default/<name>: serviceaccount "<name>" not found`.
fn service_account_admission(pod: &crate::sim::api::Pod) -> Result<(), String> {
    let account = crate::sim::api::pod::service_account_name(&pod.spec);
    if account.is_empty() || account == "default" {
        return Ok(());
    }
    Err(admission_forbidden(
        pod,
        &format!(
            "error looking up service account {}/{account}: serviceaccount {account:?} not found",
            crate::sim::api::DEFAULT_NAMESPACE
        ),
    ))
}

/// The RuntimeClass admission plugin (`plugin/pkg/admission/runtimeclass`, `prepareObjects`):
/// a pod's `runtimeClassName` must name a RuntimeClass, and the simulated cluster, like a fresh
/// kubeadm or kind one, has none: `pod rejected: RuntimeClass "<name>" not found`.
fn runtime_class_admission(pod: &crate::sim::api::Pod) -> Result<(), String> {
    match pod
        .spec
        .extra
        .get("runtimeClassName")
        .and_then(serde_json::Value::as_str)
    {
        Some(class) => Err(admission_forbidden(
            pod,
            &format!("pod rejected: RuntimeClass {class:?} not found"),
        )),
        None => Ok(()),
    }
}

/// The Priority admission plugin (`plugin/pkg/admission/priority`, `admitPod` on create): the
/// pod's `priorityClassName` must name a PriorityClass, and a `priority` or `preemptionPolicy`
/// written in the template must equal what the class (or, without one, the default of 0 and
/// `PreemptLowerPriority`) gives. It runs before the API server names the pod, so its refusal
/// names the pod by its `generateName` (`pods "web-84f646b754-" is forbidden: …`).
fn priority_admission(pod: &crate::sim::api::Pod) -> Result<(), String> {
    let extra = &pod.spec.extra;
    let forbidden = |why: String| admission_forbidden(pod, &why);
    let class = extra
        .get("priorityClassName")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default();
    let priority = if class.is_empty() {
        0
    } else {
        priority_class_value(class)
            .ok_or_else(|| forbidden(format!("no PriorityClass with name {class} was found")))?
    };
    if let Some(written) = extra.get("priority").and_then(serde_json::Value::as_i64)
        && written != priority
    {
        return Err(forbidden(format!(
            "the integer value of priority ({written}) must not be provided in pod spec; priority admission controller computed {priority} from the given PriorityClass name"
        )));
    }
    if let Some(policy) = extra
        .get("preemptionPolicy")
        .and_then(serde_json::Value::as_str)
        .filter(|p| *p != "PreemptLowerPriority")
    {
        return Err(forbidden(format!(
            "the string value of PreemptionPolicy ({policy}) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name"
        )));
    }
    Ok(())
}

/// `manageReplicas`: creates or deletes pods to close the gap. Returns the error text of a failed
/// create or delete, if any: the first of the failing batch, as upstream returns one error from
/// `slowStartBatch` while each failed create has already recorded its own event.
fn manage_replicas(
    store: &Store,
    rs: &ReplicaSet,
    counts: &PodCounts,
    now: Time,
    names: &mut Rng,
    quota: &PodQuota,
    out: &mut Outcome,
) -> Option<String> {
    let diff = i64::from(counts.active) - i64::from(rs.spec.replicas);
    let rs_ref = ObjectRef::new("ReplicaSet", &rs.metadata.name);
    if diff < 0 {
        let want = usize::try_from(-diff).unwrap_or(0).min(BURST_REPLICAS);
        // The quota's usage, counted only when there is a quota to check.
        let mut existing_pods = if quota.max_pods.is_some() {
            store
                .pods
                .values()
                .filter(|p| quota_charged(p, now))
                .count()
        } else {
            0
        };
        let mut created = Vec::new();
        let (successes, errs, batches) = slow_start_batch(want, 1, || {
            let pod = new_pod(store, rs, names);
            // The mutating admission plugins (ServiceAccount, then Priority, in the API server's
            // order) run before the pod is named and validated.
            service_account_admission(&pod)?;
            priority_admission(&pod)?;
            runtime_class_admission(&pod)?;
            // The API server validates a pod before admission (the quota) looks at it.
            let invalid = crate::sim::validation::validate_pod_create(&pod.spec);
            if !invalid.is_empty() {
                return Err(crate::sim::validation::render_status_invalid(
                    "Pod",
                    &pod.metadata.name,
                    &invalid,
                ));
            }
            if let Some(max) = quota.max_pods
                && existing_pods >= max
            {
                return Err(format!(
                    "pods {:?} is forbidden: exceeded quota: {}, requested: pods=1, used: pods={existing_pods}, limited: pods={max}",
                    pod.metadata.name, quota.name
                ));
            }
            existing_pods += 1;
            created.push(pod);
            Ok(())
        });
        // One event and one change per pod: room for all of them at once, rather than growing
        // (and moving) both vectors a doubling at a time through a large batch.
        out.events.reserve_exact(created.len() + errs.len());
        out.changes.reserve_exact(created.len());
        for pod in created {
            out.events.push(Event::normal(
                COMPONENT,
                rs_ref.clone(),
                EventReason::SuccessfulCreate,
                ["Created pod: ", pod.metadata.name.as_str()].concat(),
            ));
            out.change(Change::CreatePod(Box::new(pod)));
        }
        // `RealPodControl.CreatePods` records an event for every create that fails, so a batch
        // of several refused pods shows as many warnings, each naming its own pod (§14.2).
        for e in &errs {
            out.events.push(Event::warning(
                COMPONENT,
                rs_ref.clone(),
                EventReason::FailedCreate,
                format!("Error creating: {e}"),
            ));
        }
        if !errs.is_empty() {
            out.stage_at_least(Stage::Retry);
        }
        out.stage_at_least(Stage::Reconcile);
        let batch_text = batches
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        // With refusals, it tried more than it made.
        let creates = if errs.is_empty() {
            format!("creates {successes}")
        } else {
            format!("tries to create {}", successes + errs.len())
        };
        out.say(format!(
            "{} wants {} pod{} and has {} active, so it {creates} in slow-start batches of {batch_text}{}.",
            rs.metadata.name,
            rs.spec.replicas,
            plural(rs.spec.replicas),
            counts.active,
            if want < usize::try_from(-diff).unwrap_or(0) {
                format!(" (at most burstReplicas {BURST_REPLICAS} per sync)")
            } else {
                String::new()
            }
        ));
        if !errs.is_empty() {
            out.say(format!(
                "{} of the last batch failed, so no further batch runs and the sync returns an error.",
                if errs.len() == 1 {
                    "1 create".to_string()
                } else {
                    format!("{} creates", errs.len())
                }
            ));
        }
        return errs.into_iter().next();
    }
    if diff > 0 {
        let diff = usize::try_from(diff).unwrap_or(0).min(BURST_REPLICAS);
        // The active pods' ranking facts, from the store's index, in the pods' name order.
        let active: Vec<(&PodName, &RankFacts)> = store.rank_facts_of(&rs.metadata.uid).collect();
        let owners = related_owner_uids(store, rs);
        // The co-location count per node, from the index, once per node rather than per pod.
        let per_node: BTreeMap<&str, i64> = store
            .nodes
            .keys()
            .map(String::as_str)
            .chain(std::iter::once(""))
            .map(|node| {
                let n = owners
                    .iter()
                    .map(|uid| i64::from(store.active_on_node(uid, node)))
                    .sum();
                (node, n)
            })
            .collect();
        // The counts again by the store's numbers for the node names that facts hold, so that
        // finding a pod's count indexes a table, where the names' map compares strings, for
        // every pod of every scale-down.
        let mut by_index: Vec<i64> = Vec::new();
        for (node, i) in store.interned_nodes() {
            if by_index.len() <= i {
                by_index.resize(i + 1, 0);
            }
            if let Some(slot) = by_index.get_mut(i) {
                *slot = per_node.get(node).copied().unwrap_or(0);
            }
        }
        let rank_of = |f: &RankFacts| match by_index.get(f.node_index) {
            Some(n) => *n,
            None => per_node.get(&*f.node).copied().unwrap_or(0),
        };
        let to_delete: Vec<&str> = rank_keys(
            active.len(),
            |i| RankKey::of(active[i].1, rank_of(active[i].1)),
            diff,
            now,
        )
        .into_iter()
        .filter_map(|i| active.get(i).map(|(name, _)| &***name))
        .collect();
        out.events.reserve_exact(to_delete.len());
        out.changes.reserve_exact(to_delete.len());
        for name in &to_delete {
            let grace = store
                .pods
                .get(*name)
                .map_or(30, |p| p.spec.termination_grace_seconds());
            out.change(Change::DeletePod {
                name: name.to_string(),
                grace_seconds: grace,
            });
            out.events.push(Event::normal(
                COMPONENT,
                rs_ref.clone(),
                EventReason::SuccessfulDelete,
                ["Deleted pod: ", name].concat(),
            ));
        }
        out.stage_at_least(Stage::Reconcile);
        out.say(format!(
            "{} wants {} pod{} and has {} active, so it deletes {}: {} (ranked as upstream does: unscheduled, pending and not-ready pods first, then a lower deletion cost, then pods on the nodes that hold the most of the Deployment's pods, then the most recently ready, the most restarted and the newest).",
            rs.metadata.name,
            rs.spec.replicas,
            plural(rs.spec.replicas),
            active.len(),
            to_delete.len(),
            to_delete.join(", ")
        ));
    }
    None
}

/// The longest `generateName` base the API server keeps (`names.SimpleNameGenerator`): 63
/// characters less the 5 random ones it appends.
const MAX_GENERATED_NAME_BASE: usize = 58;

/// A new pod from the ReplicaSet's template, named by `generateName` (`<rs>-<5 random>`), its
/// base cut to 58 characters first so that the name fits in 63.
fn new_pod(store: &Store, rs: &ReplicaSet, names: &mut Rng) -> Pod {
    // The object keeps the whole `generateName`; only the generated name uses the cut base.
    let generate_name = [rs.metadata.name.as_str(), "-"].concat();
    // Names are ASCII (validated DNS labels), so a byte count is a character count; the cut
    // still lands on a character boundary whatever the name.
    let mut cut = generate_name.len().min(MAX_GENERATED_NAME_BASE);
    while !generate_name.is_char_boundary(cut) {
        cut -= 1;
    }
    let prefix = &generate_name[..cut];
    // Each candidate is written into one string of its final length: every pod is named here.
    let generate = |names: &mut Rng| {
        let mut name = String::with_capacity(prefix.len() + 5);
        name.push_str(prefix);
        names.push_safe_string(&mut name, 5);
        name
    };
    let mut name = generate(names);
    while store.pods.contains_key(name.as_str()) {
        name = generate(names);
    }
    Pod {
        metadata: ObjectMeta {
            name,
            generate_name,
            namespace: rs.metadata.namespace.clone(),
            labels: rs.spec.template.metadata.labels.clone(),
            annotations: rs.spec.template.metadata.annotations.clone(),
            owner_references: vec![OwnerReference {
                api_version: "apps/v1".into(),
                kind: "ReplicaSet".into(),
                name: rs.metadata.name.clone(),
                uid: rs.metadata.uid.clone(),
                controller: true,
                block_owner_deletion: true,
            }],
            // Every field is named rather than filled by `..Default::default()`, which would
            // build (and drop) a default metadata whose empty shared maps each allocate.
            uid: String::new(),
            generation: 0,
            creation_timestamp: Time::ZERO,
            deletion_timestamp: None,
            deletion_grace_period_seconds: None,
        },
        spec: rs.spec.template.spec.clone(),
        node_name: String::new(),
        status: Default::default(),
    }
}

/// `getIndirectlyRelatedPods`, as the owners whose pods count: every ReplicaSet of the same
/// Deployment.
fn related_owner_uids(store: &Store, rs: &ReplicaSet) -> Vec<String> {
    match store.owner_deployment(rs) {
        Some(d) => store
            .replica_sets_owned_by(&d.metadata.uid)
            .map(|r| r.metadata.uid.clone())
            .collect(),
        None => vec![rs.metadata.uid.clone()],
    }
}

/// `slowStartBatch`: calls `f` `count` times in batches of 1, 2, 4, … (each capped by what
/// remains), stopping after the first batch with a failure. Returns the successes, every error of
/// the failing batch (in call order; empty when all succeeded), and the batch sizes attempted.
/// Upstream hands back one of those errors; each call has already reported its own.
///
/// Example: 10 calls that all succeed run in batches 1, 2, 4, 3.
pub fn slow_start_batch<E>(
    count: usize,
    initial_batch_size: usize,
    mut f: impl FnMut() -> Result<(), E>,
) -> (usize, Vec<E>, Vec<usize>) {
    let mut remaining = count;
    let mut successes = 0;
    let mut batches = Vec::new();
    let mut batch = remaining.min(initial_batch_size);
    while batch > 0 {
        batches.push(batch);
        let mut errs = Vec::new();
        for _ in 0..batch {
            match f() {
                Ok(()) => successes += 1,
                Err(e) => errs.push(e),
            }
        }
        if !errs.is_empty() {
            return (successes, errs, batches);
        }
        remaining -= batch;
        batch = (2 * batch).min(remaining);
    }
    (successes, Vec::new(), batches)
}

/// `getPodsToDelete`: ranks the pods (`ActivePodsWithRanks`) and returns the first `diff`. When
/// every pod goes, the input order is kept.
pub fn get_pods_to_delete<'a>(
    pods: &[&'a Pod],
    related: &[&Pod],
    diff: usize,
    now: Time,
) -> Vec<&'a Pod> {
    let mut on_node: BTreeMap<&str, i64> = BTreeMap::new();
    for p in related.iter().filter(|p| p.is_active()) {
        *on_node.entry(p.node_name.as_str()).or_default() += 1;
    }
    let facts: Vec<RankFacts> = pods
        .iter()
        .map(|p| RankFacts::of(p, Arc::from(p.node_name.as_str()), 0, None))
        .collect();
    let facts: Vec<&RankFacts> = facts.iter().collect();
    rank_pods_to_delete(
        &facts,
        &|node| on_node.get(node).copied().unwrap_or(0),
        diff,
        now,
    )
    .into_iter()
    .filter_map(|i| pods.get(i).copied())
    .collect()
}

/// The ranking behind [`get_pods_to_delete`], over the pods' ranking facts, with the co-located
/// pod count of a node given by `rank_of` (the simulator keeps it as an index rather than
/// recounting every pod). Returns the positions in `pods` of the pods to delete, in order.
///
/// Up to 16 pods (the usual rolling step) are picked one by one, each by a scan that keeps the
/// earliest on ties; more are the first `diff` of a stable merge sort. Neither ranks every pod:
/// the leading fields of the comparison, packed into one integer (the lead), decide any
/// comparison where they differ, so the pods are grouped by lead, lowest first, and only the
/// groups that hold the first `diff` are ranked, each on its own. For the scans that is plain:
/// a scan's pick always has the lowest lead left, and only pods of that lead can replace the
/// first of them. For the merge sort, see [`sort_group_prefix`]. Both give the pods the plain
/// scans or sort of every pod would, comparison for comparison, which matters because the
/// ranking is not a total order (a property test holds them to it).
pub fn rank_pods_to_delete(
    pods: &[&RankFacts],
    rank_of: &dyn Fn(&str) -> i64,
    diff: usize,
    now: Time,
) -> Vec<usize> {
    rank_keys(
        pods.len(),
        |i| RankKey::of(pods[i], rank_of(&pods[i].node)),
        diff,
        now,
    )
}

/// [`rank_pods_to_delete`] over `len` pods whose keys `key` gives by position.
fn rank_keys<'a>(
    len: usize,
    key: impl Fn(usize) -> RankKey<'a>,
    diff: usize,
    now: Time,
) -> Vec<usize> {
    if diff >= len {
        return (0..len).collect();
    }
    let leads: Vec<u128> = (0..len).map(|i| lead_of(&key(i))).collect();
    let mut picked = Vec::with_capacity(diff);
    let mut scratch = Vec::new();
    for group in groups_by_lead(&leads) {
        let want = diff - picked.len();
        if want == 0 {
            break;
        }
        // Only these pods pay for their age buckets (a logarithm each).
        let ranked: Vec<Ranked> = group.iter().map(|i| Ranked::new(key(*i), now)).collect();
        let less = |a: usize, b: usize| match (ranked.get(a), ranked.get(b)) {
            (Some(a), Some(b)) => a.less(b),
            _ => false,
        };
        let order = if diff <= 16 {
            pick_lowest(ranked.len(), want, less)
        } else {
            let mut order: Vec<usize> = (0..group.len()).collect();
            let position = |j: usize| group.get(j).copied().unwrap_or(0);
            sort_group_prefix(&mut order, 0..len, &position, want, &less, &mut scratch);
            order.truncate(want);
            order
        };
        picked.extend(order.into_iter().filter_map(|j| group.get(j).copied()));
        if picked.len() >= diff {
            break;
        }
    }
    picked
}

/// How many lead groups [`groups_by_lead`] finds by scanning every lead before it files the rest
/// at once.
const LEAD_SCANS: usize = 8;

/// The positions of each lead's pods, in their order, the lowest lead first. A scale-down
/// usually takes a group or two, which two scans of the leads find (the lowest lead left, then
/// its pods); only past [`LEAD_SCANS`] groups, when the leads are many and their groups small,
/// are the rest filed by lead in one pass, so that many groups cost no more than a sort.
fn groups_by_lead(leads: &[u128]) -> impl Iterator<Item = Vec<usize>> + '_ {
    let mut done: Option<u128> = None;
    let mut scans = 0;
    let mut rest: Option<std::collections::btree_map::IntoValues<u128, Vec<usize>>> = None;
    std::iter::from_fn(move || {
        let left = |l: &u128| done.is_none_or(|d| *l > d);
        if scans < LEAD_SCANS {
            scans += 1;
            let low = leads.iter().copied().filter(left).min()?;
            done = Some(low);
            return Some((0..leads.len()).filter(|i| leads[*i] == low).collect());
        }
        rest.get_or_insert_with(|| {
            let mut by_lead: BTreeMap<u128, Vec<usize>> = BTreeMap::new();
            for (i, l) in leads.iter().enumerate().filter(|(_, l)| left(l)) {
                by_lead.entry(*l).or_default().push(i);
            }
            by_lead.into_values()
        })
        .next()
    })
}

/// The lowest `want` of `len` pods (all of one lead), picked one by one, each by a scan that
/// keeps the earliest on ties, as a stable sort would put them first; linear per pick instead of
/// n·log n. Returns their indices, in the order picked.
///
/// The scan that follows a pick repeats the previous one up to the picked pod, so it resumes
/// there from the best pod found so far, which gives the same picks as full scans.
fn pick_lowest(len: usize, want: usize, less: impl Fn(usize, usize) -> bool) -> Vec<usize> {
    let mut picked = Vec::with_capacity(want.min(len));
    // `order` holds the indices not yet picked; `best[j]` is where in `order` the scan stands
    // after its first `j + 1` pods.
    let mut order: Vec<usize> = (0..len).collect();
    let mut best: Vec<usize> = Vec::with_capacity(len);
    let mut from = 0;
    while picked.len() < want && !order.is_empty() {
        best.truncate(from);
        for j in from..order.len() {
            let b = match best.last() {
                Some(b) if !less(order[j], order[*b]) => *b,
                _ => j,
            };
            best.push(b);
        }
        let Some(&at) = best.last() else {
            break;
        };
        picked.push(order.remove(at));
        from = at;
    }
    picked
}

/// What `ActivePodsWithRanks.Less` looks at for one pod. Timestamps are `None` when unset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankKey<'a> {
    pub assigned: bool,
    pub phase: PodPhase,
    pub ready: bool,
    pub deletion_cost: i32,
    pub rank: i64,
    pub ready_time: Option<Time>,
    pub max_restarts: i32,
    pub max_sidecar_restarts: i32,
    pub creation: Option<Time>,
    pub uid: &'a str,
}

impl<'a> RankKey<'a> {
    /// The key of a simulated pod, from its ranking facts, with the given rank.
    pub fn of(f: &'a RankFacts, rank: i64) -> RankKey<'a> {
        RankKey {
            assigned: !f.node.is_empty(),
            phase: f.phase,
            ready: f.ready,
            deletion_cost: f.deletion_cost,
            rank,
            ready_time: f.ready_time,
            max_restarts: f.max_restarts,
            max_sidecar_restarts: f.max_sidecar_restarts,
            creation: Some(f.creation),
            uid: &f.uid,
        }
    }
}

/// A rank key with the log-scale age buckets of its two timestamps worked out once: the
/// selection and the sort compare each pod many times, and a bucket costs a logarithm. The
/// leading fields of the comparison are packed into one integer and the UID's first bytes into
/// another, so that most comparisons are an integer comparison or two.
struct Ranked<'a> {
    key: RankKey<'a>,
    ready_bucket: i64,
    creation_bucket: i64,
    /// Assigned, phase, readiness, deletion cost and rank, in [`less_with`]'s order and
    /// direction: the lower value goes first.
    lead: u128,
    /// The UID's first 16 bytes, big-endian, zero-padded (see [`Ranked::uid_less`]).
    uid_head: u128,
}

/// A pod's leading comparison fields packed into one integer: assigned, phase, readiness,
/// deletion cost and rank, in [`less_with`]'s order and direction, the lower value going first.
/// Each field is mapped to an unsigned number that orders as `less_with` does and gets its own
/// bits: the deletion cost offset to be non-negative, the rank offset and inverted, as the
/// higher rank goes first.
fn lead_of(key: &RankKey<'_>) -> u128 {
    let cost = u128::from((i64::from(key.deletion_cost) - i64::from(i32::MIN)) as u32);
    let rank = u128::from(!((key.rank as u64) ^ (1 << 63)));
    (u128::from(key.assigned) << 99)
        | (u128::from(phase_ordinal(key.phase)) << 97)
        | (u128::from(key.ready) << 96)
        | (cost << 64)
        | rank
}

impl<'a> Ranked<'a> {
    fn new(key: RankKey<'a>, now: Time) -> Ranked<'a> {
        let bucket = |t: Option<Time>| t.map_or(0, |t| age_bucket(t, now));
        let lead = lead_of(&key);
        let mut head = [0u8; 16];
        for (slot, b) in head.iter_mut().zip(key.uid.bytes()) {
            *slot = b;
        }
        Ranked {
            ready_bucket: bucket(key.ready_time),
            creation_bucket: bucket(key.creation),
            lead,
            uid_head: u128::from_be_bytes(head),
            key,
        }
    }

    /// Whether this pod's UID sorts before the other's, as strings compare. The first bytes
    /// decide almost always; zero padding keeps a shorter UID that is a prefix of the other
    /// first, and equal heads fall back to the whole strings.
    fn uid_less(&self, other: &Ranked<'_>) -> bool {
        if self.uid_head != other.uid_head {
            return self.uid_head < other.uid_head;
        }
        self.key.uid < other.key.uid
    }

    /// [`less`] at the `now` the buckets were taken for: the same decisions as [`less_with`],
    /// field by field, with the leading fields compared at once.
    fn less(&self, other: &Ranked<'_>) -> bool {
        if self.lead != other.lead {
            return self.lead < other.lead;
        }
        let (a, b) = (&self.key, &other.key);
        // Equal leads: both ready or both not.
        if a.ready
            && let Some(r) = self.stamp_less(
                other,
                self.ready_bucket - other.ready_bucket,
                a.ready_time,
                b.ready_time,
            )
        {
            return r;
        }
        if a.max_restarts != b.max_restarts {
            return a.max_restarts > b.max_restarts;
        }
        if a.max_sidecar_restarts != b.max_sidecar_restarts {
            return a.max_sidecar_restarts > b.max_sidecar_restarts;
        }
        self.stamp_less(
            other,
            self.creation_bucket - other.creation_bucket,
            a.creation,
            b.creation,
        )
        .unwrap_or(false)
    }

    /// [`compare_stamps`] with the UIDs compared by [`Ranked::uid_less`].
    fn stamp_less(
        &self,
        other: &Ranked<'_>,
        bucket_diff: i64,
        a: Option<Time>,
        b: Option<Time>,
    ) -> Option<bool> {
        compare_stamps(a, b, || self.uid_less(other), Some(bucket_diff))
    }
}

fn phase_ordinal(p: PodPhase) -> u8 {
    match p {
        PodPhase::Unknown => 1,
        PodPhase::Running => 2,
        _ => 0,
    }
}

/// `afterOrZero`: a zero time counts as newest; otherwise the later time goes first.
fn after_or_zero(a: Option<Time>, b: Option<Time>) -> bool {
    match (a, b) {
        (None, _) | (_, None) => a.is_none(),
        (Some(x), Some(y)) => x > y,
    }
}

/// The age bucket of `logarithmicRankDiff`: `floor(log2(now − t))` in nanoseconds, −1 for no
/// age.
fn age_bucket(t: Time, now: Time) -> i64 {
    let Some(d_ms) = now
        .as_millis()
        .checked_sub(t.as_millis())
        .filter(|d| *d > 0)
    else {
        return -1;
    };
    // In 64 bits while the nanoseconds fit (ages up to centuries), which is the same number
    // converted to the same float as in 128 bits, only without the wide conversion.
    match d_ms.checked_mul(1_000_000) {
        Some(d_ns) => (d_ns as f64).log2() as i64,
        None => ((i128::from(d_ms) * 1_000_000) as f64).log2() as i64,
    }
}

/// The two timestamps the ranking compares.
#[derive(Clone, Copy)]
enum Stamp {
    Ready,
    Creation,
}

fn compare_times(
    a: Option<Time>,
    b: Option<Time>,
    ua: &str,
    ub: &str,
    now: Option<Time>,
) -> Option<bool> {
    let diff = match (now, a, b) {
        (Some(n), Some(x), Some(y)) => Some(age_bucket(x, n) - age_bucket(y, n)),
        _ => None,
    };
    compare_stamps(a, b, || ua < ub, diff)
}

/// Compares two timestamps given the difference of their age buckets (`None` without a `now`):
/// equal ones tie, the same bucket falls back to the UIDs (`uid_less`: whether the first pod's
/// UID sorts first), otherwise the younger goes first.
fn compare_stamps(
    a: Option<Time>,
    b: Option<Time>,
    uid_less: impl FnOnce() -> bool,
    bucket_diff: Option<i64>,
) -> Option<bool> {
    if a == b {
        return None;
    }
    match (bucket_diff, a, b) {
        (Some(diff), Some(_), Some(_)) => Some(if diff == 0 { uid_less() } else { diff < 0 }),
        _ => Some(after_or_zero(a, b)),
    }
}

/// `ActivePodsWithRanks.Less` with `LogarithmicScaleDown` (GA since v1.31) and the sidecar
/// restart tie-breaker (≈v1.32): whether pod `a` should be deleted before pod `b`.
pub fn less(a: &RankKey<'_>, b: &RankKey<'_>, now: Option<Time>) -> bool {
    less_with(a, b, &|stamp| match stamp {
        Stamp::Ready => compare_times(a.ready_time, b.ready_time, a.uid, b.uid, now),
        Stamp::Creation => compare_times(a.creation, b.creation, a.uid, b.uid, now),
    })
}

/// [`less`] with the timestamp comparisons supplied by `times`.
fn less_with(a: &RankKey<'_>, b: &RankKey<'_>, times: &dyn Fn(Stamp) -> Option<bool>) -> bool {
    if a.assigned != b.assigned {
        return !a.assigned;
    }
    if phase_ordinal(a.phase) != phase_ordinal(b.phase) {
        return phase_ordinal(a.phase) < phase_ordinal(b.phase);
    }
    if a.ready != b.ready {
        return !a.ready;
    }
    if a.deletion_cost != b.deletion_cost {
        return a.deletion_cost < b.deletion_cost;
    }
    if a.rank != b.rank {
        return a.rank > b.rank;
    }
    if a.ready
        && b.ready
        && let Some(r) = times(Stamp::Ready)
    {
        return r;
    }
    if a.max_restarts != b.max_restarts {
        return a.max_restarts > b.max_restarts;
    }
    if a.max_sidecar_restarts != b.max_sidecar_restarts {
        return a.max_sidecar_restarts > b.max_sidecar_restarts;
    }
    times(Stamp::Creation).unwrap_or(false)
}

/// A stable merge sort driven by a `less` function. Upstream's ranking is not a strict weak
/// order (two pods ready within the same power-of-two age compare by UID, others by age), which
/// Go's sort tolerates; the standard library's sorts may panic on such orders, so the ranking is
/// sorted with this one, which never does.
pub fn merge_sort_by_less<T: Copy>(v: &mut [T], less: &dyn Fn(&T, &T) -> bool) {
    merge_sort_prefix_by_less(v, v.len(), less);
}

/// The first `k` elements of [`merge_sort_by_less`], for a scale-down that keeps only the pods it
/// deletes. `v[..k]` ends up exactly as the full sort leaves it, whatever `less` is, and the rest
/// of `v` in no particular order.
///
/// A merge's first `k` outputs only look at the first `k` elements of each sorted half, so each
/// half needs only its own first `k`: halves no longer than `k` are sorted fully, and every merge
/// above them stops after `k` outputs. For `k` pods out of `n` that is about `n·log k`
/// comparisons instead of `n·log n`.
pub fn merge_sort_prefix_by_less<T: Copy>(v: &mut [T], k: usize, less: &dyn Fn(&T, &T) -> bool) {
    let items = v.to_vec();
    let mut order: Vec<usize> = (0..items.len()).collect();
    let mut scratch = Vec::with_capacity(k.min(items.len()));
    let less = |a: usize, b: usize| match (items.get(a), items.get(b)) {
        (Some(a), Some(b)) => less(a, b),
        _ => false,
    };
    sort_group_prefix(&mut order, 0..items.len(), &|i| i, k, &less, &mut scratch);
    for (slot, x) in v.iter_mut().zip(order.iter().filter_map(|i| items.get(*i))) {
        *slot = *x;
    }
}

/// [`merge_sort_prefix_by_less`] of a group of the elements of `span`: `v` holds the group's
/// members, each at `position(member)` in `span`, in the order of their positions. The recursion
/// splits as the sort of the whole span does, each range at its middle position, whichever
/// members fall on either side, and leaves out the ranges with fewer than two members.
///
/// When `less` orders any two elements of different groups by their groups alone (as the
/// deletion ranking orders pods of different leads), the sort of the whole span puts the groups
/// one after the other, and each group's members in the order this gives them. By induction,
/// every run the whole sort merges is ordered by group: a merge takes the front of the lower
/// group first, and only compares two fronts of one group among themselves. So within a group,
/// a merge takes the group's members from its two runs exactly as the merge here takes them from
/// the group's two runs: where the whole merge takes another group's element instead, this merge
/// has nothing to decide, and where one run's members come to an end, both merges take the
/// other run's members in order. The group's runs are then those of this recursion, whose ranges
/// are the same.
fn sort_group_prefix<P, L>(
    v: &mut [usize],
    span: Range<usize>,
    position: &P,
    k: usize,
    less: &L,
    scratch: &mut Vec<usize>,
) where
    P: Fn(usize) -> usize,
    L: Fn(usize, usize) -> bool,
{
    // Members have distinct positions in the span, so two of them need a span of two or more;
    // the second test only keeps positions outside the span from recursing forever.
    if v.len() <= 1 || k == 0 || span.len() <= 1 {
        return;
    }
    let mid = span.start + span.len() / 2;
    let split = v.partition_point(|m| position(*m) < mid);
    let (left, right) = v.split_at_mut(split);
    sort_group_prefix(left, span.start..mid, position, k, less, scratch);
    sort_group_prefix(right, mid..span.end, position, k, less, scratch);
    let want = k.min(v.len());
    let (left, right) = v.split_at(split);
    let (mut left, mut right) = (
        left.iter().take(k).peekable(),
        right.iter().take(k).peekable(),
    );
    scratch.clear();
    while scratch.len() < want {
        // As the full sort: the right front goes first only when it is strictly less; once a
        // half runs out, the other one follows in order.
        let next = match (left.peek(), right.peek()) {
            (Some(l), Some(r)) if less(**r, **l) => right.next(),
            (Some(_), _) => left.next(),
            (None, _) => right.next(),
        };
        let Some(x) = next else { break };
        scratch.push(*x);
    }
    for (slot, x) in v.iter_mut().zip(scratch.iter()) {
        *slot = *x;
    }
}

/// `calculateStatus` for a ReplicaSet: counts of active, ready and available pods, terminating
/// pods, and the ReplicaFailure condition from a failed create or delete. Every pod a ReplicaSet
/// creates carries its template labels, so all active pods are fully labelled.
pub fn calculate_status(
    rs: &ReplicaSet,
    counts: &PodCounts,
    manage_err: Option<&str>,
    now: Time,
) -> ReplicaSetStatus {
    let mut status = rs.status.clone();
    let has_failure = status
        .conditions
        .iter()
        .any(|c| c.type_ == ReplicaSetConditionType::ReplicaFailure);
    match manage_err {
        Some(err) if !has_failure => {
            let reason = if counts.active < rs.spec.replicas {
                ConditionReason::FailedCreate
            } else {
                ConditionReason::FailedDelete
            };
            status.conditions.push(ReplicaSetCondition {
                type_: ReplicaSetConditionType::ReplicaFailure,
                status: ConditionStatus::True,
                last_transition_time: now.truncate_to_secs(),
                reason,
                message: err.to_string(),
            });
        }
        None if has_failure => status
            .conditions
            .retain(|c| c.type_ != ReplicaSetConditionType::ReplicaFailure),
        _ => {}
    }
    status.replicas = counts.active;
    status.fully_labeled_replicas = counts.active;
    status.ready_replicas = counts.ready;
    status.available_replicas = counts.available(rs.spec.min_ready_seconds, now);
    status.terminating_replicas = Some(counts.terminating);
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys whose fields collide often: few values per field, UIDs that share long prefixes or
    /// are prefixes of one another, negative costs and ranks, and missing timestamps.
    fn colliding_keys(now: Time, count: usize, seed: u64) -> Vec<RankKey<'static>> {
        let uids = [
            "",
            "a",
            "ab",
            "abc",
            "abd",
            "0123456789abcdef",
            "0123456789abcdef0",
            "0123456789abcdef1",
            "0123456789abcdeg",
            "ffff",
        ];
        let phases = [
            PodPhase::Pending,
            PodPhase::Running,
            PodPhase::Unknown,
            PodPhase::Failed,
        ];
        let times = [
            None,
            Some(Time(0)),
            Some(Time(9_999_000)),
            Some(Time(9_998_500)),
            Some(now),
        ];
        let mut x: u64 = seed;
        let mut next = |n: usize| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) as usize % n
        };
        (0..count)
            .map(|_| RankKey {
                assigned: next(4) > 0,
                phase: phases[next(phases.len())],
                ready: next(2) == 0,
                deletion_cost: [i32::MIN, -1, 0, 5, i32::MAX][next(5)],
                rank: [i64::MIN, -3, 0, 2, i64::MAX][next(5)],
                ready_time: times[next(times.len())],
                max_restarts: next(2) as i32,
                max_sidecar_restarts: next(2) as i32,
                creation: times[next(times.len())],
                uid: uids[next(uids.len())],
            })
            .collect()
    }

    /// The packed comparison of [`Ranked`] decides every pair as [`less`] does.
    #[test]
    fn the_packed_ranking_decides_as_less() {
        let now = Time(10_000_000);
        let keys = colliding_keys(now, 400, 7);
        let ranked: Vec<Ranked> = keys.iter().map(|k| Ranked::new(k.clone(), now)).collect();
        for (a, ra) in keys.iter().zip(&ranked) {
            for (b, rb) in keys.iter().zip(&ranked) {
                assert_eq!(ra.less(rb), less(a, b, Some(now)), "{a:?} < {b:?}");
            }
        }
    }

    /// The picks of the few-pods path are those of scanning every pod left for the lowest, the
    /// earliest on ties, once per pick, with [`less`] itself: the ranking is not a total order,
    /// so this holds only if the shortcuts make exactly the same comparisons' decisions.
    #[test]
    fn picking_the_lowest_few_matches_full_scans() {
        let now = Time(10_000_000);
        for seed in 1..40 {
            let keys = colliding_keys(now, 60 + seed as usize, seed);
            for diff in [1, 2, 5, 16] {
                let mut order: Vec<usize> = (0..keys.len()).collect();
                let mut want = Vec::new();
                for _ in 0..diff {
                    let mut best = 0;
                    for i in 1..order.len() {
                        if less(&keys[order[i]], &keys[order[best]], Some(now)) {
                            best = i;
                        }
                    }
                    want.push(order.remove(best));
                }
                assert_eq!(
                    rank_keys(keys.len(), |i| keys[i].clone(), diff, now),
                    want,
                    "seed {seed}, diff {diff}"
                );
            }
        }
    }

    /// The picks of the many-pods path, one lead group at a time, are the front of the merge
    /// sort of every pod with [`less`] itself.
    #[test]
    fn ranking_by_lead_groups_matches_sorting_every_pod() {
        let now = Time(10_000_000);
        for seed in 1..40 {
            let keys = colliding_keys(now, 60 + 7 * seed as usize, seed);
            // Every pod going keeps their order without ranking them, so the pods kept are
            // at least one.
            for diff in [17, 18, 31, 40, 59, 100, keys.len() - 1] {
                if diff >= keys.len() {
                    continue;
                }
                let mut want: Vec<usize> = (0..keys.len()).collect();
                merge_sort_prefix_by_less(&mut want, diff, &|a, b| {
                    less(&keys[*a], &keys[*b], Some(now))
                });
                want.truncate(diff);
                assert_eq!(
                    rank_keys(keys.len(), |i| keys[i].clone(), diff, now),
                    want,
                    "seed {seed}, diff {diff}"
                );
            }
        }
    }
}
