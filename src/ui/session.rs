//! The session: what one person is doing in the app — the chosen scenario, its timeline and
//! where they stand in it — as a plain model. The UI holds it in one signal and changes it only
//! through these methods, so all of it is tested natively, without a browser.

use crate::sim::api::{Deployment, Time};
use crate::sim::commands::Command;
use crate::sim::controller::deployment::util::LAST_APPLIED_CONFIG_ANNOTATION;
use crate::sim::engine::TimedCommand;
use crate::sim::kubectl::{EventFold, EventRecord};
use crate::sim::manifest;
use crate::sim::scenario::{BUNDLED, Scenario};
use crate::sim::timeline::Timeline;
use crate::sim::trace::{Stage, Step};
use std::sync::Mutex;

/// How far a stage jump may look ahead for a step it has not discovered yet.
const STAGE_SEARCH_LIMIT: usize = 20_000;

/// Something the person did to the cluster, recorded so that a link, a reload and step back
/// all repeat it at the same step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UserAction {
    /// `kubectl apply -f` with this manifest text.
    Apply(String),
    /// `kubectl delete pod <name> [--force --grace-period=0]`, the argument as typed after `pod`.
    DeletePod(String),
    /// `kubectl cordon <node>`.
    Cordon(String),
    /// `kubectl uncordon <node>`.
    Uncordon(String),
    /// `kubectl drain <node> [flags]`, the argument `<node> [flags]`.
    Drain(String),
    /// The node's kubelet stops (a fault, not a kubectl command).
    FailNode(String),
    /// The node's kubelet starts again (the fault's repair).
    RestartKubelet(String),
    /// `kubectl taint nodes <node> key=value:Effect`, the argument `<node> key=value:Effect`.
    Taint(String),
    /// The same with a trailing `-`: the taint with that key and effect goes.
    Untaint(String),
    /// The pod's readiness endpoint stops answering (a fault).
    BreakReadiness(String),
    /// The pod's container crashes (a fault).
    CrashPod(String),
    /// The registry stops serving the image (a fault).
    FailRegistry(String),
    /// `kubectl create configmap <name>` with the keys the Deployment's pods read from it.
    CreateConfigMap(String),
    /// `kubectl create secret generic <name>`, the same way.
    CreateSecret(String),
    /// `kubectl scale deployment/<d> --replicas=<n>`, with the count as typed.
    Scale(String),
    /// `kubectl rollout undo deployment/<d> --to-revision=<n>`; `0` is the previous revision.
    RolloutUndo(String),
    /// `kubectl rollout pause deployment/<d>`.
    RolloutPause,
    /// `kubectl rollout resume deployment/<d>`.
    RolloutResume,
    /// `kubectl rollout restart deployment/<d>`.
    RolloutRestart,
}

