//! Label selectors: the `matchLabels` / `matchExpressions` queries that tie a Deployment to its
//! ReplicaSets and Pods.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `metav1.LabelSelector`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LabelSelector {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub match_labels: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub match_expressions: Vec<LabelSelectorRequirement>,
}

/// One `matchExpressions` entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelSelectorRequirement {
    pub key: String,
    pub operator: SelectorOperator,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
}

/// The operators a `matchExpressions` entry may use. Anything else is kept so that validation can
/// name it (`"Near" is not a valid label selector operator`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum SelectorOperator {
    In,
    NotIn,
    Exists,
    DoesNotExist,
    Other(String),
}

impl From<String> for SelectorOperator {
    fn from(s: String) -> Self {
        match s.as_str() {
            "In" => Self::In,
            "NotIn" => Self::NotIn,
            "Exists" => Self::Exists,
            "DoesNotExist" => Self::DoesNotExist,
            _ => Self::Other(s),
        }
    }
}

impl From<SelectorOperator> for String {
    fn from(op: SelectorOperator) -> Self {
        op.as_str().to_string()
    }
}

impl SelectorOperator {
    /// The operator as written in a manifest.
    pub fn as_str(&self) -> &str {
        match self {
            Self::In => "In",
            Self::NotIn => "NotIn",
            Self::Exists => "Exists",
            Self::DoesNotExist => "DoesNotExist",
            Self::Other(s) => s,
        }
    }
}

impl LabelSelector {
    /// Whether the selector has neither labels nor expressions. Upstream treats such a selector
    /// as "select everything", which a Deployment refuses (`SelectingAll`).
    pub fn is_empty(&self) -> bool {
        self.match_labels.is_empty() && self.match_expressions.is_empty()
    }

    /// Whether `labels` satisfy every requirement of the selector (`labels.Selector.Matches`).
    /// An invalid operator matches nothing, as a selector that fails to parse does upstream.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.match_labels
            .iter()
            .all(|(k, v)| labels.get(k) == Some(v))
            && self.match_expressions.iter().all(|req| {
                let value = labels.get(&req.key);
                match &req.operator {
                    SelectorOperator::In => value.is_some_and(|v| req.values.contains(v)),
                    SelectorOperator::NotIn => value.is_none_or(|v| !req.values.contains(v)),
                    SelectorOperator::Exists => value.is_some(),
                    SelectorOperator::DoesNotExist => value.is_none(),
                    SelectorOperator::Other(_) => false,
                }
            })
    }

    /// This selector with one more `matchLabels` entry, as the controller adds
    /// `pod-template-hash` to a new ReplicaSet's selector.
    pub fn with_label(&self, key: &str, value: &str) -> LabelSelector {
        let mut out = self.clone();
        out.match_labels.insert(key.to_string(), value.to_string());
        out
    }
}
