//! The spec editor: the Deployment manifest as YAML with line numbers, checked as you type with
//! the API server's field-path errors at their lines; form controls for the fields people
//! tweak most, bound both ways to the text; and "Apply", which acts like `kubectl apply` at the
//! current simulated time and stays disabled while the manifest is invalid.

use leptos::prelude::*;

use super::browser;
use super::session::{Session, UserAction};
use crate::sim::api::Deployment;
use crate::sim::commands::{applied, describe_spec_change, has_active_replica_sets};
use crate::sim::manifest::{self, ManifestError};
use crate::sim::validation;
use serde_json::Value;

/// The editor's text and the scenario text it started from. `version` changes whenever the
/// text is replaced from outside the text area (a form control, revert, another scenario), so
/// the text area is rewritten then and never while the person types into it.
#[derive(Clone, Copy)]
pub struct Editor {
    text: RwSignal<String>,
    base: RwSignal<String>,
    version: RwSignal<u32>,
}

impl Editor {
    pub fn new(base: String) -> Editor {
        Editor {
            text: RwSignal::new(base.clone()),
            base: RwSignal::new(base),
            version: RwSignal::new(0),
        }
    }

    /// A new scenario's manifest: both the text and what "revert" returns to.
    pub fn replace_all(&self, base: String) {
        self.base.set(base.clone());
        self.replace_text(base);
    }

    /// An editor showing a session's manifest ([`Editor::show_session`]).
    pub fn for_session(s: &Session) -> Editor {
        let editor = Editor::new(String::new());
        editor.show_session(s);
        editor
    }

    /// A session's manifest, as its editor shows it: the scenario's, as "revert" returns to, with
    /// the text of the `kubectl apply` in effect at its step, if any, as the sender of a link
    /// saw it.
    pub fn show_session(&self, s: &Session) {
        self.replace_all(s.scenario_manifest_in_effect());
        if let Some(text) = s.last_applied_text() {
            self.restore(text);
        }
    }

    /// Follows the scenario's own manifest as the run passes (or steps back over) an `apply:`
    /// action of the scenario: what "revert" returns to becomes `base`, and the text too while
    /// the person has not changed it.
    pub fn follow_scenario(&self, base: String) {
        if self.base.with_untracked(|b| *b == base) {
            return;
        }
        let untouched = self
            .text
            .with_untracked(|t| self.base.with_untracked(|b| t == b));
        if untouched {
            self.replace_all(base);
        } else {
            self.base.set(base);
        }
    }

    /// Puts back text the person had typed before a reload.
    pub fn restore(&self, text: String) {
        self.replace_text(text);
    }

    /// Reads the current text (tracked).
    pub fn with_text<T>(&self, f: impl FnOnce(&String) -> T) -> T {
        self.text.with(f)
    }

    fn replace_text(&self, text: String) {
        self.text.set(text);
        self.version.update(|v| *v = v.wrapping_add(1));
    }
}

/// The path of the first container, whose image and probes the form edits.
const CONTAINER: &str = "spec.template.spec.containers[0]";

/// The probe timing fields the form offers for each probe the manifest has.
const PROBE_FIELDS: [(&str, &str); 5] = [
    ("initialDelaySeconds", "initial delay (s)"),
    ("periodSeconds", "period (s)"),
    ("timeoutSeconds", "timeout (s)"),
    ("successThreshold", "success threshold"),
    ("failureThreshold", "failure threshold"),
];

/// A form value as the text shows it.
fn shown(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(v) => v.to_string(),
    }
}

/// Said above the changes when the unedited manifest would change the live Deployment.
const DRIFT_NOTE: &str = "The live Deployment has moved on from this manifest: a kubectl command since it was applied (set image, scale, rollout undo …) changed it. Applying the file as it is would change it back:";

