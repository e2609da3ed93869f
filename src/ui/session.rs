//! The session: what one person is doing in the app — the chosen scenario, its timeline and
//! where they stand in it — as a plain model. The UI holds it in one signal and changes it only
//! through these methods, so all of it is tested natively, without a browser.

use crate::sim::api::{Deployment, Time};
use crate::sim::commands::Command;
use crate::sim::engine::TimedCommand;
use crate::sim::manifest;
use crate::sim::scenario::{BUNDLED, Scenario};
use crate::sim::timeline::Timeline;
use crate::sim::trace::{Stage, Step};

/// How far a stage jump may look ahead for a step it has not discovered yet.
const STAGE_SEARCH_LIMIT: usize = 20_000;

/// One person's run of one scenario.
#[derive(Clone, Debug)]
pub struct Session {
    /// The index into [`BUNDLED`] of the chosen scenario; `None` for one a link brought.
    pub scenario_idx: Option<usize>,
    /// The scenario file's text.
    pub source: String,
    /// The scenario as loaded, or with the manifest the person applied before step 1.
    pub scenario: Scenario,
    pub timeline: Timeline,
    /// What the last action the person asked for did, or why it did nothing.
    pub notice: Option<String>,
}

impl Session {
    /// Loads the bundled scenario at `idx` (the first one when `idx` is out of range), at its
    /// start.
    ///
    /// # Errors
    /// The scenario's problems, when a bundled file fails to load.
    pub fn load(idx: usize) -> Result<Session, String> {
        let idx = if idx < BUNDLED.len() { idx } else { 0 };
        let (_, text) = BUNDLED.get(idx).ok_or("no scenario is bundled")?;
        Session::from_text(Some(idx), text)
    }

    /// Loads a scenario from its text, at its start.
    ///
    /// # Errors
    /// The scenario's problems, one per line.
    pub fn from_text(idx: Option<usize>, text: &str) -> Result<Session, String> {
        let scenario = Scenario::parse(text).map_err(|errs| {
            errs.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        })?;
        Ok(Session {
            scenario_idx: idx,
            source: text.to_string(),
            timeline: Timeline::of(&scenario),
            scenario,
            notice: None,
        })
    }

    /// The Deployment manifest as the scenario file writes it, for the editor.
    pub fn manifest_text(&self) -> String {
        manifest::extract_block(&self.source, "deployment").unwrap_or_default()
    }

    /// Steps taken so far.
    pub fn position(&self) -> usize {
        self.timeline.position()
    }

    /// The steps the scrubber spans: all discovered so far.
    pub fn known_steps(&self) -> usize {
        self.timeline.steps().len()
    }

    /// Whether the run is known to end at the current position.
    pub fn at_end(&self) -> bool {
        self.timeline.known_end() == Some(self.position())
    }

    /// The step that led here, if any.
    pub fn current_step(&self) -> Option<&Step> {
        self.timeline.current_step()
    }

    /// The steps up to the current position (the past as kubectl would see it).
    pub fn past(&self) -> &[Step] {
        let steps = self.timeline.steps();
        &steps[..self.position().min(steps.len())]
    }

    /// The simulated time now.
    pub fn now(&self) -> Time {
        self.timeline.sim().now()
    }

    /// The Deployment's name.
    pub fn deployment_name(&self) -> &str {
        &self.scenario.deployment.metadata.name
    }

    /// One step forward. Returns whether there was one.
    pub fn forward(&mut self) -> bool {
        self.notice = None;
        self.timeline.forward().is_some()
    }

    /// One step back (nothing at the start).
    pub fn back(&mut self) {
        self.notice = None;
        let pos = self.position();
        if pos > 0 {
            self.timeline.seek(pos - 1);
        }
    }

    /// Goes to the state after `target` steps.
    pub fn seek(&mut self, target: usize) {
        self.notice = None;
        self.timeline.seek(target);
    }

    /// Goes to the end of the run, discovering it (at most [`STAGE_SEARCH_LIMIT`] steps ahead).
    pub fn run_to_end(&mut self) {
        self.notice = None;
        let pos = self.position();
        let target = match self.timeline.known_end() {
            Some(end) => end,
            None => pos + STAGE_SEARCH_LIMIT,
        };
        self.timeline.seek(target);
        if self.timeline.known_end().is_none() {
            self.notice = Some(format!(
                "The run goes on past {STAGE_SEARCH_LIMIT} more steps; this is as far as one jump goes."
            ));
        }
    }

