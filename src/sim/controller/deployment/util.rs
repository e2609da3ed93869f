//! Deployment arithmetic and bookkeeping helpers, mirroring
//! `pkg/controller/deployment/util/deployment_util.go`: fenceposts, surge and availability
//! bounds, the replica annotations, revisions, template hashing, and the condition helpers.

use crate::sim::api::{
    ConditionReason, ConditionStatus, Deployment, DeploymentCondition, DeploymentConditionType,
    DeploymentStatus, DeploymentStrategyType, IntOrString, PodTemplateSpec, ReplicaSet, Time,
};
use crate::sim::order;
use crate::sim::rng::SAFE_ALPHANUMS;
use std::cmp::Ordering;

/// `pod-template-hash`, the label that keeps ReplicaSets of one Deployment apart.
pub const DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY: &str = "pod-template-hash";
/// The rollout sequence number of a ReplicaSet and of its Deployment.
pub const REVISION_ANNOTATION: &str = "deployment.kubernetes.io/revision";
/// Earlier revisions a re-used ReplicaSet served.
pub const REVISION_HISTORY_ANNOTATION: &str = "deployment.kubernetes.io/revision-history";
/// `spec.replicas` of the Deployment when the controller last scaled the ReplicaSet.
pub const DESIRED_REPLICAS_ANNOTATION: &str = "deployment.kubernetes.io/desired-replicas";
/// `spec.replicas + maxSurge` of the Deployment at that time.
pub const MAX_REPLICAS_ANNOTATION: &str = "deployment.kubernetes.io/max-replicas";
/// The legacy `rollbackTo` request of extensions/v1beta1 and apps/v1beta1.
pub const DEPRECATED_ROLLBACK_TO: &str = "deprecated.deployment.rollback.to";
/// kubectl's apply bookkeeping, never copied to ReplicaSets.
pub const LAST_APPLIED_CONFIG_ANNOTATION: &str = "kubectl.kubernetes.io/last-applied-configuration";
/// `maxRevHistoryLengthInChars`.
pub const MAX_REV_HISTORY_LENGTH_IN_CHARS: usize = 2000;
/// `math.MaxInt32`, which upstream treats as "no limit" for some fields.
pub const MAX_INT32: i32 = i32::MAX;

/// `ResolveFenceposts`: resolves maxSurge and maxUnavailable against `desired`. A nil value
/// counts as 0; percentages round up for surge and down for unavailable; and when both come out
/// at 0, unavailable becomes 1 so a rollout can always make progress.
///
/// Example: 25%/25% of 10 gives surge 3 (2.5 rounded up) and unavailable 2 (rounded down).
///
/// # Errors
/// A string that is not a percentage (even `"5"`).
pub fn resolve_fenceposts(
    max_surge: Option<&IntOrString>,
    max_unavailable: Option<&IntOrString>,
    desired: i32,
) -> Result<(i32, i32), String> {
    let zero = IntOrString::Int(0);
    let surge = max_surge.unwrap_or(&zero).scaled_value(desired, true)?;
    let mut unavailable = max_unavailable
        .unwrap_or(&zero)
        .scaled_value(desired, false)?;
    if surge == 0 && unavailable == 0 {
        // Validation rejects 0/0 as written, but percentages can both round to 0 ("1%" of 10).
        unavailable = 1;
    }
    Ok((surge, unavailable))
}

pub fn is_rolling_update(d: &Deployment) -> bool {
    d.strategy_type() == DeploymentStrategyType::RollingUpdate
}

/// The Deployment's maxSurge and maxUnavailable through [`resolve_fenceposts`] (0/0 raises
/// maxUnavailable to 1), before the strategy and replica caps of [`max_surge`] and
/// [`max_unavailable`].
pub fn fenceposts(d: &Deployment) -> (i32, i32) {
    let ru = d.spec.strategy.rolling_update.as_ref();
    resolve_fenceposts(
        ru.and_then(|r| r.max_surge.as_ref()),
        ru.and_then(|r| r.max_unavailable.as_ref()),
        d.replicas(),
    )
    .unwrap_or((0, 0))
}