/// What the apply preview reads of the session. A step changes the Deployment's status and its
/// pods, seldom anything here, so the preview (a three-way merge and a decode of the merged spec)
/// is worked out again only when this changes, not on every step of a scrub.
#[derive(Clone, Debug, PartialEq)]
struct ApplyContext {
    /// Nothing has run yet.
    at_start: bool,
    /// The live Deployment without its status, which applying never reads.
    live: Option<Deployment>,
    /// Whether the live Deployment has a ReplicaSet that wants pods.
    active: bool,
    /// The manifest applied last: the person's own, else the scenario's in effect.
    last_applied: String,
}

impl ApplyContext {
    fn of(s: &Session) -> ApplyContext {
        let live = s.live_deployment();
        ApplyContext {
            at_start: s.position() == 0,
            active: live.is_some_and(|d| has_active_replica_sets(s.timeline.sim().store(), d)),
            live: live.map(|d| Deployment {
                status: Default::default(),
                ..d.clone()
            }),
            last_applied: s
                .last_applied_text()
                .unwrap_or_else(|| s.scenario_manifest_in_effect()),
        }
    }
}

/// What applying would change, in words, or why it would do nothing.
fn preview(ctx: &ApplyContext, edited: &Deployment) -> (bool, Vec<String>) {
    if ctx.at_start {
        return (
            true,
            vec!["Nothing has run yet: applying replaces the scenario's manifest and starts the run over from it.".into()],
        );
    }
    let Some(live) = &ctx.live else {
        return (
            true,
            vec!["The Deployment does not exist yet: applying creates it.".into()],
        );
    };
    // Compared as apply would leave it (merged with the live object, then defaulted), so the
    // controller's annotations, a pause or a server default are no change.
    let mut defaulted = applied(live, edited);
    validation::set_defaults(&mut defaulted);
    let changes = describe_spec_change(live, &defaulted, ctx.active);
    if changes.is_empty() && live.spec == defaulted.spec {
        (
            false,
            vec![format!(
                "No change: kubectl would print deployment.apps/{} unchanged.",
                live.metadata.name
            )],
        )
    } else if changes.is_empty() {
        (
            true,
            vec!["The spec changes in fields the picture does not show.".into()],
        )
    } else {
        (true, changes)
    }
}

