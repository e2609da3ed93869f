//! Predict-then-step: before a step, a question about what it will do — whether a ReplicaSet
//! is scaled up or down and to how many, or which stage and which controller act next — asked
//! from the step the timeline already knows, then checked against what happened, with why.

use leptos::prelude::*;

use super::session::Session;
use crate::sim::api::EventReason;
use crate::sim::trace::{Stage, Step};

/// A question about the next step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Question {
    /// The step it is about (1-based).
    pub step: usize,
    pub prompt: String,
    pub options: Vec<String>,
    /// The index of the right option.
    pub answer: usize,
}

/// What the learner answered and whether it was right, with the step's own narration as why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub right: bool,
    pub told: String,
}

/// The learner's running score.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Score {
    pub right: u32,
    pub asked: u32,
}

/// A scaling event's direction and sizes: `Scaled up replica set web-5d9f from 0 to 3`.
fn scaling(step: &Step) -> Option<(bool, String, i64, i64)> {
    let e = step
        .events
        .iter()
        .find(|e| e.reason == EventReason::ScalingReplicaSet)?;
    // The recorder may have sent it combined with similar ones; the wording follows the prefix.
    let message = e
        .message
        .strip_prefix(crate::sim::recorder::COMBINED_PREFIX)
        .unwrap_or(&e.message);
    let rest = message.strip_prefix("Scaled ")?;
    let (up, rest) = match rest.split_once(" replica set ")? {
        ("up", r) => (true, r),
        ("down", r) => (false, r),
        _ => return None,
    };
    let (name, rest) = rest.split_once(" from ")?;
    let (from, to) = rest.split_once(" to ")?;
    let to = to.split_whitespace().next()?;
    Some((up, name.to_string(), from.parse().ok()?, to.parse().ok()?))
}

/// The actor families a learner can tell apart.
const ACTORS: [&str; 4] = [
    "the deployment controller",
    "the ReplicaSet controller",
    "the scheduler",
    "a kubelet",
];

fn actor_family(actor: &str) -> Option<usize> {
    match actor {
        "deployment-controller" => Some(0),
        "replicaset-controller" => Some(1),
        "default-scheduler" => Some(2),
        a if a.starts_with("kubelet/") => Some(3),
        _ => None,
    }
}

/// The question to ask before `next`. A scaling step asks for the new size (the heart of the
/// rolling-update arithmetic); any other controller step asks who acts; commands ask the stage.
pub fn question_for(next: &Step) -> Question {
    if let Some((up, name, from, to)) = scaling(next) {
        // Offer the right size among its neighbours, in order, so a guess has to be reasoned.
        let mut sizes: Vec<i64> = [to - 2, to - 1, to, to + 1, to + 2]
            .into_iter()
            .filter(|n| *n >= 0 && *n != from)
            .collect();
        sizes.dedup();
        let answer = sizes.iter().position(|n| *n == to).unwrap_or(0);
        return Question {
            step: next.index,
            prompt: format!(
                "The deployment controller is about to scale {} {name} (now {from}). To how many replicas?",
                if up { "up" } else { "down" }
            ),
            options: sizes.iter().map(ToString::to_string).collect(),
            answer,
        };
    }
    if let Some(answer) = actor_family(&next.actor) {
        return Question {
            step: next.index,
            prompt: "Who acts next?".to_string(),
            options: ACTORS.iter().map(|a| (*a).to_string()).collect(),
            answer,
        };
    }
    Question {
        step: next.index,
        prompt: "Which stage is the next step in?".to_string(),
        options: Stage::ALL
            .iter()
            .map(|s| format!("{} {}", s.number(), s.title()))
            .collect(),
        answer: Stage::ALL
            .iter()
            .position(|s| *s == next.stage)
            .unwrap_or(0),
    }
}

/// Checks an answer against the step that then happened.
pub fn judge(q: &Question, choice: usize, happened: &Step) -> Verdict {
    let right = choice == q.answer;
    let truth = q.options.get(q.answer).cloned().unwrap_or_default();
    let told = if right {
        format!("✓ Right: {truth}. {}", happened.narration)
    } else {
        format!("✗ Not quite: it was {truth}. {}", happened.narration)
    };
    Verdict { right, told }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaling_steps_ask_for_the_new_size_and_others_for_the_actor() {
        let mut s = Session::load_file("rolling-update.yaml").expect("loads");
        s.run_to_end();
        let steps = s.timeline.steps().to_vec();
        let mut sizes = 0;
        for step in &steps {
            let q = question_for(step);
            assert!(q.answer < q.options.len(), "{q:?}");
            assert_eq!(q.step, step.index);
            if let Some((_, _, _, to)) = scaling(step) {
                sizes += 1;
                assert_eq!(q.options[q.answer], to.to_string());
            }
            assert!(judge(&q, q.answer, step).right);
            assert!(!judge(&q, q.answer + 1, step).right);
        }
        // The rolling update scales the new ReplicaSet up and the old one down several times.
        assert!(sizes >= 4, "{sizes}");
    }

    /// A scaling event the recorder sent combined (`(combined from similar events): Scaled …`)
    /// still asks for the new size.
    #[test]
    fn a_combined_scaling_event_is_read_too() {
        let mut s = Session::load_file("scale-during-rollout.yaml").expect("loads");
        s.run_to_end();
        let scaling_steps: Vec<&Step> = s
            .timeline
            .steps()
            .iter()
            .filter(|st| {
                st.events
                    .iter()
                    .any(|e| e.reason == EventReason::ScalingReplicaSet)
            })
            .collect();
        assert!(scaling_steps.iter().any(|st| {
            st.events
                .iter()
                .any(|e| e.message.starts_with(crate::sim::recorder::COMBINED_PREFIX))
        }));
        for st in scaling_steps {
            assert!(scaling(st).is_some(), "{st}");
        }
    }

    #[test]
    fn the_scaling_message_is_read_exactly() {
        let mut s = Session::load(0).expect("loads");
        s.run_to_end();
        let found = s
            .timeline
            .steps()
            .iter()
            .find_map(scaling)
            .expect("a scaling step");
        assert!(found.3 >= 0 && !found.1.is_empty());
    }
}

