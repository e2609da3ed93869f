//! The Leptos front end: the page on which a person picks a scenario, edits its Deployment and
//! steps through the five stages while the cluster is drawn.
//!
//! The UI only renders what [`crate::sim`] computes. It holds one [`session::Session`] in one
//! signal, derives every panel from it, and changes it only through the session's methods (the
//! commands a person gives). One Effect drives time: the play timer.

mod browser;
mod cluster;
mod compare;
mod controls;
pub mod link;
mod panels;
mod predict;
mod presenter;
mod scenario_picker;
pub mod session;
mod spec_editor;

use leptos::ev;
use leptos::prelude::*;
use std::time::Duration;
use wasm_bindgen::JsCast;

use cluster::{DeploymentPanel, NodeGrid, ReplicaSetLanes};
use compare::{CompareView, Pair};
use controls::{Controls, ShortcutHelp, StageRail};
use link::ViewOptions;
use panels::{DiagnosisPanel, EventLog, KubectlPanel, Narration};
use predict::{Predict, PredictPanel};
use presenter::{SpeakerNotes, StageCard};
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

/// Local-storage keys for the person's work: the link of where they were, and the editor text.
const SAVED_LINK: &str = "rolloutscope.link";
const SAVED_EDITOR: &str = "rolloutscope.editor";
/// What a speaker-notes window says on the presenter channel as it opens, so that a presenter
/// already under way sends where it stands (a link, which this never parses as).
const NOTES_HELLO: &str = "notes: hello";

/// The page, or a message when no scenario loads (which the tests rule out for bundled files).
#[component]
pub fn App() -> impl IntoView {
    let query = browser::reloaded_query();
    let view = link::view_options(&query);
    // Presenter type scales the whole page's rem; a class on the root says so once, where a
    // `html:has(.present)` rule made Chromium restyle the document on every step.
    if view.present {
        browser::mark_root("present-mode");
    }
    // A bare address reopens the person's own work where they left it; a link opens what it
    // says. Embeds and notes never read or write the saved work: they belong to someone else.
    let keeps_work = !view.embed && !view.notes;
    let link_query = if keeps_work
        && link::parse_query(&query).is_ok_and(|l| l.scenario.is_none() && l.step.is_none())
    {
        browser::load(SAVED_LINK).unwrap_or_else(|| query.clone())
    } else {
        query.clone()
    };
    match link::open(&link_query) {
        Ok(initial) => {
            // The text in the editor comes back with the moment it was typed at: a reload, or
            // a bare address that reopens the saved work.
            let saved_text = (keeps_work
                && browser::load(SAVED_LINK) == Some(link::session_query(&initial, "")))
            .then(|| browser::load(SAVED_EDITOR))
            .flatten();
            view! { <Workspace initial view saved_text keeps_work query=query.clone() /> }
                .into_any()
        }
        Err(message) => view! {
            <main class="app">
                <h1>"RolloutScope"</h1>
                <p role="alert">{format!("⚠ The built-in scenario does not load: {message}")}</p>
            </main>
        }
        .into_any(),
    }
}

/// Whether a key press belongs to the control it lands on (a text field, a list choosing with
/// ↑ and ↓) rather than to the app's shortcuts.
fn typing_target(ev: &web_sys::KeyboardEvent) -> bool {
    let Some(el) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
    else {
        return false;
    };
    let key = ev.key();
    let arrow = matches!(key.as_str(), "ArrowLeft" | "ArrowRight");
    match el.tag_name().as_str() {
        "TEXTAREA" => true,
        // A closed list takes ← and → as "choose the neighbouring option", which would switch
        // the scenario or the strategy under the person; here they step, as everywhere else.
        // ↑, ↓ and typing still choose.
        "SELECT" => !arrow,
        // On the timeline the shortcuts work as elsewhere: → steps on past the steps found so
        // far (the slider's own arrow would stop at its end), End runs to the end of the run,
        // Space plays. ↑, ↓, Home and the page keys stay the slider's: Home goes to the first
        // step without starting over.
        "INPUT" if el.get_attribute("type").as_deref() == Some("range") => matches!(
            key.as_str(),
            "ArrowUp" | "ArrowDown" | "Home" | "PageUp" | "PageDown"
        ),
        "INPUT" => true,
        _ => false,
    }
}

