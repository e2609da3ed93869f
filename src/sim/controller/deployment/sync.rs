//! The parts of a deployment sync shared by every strategy (`pkg/controller/deployment/sync.go`):
//! finding or creating the new ReplicaSet and syncing revisions, scaling one ReplicaSet,
//! proportional scaling, history cleanup, and status calculation.

use super::util::*;
use super::{OnConflict, SyncContext, progress};
use crate::sim::api::{
    ConditionReason, ConditionStatus, Deployment, DeploymentConditionType, DeploymentStatus,
    DeploymentStrategyType, EventReason, ObjectMeta, OwnerReference, ReplicaSet, ReplicaSetSpec,
};
use crate::sim::controller::Change;
use crate::sim::order;
use crate::sim::trace::{Stage, plural};

/// The result of `getAllReplicaSetsAndSyncRevision`: the new ReplicaSet (if any) and the old ones.
pub struct ReplicaSets {
    pub new_rs: Option<ReplicaSet>,
    pub old_rss: Vec<ReplicaSet>,
}

impl ReplicaSets {
    /// `append(oldRSs, newRS)` with the nil entry dropped.
    pub fn all(&self) -> Vec<ReplicaSet> {
        let mut all = self.old_rss.clone();
        all.extend(self.new_rs.clone());
        all
    }
}

/// `FilterActiveReplicaSets`: those with `spec.replicas > 0`.
pub fn filter_active(rss: &[ReplicaSet]) -> Vec<ReplicaSet> {
    rss.iter()
        .filter(|rs| rs.spec.replicas > 0)
        .cloned()
        .collect()
}

/// `getAllReplicaSetsAndSyncRevision`: splits the ReplicaSets into new and old, syncs the new
/// one's revision annotations, and creates it when `create` is set and none matches the template.
pub fn get_all_replica_sets_and_sync_revision(
    ctx: &mut SyncContext<'_>,
    d: &mut Deployment,
    rs_list: &[ReplicaSet],
    create: bool,
) -> Result<ReplicaSets, String> {
    let new_idx = find_new_replica_set(d, rs_list);
    let old_rss: Vec<ReplicaSet> = rs_list
        .iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != new_idx)
        .map(|(_, rs)| rs.clone())
        .collect();
    let existing = new_idx.and_then(|i| rs_list.get(i));
    // Every caller upstream returns this error from `syncDeployment`.
    let new_rs = get_new_replica_set(ctx, d, existing, &old_rss, create).inspect_err(|e| {
        ctx.fail(e.clone());
    })?;
    Ok(ReplicaSets { new_rs, old_rss })
}

