//! The cluster, drawn: the Deployment's counts and conditions, one lane per ReplicaSet with its
//! Pods as chips, and the Nodes with the capacity their pods request. Every status is a word
//! or a glyph as well as a colour.

use leptos::prelude::*;

use super::session::{Session, UserAction};
use super::{DescribedPod, browser};
use crate::sim::commands::Command;
use crate::sim::controller::node_lifecycle::NODE_MONITOR_GRACE_MS;
use crate::sim::engine::Sim;
use crate::sim::kubelet;
use crate::sim::view::{ClusterView, NodeView, PodView, ProbeMark, ReplicaSetView};
use std::collections::BTreeSet;

/// Above this many pods in a lane, the lane shows counts and draws its chips only on request.
const CHIPS_PER_LANE: usize = 40;

/// The view the panels draw: pod rows only for the lanes drawn pod by pod (at most
/// [`CHIPS_PER_LANE`] pods, or opened with "Show all" — the names in `expanded`).
pub fn lanes_view(sim: &Sim, expanded: &BTreeSet<String>) -> ClusterView {
    ClusterView::for_lanes(sim, CHIPS_PER_LANE, expanded)
}

/// The Deployment: desired, updated, ready and available replicas, its conditions, and the
/// kubectl commands a person runs on it (scale, and rollout pause, resume, restart and undo).
#[component]
pub fn DeploymentPanel(
    cluster: Memo<ClusterView>,
    /// The session the commands act on; `None` draws no command buttons.
    session: Option<RwSignal<Session>>,
) -> impl IntoView {
    let deployment = move || cluster.with(|c| c.deployment.clone());
    view! {
        <section class="panel deployment" data-testid="deployment" aria-label="The Deployment">
            {move || match deployment() {
                None => view! {
                    <h2>"Deployment"</h2>
                    <p class="empty">"Not created yet: the first step applies the manifest."</p>
                }.into_any(),
                Some(d) => {
                    let counts = [
                        ("desired", d.spec_replicas, "spec.replicas"),
                        ("updated", d.updated_replicas, "pods from the current template"),
                        ("ready", d.ready_replicas, "pods whose readiness passes"),
                        ("available", d.available_replicas, "ready for minReadySeconds"),
                        ("total", d.replicas, "all pods of all ReplicaSets"),
                    ];
                    view! {
                        <h2>
                            {format!("Deployment {} ", d.name)}
                            {(!d.revision.is_empty()).then(|| view! { <span class="badge">{format!("revision {}", d.revision)}</span> })}
                            {d.paused.then(|| view! { <span class="badge warn">"‖ paused"</span> })}
                        </h2>
                        <dl class="counts">
                            {counts.into_iter().map(|(label, n, hint)| view! {
                                <div class="count" title=hint data-testid=format!("deployment-{label}")>
                                    <dt>{label}</dt>
                                    <dd>{n}</dd>
                                </div>
                            }).collect_view()}
                        </dl>
                        <p class="limits">
                            {if d.max_surge == 0 && d.max_unavailable == 0 {
                                // Validation forbids both being 0 for RollingUpdate: this is Recreate.
                                "Recreate: every old pod stops before any new one starts".to_string()
                            } else {
                                format!(
                                    "maxSurge {} · maxUnavailable {} → at most {} pods, at least {} available",
                                    d.max_surge,
                                    d.max_unavailable,
                                    i64::from(d.spec_replicas) + i64::from(d.max_surge),
                                    (i64::from(d.spec_replicas) - i64::from(d.max_unavailable)).max(0)
                                )
                            }}
                        </p>
                        <ul class="conditions" data-testid="conditions">
                            {d.conditions.into_iter().map(|c| {
                                let (glyph, class) = match c.status.as_str() {
                                    "True" => ("✓", "ok"),
                                    "False" => ("✗", "bad"),
                                    _ => ("?", "pending"),
                                };
                                view! {
                                    <li class=format!("condition {class}")>
                                        <span class="glyph" aria-hidden="true">{glyph}</span>
                                        <strong>{format!("{} {}", c.type_, c.status)}</strong>
                                        " "
                                        <code>{c.reason}</code>
                                        <span class="message">{c.message}</span>
                                    </li>
                                }
                            }).collect_view()}
                        </ul>
                    }.into_any()
                }
            }}
            // Made once, not with each step's redraw above, so what a person has typed or chosen
            // stays while the run moves on.
            {session.map(|session| view! {
                <Show when=move || cluster.with(|c| c.deployment.is_some())>
                    <DeploymentCommands session cluster />
                </Show>
            })}
        </section>
    }
}

