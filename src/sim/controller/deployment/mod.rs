//! The deployment controller: turns a Deployment's desired state into ReplicaSets of the right
//! sizes, one sync pass at a time, and reports progress through conditions
//! (`pkg/controller/deployment`).
//!
//! A pass works on copies of the Deployment and its ReplicaSets, exactly as upstream works on
//! cached copies, and records every write as a [`Change`]. Helpers that upstream gives an updated
//! object back return the updated copy, and callers keep or drop it the way the Go code does, so
//! even the status arithmetic on stale copies matches.

pub mod progress;
pub mod recreate;
pub mod rollback;
pub mod rolling;
pub mod sync;
pub mod util;

use super::{Change, Outcome, Work};
use crate::sim::api::{
    Deployment, DeploymentStrategyType, Event, EventReason, ObjectRef, Pod, ReplicaSet, Time,
};
use crate::sim::order;
use crate::sim::store::Store;
use crate::sim::trace::Stage;
use std::collections::BTreeMap;

/// The component name upstream records on its events.
pub const COMPONENT: &str = "deployment-controller";

/// The state of one sync pass: the time, the read-only cluster, and what the pass has decided.
pub struct SyncContext<'a> {
    pub store: &'a Store,
    pub now: Time,
    pub out: Outcome,
    /// Whether a write of this pass has already changed the stored Deployment. Upstream's pass
    /// works on the informer's copy and drops the object each write returns, so only the first
    /// write that changes the Deployment carries its current resourceVersion.
    changed_deployment: bool,
    /// The ReplicaSets whose annotations this pass has synced: the pass's ReplicaSet list is
    /// the one read when it began, so a second sync of the same one (the scaling-event check
    /// and the rollout each call `getAllReplicaSetsAndSyncRevision`) carries a stale
    /// resourceVersion.
    synced_replica_sets: Vec<String>,
}

/// Whether a Deployment write is the pass's own error or one upstream ignores (`_, _ =`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum OnConflict {
    /// The sync returns the error, so the Deployment is requeued with rate limiting.
    Fail,
    /// The error is dropped; the pass goes on as if the write had landed.
    Ignore,
}