/// `getNewReplicaSet`: see §4.3–§4.5 of the specification.
fn get_new_replica_set(
    ctx: &mut SyncContext<'_>,
    d: &mut Deployment,
    existing: Option<&ReplicaSet>,
    old_rss: &[ReplicaSet],
    create: bool,
) -> Result<Option<ReplicaSet>, String> {
    let max_old_revision = max_revision(old_rss);
    let new_revision = (max_old_revision + 1).to_string();

    if let Some(existing) = existing {
        let mut rs_copy = existing.clone();
        let annotations_updated = set_new_replica_set_annotations(
            d,
            &mut rs_copy,
            &new_revision,
            true,
            MAX_REV_HISTORY_LENGTH_IN_CHARS,
        );
        let min_ready_needs_update = rs_copy.spec.min_ready_seconds != d.spec.min_ready_seconds;
        if annotations_updated || min_ready_needs_update {
            rs_copy.spec.min_ready_seconds = d.spec.min_ready_seconds;
            if min_ready_needs_update {
                ctx.out.say(format!(
                    "The new ReplicaSet {} takes the Deployment's minReadySeconds, {}s (it had {}s).",
                    rs_copy.metadata.name,
                    d.spec.min_ready_seconds,
                    existing.spec.min_ready_seconds
                ));
            }
            if existing.annotation(REVISION_ANNOTATION) != rs_copy.annotation(REVISION_ANNOTATION) {
                ctx.out.say(format!(
                    "ReplicaSet {} already has the current template, so it is re-used and becomes revision {}{}.",
                    rs_copy.metadata.name,
                    new_revision,
                    existing
                        .annotation(REVISION_ANNOTATION)
                        .map(|r| format!(" (it was revision {r})"))
                        .unwrap_or_default()
                ));
            }
            ctx.sync_replica_set(&rs_copy)?;
            return Ok(Some(rs_copy));
        }

        let mut needs_update = false;
        if let Some(rev) = rs_copy.annotation(REVISION_ANNOTATION)
            && d.metadata
                .annotations
                .get(REVISION_ANNOTATION)
                .map(String::as_str)
                != Some(rev)
        {
            ctx.out.say(format!(
                "The Deployment takes the revision of its new ReplicaSet {}: its {REVISION_ANNOTATION} annotation becomes {rev}.",
                rs_copy.metadata.name
            ));
            d.metadata
                .annotations
                .insert(REVISION_ANNOTATION.to_string(), rev.to_string());
            needs_update = true;
        }
        if has_progress_deadline(d) && d.condition(DeploymentConditionType::Progressing).is_none() {
            let cond = new_deployment_condition(
                DeploymentConditionType::Progressing,
                ConditionStatus::True,
                ConditionReason::FoundNewReplicaSet,
                format!("Found new replica set {:?}", rs_copy.metadata.name),
                ctx.now,
            );
            set_deployment_condition(&mut d.status, cond);
            needs_update = true;
        }
        if needs_update {
            ctx.update_status(d, OnConflict::Fail)?;
        }
        return Ok(Some(rs_copy));
    }

    if !create {
        return Ok(None);
    }

    // A new ReplicaSet named after the template hash.
    let hash = compute_hash(&d.spec.template, d.status.collision_count);
    let mut template = d.spec.template.clone();
    template.metadata.labels.insert(
        DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY.to_string(),
        hash.clone(),
    );
    let selector = d
        .spec
        .selector
        .clone()
        .unwrap_or_default()
        .with_label(DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY, &hash);
    let name = format!("{}-{}", d.metadata.name, hash);
    let mut new_rs = ReplicaSet {
        metadata: ObjectMeta {
            name: name.clone(),
            namespace: d.metadata.namespace.clone(),
            labels: template.metadata.labels.clone(),
            owner_references: vec![OwnerReference {
                api_version: "apps/v1".into(),
                kind: "Deployment".into(),
                name: d.metadata.name.clone(),
                uid: d.metadata.uid.clone(),
                controller: true,
                block_owner_deletion: true,
            }],
            ..Default::default()
        }
        .into(),
        spec: ReplicaSetSpec {
            replicas: 0,
            min_ready_seconds: d.spec.min_ready_seconds,
            selector: selector.into(),
            template,
        },
        status: Default::default(),
    };
    let mut all_with_new = old_rss.to_vec();
    all_with_new.push(new_rs.clone());
    let new_replicas = new_rs_new_replicas(d, &all_with_new, 0)?;
    new_rs.spec.replicas = new_replicas;
    set_new_replica_set_annotations(
        d,
        &mut new_rs,
        &new_revision,
        false,
        MAX_REV_HISTORY_LENGTH_IN_CHARS,
    );

    // The API server validates the new ReplicaSet's name as any object's: a DNS subdomain of at
    // most 253 characters, which a Deployment name of 243 or more leaves no room for. That is
    // any other create error (spec §4.5 step 3): Progressing=False with ReplicaSetCreateError,
    // a Warning event, and the sync fails, to be retried with back-off.
    if name.len() > 253 {
        let err = format!(
            "ReplicaSet.apps {name:?} is invalid: metadata.name: Invalid value: {name:?}: must be no more than 253 characters"
        );
        let msg = format!("Failed to create new replica set {name:?}: {err}");
        let again = d.status.conditions.iter().any(|c| {
            c.type_ == DeploymentConditionType::Progressing
                && c.reason == ConditionReason::ReplicaSetCreateError
        });
        if has_progress_deadline(d) {
            let cond = new_deployment_condition(
                DeploymentConditionType::Progressing,
                ConditionStatus::False,
                ConditionReason::ReplicaSetCreateError,
                msg.clone(),
                ctx.now,
            );
            // `SetDeploymentCondition` leaves a condition of the same status and reason alone,
            // so a retry writes the same object, which the API server stores without a change
            // (and so without waking the controller).
            let before = d.status.clone();
            set_deployment_condition(&mut d.status, cond);
            if d.status != before {
                // Upstream drops this write's error: the create error is the one it reports.
                let _ = ctx.update_status(d, OnConflict::Ignore);
            }
        }
        ctx.event(d, true, EventReason::ReplicaSetCreateError, msg);
        ctx.out.stage_at_least(Stage::Reconcile);
        let short: String = name.chars().take(20).collect();
        // Without a progress deadline there is no condition to tell a retry by: every try says
        // it all.
        ctx.out.say(if again {
            format!(
                "The controller tries again to create ReplicaSet {short}…, and the API server refuses it again (a name of {} characters); the sync fails and is retried with a longer back-off.",
                name.len()
            )
        } else {
            let condition = if has_progress_deadline(d) {
                " Progressing turns False (ReplicaSetCreateError)."
            } else {
                ""
            };
            format!(
                "The controller tries to create ReplicaSet {short}… for the new template, but the API server refuses it: the Deployment's name ({} characters) and the hash make a name of {} characters, over the 253 a name may have.{condition} The sync fails and is retried with back-off; only a shorter Deployment name can fix it.",
                d.metadata.name.len(),
                name.len()
            )
        });
        return Err(err);
    }

    // A name that is taken by a ReplicaSet with another template is a hash collision: count it
    // so the next hash differs, and retry.
    if let Some(taken) = ctx.store.replica_sets.get(&name) {
        let ours = taken
            .metadata
            .controller_ref()
            .is_some_and(|r| r.uid == d.metadata.uid);
        if ours && equal_ignore_hash(&taken.spec.template, &d.spec.template) {
            return Ok(Some(taken.clone()));
        }
        d.status.collision_count = Some(d.status.collision_count.unwrap_or(0).saturating_add(1));
        // Upstream only logs whether this write landed; the AlreadyExists error is returned.
        let _ = ctx.update_status(d, OnConflict::Ignore);
        return Err(format!("replicasets.apps {name:?} already exists"));
    }

    // The UID is given by the API server; the simulator fills it in when it applies the create.
    ctx.out
        .changes
        .push(Change::CreateReplicaSet(new_rs.clone()));
    if new_replicas > 0 {
        ctx.event(
            d,
            false,
            EventReason::ScalingReplicaSet,
            format!("Scaled up replica set {name} from 0 to {new_replicas}"),
        );
    }
    ctx.out.stage_at_least(Stage::Reconcile);
    ctx.out.say(explain_new_replica_set(
        d,
        &name,
        &new_revision,
        new_replicas,
        old_rss,
    ));

    d.metadata
        .annotations
        .insert(REVISION_ANNOTATION.to_string(), new_revision.clone());
    if has_progress_deadline(d) {
        let cond = new_deployment_condition(
            DeploymentConditionType::Progressing,
            ConditionStatus::True,
            ConditionReason::NewReplicaSetCreated,
            format!("Created new replica set {name:?}"),
            ctx.now,
        );
        set_deployment_condition(&mut d.status, cond);
    }
    ctx.update_status(d, OnConflict::Fail)?;
    Ok(Some(new_rs))
}

