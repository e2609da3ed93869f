//! Pod status generation (`pkg/kubelet/status/generate.go`, `getPhase`): the phase, the
//! container ready flags and the pod conditions the kubelet reports.

use super::PodRuntime;
use crate::sim::api::{
    ConditionStatus, ContainerState, Pod, PodCondition, PodConditionType, PodPhase, PodSpec,
    PodStatus, Time,
};
use crate::sim::store::set_pod_condition;
use std::borrow::Cow;
use std::sync::Arc;

/// The status the kubelet reports for a pod given its node-local state.
pub fn generate_pod_status(pod: &Pod, rt: &PodRuntime, now: Time) -> PodStatus {
    let mut status = Cow::Borrowed(&pod.status);
    generate_into(&mut status, &pod.spec, rt, now);
    status.into_owned()
}

/// [`generate_pod_status`] onto the kubelet's working status, which is copied (when still
/// borrowed from the stored pod) only if a field really changes: the kubelet regenerates the
/// status after every action, also after those that leave it as it was.
pub(super) fn generate_into(
    status: &mut Cow<'_, PodStatus>,
    spec: &PodSpec,
    rt: &PodRuntime,
    now: Time,
) {
    let t = now.truncate_to_secs();
    for i in 0..status.container_statuses.len() {
        let Some(c) = rt.containers.get(i) else {
            continue;
        };
        let cs = &status.container_statuses[i];
        let running =
            matches!(cs.state, ContainerState::Running { .. }) && c.running_since.is_some();
        let has_readiness = spec
            .containers
            .get(i)
            .is_some_and(|s| s.readiness_probe.is_some());
        let started = running && c.started;
        let ready = started && (!has_readiness || c.readiness.result == Some(true));
        if cs.started != started || cs.ready != ready {
            let cs = &mut status.to_mut().container_statuses[i];
            cs.started = started;
            cs.ready = ready;
        }
    }
    let phase = get_phase(status);
    if status.phase != phase {
        status.to_mut().phase = phase;
    }
    let all_ready =
        !status.container_statuses.is_empty() && status.container_statuses.iter().all(|c| c.ready);
    // The reason and message of the unready conditions; none when all are ready (the common case
    // once a pod runs), so nothing is written out then.
    // Written straight into one string, sized once for the names it lists.
    let unready = (!all_ready).then(|| {
        const PREFIX: &str = "containers with unready status: [";
        let unready = || status.container_statuses.iter().filter(|c| !c.ready);
        let mut message = String::with_capacity(
            PREFIX.len() + unready().map(|c| c.name.len() + 1).sum::<usize>(),
        );
        message.push_str(PREFIX);
        for (i, c) in unready().enumerate() {
            if i > 0 {
                message.push(' ');
            }
            message.push_str(&c.name);
        }
        message.push(']');
        message
    });
    let unready = unready.as_deref().map(|m| ("ContainersNotReady", m));
    // The message as the conditions hold it, made on the first write and shared by the second.
    let mut shared = None;
    if rt.sandbox_ready {
        let ready_to_start = PodConditionType::PodReadyToStartContainers;
        set_condition(status, ready_to_start, None, &mut shared, t);
    }
    set_condition(status, PodConditionType::Initialized, None, &mut shared, t);
    set_condition(
        status,
        PodConditionType::ContainersReady,
        unready,
        &mut shared,
        t,
    );
    set_condition(status, PodConditionType::Ready, unready, &mut shared, t);
}

/// [`set_pod_condition`] with the condition given by its parts: True when `unready` is `None`,
/// else False with that reason and message. A condition already reading so is left as it is,
/// which is what setting it again would leave (same status, so same transition time), without
/// building the condition's texts or copying the working status; the kubelet regenerates four
/// conditions on every action and they rarely change. `shared` keeps the message once a condition
/// is written with it, so that the two conditions carrying it share one copy.
fn set_condition(
    pod_status: &mut Cow<'_, PodStatus>,
    type_: PodConditionType,
    unready: Option<(&'static str, &str)>,
    shared: &mut Option<Arc<str>>,
    t: Time,
) {
    let status = if unready.is_none() {
        ConditionStatus::True
    } else {
        ConditionStatus::False
    };
    let (reason, message) = (unready.map(|u| u.0), unready.map(|u| u.1));
    if pod_status
        .conditions
        .iter()
        .find(|c| c.type_ == type_)
        .is_some_and(|c| {
            c.status == status && c.reason.as_deref() == reason && c.message.as_deref() == message
        })
    {
        return;
    }
    set_pod_condition(
        &mut pod_status.to_mut().conditions,
        PodCondition {
            type_,
            status,
            last_transition_time: t,
            reason: reason.map(Cow::Borrowed),
            message: message.map(|m| Arc::clone(shared.get_or_insert_with(|| Arc::from(m)))),
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
