//! A diagnosis: why a Deployment has fewer ready replicas than it asks for, told the way a
//! Kubernetes engineer finds out — each signal is a `kubectl` command and what it shows at this
//! moment of the simulation — ending with a verdict: the likely cause, and whether raising
//! `replicas` would help.
//!
//! Signals are split into **cluster** signals (the control plane and the nodes: rollout status,
//! conditions, scheduling, node capacity, warning events) and **application** signals (what the
//! containers do: image pulls, restarts, probe failures). [`diagnose`] is pure: it reads the
//! simulator and the trace's steps (events live in the steps) and changes nothing.

use super::api::{
    ConditionStatus, ContainerState, ContainerStatus, Deployment, EventReason, Pod,
    PodConditionType, Time,
};
use super::controller::scheduler::{format_cpu, format_mem};
use super::engine::Sim;
use super::kubectl::{self, EventRecord};
use super::store::pod_requests;
use super::trace::{Step, plural};
use crate::sim::order;
use serde::Serialize;
use std::collections::BTreeMap;

/// One thing an engineer would look at: the command and what it shows now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Signal {
    /// The `kubectl` command to run, e.g. `kubectl get pods -o wide`.
    pub command: String,
    /// What RolloutScope sees now, in kubectl's words where kubectl has them.
    pub sees: String,
    /// Whether this signal points at a problem.
    pub concern: bool,
}

/// The likely cause of `ready < desired`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Cause {
    /// Every wanted replica is ready.
    Healthy,
    /// No Deployment of that name.
    NotFound,
    /// The rollout is paused (`kubectl rollout pause`).
    Paused,
    /// Pods stay Pending because no node has room for their requests.
    InsufficientCapacity,
    /// Pods stay Pending for another scheduling reason (cordoned nodes, node selectors, …).
    Unschedulable,
    /// The image cannot be pulled (`ErrImagePull`, `ImagePullBackOff`).
    ImagePull,
    /// The container cannot be created: a ConfigMap or Secret (or a key in one) that its
    /// environment names is missing (`CreateContainerConfigError`).
    ContainerConfig,
    /// Containers keep exiting or being killed and restart under back-off (`CrashLoopBackOff`).
    CrashLoop,
    /// Pods stay Pending because their `schedulingGates` are not removed: the scheduler does
    /// not look at them (PodScheduled False, SchedulingGated).
    SchedulingGated,
    /// Containers run but their readiness probe fails.
    ReadinessFailing,
    /// Containers are ready, but a `readinessGates` condition is not True, so the pod is not
    /// (Ready False, ReadinessGatesNotReady).
    ReadinessGates,
    /// Pods are still being created, pulled or started; the rollout is moving.
    Starting,
}

/// The conclusion.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verdict {
    pub cause: Cause,
    /// One paragraph: the cause, with the numbers and messages that show it.
    pub summary: String,
    /// Whether raising `spec.replicas` would raise the number of ready pods.
    pub raising_replicas_helps: bool,
    /// Why (or why not), and what would help instead.
    pub advice: String,
}

/// The whole diagnosis of one Deployment at one moment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnosis {
    pub deployment: String,
    /// The simulated time of the diagnosis, in milliseconds.
    pub time_ms: u64,
    pub desired: i32,
    pub ready: i32,
    pub available: i32,
    pub updated: i32,
    pub cluster_signals: Vec<Signal>,
    pub application_signals: Vec<Signal>,
    pub verdict: Verdict,
}

fn signal(command: impl Into<String>, sees: impl Into<String>, concern: bool) -> Signal {
    Signal {
        command: command.into(),
        sees: sees.into(),
        concern,
    }
}

/// The Deployment's pods (through its ReplicaSets), in name order.
fn deployment_pods<'a>(sim: &'a Sim, d: &Deployment) -> Vec<&'a Pod> {
    let store = sim.store();
    let mut pods: Vec<&Pod> = store
        .replica_sets_owned_by(&d.metadata.uid)
        .flat_map(|rs| store.pods_owned_by(&rs.metadata.uid))
        .collect();
    order::sort_by(&mut pods, |a, b| a.metadata.name.cmp(&b.metadata.name));
    pods
}

