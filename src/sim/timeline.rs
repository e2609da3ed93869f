//! The timeline: every step of a run so far, with snapshots every few steps so that any earlier
//! moment can be restored exactly — restore the nearest snapshot, then replay — and user
//! commands recorded at the step where they were applied, so replay repeats them.

use super::api::Time;
use super::commands::{Command, CommandError};
use super::engine::Sim;
use super::scenario::{RunUntil, Scenario, rollout_settled};
use super::trace::Step;
use std::collections::BTreeMap;

/// Steps between snapshots: a seek replays at most this many steps.
pub const CHECKPOINT_INTERVAL: usize = 8;

/// A run that can move forward, back and to any step.
#[derive(Clone, Debug)]
pub struct Timeline {
    /// Snapshots by the number of steps taken when they were made; 0 is the start.
    checkpoints: BTreeMap<usize, Sim>,
    steps: Vec<Step>,
    /// Commands applied by the user, by the step number they produced.
    injected: BTreeMap<usize, Command>,
    current: Sim,
    limit: Time,
    /// The Deployment whose settled rollout ends the run (`run_until: complete`), if any.
    settle: Option<String>,
    /// Whether the frontier is the end of the run: a step forward there found nothing.
    ended: bool,
    /// The step after the frontier and the state it leaves, computed one step early so that
    /// the end of the run is known as soon as it is reached.
    lookahead: Option<Box<(Sim, Step)>>,
}

impl Timeline {
    /// A timeline starting from `sim`, never running past `limit`.
    pub fn new(sim: Sim, limit: Time) -> Timeline {
        let mut checkpoints = BTreeMap::new();
        checkpoints.insert(0, sim.clone());
        Timeline {
            checkpoints,
            steps: Vec::new(),
            injected: BTreeMap::new(),
            current: sim,
            limit,
            settle: None,
            ended: false,
            lookahead: None,
        }
    }

    /// The timeline of a scenario: it ends where the command-line runner stops, so step `n`
    /// here is step `n` of the scenario's trace.
    pub fn of(scenario: &Scenario) -> Timeline {
        let mut t = Timeline::new(scenario.sim(), scenario.time_limit());
        if scenario.run_until == RunUntil::Complete {
            t.settle = Some(scenario.deployment.metadata.name.clone());
        }
        t
    }

    /// The step after the current position, when it is already known (a preview for speaker
    /// notes; it changes nothing).
    pub fn next_step(&self) -> Option<&Step> {
        let pos = self.position();
        match self.steps.get(pos) {
            Some(step) => Some(step),
            None => self.lookahead.as_ref().map(|next| &next.1),
        }
    }

    /// The step after the current position, working it out when it is not known yet (at the
    /// start of a run). The run itself does not move.
    pub fn peek(&mut self) -> Option<&Step> {
        if self.position() == self.steps.len() && self.lookahead.is_none() && !self.ended {
            self.look_ahead();
        }
        self.next_step()
    }

    /// The number of steps in the whole run, once a step forward has found its end.
    pub fn known_end(&self) -> Option<usize> {
        self.ended.then_some(self.steps.len())
    }

    /// The simulator at the current position.
    pub fn sim(&self) -> &Sim {
        &self.current
    }

    /// How many steps have been taken to reach the current position.
    pub fn position(&self) -> usize {
        self.current.steps_taken()
    }

    /// Every step discovered so far (possibly beyond the current position after a seek back).
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// The step that led to the current position, if any.
    pub fn current_step(&self) -> Option<&Step> {
        self.position()
            .checked_sub(1)
            .and_then(|i| self.steps.get(i))
    }

    fn advance(
        sim: &mut Sim,
        injected: &BTreeMap<usize, Command>,
        limit: Time,
        settle: Option<&str>,
    ) -> Option<Step> {
        let next = sim.steps_taken() + 1;
        match (injected.get(&next), settle) {
            (Some(cmd), _) => sim.apply_command(cmd).ok(),
            (None, Some(name)) => sim.step_until_or(limit, &mut |s| rollout_settled(s, name)),
            (None, None) => sim.step_until(limit),
        }
    }

