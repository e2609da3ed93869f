//! The trace view: the readable text trace of one scenario run, or why there is none.

use leptos::prelude::*;

/// Shows a scenario's trace in a `<pre>`, and the simulator's error in an alert when it fails.
///
/// `trace` is `None` when there is no scenario to choose.
#[component]
pub fn TraceView(
    /// The outcome of [`crate::sim::trace_text`] for the chosen scenario.
    trace: Memo<Option<Result<String, String>>>,
) -> impl IntoView {
    let error = move || trace.with(|trace| trace.as_ref()?.as_ref().err().cloned());
    let text = move || {
        // Empty when there is no trace; the stylesheet then says so without adding text.
        trace.with(|trace| match trace {
            Some(Ok(text)) => text.clone(),
            Some(Err(_)) | None => String::new(),
        })
    };

    view! {
        <section class="trace" aria-labelledby="trace-heading">
            <h2 id="trace-heading">"Trace"</h2>
            {move || {
                error()
                    .map(|message| {
                        view! {
                            <p class="trace-error" role="alert" data-testid="trace-error">
                                <span aria-hidden="true">"⚠ "</span>
                                {message}
                            </p>
                        }
                    })
            }}
            <pre data-testid="trace" tabindex="0">{text}</pre>
        </section>
    }
}
