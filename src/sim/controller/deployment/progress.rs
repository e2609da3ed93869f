//! Rollout progress (`pkg/controller/deployment/progress.go`): the Progressing and ReplicaFailure
//! conditions, the progress deadline, and the requeue that wakes a stuck Deployment.

use super::sync::calculate_status;
use super::util::*;
use super::{OnConflict, SyncContext};
use crate::sim::api::{
    ConditionReason, ConditionStatus, Deployment, DeploymentCondition, DeploymentConditionType,
    DeploymentStatus, ReplicaSet, ReplicaSetConditionType, Time,
};
use crate::sim::trace::{Stage, plural};

/// `syncRolloutStatus`: calculates the status, updates Progressing (complete, progressing, or
/// timed out), copies any ReplicaFailure, and writes the status if it changed — otherwise
/// schedules the progress-deadline check.
pub fn sync_rollout_status(
    ctx: &mut SyncContext<'_>,
    all_rss: &[ReplicaSet],
    new_rs: Option<&ReplicaSet>,
    d: &mut Deployment,
) {
    let mut new_status = calculate_status(all_rss, new_rs, d, ctx.now);
    if !has_progress_deadline(d) {
        remove_deployment_condition(&mut new_status, DeploymentConditionType::Progressing);
    }
    let current = d.condition(DeploymentConditionType::Progressing).cloned();
    let is_complete = new_status.replicas == new_status.updated_replicas
        && current
            .as_ref()
            .is_some_and(|c| c.reason == ConditionReason::NewReplicaSetAvailable);
    if has_progress_deadline(d) && !is_complete {
        let rs_name = new_rs.map(|rs| rs.metadata.name.clone());
        let subject = match &rs_name {
            Some(n) => format!("ReplicaSet {n:?}"),
            None => format!("Deployment {:?}", d.metadata.name),
        };
        if deployment_complete(d, &new_status) {
            let cond = new_deployment_condition(
                DeploymentConditionType::Progressing,
                ConditionStatus::True,
                ConditionReason::NewReplicaSetAvailable,
                format!("{subject} has successfully progressed."),
                ctx.now,
            );
            set_deployment_condition(&mut new_status, cond);
        } else if deployment_progressing(d, &new_status) {
            let mut cond = new_deployment_condition(
                DeploymentConditionType::Progressing,
                ConditionStatus::True,
                ConditionReason::ReplicaSetUpdated,
                format!("{subject} is progressing."),
                ctx.now,
            );
            if let Some(cur) = &current {
                if cur.status == ConditionStatus::True {
                    cond.last_transition_time = cur.last_transition_time;
                }
                remove_deployment_condition(&mut new_status, DeploymentConditionType::Progressing);
            }
            set_deployment_condition(&mut new_status, cond);
        } else if deployment_timed_out(d, &new_status, ctx.now) {
            let cond = new_deployment_condition(
                DeploymentConditionType::Progressing,
                ConditionStatus::False,
                ConditionReason::ProgressDeadlineExceeded,
                format!("{subject} has timed out progressing."),
                ctx.now,
            );
            set_deployment_condition(&mut new_status, cond);
        }
    }

    let failures = get_replica_failures(all_rss, new_rs);
    match failures.into_iter().next() {
        Some(f) => set_deployment_condition(&mut new_status, f),
        None => {
            remove_deployment_condition(&mut new_status, DeploymentConditionType::ReplicaFailure)
        }
    }

    if new_status == d.status {
        match requeue_stuck_deployment(d, &new_status, ctx.now) {
            Some(StuckRequeue::After(after)) => ctx.requeue(d, after),
            Some(StuckRequeue::RateLimited) => ctx.requeue_rate_limited(),
            None => {}
        }
        return;
    }
    write_status(ctx, d, all_rss, new_status);
}

/// The status write that ends `syncRolloutStatus` and `syncDeploymentStatus`: said in words and
/// written, unless an earlier write of the pass makes the API server refuse it (the sync's
/// error; nothing is narrated as written then).
pub fn write_status(
    ctx: &mut SyncContext<'_>,
    d: &mut Deployment,
    all_rss: &[ReplicaSet],
    new_status: DeploymentStatus,
) {
    if ctx.check_write(d, OnConflict::Fail).is_err() {
        return;
    }
    let rs_wanted = all_rss.iter().map(|rs| rs.spec.replicas).sum();
    narrate_status_change(ctx, d, &new_status, rs_wanted);
    d.status = new_status;
    let _ = ctx.update_status(d, OnConflict::Fail);
}