/// `MaxUnavailable`: 0 for Recreate or zero replicas, otherwise the resolved value capped at
/// `spec.replicas`.
pub fn max_unavailable(d: &Deployment) -> i32 {
    if !is_rolling_update(d) || d.replicas() == 0 {
        return 0;
    }
    fenceposts(d).1.min(d.replicas())
}

/// `MinAvailable`: `spec.replicas − MaxUnavailable` for a rolling update, 0 for Recreate.
pub fn min_available(d: &Deployment) -> i32 {
    if !is_rolling_update(d) {
        return 0;
    }
    d.replicas() - max_unavailable(d)
}

/// `MaxSurge`: the resolved surge for a rolling update, 0 for Recreate.
pub fn max_surge(d: &Deployment) -> i32 {
    if !is_rolling_update(d) {
        return 0;
    }
    fenceposts(d).0
}

/// `GetReplicaCountForReplicaSets`: the sum of `spec.replicas`.
pub fn get_replica_count_for_replica_sets<'a>(
    rss: impl IntoIterator<Item = &'a ReplicaSet>,
) -> i32 {
    rss.into_iter()
        .map(|rs| rs.spec.replicas)
        .fold(0, i32::saturating_add)
}

/// `GetActualReplicaCountForReplicaSets`: the sum of `status.replicas`.
pub fn get_actual_replica_count_for_replica_sets<'a>(
    rss: impl IntoIterator<Item = &'a ReplicaSet>,
) -> i32 {
    rss.into_iter()
        .map(|rs| rs.status.replicas)
        .fold(0, i32::saturating_add)
}

/// `GetReadyReplicaCountForReplicaSets`.
pub fn get_ready_replica_count_for_replica_sets<'a>(
    rss: impl IntoIterator<Item = &'a ReplicaSet>,
) -> i32 {
    rss.into_iter()
        .map(|rs| rs.status.ready_replicas)
        .fold(0, i32::saturating_add)
}

/// `GetAvailableReplicaCountForReplicaSets`.
pub fn get_available_replica_count_for_replica_sets<'a>(
    rss: impl IntoIterator<Item = &'a ReplicaSet>,
) -> i32 {
    rss.into_iter()
        .map(|rs| rs.status.available_replicas)
        .fold(0, i32::saturating_add)
}

/// `GetTerminatingReplicaCountForReplicaSets` (v1.33+): ReplicaSets that were never synced
/// (observedGeneration 0, no count) are skipped; any other unknown count makes the sum unknown.
pub fn get_terminating_replica_count_for_replica_sets<'a>(
    rss: impl IntoIterator<Item = &'a ReplicaSet>,
) -> Option<i32> {
    let mut total = 0i32;
    for rs in rss {
        match rs.status.terminating_replicas {
            Some(n) => total = total.saturating_add(n),
            None if rs.status.observed_generation == 0 => {}
            None => return None,
        }
    }
    Some(total)
}

