//! Label selectors: the `matchLabels` / `matchExpressions` queries that tie a Deployment to its
//! ReplicaSets and Pods.

use super::meta::{StringMap, is_empty_map};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `metav1.LabelSelector`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LabelSelector {
    #[serde(skip_serializing_if = "is_empty_map")]
    pub match_labels: StringMap,
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

    /// Adds `key <operator> [value]` for each of `keys` that `labels` carries, with the value
    /// there: how `matchLabelKeys` (`In`) and `mismatchLabelKeys` (`NotIn`) join a pod affinity
    /// term's or a topology spread constraint's selector, with the pod's own labels. A key the
    /// pod does not carry is left out.
    pub fn merge_label_keys<'k>(
        &mut self,
        keys: impl IntoIterator<Item = &'k str>,
        operator: SelectorOperator,
        labels: &BTreeMap<String, String>,
    ) {
        for key in keys {
            if let Some(value) = labels.get(key) {
                self.match_expressions.push(LabelSelectorRequirement {
                    key: key.to_string(),
                    operator: operator.clone(),
                    values: vec![value.clone()],
                });
            }
        }
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

    /// The selector as text (`metav1.LabelSelectorAsSelector(sel).String()`), which kubectl's
    /// `-o wide` SELECTOR column prints: one requirement per label or expression, sorted by key
    /// (labels before expressions on the same key), written `key=value`, `key in (a,b)`,
    /// `key notin (a,b)`, `key` or `!key`, with the values of a set sorted. An expression with an
    /// operator upstream would refuse is left out.
    pub fn to_selector_string(&self) -> String {
        let labels = self
            .match_labels
            .iter()
            .map(|(k, v)| (k.as_str(), format!("{k}={v}")));
        let expressions = self.match_expressions.iter().filter_map(|req| {
            let mut values: Vec<&str> = req.values.iter().map(String::as_str).collect();
            crate::sim::order::sort(&mut values);
            let set = values.join(",");
            let key = &req.key;
            let text = match &req.operator {
                SelectorOperator::In => format!("{key} in ({set})"),
                SelectorOperator::NotIn => format!("{key} notin ({set})"),
                SelectorOperator::Exists => key.clone(),
                SelectorOperator::DoesNotExist => format!("!{key}"),
                SelectorOperator::Other(_) => return None,
            };
            Some((key.as_str(), text))
        });
        let mut requirements: Vec<(&str, String)> = labels.chain(expressions).collect();
        crate::sim::order::sort_by(&mut requirements, |a, b| a.0.cmp(b.0));
        requirements
            .into_iter()
            .map(|(_, text)| text)
            .collect::<Vec<_>>()
            .join(",")
    }

    /// This selector with one more `matchLabels` entry, as the controller adds
    /// `pod-template-hash` to a new ReplicaSet's selector.
    pub fn with_label(&self, key: &str, value: &str) -> LabelSelector {
        let mut out = self.clone();
        out.match_labels.insert(key.to_string(), value.to_string());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selector_string_is_sorted_by_key_like_labels_selector_string() {
        let sel = LabelSelector {
            match_labels: BTreeMap::from([
                ("app".to_string(), "web".to_string()),
                ("pod-template-hash".to_string(), "5d9f".to_string()),
            ])
            .into(),
            match_expressions: vec![
                LabelSelectorRequirement {
                    key: "tier".into(),
                    operator: SelectorOperator::In,
                    values: vec!["fe".into(), "be".into()],
                },
                LabelSelectorRequirement {
                    key: "canary".into(),
                    operator: SelectorOperator::DoesNotExist,
                    values: vec![],
                },
                LabelSelectorRequirement {
                    key: "zone".into(),
                    operator: SelectorOperator::NotIn,
                    values: vec!["b".into()],
                },
                LabelSelectorRequirement {
                    key: "env".into(),
                    operator: SelectorOperator::Exists,
                    values: vec![],
                },
            ],
        };
        assert_eq!(
            sel.to_selector_string(),
            "app=web,!canary,env,pod-template-hash=5d9f,tier in (be,fe),zone notin (b)"
        );
        assert_eq!(LabelSelector::default().to_selector_string(), "");
    }
}