/// `n` pods, with `kind` before the noun (`"new "`): "1 new pod", "3 new pods".
fn pods_word(n: usize, kind: &str) -> String {
    format!("{n} {kind}pod{}", if n == 1 { "" } else { "s" })
}

/// [`pods_word`] with its verb agreeing: `1 pod is`, `2 running pods are`.
fn pods_verb(n: usize, kind: &str, one: &str, many: &str) -> String {
    format!("{} {}", pods_word(n, kind), if n == 1 { one } else { many })
}

/// Names as a list of quoted strings: `"a", "b"`.
fn quoted(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The first waiting container's reason and message: an init container's when one waits for a
/// reason of its own (not `PodInitializing`, which only says that its turn has not come), else
/// an app container's.
fn waiting_reason(pod: &Pod) -> Option<(&str, &str)> {
    waiting_container(pod).map(|(cs, _)| match &cs.state {
        ContainerState::Waiting { reason, message } => (reason.as_str(), message.as_str()),
        _ => ("", ""),
    })
}

/// The container [`waiting_reason`] reads, and whether it is an init container.
fn waiting_container(pod: &Pod) -> Option<(&ContainerStatus, bool)> {
    let waiting = |c: &&ContainerStatus| matches!(&c.state, ContainerState::Waiting { .. });
    pod.status
        .init_container_statuses
        .iter()
        .filter(|c| {
            !matches!(&c.state, ContainerState::Waiting { reason, .. } if reason == "PodInitializing")
        })
        .find(waiting)
        .map(|c| (c, true))
        .or_else(|| {
            pod.status
                .container_statuses
                .iter()
                .find(waiting)
                .map(|c| (c, false))
        })
}

fn unschedulable_message(pod: &Pod) -> Option<&str> {
    pod.condition(PodConditionType::PodScheduled)
        .filter(|c| c.status == ConditionStatus::False)
        // A gated pod was never tried: its condition is the API server's, not a failure.
        .filter(|c| c.reason.as_deref() != Some("SchedulingGated"))
        .and_then(|c| c.message.as_deref())
}

/// Whether the pod's condition `type_` is False with `reason`.
fn has_condition_reason(pod: &Pod, type_: PodConditionType, reason: &str) -> bool {
    pod.condition(type_)
        .is_some_and(|c| c.status == ConditionStatus::False && c.reason.as_deref() == Some(reason))
}

/// Explains why `deployment` has fewer ready replicas than it wants, at the simulator's current
/// moment. `steps` is the trace so far (for events).
///
/// The verdict checks, in order: unschedulable pods (capacity first), scheduling gates, image
/// pulls, missing ConfigMaps or Secrets, restarts, readiness gates, failing readiness, pods
/// still starting. Raising replicas helps in none of these: more pods
/// from the same template meet the same full nodes, the same missing image, the same probes.
pub fn diagnose(sim: &Sim, steps: &[Step], deployment: &str) -> Diagnosis {
    diagnose_at(sim, steps, deployment, sim.now())
}

/// [`diagnose`] with the time the engineer looks, which may be later than the last step (the
/// state is the same; only ages and the reported time differ).
pub fn diagnose_at(sim: &Sim, steps: &[Step], deployment: &str, now: Time) -> Diagnosis {
    let now = now.max(sim.now());
    let Some(d) = sim.deployment(deployment) else {
        return Diagnosis {
            deployment: deployment.to_string(),
            time_ms: now.as_millis(),
            desired: 0,
            ready: 0,
            available: 0,
            updated: 0,
            cluster_signals: vec![signal(
                format!("kubectl get deploy {deployment}"),
                format!("Error from server (NotFound): deployments.apps {deployment:?} not found"),
                true,
            )],
            application_signals: Vec::new(),
            verdict: Verdict {
                cause: Cause::NotFound,
                summary: format!("There is no Deployment named {deployment}."),
                raising_replicas_helps: false,
                advice: "Check the name with kubectl get deploy.".to_string(),
            },
        };
    };
    let name = &d.metadata.name;
    let s = &d.status;
    let desired = d.replicas();
    let pods = deployment_pods(sim, d);
    let records = kubectl::event_records(steps, now);
    let pod_events = |pod: &str| -> Vec<&EventRecord> {
        records
            .iter()
            .filter(|r| {
                r.event.involved_object.kind == "Pod" && r.event.involved_object.name == pod
            })
            .collect()
    };

    // ---- cluster signals
    let mut cluster = Vec::new();
    cluster.push(signal(
        format!("kubectl get deploy {name}"),
        format!(
            "READY {}/{desired}, UP-TO-DATE {}, AVAILABLE {}",
            s.ready_replicas, s.updated_replicas, s.available_replicas
        ),
        s.ready_replicas < desired,
    ));
    let status_line = kubectl::rollout_status_now(sim, name, None);
    cluster.push(signal(
        format!("kubectl rollout status deploy/{name}"),
        status_line.trim_end(),
        !status_line.contains("successfully rolled out"),
    ));
    let conds: Vec<String> = s
        .conditions
        .iter()
        .map(|c| {
            format!(
                "{}={} ({}): {}",
                c.type_.as_str(),
                c.status.as_str(),
                c.reason.as_str(),
                c.message
            )
        })
        .collect();
    cluster.push(signal(
        format!("kubectl describe deploy {name}"),
        if conds.is_empty() {
            "Conditions: <none>".to_string()
        } else {
            format!("Conditions: {}", conds.join("; "))
        },
        s.conditions
            .iter()
            .any(|c| c.status != ConditionStatus::True),
    ));
    let mut by_status: BTreeMap<String, usize> = BTreeMap::new();
    for p in &pods {
        *by_status.entry(p.kubectl_status()).or_default() += 1;
    }
    let n_ready = pods.iter().filter(|p| p.is_ready()).count();
    let status_text = by_status
        .iter()
        .map(|(st, n)| format!("{n} {st}"))
        .collect::<Vec<_>>()
        .join(", ");
    let unscheduled: Vec<&&Pod> = pods
        .iter()
        .filter(|p| p.node_name.is_empty() && p.metadata.deletion_timestamp.is_none())
        .collect();
    cluster.push(signal(
        "kubectl get pods -o wide",
        format!(
            "{}: {status_text}; {n_ready} ready; {} without a NODE",
            pods_word(pods.len(), ""),
            unscheduled.len()
        ),
        n_ready < pods.len() || !unscheduled.is_empty(),
    ));
    let failed_scheduling = unscheduled
        .iter()
        .find_map(|p| unschedulable_message(p).map(|m| (p.metadata.name.clone(), m.to_string())));
    // The pods the scheduler leaves alone until their scheduling gates are removed.
    let gated: Vec<&&Pod> = unscheduled
        .iter()
        .copied()
        .filter(|p| has_condition_reason(p, PodConditionType::PodScheduled, "SchedulingGated"))
        .collect();
    if let Some(p) = gated.first() {
        cluster.push(signal(
            format!("kubectl describe pod {}", p.metadata.name),
            format!(
                "{} Pending with PodScheduled False, reason SchedulingGated; Scheduling Gates: {}",
                pods_verb(gated.len(), "", "is", "are"),
                p.spec.scheduling_gates().join(", ")
            ),
            true,
        ));
    }
    if let Some((pod, msg)) = &failed_scheduling {
        cluster.push(signal(
            format!("kubectl describe pod {pod}"),
            format!("Warning FailedScheduling: {msg}"),
            true,
        ));
    }
    let mut node_lines = Vec::new();
    let mut total_alloc = 0i64;
    let mut total_req = 0i64;
    for n in sim.store().nodes.values() {
        let u = sim.store().node_usage(&n.metadata.name);
        let alloc = n.status.allocatable_milli_cpu;
        total_alloc += alloc;
        total_req += u.milli_cpu;
        let pct = |used: i64, of: i64| if of > 0 { used * 100 / of } else { 0 };
        node_lines.push(format!(
            "{}: cpu {} of {} requested ({}%), memory {} of {} ({}%), {} pod{}{}",
            n.metadata.name,
            format_cpu(u.milli_cpu),
            format_cpu(alloc),
            pct(u.milli_cpu, alloc),
            format_mem(u.memory),
            format_mem(n.status.allocatable_memory),
            pct(u.memory, n.status.allocatable_memory),
            u.pods,
            plural(u.pods),
            if n.spec.unschedulable {
                " (SchedulingDisabled)"
            } else {
                ""
            }
        ));
    }
    let pod_req = pods.first().map(|p| pod_requests(p));
    let req_text = pod_req.map_or(String::new(), |(cpu, mem)| {
        format!(
            "; each pod requests cpu {}, memory {}",
            format_cpu(cpu),
            format_mem(mem)
        )
    });
    cluster.push(signal(
        "kubectl describe nodes   (Allocated resources)",
        format!("{}{req_text}", node_lines.join("; ")),
        failed_scheduling.is_some(),
    ));
    let warnings: Vec<&EventRecord> = records
        .iter()
        .filter(|r| r.event.type_ == super::api::EventType::Warning)
        .collect();
    let mut by_reason: BTreeMap<&str, u32> = BTreeMap::new();
    for w in &warnings {
        *by_reason.entry(w.event.reason.as_str()).or_default() += w.count;
    }
    cluster.push(signal(
        "kubectl get events --field-selector type=Warning",
        if by_reason.is_empty() {
            super::kubectl::NO_RESOURCES.to_string()
        } else {
            by_reason
                .iter()
                .map(|(r, n)| format!("{r} ×{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        },
        !by_reason.is_empty(),
    ));

    // ---- application signals
    let mut app = Vec::new();
    let scheduled: Vec<&&Pod> = pods
        .iter()
        .filter(|p| !p.node_name.is_empty() && p.metadata.deletion_timestamp.is_none())
        .collect();
    // The scheduled pods whose first waiting container waits for one of `reasons`.
    let waiting_for = |reasons: &[&str]| -> Vec<&&&Pod> {
        scheduled
            .iter()
            .filter(|p| waiting_reason(p).is_some_and(|(r, _)| reasons.contains(&r)))
            .collect()
    };
    let pulling = waiting_for(&["ErrImagePull", "ImagePullBackOff"]);
    let config_error = waiting_for(&["CreateContainerConfigError"]);
    if let Some(p) = config_error.first() {
        let (_, message) = waiting_reason(p).unwrap_or_default();
        app.push(signal(
            format!("kubectl describe pod {}", p.metadata.name),
            format!(
                "{} cannot start; State: Waiting, Reason: CreateContainerConfigError, Message: {message}",
                pods_word(config_error.len(), "")
            ),
            true,
        ));
    }
    let restarts: i32 = scheduled
        .iter()
        .map(|p| p.max_restarts_of_any())
        .max()
        .unwrap_or(0);
    let crash_looping = scheduled
        .iter()
        .filter(|p| kubectl::is_crash_looping(p) || p.max_restarts_of_any() > 0)
        .count();
    // Running pods that are not Ready: those whose containers are ready but a readiness gate
    // is not, and the rest, whose readiness probe does not pass.
    let (gate_held, not_ready_running): (Vec<&&&Pod>, Vec<&&&Pod>) = scheduled
        .iter()
        .filter(|p| !p.is_ready() && super::kubelet::is_running(p))
        .partition(|p| has_condition_reason(p, PodConditionType::Ready, "ReadinessGatesNotReady"));
    if let Some(p) = gate_held.first() {
        app.push(signal(
            "kubectl get pods -o wide   (READINESS GATES)",
            format!(
                "{} READY {} (every container ready) but READINESS GATES 0/{}: no condition {} is True",
                pods_verb(gate_held.len(), "", "shows", "show"),
                kubectl::ready_cell(p),
                p.spec.readiness_gates().len(),
                quoted(&p.spec.readiness_gates())
            ),
            true,
        ));
    }
    if let Some(p) = pulling.first() {
        let (reason, _) = waiting_reason(p).unwrap_or_default();
        // Describe shows a waiting container's reason only; the pull's error is in its events.
        let pull_error = records
            .iter()
            .rev()
            .find(|r| {
                r.event.reason == EventReason::Failed
                    && r.event.involved_object.name == p.metadata.name
                    && r.event.message.starts_with("Failed to pull image")
            })
            .map_or_else(String::new, |r| {
                format!("; the pull error is in its Events: {}", r.event.message)
            });
        app.push(signal(
            format!("kubectl describe pod {}", p.metadata.name),
            format!(
                "{} cannot pull the image; State: Waiting, Reason: {reason}{pull_error}",
                pods_word(pulling.len(), "")
            ),
            true,
        ));
    }
    app.push(signal(
        "kubectl get pods   (RESTARTS)",
        if restarts == 0 {
            "no container has restarted".to_string()
        } else {
            format!(
                "{} restarted, up to {restarts} times",
                pods_word(crash_looping, "")
            )
            .replacen(" pods restarted", " pods have restarted", 1)
            .replacen(" pod restarted", " pod has restarted", 1)
        },
        restarts > 0,
    ));
    // The most telling pod: one that restarts, else one that is running but not ready.
    let suspect = scheduled
        .iter()
        .filter(|p| p.max_restarts_of_any() > 0)
        .max_by_key(|p| p.max_restarts_of_any())
        .or_else(|| not_ready_running.first().copied())
        .or_else(|| pulling.first().copied())
        .or_else(|| config_error.first().copied());
    let mut last_kubelet_warning = None;
    if let Some(p) = suspect {
        let evs = pod_events(&p.metadata.name);
        let warn: Vec<&&EventRecord> = evs
            .iter()
            .filter(|r| r.event.type_ == super::api::EventType::Warning)
            .collect();
        let last = warn
            .iter()
            .filter(|r| r.event.reason != EventReason::Failed || pulling.is_empty())
            .max_by_key(|r| r.last_timestamp)
            .or_else(|| warn.iter().max_by_key(|r| r.last_timestamp));
        if let Some(r) = last {
            let text = format!(
                "{} {} ({}): {}",
                r.event.type_.as_str(),
                r.event.reason.as_str(),
                if r.count > 1 {
                    format!("x{}", r.count)
                } else {
                    "once".to_string()
                },
                kubectl::describe_message(&r.event)
            );
            last_kubelet_warning = Some(text.clone());
            app.push(signal(
                format!("kubectl describe pod {}   (Events)", p.metadata.name),
                text,
                true,
            ));
        }
        if p.max_restarts_of_any() > 0 {
            // An init container's output is read with `-c`, which `kubectl logs` needs for any
            // container but the default (the first app container).
            let last_state = p
                .status
                .init_container_statuses
                .iter()
                .map(|c| (c, true))
                .chain(p.status.container_statuses.iter().map(|c| (c, false)))
                .find_map(|(c, init)| match &c.last_state {
                    Some(ContainerState::Terminated {
                        exit_code, reason, ..
                    }) => Some((
                        format!(
                            "{} {} last terminated with exit code {exit_code} ({reason})",
                            if init { "init container" } else { "container" },
                            c.name
                        ),
                        if init {
                            format!(" -c {}", c.name)
                        } else {
                            String::new()
                        },
                    )),
                    _ => None,
                });
            let (last_state, container_flag) = last_state.unzip();
            app.push(signal(
                format!(
                    "kubectl logs {}{} --previous",
                    p.metadata.name,
                    container_flag.unwrap_or_default()
                ),
                format!(
                    "{} — RolloutScope does not simulate log lines; read the previous container's output there",
                    last_state.unwrap_or_else(|| "no terminated container yet".to_string())
                ),
                true,
            ));
        }
    }
    // Of those, the pods whose containers all run are held back by a probe: a startup probe
    // that has not passed yet (readiness waits for it), else the readiness probe. A pod with a
    // container that is not running (a crash loop's back-off) is not Ready for that reason,
    // which the restarts above tell.
    let probe_held: Vec<&&&Pod> = not_ready_running
        .iter()
        .copied()
        .filter(|p| {
            !p.status.container_statuses.is_empty()
                && p.status
                    .container_statuses
                    .iter()
                    .all(|c| matches!(c.state, ContainerState::Running { .. }))
        })
        .collect();
    if let Some(p) = probe_held.first() {
        let starting = p.status.container_statuses.iter().any(|c| !c.started);
        app.push(signal(
            "kubectl get pods   (READY)",
            format!(
                "{} not Ready (READY {}): {}",
                pods_verb(probe_held.len(), "running ", "is", "are"),
                kubectl::ready_cell(p),
                match (starting, probe_held.len()) {
                    (true, _) => "a startup probe has not passed yet, and readiness is not checked before it does",
                    (false, 1) => "its readiness probe does not pass",
                    (false, _) => "their readiness probe does not pass",
                }
            ),
            true,
        ));
    }

    // ---- verdict
    let ready = s.ready_replicas;
    // While new pods cannot start, the pods of an older revision (if any are left) still
    // serve; a first rollout has none.
    let new_rs = kubectl::new_replica_set_name(sim, name);
    let old_available: i32 = sim
        .store()
        .replica_sets_owned_by(&d.metadata.uid)
        .filter(|rs| new_rs.as_deref() != Some(rs.metadata.name.as_str()))
        .map(|rs| rs.status.available_replicas)
        .sum();
    let serving = if old_available > 0 {
        format!(
            "The old ReplicaSet keeps serving ({old_available} available); READY is {ready}/{desired}."
        )
    } else {
        format!("No older ReplicaSet has pods left to serve meanwhile; READY is {ready}/{desired}.")
    };
    let verdict = if ready >= desired && s.updated_replicas >= desired {
        Verdict {
            cause: Cause::Healthy,
            summary: format!("All {desired} wanted replicas are ready ({ready}/{desired})."),
            raising_replicas_helps: true,
            advice: "Nothing is stuck; raising replicas would add pods if the nodes have room."
                .to_string(),
        }
    } else if d.spec.paused {
        Verdict {
            cause: Cause::Paused,
            summary: format!(
                "The rollout is paused: the controller does not move the ReplicaSets ({ready}/{desired} ready)."
            ),
            raising_replicas_helps: false,
            advice: format!("kubectl rollout resume deploy/{name}."),
        }
    } else if let Some((pod, msg)) = &failed_scheduling {
        let n = unscheduled.len();
        let capacity = msg.contains("Insufficient");
        let (cpu, mem) = pod_req.unwrap_or((0, 0));
        Verdict {
            cause: if capacity {
                Cause::InsufficientCapacity
            } else {
                Cause::Unschedulable
            },
            summary: format!(
                "{n} of {} pods cannot be scheduled and stay Pending ({pod}: FailedScheduling `{msg}`). READY is {ready}/{desired}. The nodes have {} CPU allocatable in total and {} requested; each pod requests cpu {} and memory {}.",
                pods.len(),
                format_cpu(total_alloc),
                format_cpu(total_req),
                format_cpu(cpu),
                format_mem(mem)
            ),
            raising_replicas_helps: false,
            advice: if capacity && msg.contains("untolerated taint") {
                "Raising replicas will not help: every extra pod asks the same full nodes and stays Pending too. Add nodes or capacity, lower the pods' requests, or lower replicas to what fits; a tainted node with room takes the pods only if they tolerate its taint (kubectl describe node shows its Taints).".to_string()
            } else if capacity {
                "Raising replicas will not help: every extra pod asks the same full nodes and stays Pending too. Add nodes or capacity, lower the pods' requests, or lower replicas to what fits.".to_string()
            } else if msg.contains("anti-affinity rules") {
                "Raising replicas will not help: every extra pod fails the same scheduling filters. Required pod anti-affinity allows one such pod per topology domain, so a surge pod finds no room: add nodes, let the rollout go without a surge (maxSurge 0, maxUnavailable 1), or add matchLabelKeys: [pod-template-hash] so that a revision repels only its own pods.".to_string()
            } else if msg.contains("pod topology spread constraints") {
                "Raising replicas will not help: every extra pod fails the same scheduling filters. A DoNotSchedule topology spread constraint lets no domain hold more than maxSkew pods above the emptiest domain, and an empty domain that cannot take pods (a cordoned or tainted node, still counted unless nodeTaintsPolicy is Honor) holds every other one to maxSkew: make that domain schedulable, raise maxSkew, make the constraint ScheduleAnyway, or, if old revisions' pods fill the domains during a rollout, add matchLabelKeys: [pod-template-hash]. A node without the topology key can never take the pod: label it.".to_string()
            } else {
                "Raising replicas will not help: every extra pod fails the same scheduling filters. Fix the reason in the message (uncordon a node, correct a nodeSelector, node affinity or toleration, free a host port).".to_string()
            },
        }
    } else if let Some(p) = gated.first() {
        Verdict {
            cause: Cause::SchedulingGated,
            summary: format!(
                "{} Pending with STATUS SchedulingGated: the pod template sets schedulingGates ({}), and the scheduler does not try a pod until every gate is removed (PodScheduled False: Scheduling is blocked due to non-empty scheduling gates). No FailedScheduling event says so. READY is {ready}/{desired}.",
                pods_verb(gated.len(), "", "stays", "stay"),
                p.spec.scheduling_gates().join(", ")
            ),
            raising_replicas_helps: false,
            advice: format!(
                "Raising replicas will not help: every new pod carries the same gates. The controller that owns the gate removes it from each pod; without one, drop schedulingGates from the template (kubectl apply) or roll back (kubectl rollout undo deploy/{name})."
            ),
        }
    } else if let Some(p) = pulling.first() {
        let (reason, message) = waiting_reason(p).unwrap_or_default();
        // The image of the container that waits; an init container's shows in STATUS as
        // `Init:<reason>`.
        let (image, status) = match waiting_container(p) {
            Some((cs, true)) => (cs.image.as_str(), format!("Init:{reason}")),
            _ => (
                p.spec.containers.first().map_or("", |c| c.image.as_str()),
                reason.to_string(),
            ),
        };
        Verdict {
            cause: Cause::ImagePull,
            summary: format!(
                "{} cannot pull image {image}: STATUS {status} ({message}). {serving}",
                pods_word(pulling.len(), "new "),
            ),
            raising_replicas_helps: false,
            advice: format!(
                "Raising replicas will not help: new pods use the same image. Fix the image tag (kubectl set image) or roll back (kubectl rollout undo deploy/{name})."
            ),
        }
    } else if let Some(p) = config_error.first() {
        let (_, message) = waiting_reason(p).unwrap_or_default();
        // The status is the kubelet's last word: once the object (and key) exists, the pod
        // starts at its worker's next sync, so the verdict must not ask for it again.
        let store = sim.store();
        let root = config_error.iter().any(|p| {
            p.spec
                .init_containers
                .iter()
                .chain(&p.spec.containers)
                .any(|c| {
                    super::kubelet::run_as_non_root_error(p, c, sim.world().behavior(&c.image).user)
                        .is_some()
                })
        });
        let fixed = !config_error.iter().any(|p| {
            p.spec
                .init_containers
                .iter()
                .chain(&p.spec.containers)
                .any(|c| super::kubelet::missing_config(store, c).is_some())
        });
        if root && fixed {
            Verdict {
                cause: Cause::ContainerConfig,
                summary: format!(
                    "{} cannot start: STATUS CreateContainerConfigError ({message}). The securityContext asks for runAsNonRoot, and the container would run as root: the kubelet refuses to create it. {serving}",
                    pods_word(config_error.len(), "new "),
                ),
                raising_replicas_helps: false,
                advice: format!(
                    "Raising replicas will not help: every new pod asks the same. Set securityContext.runAsUser to a non-zero user ID, use an image that runs as a non-root user, or roll back (kubectl rollout undo deploy/{name})."
                ),
            }
        } else if fixed {
            Verdict {
                cause: Cause::ContainerConfig,
                summary: format!(
                    "{} STATUS CreateContainerConfigError ({message}), though the ConfigMap or Secret named there exists now: the kubelet has not looked again yet. A pod starts at its pod worker's next sync, within its back-off. READY is {ready}/{desired}.",
                    pods_verb(config_error.len(), "new ", "still shows", "still show"),
                ),
                raising_replicas_helps: false,
                advice: "Nothing more to create: wait for the kubelet's next look (kubectl get pods -w shows the change), or delete a pod to have it replaced at once.".to_string(),
            }
        } else {
            Verdict {
                cause: Cause::ContainerConfig,
                summary: format!(
                    "{} cannot start: STATUS CreateContainerConfigError ({message}). The image is there; a ConfigMap or Secret (or a key in one) that the container's env or envFrom names is missing. {serving}",
                    pods_word(config_error.len(), "new "),
                ),
                raising_replicas_helps: false,
                advice: format!(
                    "Raising replicas will not help: every new pod needs the same missing object. Create it (kubectl create configmap or kubectl create secret), mark the reference optional: true, or roll back (kubectl rollout undo deploy/{name})."
                ),
            }
        }
    } else if restarts > 0 {
        // A liveness (or startup) probe kill tells a slow starter from a crashing process.
        let probe_kill = records.iter().find(|r| {
            r.event.reason == EventReason::Killing
                && r.event.message.contains(" failed ")
                && r.event.message.contains(" probe")
                && pods
                    .iter()
                    .any(|p| p.metadata.name == r.event.involved_object.name)
        });
        let why = match probe_kill {
            Some(r) => format!("the kubelet kills them: {}", r.event.message),
            None => "the process exits on its own".to_string(),
        };
        Verdict {
            cause: Cause::CrashLoop,
            summary: format!(
                "Containers keep stopping and restarting under back-off, {why} (up to {restarts} restarts; {}). READY is {ready}/{desired}.",
                last_kubelet_warning.unwrap_or_else(|| "see kubectl describe pod".to_string())
            ),
            raising_replicas_helps: false,
            advice: "Raising replicas will not help: every new pod runs the same code with the same probes. Read kubectl logs --previous; if a liveness probe kills a slow starter, add a startupProbe or raise its thresholds.".to_string(),
        }
    } else if let Some(p) = gate_held.first() {
        Verdict {
            cause: Cause::ReadinessGates,
            summary: format!(
                "{} every container ready, yet not Ready: Ready False, reason ReadinessGatesNotReady, because no condition of type {} is True on {}. The rollout stops where maxSurge and maxUnavailable allow; READY is {ready}/{desired}.",
                pods_verb(gate_held.len(), "", "has", "have"),
                quoted(&p.spec.readiness_gates()),
                if gate_held.len() == 1 { "it" } else { "them" }
            ),
            raising_replicas_helps: false,
            advice: format!(
                "Raising replicas will not help: new pods wait on the same gate. A controller (a load balancer's, usually) sets that condition on each pod once it is ready for it; nothing in this namespace does. Drop readinessGates from the template (kubectl apply) or roll back (kubectl rollout undo deploy/{name})."
            ),
        }
    } else if !not_ready_running.is_empty() {
        Verdict {
            cause: Cause::ReadinessFailing,
            summary: format!(
                "{} ({}). The rollout stops where maxSurge and maxUnavailable allow; READY is {ready}/{desired}.",
                match not_ready_running.len() {
                    1 => "1 pod runs but does not pass its readiness probe".to_string(),
                    n => format!("{n} pods run but do not pass their readiness probe"),
                },
                // Only a readiness warning says why; an older one (a failed create) does not.
                last_kubelet_warning
                    .filter(|w| w.contains("Unhealthy"))
                    .unwrap_or_else(|| "see kubectl describe pod".to_string())
            ),
            raising_replicas_helps: false,
            advice: format!(
                "Raising replicas will not help: new pods fail the same readiness check. Fix the readiness endpoint or roll back (kubectl rollout undo deploy/{name})."
            ),
        }
    } else {
        Verdict {
            cause: Cause::Starting,
            summary: format!(
                "Pods are still being created, pulled or started; the rollout is moving ({ready}/{desired} ready)."
            ),
            raising_replicas_helps: false,
            advice: "Wait: raising replicas would not make the current pods ready sooner."
                .to_string(),
        }
    };
    Diagnosis {
        deployment: name.clone(),
        time_ms: now.as_millis(),
        desired,
        ready,
        available: s.available_replicas,
        updated: s.updated_replicas,
        cluster_signals: cluster,
        application_signals: app,
        verdict,
    }
}

impl std::fmt::Display for Diagnosis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "Diagnosis of deployment/{} at {}: {}/{} ready, {} up to date, {} available",
            self.deployment,
            super::api::Time(self.time_ms),
            self.ready,
            self.desired,
            self.updated,
            self.available
        )?;
        for (title, signals) in [
            ("Cluster signals", &self.cluster_signals),
            ("Application signals", &self.application_signals),
        ] {
            writeln!(f, "\n{title}:")?;
            for s in signals {
                let mark = if s.concern { "!" } else { " " };
                writeln!(f, "  {mark} $ {}", s.command)?;
                writeln!(f, "      {}", s.sees)?;
            }
        }
        writeln!(f, "\nVerdict ({:?}):", self.verdict.cause)?;
        writeln!(f, "  {}", self.verdict.summary)?;
        writeln!(f, "  {}", self.verdict.advice)
    }
}
