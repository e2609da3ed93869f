//! The Node: a machine with allocatable CPU and memory and the taints it repels pods with, which
//! can be cordoned or become NotReady.

use super::meta::ObjectMeta;
use serde::{Deserialize, Serialize};

/// `v1 Node`, reduced to what scheduling and the kubelet need.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Node {
    pub metadata: ObjectMeta,
    pub spec: NodeSpec,
    pub status: NodeStatus,
}

/// `NodeSpec`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NodeSpec {
    /// Set by `kubectl cordon`.
    pub unschedulable: bool,
    /// The node's pod CIDR index, used to hand out pod IPs (`10.244.<n>.<m>`).
    pub pod_cidr_index: u32,
    /// The taints the scenario gives the node (`kubectl taint`, a kubeadm control plane's
    /// `node-role.kubernetes.io/control-plane:NoSchedule`). The control plane's own taints
    /// (cordoned, unreachable) are not stored here but follow the node's state: see
    /// [`Node::taints`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub taints: Vec<Taint>,
}

/// `v1.Taint`: the node repels pods that do not tolerate it, with its `effect`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Taint {
    pub key: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub value: String,
    /// `NoSchedule`, `PreferNoSchedule` or `NoExecute`.
    pub effect: String,
    /// `timeAdded`, stamped here on a `NoExecute` taint a scenario's `taint` action adds: taint
    /// eviction work begun before it belongs to an earlier taint that was removed since (upstream
    /// cancels that work in its eviction queue; this stamp is how the model recognises it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_added: Option<super::Time>,
}

impl Taint {
    /// One taint (no `timeAdded`: the model's taints carry no time).
    pub fn new(key: &str, value: &str, effect: &str) -> Taint {
        Taint {
            key: key.to_string(),
            value: value.to_string(),
            effect: effect.to_string(),
            time_added: None,
        }
    }

    /// A taint as `kubectl taint` writes it: `key=value:Effect` or `key:Effect` (an effect-less
    /// `key` leaves the effect empty, for the caller to refuse).
    pub fn parse(text: &str) -> Taint {
        let (kv, effect) = text.rsplit_once(':').unwrap_or((text, ""));
        let (key, value) = kv.split_once('=').unwrap_or((kv, ""));
        Taint::new(key, value, effect)
    }

    /// As `kubectl describe node` prints it: `key=value:Effect`, or `key:Effect` without a value.
    pub fn text(&self) -> String {
        if self.value.is_empty() {
            format!("{}:{}", self.key, self.effect)
        } else {
            format!("{}={}:{}", self.key, self.value, self.effect)
        }
    }
}

/// The taint effects the API server accepts, in the order its error lists them.
pub const TAINT_EFFECTS: [&str; 3] = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

impl Node {
    /// Every taint the node carries now: the node lifecycle controller's
    /// `node.kubernetes.io/unreachable:NoSchedule` while it is NotReady (its `NoExecute` twin
    /// comes one monitor pass later, written into the spec's taints),
    /// `node.kubernetes.io/unschedulable:NoSchedule` while it is cordoned, then the spec's.
    pub fn taints(&self) -> Vec<Taint> {
        use super::toleration::{UNREACHABLE, UNSCHEDULABLE};
        let mut all = Vec::new();
        if !self.status.ready {
            all.push(Taint::new(UNREACHABLE, "", "NoSchedule"));
        }
        if self.spec.unschedulable {
            all.push(Taint::new(UNSCHEDULABLE, "", "NoSchedule"));
        }
        all.extend(self.spec.taints.iter().cloned());
        all
    }
}

/// `NodeStatus`: allocatable resources in milli-CPU and bytes, readiness, and the images the
/// container runtime already holds.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NodeStatus {
    pub allocatable_milli_cpu: i64,
    pub allocatable_memory: i64,
    pub allocatable_pods: i64,
    pub ready: bool,
    pub images: Vec<String>,
}
