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
    let inits = spec.init_containers.len();
    for i in 0..spec.kubelet_container_count() {
        let (Some(c), Some(cs), Some(container)) = (
            rt.containers.get(i),
            status.kubelet_container(inits, i),
            spec.kubelet_container(i),
        ) else {
            continue;
        };
        let running =
            matches!(cs.state, ContainerState::Running { .. }) && c.running_since.is_some();
        let started = running && c.started;
        // An init container that runs to completion is ready once it has exited with code 0
        // (the prober manager's `UpdatePodStatus`); the others once started and, with a
        // readiness probe, when it passes.
        let ready = if i < inits && !container.is_restartable() {
            cs.succeeded()
        } else {
            started && (container.readiness_probe.is_none() || c.readiness.result == Some(true))
        };
        if (cs.started != started || cs.ready != ready)
            && let Some(cs) = status.to_mut().kubelet_container_mut(inits, i)
        {
            cs.started = started;
            cs.ready = ready;
        }
    }
    // Only a pod with init containers has anything to initialize; the others skip the look.
    let app_started = inits > 0 && has_any_regular_container_started(status);
    let initialized = inits > 0
        && (app_started
            || status.conditions.iter().any(|c| {
                c.type_ == PodConditionType::Initialized && c.status == ConditionStatus::True
            }));
    let phase = get_phase(spec, status, initialized, rt.terminated);
    if status.phase != phase {
        status.to_mut().phase = phase;
    }
    // The sidecars (in the spec's order) and then the app containers that are not ready, named
    // in the unready conditions' message; none when all are ready (the common case once a pod
    // runs), so nothing is written out then.
    let unready_names = || {
        status
            .sidecar_statuses(spec)
            .chain(&status.container_statuses)
            .filter(|c| !c.ready)
            .map(|c| c.name.as_str())
    };
    let all_ready = !status.container_statuses.is_empty() && unready_names().next().is_none();
    let unready =
        (!all_ready).then(|| bracketed("containers with unready status: [", unready_names()));
    // A terminal pod's containers are not ready whatever they last said
    // (`generateContainersReadyConditionForTerminalPhase`, and the status manager's override
    // for a terminal phase): reason PodCompleted or PodFailed, with no message.
    let terminal = match phase {
        PodPhase::Succeeded => Some(("PodCompleted", "")),
        PodPhase::Failed => Some(("PodFailed", "")),
        _ => None,
    };
    let unready = terminal.or(unready.as_deref().map(|m| ("ContainersNotReady", m)));
    // `GeneratePodInitializedCondition`: the init containers that have not completed (a sidecar:
    // not started), unless an app container has already started.
    let incomplete = (inits > 0 && !app_started).then(|| {
        status
            .init_container_statuses
            .iter()
            .zip(&spec.init_containers)
            .filter(|(cs, c)| {
                if c.is_restartable() {
                    !cs.started
                } else {
                    !cs.succeeded()
                }
            })
            .map(|(cs, _)| cs.name.as_str())
            .collect::<Vec<_>>()
    });
    let incomplete = incomplete
        .filter(|names| !names.is_empty())
        .map(|names| bracketed("containers with incomplete status: [", names.into_iter()));
    let incomplete = incomplete
        .as_deref()
        .map(|m| ("ContainersNotInitialized", m));
    // The unready message as the conditions hold it, made on the first write and shared by the
    // second.
    let mut shared = None;
    // `generatePodReadyToStartContainersCondition`: True while the sandbox is up and reported;
    // False, with no reason, before it is (the first sync's status) and once it is gone with
    // the containers of a terminated pod.
    let ready_to_start = PodConditionType::PodReadyToStartContainers;
    let sandbox = if !rt.terminated && rt.sandbox_published() {
        ConditionStatus::True
    } else {
        ConditionStatus::False
    };
    if status
        .conditions
        .iter()
        .find(|c| c.type_ == ready_to_start)
        .is_none_or(|c| c.status != sandbox)
    {
        set_pod_condition(
            &mut status.to_mut().conditions,
            PodCondition {
                type_: ready_to_start,
                status: sandbox,
                last_transition_time: t,
                reason: None,
                message: None,
            },
        );
    }
    // Its own message, never the unready one.
    set_condition(
        status,
        PodConditionType::Initialized,
        incomplete,
        &mut None,
        t,
    );
    set_condition(
        status,
        PodConditionType::ContainersReady,
        unready,
        &mut shared,
        t,
    );
    // `generatePodReadyCondition`: with every container ready, each readiness gate whose
    // condition is not True keeps the pod not Ready. No condition the simulator writes can
    // be a gate's, so each gate reads as missing.
    let gates = spec.readiness_gates();
    let gated = (unready.is_none() && !gates.is_empty()).then(|| {
        gates
            .iter()
            .map(|g| format!("corresponding condition of pod readiness gate {g:?} does not exist."))
            .collect::<Vec<_>>()
            .join(", ")
    });
    match gated.as_deref() {
        Some(m) => set_condition(
            status,
            PodConditionType::Ready,
            Some(("ReadinessGatesNotReady", m)),
            &mut None,
            t,
        ),
        None => set_condition(status, PodConditionType::Ready, unready, &mut shared, t),
    }
}