/// `getReplicaFailures`: the new ReplicaSet's ReplicaFailure conditions, or else any
/// ReplicaSet's, converted to Deployment conditions.
pub fn get_replica_failures(
    all_rss: &[ReplicaSet],
    new_rs: Option<&ReplicaSet>,
) -> Vec<DeploymentCondition> {
    let convert = |rs: &ReplicaSet| -> Vec<DeploymentCondition> {
        rs.status
            .conditions
            .iter()
            .filter(|c| c.type_ == ReplicaSetConditionType::ReplicaFailure)
            .map(|c| DeploymentCondition {
                type_: DeploymentConditionType::ReplicaFailure,
                status: c.status,
                last_update_time: c.last_transition_time,
                last_transition_time: c.last_transition_time,
                reason: c.reason,
                message: c.message.clone(),
            })
            .collect()
    };
    if let Some(rs) = new_rs {
        let c = convert(rs);
        if !c.is_empty() {
            return c;
        }
    }
    all_rss.iter().flat_map(convert).collect()
}

/// How `requeueStuckDeployment` asks for the Deployment again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StuckRequeue {
    /// `AddAfter`: this many milliseconds on (a second past the deadline).
    After(u64),
    /// `enqueueRateLimited`: at once, as the queue's rate limiter allows. Less than a second
    /// is left, so the controller looks again and again until the deadline has passed: 5 ms
    /// apart while the queue's token bucket holds tokens, then ten times a second. A Deployment
    /// that was complete and then lost availability never times out and stays in this loop
    /// upstream too.
    RateLimited,
}

/// `requeueStuckDeployment`: when nothing changed, when the progress deadline should be checked
/// again, or `None`. Upstream enqueues at `after + 1s`, or requeues at once (rate-limited) when
/// less than a second remains.
pub fn requeue_stuck_deployment(
    d: &Deployment,
    new_status: &DeploymentStatus,
    now: Time,
) -> Option<StuckRequeue> {
    let after = requeue_stuck_deployment_after(d, new_status, now)?;
    Some(if after < 1000 {
        StuckRequeue::RateLimited
    } else {
        StuckRequeue::After(after as u64 + 1000)
    })
}

/// The duration upstream's `requeueStuckDeployment` returns, in milliseconds: `None` for −1 (no
/// requeue), otherwise `lastUpdateTime + deadline − now`, and 0 for "requeue now".
pub fn requeue_stuck_deployment_after(
    d: &Deployment,
    new_status: &DeploymentStatus,
    now: Time,
) -> Option<i64> {
    let cur = d.condition(DeploymentConditionType::Progressing)?;
    if !has_progress_deadline(d) {
        return None;
    }
    if deployment_complete(d, new_status) || cur.reason == ConditionReason::ProgressDeadlineExceeded
    {
        return None;
    }
    let deadline_ms = i64::from(d.spec.progress_deadline_seconds.unwrap_or(0)) * 1000;
    let after = cur.last_update_time.as_millis() as i64 + deadline_ms - now.as_millis() as i64;
    if after < 1000 { Some(0) } else { Some(after) }
}

/// `checkPausedConditions`: Progressing=Unknown `DeploymentPaused` while paused, and
/// `DeploymentResumed` once resumed — unless the deadline was already exceeded.
pub fn check_paused_conditions(ctx: &mut SyncContext<'_>, d: &mut Deployment) {
    if !has_progress_deadline(d) {
        return;
    }
    let cond = d.condition(DeploymentConditionType::Progressing);
    if cond.is_some_and(|c| c.reason == ConditionReason::ProgressDeadlineExceeded) {
        return;
    }
    let paused_exists = cond.is_some_and(|c| c.reason == ConditionReason::DeploymentPaused);
    let (reason, message) = if d.spec.paused && !paused_exists {
        (ConditionReason::DeploymentPaused, "Deployment is paused")
    } else if !d.spec.paused && paused_exists {
        (ConditionReason::DeploymentResumed, "Deployment is resumed")
    } else {
        return;
    };
    let c = new_deployment_condition(
        DeploymentConditionType::Progressing,
        ConditionStatus::Unknown,
        reason,
        message.to_string(),
        ctx.now,
    );
    set_deployment_condition(&mut d.status, c);
    ctx.out.say(if d.spec.paused {
        "spec.paused is true, so Progressing becomes Unknown (DeploymentPaused): the controller will scale but not roll out."
    } else {
        "spec.paused is false again, so Progressing becomes Unknown (DeploymentResumed) until the rollout moves."
    });
    ctx.out.stage_at_least(Stage::Declare);
    // The pass's first write, so it is accepted; an error would end the sync.
    let _ = ctx.update_status(d, OnConflict::Fail);
}