/// `NewRSNewReplicas`: how many replicas the new ReplicaSet may have now. Recreate jumps
/// straight to `spec.replicas`; a rolling update grows it by what the surge budget allows.
///
/// Example: replicas 10, maxSurge 25% (→ 3), old RS at 10 and new at 0: the total may reach 13,
/// so the new RS gets `min(13 − 10, 10 − 0) = 3`.
///
/// # Errors
/// An unresolvable maxSurge.
pub fn new_rs_new_replicas<'a>(
    d: &Deployment,
    all_rss: impl IntoIterator<Item = &'a ReplicaSet>,
    new_rs_replicas: i32,
) -> Result<i32, String> {
    match d.strategy_type() {
        DeploymentStrategyType::Recreate => Ok(d.replicas()),
        DeploymentStrategyType::RollingUpdate => {
            let surge_value = d
                .spec
                .strategy
                .rolling_update
                .as_ref()
                .and_then(|r| r.max_surge.clone())
                .ok_or_else(|| "nil value for IntOrString".to_string())?;
            // Scaled directly: the 0/0 → 1 fencepost rule does not apply here.
            let max_surge = surge_value.scaled_value(d.replicas(), true)?;
            let current = get_replica_count_for_replica_sets(all_rss);
            let max_total = d.replicas().saturating_add(max_surge);
            if current >= max_total {
                return Ok(new_rs_replicas);
            }
            let scale_up = (max_total - current).min(d.replicas() - new_rs_replicas);
            Ok(new_rs_replicas + scale_up)
        }
        DeploymentStrategyType::Other(t) => Err(format!("deployment type {t} isn't supported")),
    }
}

/// `DeploymentComplete`: every replica is updated and available and the newest generation has
/// been observed.
pub fn deployment_complete(d: &Deployment, s: &DeploymentStatus) -> bool {
    s.updated_replicas == d.replicas()
        && s.replicas == d.replicas()
        && s.available_replicas == d.replicas()
        && s.observed_generation >= d.metadata.generation
}

/// `DeploymentProgressing`: compared with the stored status, more pods are updated, fewer old
/// pods remain, or more are ready or available.
pub fn deployment_progressing(d: &Deployment, new: &DeploymentStatus) -> bool {
    let old = &d.status;
    let old_status_old_replicas = old.replicas - old.updated_replicas;
    let new_status_old_replicas = new.replicas - new.updated_replicas;
    new.updated_replicas > old.updated_replicas
        || new_status_old_replicas < old_status_old_replicas
        || new.ready_replicas > old.ready_replicas
        || new.available_replicas > old.available_replicas
}

/// `HasProgressDeadline`: set and not MaxInt32.
pub fn has_progress_deadline(d: &Deployment) -> bool {
    d.spec
        .progress_deadline_seconds
        .is_some_and(|s| s != MAX_INT32)
}

/// `HasRevisionHistoryLimit`: set and not MaxInt32.
pub fn has_revision_history_limit(d: &Deployment) -> bool {
    d.spec
        .revision_history_limit
        .is_some_and(|s| s != MAX_INT32)
}

/// `DeploymentTimedOut`: the Progressing condition has not moved for longer than the deadline
/// (measured from its `lastUpdateTime`, strictly).
pub fn deployment_timed_out(d: &Deployment, s: &DeploymentStatus, now: Time) -> bool {
    if !has_progress_deadline(d) {
        return false;
    }
    let Some(c) = s.condition(DeploymentConditionType::Progressing) else {
        return false;
    };
    match c.reason {
        ConditionReason::NewReplicaSetAvailable => false,
        ConditionReason::ProgressDeadlineExceeded => true,
        _ => {
            let deadline = i64::from(d.spec.progress_deadline_seconds.unwrap_or(0));
            c.last_update_time.plus_secs(deadline) < now
        }
    }
}

/// `NewDeploymentCondition`: both times are `now`, truncated to seconds as `metav1.Time` is.
pub fn new_deployment_condition(
    type_: DeploymentConditionType,
    status: ConditionStatus,
    reason: ConditionReason,
    message: String,
    now: Time,
) -> DeploymentCondition {
    let t = now.truncate_to_secs();
    DeploymentCondition {
        type_,
        status,
        last_update_time: t,
        last_transition_time: t,
        reason,
        message,
    }
}

/// `SetDeploymentCondition`: a condition with the same status and reason is left alone (so its
/// lastUpdateTime does not move); otherwise it replaces the old one at the end of the list,
/// keeping lastTransitionTime when the status did not change.
pub fn set_deployment_condition(status: &mut DeploymentStatus, mut condition: DeploymentCondition) {
    if let Some(cur) = status.condition(condition.type_) {
        if cur.status == condition.status && cur.reason == condition.reason {
            return;
        }
        if cur.status == condition.status {
            condition.last_transition_time = cur.last_transition_time;
        }
    }
    remove_deployment_condition(status, condition.type_);
    status.conditions.push(condition);
}