/// Whether a key press lands on a button or link, where Space and Enter already click.
fn activating_target(ev: &web_sys::KeyboardEvent) -> bool {
    ev.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|el| matches!(el.tag_name().as_str(), "BUTTON" | "A" | "SUMMARY"))
}

/// The pod the learner asked to describe (by its name in a pod chip), shared by the cluster
/// view, which sets it, and the kubectl panel, which prints `kubectl describe pod` for it.
#[derive(Clone, Copy)]
pub struct DescribedPod(pub RwSignal<Option<String>>);

#[component]
fn Workspace(
    initial: Session,
    view: ViewOptions,
    saved_text: Option<String>,
    keeps_work: bool,
    /// The page's query string, whose view options the rewritten address keeps.
    query: String,
) -> impl IntoView {
    let editor = Editor::for_session(&initial);
    // Text typed before a reload comes back over the manifest.
    if let Some(text) = saved_text {
        editor.restore(text);
    }
    let session = RwSignal::new(initial);
    // The editor follows the scenario's own `apply:` actions as the run passes them. Which one
    // is in effect is worked out on every step; the manifest only when that changes.
    let apply_in_effect = Memo::new(move |_| session.with(Session::scenario_apply_in_effect));
    Effect::new(move |_| {
        let apply = apply_in_effect.get();
        let base = session.with_untracked(|s| s.scenario_manifest_of(apply));
        editor.follow_scenario(base);
    });
    // The pod whose `kubectl describe pod` the kubectl panel shows, picked from a pod chip.
    let described = RwSignal::new(None::<String>);
    provide_context(DescribedPod(described));
    let playing = RwSignal::new(false);
    // Steps per second while playing.
    let speed = RwSignal::new(2u32);
    let show_help = RwSignal::new(false);
    let predict = Predict::new(session);
    // The question and the key list open below the stage rail; scrolled down the page, with
    // the controls stuck at the top, they would open out of sight.
    Effect::new(move |_| {
        if predict.on.get() {
            browser::reveal("predict");
        }
    });
    Effect::new(move |_| {
        if show_help.get() {
            browser::reveal("shortcut-help");
        }
    });
    let view_query = link::view_params(&query);

    let load = move |s: Result<Session, String>| {
        playing.set(false);
        described.set(None);
        match s {
            Ok(mut s) => {
                if let Some(lock) = view.lock {
                    s.set_lock(lock);
                }
                editor.show_session(&s);
                session.set(s);
            }
            Err(e) => session.update(|s| s.refuse(e)),
        }
    };
    // Starting over, or switching to another scenario, discards the person's actions: ask
    // first. Reset keeps an apply made before step 1 (it replaced the manifest); another
    // scenario does not.
    let keeps_actions = move |question: &str, counted: fn(usize) -> bool| {
        playing.set(false);
        let has_actions = session.with_untracked(|s| s.actions.iter().any(|(k, _)| counted(*k)));
        !has_actions
            || browser::confirm(&format!(
                "{question} The actions you took during this run (applies, faults) will be discarded."
            ))
    };
    let pick = Callback::new(move |idx: usize| {
        let go = keeps_actions("Switch to another scenario?", |_| true);
        if go {
            load(Session::load(idx));
        }
        go
    });
    let reset = Callback::new(move |()| {
        if keeps_actions("Start over?", |k| k > 0) {
            session.update(Session::reset);
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
                let more = !predict.on.get_untracked()
                    && session.try_update(Session::forward).unwrap_or(false);
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

    // The address bar always reproduces this moment, the saved work follows it, a host page
    // hears of each step, and speaker notes follow the presenter. This Effect writes to the
    // browser, never to a signal.
    let channel = StoredValue::new_local(None::<web_sys::BroadcastChannel>);
    let post = move |text: &str| {
        channel.with_value(|c| {
            if let Some(c) = c {
                browser::post_channel(c, text);
            }
        });
    };
    if view.present || view.notes {
        let listener = browser::listen_channel(move |text| {
            // A notes window opened after the presenter asks where it stands. A window that
            // shows notes only listens, whatever else its address says.
            if view.present && !view.notes {
                if text == NOTES_HELLO {
                    post(&session.with_untracked(|s| link::session_query(s, "")));
                }
                return;
            }
            if !view.notes || text == NOTES_HELLO {
                return;
            }
            // The presenter sends its link; follow it, replaying only when the run changed
            // (another scenario, or an action taken), and otherwise just seeking.
            let Ok(sent) = link::parse_query(&text) else {
                return load(link::open(&text));
            };
            let same_run = session.with_untracked(|s| {
                link::parse_query(&link::session_query(s, "")).is_ok_and(|l| l.same_run(&sent))
            });
            match (same_run, sent.step) {
                (true, Some(step)) => session.update(|s| s.seek(step)),
                _ => load(link::open(&text)),
            }
        });
        channel.set_value(listener);
        if view.notes {
            post(NOTES_HELLO);
        }
    }
    let framed = browser::in_frame();
    let mirror = Mirror {
        session,
        view_query: StoredValue::new(view_query.clone()),
        keeps_work,
        last_write: StoredValue::new(0.0),
        pending: StoredValue::new(None),
        before_write: StoredValue::new(String::new()),
    };
    browser::on_page_hide(move || mirror.flush());

    Effect::new(move |_| {
        // The address bar and saved work follow at most every 250 ms, in an idle moment:
        // browsers throttle rapid history rewrites (and warn), which playing fast would
        // trigger. A pending write is flushed when the page is hidden, so a reload never loses
        // it.
        session.track();
        mirror.throttled_write();
        if view.present {
            post(&session.with(|s| link::session_query(s, "")));
        }
        if framed {
            session.with(|s| {
                let step = s.current_step();
                browser::post_to_host(&browser::step_message(
                    s.position(),
                    step.map_or(0, |st| st.stage.number()),
                    s.now().as_millis(),
                    step.map_or("", |st| st.narration.as_str()),
                ));
            });
        }
    });
    if keeps_work {
        Effect::new(move |_| editor.with_text(|t| browser::save(SAVED_EDITOR, t)));
    }

    // A host page drives an embedded view with messages: {type: "rolloutscope", action, ...}.
    if framed {
        browser::listen_host(move |msg| {
            if browser::field(&msg, "type").as_deref() != Some("rolloutscope") {
                return;
            }
            match browser::field(&msg, "action").as_deref() {
                Some("goto") => {
                    if let Some(n) =
                        browser::field(&msg, "step").and_then(|n| n.parse::<f64>().ok())
                    {
                        let n = n.clamp(0.0, link::MAX_STEP as f64) as usize;
                        session.update(|s| s.seek(n));
                    }
                }
                Some("next") => {
                    session.update(|s| {
                        s.forward();
                    });
                }
                Some("previous") => session.update(Session::back),
                Some("play") => playing.set(true),
                Some("pause") => playing.set(false),
                Some("load") => {
                    let stem = browser::field(&msg, "scenario").unwrap_or_default();
                    match link::parse_query(&format!("scenario={stem}")) {
                        Ok(link::Link {
                            scenario: Some(link::LinkScenario::Bundled(idx)),
                            ..
                        }) => {
                            load(Session::load(idx));
                        }
                        Ok(_) | Err(_) => session.update(|s| {
                            s.notice = Some(format!(
                                "The host page asked for an unknown scenario {:?}.",
                                stem.chars().take(40).collect::<String>()
                            ));
                        }),
                    }
                }
                _ => {}
            }
        });
    }

    // The side-by-side view, while it is open.
    let comparing: RwSignal<Option<RwSignal<Pair>>> = RwSignal::new(None);

    // Keyboard control for the whole page (the buttons say which keys they answer to). In
    // presenter mode Space and a clicker's keys step forward, and `.` plays or pauses.
    let keys = window_event_listener(ev::keydown, move |ev: web_sys::KeyboardEvent| {
        if ev.ctrl_key() || ev.meta_key() || ev.alt_key() || typing_target(&ev) {
            return;
        }
        let key = ev.key();
        // The side-by-side view has its own buttons; the shortcuts would move the run hidden
        // behind it. Escape closes it.
        if comparing.with_untracked(Option::is_some) {
            if key == "Escape" {
                comparing.set(None);
                ev.prevent_default();
            }
            return;
        }
        let forward = move || predict.forward();
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
                forward();
                true
            }
            " " if view.present && !activating_target(&ev) => {
                forward();
                true
            }
            "ArrowLeft" | "PageUp" => {
                session.update(Session::back);
                true
            }
            "." if view.present => {
                playing.update(|p| *p = !*p);
                true
            }
            " " | "k" if !activating_target(&ev) => {
                playing.update(|p| *p = !*p);
                true
            }
            "a" => {
                session.update(Session::next_action);
                true
            }
            "A" => {
                session.update(Session::previous_action);
                true
            }
            "Home" => {
                reset.run(());
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
            digit @ ("1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9") if predict.asking() => {
                predict.answer(digit.parse::<usize>().unwrap_or(1) - 1);
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
            if !matches!(key.as_str(), " " | "k" | "?" | ".") {
                playing.set(false);
            }
        }
    });
    on_cleanup(move || keys.remove());

    // Lanes opened with "Show all": the cluster view then carries their pod rows.
    let expanded: RwSignal<std::collections::BTreeSet<String>> = RwSignal::new(Default::default());
    let cluster = Memo::new(move |_| {
        expanded.with(|e| session.with(|s| cluster::lanes_view(s.timeline.sim(), e)))
    });
    let on_compare = Callback::new(move |(left, right): (String, String)| {
        playing.set(false);
        match session.with_untracked(|s| Pair::new(s, &left, &right)) {
            Ok(pair) => comparing.set(Some(RwSignal::new(pair))),
            Err(e) => session.update(|s| s.refuse(e)),
        }
    });
    let close_compare = Callback::new(move |()| comparing.set(None));
    let description = move || session.with(|s| s.scenario.description.clone());
    let notice = Memo::new(move |_| session.with(|s| s.notice.clone()));
    let full_view = move || {
        format!(
            "{}{}",
            browser::base_url(),
            session.with(|s| link::session_query(s, ""))
        )
    };
    let mode = if view.notes {
        "app notes"
    } else if view.present {
        "app present"
    } else if view.embed {
        "app embed"
    } else {
        "app"
    };

    if view.notes {
        return view! {
            <main class=mode data-testid="app">
                <h1 class="visually-hidden">"RolloutScope"</h1>
                <SpeakerNotes session />
                <p class="notice" data-testid="notice" role="status">{move || notice.get().map(|n| format!("ℹ {n}"))}</p>
            </main>
        }
        .into_any();
    }

    // A read-only view (an embed in docs, say) can be stepped through but not changed: the
    // commands and faults that would change the run are hidden (style.css, `.readonly`).
    let mode = if view.readonly {
        format!("{mode} readonly")
    } else {
        mode.to_string()
    };
    view! {
        <main class=mode data-testid="app">
            <header class="app-header">
                <div class="brand">
                    <h1>"RolloutScope"</h1>
                    <p class="tagline">"Step through how a Kubernetes Deployment rolls out."</p>
                </div>
                <ScenarioPicker selected=Signal::derive(move || session.with(|s| s.scenario_idx)) on_pick=pick />
                <CopyLink full_view=Signal::derive(full_view) />
                {view.embed.then(|| view! {
                    <a class="full-view" data-testid="full-view" href=full_view target="_blank" rel="noopener">
                        "Open full view ↗"
                    </a>
                })}
                <p class="scenario-description" data-testid="scenario-description">{description}</p>
            </header>
            <div class="transport" class:hidden=move || comparing.with(Option::is_some)>
                <StageRail session playing />
                <Controls session playing speed show_help reset predict />
                <PredictPanel predict />
            </div>
            <ShortcutHelp show_help present=view.present />
            {view.present.then(|| view! { <StageCard session /> })}
            {move || comparing.get().map(|pair| view! { <CompareView pair on_close=close_compare /> })}
            <div class="workspace" class:hidden=move || comparing.with(Option::is_some)>
                <SpecEditor session editor readonly=view.readonly collapsed=view.embed on_compare />
                // On a projector the Deployment sits under the narration, beside the pods, so
                // the two columns each flow on their own and one screen holds them.
                <section class="cluster" aria-label="The cluster">
                    {(!view.present).then(|| view! { <DeploymentPanel cluster session=Some(session) /> })}
                    <ReplicaSetLanes cluster expanded session=Some(session) />
                    <NodeGrid cluster session />
                </section>
                <aside class="side">
                    <Narration session />
                    {view.present.then(|| view! { <DeploymentPanel cluster session=Some(session) /> })}
                    <DiagnosisPanel session />
                    <EventLog session />
                    <KubectlPanel session />
                </aside>
            </div>
        </main>
    }
    .into_any()
}

/// Mirrors the session to the address bar and to saved work, no more often than a browser
/// allows history rewrites.
#[derive(Clone, Copy)]
struct Mirror {
    session: RwSignal<Session>,
    view_query: StoredValue<String>,
    keeps_work: bool,
    /// When the last write happened (ms since the page loaded).
    last_write: StoredValue<f64>,
    /// The write that is waiting: for the throttle interval, then for an idle moment.
    pending: StoredValue<Option<browser::Pending>>,
    /// The address as it was before the last write: a reload asked for just before that write
    /// (a throttled one firing as the page goes) starts from it.
    before_write: StoredValue<String>,
}

impl Mirror {
    const INTERVAL_MS: f64 = 250.0;
    /// How long a queued write may wait for an idle moment before it runs anyway.
    const IDLE_TIMEOUT_MS: u32 = 1000;

    /// Writes now.
    fn write(&self) {
        if let Some(p) = self.pending.try_update_value(Option::take).flatten() {
            browser::cancel(p);
        }
        self.last_write.set_value(browser::now_ms());
        let view_query = self.view_query.get_value();
        let Some((q, own)) = self.session.try_with_untracked(|s| {
            (
                link::session_query(s, &view_query),
                link::session_query(s, ""),
            )
        }) else {
            return;
        };
        self.before_write.set_value(browser::query());
        browser::replace_query(&q);
        if self.keeps_work {
            browser::save(SAVED_LINK, &own);
        }
    }

    /// Writes now, as the page is hidden: if a reload is what hides it, it has already taken the
    /// address as it was, so what it should have been is noted for the reloaded page.
    fn flush(&self) {
        let shown = browser::query();
        let before = self.before_write.get_value();
        self.write();
        let meant = browser::query();
        if before.is_empty() || before == shown {
            browser::remember_reload(&[&shown], &meant);
        } else {
            browser::remember_reload(&[&shown, &before], &meant);
        }
    }

    /// Writes once the interval since the last write has passed and the browser is idle. A
    /// write costs a few milliseconds (Chromium redoes the address bar on every history
    /// rewrite), so it waits for an idle moment rather than landing between a click or a drag
    /// of the scrubber and the frame that shows it. A write already queued reads the session
    /// when it runs, so it covers every change made before then.
    fn throttled_write(&self) {
        if self.pending.with_value(Option::is_some) {
            return;
        }
        let since = browser::now_ms() - self.last_write.get_value();
        let wait = Self::INTERVAL_MS - since;
        if wait <= 0.0 {
            self.queue_idle_write();
        } else {
            let this = *self;
            let queued = browser::after(wait as u32, move || this.queue_idle_write());
            self.pending.set_value(queued);
        }
    }

    /// Queues the write for the browser's next idle moment, and at most a second away.
    fn queue_idle_write(&self) {
        let this = *self;
        let queued = browser::when_idle(move || this.write(), Self::IDLE_TIMEOUT_MS);
        match queued {
            Some(p) => self.pending.set_value(Some(p)),
            // No window to wait on: write at once, as nothing can be interrupted.
            None => self.write(),
        }
    }
}

/// "Copy link": puts the link to this exact moment on the clipboard and shows it, selectable,
/// for browsers that do not allow the clipboard.
#[component]
fn CopyLink(full_view: Signal<String>) -> impl IntoView {
    let shown = RwSignal::new(None::<String>);
    view! {
        <div class="copy-link">
            <button class="control" data-testid="copy-link" on:click=move |_| {
                let url = full_view.get_untracked();
                browser::copy_to_clipboard(&url);
                shown.set(Some(url));
            }>"Copy link"</button>
            {move || shown.get().map(|url| view! {
                <label class="copied">
                    <span>"✓ Copied:"</span>
                    <input type="text" readonly data-testid="copied-link" prop:value=url size="30" />
                </label>
            })}
        </div>
    }
}
