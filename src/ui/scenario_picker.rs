//! The scenario picker: a `<select>` over the scenarios bundled with the app, by title.

use leptos::prelude::*;

use crate::sim::scenario::BUNDLED;

/// Parses a `<select>` value back into an index of the bundled scenarios, ignoring anything out
/// of range.
fn parse_choice(value: &str, n_scenarios: usize) -> Option<usize> {
    value.parse().ok().filter(|&idx| idx < n_scenarios)
}

/// A scenario's title: its `name:` line, or the file name when it has none.
pub fn title_of(file: &str, text: &str) -> String {
    text.lines()
        .find_map(|l| l.strip_prefix("name:"))
        .map(|n| n.trim().trim_matches('"').to_string())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| file.trim_end_matches(".yaml").to_string())
}

/// Lists the bundled scenarios and calls `on_pick` with the chosen index; when it answers
/// `false` (the person kept their run), the list goes back to the scenario shown.
#[component]
pub fn ScenarioPicker(
    /// The index of the scenario shown now; `None` for one a link brought.
    #[prop(into)]
    selected: Signal<Option<usize>>,
    on_pick: Callback<usize, bool>,
) -> impl IntoView {
    let list = NodeRef::<leptos::html::Select>::new();
    let on_change = move |ev| {
        if let Some(idx) = parse_choice(&event_target_value(&ev), BUNDLED.len())
            && !on_pick.run(idx)
            && let Some(list) = list.get_untracked()
        {
            list.set_value(
                &selected
                    .get_untracked()
                    .map_or(String::new(), |i| i.to_string()),
            );
        }
    };
    let options = BUNDLED
        .iter()
        .enumerate()
        .map(|(idx, (file, text))| {
            view! {
                <option value=idx.to_string() data-file=*file selected=move || selected.get() == Some(idx)>
                    {title_of(file, text)}
                </option>
            }
        })
        .collect_view();
    view! {
        <label class="scenario-picker">
            <span>"Scenario"</span>
            <select data-testid="scenario-picker" node_ref=list on:change=on_change>
                <Show when=move || selected.get().is_none()>
                    <option value="" selected>"Scenario from the link"</option>
                </Show>
                {options}
            </select>
        </label>
    }
}

#[cfg(test)]
mod tests {
    use super::{parse_choice, title_of};

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

    #[test]
    fn titles_come_from_the_name_line() {
        assert_eq!(
            title_of("a.yaml", "name: Rolling update\nseed: 1\n"),
            "Rolling update"
        );
        assert_eq!(title_of("a.yaml", "seed: 1\n"), "a");
    }
}