/// `RemoveDeploymentCondition`.
pub fn remove_deployment_condition(status: &mut DeploymentStatus, t: DeploymentConditionType) {
    status.conditions.retain(|c| c.type_ != t);
}

/// `Revision`: the revision annotation as a number; missing is 0.
///
/// # Errors
/// An annotation that is not an integer.
pub fn revision(rs: &ReplicaSet) -> Result<i64, String> {
    match rs.annotation(REVISION_ANNOTATION) {
        None => Ok(0),
        Some(v) => v
            .parse::<i64>()
            .map_err(|_| format!("strconv.ParseInt: parsing {v:?}: invalid syntax")),
    }
}

/// `MaxRevision`: the largest parsable revision (unparsable ones are skipped).
pub fn max_revision<'a>(rss: impl IntoIterator<Item = &'a ReplicaSet>) -> i64 {
    rss.into_iter()
        .filter_map(|rs| revision(rs).ok())
        .max()
        .unwrap_or(0)
        .max(0)
}

/// `LastRevision`: the second-largest revision, the one a rollback returns to.
pub fn last_revision<'a>(rss: impl IntoIterator<Item = &'a ReplicaSet>) -> i64 {
    let (mut max, mut second) = (0i64, 0i64);
    for v in rss.into_iter().filter_map(|rs| revision(rs).ok()) {
        if v >= max {
            second = max;
            max = v;
        } else if v > second {
            second = v;
        }
    }
    second
}

/// `getNonNegativeInt32FromAnnotation` (v1.33+): the value must parse as a non-negative int32.
/// Returns `(value, valid, error text)`; a missing annotation is `(0, false, "")`.
pub fn get_non_negative_int32_from_annotation(rs: &ReplicaSet, key: &str) -> (i32, bool, String) {
    let Some(v) = rs.annotation(key) else {
        return (0, false, String::new());
    };
    match v.parse::<i64>() {
        Err(_) => {
            // strconv.ParseInt distinguishes syntax from range errors for over-long digit runs.
            let digits = v.strip_prefix(['-', '+']).unwrap_or(v);
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                (
                    0,
                    false,
                    format!("strconv.ParseInt: parsing {v:?}: value out of range"),
                )
            } else {
                (
                    0,
                    false,
                    format!("strconv.ParseInt: parsing {v:?}: invalid syntax"),
                )
            }
        }
        Ok(n) if n < 0 => (
            0,
            false,
            format!("strconv.ParseUint: parsing {v:?}: invalid syntax"),
        ),
        Ok(n) if n > i64::from(i32::MAX) => (
            0,
            false,
            format!("strconv.ParseInt: parsing {v:?}: value out of range"),
        ),
        Ok(n) => (n as i32, true, String::new()),
    }
}

/// The `desired-replicas` annotation, when valid.
pub fn get_desired_replicas_annotation(rs: &ReplicaSet) -> Option<i32> {
    let (v, ok, _) = get_non_negative_int32_from_annotation(rs, DESIRED_REPLICAS_ANNOTATION);
    ok.then_some(v)
}

/// The `max-replicas` annotation, when valid.
pub fn get_max_replicas_annotation(rs: &ReplicaSet) -> Option<i32> {
    let (v, ok, _) = get_non_negative_int32_from_annotation(rs, MAX_REPLICAS_ANNOTATION);
    ok.then_some(v)
}