/// The buttons that run kubectl on the Deployment at the current simulated time: `scale` to the
/// count typed beside it, and `rollout pause` or `resume`, `restart` and `undo`. Each button's
/// tooltip is the command it runs; what kubectl printed, or its refusal, becomes the notice.
#[component]
fn DeploymentCommands(session: RwSignal<Session>, cluster: Memo<ClusterView>) -> impl IntoView {
    // What the commands need of the Deployment; it changes far less often than the cluster
    // does, so the controls are redrawn only when it does.
    let facts = Memo::new(move |_| {
        cluster.with(|c| {
            c.deployment
                .as_ref()
                .map(|d| CommandFacts {
                    name: d.name.clone(),
                    replicas: d.spec_replicas,
                    paused: d.paused,
                    revisions: undo_targets(c, &d.revision),
                })
                .unwrap_or_default()
        })
    });
    let name = move || facts.with(|f| f.name.clone());
    let paused = move || facts.with(|f| f.paused);
    // The count as typed, kept until Scale runs it; until then the field shows spec.replicas.
    let typed: RwSignal<Option<String>> = RwSignal::new(None);
    let count = move || {
        typed
            .get()
            .unwrap_or_else(|| facts.with(|f| f.replicas.to_string()))
    };
    // The revision to go back to; `0` is kubectl's default, the previous one. A choice whose
    // ReplicaSet has gone (history cleanup) falls back to it, as the list then shows.
    let to_revision = RwSignal::new("0".to_string());
    let chosen = move || {
        let r = to_revision.get();
        let listed = facts.with(|f| f.revisions.iter().any(|(n, _)| n.to_string() == r));
        if listed { r } else { "0".to_string() }
    };
    // After a scale the field follows spec.replicas again; a refused count stays to be fixed.
    let scale = move || {
        if try_act(session, UserAction::Scale(count())) {
            typed.set(None);
        }
    };
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        scale();
    };
    let undo_title = move || {
        let base = format!("kubectl rollout undo deployment/{}", name());
        match chosen().as_str() {
            "0" => base,
            n => format!("{base} --to-revision={n}"),
        }
    };
    view! {
        <div class="deployment-commands" role="group" aria-label="kubectl commands on the Deployment" data-testid="deployment-commands">
            // A form, so Enter in the field scales as the button does.
            <form class="command-group" on:submit=on_submit>
                <label class="scale-field">
                    <span>"Replicas"</span>
                    // Text rather than a number field: the field keeps exactly what was typed
                    // (a number field reports "" for "-" or "1e"), and kubectl judges it.
                    <input type="text" inputmode="numeric" size="6" autocomplete="off" data-testid="scale-count"
                        aria-label="Replicas to scale the Deployment to"
                        prop:value=count
                        on:input=move |ev| typed.set(Some(event_target_value(&ev))) />
                </label>
                <button type="submit" class="control small" data-testid="scale"
                    title=move || format!("kubectl scale deployment/{} --replicas={}", name(), count())>"Scale"</button>
            </form>
            <button class="control small" data-testid="rollout-pause"
                title=move || format!("kubectl rollout {} deployment/{}", if paused() { "resume" } else { "pause" }, name())
                on:click=move |_| act(session, if paused() { UserAction::RolloutResume } else { UserAction::RolloutPause })>
                {move || if paused() { "Resume rollout" } else { "Pause rollout" }}
            </button>
            <button class="control small" data-testid="rollout-restart"
                title=move || format!("kubectl rollout restart deployment/{}", name())
                on:click=move |_| act(session, UserAction::RolloutRestart)>"Restart"</button>
            <span class="command-group">
                <label class="scale-field">
                    <span>"Undo to"</span>
                    <select data-testid="undo-revision" aria-label="Revision to undo the rollout to"
                        prop:value=chosen
                        on:change=move |ev| to_revision.set(event_target_value(&ev))>
                        <option value="0">"the previous revision"</option>
                        // Each option also says whether it is the chosen one: options drawn anew
                        // (a revision appeared or went) would otherwise select the first.
                        {move || facts.with(|f| f.revisions.clone())
                            .into_iter()
                            .map(|(n, image)| view! {
                                <option value=n.to_string() selected=move || chosen() == n.to_string()>
                                    {format!("revision {n} ({image})")}
                                </option>
                            })
                            .collect_view()}
                    </select>
                </label>
                <button class="control small" data-testid="rollout-undo" title=undo_title
                    on:click=move |_| act(session, UserAction::RolloutUndo(chosen()))>"Undo rollout"</button>
            </span>
        </div>
    }
}

