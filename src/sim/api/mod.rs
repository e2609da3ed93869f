//! The API objects: Kubernetes-shaped types (`metadata / spec / status`) for the kinds the
//! simulated control plane stores, one file per kind, with closed sets as enums.
//!
//! Field names are the snake_case of the JSON names, so a manifest a learner copies from a real
//! cluster deserializes as it is (`maxSurge` → `max_surge`). Only the fields the controllers read
//! are typed; the rest of a pod template is kept verbatim in `extra` maps so that editing, say,
//! an environment variable still changes the template and starts a rollout, as it does upstream.

pub mod condition;
pub mod deployment;
pub mod event;
pub mod int_or_percent;
pub mod meta;
pub mod node;
pub mod pdb;
pub mod pod;
pub mod quantity;
pub mod replica_set;
pub mod selector;
pub mod shared;
pub mod toleration;

pub use condition::{ConditionReason, ConditionStatus};
pub use deployment::{
    Deployment, DeploymentCondition, DeploymentConditionType, DeploymentSpec, DeploymentStatus,
    DeploymentStrategy, DeploymentStrategyType, RollingUpdateDeployment,
};
pub use event::{Event, EventReason, EventType, ObjectRef};
pub use int_or_percent::IntOrString;
pub use meta::{ObjectMeta, OwnerReference, StringMap, Time};
pub use node::{Node, NodeSpec, NodeStatus, Taint};
pub use pdb::{PodDisruptionBudget, PodDisruptionBudgetSpec, PodDisruptionBudgetStatus};
pub use pod::{
    Container, ContainerState, ContainerStatus, Pod, PodCondition, PodConditionType, PodPhase,
    PodSpec, PodStatus, PodTemplateSpec, Probe, PullPolicy,
};
pub use replica_set::{
    ReplicaSet, ReplicaSetCondition, ReplicaSetConditionType, ReplicaSetSpec, ReplicaSetStatus,
};
pub use selector::{LabelSelector, LabelSelectorRequirement, SelectorOperator};
pub use shared::Shared;

/// The namespace every simulated object lives in; scenarios describe one namespace.
pub const DEFAULT_NAMESPACE: &str = "default";