fn explain_new_replica_set(
    d: &Deployment,
    name: &str,
    revision: &str,
    replicas: i32,
    old_rss: &[ReplicaSet],
) -> String {
    let desired = d.replicas();
    let head = format!(
        "No ReplicaSet matches the pod template, so the controller created {name} (revision {revision})"
    );
    match d.strategy_type() {
        DeploymentStrategyType::Recreate => {
            format!(
                "{head} at the full {replicas} replica{}, because Recreate starts new pods only after every old pod is gone.",
                plural(replicas)
            )
        }
        _ => {
            let surge = max_surge(d);
            let current = get_replica_count_for_replica_sets(old_rss);
            let surge_text = surge_phrase(d);
            if current == 0 {
                format!(
                    "{head} with {replicas} replica{}: there are no old pods, so it starts at the full {desired}.",
                    plural(replicas)
                )
            } else {
                format!(
                    "{head} with {replicas} replica{}: {surge_text}, so the total may reach {desired} + {surge} = {}; the old ReplicaSets hold {current}, leaving room for {replicas}.",
                    plural(replicas),
                    desired + surge
                )
            }
        }
    }
}

/// "maxSurge 25% of 10 rounds up to 3" (or "maxSurge 1").
pub fn surge_phrase(d: &Deployment) -> String {
    let raw = d
        .spec
        .strategy
        .rolling_update
        .as_ref()
        .and_then(|r| r.max_surge.clone());
    match raw {
        Some(v) if v.is_percent() => format!(
            "maxSurge {v} of {} rounds up to {}",
            d.replicas(),
            max_surge(d)
        ),
        Some(v) => format!("maxSurge is {v}"),
        None => "maxSurge is 0".to_string(),
    }
}