/// `ReplicasAnnotationsNeedUpdate`: either replica annotation differs from what it should be.
pub fn replicas_annotations_need_update(rs: &ReplicaSet, desired: i32, max: i32) -> bool {
    rs.annotation(DESIRED_REPLICAS_ANNOTATION) != Some(desired.to_string().as_str())
        || rs.annotation(MAX_REPLICAS_ANNOTATION) != Some(max.to_string().as_str())
}

/// `SetReplicasAnnotations`: writes both annotations; returns whether anything changed.
pub fn set_replicas_annotations(rs: &mut ReplicaSet, desired: i32, max: i32) -> bool {
    let mut changed = false;
    for (k, v) in [
        (DESIRED_REPLICAS_ANNOTATION, desired),
        (MAX_REPLICAS_ANNOTATION, max),
    ] {
        let v = v.to_string();
        if rs.annotation(k) != Some(v.as_str()) {
            rs.metadata.annotations.insert(k.to_string(), v);
            changed = true;
        }
    }
    changed
}

/// `getRollbackTo`: the revision a legacy `rollbackTo` request asks for. Upstream reads the
/// annotation only when it is non-empty and an integer; anything else is ignored, so an empty
/// value does not start a rollback (validation rejects a non-integer one before it gets here).
pub fn get_rollback_to(d: &Deployment) -> Option<i64> {
    d.metadata
        .annotations
        .get(DEPRECATED_ROLLBACK_TO)
        .filter(|v| !v.is_empty())
        .and_then(|v| v.parse::<i64>().ok())
}

/// `skipCopyAnnotation`: the annotations that belong to the Deployment alone.
pub fn skip_copy_annotation(key: &str) -> bool {
    matches!(
        key,
        LAST_APPLIED_CONFIG_ANNOTATION
            | REVISION_ANNOTATION
            | REVISION_HISTORY_ANNOTATION
            | DESIRED_REPLICAS_ANNOTATION
            | MAX_REPLICAS_ANNOTATION
            | DEPRECATED_ROLLBACK_TO
    )
}

/// `copyDeploymentAnnotationsToReplicaSet`: copies every non-skipped annotation that is missing
/// or different; never removes any.
pub fn copy_deployment_annotations_to_replica_set(d: &Deployment, rs: &mut ReplicaSet) -> bool {
    let mut changed = false;
    for (k, v) in d.metadata.annotations.iter() {
        if skip_copy_annotation(k) || rs.metadata.annotations.get(k) == Some(v) {
            continue;
        }
        rs.metadata.annotations.insert(k.clone(), v.clone());
        changed = true;
    }
    changed
}

/// `SetNewReplicaSetAnnotations`: copies the Deployment's annotations, raises the revision to
/// `new_revision` (recording the previous one in `revision-history` when the ReplicaSet is being
/// re-used by a rollback), and for a ReplicaSet about to be created writes the replica
/// annotations. Returns whether anything changed.
///
/// Example: an RS at revision 1 re-used as revision 3 gets `revision: "3"` and
/// `revision-history: "1"`.
pub fn set_new_replica_set_annotations(
    d: &Deployment,
    rs: &mut ReplicaSet,
    new_revision: &str,
    exists: bool,
    rev_history_limit_in_chars: usize,
) -> bool {
    let mut changed = copy_deployment_annotations_to_replica_set(d, rs);
    let old_revision = rs.annotation(REVISION_ANNOTATION).map(str::to_string);
    let old_revision_int = match old_revision.as_deref() {
        None | Some("") => 0,
        Some(v) => match v.parse::<i64>() {
            Ok(n) => n,
            // An RS whose revision is garbage is left as it is.
            Err(_) => return false,
        },
    };
    let Ok(new_revision_int) = new_revision.parse::<i64>() else {
        return false;
    };
    if old_revision_int < new_revision_int {
        rs.metadata
            .annotations
            .insert(REVISION_ANNOTATION.to_string(), new_revision.to_string());
        changed = true;
    }
    if let Some(old) = old_revision.filter(|_| old_revision_int < new_revision_int) {
        let history = rs
            .annotation(REVISION_HISTORY_ANNOTATION)
            .unwrap_or("")
            .to_string();
        let old_revisions: Vec<&str> = history.split(',').collect();
        if old_revisions[0].is_empty() {
            rs.metadata
                .annotations
                .insert(REVISION_HISTORY_ANNOTATION.to_string(), old);
        } else {
            let mut total_len = history.len() + old.len() + 1;
            let mut start = 0;
            while total_len > rev_history_limit_in_chars && start < old_revisions.len() {
                total_len -= old_revisions[start].len() + 1;
                start += 1;
            }
            if total_len <= rev_history_limit_in_chars {
                let mut kept: Vec<&str> = old_revisions[start..].to_vec();
                kept.push(&old);
                rs.metadata
                    .annotations
                    .insert(REVISION_HISTORY_ANNOTATION.to_string(), kept.join(","));
            }
        }
    }
    if !exists {
        let desired = d.replicas();
        if set_replicas_annotations(rs, desired, desired.saturating_add(max_surge(d))) {
            changed = true;
        }
    }
    changed
}

