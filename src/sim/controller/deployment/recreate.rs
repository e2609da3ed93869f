//! The Recreate strategy (`pkg/controller/deployment/recreate.go`): scale every old ReplicaSet
//! to 0, wait until no old pod is left, then create the new ReplicaSet at full size.

use super::sync::{
    cleanup_deployment, filter_active, get_all_replica_sets_and_sync_revision,
    scale_replica_set_and_record_event,
};
use super::util::*;
use super::{SyncContext, progress};
use crate::sim::api::{Deployment, Pod, PodPhase, ReplicaSet};
use std::collections::BTreeMap;

/// `rolloutRecreate`: one pass of a Recreate rollout.
pub fn rollout_recreate(
    ctx: &mut SyncContext<'_>,
    d: &mut Deployment,
    rs_list: &[ReplicaSet],
    pod_map: &BTreeMap<String, Vec<Pod>>,
) {
    let Ok(rss) = get_all_replica_sets_and_sync_revision(ctx, d, rs_list, false) else {
        return;
    };
    let mut new_rs = rss.new_rs.clone();
    let mut old_rss = rss.old_rss.clone();
    let mut all_rss = rss.all();
    let active_old = filter_active(&old_rss);

    if scale_down_old_replica_sets_for_recreate(ctx, &active_old, d) {
        // A Deployment switched to Recreate in the middle of a rolling update already runs new
        // pods beside the old; Recreate leaves them be and only holds back further growth.
        match new_rs.as_ref().filter(|rs| rs.spec.replicas > 0) {
            Some(rs) => ctx.out.say(format!(
                "The Recreate strategy scales every old ReplicaSet to 0 before it grows the new one: {} keeps the {} replica{} it already has (from before the strategy was Recreate) and grows only once no old pod is left.",
                rs.metadata.name,
                rs.spec.replicas,
                if rs.spec.replicas == 1 { "" } else { "s" }
            )),
            None => ctx.out.say("The Recreate strategy never runs old and new pods together, so every old ReplicaSet is scaled to 0 first."),
        }
        progress::sync_rollout_status(ctx, &all_rss, new_rs.as_ref(), d);
        return;
    }

    if old_pods_running(new_rs.as_ref(), &old_rss, pod_map) {
        progress::sync_rollout_status(ctx, &all_rss, new_rs.as_ref(), d);
        if !ctx.out.is_noop() {
            ctx.out.say("Old pods are still running or terminating, so Recreate waits before creating any new pod.");
        }
        return;
    }

    if new_rs.is_none() {
        let Ok(created) = get_all_replica_sets_and_sync_revision(ctx, d, rs_list, true) else {
            return;
        };
        new_rs = created.new_rs.clone();
        old_rss = created.old_rss.clone();
        all_rss = created.all();
    }

    if let Some(rs) = &new_rs {
        scale_up_new_replica_set_for_recreate(ctx, rs, d);
    }
    if deployment_complete(d, &d.status) {
        cleanup_deployment(ctx, &old_rss, d);
    }
    progress::sync_rollout_status(ctx, &all_rss, new_rs.as_ref(), d);
}

/// `scaleDownOldReplicaSetsForRecreate`: every active old ReplicaSet to 0. Returns whether any
/// was scaled.
pub fn scale_down_old_replica_sets_for_recreate(
    ctx: &mut SyncContext<'_>,
    old_rss: &[ReplicaSet],
    d: &Deployment,
) -> bool {
    let mut scaled = false;
    for rs in old_rss {
        if rs.spec.replicas == 0 {
            continue;
        }
        let (s, _) = scale_replica_set_and_record_event(ctx, rs, 0, d);
        scaled |= s;
    }
    scaled
}

/// `oldPodsRunning`: old ReplicaSets still report pods, or a pod of any ReplicaSet other than
/// the new one is in a non-terminal phase (Pending, Running, Unknown, or none).
pub fn old_pods_running(
    new_rs: Option<&ReplicaSet>,
    old_rss: &[ReplicaSet],
    pod_map: &BTreeMap<String, Vec<Pod>>,
) -> bool {
    if get_actual_replica_count_for_replica_sets(old_rss) > 0 {
        return true;
    }
    pod_map.iter().any(|(uid, pods)| {
        if new_rs.is_some_and(|rs| &rs.metadata.uid == uid) {
            return false;
        }
        pods.iter()
            .any(|p| !matches!(p.status.phase, PodPhase::Failed | PodPhase::Succeeded))
    })
}

/// `scaleUpNewReplicaSetForRecreate`: the new ReplicaSet straight to `spec.replicas`.
pub fn scale_up_new_replica_set_for_recreate(
    ctx: &mut SyncContext<'_>,
    new_rs: &ReplicaSet,
    d: &Deployment,
) -> bool {
    let (scaled, _) = scale_replica_set_and_record_event(ctx, new_rs, d.replicas(), d);
    if scaled {
        ctx.out.say(format!(
            "No old pod is left, so Recreate scales {} straight to {}.",
            new_rs.metadata.name,
            d.replicas()
        ));
    }
    scaled
}