/// "maxUnavailable 25% of 10 rounds down to 2" (or "maxUnavailable 1").
pub fn unavailable_phrase(d: &Deployment) -> String {
    let raw = d
        .spec
        .strategy
        .rolling_update
        .as_ref()
        .and_then(|r| r.max_unavailable.clone());
    let resolved = max_unavailable(d);
    let raw_resolved = raw
        .as_ref()
        .and_then(|v| v.scaled_value(d.replicas(), false).ok())
        .unwrap_or(0);
    let base = match raw {
        Some(v) if v.is_percent() => format!(
            "maxUnavailable {v} of {} rounds down to {raw_resolved}",
            d.replicas()
        ),
        Some(v) => format!("maxUnavailable is {v}"),
        None => "maxUnavailable is 0".to_string(),
    };
    // The value the fenceposts resolve to (0/0 raised to 1), then capped at the replicas.
    let fencepost = if d.replicas() > 0 {
        fenceposts(d).1
    } else {
        raw_resolved
    };
    if fencepost != raw_resolved && resolved == 1 {
        format!("{base}, raised to 1 because maxSurge is also 0")
    } else if resolved < fencepost {
        // `MaxUnavailable` never lets more go than the Deployment has.
        format!(
            "{base}, capped at the {} replica{}",
            d.replicas(),
            plural(d.replicas())
        )
    } else {
        base
    }
}

/// `isScalingEvent`: an active ReplicaSet was last sized for a different `spec.replicas`.
pub fn is_scaling_event(
    ctx: &mut SyncContext<'_>,
    d: &mut Deployment,
    rs_list: &[ReplicaSet],
) -> bool {
    let Ok(rss) = get_all_replica_sets_and_sync_revision(ctx, d, rs_list, false) else {
        return false;
    };
    // `filterActiveReplicaSets(all)`, walked in place rather than copied.
    rss.old_rss
        .iter()
        .chain(rss.new_rs.as_ref())
        .filter(|rs| rs.spec.replicas > 0)
        .filter_map(get_desired_replicas_annotation)
        .any(|desired| desired != d.replicas())
}

/// `sync`: the pass for paused Deployments and scaling events — proportional scaling, history
/// cleanup while paused, and a plain status sync.
pub fn sync(ctx: &mut SyncContext<'_>, d: &mut Deployment, rs_list: &[ReplicaSet]) {
    let Ok(rss) = get_all_replica_sets_and_sync_revision(ctx, d, rs_list, false) else {
        return;
    };
    if let Err(e) = scale(ctx, d, rss.new_rs.as_ref(), &rss.old_rss) {
        ctx.fail(e);
        return;
    }
    if d.spec.paused && get_rollback_to(d).is_none() {
        cleanup_deployment(ctx, &rss.old_rss, d);
    }
    sync_deployment_status(ctx, d, &rss.all(), rss.new_rs.as_ref());
}