#[component]
pub fn SpecEditor(
    session: RwSignal<Session>,
    editor: Editor,
    /// The manifest can be read but not changed (an embed's `readonly`).
    readonly: bool,
    /// Start folded away (the compact embed layout).
    collapsed: bool,
    /// Opens the side-by-side view: the scenario's own manifest against this text.
    on_compare: Callback<(String, String)>,
) -> impl IntoView {
    let text = editor.text;
    // The text is parsed once per edit; the check and the form fields both read that parse.
    let parsed = Memo::new(move |_| text.with(|t| manifest::parse_document(t)));
    let checked = Memo::new(move |_| {
        parsed.with(|p| match p {
            Ok(doc) => manifest::check_parsed(doc),
            Err(errs) => Err(errs.clone()),
        })
    });
    let form_note: RwSignal<Option<String>> = RwSignal::new(None);
    let apply_error: RwSignal<Option<String>> = RwSignal::new(None);

    let errors = move || checked.with(|c| c.as_ref().err().cloned().unwrap_or_default());
    let error_lines = move || {
        errors()
            .iter()
            .filter_map(|e| e.line)
            .collect::<std::collections::BTreeSet<_>>()
    };
    let dirty = move || text.with(|t| editor.base.with(|b| t != b));
    let context = Memo::new(move |_| session.with(ApplyContext::of));
    let plan = Memo::new(move |_| {
        checked.with(|c| {
            let d = c.as_ref().ok()?;
            context.with(|ctx| {
                // Before the first step the run starts from this manifest anyway: applying it
                // unedited would only start over and add an action to the link.
                if ctx.at_start && !dirty() {
                    return Some((
                        false,
                        vec!["The run starts from this manifest. Edit it (or the fields below), then apply to start the run over from your version.".to_string()],
                    ));
                }
                let (can_apply, mut lines) = preview(ctx, d);
                // The manifest last applied (the person's own, else the scenario's), unedited,
                // and yet applying it would change the Deployment: a command since (`kubectl
                // set image`, `scale`, `rollout undo`) changed the live object, and applying
                // the file again undoes that, as on a real cluster. Said first, so the changes
                // below do not read as the editor's doing.
                if can_apply
                    && !ctx.at_start
                    && ctx.live.is_some()
                    && text.with(|t| *t == ctx.last_applied)
                {
                    lines.insert(0, DRIFT_NOTE.to_string());
                }
                Some((can_apply, lines))
            })
        })
    });
    let can_apply = move || !readonly && plan.with(|p| p.as_ref().is_some_and(|(ok, _)| *ok));

    // Writes one field; says whether it could (else the note says why).
    let set = move |path: String, raw: String| -> bool {
        let value = (!raw.trim().is_empty()).then(|| manifest::yaml_scalar(raw.trim()));
        let current = text.get_untracked();
        match manifest::set_field(&current, &path, value.as_deref()) {
            Some(next) => {
                // An emptied field leaves the manifest, which is easy to miss (a number field
                // that refuses letters empties itself): say what that means.
                let removed = value.is_none() && next != current;
                form_note.set(removed.then(|| {
                    format!("{path} was emptied, so it is removed from the manifest and the API server's default applies.")
                }));
                editor.replace_text(next);
                true
            }
            None => {
                form_note.set(Some(format!(
                    "{path} is written in a form the controls cannot edit (a flow map or a block); change it in the YAML."
                )));
                false
            }
        }
    };
    let strategy_value = move || {
        parsed.with(|d| {
            d.as_ref()
                .ok()
                .map(|d| shown(manifest::value_at(d, "spec.strategy.type")))
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| "RollingUpdate".into())
        })
    };
    let field = move |label: &'static str,
                      path: String,
                      kind: &'static str,
                      placeholder: &'static str| {
        let read_path = path.clone();
        let value = move || {
            parsed.with(|d| {
                d.as_ref()
                    .ok()
                    .map(|d| shown(manifest::value_at(d, &read_path)))
                    .unwrap_or_default()
            })
        };
        let testid = match path.strip_prefix(&format!("{CONTAINER}.")) {
            Some(rest) => format!("field-{}", rest.replace('.', "-")),
            None => format!("field-{}", path.rsplit('.').next().unwrap_or(&path)),
        };
        // maxSurge and maxUnavailable mean nothing to Recreate, which refuses them.
        let rolling_only = path.contains(".rollingUpdate.");
        let disabled = move || readonly || (rolling_only && strategy_value() == "Recreate");
        view! {
            <label class="field">
                <span>{label}</span>
                <input
                    type=kind
                    min=(kind == "number").then_some("0")
                    data-testid=testid
                    placeholder=placeholder
                    disabled=disabled
                    prop:value=value
                    on:change=move |ev| {
                        let input = event_target::<web_sys::HtmlInputElement>(&ev);
                        // What the browser cannot read as a number reaches us as "", which
                        // would remove the field: keep the manifest and say why instead.
                        if input.validity().bad_input() {
                            form_note.set(Some(format!(
                                "{label}: what is typed there is not a number, so the manifest keeps its value; type a whole number, or edit the YAML."
                            )));
                            return;
                        }
                        set(path.clone(), input.value());
                    }
                />
            </label>
        }
    };
    let probes = move || {
        parsed.with(|d| {
            ["readinessProbe", "livenessProbe", "startupProbe"]
                .into_iter()
                .filter(|p| {
                    d.as_ref()
                        .ok()
                        .and_then(|d| manifest::value_at(d, &format!("{CONTAINER}.{p}")))
                        .is_some_and(Value::is_object)
                })
                .collect::<Vec<_>>()
        })
    };

    let on_apply = move |_| {
        if checked.with_untracked(Result::is_err) {
            return;
        }
        if !browser::may_discard_later_actions(session.with_untracked(Session::later_actions)) {
            return;
        }
        let action = UserAction::Apply(text.get_untracked());
        match session.try_update(|s| s.act(action)) {
            Some(Err(e)) => apply_error.set(Some(e)),
            _ => apply_error.set(None),
        }
    };
    let gutter_ref = NodeRef::<leptos::html::Div>::new();
    let on_scroll = move |ev: leptos::ev::Event| {
        let top = event_target::<web_sys::HtmlElement>(&ev).scroll_top();
        if let Some(g) = gutter_ref.get() {
            g.set_scroll_top(top);
        }
    };

    view! {
        <details class="panel spec-editor" data-testid="spec-editor" open=!collapsed>
            <summary><h2 id="spec-heading">{if readonly { "Deployment manifest (read-only)" } else { "Deployment manifest" }}</h2></summary>
            <div class="editor">
                <div class="gutter" aria-hidden="true" node_ref=gutter_ref>
                    {move || {
                        let bad = error_lines();
                        let n = text.with(|t| t.lines().count().max(1));
                        (1..=n).map(|i| {
                            let is_bad = bad.contains(&i);
                            view! { <span class:bad=is_bad>{if is_bad { format!("⚠{i}") } else { i.to_string() }}</span> }
                        }).collect_view()
                    }}
                </div>
                <textarea
                    data-testid="manifest"
                    aria-label="Deployment manifest (YAML)"
                    aria-describedby="manifest-status"
                    aria-invalid=move || if checked.with(Result::is_err) { "true" } else { "false" }
                    spellcheck="false"
                    readonly=readonly
                    wrap="off"
                    prop:value=move || { editor.version.track(); text.get_untracked() }
                    on:input=move |ev| text.set(event_target_value(&ev))
                    on:scroll=on_scroll
                ></textarea>
            </div>
            <div id="manifest-status" class="manifest-status" aria-live="polite" data-testid="manifest-status">
                {move || {
                    let errs: Vec<ManifestError> = errors();
                    if errs.is_empty() {
                        view! { <p class="valid"><span aria-hidden="true">"✓ "</span>"Valid manifest."</p> }.into_any()
                    } else {
                        view! {
                            <p class="invalid"><span aria-hidden="true">"✗ "</span>
                                {format!("{} error{} — fix {} to apply:", errs.len(), if errs.len() == 1 { "" } else { "s" }, if errs.len() == 1 { "it" } else { "them" })}
                            </p>
                            <ul class="field-errors" data-testid="field-errors">
                                {errs.into_iter().map(|e| view! {
                                    <li data-testid="field-error" data-line=e.line.map(|l| l.to_string())>
                                        {e.line.map(|l| format!("line {l}: "))}
                                        <code>{e.message}</code>
                                    </li>
                                }).collect_view()}
                            </ul>
                        }.into_any()
                    }
                }}
            </div>
            <div class="apply-row" hidden=readonly>
                <button class="control primary" data-testid="apply" disabled=move || !can_apply() on:click=on_apply>
                    "kubectl apply"
                </button>
                <button class="control" data-testid="compare-open"
                    title="Run the scenario's own manifest and this one side by side"
                    disabled=move || readonly || !dirty() || checked.with(Result::is_err)
                    on:click=move |_| on_compare.run((editor.base.get_untracked(), text.get_untracked()))>
                    "Compare side by side"
                </button>
                <button class="control" data-testid="revert" disabled=move || !dirty()
                    on:click=move |_| { apply_error.set(None); editor.replace_text(editor.base.get_untracked()); }>
                    "Revert edits"
                </button>
            </div>
            <ul class="apply-preview" data-testid="apply-preview">
                {move || plan.get().map(|(_, lines)| lines.into_iter().map(|l| view! { <li>{l}</li> }).collect_view())}
            </ul>
            {move || apply_error.get().map(|e| view! {
                <p class="apply-error" role="alert" data-testid="apply-error"><span aria-hidden="true">"✗ "</span>{e}</p>
            })}
            <details class="form" open>
                <summary>"Common fields"</summary>
                <div class="fields">
                    {field("replicas", "spec.replicas".into(), "number", "1")}
                    {field("image", format!("{CONTAINER}.image"), "text", "")}
                    <label class="field">
                        <span>"strategy"</span>
                        <select data-testid="field-strategy" disabled=readonly on:change=move |ev| {
                            let strategy = event_target_value(&ev);
                            // Recreate refuses a rollingUpdate block, so it goes with the switch;
                            // when the form cannot remove it, nothing changes and the note says so.
                            if strategy == "Recreate"
                                && !set("spec.strategy.rollingUpdate".into(), String::new())
                            {
                                return;
                            }
                            set("spec.strategy.type".into(), strategy);
                        }>
                            {["RollingUpdate", "Recreate"].into_iter().map(|v| view! {
                                <option value=v selected=move || strategy_value() == v>{v}</option>
                            }).collect_view()}
                        </select>
                    </label>
                    {field("maxSurge", "spec.strategy.rollingUpdate.maxSurge".into(), "text", "25%")}
                    {field("maxUnavailable", "spec.strategy.rollingUpdate.maxUnavailable".into(), "text", "25%")}
                    {field("minReadySeconds", "spec.minReadySeconds".into(), "number", "0")}
                    {field("progressDeadlineSeconds", "spec.progressDeadlineSeconds".into(), "number", "600")}
                </div>
                {move || probes().into_iter().map(|probe| view! {
                    <fieldset class="fields probe-fields">
                        <legend>{probe}</legend>
                        {PROBE_FIELDS.into_iter().map(|(key, label)| {
                            field(label, format!("{CONTAINER}.{probe}.{key}"), "number", "")
                        }).collect_view()}
                    </fieldset>
                }).collect_view()}
                {move || form_note.get().map(|n| view! { <p class="form-note" role="status">{n}</p> })}
            </details>
        </details>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::session::Session;

    /// A step that changes only the Deployment's status leaves the apply preview's context as
    /// it was, so the preview is not worked out again; a template change is a new context.
    #[test]
    fn the_apply_context_ignores_status_and_follows_the_spec() {
        let mut s = Session::load_file("rolling-update.yaml").expect("loads");
        let mut status_only = 0;
        let mut spec_changes = 0;
        for _ in 0..200 {
            let before = (ApplyContext::of(&s), s.live_deployment().cloned());
            s.forward();
            let after = (ApplyContext::of(&s), s.live_deployment().cloned());
            let (Some(old), Some(new)) = (&before.1, &after.1) else {
                continue;
            };
            if old.status != new.status && old.spec == new.spec && old.metadata == new.metadata {
                assert_eq!(before.0, after.0, "at step {}", s.position());
                status_only += 1;
            }
            if old.spec != new.spec {
                assert_ne!(before.0, after.0, "at step {}", s.position());
                spec_changes += 1;
            }
        }
        assert!(status_only > 5, "{status_only} status-only steps");
        assert!(spec_changes >= 1, "{spec_changes} spec changes");
    }

    /// Once the controller has written its revision annotation, the scenario's own manifest is
    /// still no change (apply keeps the controller's annotations), while a new image is.
    #[test]
    fn the_unchanged_manifest_previews_as_no_change() {
        let mut s = Session::load_file("rolling-update.yaml").expect("loads");
        for _ in 0..40 {
            s.forward();
        }
        let live = s.live_deployment().expect("the Deployment exists");
        assert!(
            live.metadata
                .annotations
                .contains_key("deployment.kubernetes.io/revision")
        );
        let manifest = s.scenario.deployment.clone();
        let (can_apply, lines) = preview(&ApplyContext::of(&s), &manifest);
        assert!(!can_apply, "{lines:?}");
        assert_eq!(
            lines,
            ["No change: kubectl would print deployment.apps/web unchanged."]
        );
        let mut edited = manifest;
        edited.spec.template.spec.containers[0].image = "web:2.0".into();
        let (can_apply, lines) = preview(&ApplyContext::of(&s), &edited);
        assert!(can_apply);
        assert_eq!(
            lines,
            ["the pod template changed (image web:1.0 → web:2.0), so a new rollout starts"]
        );
    }
}