impl UserAction {
    /// The short word a link uses for the action.
    pub fn verb(&self) -> &'static str {
        match self {
            UserAction::Apply(_) => "apply",
            UserAction::DeletePod(_) => "delete-pod",
            UserAction::Cordon(_) => "cordon",
            UserAction::Uncordon(_) => "uncordon",
            UserAction::Drain(_) => "drain",
            UserAction::FailNode(_) => "fail-node",
            UserAction::RestartKubelet(_) => "restart-kubelet",
            UserAction::Taint(_) => "taint",
            UserAction::Untaint(_) => "untaint",
            UserAction::BreakReadiness(_) => "break-readiness",
            UserAction::CrashPod(_) => "crash-pod",
            UserAction::FailRegistry(_) => "fail-registry",
            UserAction::CreateConfigMap(_) => "create-configmap",
            UserAction::CreateSecret(_) => "create-secret",
            UserAction::Scale(_) => "scale",
            UserAction::RolloutUndo(_) => "rollout-undo",
            UserAction::RolloutPause => "rollout-pause",
            UserAction::RolloutResume => "rollout-resume",
            UserAction::RolloutRestart => "rollout-restart",
        }
    }

    /// The action's argument: a manifest, a pod or node name, a count or a revision; empty for
    /// the rollout commands that need only the Deployment, which is the session's own.
    pub fn arg(&self) -> &str {
        match self {
            UserAction::Apply(a)
            | UserAction::DeletePod(a)
            | UserAction::Cordon(a)
            | UserAction::Uncordon(a)
            | UserAction::Drain(a)
            | UserAction::FailNode(a)
            | UserAction::RestartKubelet(a)
            | UserAction::Taint(a)
            | UserAction::Untaint(a)
            | UserAction::BreakReadiness(a)
            | UserAction::CrashPod(a)
            | UserAction::FailRegistry(a)
            | UserAction::CreateConfigMap(a)
            | UserAction::CreateSecret(a)
            | UserAction::Scale(a)
            | UserAction::RolloutUndo(a) => a,
            UserAction::RolloutPause | UserAction::RolloutResume | UserAction::RolloutRestart => "",
        }
    }

    /// The action a link's verb and argument name, if any.
    pub fn from_parts(verb: &str, arg: String) -> Option<UserAction> {
        Some(match verb {
            "apply" => UserAction::Apply(arg),
            "delete-pod" => UserAction::DeletePod(arg),
            "cordon" => UserAction::Cordon(arg),
            "uncordon" => UserAction::Uncordon(arg),
            "drain" => UserAction::Drain(arg),
            "fail-node" => UserAction::FailNode(arg),
            "restart-kubelet" => UserAction::RestartKubelet(arg),
            "taint" => UserAction::Taint(arg),
            "untaint" => UserAction::Untaint(arg),
            "break-readiness" => UserAction::BreakReadiness(arg),
            "crash-pod" => UserAction::CrashPod(arg),
            "fail-registry" => UserAction::FailRegistry(arg),
            "create-configmap" => UserAction::CreateConfigMap(arg),
            "create-secret" => UserAction::CreateSecret(arg),
            "scale" => UserAction::Scale(arg),
            "rollout-undo" => UserAction::RolloutUndo(arg),
            "rollout-pause" => UserAction::RolloutPause,
            "rollout-resume" => UserAction::RolloutResume,
            "rollout-restart" => UserAction::RolloutRestart,
            _ => return None,
        })
    }

    /// The command the action runs; the rollout commands run on `deployment`.
    fn command(&self, deployment: &str) -> Result<Command, String> {
        let deployment = deployment.to_string();
        Ok(match self {
            UserAction::Apply(text) => {
                Command::Apply(Box::new(manifest::check(text).map_err(|errs| {
                    errs.iter()
                        .map(|e| e.message.clone())
                        .collect::<Vec<_>>()
                        .join("\n")
                })?))
            }
            UserAction::DeletePod(arg) => crate::sim::commands::parse_delete_pod(arg)?,
            UserAction::Cordon(node) => Command::Cordon(node.clone()),
            UserAction::Uncordon(node) => Command::Uncordon(node.clone()),
            UserAction::Drain(arg) => {
                let (node, flags) =
                    crate::sim::drain::parse(arg).map_err(|why| format!("error: {why}"))?;
                Command::Drain { node, flags }
            }
            UserAction::FailNode(node) => Command::FailNode(node.clone()),
            UserAction::RestartKubelet(node) => Command::RestartKubelet(node.clone()),
            UserAction::Taint(arg) | UserAction::Untaint(arg) => {
                let (node, text) = arg
                    .split_once(' ')
                    .ok_or_else(|| format!("error: {arg:?} names no node and taint"))?;
                let taint = crate::sim::api::Taint::parse(text);
                // The checks a scenario's taint gets, for a taint a link brought.
                if let Some((field, msg)) = crate::sim::validation::taint_problems(&taint).first() {
                    return Err(format!("error: invalid taint spec: {text}: {field}: {msg}"));
                }
                Command::Taint {
                    node: node.to_string(),
                    taint,
                    remove: matches!(self, UserAction::Untaint(_)),
                }
            }
            UserAction::BreakReadiness(pod) => Command::BreakReadiness(pod.clone()),
            UserAction::CrashPod(pod) => Command::CrashPod(pod.clone()),
            UserAction::FailRegistry(image) => Command::FailRegistry(image.clone()),
            // Its data is filled in from the Deployment when the command runs ([`Session::act`]).
            UserAction::CreateConfigMap(name) | UserAction::CreateSecret(name) => {
                Command::CreateConfig {
                    secret: matches!(self, UserAction::CreateSecret(_)),
                    name: name.clone(),
                    data: Default::default(),
                }
            }
            UserAction::Scale(count) => {
                let replicas = count_flag(count, "replicas")?;
                // kubectl's own check, before it sends anything.
                if replicas < 0 {
                    return Err("error: The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0".into());
                }
                if let Some(why) = manifest::beyond_simulated(replicas) {
                    return Err(format!("spec.replicas: {why}"));
                }
                Command::Scale {
                    deployment,
                    replicas: i32::try_from(replicas).unwrap_or(i32::MAX),
                }
            }
            UserAction::RolloutUndo(revision) => Command::RolloutUndo {
                deployment,
                to_revision: count_flag(revision, "to-revision")?,
            },
            UserAction::RolloutPause => Command::Pause { deployment },
            UserAction::RolloutResume => Command::Resume { deployment },
            UserAction::RolloutRestart => Command::RolloutRestart { deployment },
        })
    }
}

/// A whole-number kubectl flag as typed, or kubectl's refusal of it (cobra's flag parsing with
/// `strconv.ParseInt`, which fails before kubectl looks at the value).
fn count_flag(text: &str, flag: &str) -> Result<i64, String> {
    let digits = text.trim();
    digits.parse().map_err(|_| {
        // An integer too long for 64 bits is out of range; anything else is not a number.
        let unsigned = digits.strip_prefix(['-', '+']).unwrap_or(digits);
        let why = if !unsigned.is_empty() && unsigned.bytes().all(|b| b.is_ascii_digit()) {
            "value out of range"
        } else {
            "invalid syntax"
        };
        format!(
            "error: invalid argument {text:?} for \"--{flag}\" flag: strconv.ParseInt: parsing {text:?}: {why}"
        )
    })
}

/// A range an embedded view may not leave: steps `from..=to`, or the steps of stages
/// `from..=to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lock {
    Steps(usize, usize),
    Stages(u8, u8),
}

/// The fold of the session's events, extended when read. Behind a lock because panels read the
/// session through a shared reference; `epoch` says which version of the trace it folds.
#[derive(Debug, Default)]
struct FoldCache(Mutex<(u64, EventFold)>);

impl FoldCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, (u64, EventFold)> {
        // A panic aborts the app, so the lock is never poisoned in practice; recover anyway.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Clone for FoldCache {
    fn clone(&self) -> Self {
        FoldCache(Mutex::new(self.lock().clone()))
    }
}

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
    /// The last refusal shown as the notice; the notice is a refusal while it still says this.
    refusal: Option<String>,
    /// The person's actions, by the step each produced (0: before the run, replacing the
    /// scenario's manifest), in order.
    pub actions: Vec<(usize, UserAction)>,
    /// The range of steps this view keeps to, if it is locked.
    pub lock: Option<Lock>,
    /// Where a lock to a range of stages begins: the first step of its first stage. A step of a
    /// later stage in the range may come earlier (a status pass that counts readiness before
    /// every pod is scheduled, say), but a link from stage 3 means the scheduling onwards.
    lock_floor: usize,
    /// Bumped whenever discovered steps may be rewritten (an action, a reset).
    epoch: u64,
    events: FoldCache,
    /// The text of each `apply:` action in the scenario file, by its place in `actions:`.
    apply_blocks: Vec<Option<String>>,
}

