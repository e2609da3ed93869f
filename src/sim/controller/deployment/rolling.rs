//! The RollingUpdate strategy (`pkg/controller/deployment/rolling.go`): grow the new ReplicaSet
//! within maxSurge, shrink the old ones within maxUnavailable, one direction per pass.

use super::sync::{
    filter_active, get_all_replica_sets_and_sync_revision, scale_replica_set_and_record_event,
    surge_phrase, unavailable_phrase,
};
use super::util::*;
use super::{SyncContext, progress};
use crate::sim::api::{Deployment, ReplicaSet};
use crate::sim::order;
use crate::sim::trace::plural;

/// `rolloutRolling`: one pass of a rolling update.
pub fn rollout_rolling(ctx: &mut SyncContext<'_>, d: &mut Deployment, rs_list: &[ReplicaSet]) {
    let Ok(rss) = get_all_replica_sets_and_sync_revision(ctx, d, rs_list, true) else {
        return;
    };
    let all_rss = rss.all();
    let Some(new_rs) = rss.new_rs.as_ref() else {
        return;
    };

    let scaled_up = reconcile_new_replica_set(ctx, &all_rss, new_rs, d);
    if ctx.out.error.is_some() {
        return;
    }
    if scaled_up {
        progress::sync_rollout_status(ctx, &all_rss, Some(new_rs), d);
        return;
    }

    let active_old = filter_active(&rss.old_rss);
    if reconcile_old_replica_sets(ctx, &all_rss, &active_old, new_rs, d) {
        progress::sync_rollout_status(ctx, &all_rss, Some(new_rs), d);
        return;
    }

    if deployment_complete(d, &d.status) {
        super::sync::cleanup_deployment(ctx, &rss.old_rss, d);
    }
    progress::sync_rollout_status(ctx, &all_rss, Some(new_rs), d);
}

/// `reconcileNewReplicaSet`: scales the new ReplicaSet down to `spec.replicas` if it is above it,
/// or up by as much as the surge budget allows. Returns whether it scaled; an unresolvable
/// maxSurge is the sync's error.
///
/// Example: replicas 10, maxSurge 3; old RS 8 and new RS 3 make 11 < 13, so the new RS goes to
/// `3 + min(13 − 11, 10 − 3) = 5`.
pub fn reconcile_new_replica_set(
    ctx: &mut SyncContext<'_>,
    all_rss: &[ReplicaSet],
    new_rs: &ReplicaSet,
    d: &Deployment,
) -> bool {
    let desired = d.replicas();
    if new_rs.spec.replicas == desired {
        return false;
    }
    if new_rs.spec.replicas > desired {
        let (scaled, _) = scale_replica_set_and_record_event(ctx, new_rs, desired, d);
        if scaled {
            ctx.out.say(format!(
                "{} has {} replica{} but spec.replicas is {desired}, so it is scaled down to {desired}.",
                new_rs.metadata.name,
                new_rs.spec.replicas,
                plural(new_rs.spec.replicas)
            ));
        }
        return scaled;
    }
    let new_count = match new_rs_new_replicas(d, all_rss, new_rs.spec.replicas) {
        Ok(n) => n,
        Err(e) => {
            ctx.fail(e);
            return false;
        }
    };
    let (scaled, _) = scale_replica_set_and_record_event(ctx, new_rs, new_count, d);
    if scaled {
        let surge = max_surge(d);
        let current = get_replica_count_for_replica_sets(all_rss);
        ctx.out.say(format!(
            "Because {}, the ReplicaSets may hold {desired} + {surge} = {} pod{} in total; they hold {current}, so the new ReplicaSet {} may grow from {} to {new_count}.",
            surge_phrase(d),
            desired + surge,
            plural(desired + surge),
            new_rs.metadata.name,
            new_rs.spec.replicas
        ));
    }
    scaled
}

