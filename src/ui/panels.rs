//! The reading panels: the narration of the last step, the diagnosis of a stuck rollout, the
//! event log as `kubectl events` lists it, and what `kubectl get` and
//! `kubectl rollout status` would print at this moment.

use leptos::prelude::*;

use super::DescribedPod;
use super::session::Session;
use crate::sim::api::{ConditionReason, EventType};
use crate::sim::diagnosis::{self, Cause};
use crate::sim::kubectl::{self, Moment, Resource};
use crate::sim::kubectl_yaml;

/// Up to this many pods the `kubectl get` table is open without asking.
const AUTO_OPEN_PODS: usize = 100;

/// The most lines of `kubectl get` the panel prints; a big rollout's pods are counted instead.
const KUBECTL_LINES: usize = 120;

/// Keeps the first `max` lines of `text`, saying how many more there were.
fn clip_lines(text: String, max: usize) -> String {
    let total = text.lines().count();
    if total <= max {
        return text;
    }
    let mut out: String = text.lines().take(max).flat_map(|l| [l, "\n"]).collect();
    out.push_str(&format!(
        "… {} more lines (kubectl prints them all)\n",
        total - max
    ));
    out
}

/// The most events the log lists; older ones are counted. Every step rewrites each listed row
/// (the rows shift and their ages move on), so the list is kept to three screens of the log's
/// scroll area: 60 rows were most of a step's layout at 1,000 pods.
const EVENT_ROWS: usize = 30;

/// What the last step did and why, tied to its stage; announced to screen readers.
#[component]
pub fn Narration(session: RwSignal<Session>) -> impl IntoView {
    let step = Memo::new(move |_| session.with(|s| s.current_step().cloned()));
    view! {
        <section class="panel narration" aria-labelledby="narration-heading" data-testid="narration">
            <h2 id="narration-heading">"What just happened"</h2>
            <div aria-live="polite" aria-atomic="true" data-testid="narration-live">
                {move || match step.get() {
                    None => view! {
                        <p class="narration-text" data-testid="narration-text">
                            "Nothing has run yet. Step forward (→) to apply the manifest: stage 1 declares the desired replicas."
                        </p>
                    }.into_any(),
                    Some(st) => view! {
                        <p class="narration-head">
                            <span class=format!("stage-badge stage-{}", st.stage.number())>
                                {format!("Stage {} · {}", st.stage.number(), st.stage.title())}
                            </span>
                        </p>
                        <p class="narration-meta">
                            {format!("Step {} at {} · ", st.index, st.time)}
                            <code>{st.actor.clone()}</code>
                            " → "
                            <code>{st.object.clone()}</code>
                        </p>
                        <p class="narration-text" data-testid="narration-text">{st.narration.clone()}</p>
                        <ul class="step-events">
                            {st.events.iter().map(|e| {
                                let warning = e.type_ == EventType::Warning;
                                view! {
                                    <li class:warning=warning>
                                        <span class="event-type">{if warning { "⚠ Warning" } else { "Normal" }}</span>
                                        " "
                                        <code>{e.reason.as_str()}</code>
                                        " "
                                        {e.message.clone()}
                                        {e.dropped.then(|| view! {
                                            <span class="event-dropped">{crate::sim::trace::DROPPED_NOTE}</span>
                                        })}
                                    </li>
                                }
                            }).collect_view()}
                        </ul>
                    }.into_any(),
                }}
            </div>
        </section>
    }
}

