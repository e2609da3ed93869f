//! The controls: the stage rail (the five stages, the current one marked, each a jump target)
//! and the transport bar (step, stage and play buttons, speed, the timeline scrubber, the
//! simulated clock), plus the list of keyboard shortcuts.

use leptos::prelude::*;

use super::browser;
use super::predict::Predict;
use super::session::Session;
use crate::sim::trace::Stage;

/// The five stages in order; the current step's stage is marked with `aria-current` and a
/// "now" badge, and clicking a stage goes to its next step.
#[component]
pub fn StageRail(session: RwSignal<Session>, playing: RwSignal<bool>) -> impl IntoView {
    let current = Memo::new(move |_| session.with(|s| s.current_step().map(|st| st.stage)));
    let shown = move || current.get().unwrap_or(Stage::Declare);
    let stages = Stage::ALL
        .into_iter()
        .map(|stage| {
            let is_current = move || current.get() == Some(stage);
            view! {
                <li>
                    <button
                        class="stage"
                        class:current=is_current
                        data-testid=format!("stage-{}", stage.number())
                        aria-current=move || is_current().then_some("step")
                        title=format!("Go to the next step in stage {}. {}", stage.number(), stage.explanation())
                        on:click=move |_| {
                            playing.set(false);
                            session.update(|s| s.jump_to_stage(stage));
                        }
                    >
                        <span class="stage-number" aria-hidden="true">{stage.number()}</span>
                        <span class="stage-title">{stage.title()}</span>
                        <span class="stage-now" aria-hidden="true">
                            {move || if is_current() { "◀ now" } else { "" }}
                        </span>
                    </button>
                </li>
            }
        })
        .collect_view();
    view! {
        <nav class="stage-rail" aria-label="The five stages">
            <ol>{stages}</ol>
            <p class="stage-explanation" data-testid="stage-explanation">
                <strong>{move || format!("Stage {}: {}. ", shown().number(), shown().title())}</strong>
                {move || shown().explanation()}
            </p>
        </nav>
    }
}

/// A transport button: a glyph for the eye, a word for everyone, the keys in its tooltip.
#[component]
fn ControlButton(
    glyph: &'static str,
    label: &'static str,
    keys: &'static str,
    testid: &'static str,
    #[prop(into)] disabled: Signal<bool>,
    on_press: impl Fn() + 'static,
) -> impl IntoView {
    view! {
        <button
            class="control"
            data-testid=testid
            aria-keyshortcuts=keys
            title=format!("{label} ({keys})")
            disabled=move || disabled.get()
            on:click=move |_| {
                on_press();
                // A button that its own press disabled (Step forward at the end of the run)
                // would drop the keyboard focus to the page: hand it to the timeline, where the
                // arrow keys still step.
                if disabled.get_untracked() {
                    browser::focus("timeline");
                }
            }
        >
            <span aria-hidden="true">{glyph}</span>
            " "
            <span class="control-label">{label}</span>
        </button>
    }
}