    /// Back to the start of the run, keeping any manifest applied before step 1.
    pub fn reset(&mut self) {
        self.notice = None;
        self.timeline = Timeline::of(&self.scenario);
    }

    /// The stage of the step at 1-based `index`, discovering steps up to it when needed.
    fn stage_of(&mut self, index: usize) -> Option<Stage> {
        if index > self.timeline.steps().len() {
            let pos = self.position();
            self.timeline.seek(index);
            self.timeline.seek(pos);
        }
        self.timeline
            .steps()
            .get(index.checked_sub(1)?)
            .map(|s| s.stage)
    }

    /// Goes to the next step (after the current one) in `stage`, looking ahead as far as
    /// needed. Says so and stays put when there is none.
    pub fn jump_to_stage(&mut self, stage: Stage) {
        let start = self.position() + 1;
        for index in start..start + STAGE_SEARCH_LIMIT {
            match self.stage_of(index) {
                Some(s) if s == stage => {
                    self.seek(index);
                    return;
                }
                Some(_) => {}
                None => break,
            }
        }
        self.notice = Some(format!("No later step is in stage {stage}."));
    }

    /// Goes to the first step of the next run of steps in another stage than the current one.
    pub fn next_stage(&mut self) {
        let here = self.current_step().map(|s| s.stage);
        let start = self.position() + 1;
        for index in start..start + STAGE_SEARCH_LIMIT {
            match self.stage_of(index) {
                Some(s) if Some(s) != here => {
                    self.seek(index);
                    return;
                }
                Some(_) => {}
                None => {
                    // The rest of the run stays in this stage: go to its end.
                    self.seek(index - 1);
                    return;
                }
            }
        }
    }

    /// Goes back to the first step of the current run of same-stage steps, or, when already
    /// there, to the first step of the run before it.
    pub fn previous_stage(&mut self) {
        let steps = self.timeline.steps();
        let mut i = self.position();
        let Some(here) = i.checked_sub(1).and_then(|k| steps.get(k)).map(|s| s.stage) else {
            return;
        };
        // Walk back over the current run; if we are at its start, walk over the previous one.
        let run_start = |mut i: usize, stage: Stage| {
            while i > 1 && steps[i - 2].stage == stage {
                i -= 1;
            }
            i
        };
        let start = run_start(i, here);
        if start < i {
            i = start;
        } else if start > 1 {
            let prev = steps[start - 2].stage;
            i = run_start(start - 1, prev);
        }
        self.seek(i);
    }

    /// Applies an edited manifest, as `kubectl apply -f` would at the current simulated time.
    /// Before step 1 nothing has run yet, so the manifest replaces the scenario's own and the
    /// run starts over from it. Returns what happened, for the notice.
    ///
    /// # Errors
    /// The API server's refusal (an immutable field changed, …); nothing changes then.
    pub fn apply_manifest(&mut self, deployment: Deployment) -> Result<(), String> {
        if self.position() == 0 {
            let mut scenario = self.scenario.clone();
            let apply = TimedCommand {
                at: Time::ZERO,
                command: Command::Apply(Box::new(deployment.clone())),
            };
            match scenario.actions.first_mut() {
                Some(first) if matches!(first.command, Command::Apply(_)) => *first = apply,
                _ => scenario.actions.insert(0, apply),
            }
            scenario.deployment = deployment;
            self.scenario = scenario;
            self.reset();
            self.notice = Some(
                "The edited manifest replaces the scenario's: the run starts over from it.".into(),
            );
            return Ok(());
        }
        match self.timeline.apply(Command::Apply(Box::new(deployment))) {
            Ok(step) => {
                self.notice = Some(format!("Applied at {}: {}", step.time, step.narration));
                Ok(())
            }
            Err(e) => {
                let mut message = e.message.clone();
                for fe in &e.field_errors {
                    message.push_str(&format!("\n* {fe}"));
                }
                Err(message)
            }
        }
    }