impl Session {
    /// The bundled scenario in `file` (`rolling-update.yaml`), at its start.
    ///
    /// # Errors
    /// When no bundled scenario has that file name, or it fails to load.
    pub fn load_file(file: &str) -> Result<Session, String> {
        let idx = BUNDLED
            .iter()
            .position(|(f, _)| *f == file)
            .ok_or_else(|| format!("no bundled scenario is called {file:?}"))?;
        Session::load(idx)
    }

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
            refusal: None,
            actions: Vec::new(),
            lock: None,
            lock_floor: 0,
            epoch: 0,
            events: FoldCache::default(),
            apply_blocks: manifest::extract_apply_blocks(text),
        })
    }

    /// The Deployment manifest as the scenario file writes it, for the editor.
    pub fn manifest_text(&self) -> String {
        manifest::extract_block(&self.source, "deployment").unwrap_or_default()
    }

    /// Which of the scenario's own `apply:` actions is in effect at the current step, by its
    /// place in `actions:`; `None` before the run passes one. An apply counts once its step has
    /// run: before its time, or at its time while the live object carries the manifest it
    /// records.
    pub fn scenario_apply_in_effect(&self) -> Option<usize> {
        let now = self.current_step().map_or(Time::ZERO, |s| s.time);
        fn recorded(d: &Deployment) -> Option<&String> {
            d.metadata.annotations.get(LAST_APPLIED_CONFIG_ANNOTATION)
        }
        let live = self.live_deployment().and_then(recorded);
        self.scenario
            .actions
            .iter()
            .skip(1)
            .zip(&self.apply_blocks)
            .enumerate()
            .rev()
            .find_map(|(i, (action, block))| {
                let Command::Apply(d) = &action.command else {
                    return None;
                };
                let done = action.at < now || (action.at == now && live == recorded(d));
                (done && block.is_some()).then_some(i)
            })
    }

    /// The manifest of the scenario's own latest `kubectl apply` in effect at the current step:
    /// the `deployment:` block until the run has passed an `apply:` action of the scenario, then
    /// that action's manifest, as the file a person following along would now edit.
    pub fn scenario_manifest_in_effect(&self) -> String {
        self.scenario_manifest_of(self.scenario_apply_in_effect())
    }

    /// The manifest of the scenario's `apply:` action at `apply` (a place in `actions:`), or
    /// with `None` the `deployment:` block.
    pub fn scenario_manifest_of(&self, apply: Option<usize>) -> String {
        apply
            .and_then(|i| self.apply_blocks.get(i).cloned().flatten())
            .unwrap_or_else(|| self.manifest_text())
    }

    /// The manifest of the last `kubectl apply` in effect at the current step, if any: what the
    /// cluster runs, and so what a link to this moment opens the editor with.
    pub fn last_applied_text(&self) -> Option<String> {
        let pos = self.position();
        self.actions
            .iter()
            .rev()
            .filter(|(k, _)| *k <= pos)
            .find_map(|(_, a)| match a {
                UserAction::Apply(text) => Some(text.clone()),
                _ => None,
            })
    }

    /// Steps taken so far.
    pub fn position(&self) -> usize {
        self.timeline.position()
    }

    /// The steps the scrubber spans: all discovered so far.
    pub fn known_steps(&self) -> usize {
        self.timeline.steps().len()
    }

    /// Whether the run's last step is known (the run has been simulated to its end).
    pub fn end_known(&self) -> bool {
        self.timeline.known_end().is_some()
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

    /// The next step, worked out if needed, without moving.
    pub fn peek_next(&mut self) -> Option<Step> {
        self.timeline.peek().cloned()
    }

    /// The events so far as `kubectl events` lists them (by the time each was last seen): the
    /// last `max` records and how many earlier ones were left out.
    pub fn events(&self, max: usize) -> (usize, Vec<EventRecord>) {
        let mut cache = self.events.lock();
        let steps = self.timeline.steps();
        if cache.0 != self.epoch || cache.1.folded() > steps.len() {
            *cache = (self.epoch, EventFold::default());
        }
        cache.1.extend(steps);
        cache.1.latest(self.position(), max, self.now())
    }

    /// The simulated time now.
    pub fn now(&self) -> Time {
        self.timeline.sim().now()
    }

    /// The Deployment's name.
    pub fn deployment_name(&self) -> &str {
        &self.scenario.deployment.metadata.name
    }

    /// Whether the view may stand after `pos` steps.
    fn allowed_at(&self, pos: usize) -> bool {
        match self.lock {
            None => true,
            Some(Lock::Steps(from, to)) => (from..=to).contains(&pos),
            Some(Lock::Stages(from, to)) => {
                pos >= self.lock_floor
                    && pos
                        .checked_sub(1)
                        .and_then(|i| self.timeline.steps().get(i))
                        .is_some_and(|s| (from..=to).contains(&s.stage.number()))
            }
        }
    }

    /// After a move, lands where the lock allows: the nearest allowed position in the direction
    /// of travel, or else the nearest one behind it.
    fn settle(&mut self, forward: bool) {
        if self.lock.is_none() || self.allowed_at(self.position()) {
            return;
        }
        let pos = self.position();
        let ahead = |s: &mut Session| {
            for idx in pos + 1..pos + STAGE_SEARCH_LIMIT {
                match s.stage_of(idx) {
                    None => return None,
                    Some(_) if s.allowed_at(idx) => return Some(idx),
                    Some(_) => {}
                }
            }
            None
        };
        let behind = |s: &Session| (0..pos).rev().find(|&idx| s.allowed_at(idx));
        let target = if forward {
            ahead(self).or_else(|| behind(self))
        } else {
            behind(self).or_else(|| ahead(self))
        };
        if let Some(target) = target {
            self.timeline.seek(target);
        }
    }

    /// Locks the view to a range and moves into it; a range of stages begins at the first step
    /// of its first stage.
    pub fn set_lock(&mut self, lock: Lock) {
        self.lock = None;
        self.lock_floor = 0;
        if let Lock::Stages(from, _) = lock {
            let here = self.position();
            self.timeline.seek(0);
            self.lock_floor = self
                .next_step_where(|s| s.stage.number() == from)
                .unwrap_or(0);
            self.timeline.seek(here);
        }
        self.lock = Some(lock);
        self.settle(true);
    }

    /// The lowest and highest positions the scrubber may reach now.
    pub fn bounds(&self) -> (usize, usize) {
        let known = self.known_steps().max(self.position());
        match self.lock {
            None => (0, known),
            Some(_) => {
                let lo = (0..=known).find(|&i| self.allowed_at(i)).unwrap_or(0);
                let hi = (0..=known)
                    .rev()
                    .find(|&i| self.allowed_at(i))
                    .unwrap_or(known);
                (lo, hi)
            }
        }
    }

    /// One step forward (within the lock). Returns whether the view moved.
    pub fn forward(&mut self) -> bool {
        self.notice = None;
        let pos = self.position();
        if self.timeline.forward().is_none() {
            return false;
        }
        self.settle(true);
        self.position() != pos
    }

    /// One step back (nothing at the start or at the start of the lock).
    pub fn back(&mut self) {
        self.notice = None;
        let pos = self.position();
        if pos > 0 {
            self.timeline.seek(pos - 1);
            self.settle(false);
        }
    }

    /// Goes to the state after `target` steps, or the nearest the lock allows.
    pub fn seek(&mut self, target: usize) {
        self.notice = None;
        let forward = target >= self.position();
        self.timeline.seek(target);
        self.settle(forward);
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
        self.settle(false);
    }

    /// Back to the start of the run (or of the lock), keeping any manifest applied before
    /// step 1.
    pub fn reset(&mut self) {
        self.notice = None;
        self.timeline = Timeline::of(&self.scenario);
        self.epoch += 1;
        self.actions.retain(|(step, _)| *step == 0);
        self.settle(true);
    }

    /// The stage of the step at 1-based `index`, discovering steps up to it when needed.
    fn stage_of(&mut self, index: usize) -> Option<Stage> {
        if index > self.timeline.steps().len() {
            // Discover a stretch at once: each discovery ends with a seek back.
            let pos = self.position();
            self.timeline.seek(index + 64);
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
        if let Some(Lock::Stages(from, to)) = self.lock
            && !(from..=to).contains(&stage.number())
        {
            self.notice = Some(format!("This view keeps to stages {from} to {to}."));
            return;
        }
        match self.next_step_where(|s| s.stage == stage) {
            Some(index) => self.seek(index),
            None => self.notice = Some(format!("No later step is in stage {stage}.")),
        }
    }

    /// The first step after the current one that `wanted` picks, looking ahead as far as
    /// needed.
    fn next_step_where(&mut self, wanted: impl Fn(&Step) -> bool) -> Option<usize> {
        let start = self.position() + 1;
        for index in start..start + STAGE_SEARCH_LIMIT {
            // Discovers the step when it is not known yet.
            self.stage_of(index)?;
            if self.timeline.steps().get(index - 1).is_some_and(&wanted) {
                return Some(index);
            }
        }
        None
    }

    /// Goes to the next step where kubectl acted: a command of the scenario's, the person's, or
    /// a fault. A lesson's point (the image change of a rolling update, say) often comes after
    /// many steps of pods starting, and this is how a presenter gets there.
    pub fn next_action(&mut self) {
        match self.next_step_where(|s| s.actor == "kubectl") {
            // A locked view (an embed kept to some stages) says so rather than stop short.
            Some(index) if !self.allowed_at(index) => {
                self.notice = Some("The next kubectl command is outside this view.".to_string());
            }
            Some(index) => self.seek(index),
            None => self.notice = Some("No later step is a kubectl command.".to_string()),
        }
    }

    /// Goes back to the last step before the current one where kubectl acted.
    pub fn previous_action(&mut self) {
        let here = self.position();
        let found = self.timeline.steps()
            [..here.saturating_sub(1).min(self.timeline.steps().len())]
            .iter()
            .rposition(|s| s.actor == "kubectl");
        match found {
            Some(i) if !self.allowed_at(i + 1) => {
                self.notice =
                    Some("The previous kubectl command is outside this view.".to_string());
            }
            Some(i) => self.seek(i + 1),
            None => self.notice = Some("No earlier step is a kubectl command.".to_string()),
        }
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

    /// Does what the person asked, as kubectl would at the current simulated time, and records
    /// it. Applying a manifest before step 1 (when nothing has run yet) replaces the scenario's
    /// own manifest and starts the run over from it. Steps after the current one are discarded:
    /// the future is simulated anew.
    ///
    /// # Errors
    /// The manifest's problems or the API server's or kubectl's refusal; nothing changes then.
    pub fn act(&mut self, action: UserAction) -> Result<(), String> {
        let mut command = action.command(self.deployment_name())?;
        // A ConfigMap or Secret made to unblock the pods holds every key their containers read
        // from it, each with a stand-in value.
        if let Command::CreateConfig { secret, name, data } = &mut command
            && let Some(d) = self.live_deployment()
        {
            for key in crate::sim::kubelet::keys_read(&d.spec.template.spec, *secret, name) {
                data.insert(key, "example".to_string());
            }
        }
        if self.position() == 0
            && let Command::Apply(deployment) = command
        {
            self.replace_manifest(*deployment);
            self.actions = vec![(0, action)];
            self.notice = Some(
                "The edited manifest replaces the scenario's: the run starts over from it.".into(),
            );
            return Ok(());
        }
        match self.timeline.apply(command) {
            Ok(step) => {
                self.epoch += 1;
                let pos = self.position();
                self.actions.retain(|(k, _)| *k < pos);
                self.actions.push((pos, action));
                self.notice = Some(format!("At {}: {}", step.time, step.narration));
                Ok(())
            }
            // The message is kubectl's whole output, its field errors included.
            Err(e) => Err(e.message),
        }
    }

    /// How many of the person's actions come after the current step: acting here discards
    /// them, since the run from here on is simulated anew.
    pub fn later_actions(&self) -> usize {
        let pos = self.position();
        self.actions.iter().filter(|(k, _)| *k > pos).count()
    }

    fn replace_manifest(&mut self, deployment: Deployment) {
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
        self.timeline = Timeline::of(&self.scenario);
        self.epoch += 1;
    }

    /// Repeats recorded actions on a fresh session, each at the step it was taken at, as a link
    /// asks. Stops at the first that cannot be repeated and says why.
    ///
    /// # Errors
    /// Why an action could not be repeated.
    pub fn replay(&mut self, actions: Vec<(usize, UserAction)>) -> Result<(), String> {
        for (step, action) in actions {
            let at = step.saturating_sub(1);
            self.seek(at);
            if self.position() != at {
                return Err(format!(
                    "the run ends before step {step}, where an action was taken"
                ));
            }
            let verb = action.verb();
            self.act(action)
                .map_err(|e| format!("the {verb} at step {step} was refused: {e}"))?;
        }
        self.notice = None;
        Ok(())
    }

    /// Shows kubectl's (or the API server's) refusal of what the person asked for as the notice.
    pub fn refuse(&mut self, message: String) {
        self.refusal = Some(message.clone());
        self.notice = Some(message);
    }

    /// Whether the notice is a refusal ([`Session::refuse`]) rather than what an action did.
    pub fn notice_is_refusal(&self) -> bool {
        self.notice.is_some() && self.notice == self.refusal
    }

    /// The Deployment as the cluster holds it now (`None` before it is created).
    pub fn live_deployment(&self) -> Option<&Deployment> {
        self.timeline.sim().deployment(self.deployment_name())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The node card's NoExecute taint from the app: the pods on the node are evicted at once and
    /// replaced elsewhere; the action survives a link; removing the taint is its own action, and a
    /// second identical taint is refused as kubectl refuses it.
    #[test]
    fn tainting_a_node_from_the_app_evicts_its_pods() {
        let mut s = rolling_at(30);
        let on_node = |s: &Session| pods_on(s, "node-1", false);
        assert!(on_node(&s) > 0);
        let action = UserAction::Taint("node-1 maintenance=true:NoExecute".into());
        let again = UserAction::from_parts(action.verb(), action.arg().to_string());
        assert_eq!(again.as_ref(), Some(&action));
        s.act(action.clone()).expect("tainted");
        assert_notice(&s, "node/node-1 tainted");
        for _ in 0..20 {
            s.forward();
        }
        assert_eq!(on_node(&s), 0, "every pod there was evicted");
        assert!(s.act(action).is_err(), "the same taint twice is refused");
        // A taint a link brings gets the scenario's checks.
        assert!(
            s.act(UserAction::Taint("node-1 bad key!:NoExecute".into()))
                .is_err()
        );
        assert!(
            s.act(UserAction::Taint("node-1 maintenance=x:Sometimes".into()))
                .is_err()
        );
        s.act(UserAction::Untaint(
            "node-1 maintenance=true:NoExecute".into(),
        ))
        .expect("untainted");
        assert_notice(&s, "node/node-1 untainted");
    }

    /// The node card's Drain: the node is cordoned and its pods are evicted and replaced
    /// elsewhere; kubectl's wait ends with `node/node-1 drained`; the action survives a link; a
    /// misspelt flag a link brings is refused with the reason.
    #[test]
    fn draining_a_node_from_the_app_evicts_its_pods() {
        let mut s = rolling_at(30);
        let on_node = |s: &Session| pods_on(s, "node-1", true);
        assert!(on_node(&s) > 0);
        let action = UserAction::Drain("node-1 --ignore-daemonsets".into());
        let again = UserAction::from_parts(action.verb(), action.arg().to_string());
        assert_eq!(again.as_ref(), Some(&action));
        s.act(action).expect("drained");
        assert_notice(&s, "node/node-1 cordoned; evicting pod default/");
        assert!(s.timeline.sim().store().nodes["node-1"].spec.unschedulable);
        // The node card says what the drain waits for while it runs.
        let drain_note = |s: &Session| {
            crate::sim::view::ClusterView::of(s.timeline.sim())
                .nodes
                .into_iter()
                .find(|n| n.name == "node-1")
                .and_then(|n| n.drain)
        };
        assert!(
            drain_note(&s).is_some_and(
                |n| n.starts_with("kubectl drain waits: ") && n.contains("still terminating")
            ),
            "{:?}",
            drain_note(&s)
        );
        let mut drained = false;
        for _ in 0..400 {
            if !s.forward() {
                break;
            }
            drained |= s.current_step().is_some_and(|st| {
                st.narration
                    .contains("node/node-1 drained: the drain is done")
            });
        }
        assert!(drained, "kubectl's wait ends");
        assert_eq!(drain_note(&s), None);
        assert_eq!(on_node(&s), 0, "every pod there was evicted and is gone");
        assert!(
            s.act(UserAction::Drain("node-1 --ignore-daemonset".into()))
                .is_err()
        );
    }

    /// Creating the missing ConfigMap from the app runs `kubectl create configmap` with the
    /// keys the pods read from it, and the stuck pod starts at its pod worker's next look; the
    /// action survives a link.
    #[test]
    fn creating_a_missing_config_map_unblocks_the_rollout() {
        let mut s = Session::load_file("missing-configmap.yaml").expect("loads");
        while s
            .current_step()
            .is_none_or(|st| st.time < Time::from_secs(40))
        {
            assert!(s.forward());
        }
        let action = UserAction::CreateConfigMap("web-settings".into());
        let again = UserAction::from_parts(action.verb(), action.arg().to_string());
        assert_eq!(again.as_ref(), Some(&action));
        s.act(action).expect("created");
        assert_notice(&s, "configmap/web-settings created");
        let created = s.current_step().map(|st| st.time).unwrap_or_default();
        while s.forward() {}
        let d = s.live_deployment().expect("web");
        assert_eq!(d.status.updated_replicas, 3);
        assert_eq!(d.status.available_replicas, 3);
        // Long before the scenario's own create at 2 minutes.
        let started = s
            .past()
            .iter()
            .find(|st| {
                st.narration.contains("created and started container web") && st.time > created
            })
            .map(|st| st.time)
            .expect("the container starts");
        assert!(started < Time::from_secs(60), "{started}");
    }

    /// The Deployment panel's kubectl commands: at the progress deadline of the image typo, a
    /// person's `rollout undo` brings web:1.0 back long before the scenario's own undo at 3
    /// minutes, and every command survives a link.
    #[test]
    fn a_rollout_undo_from_the_app_ends_the_image_typo_early() {
        let mut s = Session::load_file("image-typo.yaml").expect("loads");
        let stuck = |s: &Session| {
            s.live_deployment().is_some_and(|d| {
                d.status
                    .conditions
                    .iter()
                    .any(|c| c.reason == crate::sim::api::ConditionReason::ProgressDeadlineExceeded)
            })
        };
        while !stuck(&s) {
            assert!(s.forward(), "the deadline passes");
        }
        let deadline = s.now();
        s.act(UserAction::RolloutUndo("0".into())).expect("undone");
        assert_notice(&s, "deployment.apps/web rolled back");
        // Up to the scenario's own undo at 3 minutes, which now brings the typo back.
        while s
            .peek_next()
            .is_some_and(|st| st.time < deadline.plus_secs(60))
        {
            assert!(s.forward());
        }
        let d = s.live_deployment().expect("web");
        assert_eq!(d.spec.template.spec.containers[0].image, "web:1.0");
        assert_eq!(d.status.updated_replicas, 4);
        assert_eq!(d.status.available_replicas, 4);
        assert_eq!(d.status.replicas, 4, "the typo's pods are gone");
        for action in [
            UserAction::Scale("5".into()),
            UserAction::RolloutUndo("2".into()),
            UserAction::RolloutPause,
            UserAction::RolloutResume,
            UserAction::RolloutRestart,
        ] {
            let again = UserAction::from_parts(action.verb(), action.arg().to_string());
            assert_eq!(again.as_ref(), Some(&action));
        }
    }

    /// Scale, pause and resume from the app run kubectl's commands, and a count kubectl would
    /// refuse is refused with kubectl's words, changing nothing.
    #[test]
    fn scale_pause_and_resume_from_the_app() {
        let mut s = rolling();
        s.seek(3);
        let before = s.position();
        let err = s.act(UserAction::Scale("five".into())).unwrap_err();
        assert_eq!(
            err,
            "error: invalid argument \"five\" for \"--replicas\" flag: strconv.ParseInt: parsing \"five\": invalid syntax"
        );
        let err = s.act(UserAction::Scale("-1".into())).unwrap_err();
        assert!(
            err.contains("COUNT must be greater than or equal to 0"),
            "{err}"
        );
        let err = s.act(UserAction::Scale("2.5".into())).unwrap_err();
        assert!(err.ends_with("parsing \"2.5\": invalid syntax"), "{err}");
        let err = s
            .act(UserAction::Scale("99999999999999999999".into()))
            .unwrap_err();
        assert!(err.ends_with(": value out of range"), "{err}");
        // A count kubectl and the API server accept, but more than RolloutScope simulates.
        let err = s.act(UserAction::Scale("2147483647".into())).unwrap_err();
        assert_eq!(
            err,
            "spec.replicas: 2147483647 is valid Kubernetes but more than RolloutScope simulates (at most 20000)"
        );
        s.refuse(err);
        assert!(s.notice_is_refusal());
        assert_eq!(s.position(), before);
        s.act(UserAction::Scale(" 6 ".into())).expect("scaled");
        assert!(!s.notice_is_refusal(), "a later notice is no refusal");
        assert_eq!(s.live_deployment().and_then(|d| d.spec.replicas), Some(6));
        s.act(UserAction::RolloutPause).expect("paused");
        assert!(s.live_deployment().is_some_and(|d| d.spec.paused));
        let err = s.act(UserAction::RolloutRestart).unwrap_err();
        assert!(err.contains("can't restart paused deployment"), "{err}");
        s.act(UserAction::RolloutResume).expect("resumed");
        assert!(s.live_deployment().is_some_and(|d| !d.spec.paused));
        s.act(UserAction::RolloutRestart).expect("restarted");
        assert_eq!(
            s.actions.iter().map(|(_, a)| a.verb()).collect::<Vec<_>>(),
            [
                "scale",
                "rollout-pause",
                "rollout-resume",
                "rollout-restart"
            ]
        );
    }

    /// The editor's base follows the scenario's own `apply:` actions: the `deployment:` block
    /// before the one at 30 s, and that action's manifest once it has run, to the end.
    #[test]
    fn the_scenario_manifest_in_effect_follows_its_apply_actions() {
        let mut s = Session::load_file("missing-configmap.yaml").expect("loads");
        assert_eq!(s.scenario_manifest_in_effect(), s.manifest_text());
        while s
            .current_step()
            .is_none_or(|st| st.time < Time::from_secs(30))
        {
            assert!(!s.scenario_manifest_in_effect().contains("web-settings"));
            assert!(s.forward(), "the run reaches 30 s");
        }
        // The step at 30 s is the apply itself.
        assert!(
            s.scenario_manifest_in_effect()
                .contains("configMapRef: {name: web-settings}")
        );
        // To the end of the run, past the ConfigMap's creation at 2 minutes.
        while s.forward() {}
        assert!(
            s.current_step()
                .is_some_and(|st| st.time >= Time::from_secs(120))
        );
        assert!(s.scenario_manifest_in_effect().contains("image: web:2.0"));
        s.seek(1);
        assert_eq!(s.scenario_manifest_in_effect(), s.manifest_text());
    }

    /// A fresh fold of `steps` in `kubectl events`' order.
    fn by_last_seen(steps: &[crate::sim::trace::Step], now: Time) -> Vec<EventRecord> {
        let mut records = crate::sim::kubectl::event_records(steps, now);
        crate::sim::kubectl::sort_by_last_seen(&mut records);
        records
    }

    #[test]
    fn the_event_fold_matches_a_fresh_fold_at_every_position_and_after_actions() {
        let mut s = rolling();
        s.run_to_end();
        let all = s.timeline.steps().to_vec();
        for p in (0..all.len()).step_by(7) {
            s.seek(p);
            let (hidden, records) = s.events(usize::MAX);
            assert_eq!(hidden, 0);
            assert_eq!(records, by_last_seen(&all[..p], s.now()), "at {p}");
            // The last few are the end of the whole list, and the rest are counted.
            let (hidden, last) = s.events(10);
            assert_eq!(hidden, records.len().saturating_sub(10));
            assert_eq!(last, records[hidden..], "at {p}");
        }
        s.seek(50);
        let (_, before) = s.events(10);
        s.act(UserAction::Cordon("node-1".into())).expect("cordon");
        while s.forward() {}
        let p = s.position();
        assert_eq!(
            s.events(usize::MAX).1,
            by_last_seen(&s.timeline.steps()[..p], s.now())
        );
        s.seek(50);
        assert_eq!(s.events(10).1, before);
    }

    #[test]
    fn a_crashed_pod_restarts_in_the_view() {
        let mut s = rolling();
        s.seek(40);
        let pods = crate::sim::view::ClusterView::of(s.timeline.sim()).pods;
        let (a, b) = (pods[0].name.clone(), pods[1].name.clone());
        s.act(UserAction::BreakReadiness(a)).expect("break");
        s.act(UserAction::CrashPod(b.clone())).expect("crash");
        for _ in 0..40 {
            s.forward();
        }
        let view = crate::sim::view::ClusterView::of(s.timeline.sim());
        let pod = view.pods.iter().find(|p| p.name == b).expect("pod");
        assert_eq!(pod.restarts, 1, "{pod:?} at {}", s.now());
    }

    #[test]
    fn a_stage_lock_keeps_every_move_inside_its_stages() {
        let mut s = rolling();
        s.set_lock(Lock::Stages(3, 4));
        let in_lock = |s: &Session| {
            s.current_step()
                .is_some_and(|st| (3..=4).contains(&st.stage.number()))
        };
        assert!(in_lock(&s), "starts on the first step of stage 3");
        let first = s.position();
        s.back();
        assert_eq!(s.position(), first);
        for _ in 0..300 {
            s.forward();
            assert!(in_lock(&s));
        }
        assert!(!s.forward() || in_lock(&s));
        s.seek(1);
        assert!(in_lock(&s));
        s.jump_to_stage(Stage::Reconcile);
        assert!(
            s.notice
                .as_deref()
                .is_some_and(|n| n.contains("stages 3 to 4"))
        );
        s.run_to_end();
        assert!(in_lock(&s));
        s.previous_stage();
        assert!(in_lock(&s));
        let (lo, hi) = s.bounds();
        assert_eq!(lo, first);
        assert!(hi <= steps_to_the_end(&s) && hi > lo);
    }

    #[test]
    fn a_step_lock_clamps_to_its_range() {
        let mut s = rolling();
        s.set_lock(Lock::Steps(10, 20));
        assert_eq!(s.position(), 10);
        s.seek(50);
        assert_eq!(s.position(), 20);
        assert!(!s.forward());
        s.seek(0);
        assert_eq!(s.position(), 10);
        s.reset();
        assert_eq!(s.position(), 10);
    }

    #[test]
    fn replaying_recorded_actions_reproduces_the_same_state() {
        let mut s = rolling();
        let text = s.manifest_text();
        s.act(UserAction::Apply(
            text.replace("replicas: 10", "replicas: 6"),
        ))
        .expect("before the run");
        s.seek(20);
        s.act(UserAction::Cordon("node-1".into())).expect("cordon");
        s.seek(40);
        let pod = crate::sim::view::ClusterView::of(s.timeline.sim()).pods[0]
            .name
            .clone();
        s.act(UserAction::DeletePod(pod)).expect("delete");
        s.seek(60);
        let actions = s.actions.clone();
        assert_eq!(
            actions.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
            vec![0, 21, 41]
        );
        let mut again = rolling();
        again.replay(actions).expect("replays");
        again.seek(60);
        assert_eq!(again.timeline.steps()[..60], s.timeline.steps()[..60]);
        assert_eq!(
            crate::sim::view::ClusterView::of(again.timeline.sim()),
            crate::sim::view::ClusterView::of(s.timeline.sim())
        );
        // An action the run cannot repeat is refused with a reason.
        let mut other = rolling();
        let err = other
            .replay(vec![(5, UserAction::Cordon("node-9".into()))])
            .expect_err("no such node");
        assert!(err.contains("cordon at step 5"), "{err}");
    }

    /// Asserts that the session's notice says `part`.
    pub(crate) fn assert_notice(s: &Session, part: &str) {
        assert!(
            s.notice.as_deref().is_some_and(|n| n.contains(part)),
            "{:?}",
            s.notice
        );
    }

    fn rolling() -> Session {
        Session::load_file("rolling-update.yaml").expect("loads")
    }

    /// The rolling-update scenario stepped to its first step at or after `secs`.
    fn rolling_at(secs: u64) -> Session {
        let mut s = rolling();
        while s
            .current_step()
            .is_none_or(|st| st.time < Time::from_secs(secs))
        {
            assert!(s.forward());
        }
        s
    }

    /// The pods bound to `node`, those being deleted counted only with `terminating`.
    fn pods_on(s: &Session, node: &str, terminating: bool) -> usize {
        s.timeline
            .sim()
            .store()
            .pods
            .values()
            .filter(|p| {
                p.node_name == node && (terminating || p.metadata.deletion_timestamp.is_none())
            })
            .count()
    }

    /// Stepping back behind an action makes it a later one: acting there would discard it.
    #[test]
    fn later_actions_counts_what_acting_here_would_discard() {
        let mut s = rolling();
        s.seek(10);
        s.act(UserAction::Cordon("node-1".into())).expect("cordon");
        assert_eq!(s.later_actions(), 0);
        s.seek(5);
        assert_eq!(s.later_actions(), 1);
        s.act(UserAction::Cordon("node-2".into())).expect("cordon");
        assert_eq!((s.later_actions(), s.actions.len()), (0, 1));
    }

    /// `a` goes to each kubectl command in turn, past the many steps of pods starting between
    /// them, and `Shift+A` comes back; past the last one it says so and stays.
    #[test]
    fn next_action_skips_to_the_kubectl_steps() {
        let mut s = rolling();
        s.next_action();
        assert_eq!(s.position(), 1, "the Deployment's creation");
        s.next_action();
        let step = s.current_step().expect("a step");
        assert_eq!(
            (step.actor.as_str(), step.time),
            ("kubectl", Time::from_secs(60))
        );
        let image_change = s.position();
        assert!(image_change > 50, "{image_change}");
        s.next_action();
        assert_eq!(s.position(), image_change, "no later command");
        assert_notice(&s, "No later step is a kubectl command.");
        s.seek(image_change + 5);
        s.previous_action();
        assert_eq!(s.position(), image_change);
        s.previous_action();
        assert_eq!(s.position(), 1);
    }

    /// How many steps the session's scenario takes to its end, as the core (and the CLI) runs it.
    fn steps_to_the_end(s: &Session) -> usize {
        crate::sim::scenario::run_with(&s.scenario, |_, _| {})
            .steps
            .len()
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
        let end = steps_to_the_end(&s);
        assert_eq!(s.position(), end);
        assert!(!s.forward());
        s.seek(10);
        s.run_to_end();
        assert_eq!(s.position(), end);
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
        s.act(UserAction::Apply(edited)).expect("applies");
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
        s.act(UserAction::Apply(edited)).expect("applies");
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
    fn a_link_to_a_run_with_an_apply_brings_the_applied_manifest() {
        let mut s = rolling();
        assert_eq!(s.last_applied_text(), None);
        s.seek(12);
        let edited =
            manifest::set_field(&s.manifest_text(), "spec.replicas", Some("7")).expect("set");
        s.act(UserAction::Apply(edited.clone())).expect("applies");
        let query = crate::ui::link::session_query(&s, "");
        let mut opened = crate::ui::link::open(&query).expect("the link opens");
        assert_eq!(opened.last_applied_text(), Some(edited));
        // Before the apply's step the cluster still runs the scenario's manifest.
        opened.seek(5);
        assert_eq!(opened.last_applied_text(), None);
    }

    #[test]
    fn an_immutable_change_is_refused_and_changes_nothing() {
        let mut s = rolling();
        s.seek(12);
        let text = s.manifest_text();
        let edited = text.replace("{app: web}", "{app: api}");
        assert!(manifest::check(&edited).is_ok(), "valid on its own");
        let err = s
            .act(UserAction::Apply(edited))
            .expect_err("selector is immutable");
        // kubectl's one message, which names each field once.
        assert_eq!(err.matches("spec.selector").count(), 1, "{err}");
        assert!(err.contains("field is immutable"), "{err}");
        assert_eq!(s.position(), 12);
    }
}
