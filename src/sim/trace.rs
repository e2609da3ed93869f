//! The trace: the record of each step the simulator took — when, which actor, which of the five
//! stages, the events it emitted, and a narration of why — and its text form, which is also the
//! golden-file format.

use super::api::{Event, EventType, Time};
use serde::{Deserialize, Serialize};
use std::fmt;

/// What the trace says after an event the recorder's spam filter kept from the API server.
pub const DROPPED_NOTE: &str =
    " [dropped by the recorder's spam filter: 25 events per object, then 1 per 5 min]";

/// The plural ending of a counted noun in a narration: `1 pod`, `2 pods`, `0 pods`.
pub fn plural(n: impl Into<i64>) -> &'static str {
    if n.into() == 1 { "" } else { "s" }
}

/// The five stages a learner walks through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Stage {
    /// 1 — declare the desired replicas.
    Declare = 1,
    /// 2 — reconcile a ReplicaSet.
    Reconcile = 2,
    /// 3 — schedule and start Pods.
    Schedule = 3,
    /// 4 — check readiness and rollout.
    Readiness = 4,
    /// 5 — retry or roll back safely.
    Retry = 5,
}

impl Stage {
    /// All stages in order.
    pub const ALL: [Stage; 5] = [
        Stage::Declare,
        Stage::Reconcile,
        Stage::Schedule,
        Stage::Readiness,
        Stage::Retry,
    ];

    /// The stage number, 1 to 5.
    pub fn number(self) -> u8 {
        self as u8
    }

    /// The stage's title.
    pub fn title(self) -> &'static str {
        match self {
            Stage::Declare => "Declare the desired replicas",
            Stage::Reconcile => "Reconcile a ReplicaSet",
            Stage::Schedule => "Schedule and start Pods",
            Stage::Readiness => "Check readiness and rollout",
            Stage::Retry => "Retry or roll back safely",
        }
    }

    /// One paragraph on what happens in this stage.
    pub fn explanation(self) -> &'static str {
        match self {
            Stage::Declare => {
                "You (or kubectl) write the Deployment: how many replicas, which pod template, which update strategy. The API server validates and stores it and bumps metadata.generation; nothing runs yet."
            }
            Stage::Reconcile => {
                "The deployment controller compares the template with its ReplicaSets, creates a new ReplicaSet for a new template and resizes new and old ones within maxSurge and maxUnavailable. Each ReplicaSet controller then creates or deletes pods to match its replica count."
            }
            Stage::Schedule => {
                "The scheduler picks a node with room for each new pod's CPU and memory requests. The kubelet on that node pulls the image, creates the container and starts it."
            }
            Stage::Readiness => {
                "The kubelet runs the probes; a pod counts as Ready when its readiness probe passes, and as available after minReadySeconds more. ReplicaSets and the Deployment report these counts, and the Progressing and Available conditions tell whether the rollout is moving and complete."
            }
            Stage::Retry => {
                "When something fails — no node has room, an image cannot be pulled, a probe kills a container, the rollout stops making progress — Kubernetes retries with back-off and reports it in events and conditions. Rolling back (kubectl rollout undo) makes an old template current again."
            }
        }
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.number(), self.title())
    }
}

/// One step of the simulation: exactly one actor's action.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// 1-based step number.
    pub index: usize,
    pub time: Time,
    /// `kubectl`, `deployment-controller`, `replicaset-controller`, `default-scheduler`, or
    /// `kubelet/<node>`.
    pub actor: String,
    /// What the actor looked at, e.g. `deployment/web` or `pod/web-5d9f-x7k2p`.
    pub object: String,
    pub stage: Stage,
    pub narration: String,
    pub events: Vec<Event>,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "#{:<4} {:>9}  [{}] {} {}",
            self.index,
            self.time.to_string(),
            self.stage.number(),
            self.actor,
            self.object
        )?;
        if !self.narration.is_empty() {
            // A narration of several lines (kubectl's list of refusals) stays indented under
            // its step, so the trace still reads one step at a time.
            writeln!(f, "      {}", self.narration.replace('\n', "\n      "))?;
        }
        for e in &self.events {
            let mark = if e.type_ == EventType::Warning {
                "!"
            } else {
                " "
            };
            writeln!(
                f,
                "    {mark} {:<7} {:<18} {:<40} {}{}",
                e.type_.as_str(),
                e.reason.as_str(),
                e.involved_object.kubectl_object(),
                e.message,
                if e.dropped { DROPPED_NOTE } else { "" }
            )?;
        }
        Ok(())
    }
}
