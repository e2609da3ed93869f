//! The legacy controller-side rollback (`pkg/controller/deployment/rollback.go`), triggered by the
//! `deprecated.deployment.rollback.to` annotation that old API versions set. `kubectl rollout
//! undo` does not use it (it patches the template itself, see `scenario` actions).

use super::sync::get_all_replica_sets_and_sync_revision;
use super::util::*;
use super::{OnConflict, SyncContext};
use crate::sim::api::{Deployment, EventReason, ReplicaSet};
use crate::sim::trace::Stage;

/// `rollback`: copies the template of the requested revision (0 = the previous one) into the
/// Deployment, or gives up with a warning event; either way the annotation is cleared.
pub fn rollback(ctx: &mut SyncContext<'_>, d: &mut Deployment, rs_list: &[ReplicaSet]) {
    ctx.out.stage_at_least(Stage::Retry);
    let Ok(rss) = get_all_replica_sets_and_sync_revision(ctx, d, rs_list, true) else {
        return;
    };
    let all = rss.all();
    let mut to_revision = get_rollback_to(d).unwrap_or(0);
    if to_revision == 0 {
        to_revision = last_revision(&all);
        if to_revision == 0 {
            ctx.event(
                d,
                true,
                EventReason::DeploymentRollbackRevisionNotFound,
                "Unable to find last revision.".to_string(),
            );
            ctx.out.say(
                "A rollback was requested but there is no earlier revision, so it is dropped.",
            );
            clear_rollback_to(ctx, d);
            return;
        }
    }
    for rs in &all {
        if revision(rs).ok() != Some(to_revision) {
            continue;
        }
        if equal_ignore_hash(&d.spec.template, &rs.spec.template) {
            ctx.event(
                d,
                true,
                EventReason::DeploymentRollbackTemplateUnchanged,
                format!(
                    "The rollback revision contains the same template as current deployment {:?}",
                    d.metadata.name
                ),
            );
            clear_rollback_to(ctx, d);
            return;
        }
        let mut template = rs.spec.template.clone();
        template
            .metadata
            .labels
            .remove(DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY);
        d.spec.template = template;
        // `setDeploymentAnnotationsTo`: the Deployment keeps only its own (skip-list)
        // annotations and takes every other one from the revision it returns to, so an
        // annotation that revision never had does not survive the rollback.
        d.metadata
            .annotations
            .retain(|k, _| skip_copy_annotation(k));
        for (k, v) in rs.metadata.annotations.iter() {
            if !skip_copy_annotation(k) {
                d.metadata.annotations.insert(k.clone(), v.clone());
            }
        }
        ctx.out.say(format!(
            "The rollback annotation asks for revision {to_revision}, so its template is copied back into the Deployment."
        ));
        // `rollback` records the event only once the update has landed (`performedRollback &&
        // err == nil`): a refused write leaves the annotation for the next pass.
        if clear_rollback_to(ctx, d) {
            ctx.event(
                d,
                false,
                EventReason::DeploymentRollback,
                format!(
                    "Rolled back deployment {:?} to revision {to_revision}",
                    d.metadata.name
                ),
            );
        }
        return;
    }
    ctx.event(
        d,
        true,
        EventReason::DeploymentRollbackRevisionNotFound,
        "Unable to find the revision to rollback to.".to_string(),
    );
    clear_rollback_to(ctx, d);
}

/// `updateDeploymentAndClearRollbackTo`. Returns whether the update landed; a refused write is
/// the sync's error, and the annotation stays for the next pass.
fn clear_rollback_to(ctx: &mut SyncContext<'_>, d: &mut Deployment) -> bool {
    d.metadata.annotations.remove(DEPRECATED_ROLLBACK_TO);
    ctx.update(d, OnConflict::Fail).is_ok()
}