/// The Deployment as its kubectl commands see it.
#[derive(Clone, Debug, Default, PartialEq)]
struct CommandFacts {
    name: String,
    /// `spec.replicas`, what the Replicas field shows until something is typed.
    replicas: i32,
    paused: bool,
    /// The revisions `rollout undo --to-revision` may name, newest first, with their images.
    revisions: Vec<(i64, String)>,
}

/// The revisions of the Deployment's ReplicaSets other than `current`, newest first, each with
/// its images: what `kubectl rollout undo --to-revision` can go back to.
fn undo_targets(cluster: &ClusterView, current: &str) -> Vec<(i64, String)> {
    let mut out: Vec<(i64, String)> = cluster
        .replica_sets
        .iter()
        .filter(|rs| rs.revision != current)
        .filter_map(|rs| Some((rs.revision.parse().ok()?, rs.images_label())))
        .collect();
    crate::sim::order::sort_by_key(&mut out, |(n, _)| std::cmp::Reverse(*n));
    out
}

/// One lane per ReplicaSet, newest revision first, each with its pods.
#[component]
pub fn ReplicaSetLanes(
    cluster: Memo<ClusterView>,
    /// The lanes opened with "Show all", which `cluster` must draw pod by pod (see [`lanes_view`]).
    expanded: RwSignal<BTreeSet<String>>,
    /// The session the fault buttons act on; `None` draws no fault buttons.
    session: Option<RwSignal<Session>>,
) -> impl IntoView {
    let names = Memo::new(move |_| {
        cluster.with(|c| {
            c.replica_sets
                .iter()
                .map(|rs| rs.name.clone())
                .collect::<Vec<_>>()
        })
    });
    view! {
        <section class="panel replica-sets" aria-label="ReplicaSets and their Pods">
            <h2>"ReplicaSets and their Pods"</h2>
            // The chips' marks, said once: they are letters and glyphs to fit a chip, and
            // "R✗" beside "R✓" would otherwise read as a status rather than a button.
            <p class="legend" data-testid="pod-legend">
                "Each pod starts with ✓ ready, ○ running but not ready, … pending, ✗ failing or ⊘ terminating; its probe marks are S startup, R readiness, L liveness, each ✓ passed, ✗ failed or · no result yet; a probe the container does not have has no mark."
                <span class="legend-buttons">" Buttons that break a pod: ✂ deletes it, R✗ makes its readiness fail, ↯ crashes its container."</span>
            </p>
            <Show when=move || names.with(Vec::is_empty)>
                <p class="empty">"No ReplicaSet yet: the deployment controller creates one for the template."</p>
            </Show>
            <For each=move || names.get() key=|name| name.clone() let(name)>
                <ReplicaSetLane cluster expanded session name />
            </For>
        </section>
    }
}

/// The key a pod chip is redrawn under: it changes whenever anything the chip shows changes
/// (its node's readiness too, which its words explain), which also replays the chip's short
/// highlight.
fn chip_key((p, node_ready): &(PodView, bool)) -> String {
    format!(
        "{}|{}|{}|{}|{}|{:?}|{}|{node_ready}",
        p.uid, p.status, p.ready, p.restarts, p.node, p.probes, p.terminating
    )
}

