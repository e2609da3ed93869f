//! The ReplicaSet: one revision of a Deployment's pod template, kept at a replica count by the
//! replica-set controller.

use super::condition::{ConditionReason, ConditionStatus};
use super::meta::{ObjectMeta, Time};
use super::pod::PodTemplateSpec;
use super::selector::LabelSelector;
use super::shared::Shared;
use serde::{Deserialize, Serialize};

/// `apps/v1 ReplicaSet`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ReplicaSet {
    /// Shared, like the template's metadata and the selector: the deployment controller works
    /// on copies of every ReplicaSet in each pass, and these are the parts that cost to copy.
    pub metadata: Shared<ObjectMeta>,
    pub spec: ReplicaSetSpec,
    pub status: ReplicaSetStatus,
}

/// `ReplicaSetSpec`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ReplicaSetSpec {
    pub replicas: i32,
    pub min_ready_seconds: i32,
    pub selector: Shared<LabelSelector>,
    pub template: PodTemplateSpec,
}

/// `ReplicaSetStatus`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ReplicaSetStatus {
    pub replicas: i32,
    pub fully_labeled_replicas: i32,
    pub ready_replicas: i32,
    pub available_replicas: i32,
    /// `None` until the controller has counted them (KEP-3973).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminating_replicas: Option<i32>,
    pub observed_generation: i64,
    pub conditions: Vec<ReplicaSetCondition>,
}

/// The ReplicaSet condition types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReplicaSetConditionType {
    ReplicaFailure,
}

impl ReplicaSetConditionType {
    /// The type as the API writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ReplicaFailure => "ReplicaFailure",
        }
    }
}

/// `ReplicaSetCondition`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicaSetCondition {
    #[serde(rename = "type")]
    pub type_: ReplicaSetConditionType,
    pub status: ConditionStatus,
    pub last_transition_time: Time,
    pub reason: ConditionReason,
    pub message: String,
}

impl ReplicaSet {
    /// The value of an annotation, if set.
    pub fn annotation(&self, key: &str) -> Option<&str> {
        self.metadata.annotations.get(key).map(String::as_str)
    }
}