/// `syncStatusOnly`: status without scaling, for a Deployment being deleted.
pub fn sync_status_only(ctx: &mut SyncContext<'_>, d: &mut Deployment, rs_list: &[ReplicaSet]) {
    if let Ok(rss) = get_all_replica_sets_and_sync_revision(ctx, d, rs_list, false) {
        sync_deployment_status(ctx, d, &rss.all(), rss.new_rs.as_ref());
    }
}

/// `scale`: brings the ReplicaSets to the Deployment's size — one active ReplicaSet takes it
/// all; a saturated new one lets the old go to 0; otherwise, for a rolling update, the surplus
/// or deficit is shared out in proportion to each ReplicaSet's size.
///
/// Example (upstream "proportional scaling: 7 → 10", surge 0): v3=2 (new), v2=3, v1=2 sized for
/// 7. The 3 extra go largest first, newest first on ties: v2 round(3·10/7)=4, v3
/// round(2·10/7)=3, v1 3, giving v3=3, v2=4, v1=3.
///
/// # Errors
/// A failed ReplicaSet write stops the loop (the Deployment is requeued).
pub fn scale(
    ctx: &mut SyncContext<'_>,
    d: &Deployment,
    new_rs: Option<&ReplicaSet>,
    old_rss: &[ReplicaSet],
) -> Result<(), String> {
    if let Some(target) = find_active_or_latest(new_rs, old_rss) {
        if target.spec.replicas == d.replicas() {
            return Ok(());
        }
        let before = target.spec.replicas;
        let (scaled, _) = scale_replica_set_and_record_event(ctx, &target, d.replicas(), d);
        if scaled {
            // `FindActiveOrLatest`: the one ReplicaSet that wants pods, or with none, the new
            // ReplicaSet if there is one, else the newest old one.
            let which = if before > 0 {
                format!("{} is the only active ReplicaSet", target.metadata.name)
            } else if new_rs.is_some_and(|n| n.metadata.name == target.metadata.name) {
                format!(
                    "no ReplicaSet wants pods, so the new one, {}, is chosen",
                    target.metadata.name
                )
            } else {
                format!(
                    "no ReplicaSet wants pods and there is no new one, so the newest, {}, is chosen",
                    target.metadata.name
                )
            };
            ctx.out.say(format!(
                "spec.replicas is now {}, and {which}: it takes the whole change from {before} to {}.",
                d.replicas(),
                d.replicas()
            ));
        }
        return Ok(());
    }

    if is_saturated(d, new_rs) {
        // Upstream's `FindActiveOrLatest`, called first, sorts the caller's list of old
        // ReplicaSets newest first in place, so they go to 0 in that order.
        let mut active = filter_active(old_rss);
        order::sort_by(&mut active, |a, b| by_creation_timestamp(b, a));
        for old in active {
            scale_replica_set_and_record_event(ctx, &old, 0, d);
        }
        ctx.out.say("The new ReplicaSet is saturated (all replicas available at the Deployment's size), so every old ReplicaSet goes to 0.");
        return Ok(());
    }

    if d.strategy_type() != DeploymentStrategyType::RollingUpdate {
        return Ok(());
    }
    let mut all = old_rss.to_vec();
    all.extend(new_rs.cloned());
    let mut all = filter_active(&all);
    let all_replicas = get_replica_count_for_replica_sets(&all);
    let allowed = if d.replicas() > 0 {
        d.replicas().saturating_add(max_surge(d))
    } else {
        0
    };
    let to_add = allowed - all_replicas;
    if to_add > 0 {
        order::sort_by(&mut all, by_size_newer);
    } else if to_add < 0 {
        order::sort_by(&mut all, by_size_older);
    }
    let mut added = 0;
    let mut sizes: Vec<i32> = Vec::with_capacity(all.len());
    for rs in &all {
        if to_add != 0 {
            let p = get_replica_set_proportion(rs, d, to_add, added);
            sizes.push(rs.spec.replicas + p);
            added += p;
        } else {
            sizes.push(rs.spec.replicas);
        }
    }
    let mut parts = Vec::new();
    for (i, rs) in all.iter().enumerate() {
        if i == 0 && to_add != 0 {
            sizes[0] = (sizes[0] + to_add - added).max(0);
        }
        if sizes[i] != rs.spec.replicas {
            parts.push(format!(
                "{} {}→{}",
                rs.metadata.name, rs.spec.replicas, sizes[i]
            ));
        }
        scale_replica_set(ctx, rs, sizes[i], d);
    }
    if !parts.is_empty() {
        // A Deployment scaled to 0 may hold nothing, whatever its maxSurge.
        let why = if d.replicas() == 0 {
            "spec.replicas is 0, so no surge applies".to_string()
        } else {
            format!("{} + maxSurge {}", d.replicas(), max_surge(d))
        };
        ctx.out.say(format!(
            "spec.replicas changed in the middle of a rollout, so the controller scales proportionally: the ReplicaSets may hold {allowed} in total ({why}) and hold {all_replicas}, so {to_add:+} replicas are shared out by size: {}.",
            parts.join(", ")
        ));
    }
    Ok(())
}

