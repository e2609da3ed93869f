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
    let unready: Vec<String> = status
        .container_statuses
        .iter()
        .filter(|c| !c.ready)
        .map(|c| c.name.clone())
        .collect();
    let all_ready = unready.is_empty() && !status.container_statuses.is_empty();
    let cond = |type_, ok: bool, reason: Option<&str>, message: Option<String>| PodCondition {
        type_,
        status: if ok {
            ConditionStatus::True
        } else {
            ConditionStatus::False
        },
        last_transition_time: t,
        reason: if ok { None } else { reason.map(str::to_string) },
        message: if ok { None } else { message },
    };
    if rt.sandbox_ready {
        set_pod_condition(
            &mut status.conditions,
            cond(
                PodConditionType::PodReadyToStartContainers,
                true,
                None,
                None,
            ),
        );
    }
    set_pod_condition(
        &mut status.conditions,
        cond(PodConditionType::Initialized, true, None, None),
    );
    let msg = format!("containers with unready status: [{}]", unready.join(" "));
    set_pod_condition(
        &mut status.conditions,
        cond(
            PodConditionType::ContainersReady,
            all_ready,
            Some("ContainersNotReady"),
            Some(msg.clone()),
        ),
    );
    set_pod_condition(
        &mut status.conditions,
        cond(
            PodConditionType::Ready,
            all_ready,
            Some("ContainersNotReady"),
            Some(msg),
        ),
    );
    status
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