/// `EqualIgnoreHash`: the two templates are equal once `pod-template-hash` is dropped from both.
pub fn equal_ignore_hash(a: &PodTemplateSpec, b: &PodTemplateSpec) -> bool {
    if a.spec != b.spec || a.metadata.annotations != b.metadata.annotations {
        return false;
    }
    // The rest of the template's metadata counts too: the API server keeps a template's
    // `name` or `generateName` as written (Helm charts often set one), and upstream compares
    // the whole PodTemplateSpec, so changing one starts a rollout, as it changes the hash.
    let (ma, mb) = (&*a.metadata, &*b.metadata);
    if ma.name != mb.name
        || ma.generate_name != mb.generate_name
        || ma.namespace != mb.namespace
        || ma.uid != mb.uid
        || ma.generation != mb.generation
        || ma.creation_timestamp != mb.creation_timestamp
        || ma.deletion_timestamp != mb.deletion_timestamp
        || ma.deletion_grace_period_seconds != mb.deletion_grace_period_seconds
        || ma.owner_references != mb.owner_references
    {
        return false;
    }
    // The labels compared in order with the hash label passed over, as equal maps would be
    // once it is removed from both, without copying either: every Deployment sync asks this of
    // each of its ReplicaSets.
    fn stripped(t: &PodTemplateSpec) -> impl Iterator<Item = (&String, &String)> {
        t.metadata
            .labels
            .iter()
            .filter(|(k, _)| *k != DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY)
    }
    stripped(a).eq(stripped(b))
}

/// `ComputeHash`: a 32-bit FNV-1a over the template (here its canonical JSON, since Go's spew
/// dump cannot be reproduced) plus the collision count, written in decimal and mapped through
/// the safe alphabet, so names look like upstream's (`web-66b6c48dd5`).
pub fn compute_hash(template: &PodTemplateSpec, collision_count: Option<i32>) -> String {
    let mut t = template.clone();
    t.metadata
        .labels
        .remove(DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY);
    let bytes = serde_json::to_vec(&t).unwrap_or_default();
    let mut h: u32 = 0x811c_9dc5;
    let mut feed = |b: u8| {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    };
    bytes.iter().for_each(|b| feed(*b));
    if let Some(c) = collision_count {
        (c as u32)
            .to_le_bytes()
            .into_iter()
            .chain([0u8; 4])
            .for_each(&mut feed);
    }
    h.to_string()
        .bytes()
        .map(|d| SAFE_ALPHANUMS[usize::from(d) % SAFE_ALPHANUMS.len()] as char)
        .collect()
}

/// `ReplicaSetsByCreationTimestamp`: oldest first, ties by name.
pub fn by_creation_timestamp(a: &ReplicaSet, b: &ReplicaSet) -> Ordering {
    a.metadata
        .creation_timestamp
        .cmp(&b.metadata.creation_timestamp)
        .then_with(|| a.metadata.name.cmp(&b.metadata.name))
}