/// `prefix`, the names separated by spaces, and `]`, as Go prints a list of names: written
/// straight into one string, sized once for the names.
fn bracketed<'n>(prefix: &str, names: impl Iterator<Item = &'n str> + Clone) -> String {
    let mut message =
        String::with_capacity(prefix.len() + names.clone().map(|n| n.len() + 1).sum::<usize>());
    message.push_str(prefix);
    for (i, name) in names.enumerate() {
        if i > 0 {
            message.push(' ');
        }
        message.push_str(name);
    }
    message.push(']');
    message
}

/// `HasAnyRegularContainerStarted`: an app container is running or has run, after which the
/// pod counts as initialized whatever its sidecars do.
fn has_any_regular_container_started(status: &PodStatus) -> bool {
    status.container_statuses.iter().any(|cs| {
        matches!(
            cs.state,
            ContainerState::Running { .. } | ContainerState::Terminated { .. }
        ) || cs.last_state.is_some()
    })
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
    // An empty message is none (a terminal pod's conditions carry only a reason).
    let (reason, message) = (
        unready.map(|u| u.0),
        unready.map(|u| u.1).filter(|m| !m.is_empty()),
    );
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

/// `getPhase` for `restartPolicy: Always`: Pending while an init container that runs to
/// completion has not (or, before the pod has initialized, a sidecar has not started), or while
/// any app container waits without having run; Running once one runs (sidecars count), and still
/// Running while containers crash and restart.
///
/// A pod whose termination has ended (`terminal`: deleted, its containers stopped) reaches a
/// terminal phase: Succeeded if every app container exited with code 0, else Failed, and
/// Failed whatever its containers say otherwise (the status manager's `TerminatePod` marks a
/// terminal pod that is still Pending or Running as Failed).
pub fn get_phase(
    spec: &PodSpec,
    status: &PodStatus,
    initialized: bool,
    terminal: bool,
) -> PodPhase {
    let phase = get_phase_while_alive(spec, status, initialized);
    if !terminal || matches!(phase, PodPhase::Succeeded | PodPhase::Failed) {
        return phase;
    }
    let app_succeeded = !status.container_statuses.is_empty()
        && status
            .container_statuses
            .iter()
            .all(|cs| matches!(cs.state, ContainerState::Terminated { exit_code: 0, .. }));
    if app_succeeded {
        PodPhase::Succeeded
    } else {
        PodPhase::Failed
    }
}

fn get_phase_while_alive(spec: &PodSpec, status: &PodStatus, initialized: bool) -> PodPhase {
    let (mut pending_inits, mut pending_sidecars) = (0, 0);
    let (mut running, mut waiting, mut stopped) = (0, 0, 0);
    for (i, c) in spec.init_containers.iter().enumerate() {
        let Some(cs) = status.init_container_statuses.get(i) else {
            pending_inits += 1;
            continue;
        };
        let restarted = matches!(cs.last_state, Some(ContainerState::Terminated { .. }));
        if c.is_restartable() {
            match &cs.state {
                ContainerState::Running { .. } => {
                    if !cs.started {
                        pending_sidecars += 1;
                    }
                    running += 1;
                }
                ContainerState::Terminated { .. } => {}
                ContainerState::Waiting { .. } if !restarted => pending_sidecars += 1,
                ContainerState::Waiting { .. } => {}
            }
            continue;
        }
        // A failed init container counts as failed initialization, which makes the pod Failed
        // only under `restartPolicy: Never`; under Always it is run again.
        match &cs.state {
            ContainerState::Running { .. } => pending_inits += 1,
            ContainerState::Terminated { .. } => {}
            ContainerState::Waiting { .. } if !restarted => pending_inits += 1,
            ContainerState::Waiting { .. } => {}
        }
    }
    if pending_inits > 0 || (pending_sidecars > 0 && !initialized) {
        return PodPhase::Pending;
    }
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