/// `FindActiveOrLatest`: the one active ReplicaSet, or when none is active the new one (or the
/// newest old one); `None` when several are active.
pub fn find_active_or_latest(
    new_rs: Option<&ReplicaSet>,
    old_rss: &[ReplicaSet],
) -> Option<ReplicaSet> {
    if new_rs.is_none() && old_rss.is_empty() {
        return None;
    }
    let mut olds = old_rss.to_vec();
    order::sort_by(&mut olds, |a, b| by_creation_timestamp(b, a));
    let mut all = olds.clone();
    all.extend(new_rs.cloned());
    let active = filter_active(&all);
    match active.len() {
        0 => new_rs.cloned().or_else(|| olds.first().cloned()),
        1 => active.into_iter().next(),
        _ => None,
    }
}

/// `scaleReplicaSetAndRecordEvent`: scales when the size differs. Returns whether it scaled and
/// the updated copy.
pub fn scale_replica_set_and_record_event(
    ctx: &mut SyncContext<'_>,
    rs: &ReplicaSet,
    new_scale: i32,
    d: &Deployment,
) -> (bool, ReplicaSet) {
    if rs.spec.replicas == new_scale {
        return (false, rs.clone());
    }
    scale_replica_set(ctx, rs, new_scale, d)
}

/// `scaleReplicaSet`: writes the size and the replica annotations when either is stale, and
/// records `Scaled <up|down> replica set <rs> from <old> to <new>` (v1.31+ wording) when the
/// size changed.
pub fn scale_replica_set(
    ctx: &mut SyncContext<'_>,
    rs: &ReplicaSet,
    new_scale: i32,
    d: &Deployment,
) -> (bool, ReplicaSet) {
    let size_needs_update = rs.spec.replicas != new_scale;
    let desired = d.replicas();
    let max = desired.saturating_add(max_surge(d));
    let annotations_need_update = replicas_annotations_need_update(rs, desired, max);
    if !(size_needs_update || annotations_need_update) {
        return (false, rs.clone());
    }
    let old_scale = rs.spec.replicas;
    let mut copy = rs.clone();
    copy.spec.replicas = new_scale;
    set_replicas_annotations(&mut copy, desired, max);
    ctx.out.change(Change::UpdateReplicaSet(copy.clone()));
    if size_needs_update {
        let direction = if old_scale < new_scale { "up" } else { "down" };
        ctx.event(
            d,
            false,
            EventReason::ScalingReplicaSet,
            format!(
                "Scaled {direction} replica set {} from {old_scale} to {new_scale}",
                rs.metadata.name
            ),
        );
        ctx.out.stage_at_least(Stage::Reconcile);
    }
    (size_needs_update, copy)
}