/// The predict-then-step panel: the question before the step, the answer buttons (also keys 1
/// to 5), and after the step whether the answer was right and why.
#[component]
pub fn PredictPanel(predict: Predict) -> impl IntoView {
    view! {
        <Show when=move || predict.on.get()>
            <section class="panel predict" id="predict" data-testid="predict" aria-labelledby="predict-heading">
                <h2 id="predict-heading">
                    "Predict the next step "
                    <span class="score" data-testid="predict-score">{move || {
                        let s = predict.score.get();
                        format!("({} of {} right)", s.right, s.asked)
                    }}</span>
                </h2>
                {move || match predict.pending.get() {
                    Some(q) => view! {
                        <p class="predict-prompt" data-testid="predict-prompt">{q.prompt.clone()}</p>
                        <div class="predict-options" role="group" aria-label="Your prediction">
                            {q.options.iter().enumerate().map(|(i, o)| view! {
                                <button class="control" data-testid="predict-option"
                                    aria-keyshortcuts=(i < 9).then(|| (i + 1).to_string())
                                    on:click=move |_| predict.answer(i)>
                                    {format!("{} · {o}", i + 1)}
                                </button>
                            }).collect_view()}
                        </div>
                    }.into_any(),
                    None => view! {
                        <p class="predict-prompt">"Press Step forward (→) to be asked about the next step."</p>
                    }.into_any(),
                }}
                <p class="predict-verdict" data-testid="predict-verdict" aria-live="polite">
                    {move || predict.verdict.get().map(|v| v.told)}
                </p>
            </section>
        </Show>
    }
}

/// The state of predict-then-step, and the one way to step forward while it is on.
#[derive(Clone, Copy)]
pub struct Predict {
    pub on: RwSignal<bool>,
    pending: RwSignal<Option<Question>>,
    verdict: RwSignal<Option<Verdict>>,
    score: RwSignal<Score>,
    session: RwSignal<Session>,
}

impl Predict {
    pub fn new(session: RwSignal<Session>) -> Predict {
        Predict {
            on: RwSignal::new(false),
            pending: RwSignal::new(None),
            verdict: RwSignal::new(None),
            score: RwSignal::new(Score::default()),
            session,
        }
    }

    /// Step forward: straight on when predicting is off; otherwise ask first, and while a
    /// question is open, do nothing until it is answered.
    pub fn forward(&self) {
        if !self.on.get_untracked() {
            self.session.update(|s| {
                s.forward();
            });
            return;
        }
        if self.pending.with_untracked(Option::is_some) {
            return;
        }
        let next = self.session.try_update(|s| s.peek_next()).flatten();
        match next {
            Some(step) => {
                self.verdict.set(None);
                self.pending.set(Some(question_for(&step)));
            }
            None => self.session.update(|s| {
                s.forward();
            }),
        }
    }

    /// Answers the open question with option `choice`, takes the step and judges.
    pub fn answer(&self, choice: usize) {
        let Some(q) = self.pending.get_untracked() else {
            return;
        };
        if choice >= q.options.len() {
            return;
        }
        self.session.update(|s| {
            s.forward();
        });
        let happened = self.session.with_untracked(|s| s.current_step().cloned());
        if let Some(step) = happened.filter(|st| st.index == q.step) {
            let v = judge(&q, choice, &step);
            self.score.update(|s| {
                s.asked += 1;
                s.right += u32::from(v.right);
            });
            self.verdict.set(Some(v));
        }
        self.pending.set(None);
    }

    /// Whether a question waits for an answer.
    pub fn asking(&self) -> bool {
        self.pending.with_untracked(Option::is_some)
    }

    /// Turns the mode off, dropping any open question.
    pub fn toggle(&self) {
        self.on.update(|o| *o = !*o);
        self.pending.set(None);
        self.verdict.set(None);
    }
}