/// Step, stage and play buttons, speed, the scrubber over every step discovered so far, and
/// where in the run and in simulated time the view stands.
#[component]
pub fn Controls(
    session: RwSignal<Session>,
    playing: RwSignal<bool>,
    speed: RwSignal<u32>,
    show_help: RwSignal<bool>,
    /// Starts the run over (asking first when it would discard the person's actions).
    reset: Callback<()>,
    /// Predict-then-step, through which every step forward goes.
    predict: Predict,
) -> impl IntoView {
    let position = Memo::new(move |_| session.with(Session::position));
    let known = Memo::new(move |_| session.with(|s| s.known_steps().max(s.position())));
    let bounds = Memo::new(move |_| session.with(Session::bounds));
    let at_end = Memo::new(move |_| session.with(Session::at_end));
    let end_known = Memo::new(move |_| session.with(Session::end_known));
    let now = Memo::new(move |_| session.with(|s| s.now().to_string()));
    let notice = Memo::new(move |_| session.with(|s| s.notice.clone()));
    let refused = Memo::new(move |_| session.with(Session::notice_is_refusal));
    let at_start = Signal::derive(move || position.get() == 0);
    let stop = move || playing.set(false);

    let on_scrub = move |ev| {
        if let Ok(target) = event_target_value(&ev).parse::<usize>() {
            stop();
            session.update(|s| s.seek(target));
        }
    };
    let on_speed = move |ev| {
        if let Ok(v) = event_target_value(&ev).parse::<u32>() {
            speed.set(v.clamp(1, 30));
        }
    };
    let position_text = move || {
        // The steps are simulated as they are first reached, so until the run has gone to its
        // end the count is of the steps so far, not of the whole run.
        let end = if at_end.get() {
            " · ■ end of run"
        } else if end_known.get() {
            ""
        } else {
            " so far"
        };
        format!("Step {} of {}{end}", position.get(), known.get())
    };

    view! {
        <div class="controls" role="toolbar" aria-label="Step through the run">
            <ControlButton glyph="|◀" label="Reset" keys="Home" testid="reset" disabled=at_start
                on_press=move || reset.run(()) />
            <ControlButton glyph="◀◀" label="Previous stage" keys="Shift+ArrowLeft" testid="prev-stage" disabled=at_start
                on_press=move || { stop(); session.update(Session::previous_stage) } />
            <ControlButton glyph="◀" label="Step back" keys="ArrowLeft" testid="step-back" disabled=at_start
                on_press=move || { stop(); session.update(Session::back) } />
            <button
                class="control play"
                data-testid="play"
                aria-keyshortcuts="Space"
                title="Play / pause (Space or k)"
                aria-pressed=move || if playing.get() { "true" } else { "false" }
                disabled=move || (at_end.get() && !playing.get()) || predict.on.get()
                on:click=move |_| playing.update(|p| *p = !*p)
            >
                <span aria-hidden="true">{move || if playing.get() { "❚❚" } else { "▷" }}</span>
                " "
                <span class="control-label">{move || if playing.get() { "Pause" } else { "Play" }}</span>
            </button>
            <ControlButton glyph="▶" label="Step forward" keys="ArrowRight" testid="step-forward" disabled=at_end
                on_press=move || { stop(); predict.forward() } />
            <ControlButton glyph="▶▶" label="Next stage" keys="Shift+ArrowRight" testid="next-stage" disabled=at_end
                on_press=move || { stop(); session.update(Session::next_stage) } />
            <ControlButton glyph="»" label="Next command" keys="a" testid="next-action" disabled=at_end
                on_press=move || { stop(); session.update(Session::next_action) } />
            <ControlButton glyph="▶|" label="End" keys="End" testid="to-end" disabled=at_end
                on_press=move || { stop(); session.update(Session::run_to_end) } />
            <label class="speed">
                <span>"Speed"</span>
                <select data-testid="speed" on:change=on_speed>
                    {[1u32, 2, 4, 8, 16]
                        .into_iter()
                        .map(|v| view! {
                            <option value=v.to_string() selected=move || speed.get() == v>
                                {format!("{v} step{}/s", if v == 1 { "" } else { "s" })}
                            </option>
                        })
                        .collect_view()}
                </select>
            </label>
            <label class="scrubber">
                <span class="visually-hidden">"Timeline"</span>
                <input
                    type="range"
                    id="timeline"
                    data-testid="scrubber"
                    min=move || bounds.get().0.to_string()
                    max=move || bounds.get().1.to_string()
                    prop:value=move || position.get().to_string()
                    aria-valuetext=move || format!("step {} of {}", position.get(), known.get())
                    on:input=on_scrub
                />
            </label>
            <p class="position" data-testid="position" aria-live="off">
                <span data-testid="step-count">{position_text}</span>
                " · "
                <span data-testid="sim-time">{move || format!("t = {}", now.get())}</span>
            </p>
            <button class="control" data-testid="predict-toggle" aria-pressed=move || if predict.on.get() { "true" } else { "false" }
                title="Before each step, predict what it will do"
                on:click=move |_| { stop(); predict.toggle() }>
                {move || if predict.on.get() { "✓ Predicting" } else { "Predict" }}
            </button>
            <button class="control help-toggle" data-testid="help-toggle" aria-keyshortcuts="?"
                aria-expanded=move || if show_help.get() { "true" } else { "false" }
                on:click=move |_| show_help.update(|h| *h = !*h)>
                "? Keys"
            </button>
            // A refusal reads as one in words and glyph, not only in colour.
            <p class="notice" class:refused=move || refused.get() data-testid="notice" role="status">
                {move || notice.get().map(|n| if refused.get() { format!("✗ Refused: {n}") } else { format!("ℹ {n}") })}
            </p>
        </div>
    }
}

/// Every keyboard shortcut, shown with `?`.
#[component]
pub fn ShortcutHelp(show_help: RwSignal<bool>, present: bool) -> impl IntoView {
    const PRESENTER_KEYS: [(&str, &str); 3] = [
        ("Space, → or Page Down (clicker)", "step forward"),
        ("← or Page Up (clicker)", "step back"),
        (".", "play / pause"),
    ];
    const KEYS: [(&str, &str); 11] = [
        ("?", "show or hide this list"),
        ("→ or Page Down", "step forward"),
        ("← or Page Up", "step back"),
        ("Shift + →", "next stage"),
        ("Shift + ←", "previous stage"),
        (
            "a",
            "next kubectl command (the scenario's, yours, or a fault)",
        ),
        ("Shift + A", "previous kubectl command"),
        ("Space or k", "play / pause"),
        ("Home / End", "start over / end of the run"),
        ("1 – 9", "answer a prediction"),
        (
            "Tab",
            "move between controls; Enter or Space presses a button",
        ),
    ];
    view! {
        <Show when=move || show_help.get()>
            <section class="shortcut-help" id="shortcut-help" data-testid="shortcut-help" aria-label="Keyboard shortcuts">
                <h2>"Keyboard shortcuts"</h2>
                <dl>
                    {(if present { &PRESENTER_KEYS[..] } else { &[][..] })
                        .iter()
                        .chain(KEYS.iter())
                        .map(|(k, what)| view! { <dt><kbd>{*k}</kbd></dt><dd>{*what}</dd> })
                        .collect_view()}
                </dl>
                <button class="control" on:click=move |_| show_help.set(false)>"Close"</button>
            </section>
        </Show>
    }
}
