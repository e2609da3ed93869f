//! kubectl's verdicts on a Deployment: the rollout status line that `kubectl rollout status`
//! prints each time it sees the Deployment change (`DeploymentStatusViewer.Status` in
//! `staging/src/k8s.io/kubectl/pkg/polymorphichelpers/rollout_status.go`, unchanged from
//! kubectl 1.28 to 2026; spec §17).

use super::api::{ConditionReason, Deployment, DeploymentConditionType};
use super::controller::deployment::util::REVISION_ANNOTATION;

/// `DeploymentStatusViewer.Status`: the message kubectl prints for one observed state of the
/// Deployment, and whether the rollout is done. Every message ends with a newline, as kubectl
/// prints it.
///
/// In upstream's order:
/// 1. With `revision` set to N > 0, the Deployment's `deployment.kubernetes.io/revision`
///    annotation (missing = 0) must equal N. `None` and values ≤ 0 skip this check, as kubectl's
///    default `--revision=0` does.
/// 2. If `metadata.generation ≤ status.observedGeneration` (the controller has seen the latest
///    spec), the first of these that applies:
///    * Progressing reason `ProgressDeadlineExceeded` → an error;
///    * `updatedReplicas < spec.replicas` (only when `spec.replicas` is set) →
///      `… <updated> out of <spec> new replicas have been updated...`;
///    * `replicas > updatedReplicas` → `… <replicas − updated> old replicas are pending
///      termination...`;
///    * `availableReplicas < updatedReplicas` → `… <available> of <updated> updated replicas are
///      available...`;
///    * otherwise `deployment "<d>" successfully rolled out` (done).
/// 3. Otherwise `Waiting for deployment spec update to be observed...`.
///
/// Example: spec.replicas 2, status replicas 2, updated 2, available 1 (generation observed)
/// gives `Waiting for deployment "web" rollout to finish: 1 of 2 updated replicas are
/// available...`.
///
/// # Errors
/// * `desired revision (N) is different from the running revision (M)` when step 1 fails, or
///   `cannot get the revision of deployment "<d>": …` when the annotation is not an integer;
/// * `deployment "<d>" exceeded its progress deadline` when the Progressing condition says so
///   (kubectl prints it as `error: …` and exits 1).
pub fn rollout_status(d: &Deployment, revision: Option<i64>) -> Result<(String, bool), String> {
    let name = &d.metadata.name;
    if let Some(want) = revision.filter(|r| *r > 0) {
        let running = deployment_revision(d)
            .map_err(|e| format!("cannot get the revision of deployment {name:?}: {e}"))?;
        if want != running {
            return Err(format!(
                "desired revision ({want}) is different from the running revision ({running})"
            ));
        }
    }
    if d.metadata.generation <= d.status.observed_generation {
        let timed_out = d
            .condition(DeploymentConditionType::Progressing)
            .is_some_and(|c| c.reason == ConditionReason::ProgressDeadlineExceeded);
        if timed_out {
            return Err(format!(
                "deployment {name:?} exceeded its progress deadline"
            ));
        }
        let s = &d.status;
        if let Some(spec) = d.spec.replicas
            && s.updated_replicas < spec
        {
            return Ok((
                format!(
                    "Waiting for deployment {name:?} rollout to finish: {} out of {spec} new replicas have been updated...\n",
                    s.updated_replicas
                ),
                false,
            ));
        }
        if s.replicas > s.updated_replicas {
            return Ok((
                format!(
                    "Waiting for deployment {name:?} rollout to finish: {} old replicas are pending termination...\n",
                    s.replicas - s.updated_replicas
                ),
                false,
            ));
        }
        if s.available_replicas < s.updated_replicas {
            return Ok((
                format!(
                    "Waiting for deployment {name:?} rollout to finish: {} of {} updated replicas are available...\n",
                    s.available_replicas, s.updated_replicas
                ),
                false,
            ));
        }
        return Ok((
            format!("deployment {name:?} successfully rolled out\n"),
            true,
        ));
    }
    Ok((
        "Waiting for deployment spec update to be observed...\n".to_string(),
        false,
    ))
}

/// kubectl's `deploymentutil.Revision`: the revision annotation as a number; missing is 0.
fn deployment_revision(d: &Deployment) -> Result<i64, String> {
    let Some(v) = d.metadata.annotations.get(REVISION_ANNOTATION) else {
        return Ok(0);
    };
    v.parse::<i64>().map_err(|_| {
        // strconv.ParseInt tells a digit run that does not fit apart from other garbage.
        let digits = v.strip_prefix(['-', '+']).unwrap_or(v);
        let why = if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            "value out of range"
        } else {
            "invalid syntax"
        };
        format!("strconv.ParseInt: parsing {v:?}: {why}")
    })
}
