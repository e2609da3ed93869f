//! Events: the `kubectl get events` records each actor emits, with the exact upstream reasons and
//! message texts.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// `EventType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum EventType {
    Normal,
    Warning,
}

impl EventType {
    /// The type as kubectl prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Normal => "Normal",
            Self::Warning => "Warning",
        }
    }
}

/// Every event reason the simulated components emit (§13, §16).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum EventReason {
    ScalingReplicaSet,
    ReplicaSetCreateError,
    SelectingAll,
    DeploymentRollback,
    DeploymentRollbackRevisionNotFound,
    DeploymentRollbackTemplateUnchanged,
    SuccessfulCreate,
    FailedCreate,
    SuccessfulDelete,
    FailedDelete,
    Scheduled,
    FailedScheduling,
    Pulling,
    Pulled,
    Failed,
    BackOff,
    ErrImageNeverPull,
    Created,
    Started,
    Killing,
    Unhealthy,
    NodeNotReady,
    NodeNotSchedulable,
    NodeSchedulable,
    NodeReady,
    /// The kubelet started (`Starting kubelet.`).
    Starting,
    NodeHasSufficientMemory,
    NodeHasNoDiskPressure,
    NodeHasSufficientPID,
    NodeAllocatableEnforced,
    TaintManagerEviction,
    /// The disruption controller found no pod for a PodDisruptionBudget.
    NoPods,
    /// Several PodDisruptionBudgets count one pod.
    MultiplePodDisruptionBudgets,
}

impl EventReason {
    /// The exact upstream string.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ScalingReplicaSet => "ScalingReplicaSet",
            Self::ReplicaSetCreateError => "ReplicaSetCreateError",
            Self::SelectingAll => "SelectingAll",
            Self::DeploymentRollback => "DeploymentRollback",
            Self::DeploymentRollbackRevisionNotFound => "DeploymentRollbackRevisionNotFound",
            Self::DeploymentRollbackTemplateUnchanged => "DeploymentRollbackTemplateUnchanged",
            Self::SuccessfulCreate => "SuccessfulCreate",
            Self::FailedCreate => "FailedCreate",
            Self::SuccessfulDelete => "SuccessfulDelete",
            Self::FailedDelete => "FailedDelete",
            Self::Scheduled => "Scheduled",
            Self::FailedScheduling => "FailedScheduling",
            Self::Pulling => "Pulling",
            Self::Pulled => "Pulled",
            Self::Failed => "Failed",
            Self::BackOff => "BackOff",
            Self::ErrImageNeverPull => "ErrImageNeverPull",
            Self::Created => "Created",
            Self::Started => "Started",
            Self::Killing => "Killing",
            Self::Unhealthy => "Unhealthy",
            Self::NodeNotReady => "NodeNotReady",
            Self::NodeNotSchedulable => "NodeNotSchedulable",
            Self::NodeSchedulable => "NodeSchedulable",
            Self::NodeReady => "NodeReady",
            Self::Starting => "Starting",
            Self::NodeHasSufficientMemory => "NodeHasSufficientMemory",
            Self::NodeHasNoDiskPressure => "NodeHasNoDiskPressure",
            Self::NodeHasSufficientPID => "NodeHasSufficientPID",
            Self::NodeAllocatableEnforced => "NodeAllocatableEnforced",
            Self::TaintManagerEviction => "TaintManagerEviction",
            Self::NoPods => "NoPods",
            Self::MultiplePodDisruptionBudgets => "MultiplePodDisruptionBudgets",
        }
    }
}

/// `ObjectReference`: what an event is about (`kind/name`, and for container events the
/// `spec.containers{<c>}` field path).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectRef {
    /// One of a few fixed kinds, so borrowed rather than written out for every event.
    pub kind: Cow<'static, str>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field_path: Option<String>,
}

impl ObjectRef {
    /// A reference to `kind/name`.
    pub fn new(kind: &'static str, name: &str) -> ObjectRef {
        ObjectRef {
            kind: Cow::Borrowed(kind),
            name: name.to_string(),
            field_path: None,
        }
    }

    /// A reference to one container of a pod.
    pub fn container(pod: &str, container: &str) -> ObjectRef {
        ObjectRef {
            kind: Cow::Borrowed("Pod"),
            name: pod.to_string(),
            field_path: Some(["spec.containers{", container, "}"].concat()),
        }
    }

    /// An init container of a pod, as its field path names it: `spec.initContainers{migrate}`.
    pub fn init_container(pod: &str, container: &str) -> ObjectRef {
        ObjectRef {
            kind: Cow::Borrowed("Pod"),
            name: pod.to_string(),
            field_path: Some(["spec.initContainers{", container, "}"].concat()),
        }
    }

    /// `kind/name` in lower case, as `kubectl get events` prints the OBJECT column.
    pub fn kubectl_object(&self) -> String {
        format!("{}/{}", self.kind.to_lowercase(), self.name)
    }
}

/// `core/v1 Event` as one emission (the trace folds repeats the way `kubectl` shows them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    #[serde(rename = "type")]
    pub type_: EventType,
    pub reason: EventReason,
    pub involved_object: ObjectRef,
    pub message: String,
    /// The reporting component: `deployment-controller`, `replicaset-controller`,
    /// `default-scheduler`, or `kubelet, <node>`. Borrowed where it is a fixed component name,
    /// which it is for every controller event.
    pub source: Cow<'static, str>,
    /// The component emitted it, but its event recorder's spam filter kept it from the API
    /// server (see `sim::recorder`): kubectl never shows it, though it counts towards the
    /// count of the next one that gets through.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dropped: bool,
    /// The run of the recording process: a kubelet that started again has a new event
    /// recorder, whose events neither fold into the old one's nor share its spam filter (0 for
    /// the first run, and for every other component).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub run: u32,
}

/// Whether a run number is the first run's, which the trace leaves out.
fn is_zero(run: &u32) -> bool {
    *run == 0
}

impl Event {
    /// A Normal event.
    pub fn normal(
        source: &'static str,
        object: ObjectRef,
        reason: EventReason,
        message: String,
    ) -> Event {
        Event {
            type_: EventType::Normal,
            reason,
            involved_object: object,
            message,
            source: Cow::Borrowed(source),
            dropped: false,
            run: 0,
        }
    }

    /// A Warning event.
    pub fn warning(
        source: &'static str,
        object: ObjectRef,
        reason: EventReason,
        message: String,
    ) -> Event {
        Event {
            type_: EventType::Warning,
            reason,
            involved_object: object,
            message,
            source: Cow::Borrowed(source),
            dropped: false,
            run: 0,
        }
    }
}
