//! The Leptos front end: the page on which a person picks a scenario, edits its Deployment and
//! steps through the five stages while the cluster is drawn.
//!
//! The UI only renders what [`crate::sim`] computes. It holds one [`session::Session`] in one
//! signal, derives every panel from it, and changes it only through the session's methods (the
//! commands a person gives). One Effect drives time: the play timer.

mod cluster;
mod controls;
pub mod link;
mod panels;
mod scenario_picker;
pub mod session;
mod spec_editor;

use leptos::ev;
use leptos::prelude::*;
use std::time::Duration;
use wasm_bindgen::JsCast;

use crate::sim::view::ClusterView;
use cluster::{DeploymentPanel, NodeGrid, ReplicaSetLanes};
use controls::{Controls, ShortcutHelp, StageRail};
use panels::{DiagnosisPanel, EventLog, KubectlPanel, Narration};
use scenario_picker::ScenarioPicker;
use session::Session;
use spec_editor::{Editor, SpecEditor};

/// Installs the panic hook and mounts the app on the page's body.
pub fn mount() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show_crash_notice(&info.to_string());
    }));
    leptos::mount::mount_to_body(App);
    // The moment the page can be used, for the measurement script (`./scripts/bench`).
    if let Some(perf) = web_sys::window().and_then(|w| w.performance()) {
        let _ = perf.mark("rolloutscope-interactive");
    }
}

/// Puts a message over the page after a panic: the page and the person's manifest stay where
/// they are, and a link reloads the app. Built with plain DOM calls because the reactive
/// system may be what failed.
fn show_crash_notice(detail: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(body) = doc.body() else { return };
    if doc.get_element_by_id("crash-notice").is_some() {
        return;
    }
    let Ok(notice) = doc.create_element("div") else {
        return;
    };
    notice.set_id("crash-notice");
    notice.set_class_name("crash-notice");
    let _ = notice.set_attribute("role", "alert");
    let _ = notice.set_attribute("data-testid", "crash-notice");
    notice.set_text_content(Some(&format!(
        "⚠ RolloutScope stopped because of an internal error. Your manifest is still in the editor: copy it before you reload. ({detail}) "
    )));
    if let Ok(link) = doc.create_element("a") {
        let _ = link.set_attribute("href", "");
        link.set_text_content(Some("Reload the app"));
        let _ = notice.append_child(&link);
    }
    let _ = body.prepend_with_node_1(&notice);
}

/// The page, or a message when no scenario loads (which the tests rule out for bundled files).
#[component]
pub fn App() -> impl IntoView {
    let query = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default();
    match link::open(&query) {
        Ok(initial) => view! { <Workspace initial /> }.into_any(),
        Err(message) => view! {
            <main class="app">
                <h1>"RolloutScope"</h1>
                <p role="alert">{format!("⚠ The built-in scenario does not load: {message}")}</p>
            </main>
        }
        .into_any(),
    }
}

/// Whether a key press comes from a field where keys mean text, not commands.
fn typing_target(ev: &web_sys::KeyboardEvent) -> bool {
    ev.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"))
}

/// Whether a key press lands on a button or link, where Space and Enter already click.
fn activating_target(ev: &web_sys::KeyboardEvent) -> bool {
    ev.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|el| matches!(el.tag_name().as_str(), "BUTTON" | "A" | "SUMMARY"))
}

#[component]
fn Workspace(initial: Session) -> impl IntoView {
    let editor = Editor::new(initial.manifest_text());
    let session = RwSignal::new(initial);
    let playing = RwSignal::new(false);
    // Steps per second while playing.
    let speed = RwSignal::new(2u32);
    let show_help = RwSignal::new(false);

    let pick = Callback::new(move |idx: usize| {
        playing.set(false);
        match Session::load(idx) {
            Ok(s) => {
                editor.replace_all(s.manifest_text());
                session.set(s);
            }
            Err(e) => session.update(|s| s.notice = Some(e)),
        }
    });

    // The one Effect that drives time: while playing, a timer steps forward at the chosen
    // speed and stops at the end of the run.
    let timer: StoredValue<Option<IntervalHandle>> = StoredValue::new(None);
    Effect::new(move |_| {
        let (on, per_second) = (playing.get(), speed.get().max(1));
        if let Some(handle) = timer.try_update_value(Option::take).flatten() {
            handle.clear();
        }
        if on {
            let tick = move || {
                let more = session.try_update(Session::forward).unwrap_or(false);
                if !more {
                    playing.set(false);
                }
            };
            if let Ok(handle) =
                set_interval_with_handle(tick, Duration::from_millis(1000 / u64::from(per_second)))
            {
                timer.set_value(Some(handle));
            }
        }
    });

    // Keyboard control for the whole page (the buttons say which keys they answer to).
    let keys = window_event_listener(ev::keydown, move |ev: web_sys::KeyboardEvent| {
        if ev.ctrl_key() || ev.meta_key() || ev.alt_key() || typing_target(&ev) {
            return;
        }
        let key = ev.key();
        let handled = match key.as_str() {
            "ArrowRight" | "PageDown" if ev.shift_key() => {
                session.update(Session::next_stage);
                true
            }
            "ArrowLeft" | "PageUp" if ev.shift_key() => {
                session.update(Session::previous_stage);
                true
            }
            "ArrowRight" | "PageDown" => {
                session.update(|s| {
                    s.forward();
                });
                true
            }
            "ArrowLeft" | "PageUp" => {
                session.update(Session::back);
                true
            }
            " " | "k" if !activating_target(&ev) => {
                playing.update(|p| *p = !*p);
                true
            }
            "Home" => {
                session.update(|s| s.seek(0));
                true
            }
            "End" => {
                session.update(Session::run_to_end);
                true
            }
            "?" => {
                show_help.update(|h| *h = !*h);
                true
            }
            "Escape" => {
                show_help.set(false);
                false
            }
            _ => false,
        };
        if handled {
            ev.prevent_default();
            if key != " " && key != "k" && key != "?" {
                playing.set(false);
            }
        }
    });
    on_cleanup(move || keys.remove());

    let cluster = Memo::new(move |_| session.with(|s| ClusterView::of(s.timeline.sim())));
    let description = move || session.with(|s| s.scenario.description.clone());

    view! {
        <main class="app" data-testid="app">
            <header class="app-header">
                <div class="brand">
                    <h1>"RolloutScope"</h1>
                    <p class="tagline">"Step through how a Kubernetes Deployment rolls out."</p>
                </div>
                <ScenarioPicker selected=Signal::derive(move || session.with(|s| s.scenario_idx)) on_pick=pick />
                <p class="scenario-description" data-testid="scenario-description">{description}</p>
            </header>
            <StageRail session playing />
            <Controls session playing speed show_help />
            <ShortcutHelp show_help />
            <div class="workspace">
                <SpecEditor session editor />
                <section class="cluster" aria-label="The cluster">
                    <DeploymentPanel cluster />
                    <ReplicaSetLanes cluster />
                    <NodeGrid cluster />
                </section>
                <aside class="side">
                    <Narration session />
                    <DiagnosisPanel session />
                    <EventLog session />
                    <KubectlPanel session />
                </aside>
            </div>
        </main>
    }
}