#[component]
fn ReplicaSetLane(
    cluster: Memo<ClusterView>,
    expanded: RwSignal<BTreeSet<String>>,
    session: Option<RwSignal<Session>>,
    name: String,
) -> impl IntoView {
    let rs_name = name.clone();
    let rs = Memo::new(move |_| {
        cluster.with(|c| c.replica_sets.iter().find(|rs| rs.name == rs_name).cloned())
    });
    let lane_name = name.clone();
    // Each pod with whether its node is Ready, which its chip's words depend on.
    let pods = Memo::new(move |_| {
        cluster.with(|c| {
            c.pods
                .iter()
                .filter(|p| p.replica_set == lane_name)
                .map(|p| {
                    let node_ready = c.nodes.iter().any(|n| n.name == p.node && n.ready);
                    (p.clone(), node_ready)
                })
                .collect::<Vec<_>>()
        })
    });
    let counts_name = name.clone();
    let counts = Memo::new(move |_| {
        cluster.with(|c| {
            c.lanes
                .iter()
                .find(|l| l.replica_set == counts_name)
                .cloned()
                .unwrap_or_default()
        })
    });
    let open_name = name.clone();
    let grouped = move || {
        counts.with(|c| c.total > CHIPS_PER_LANE) && !expanded.with(|e| e.contains(&open_name))
    };
    // The lane's own "Show all" and "Show counts instead": callbacks are `Copy`, so the views
    // that are rebuilt as the lane changes mode can hold them.
    let (show_name, hide_name) = (name.clone(), name.clone());
    let show_all = Callback::new(move |()| {
        expanded.update(|e| {
            e.insert(show_name.clone());
        })
    });
    let show_counts = Callback::new(move |()| {
        expanded.update(|e| {
            e.remove(&hide_name);
        })
    });
    let header = move || {
        rs.get().map(|rs: ReplicaSetView| {
            let role = if rs.current { "new" } else { "old" };
            // The fault button sits beside the heading, not in it, so the heading reads as the
            // ReplicaSet alone.
            view! {
                <div class="rs-head">
                <h3>
                    <span class=format!("badge {role}")>{if rs.current { "★ current" } else { "old" }}</span>
                    " "
                    <span class="rs-name">{rs.name.clone()}</span>
                    <span class="rs-meta">{
                        format!(" revision {} · {}", rs.revision, rs.images_label())
                    }</span>
                </h3>
                    {
                        let image = rs.image.clone();
                        session.map(|session| view! {
                            // Worded as an action, in the node buttons' bordered style: a red
                            // "registry ✗" beside every lane read like a failure already there.
                            <button class="fault fault-button" data-testid="fail-registry" title=format!("Break it: the registry stops serving {image}")
                                aria-label=format!("Break registry: make it fail for {image}")
                                on:click=move |_| act(session, UserAction::FailRegistry(image.clone()))>
                                "Break registry"
                            </button>
                        })
                    }
                </div>
                // The counts are the ReplicaSet's spec and status, as `kubectl get rs` prints
                // them; its controller writes the status after it acts, so they can trail the
                // pods drawn below by a step or two, as on a real cluster.
                <p class="rs-counts" data-testid="rs-counts"
                    title="spec.replicas, then status.replicas, readyReplicas and availableReplicas, as kubectl get rs prints them: the ReplicaSet controller writes its status after it acts, so these can trail the pods below by a step">
                    {format!(
                        "desired {} · current {} · ready {} · available {}",
                        rs.replicas, rs.status_replicas, rs.ready_replicas, rs.available_replicas
                    )}
                </p>
                <div class="rs-bar" aria-hidden="true">
                    <span class="rs-bar-fill" style:transform=scale_x(percent_i64(rs.available_replicas.into(), rs.replicas.max(rs.status_replicas).into()))></span>
                </div>
            }
        })
    };
    view! {
        <article class="lane" data-testid="rs-lane" data-rs=name.clone()
            data-desired=move || rs.with(|r| r.as_ref().map(|r| r.replicas.to_string()))
            data-current=move || rs.with(|r| r.as_ref().map(|r| r.status_replicas.to_string()))
            data-ready=move || rs.with(|r| r.as_ref().map(|r| r.ready_replicas.to_string()))
            data-available=move || rs.with(|r| r.as_ref().map(|r| r.available_replicas.to_string()))
        >
            {header}
            <Show
                when=grouped
                fallback=move || view! {
                    <Show when=move || counts.with(|c| c.total > CHIPS_PER_LANE)>
                        <p class="pod-summary">
                            <button class="control small" on:click=move |_| show_counts.run(())>
                                "Show counts instead"
                            </button>
                        </p>
                    </Show>
                    <ul class="pods" aria-label="Pods">
                        <For
                            each=move || pods.get()
                            key=chip_key
                            children=move |(pod, _)| view! { <PodChip pod session cluster /> }
                        />
                    </ul>
                }
            >
                <p class="pod-summary">
                    {move || counts.with(|c| c.summary())}
                    " "
                    <button class="control small" on:click=move |_| show_all.run(())>
                        {move || format!("Show all {} pods", counts.with(|c| c.total))}
                    </button>
                </p>
            </Show>
        </article>
    }
}