    /// Takes the next step of the current state: a recorded command, or the simulator's own.
    fn advance_current(&mut self) -> Option<Step> {
        Self::advance(
            &mut self.current,
            &self.injected,
            self.limit,
            self.settle.as_deref(),
        )
    }

    /// Moves one step forward, discovering a new step at the frontier. Returns it, or `None` at
    /// the end of the run.
    pub fn forward(&mut self) -> Option<Step> {
        let pos = self.position();
        self.run_ahead(pos + 1);
        if self.position() > pos {
            self.steps.get(pos).cloned()
        } else {
            None
        }
    }

    /// Computes the step after the frontier, or learns that there is none.
    fn look_ahead(&mut self) {
        let mut next = self.current.clone();
        match Self::advance(
            &mut next,
            &self.injected,
            self.limit,
            self.settle.as_deref(),
        ) {
            Some(step) => self.lookahead = Some(Box::new((next, step))),
            None => self.ended = true,
        }
    }

    /// Moves to the state after `target` steps (clamped to the steps known, extending the run
    /// when `target` is beyond it). Going back, or forward past a snapshot, restores the nearest
    /// snapshot at or before the target and replays from there.
    ///
    /// Jumping forward to a snapshot rather than replaying up to it gives the same state (a run
    /// is deterministic) and keeps the current state close to a snapshot, so that the next seek
    /// drops only the few steps of state made since, not everything replayed on the way.
    pub fn seek(&mut self, target: usize) {
        let pos = self.position();
        let known = target.min(self.steps.len());
        let past_snapshot = self
            .checkpoints
            .range(..=known)
            .next_back()
            .is_some_and(|(k, _)| *k > pos);
        if (target < pos || past_snapshot) && !self.restore(known) {
            return;
        }
        self.run_ahead(target);
    }

    /// Moves forward to `target` steps, replaying known steps and discovering new ones.
    ///
    /// It works out the lookahead only where it stops, not at every step on the way. A
    /// lookahead is a copy of the state advanced one step, and advancing a copy while the
    /// original is still held copies every part of the state the step touches; advancing the
    /// state itself edits it in place. The price is the end of the run: there, a step that
    /// finds nothing may already have run silent work, so the state is restored from the last
    /// snapshot and replayed to the last step.
    fn run_ahead(&mut self, target: usize) {
        while self.position() < target {
            if self.position() < self.steps.len() {
                if self.advance_current().is_none() {
                    return;
                }
                continue;
            }
            if self.ended {
                return;
            }
            let step = match self.lookahead.take() {
                Some(next) => {
                    let (sim, step) = *next;
                    self.current = sim;
                    step
                }
                None => match self.advance_current() {
                    Some(step) => step,
                    None => {
                        self.ended = true;
                        self.restore(self.steps.len());
                        return;
                    }
                },
            };
            self.steps.push(step);
            if self.steps.len().is_multiple_of(CHECKPOINT_INTERVAL) {
                self.checkpoints
                    .insert(self.steps.len(), self.current.clone());
            }
        }
        if self.position() == self.steps.len() && !self.ended && self.lookahead.is_none() {
            self.look_ahead();
        }
    }

    /// Puts the state back to exactly `target` known steps: the nearest snapshot at or before
    /// it, replayed. Returns whether the replay got there.
    fn restore(&mut self, target: usize) -> bool {
        if let Some((_, snap)) = self.checkpoints.range(..=target).next_back() {
            self.current = snap.clone();
        }
        while self.position() < target {
            if self.advance_current().is_none() {
                return false;
            }
        }
        true
    }

    /// Applies a user command at the current position. Steps beyond it are discarded: the
    /// future is re-simulated from here.
    ///
    /// # Errors
    /// The command's refusal; nothing changes then.
    pub fn apply(&mut self, cmd: Command) -> Result<Step, CommandError> {
        let mut next = self.current.clone();
        let step = next.apply_command(&cmd)?;
        let pos = self.position();
        self.steps.truncate(pos);
        self.checkpoints.retain(|k, _| *k <= pos);
        self.injected.retain(|k, _| *k <= pos);
        self.current = next;
        self.ended = false;
        self.lookahead = None;
        self.injected.insert(self.position(), cmd);
        self.steps.push(step.clone());
        self.look_ahead();
        Ok(step)
    }
}