/// Why ready is below desired, or why the rollout is stuck, from the core's diagnosis, with the
/// commands that show it. Shown while fewer pods are ready than wanted or once the progress
/// deadline has passed; opens by itself when the rollout is stuck — the run ended short, or the
/// progress deadline passed — and stays folded while a rollout is just moving, where a
/// diagnosis would alarm for nothing. The diagnosis reads the whole trace, so it is only worked
/// out while the panel is open.
#[component]
pub fn DiagnosisPanel(session: RwSignal<Session>) -> impl IntoView {
    let short = Memo::new(move |_| {
        session.with(|s| {
            let d = s.live_deployment()?;
            let (desired, ready, available) = (
                d.replicas(),
                d.status.ready_replicas,
                d.status.available_replicas,
            );
            let deadline = d
                .status
                .conditions
                .iter()
                .any(|c| c.reason == ConditionReason::ProgressDeadlineExceeded);
            // A rollout can be stuck with every wanted pod ready: the old ones serve while no
            // new one becomes ready (maxUnavailable 0), until the progress deadline says so.
            if ready >= desired && !deadline {
                return None;
            }
            Some((desired, ready, available, deadline || s.at_end()))
        })
    });
    // The person's own choice to open or fold it; `None` follows whether the rollout is stuck.
    let chosen: RwSignal<Option<bool>> = RwSignal::new(None);
    let open =
        move || short.with(|s| s.is_some_and(|(_, _, _, stuck)| chosen.get().unwrap_or(stuck)));
    let found = Memo::new(move |_| {
        if !open() {
            return None;
        }
        session.with(|s| {
            let d = diagnosis::diagnose(s.timeline.sim(), s.past(), s.deployment_name());
            (!matches!(d.verdict.cause, Cause::Healthy | Cause::NotFound)).then_some(d)
        })
    });
    view! {
        <Show when=move || short.with(Option::is_some)>
            <details class="panel diagnosis" data-testid="diagnosis" prop:open=open>
                <summary on:click=move |ev| {
                    ev.prevent_default();
                    chosen.set(Some(!open()));
                }>
                    <h2>{move || short.get().map(|(desired, ready, available, _)| format!(
                        "Diagnosis: {desired} wanted, {ready} ready, {available} available"
                    ))}</h2>
                </summary>
                {move || found.get().map(|d| view! {
                    <p class="verdict">{d.verdict.summary.clone()}</p>
                    <p class="advice">
                        <span aria-hidden="true">{if d.verdict.raising_replicas_helps { "↑ " } else { "✗ " }}</span>
                        {d.verdict.advice.clone()}
                    </p>
                    <ul class="signals">
                        {d.cluster_signals.iter().chain(d.application_signals.iter()).map(|sig| view! {
                            <li class:concern=sig.concern>
                                <span aria-hidden="true">{if sig.concern { "⚠ " } else { "· " }}</span>
                                <code>{sig.command.clone()}</code>
                                " — "
                                {sig.sees.clone()}
                            </li>
                        }).collect_view()}
                    </ul>
                })}
            </details>
        </Show>
    }
}

/// One row of the event log.
#[derive(Clone, Debug, PartialEq)]
struct EventRow {
    last_seen: String,
    warning: bool,
    reason: &'static str,
    object: String,
    message: String,
}

/// The events so far, folded as the event recorder folds repeats, as `kubectl events` lists
/// them: by the time each was last seen, so one that just repeated is at the end, in view.
#[component]
pub fn EventLog(session: RwSignal<Session>) -> impl IntoView {
    let rows = Memo::new(move |_| {
        session.with(|s| {
            let now = s.now();
            let (hidden, records) = s.events(EVENT_ROWS);
            let rows: Vec<EventRow> = records
                .iter()
                .map(|r| EventRow {
                    last_seen: kubectl::events_interval(r, now),
                    warning: r.event.type_ == EventType::Warning,
                    reason: r.event.reason.as_str(),
                    object: kubectl::events_object(r),
                    message: r.event.message.clone(),
                })
                .collect();
            (hidden, rows)
        })
    });
    view! {
        <section class="panel events" aria-labelledby="events-heading" data-testid="event-log">
            <h2 id="events-heading"><code>"kubectl events"</code></h2>
            <div class="event-scroll" tabindex="0" role="region" aria-label="Events, by the time each was last seen, latest last">
                <ol class="event-list">
                    {move || rows.with(|(hidden, rows)| {
                        let older = (*hidden > 0).then(|| view! {
                            <li class="empty">{format!("… {hidden} older events")}</li>
                        });
                        let empty = rows.is_empty().then(|| view! {
                            <li class="empty">"No events yet."</li>
                        });
                        let body = rows.iter().map(|r| view! {
                            <li class="event" class:warning=r.warning data-testid="event-row" data-reason=r.reason>
                                <span class="event-head">
                                    <span class="event-age" title="LAST SEEN">{r.last_seen.clone()}</span>
                                    " "
                                    <span class="event-type">{if r.warning { "⚠ Warning" } else { "Normal" }}</span>
                                    " "
                                    <strong>{r.reason}</strong>
                                    " "
                                    <span class="event-object">{r.object.clone()}</span>
                                </span>
                                <span class="event-message">{r.message.clone()}</span>
                            </li>
                        }).collect_view();
                        (older, empty, body)
                    })}
                </ol>
            </div>
        </section>
    }
}