impl<'a> SyncContext<'a> {
    /// A pass at `now` over `store`.
    pub fn new(store: &'a Store, now: Time) -> SyncContext<'a> {
        SyncContext {
            store,
            now,
            out: Outcome::default(),
            changed_deployment: false,
            synced_replica_sets: Vec::new(),
        }
    }

    /// Records an event on the Deployment.
    pub fn event(&mut self, d: &Deployment, warning: bool, reason: EventReason, message: String) {
        let obj = ObjectRef::new("Deployment", &d.metadata.name);
        self.out.events.push(if warning {
            Event::warning(COMPONENT, obj, reason, message)
        } else {
            Event::normal(COMPONENT, obj, reason, message)
        });
    }

    /// Updates the new ReplicaSet's annotations and minReadySeconds from the pass's copy, as
    /// `getNewReplicaSet` does (the caller goes on with the object the write returns).
    ///
    /// # Errors
    /// The API server's conflict when this pass has already updated it from the same stale copy.
    pub fn sync_replica_set(&mut self, rs: &ReplicaSet) -> Result<(), String> {
        let name = &rs.metadata.name;
        if self.synced_replica_sets.contains(name) {
            self.out.say(format!(
                "The controller's second update of ReplicaSet {name} in this pass is refused with a conflict (the object has been modified): the pass's list of ReplicaSets is the one it read when it began, so the copy still lacks the update it made a moment ago. The sync returns the error and the Deployment is requeued."
            ));
            return Err(format!(
                "Operation cannot be fulfilled on replicasets.apps {name:?}: the object has been modified; please apply your changes to the latest version and try again"
            ));
        }
        self.synced_replica_sets.push(name.clone());
        self.out.change(Change::UpdateReplicaSet(rs.clone()));
        Ok(())
    }

    /// Writes the Deployment through the status subresource (annotations and status).
    ///
    /// # Errors
    /// The API server's conflict when an earlier write of this pass changed the Deployment: the
    /// pass's copy carries a resourceVersion that is no longer current (see [`Self::check_write`]).
    pub fn update_status(&mut self, d: &Deployment, on_conflict: OnConflict) -> Result<(), String> {
        let changes = |cur: &Deployment| {
            cur.status != d.status || cur.metadata.annotations != d.metadata.annotations
        };
        self.write(d, changes, Change::UpdateDeploymentStatus, on_conflict)
    }

    /// Writes the Deployment itself (spec and metadata), as `Update` does.
    ///
    /// # Errors
    /// The API server's conflict, as for [`Self::update_status`].
    pub fn update(&mut self, d: &Deployment, on_conflict: OnConflict) -> Result<(), String> {
        let changes = |cur: &Deployment| {
            cur.spec != d.spec
                || cur.metadata.annotations != d.metadata.annotations
                || cur.metadata.labels != d.metadata.labels
        };
        self.write(d, changes, Change::UpdateDeployment, on_conflict)
    }

    /// A Deployment write: refused after an earlier write that changed the Deployment, and
    /// counted as one when `changes` says it alters the stored object (a write of the same
    /// object leaves its resourceVersion alone).
    fn write(
        &mut self,
        d: &Deployment,
        changes: impl Fn(&Deployment) -> bool,
        change: fn(Box<Deployment>) -> Change,
        on_conflict: OnConflict,
    ) -> Result<(), String> {
        self.check_write(d, on_conflict)?;
        self.changed_deployment |= self
            .store
            .deployments
            .get(&d.metadata.name)
            .is_none_or(changes);
        self.out.change(change(Box::new(d.clone())));
        Ok(())
    }

    /// Whether a Deployment write now would be accepted. Once a write of this pass has changed
    /// the Deployment, the API server refuses any other with a conflict, as it refuses
    /// upstream's (`Operation cannot be fulfilled on deployments.apps …`, a line the
    /// controller-manager logs at most rollout starts); the pass says why. A rejected write
    /// that upstream returns becomes the sync's error, so the Deployment is retried.
    ///
    /// # Errors
    /// The conflict's message.
    pub fn check_write(&mut self, d: &Deployment, on_conflict: OnConflict) -> Result<(), String> {
        if !self.changed_deployment {
            return Ok(());
        }
        let name = &d.metadata.name;
        self.out.say(format!(
            "The controller's next write of Deployment {name} is refused with a conflict (the object has been modified): it works on the copy it read when the pass began and does not keep the object its earlier write returned, so that copy's resourceVersion is out of date. {}",
            match on_conflict {
                OnConflict::Fail =>
                    "The sync returns the error and the Deployment is requeued; the next pass reads the stored object and writes again.",
                OnConflict::Ignore => "The controller ignores this error here.",
            }
        ));
        let err = format!(
            "Operation cannot be fulfilled on deployments.apps {name:?}: the object has been modified; please apply your changes to the latest version and try again"
        );
        if on_conflict == OnConflict::Fail {
            self.fail(err.clone());
        }
        Err(err)
    }

    /// Records the error the sync returns (the first, as Go returns at the first), for which
    /// the simulator requeues the Deployment with rate limiting.
    pub fn fail(&mut self, err: String) {
        self.out.error.get_or_insert(err);
    }

    /// Requeues the Deployment after `delay_ms`.
    pub fn requeue(&mut self, d: &Deployment, delay_ms: u64) {
        self.out.requeue.push((
            delay_ms,
            Work::SyncDeployment(d.metadata.name.as_str().into()),
        ));
    }

    /// `enqueueRateLimited`: this Deployment's key again, when the queue's rate limiter allows
    /// (the sync's own key, so the simulator's worker does it once the sync returns).
    pub fn requeue_rate_limited(&mut self) {
        self.out.rate_limited = true;
    }
}

/// `syncDeployment`: one pass of the deployment controller over the named Deployment, in
/// upstream's order — selector check, ReplicaSet and pod lookup, paused conditions, then paused
/// (scale only), legacy rollback, scaling event, and finally the strategy's rollout.
pub fn sync_deployment(store: &Store, name: &str, now: Time) -> Outcome {
    let mut ctx = SyncContext::new(store, now);
    let Some(stored) = store.deployments.get(name) else {
        return ctx.out;
    };
    let mut d = stored.clone();

    if d.spec.selector.as_ref().is_none_or(|s| s.is_empty()) {
        ctx.event(
            &d,
            true,
            EventReason::SelectingAll,
            "This deployment is selecting all pods. A non-empty selector is required.".to_string(),
        );
        if d.status.observed_generation < d.metadata.generation {
            d.status.observed_generation = d.metadata.generation;
            // Upstream ignores this write's error; it is the pass's first write anyway.
            let _ = ctx.update_status(&d, OnConflict::Ignore);
        }
        ctx.out.say(format!(
            "Deployment {name} has an empty selector, so the controller refuses to manage any pods."
        ));
        ctx.out.stage = Some(Stage::Retry);
        return ctx.out;
    }

    // Upstream's first `FindNewReplicaSet` of a pass sorts the shared ReplicaSet list in place by
    // creation time, so every later step of the pass (old ReplicaSets, scale-downs, the failure
    // condition copied from them) sees the oldest first; the store's name order would not.
    let mut rs_list = get_replica_sets_for_deployment(store, &d);
    order::sort_by(&mut rs_list, util::by_creation_timestamp);
    if d.metadata.deletion_timestamp.is_some() {
        sync::sync_status_only(&mut ctx, &mut d, &rs_list);
        return ctx.out;
    }

    progress::check_paused_conditions(&mut ctx, &mut d);
    if ctx.out.error.is_some() {
        return ctx.out;
    }

    if d.spec.paused {
        sync::sync(&mut ctx, &mut d, &rs_list);
        return ctx.out;
    }

    if util::get_rollback_to(&d).is_some() {
        rollback::rollback(&mut ctx, &mut d, &rs_list);
        return ctx.out;
    }

    let scaling_event = sync::is_scaling_event(&mut ctx, &mut d, &rs_list);
    if ctx.out.error.is_some() {
        return ctx.out;
    }
    if scaling_event {
        sync::sync(&mut ctx, &mut d, &rs_list);
        return ctx.out;
    }

    match d.strategy_type() {
        DeploymentStrategyType::Recreate => {
            let pod_map = get_pod_map_for_deployment(store, &rs_list);
            recreate::rollout_recreate(&mut ctx, &mut d, &rs_list, &pod_map);
        }
        DeploymentStrategyType::RollingUpdate => {
            rolling::rollout_rolling(&mut ctx, &mut d, &rs_list)
        }
        DeploymentStrategyType::Other(t) => {
            ctx.out
                .say(format!("unexpected deployment strategy type: {t}"));
        }
    }
    ctx.out
}

/// `getReplicaSetsForDeployment`: the ReplicaSets this Deployment controls. (Adoption and release
/// of orphans never arise in a simulated namespace, where only this controller makes them.)
pub fn get_replica_sets_for_deployment(store: &Store, d: &Deployment) -> Vec<ReplicaSet> {
    store
        .replica_sets_owned_by(&d.metadata.uid)
        .filter(|rs| {
            d.spec
                .selector
                .as_ref()
                .is_some_and(|s| s.matches(&rs.metadata.labels))
        })
        .cloned()
        .collect()
}

/// `getPodMapForDeployment`: every pod of every ReplicaSet, keyed by the ReplicaSet's UID, with
/// an entry (possibly empty) for each ReplicaSet. Pods of every phase are included.
pub fn get_pod_map_for_deployment(
    store: &Store,
    rs_list: &[ReplicaSet],
) -> BTreeMap<String, Vec<Pod>> {
    rs_list
        .iter()
        .map(|rs| {
            (
                rs.metadata.uid.clone(),
                store.pods_owned_by(&rs.metadata.uid).cloned().collect(),
            )
        })
        .collect()
}
