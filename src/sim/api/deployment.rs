//! The Deployment: the object a learner edits. Its spec declares the desired replicas, the pod
//! template and the update strategy; its status is what the deployment controller reports back.

use super::condition::{ConditionReason, ConditionStatus};
use super::int_or_percent::IntOrString;
use super::meta::{ObjectMeta, Time};
use super::pod::PodTemplateSpec;
use super::selector::LabelSelector;
use serde::{Deserialize, Serialize};

/// `apps/v1 Deployment`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Deployment {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    pub spec: DeploymentSpec,
    pub status: DeploymentStatus,
}

/// `DeploymentSpec`. Optional fields stay `Option` so that defaulting (§1.1) is visible.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DeploymentSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    pub template: PodTemplateSpec,
    pub strategy: DeploymentStrategy,
    #[serde(skip_serializing_if = "is_zero")]
    pub min_ready_seconds: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision_history_limit: Option<i32>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub paused: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress_deadline_seconds: Option<i32>,
}

fn is_zero(v: &i32) -> bool {
    *v == 0
}

/// `DeploymentStrategy`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DeploymentStrategy {
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<DeploymentStrategyType>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rolling_update: Option<RollingUpdateDeployment>,
}

/// The strategy types. An unknown word is kept so validation can reject it by name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum DeploymentStrategyType {
    Recreate,
    RollingUpdate,
    Other(String),
}

impl From<String> for DeploymentStrategyType {
    fn from(s: String) -> Self {
        match s.as_str() {
            "Recreate" => Self::Recreate,
            "RollingUpdate" => Self::RollingUpdate,
            _ => Self::Other(s),
        }
    }
}

impl From<DeploymentStrategyType> for String {
    fn from(t: DeploymentStrategyType) -> Self {
        t.as_str().to_string()
    }
}

impl DeploymentStrategyType {
    /// The type as written in a manifest.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Recreate => "Recreate",
            Self::RollingUpdate => "RollingUpdate",
            Self::Other(s) => s,
        }
    }
}

/// `RollingUpdateDeployment`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RollingUpdateDeployment {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_unavailable: Option<IntOrString>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_surge: Option<IntOrString>,
}

/// `DeploymentStatus`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DeploymentStatus {
    pub observed_generation: i64,
    pub replicas: i32,
    pub updated_replicas: i32,
    pub ready_replicas: i32,
    pub available_replicas: i32,
    pub unavailable_replicas: i32,
    /// Pods with a deletion timestamp that are not terminal yet (KEP-3973; beta and on by default
    /// in v1.35). `None` means unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminating_replicas: Option<i32>,
    pub conditions: Vec<DeploymentCondition>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collision_count: Option<i32>,
}

/// The Deployment condition types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum DeploymentConditionType {
    Available,
    Progressing,
    ReplicaFailure,
}

impl DeploymentConditionType {
    /// The type as kubectl prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Available => "Available",
            Self::Progressing => "Progressing",
            Self::ReplicaFailure => "ReplicaFailure",
        }
    }
}

/// `DeploymentCondition`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeploymentCondition {
    #[serde(rename = "type")]
    pub type_: DeploymentConditionType,
    pub status: ConditionStatus,
    pub last_update_time: Time,
    pub last_transition_time: Time,
    pub reason: ConditionReason,
    pub message: String,
}

impl Deployment {
    /// `spec.replicas` after defaulting; an unset value means 1.
    pub fn replicas(&self) -> i32 {
        self.spec.replicas.unwrap_or(1)
    }

    /// The strategy type after defaulting.
    pub fn strategy_type(&self) -> DeploymentStrategyType {
        self.spec
            .strategy
            .type_
            .clone()
            .unwrap_or(DeploymentStrategyType::RollingUpdate)
    }

    /// The condition of the given type, if present (`GetDeploymentCondition`).
    pub fn condition(&self, t: DeploymentConditionType) -> Option<&DeploymentCondition> {
        self.status.conditions.iter().find(|c| c.type_ == t)
    }
}

impl DeploymentStatus {
    /// The condition of the given type, if present.
    pub fn condition(&self, t: DeploymentConditionType) -> Option<&DeploymentCondition> {
        self.conditions.iter().find(|c| c.type_ == t)
    }
}
