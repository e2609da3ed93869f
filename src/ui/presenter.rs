//! The presenter's aids: the stage title card that opens each new stage in presenter mode, and
//! the speaker notes — the narration of the current step and a preview of the next — that a
//! second window shows in step with the presenting one.

use leptos::prelude::*;

use super::session::Session;

/// A large card naming the stage, shown on the first step in each stage since the run began or
/// since the last action.
#[component]
pub fn StageCard(session: RwSignal<Session>) -> impl IntoView {
    let card = Memo::new(move |_| {
        session.with(|s| {
            let pos = s.position();
            let steps = s.timeline.steps();
            let here = pos.checked_sub(1).and_then(|i| steps.get(i))?;
            // Only the first step in a stage since the run began, or since the last action
            // (an apply starts a new rollout): a rollout moves back and forth between stages 3
            // and 4 every few steps, and a card each time would keep pushing the pods off a
            // projector's screen.
            let since = s
                .actions
                .iter()
                .map(|(k, _)| *k)
                .filter(|&k| k > 0 && k <= pos)
                .max()
                .map_or(0, |k| k - 1);
            let earlier = steps.get(since..pos - 1)?;
            (!earlier.iter().any(|b| b.stage == here.stage)).then_some(here.stage)
        })
    });
    view! {
        {move || card.get().map(|stage| view! {
            <section class="stage-card" data-testid="stage-card" aria-live="polite">
                <p class="stage-card-number">{format!("Stage {} of 5", stage.number())}</p>
                <h2>{stage.title()}</h2>
                <p>{stage.explanation()}</p>
            </section>
        })}
    }
}

/// What the presenter reads: where the run stands, what the last step did and why, and what
/// comes next.
#[component]
pub fn SpeakerNotes(session: RwSignal<Session>) -> impl IntoView {
    let notes = Memo::new(move |_| {
        session.with(|s| {
            let now = s.current_step().map(|st| {
                (
                    format!(
                        "Step {} · {} · stage {}: {}",
                        st.index,
                        st.time,
                        st.stage.number(),
                        st.stage.title()
                    ),
                    st.narration.clone(),
                )
            });
            let next = s.timeline.next_step().map(|st| {
                format!(
                    "Step {} · stage {} · {} → {}: {}",
                    st.index,
                    st.stage.number(),
                    st.actor,
                    st.object,
                    st.narration
                )
            });
            (s.scenario.name.clone(), now, next)
        })
    });
    view! {
        <section class="speaker-notes" data-testid="speaker-notes" aria-label="Speaker notes">
            <h2>{move || notes.with(|n| format!("Speaker notes — {}", n.0))}</h2>
            <div aria-live="polite">
                {move || notes.with(|n| match &n.1 {
                    Some((head, text)) => view! {
                        <p class="notes-head" data-testid="notes-step">{head.clone()}</p>
                        <p class="notes-text" data-testid="notes-narration">{text.clone()}</p>
                    }.into_any(),
                    None => view! {
                        <p class="notes-head" data-testid="notes-step">"Before the first step"</p>
                        <p class="notes-text" data-testid="notes-narration">"Nothing has run yet."</p>
                    }.into_any(),
                })}
            </div>
            <h3>"Next"</h3>
            <p class="notes-next" data-testid="notes-next">
                {move || notes.with(|n| n.2.clone().unwrap_or_else(|| "The run ends here.".into()))}
            </p>
            <p class="notes-hint">"This window follows the presenting window; open it with ?notes next to a ?present view."</p>
        </section>
    }
}