/// The transform that fills a bar to `pct` percent of its track. Written with integers: a
/// float's `Display` would bring the float-printing tables into the app for this one use.
fn scale_x(pct: i64) -> String {
    let pct = pct.clamp(0, 100);
    format!("scaleX({}.{:02})", pct / 100, pct % 100)
}

/// The mark, its words and its class for a probe the container has (`None` for one it has not,
/// which the chip leaves out rather than draw a mark that reads as "no result yet").
fn probe_glyph(letter: &str, mark: ProbeMark) -> Option<(String, &'static str, &'static str)> {
    match mark {
        ProbeMark::Absent => None,
        ProbeMark::Passed => Some((format!("{letter}✓"), "passed", "probe passed")),
        ProbeMark::Failed => Some((format!("{letter}✗"), "failed", "probe failed")),
        ProbeMark::NotRun => Some((format!("{letter}·"), "not run yet", "probe unrun")),
    }
}

/// A pod: readiness glyph, short name, kubectl STATUS, restarts, and each probe's last result.
#[component]
fn PodChip(
    pod: PodView,
    session: Option<RwSignal<Session>>,
    cluster: Memo<ClusterView>,
) -> impl IntoView {
    let (glyph, class) = if pod.terminating {
        ("⊘", "terminating")
    } else if pod.ready {
        ("✓", "ok")
    } else if matches!(pod.status.as_str(), "Pending" | "ContainerCreating") {
        ("…", "pending")
    } else if pod.status == "Running" {
        ("○", "warn")
    } else {
        ("✗", "bad")
    };
    let short = pod
        .name
        .strip_prefix(&format!("{}-", pod.replica_set))
        .unwrap_or(&pod.name)
        .to_string();
    let probes = [
        ("S", "startup", pod.probes.startup),
        ("R", "readiness", pod.probes.readiness),
        ("L", "liveness", pod.probes.liveness),
    ];
    let probe_words: Vec<String> = probes
        .iter()
        .filter_map(|(_, word, mark)| Some(format!("{word} probe {}", probe_glyph("", *mark)?.1)))
        .collect();
    let probe_words = if probe_words.is_empty() {
        "no probes".to_string()
    } else {
        probe_words.join(", ")
    };
    let node = if pod.node.is_empty() {
        "not scheduled".to_string()
    } else {
        format!("on {}", pod.node)
    };
    // A ready pod on a node that went NotReady was marked not Ready by the node controller,
    // which leaves the container statuses as the lost kubelet last wrote them: kubectl's READY
    // column still counts its containers ready. Said here, or the chip and `get pods` seem to
    // disagree. Read once: the chip is drawn anew when the pod's or its node's readiness
    // changes (see `chip_key`).
    let node_lost = !pod.ready
        && cluster.with_untracked(|c| c.nodes.iter().any(|n| n.name == pod.node && !n.ready))
        && session.is_some_and(|s| {
            s.with_untracked(|s| {
                s.timeline
                    .sim()
                    .store()
                    .pods
                    .get(pod.name.as_str())
                    .is_some_and(|p| {
                        !p.status.container_statuses.is_empty()
                            && p.status.container_statuses.iter().all(|c| c.ready)
                    })
            })
        });
    let readiness = if pod.ready {
        "ready"
    } else if node_lost {
        "not ready (its node is NotReady: the node controller marked the pod, while kubectl's READY column keeps the lost kubelet's last report)"
    } else {
        "not ready"
    };
    let label = format!(
        "Pod {}: {}, {readiness}, {} restarts, {node}; {}",
        pod.name, pod.status, pod.restarts, probe_words
    );
    let pod_name = pod.name.clone();
    let can_delete = session.is_some() && !pod.terminating;
    // A pod stuck Terminating (its kubelet gone, or a long grace period) can be force-deleted.
    let can_force = session.is_some() && pod.terminating;
    let force_name = pod.name.clone();
    let running = session.is_some() && pod.status == "Running" && !pod.terminating;
    let (break_name, crash_name) = (pod.name.clone(), pod.name.clone());
    // A pod stuck on a missing ConfigMap or Secret offers the fix: create it. Read reactively:
    // the pod's status (and so its chip's key) stays CreateContainerConfigError for a while
    // after the object is created, or again when a step back removes it.
    let stuck = session.filter(|_| pod.status == "CreateContainerConfigError" && !pod.terminating);
    let stuck_name = pod.name.clone();
    // A memo, so the button is drawn anew only when the answer changes, not on every step.
    let missing = Memo::new(move |_| {
        stuck.and_then(|s| {
            s.with(|s| {
                let store = s.timeline.sim().store();
                let p = store.pods.get(stuck_name.as_str())?;
                p.spec
                    .init_containers
                    .iter()
                    .chain(&p.spec.containers)
                    .filter_map(|c| kubelet::missing_config(store, c))
                    .find(|problem| problem.key.is_none())
            })
        })
    });
    // Describing is offered for the live run's pods only (not for a side-by-side copy's).
    let described = session.and_then(|_| use_context::<DescribedPod>());
    view! {
        <li class=format!("pod {class}") data-testid="pod" data-pod=pod.name.clone()
            data-status=pod.status.clone() data-ready=pod.ready.to_string()
            title=label.clone() aria-label=label>
            {can_delete.then(|| view! {
                <button class="fault" data-testid="delete-pod" title=format!("Break it: kubectl delete pod {pod_name}")
                    aria-label=format!("Delete pod {pod_name}")
                    on:click=move |_| act_on(session, UserAction::DeletePod(pod_name.clone()))>
                    "✂"
                </button>
            })}
            {can_force.then(|| view! {
                <button class="fault" data-testid="force-delete-pod"
                    title=format!("kubectl delete pod {force_name} --force --grace-period=0: the object goes at once, without the kubelet's confirmation")
                    aria-label=format!("Force delete pod {force_name}")
                    on:click=move |_| act_on(session, UserAction::DeletePod(format!("{force_name} --force --grace-period=0")))>
                    "✂!"
                </button>
            })}
            {running.then(|| view! {
                <button class="fault" data-testid="break-readiness" title=format!("Break it: the readiness endpoint of {break_name} stops answering")
                    aria-label=format!("Fail the readiness of pod {break_name}")
                    on:click=move |_| act_on(session, UserAction::BreakReadiness(break_name.clone()))>
                    "R✗"
                </button>
                <button class="fault" data-testid="crash-pod" title=format!("Break it: the container of {crash_name} crashes")
                    aria-label=format!("Crash pod {crash_name}")
                    on:click=move |_| act_on(session, UserAction::CrashPod(crash_name.clone()))>
                    "↯"
                </button>
            })}
            {move || missing.get().map(|problem| {
                // The command line as the action log will show it, before its data is added.
                let command = Command::CreateConfig {
                    secret: problem.secret,
                    name: problem.name.clone(),
                    data: Default::default(),
                }
                .describe();
                let action = if problem.secret {
                    UserAction::CreateSecret(problem.name.clone())
                } else {
                    UserAction::CreateConfigMap(problem.name.clone())
                };
                view! {
                    <button class="fix" data-testid="create-config" title=format!("Fix it: {command}")
                        aria-label=format!("Fix it: {command}")
                        on:click=move |_| act_on(session, action.clone())>
                        // A plain "+": the full-width "＋" has no glyph in Debian's Chromium
                        // fonts and drew as an empty box.
                        "+"
                    </button>
                }
            })}
            <span class="glyph" aria-hidden="true">{glyph}</span>
            {match described {
                Some(DescribedPod(chosen)) => {
                    let name = pod.name.clone();
                    view! {
                        <button class="pod-name describe" data-testid="describe-pod"
                            title=format!("kubectl describe pod {name}")
                            aria-label=format!("Describe pod {name} in the kubectl panel")
                            on:click=move |_| {
                                chosen.set(Some(name.clone()));
                                browser::scroll_into_view("kubectl-describe-pod");
                            }>
                            {short}
                        </button>
                    }
                    .into_any()
                }
                None => view! { <span class="pod-name">{short}</span> }.into_any(),
            }}
            <span class="pod-status">{pod.status.clone()}</span>
            {(pod.restarts > 0).then(|| view! { <span class="restarts">{format!("↻{}", pod.restarts)}</span> })}
            <span class="probes" aria-hidden="true">
                {probes.into_iter().filter_map(|(letter, _, mark)| {
                    let (text, _, class) = probe_glyph(letter, mark)?;
                    Some(view! { <span class=class>{text}</span> })
                }).collect_view()}
            </span>
        </li>
    }
}