/// `kubectl get deploy,rs,pods -o wide` and `kubectl rollout status` as they print now, `kubectl
/// get pdb` when there are PodDisruptionBudgets (and, folded, `describe pdb` of the first), and,
/// folded until asked for, `kubectl describe deployment` (the conditions with their reasons and
/// the Deployment's events), `kubectl get deployment -o yaml` (the stored object: defaults,
/// annotations, conditions with their messages and times, observedGeneration), `kubectl describe rs` of the new ReplicaSet (its pods' phases, its
/// conditions and events), `kubectl describe nodes` (each node's pods and allocated resources)
/// and `kubectl rollout history`.
#[component]
pub fn KubectlPanel(session: RwSignal<Session>) -> impl IntoView {
    // The table is worked out only while it is shown: open by itself for a classroom-sized
    // cluster, folded for a big one, where formatting every pod on every step would cost more
    // than the step.
    let n_pods = Memo::new(move |_| session.with(|s| s.timeline.sim().store().pods.len()));
    let chosen: RwSignal<Option<bool>> = RwSignal::new(None);
    let open = move || {
        chosen
            .get()
            .unwrap_or_else(|| n_pods.get() <= AUTO_OPEN_PODS)
    };
    let table = Memo::new(move |_| {
        if !open() {
            return String::new();
        }
        session.with(|s| {
            let m = Moment::new(s.timeline.sim(), s.past());
            let get = kubectl::get(
                &m,
                &[Resource::Deployments, Resource::ReplicaSets, Resource::Pods],
                true,
            );
            clip_lines(get, KUBECTL_LINES)
        })
    });
    let status = Memo::new(move |_| {
        session.with(|s| {
            let name = s.deployment_name();
            format!(
                "$ kubectl rollout status deployment/{name}\n{}",
                kubectl::rollout_status_now(s.timeline.sim(), name, None)
            )
        })
    });
    // Each folded command is printed only while it is open.
    let describe_open = RwSignal::new(false);
    let describe = folded_output(session, describe_open, |m, deployment| {
        kubectl::describe_deployment(m, deployment).unwrap_or_else(|e| e + "\n")
    });
    let yaml_open = RwSignal::new(false);
    let yaml = folded_output(session, yaml_open, |m, deployment| {
        yaml_of(m, Resource::Deployments, deployment)
    });
    let history_open = RwSignal::new(false);
    let history = folded_output(session, history_open, |m, deployment| {
        kubectl::rollout_history(m.sim, deployment, None).unwrap_or_else(|e| e + "\n")
    });
    // The new ReplicaSet, described by name as a learner would after `get rs`; the command is
    // shown once the Deployment has one.
    let new_rs = Memo::new(move |_| {
        session.with(|s| kubectl::new_replica_set_name(s.timeline.sim(), s.deployment_name()))
    });
    let describe_rs_open = RwSignal::new(false);
    let describe_rs = folded_output(session, describe_rs_open, move |m, _| {
        new_rs.get().map_or_else(String::new, |rs| {
            kubectl::describe_replica_set(m, &rs).unwrap_or_else(|e| e + "\n")
        })
    });
    // The PodDisruptionBudgets, when the scenario has any: open, since a drain turns on them.
    let has_budgets =
        Memo::new(move |_| session.with(|s| !s.timeline.sim().store().pdbs.is_empty()));
    let budgets_open = RwSignal::new(true);
    let budgets = folded_output(session, budgets_open, |m, _| {
        kubectl::get(m, &[Resource::PodDisruptionBudgets], false)
    });
    // The first budget, described by name as a learner would after `get pdb`.
    let first_budget =
        Memo::new(move |_| session.with(|s| s.timeline.sim().store().pdbs.keys().next().cloned()));
    let describe_budget_open = RwSignal::new(false);
    let describe_budget = folded_output(session, describe_budget_open, move |m, _| {
        first_budget.get().map_or_else(String::new, |b| {
            kubectl::describe_disruption_budget(m, &b).unwrap_or_else(|e| e + "\n")
        })
    });
    let nodes_open = RwSignal::new(false);
    let nodes = folded_output(session, nodes_open, |m, _| kubectl::describe_nodes(m));
    // `kubectl describe pod` for the pod picked in the cluster view, open once one is picked.
    let chosen_pod = use_context::<DescribedPod>().map(|DescribedPod(p)| p);
    let pod_open = RwSignal::new(true);
    let pod_text = folded_output(session, pod_open, move |m, _| {
        chosen_pod
            .and_then(|p| p.get())
            .map_or_else(String::new, |pod| {
                kubectl::describe_pod(m, &pod).unwrap_or_else(|e| e + "\n")
            })
    });
    // And the same pod as `kubectl get pod -o yaml` prints it, folded until asked for.
    let pod_yaml_open = RwSignal::new(false);
    let pod_yaml = folded_output(session, pod_yaml_open, move |m, _| {
        chosen_pod
            .and_then(|p| p.get())
            .map_or_else(String::new, |pod| yaml_of(m, Resource::Pods, &pod))
    });
    let name = move || session.with(|s| s.deployment_name().to_string());
    view! {
        <section class="panel kubectl" aria-labelledby="kubectl-heading" data-testid="kubectl">
            <h2 id="kubectl-heading">"kubectl, at this moment"</h2>
            <details class="kubectl-get" prop:open=open>
                <summary on:click=move |ev| {
                    ev.prevent_default();
                    chosen.set(Some(!open()));
                }>
                    <code>"$ kubectl get deploy,rs,pods -o wide"</code>
                    {move || (!open()).then(|| format!(" ({} pods; open to print)", n_pods.get()))}
                </summary>
                <pre class="terminal" tabindex="0" data-testid="kubectl-get">{move || table.get()}</pre>
            </details>
            <pre class="terminal" tabindex="0" data-testid="rollout-status">{move || status.get()}</pre>
            {move || has_budgets.get().then(|| view! {
                <FoldedCommand
                    command=Signal::derive(|| "$ kubectl get pdb".to_string())
                    open=budgets_open
                    output=budgets
                    testid="kubectl-get-pdb"
                />
            })}
            {move || first_budget.get().map(|b| view! {
                <FoldedCommand
                    command=Signal::derive(move || format!("$ kubectl describe pdb {b}"))
                    open=describe_budget_open
                    output=describe_budget
                    testid="kubectl-describe-pdb"
                />
            })}
            <FoldedCommand
                command=Signal::derive(move || format!("$ kubectl describe deployment {}", name()))
                open=describe_open
                output=describe
                testid="kubectl-describe"
            />
            <FoldedCommand
                command=Signal::derive(move || format!("$ kubectl get deployment {} -o yaml", name()))
                open=yaml_open
                output=yaml
                testid="kubectl-get-yaml"
            />
            {move || new_rs.get().map(|rs| view! {
                <FoldedCommand
                    command=Signal::derive(move || format!("$ kubectl describe rs {rs}"))
                    open=describe_rs_open
                    output=describe_rs
                    testid="kubectl-describe-rs"
                />
            })}
            {move || chosen_pod.and_then(|p| p.get()).map(|pod| view! {
                <div id="kubectl-describe-pod">
                    <FoldedCommand
                        command=Signal::derive({
                            let pod = pod.clone();
                            move || format!("$ kubectl describe pod {pod}")
                        })
                        open=pod_open
                        output=pod_text
                        testid="kubectl-describe-pod"
                    />
                    <FoldedCommand
                        command=Signal::derive(move || format!("$ kubectl get pod {pod} -o yaml"))
                        open=pod_yaml_open
                        output=pod_yaml
                        testid="kubectl-get-pod-yaml"
                    />
                </div>
            })}
            <FoldedCommand
                command=Signal::derive(|| "$ kubectl describe nodes".to_string())
                open=nodes_open
                output=nodes
                testid="kubectl-describe-nodes"
            />
            <FoldedCommand
                command=Signal::derive(move || format!("$ kubectl rollout history deployment/{}", name()))
                open=history_open
                output=history
                testid="kubectl-history"
            />
        </section>
    }
}

