//! Pod status generation (`pkg/kubelet/status/generate.go`, `getPhase`): the phase, the
//! container ready flags and the pod conditions the kubelet reports.

use super::PodRuntime;
use crate::sim::api::{
    ConditionStatus, ContainerState, Pod, PodCondition, PodConditionType, PodPhase, PodSpec,
    PodStatus, Time,
};
use crate::sim::store::set_pod_condition;

/// The status the kubelet reports for a pod given its node-local state.
pub fn generate_pod_status(pod: &Pod, rt: &PodRuntime, now: Time) -> PodStatus {
    generate_from(pod.status.clone(), &pod.spec, rt, now)
}

/// [`generate_pod_status`] from a status the caller owns (the kubelet's working copy), so it is
/// not copied again.
pub(super) fn generate_from(
    mut status: PodStatus,
    spec: &PodSpec,
    rt: &PodRuntime,
    now: Time,
) -> PodStatus {
    let t = now.truncate_to_secs();
    for (i, cs) in status.container_statuses.iter_mut().enumerate() {
        let Some(c) = rt.containers.get(i) else {
            continue;
        };
        let running =
            matches!(cs.state, ContainerState::Running { .. }) && c.running_since.is_some();
        let has_readiness = spec
            .containers
            .get(i)
            .is_some_and(|s| s.readiness_probe.is_some());
        cs.started = running && c.started;
        cs.ready = running && c.started && (!has_readiness || c.readiness.result == Some(true));
    }
    status.phase = get_phase(&status);
    let all_ready =
        !status.container_statuses.is_empty() && status.container_statuses.iter().all(|c| c.ready);
    // The reason and message of the unready conditions; none when all are ready (the common case
    // once a pod runs), so nothing is written out then.
    let unready = (!all_ready).then(|| {
        let names: Vec<&str> = status
            .container_statuses
            .iter()
            .filter(|c| !c.ready)
            .map(|c| c.name.as_str())
            .collect();
        format!("containers with unready status: [{}]", names.join(" "))
    });
    let unready = unready.as_deref().map(|m| ("ContainersNotReady", m));
    let conditions = &mut status.conditions;
    if rt.sandbox_ready {
        set_condition(
            conditions,
            PodConditionType::PodReadyToStartContainers,
            None,
            t,
        );
    }
    set_condition(conditions, PodConditionType::Initialized, None, t);
    set_condition(conditions, PodConditionType::ContainersReady, unready, t);
    set_condition(conditions, PodConditionType::Ready, unready, t);
    status
}

/// [`set_pod_condition`] with the condition given by its parts: True when `unready` is `None`,
/// else False with that reason and message. A condition already reading so is left as it is,
/// which is what setting it again would leave (same status, so same transition time), without
/// building the condition's texts; the kubelet regenerates four conditions on every action and
/// they rarely change.
fn set_condition(
    conditions: &mut Vec<PodCondition>,
    type_: PodConditionType,
    unready: Option<(&str, &str)>,
    t: Time,
) {
    let status = if unready.is_none() {
        ConditionStatus::True
    } else {
        ConditionStatus::False
    };
    let (reason, message) = (unready.map(|u| u.0), unready.map(|u| u.1));
    if conditions
        .iter()
        .find(|c| c.type_ == type_)
        .is_some_and(|c| {
            c.status == status && c.reason.as_deref() == reason && c.message.as_deref() == message
        })
    {
        return;
    }
    set_pod_condition(
        conditions,
        PodCondition {
            type_,
            status,
            last_transition_time: t,
            reason: reason.map(str::to_string),
            message: message.map(str::to_string),
        },
    );
}

/// `getPhase` for `restartPolicy: Always`: Pending while any container waits without having
/// run; Running once one runs, and still Running while containers crash and restart.
pub fn get_phase(status: &PodStatus) -> PodPhase {
    let (mut running, mut waiting, mut stopped) = (0, 0, 0);
    for cs in &status.container_statuses {
        match &cs.state {
            ContainerState::Running { .. } => running += 1,
            ContainerState::Terminated { .. } => stopped += 1,
            ContainerState::Waiting { .. } => {
                if cs.last_state.is_some() {
                    stopped += 1;
                } else {
                    waiting += 1;
                }
            }
        }
    }
    if status.container_statuses.is_empty() || waiting > 0 {
        PodPhase::Pending
    } else if running > 0 || stopped > 0 {
        PodPhase::Running
    } else {
        PodPhase::Pending
    }
}
