//! Condition vocabulary shared by Deployments and ReplicaSets: the status word and the closed set
//! of reasons the controllers write.

use serde::{Deserialize, Serialize};

/// `metav1.ConditionStatus`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ConditionStatus {
    True,
    False,
    Unknown,
}

impl ConditionStatus {
    /// The status as kubectl prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::True => "True",
            Self::False => "False",
            Self::Unknown => "Unknown",
        }
    }
}

/// Every reason the deployment and replica-set controllers put on a condition
/// (`pkg/controller/deployment/util/deployment_util.go` constants and the ReplicaSet failure
/// reasons). `Unset` is the empty reason some upstream test fixtures use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ConditionReason {
    NewReplicaSetCreated,
    FoundNewReplicaSet,
    ReplicaSetUpdated,
    NewReplicaSetAvailable,
    ProgressDeadlineExceeded,
    DeploymentPaused,
    DeploymentResumed,
    ReplicaSetCreateError,
    MinimumReplicasAvailable,
    MinimumReplicasUnavailable,
    FailedCreate,
    FailedDelete,
    #[serde(rename = "")]
    Unset,
}

impl ConditionReason {
    /// The exact upstream string.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NewReplicaSetCreated => "NewReplicaSetCreated",
            Self::FoundNewReplicaSet => "FoundNewReplicaSet",
            Self::ReplicaSetUpdated => "ReplicaSetUpdated",
            Self::NewReplicaSetAvailable => "NewReplicaSetAvailable",
            Self::ProgressDeadlineExceeded => "ProgressDeadlineExceeded",
            Self::DeploymentPaused => "DeploymentPaused",
            Self::DeploymentResumed => "DeploymentResumed",
            Self::ReplicaSetCreateError => "ReplicaSetCreateError",
            Self::MinimumReplicasAvailable => "MinimumReplicasAvailable",
            Self::MinimumReplicasUnavailable => "MinimumReplicasUnavailable",
            Self::FailedCreate => "FailedCreate",
            Self::FailedDelete => "FailedDelete",
            Self::Unset => "",
        }
    }

    /// Parses an upstream reason string; unknown strings give `None`.
    pub fn parse(s: &str) -> Option<Self> {
        const ALL: [ConditionReason; 13] = [
            ConditionReason::NewReplicaSetCreated,
            ConditionReason::FoundNewReplicaSet,
            ConditionReason::ReplicaSetUpdated,
            ConditionReason::NewReplicaSetAvailable,
            ConditionReason::ProgressDeadlineExceeded,
            ConditionReason::DeploymentPaused,
            ConditionReason::DeploymentResumed,
            ConditionReason::ReplicaSetCreateError,
            ConditionReason::MinimumReplicasAvailable,
            ConditionReason::MinimumReplicasUnavailable,
            ConditionReason::FailedCreate,
            ConditionReason::FailedDelete,
            ConditionReason::Unset,
        ];
        ALL.into_iter().find(|r| r.as_str() == s)
    }
}