/// The taint a node card's fault button sets and removes.
const MAINTENANCE_TAINT: &str = "maintenance=true:NoExecute";

/// The nodes: readiness, cordon, and the CPU, memory and pod slots their pods request.
#[component]
pub fn NodeGrid(cluster: Memo<ClusterView>, session: RwSignal<Session>) -> impl IntoView {
    let nodes = move || cluster.with(|c| c.nodes.clone());
    view! {
        <section class="panel nodes" aria-labelledby="nodes-heading">
            <h2 id="nodes-heading">"Nodes"</h2>
            <ul class="node-grid">
                {move || nodes().into_iter().map(|n| view! { <NodeCard node=n session /> }).collect_view()}
            </ul>
        </section>
    }
}

#[component]
fn NodeCard(node: NodeView, session: RwSignal<Session>) -> impl IntoView {
    let (glyph, word, class) = if !node.ready {
        ("✗", "NotReady", "bad")
    } else if node.unschedulable {
        ("⊘", "Ready,SchedulingDisabled", "warn")
    } else {
        ("✓", "Ready", "ok")
    };
    let cpu = percent_i64(node.milli_cpu_requested, node.milli_cpu_allocatable);
    let mem = percent_i64(node.memory_requested, node.memory_allocatable);
    view! {
        <li class=format!("node {class}") data-testid="node" data-node=node.name.clone()>
            <h3><span class="glyph" aria-hidden="true">{glyph}</span>" "{node.name.clone()}" "<span class="node-status">{word}</span></h3>
            {node.zone.clone().map(|zone| view! {
                <p class="node-meta" data-testid="node-zone"
                    title=format!("label topology.kubernetes.io/zone={zone}")>{format!("zone {zone}")}</p>
            })}
            {node.taints.iter().map(|taint| view! {
                <p class="node-meta" data-testid="node-taint"
                    title="a taint: pods that do not tolerate it are kept off (NoSchedule), sent elsewhere when they can be (PreferNoSchedule), or kept off and evicted (NoExecute)">
                    {format!("taint {taint}")}</p>
            }).collect_view()}
            <Meter label="CPU" pct=cpu text=format!("{}m of {}m", node.milli_cpu_requested, node.milli_cpu_allocatable) />
            <Meter label="Memory" pct=mem text=format!("{}Mi of {}Mi", node.memory_requested >> 20, node.memory_allocatable >> 20) />
            <p class="node-pods">{format!("{} pod{}", node.pods, crate::sim::trace::plural(node.pods))}</p>
            // Outside the fault buttons, so it shows on a projector too.
            {node.drain.clone().map(|note| view! {
                <p class="node-meta" data-testid="node-drain-status">{note}</p>
            })}
            <div class="node-faults">
                {
                    let name = node.name.clone();
                    let (label, action) = if node.unschedulable {
                        ("Uncordon", UserAction::Uncordon(name.clone()))
                    } else {
                        ("Cordon", UserAction::Cordon(name.clone()))
                    };
                    let drain = format!("{name} --ignore-daemonsets");
                    view! {
                        <button class="control small" data-testid="node-cordon"
                            title=format!("kubectl {} {name}", label.to_lowercase())
                            on:click=move |_| act(session, action.clone())>{label}</button>
                        // Offered while the node has pods to evict: a drained node has none.
                        {(node.pods > 0).then(|| view! {
                            <button class="control small" data-testid="node-drain"
                                title=format!("kubectl drain {drain}: cordon the node, then evict its pods")
                                on:click=move |_| act(session, UserAction::Drain(drain.clone()))>"Drain"</button>
                        })}
                    }
                }
                {
                    // A NoExecute taint, as a workshop's maintenance window would set it: the
                    // pods that do not tolerate it are evicted at once.
                    let spec = format!("{} {MAINTENANCE_TAINT}", node.name);
                    let tainted = node.taints.iter().any(|t| t == MAINTENANCE_TAINT);
                    let (label, title, action) = if tainted {
                        (
                            "Remove taint",
                            format!("kubectl taint nodes {}-", spec),
                            UserAction::Untaint(spec.clone()),
                        )
                    } else {
                        (
                            "Taint NoExecute",
                            format!("Break it: kubectl taint nodes {spec}; pods that do not tolerate it are evicted"),
                            UserAction::Taint(spec.clone()),
                        )
                    };
                    view! {
                        <button class="control small fault-button" data-testid="node-taint-toggle"
                            title=title
                            on:click=move |_| act(session, action.clone())>{label}</button>
                    }
                }
                // Between the kubelet stopping and NotReady the fault is already under way:
                // say so rather than offer it again.
                {(node.ready && node.kubelet_down).then(|| view! {
                    <span class="node-note" data-testid="node-kubelet-down">
                        {format!("kubelet stopped: NotReady once {} s pass without its heartbeat", NODE_MONITOR_GRACE_MS / 1000)}
                    </span>
                })}
                {node.kubelet_down.then(|| {
                    let name = node.name.clone();
                    view! {
                        <button class="control small" data-testid="node-restart-kubelet"
                            title=format!("Repair it: {name}'s kubelet starts again; its containers kept running")
                            on:click=move |_| act(session, UserAction::RestartKubelet(name.clone()))>"Restart kubelet"</button>
                    }
                })}
                {(node.ready && !node.kubelet_down).then(|| {
                    let name = node.name.clone();
                    view! {
                        <button class="control small fault-button" data-testid="node-fail"
                            title=format!("Break it: {name}'s kubelet stops; after {} s the node is NotReady", NODE_MONITOR_GRACE_MS / 1000)
                            on:click=move |_| act(session, UserAction::FailNode(name.clone()))>"Make NotReady"</button>
                    }
                })}
            </div>
        </li>
    }
}