/// `cleanupDeployment`: deletes the oldest old ReplicaSets beyond `revisionHistoryLimit`, but
/// only those fully scaled down and synced; a skipped one still uses up a slot.
pub fn cleanup_deployment(
    ctx: &mut SyncContext<'_>,
    old_rss: &[ReplicaSet],
    d: &Deployment,
) -> Vec<String> {
    let mut deleted = Vec::new();
    if !has_revision_history_limit(d) {
        return deleted;
    }
    let limit = d.spec.revision_history_limit.unwrap_or(0);
    let mut cleanable: Vec<&ReplicaSet> = old_rss
        .iter()
        .filter(|rs| rs.metadata.deletion_timestamp.is_none())
        .collect();
    let diff = cleanable.len() as i64 - i64::from(limit);
    if diff <= 0 {
        return deleted;
    }
    order::sort_by(&mut cleanable, |a, b| by_revision(a, b));
    for rs in cleanable.into_iter().take(diff as usize) {
        if rs.status.replicas != 0
            || rs.spec.replicas != 0
            || rs.metadata.generation > rs.status.observed_generation
            || rs.metadata.deletion_timestamp.is_some()
        {
            continue;
        }
        ctx.out
            .changes
            .push(Change::DeleteReplicaSet(rs.metadata.name.clone()));
        deleted.push(rs.metadata.name.clone());
    }
    if !deleted.is_empty() {
        ctx.out.say(format!(
            "revisionHistoryLimit is {limit} and there {} {} old ReplicaSet{}, so the oldest empty one{} deleted: {}.",
            if old_rss.len() == 1 { "is" } else { "are" },
            old_rss.len(),
            plural(i64::try_from(old_rss.len()).unwrap_or(i64::MAX)),
            if deleted.len() == 1 { " is" } else { "s are" },
            deleted.join(", ")
        ));
    }
    deleted
}

/// `calculateStatus`: the Deployment status implied by its ReplicaSets, with the Available
/// condition set from `availableReplicas ≥ replicas − maxUnavailable`.
pub fn calculate_status(
    all_rss: &[ReplicaSet],
    new_rs: Option<&ReplicaSet>,
    d: &Deployment,
    now: crate::sim::api::Time,
) -> DeploymentStatus {
    let available = get_available_replica_count_for_replica_sets(all_rss);
    let total = get_replica_count_for_replica_sets(all_rss);
    let mut status = DeploymentStatus {
        observed_generation: d.metadata.generation,
        replicas: get_actual_replica_count_for_replica_sets(all_rss),
        updated_replicas: get_actual_replica_count_for_replica_sets(new_rs),
        ready_replicas: get_ready_replica_count_for_replica_sets(all_rss),
        available_replicas: available,
        unavailable_replicas: (total - available).max(0),
        terminating_replicas: get_terminating_replica_count_for_replica_sets(all_rss),
        conditions: d.status.conditions.clone(),
        collision_count: d.status.collision_count,
    };
    let cond = if available >= d.replicas() - max_unavailable(d) {
        new_deployment_condition(
            DeploymentConditionType::Available,
            ConditionStatus::True,
            ConditionReason::MinimumReplicasAvailable,
            "Deployment has minimum availability.".to_string(),
            now,
        )
    } else {
        new_deployment_condition(
            DeploymentConditionType::Available,
            ConditionStatus::False,
            ConditionReason::MinimumReplicasUnavailable,
            "Deployment does not have minimum availability.".to_string(),
            now,
        )
    };
    set_deployment_condition(&mut status, cond);
    status
}

/// `syncDeploymentStatus`: writes the calculated status when it differs. It leaves Progressing
/// alone.
pub fn sync_deployment_status(
    ctx: &mut SyncContext<'_>,
    d: &mut Deployment,
    all_rss: &[ReplicaSet],
    new_rs: Option<&ReplicaSet>,
) {
    let new_status = calculate_status(all_rss, new_rs, d, ctx.now);
    if new_status == d.status {
        return;
    }
    progress::write_status(ctx, d, all_rss, new_status);
}
