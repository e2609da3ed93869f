//! The Node: a machine with allocatable CPU and memory, which can be cordoned or become NotReady.

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