/// Runs a fault on the session, when the view has one to act on.
fn act_on(session: Option<RwSignal<Session>>, action: UserAction) {
    if let Some(session) = session {
        act(session, action);
    }
}

/// Runs a fault or command the person clicked; its outcome (or refusal) becomes the notice.
fn act(session: RwSignal<Session>, action: UserAction) {
    try_act(session, action);
}

/// [`act`], saying whether the action ran (`false`: it was refused).
fn try_act(session: RwSignal<Session>, action: UserAction) -> bool {
    if !browser::may_discard_later_actions(session.with_untracked(Session::later_actions)) {
        return false;
    }
    let mut ran = false;
    session.update(|s| match s.act(action) {
        Ok(()) => ran = true,
        Err(e) => s.refuse(e),
    });
    ran
}

/// `n` as a whole percentage of `of`, within 0–100.
fn percent_i64(n: i64, of: i64) -> i64 {
    if of <= 0 {
        0
    } else {
        (n.saturating_mul(100) / of).clamp(0, 100)
    }
}

#[component]
fn Meter(label: &'static str, pct: i64, text: String) -> impl IntoView {
    view! {
        <div class="meter">
            <span class="meter-label">{label}</span>
            <span class="meter-track" role="meter" aria-label=label aria-valuemin="0" aria-valuemax="100"
                aria-valuenow=pct.to_string() aria-valuetext=format!("{pct}% requested: {text}")>
                <span class="meter-fill" style:transform=scale_x(pct)></span>
            </span>
            <span class="meter-text">{format!("{pct}% · {text}")}</span>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::scale_x;

    #[test]
    fn scale_x_writes_the_fraction_with_two_decimals() {
        assert_eq!(scale_x(0), "scaleX(0.00)");
        assert_eq!(scale_x(5), "scaleX(0.05)");
        assert_eq!(scale_x(67), "scaleX(0.67)");
        assert_eq!(scale_x(100), "scaleX(1.00)");
        assert_eq!(scale_x(250), "scaleX(1.00)");
        assert_eq!(scale_x(-3), "scaleX(0.00)");
    }
}