    /// The Deployment as the cluster holds it now (`None` before it is created).
    pub fn live_deployment(&self) -> Option<&Deployment> {
        self.timeline.sim().deployment(self.deployment_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rolling() -> Session {
        let idx = BUNDLED
            .iter()
            .position(|(f, _)| *f == "rolling-update.yaml")
            .expect("bundled");
        Session::load(idx).expect("loads")
    }

    #[test]
    fn every_bundled_scenario_loads() {
        for idx in 0..BUNDLED.len() {
            let s = Session::load(idx).expect("loads");
            assert_eq!(s.position(), 0);
        }
    }

    #[test]
    fn back_after_forward_restores_the_same_state() {
        let mut s = rolling();
        for _ in 0..30 {
            assert!(s.forward());
        }
        let at_30 = crate::sim::view::ClusterView::of(s.timeline.sim());
        s.forward();
        s.back();
        assert_eq!(s.position(), 30);
        assert_eq!(crate::sim::view::ClusterView::of(s.timeline.sim()), at_30);
    }

    #[test]
    fn run_to_end_finds_the_end_of_the_run() {
        let mut s = rolling();
        s.run_to_end();
        assert!(s.at_end());
        assert_eq!(s.position(), 172);
        assert!(!s.forward());
        s.seek(10);
        s.run_to_end();
        assert_eq!(s.position(), 172);
    }

    #[test]
    fn stage_jumps_land_on_steps_of_that_stage() {
        let mut s = rolling();
        s.jump_to_stage(Stage::Readiness);
        assert_eq!(s.current_step().map(|st| st.stage), Some(Stage::Readiness));
        let here = s.position();
        s.next_stage();
        assert!(s.position() > here);
        assert_ne!(s.current_step().map(|st| st.stage), Some(Stage::Readiness));
        s.previous_stage();
        // Back at the first step of the Readiness run it left.
        assert_eq!(s.position(), here);
        s.jump_to_stage(Stage::Declare);
        // The only Declare steps are the first apply and the set_image at 60 s.
        assert_eq!(
            s.current_step().map(|st| st.actor.as_str()),
            Some("kubectl")
        );
    }

    #[test]
    fn previous_stage_walks_back_run_by_run() {
        let mut s = rolling();
        s.seek(40);
        let steps = s.timeline.steps().to_vec();
        s.previous_stage();
        let p = s.position();
        assert!((1..=40).contains(&p));
        // The step before the run start is in another stage.
        if p > 1 {
            assert_ne!(steps[p - 2].stage, steps[p - 1].stage);
        }
        assert_eq!(steps[p - 1].stage, steps[39].stage);
    }

    #[test]
    fn applying_before_step_one_replaces_the_manifest() {
        let mut s = rolling();
        let text = s.manifest_text();
        let edited = manifest::set_field(&text, "spec.replicas", Some("4")).expect("set");
        let d = manifest::check(&edited).expect("valid");
        s.apply_manifest(d).expect("applies");
        assert_eq!(s.position(), 0);
        while s.forward() {}
        assert_eq!(s.live_deployment().map(|d| d.replicas()), Some(4));
    }

    #[test]
    fn applying_mid_run_is_a_kubectl_apply_at_that_time() {
        let mut s = rolling();
        s.seek(12);
        let t = s.now();
        let text = s.manifest_text();
        let edited = manifest::set_field(&text, "spec.replicas", Some("12")).expect("set");
        s.apply_manifest(manifest::check(&edited).expect("valid"))
            .expect("applies");
        assert_eq!(s.position(), 13);
        assert_eq!(s.current_step().map(|st| st.time), Some(t));
        assert_eq!(
            s.current_step().map(|st| st.actor.as_str()),
            Some("kubectl")
        );
        assert_eq!(s.live_deployment().map(|d| d.replicas()), Some(12));
        // Stepping back over the apply and forward again replays it.
        s.back();
        s.forward();
        assert_eq!(s.live_deployment().map(|d| d.replicas()), Some(12));
    }

    #[test]
    fn an_immutable_change_is_refused_and_changes_nothing() {
        let mut s = rolling();
        s.seek(12);
        let text = s.manifest_text();
        let edited = text.replace("{app: web}", "{app: api}");
        let d = manifest::check(&edited).expect("valid on its own");
        let err = s.apply_manifest(d).expect_err("selector is immutable");
        assert!(err.contains("field is immutable"), "{err}");
        assert_eq!(s.position(), 12);
    }
}
