//! `PodDisruptionBudget` (policy/v1): how many of the pods a selector picks must stay healthy
//! while they are evicted on purpose (a drain). The Eviction API reads its status, which the
//! disruption controller keeps, and refuses an eviction when no disruption is allowed.

use super::{ConditionStatus, IntOrString, LabelSelector, ObjectMeta, Time};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodDisruptionBudget {
    pub metadata: ObjectMeta,
    pub spec: PodDisruptionBudgetSpec,
    pub status: PodDisruptionBudgetStatus,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodDisruptionBudgetSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_available: Option<IntOrString>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_unavailable: Option<IntOrString>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    /// `IfHealthyBudget` (the default when unset) or `AlwaysAllow`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unhealthy_pod_eviction_policy: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodDisruptionBudgetStatus {
    pub observed_generation: i64,
    /// Pods the Eviction API has let go but whose deletion the controller has not yet seen,
    /// with when each was let go.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub disrupted_pods: BTreeMap<String, Time>,
    pub disruptions_allowed: i32,
    pub current_healthy: i32,
    pub desired_healthy: i32,
    pub expected_pods: i32,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<PdbCondition>,
}

/// The `DisruptionAllowed` condition (`metav1.Condition`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PdbCondition {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: ConditionStatus,
    pub observed_generation: i64,
    pub last_transition_time: Time,
    pub reason: String,
    pub message: String,
}

impl PodDisruptionBudget {
    /// Whether the Eviction API holds a pod with these labels to this budget: a missing or
    /// empty selector holds none ("it should match nothing, not everything").
    pub fn selects(&self, labels: &BTreeMap<String, String>) -> bool {
        self.spec
            .selector
            .as_ref()
            .is_some_and(|s| !s.is_empty() && s.matches(labels))
    }

    /// Whether the disruption controller counts a pod with these labels: `{}` takes in every
    /// pod (`LabelSelectorAsSelector` of an empty selector is `Everything`), a missing selector
    /// none.
    pub fn counts(&self, labels: &BTreeMap<String, String>) -> bool {
        self.spec
            .selector
            .as_ref()
            .is_some_and(|s| s.matches(labels))
    }
}

impl PodDisruptionBudgetStatus {
    /// `UpdateDisruptionAllowedCondition`: `DisruptionAllowed` is True (`SufficientPods`) while a
    /// disruption is allowed and False (`InsufficientPods`) otherwise; its transition time moves
    /// only when its status does (`meta.SetStatusCondition`).
    pub fn update_disruption_allowed_condition(&mut self, generation: i64, now: Time) {
        let (status, reason) = if self.disruptions_allowed > 0 {
            (ConditionStatus::True, "SufficientPods")
        } else {
            (ConditionStatus::False, "InsufficientPods")
        };
        let since = self
            .conditions
            .iter()
            .find(|c| c.type_ == "DisruptionAllowed" && c.status == status)
            .map_or(now.truncate_to_secs(), |c| c.last_transition_time);
        self.conditions.retain(|c| c.type_ != "DisruptionAllowed");
        self.conditions.push(PdbCondition {
            type_: "DisruptionAllowed".into(),
            status,
            observed_generation: generation,
            last_transition_time: since,
            reason: reason.into(),
            message: String::new(),
        });
    }
}