/// `ReplicaSetsBySizeOlder`: larger first; equal sizes oldest first.
pub fn by_size_older(a: &ReplicaSet, b: &ReplicaSet) -> Ordering {
    b.spec
        .replicas
        .cmp(&a.spec.replicas)
        .then_with(|| by_creation_timestamp(a, b))
}

/// `ReplicaSetsBySizeNewer`: larger first; equal sizes newest first.
pub fn by_size_newer(a: &ReplicaSet, b: &ReplicaSet) -> Ordering {
    b.spec
        .replicas
        .cmp(&a.spec.replicas)
        .then_with(|| by_creation_timestamp(b, a))
}

/// `ReplicaSetsByRevision`: by revision; ties or unparsable revisions by creation time.
pub fn by_revision(a: &ReplicaSet, b: &ReplicaSet) -> Ordering {
    match (revision(a), revision(b)) {
        (Ok(x), Ok(y)) if x != y => x.cmp(&y),
        _ => by_creation_timestamp(a, b),
    }
}

/// `FindNewReplicaSet`: the oldest ReplicaSet whose template equals the Deployment's.
pub fn find_new_replica_set(d: &Deployment, rss: &[ReplicaSet]) -> Option<usize> {
    let mut idx: Vec<usize> = (0..rss.len()).collect();
    order::sort_by(&mut idx, |&a, &b| by_creation_timestamp(&rss[a], &rss[b]));
    idx.into_iter()
        .find(|&i| equal_ignore_hash(&rss[i].spec.template, &d.spec.template))
}

/// `IsSaturated`: the new ReplicaSet has all replicas, was sized for this Deployment size, and
/// all are available.
pub fn is_saturated(d: &Deployment, rs: Option<&ReplicaSet>) -> bool {
    let Some(rs) = rs else {
        return false;
    };
    let Some(desired) = rs
        .annotation(DESIRED_REPLICAS_ANNOTATION)
        .and_then(|v| v.parse::<i32>().ok())
    else {
        return false;
    };
    rs.spec.replicas == d.replicas()
        && desired == d.replicas()
        && rs.status.available_replicas == d.replicas()
}

/// `getReplicaSetFraction` (v1.33+): how many replicas this ReplicaSet gains or loses when the
/// Deployment is resized, in proportion to its share of the old maximum.
///
/// Example: an RS with 3 of an old maximum of 7 (max-replicas annotation) when the new maximum
/// is 10 should hold `round(3 × 10 / 7) = 4`, so its fraction is +1.
pub fn get_replica_set_fraction(rs: &ReplicaSet, d: &Deployment) -> i32 {
    if d.replicas() == 0 {
        return -rs.spec.replicas;
    }
    let deployment_max = d.replicas().saturating_add(max_surge(d));
    let before = match get_max_replicas_annotation(rs) {
        Some(v) if v != 0 => v,
        _ => {
            if d.status.replicas == 0 {
                return 0;
            }
            d.status.replicas
        }
    };
    let new_size = f64::from(rs.spec.replicas) * f64::from(deployment_max) / f64::from(before);
    // Go's math.Round rounds halves away from zero, as f64::round does.
    (new_size.round() as i32) - rs.spec.replicas
}

/// `GetReplicaSetProportion`: this ReplicaSet's share of `to_add`, capped by what is left.
pub fn get_replica_set_proportion(rs: &ReplicaSet, d: &Deployment, to_add: i32, added: i32) -> i32 {
    if rs.spec.replicas == 0 || to_add == 0 || to_add == added {
        return 0;
    }
    let fraction = get_replica_set_fraction(rs, d);
    let allowed = to_add - added;
    if to_add > 0 {
        fraction.min(allowed)
    } else {
        fraction.max(allowed)
    }
}