/// `kubectl get <kind> <name> -o yaml` at the moment shown, or its error.
fn yaml_of(m: &Moment<'_>, kind: Resource, name: &str) -> String {
    match kubectl_yaml::get(m, &[(kind, Some(name))]) {
        Ok((text, missing)) if missing.is_empty() => text,
        Ok((_, missing)) => missing.join("\n") + "\n",
        Err(e) => e + "\n",
    }
}

/// The output of a folded kubectl command: printed from the moment shown (and the Deployment's
/// name) while `open` is set, empty otherwise, so that a folded command costs nothing per step.
fn folded_output(
    session: RwSignal<Session>,
    open: RwSignal<bool>,
    print: impl Fn(&Moment<'_>, &str) -> String + Send + Sync + 'static,
) -> Memo<String> {
    Memo::new(move |_| {
        if !open.get() {
            return String::new();
        }
        session.with(|s| {
            let m = Moment::new(s.timeline.sim(), s.past());
            print(&m, s.deployment_name())
        })
    })
}

/// A kubectl command folded under its command line; `output` is worked out by the caller only
/// while `open` is set, so a folded command costs nothing per step.
#[component]
fn FoldedCommand(
    command: Signal<String>,
    open: RwSignal<bool>,
    output: Memo<String>,
    testid: &'static str,
) -> impl IntoView {
    view! {
        <details class="kubectl-get" prop:open=move || open.get()>
            <summary on:click=move |ev| {
                ev.prevent_default();
                open.update(|o| *o = !*o);
            }>
                <code>{move || command.get()}</code>
            </summary>
            <pre class="terminal" tabindex="0" data-testid=testid>{move || output.get()}</pre>
        </details>
    }
}