/// `reconcileOldReplicaSets`: scales old ReplicaSets down, first their unhealthy pods, then
/// healthy ones as far as `minAvailable` allows. Returns whether anything was scaled down.
///
/// Example: replicas 10 (surge 3, unavailable 2), old RS 10 all available, new RS 3 none
/// available: `maxScaledDown = 13 − 8 − 3 = 2`, and since 10 available exceed the minimum of 8
/// by 2, the old RS goes from 10 to 8.
pub fn reconcile_old_replica_sets(
    ctx: &mut SyncContext<'_>,
    all_rss: &[ReplicaSet],
    old_rss: &[ReplicaSet],
    new_rs: &ReplicaSet,
    d: &Deployment,
) -> bool {
    let old_pods = get_replica_count_for_replica_sets(old_rss);
    if old_pods == 0 {
        return false;
    }
    let all_pods = get_replica_count_for_replica_sets(all_rss);
    let min_available = d.replicas() - max_unavailable(d);
    let new_unavailable = new_rs.spec.replicas - new_rs.status.available_replicas;
    let max_scaled_down = all_pods - min_available - new_unavailable;
    if max_scaled_down <= 0 {
        return false;
    }

    // Upstream swallows a cleanup error and reports "not scaled": the pass scales nothing more.
    // This is what stops a second scale-down on a ReplicaSet whose status still counts pods it
    // has already deleted (spec below available).
    let Ok((old_after_cleanup, cleanup_count)) =
        cleanup_unhealthy_replicas(ctx, old_rss, d, max_scaled_down)
    else {
        ctx.out.say(
            "An old ReplicaSet reports more available pods than it now wants (its status has not caught up with its last scale-down), so the controller scales nothing down this pass.",
        );
        return false;
    };
    if cleanup_count > 0 {
        // The new ReplicaSet's unavailable count is its spec less its available pods, which is
        // negative while its status still counts pods a scale-down removed; upstream uses it
        // as it is, so the sum says so rather than print "− -4".
        let new_term = if new_unavailable < 0 {
            format!(
                "+ {} (the new ReplicaSet reports {} more available than it wants)",
                -new_unavailable, -new_unavailable
            )
        } else {
            format!("− {new_unavailable} unavailable new")
        };
        ctx.out.say(format!(
            "Old ReplicaSets had {cleanup_count} unavailable pod{}, which add nothing to availability, so they were removed first (up to {max_scaled_down} may go: {all_pods} total − {min_available} minimum available {new_term}).",
            plural(cleanup_count)
        ));
    }

    // All ReplicaSets after the cleanup: the old ones as cleaned up, then the new one.
    let available = get_available_replica_count_for_replica_sets(
        old_after_cleanup.iter().chain(std::iter::once(new_rs)),
    );
    let scaled_down = scale_down_old_by_available(ctx, available, &old_after_cleanup, d);
    if scaled_down > 0 {
        // The room is available − minimum; fewer go when fewer old pods are left to take.
        let room = (available - min_available).max(0);
        let limit = if scaled_down < room {
            format!(
                "{room} more than needed, but only {scaled_down} old pod{} {} left to go",
                plural(scaled_down),
                if scaled_down == 1 { "is" } else { "are" }
            )
        } else {
            format!("so {scaled_down} old pod{} can go", plural(scaled_down))
        };
        ctx.out.say(format!(
            "Because {}, at least {} − {} = {min_available} pod{} must stay available; {available} {} available, {limit}.",
            unavailable_phrase(d),
            d.replicas(),
            max_unavailable(d),
            plural(min_available),
            if available == 1 { "is" } else { "are" },
        ));
    }
    cleanup_count + scaled_down > 0
}

/// `cleanupUnhealthyReplicas`: scales old ReplicaSets (oldest first) down by their unavailable
/// pods, at most `max_cleanup_count` in total. Returns the updated ReplicaSets and the count.
///
/// # Errors
/// An old ReplicaSet whose spec is below its available count (a stale status) would have to
/// scale *up* to "clean up"; upstream refuses with "got invalid request to scale down".
pub fn cleanup_unhealthy_replicas(
    ctx: &mut SyncContext<'_>,
    old_rss: &[ReplicaSet],
    d: &Deployment,
    max_cleanup_count: i32,
) -> Result<(Vec<ReplicaSet>, i32), String> {
    let mut olds = old_rss.to_vec();
    order::sort_by(&mut olds, by_creation_timestamp);
    let mut total = 0;
    for slot in olds.iter_mut() {
        if total >= max_cleanup_count {
            break;
        }
        let target = &*slot;
        if target.spec.replicas == 0 || target.spec.replicas == target.status.available_replicas {
            continue;
        }
        let count = (max_cleanup_count - total)
            .min(target.spec.replicas - target.status.available_replicas);
        let new_count = target.spec.replicas - count;
        if new_count > target.spec.replicas {
            return Err(format!(
                "when cleaning up unhealthy replicas, got invalid request to scale down {}/{} {} -> {new_count}",
                crate::sim::api::DEFAULT_NAMESPACE,
                target.metadata.name,
                target.spec.replicas
            ));
        }
        let (_, updated) = scale_replica_set_and_record_event(ctx, target, new_count, d);
        total += count;
        *slot = updated;
    }
    Ok((olds, total))
}

/// `scaleDownOldReplicaSetsForRollingUpdate`: scales old ReplicaSets (oldest first) down by as
/// many pods as are available beyond `minAvailable`. Returns how many.
pub fn scale_down_old_replica_sets_for_rolling_update(
    ctx: &mut SyncContext<'_>,
    all_rss: &[ReplicaSet],
    old_rss: &[ReplicaSet],
    d: &Deployment,
) -> i32 {
    let available = get_available_replica_count_for_replica_sets(all_rss);
    scale_down_old_by_available(ctx, available, old_rss, d)
}

/// [`scale_down_old_replica_sets_for_rolling_update`] given the available count of all the
/// ReplicaSets, so a caller that holds them in pieces need not copy them into one list.
fn scale_down_old_by_available(
    ctx: &mut SyncContext<'_>,
    available: i32,
    old_rss: &[ReplicaSet],
    d: &Deployment,
) -> i32 {
    let min_available = d.replicas() - max_unavailable(d);
    if available <= min_available {
        return 0;
    }
    let mut olds: Vec<&ReplicaSet> = old_rss.iter().collect();
    order::sort_by(&mut olds, |a, b| by_creation_timestamp(a, b));
    let want = available - min_available;
    let mut total = 0;
    for &target in &olds {
        if total >= want {
            break;
        }
        if target.spec.replicas == 0 {
            continue;
        }
        let count = target.spec.replicas.min(want - total);
        let new_count = target.spec.replicas - count;
        scale_replica_set_and_record_event(ctx, target, new_count, d);
        total += count;
    }
    total
}