/// Explains a status write in words: counts that moved and conditions that changed.
///
/// `rs_wanted` is what the ReplicaSets the pass read wanted (their `spec.replicas` summed), which
/// `calculateStatus` counts unavailable pods against.
fn narrate_status_change(
    ctx: &mut SyncContext<'_>,
    d: &Deployment,
    new: &DeploymentStatus,
    rs_wanted: i32,
) {
    let old = &d.status;
    let desired = d.replicas();
    // The first status written for a new generation records what the controller did about the
    // change (stage 2). It is usually written by the pass that reconciled, but when that pass's
    // write was refused with a conflict, by the pass after, which does nothing else.
    let counts_stage = if new.observed_generation > old.observed_generation {
        Stage::Reconcile
    } else {
        Stage::Readiness
    };
    for c in &new.conditions {
        let before = old.condition(c.type_);
        if before.is_some_and(|b| b.status == c.status && b.reason == c.reason) {
            continue;
        }
        let sentence = match c.reason {
            ConditionReason::NewReplicaSetAvailable => {
                ctx.out.stage_default(Stage::Readiness);
                let all = match desired {
                    0 => {
                        "The Deployment wants no replicas and its ReplicaSets hold none".to_string()
                    }
                    1 => "The 1 replica is updated and available".to_string(),
                    _ => format!("All {desired} replicas are updated and available"),
                };
                format!(
                    "{all}, so Progressing is True with reason NewReplicaSetAvailable: the rollout is complete."
                )
            }
            ConditionReason::ProgressDeadlineExceeded => {
                ctx.out.stage_at_least(Stage::Retry);
                let secs = d.spec.progress_deadline_seconds.unwrap_or(0);
                format!(
                    "No progress for more than progressDeadlineSeconds ({secs}s), so Progressing is False with reason ProgressDeadlineExceeded. The controller keeps trying; nothing is rolled back automatically."
                )
            }
            ConditionReason::MinimumReplicasAvailable => {
                ctx.out.stage_default(Stage::Readiness);
                format!(
                    "{} available ≥ {desired} − maxUnavailable {} = {}{}, so Available is True (MinimumReplicasAvailable).",
                    new.available_replicas,
                    max_unavailable(d),
                    desired - max_unavailable(d),
                    recreate_note(d)
                )
            }
            ConditionReason::MinimumReplicasUnavailable => {
                ctx.out.stage_default(counts_stage);
                format!(
                    "Only {} available, below {desired} − maxUnavailable {} = {}{}, so Available is False (MinimumReplicasUnavailable).",
                    new.available_replicas,
                    max_unavailable(d),
                    desired - max_unavailable(d),
                    recreate_note(d)
                )
            }
            ConditionReason::FailedCreate | ConditionReason::FailedDelete => {
                ctx.out.stage_at_least(Stage::Retry);
                // The message is the API server's and has no full stop of its own.
                let stop = if c.message.ends_with('.') { "" } else { "." };
                format!(
                    "A ReplicaSet reports {}: {}{stop}",
                    c.reason.as_str(),
                    c.message
                )
            }
            _ => continue,
        };
        ctx.out.say(sentence);
    }
    let terminating = |s: &DeploymentStatus| s.terminating_replicas.unwrap_or(0);
    if new.updated_replicas != old.updated_replicas
        || new.ready_replicas != old.ready_replicas
        || new.available_replicas != old.available_replicas
        || new.replicas != old.replicas
        || new.unavailable_replicas != old.unavailable_replicas
        || terminating(new) != terminating(old)
    {
        ctx.out.stage_default(counts_stage);
        let term = if terminating(new) > 0 || terminating(old) > 0 {
            format!(", {} terminating", terminating(new))
        } else {
            String::new()
        };
        // `calculateStatus` counts unavailable pods against every ReplicaSet's spec.replicas,
        // old ones included, as the pass read them (before its own scaling), so "unavailable"
        // need not be desired − available; naming what it counts against keeps it from
        // reading as a sum gone wrong.
        let puzzling = new.unavailable_replicas > 0 || new.available_replicas < desired;
        let of = if rs_wanted != desired && puzzling {
            format!(
                ", counted against the {rs_wanted} pod{} the ReplicaSets wanted as this pass began",
                plural(rs_wanted)
            )
        } else {
            String::new()
        };
        ctx.out.say(format!(
            "Deployment status: {} of {desired} up to date, {} ready, {} available ({} unavailable{of}{term}).",
            new.updated_replicas, new.ready_replicas, new.available_replicas, new.unavailable_replicas
        ));
    } else if new.observed_generation != old.observed_generation {
        ctx.out.stage_default(counts_stage);
        ctx.out.say(format!(
            "The controller has now observed generation {}, so status.observedGeneration catches up.",
            new.observed_generation
        ));
    }
}

/// For a Recreate Deployment, which has no maxUnavailable field: `MaxUnavailable` counts it as
/// 0, so the narration says where its 0 comes from.
fn recreate_note(d: &Deployment) -> &'static str {
    if !is_rolling_update(d) {
        " (Recreate has no maxUnavailable; the controller counts it as 0)"
    } else {
        ""
    }
}
