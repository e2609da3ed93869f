//! The Leptos front end: the page that lets a reader pick a bundled scenario and read its trace.
//!
//! The UI only renders what [`crate::sim`] computes. This first shell runs a whole scenario with
//! [`crate::sim::trace_text`] and shows the text; the step-through views come later.

mod scenario_picker;
mod trace_view;

use leptos::prelude::*;

use crate::sim;
use scenario_picker::ScenarioPicker;
use trace_view::TraceView;

/// The whole page: a heading, the scenario picker and the trace of the chosen scenario.
#[component]
pub fn App() -> impl IntoView {
    let scenarios = sim::scenario::BUNDLED;
    // The index into `scenarios` of the chosen one; `None` while nothing is bundled.
    let selected = RwSignal::new((!scenarios.is_empty()).then_some(0));
    // Derived, never synced: the trace is recomputed only when the choice changes.
    let trace = Memo::new(move |_| {
        selected
            .get()
            .and_then(|idx| scenarios.get(idx))
            .map(|(_, yaml)| sim::trace_text(yaml))
    });

    view! {
        <main class="app">
            <header class="app-header">
                <h1>"RolloutScope"</h1>
                <p class="tagline">"Step through how a Kubernetes Deployment rolls out."</p>
            </header>
            <ScenarioPicker scenarios selected />
            <TraceView trace />
        </main>
    }
}
