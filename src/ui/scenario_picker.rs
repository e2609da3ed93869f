//! The scenario picker: a `<select>` over the scenarios bundled with the app.

use leptos::prelude::*;

/// Parses a `<select>` value back into an index of `scenarios`, ignoring anything out of range.
fn parse_choice(value: &str, n_scenarios: usize) -> Option<usize> {
    value.parse().ok().filter(|&idx| idx < n_scenarios)
}

/// Lists `scenarios` by file name and writes the chosen index into `selected`.
///
/// With no bundled scenario the picker stays disabled and says so.
#[component]
pub fn ScenarioPicker(
    /// The bundled scenarios, `(file name, YAML text)`.
    scenarios: &'static [(&'static str, &'static str)],
    /// The index of the chosen scenario; `None` when there is none to choose.
    selected: RwSignal<Option<usize>>,
) -> impl IntoView {
    let on_change = move |ev| {
        if let Some(idx) = parse_choice(&event_target_value(&ev), scenarios.len()) {
            selected.set(Some(idx));
        }
    };
    let options = if scenarios.is_empty() {
        view! { <option value="">"No bundled scenarios yet"</option> }.into_any()
    } else {
        scenarios
            .iter()
            .enumerate()
            .map(|(idx, (name, _))| {
                view! {
                    <option value=idx.to_string() selected=move || selected.get() == Some(idx)>
                        {*name}
                    </option>
                }
            })
            .collect_view()
            .into_any()
    };

    view! {
        <label class="scenario-picker">
            <span>"Scenario"</span>
            <select
                data-testid="scenario-picker"
                disabled=scenarios.is_empty()
                on:change=on_change
            >
                {options}
            </select>
        </label>
    }
}

#[cfg(test)]
mod tests {
    use super::parse_choice;

    #[test]
    fn parse_choice_accepts_indices_in_range() {
        assert_eq!(parse_choice("0", 2), Some(0));
        assert_eq!(parse_choice("1", 2), Some(1));
    }

    #[test]
    fn parse_choice_rejects_out_of_range_and_garbage() {
        assert_eq!(parse_choice("2", 2), None);
        assert_eq!(parse_choice("", 2), None);
        assert_eq!(parse_choice("-1", 2), None);
        assert_eq!(parse_choice("one", 2), None);
    }
}
