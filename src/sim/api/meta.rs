//! Object metadata: names, UIDs, generations, labels, annotations, owner references and the
//! logical timestamps every object carries.

use super::Shared;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

/// A point on the simulator's logical clock, in milliseconds since the scenario started.
///
/// The simulator never reads a wall clock; `Time` is the only notion of "now". It renders as
/// seconds with millisecond precision (`12.5s`), which is what the trace prints.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Time(pub u64);

impl Time {
    /// The scenario's start.
    pub const ZERO: Time = Time(0);

    /// A time `ms` milliseconds after the start.
    pub const fn from_millis(ms: u64) -> Time {
        Time(ms)
    }

    /// A time `s` whole seconds after the start.
    pub const fn from_secs(s: u64) -> Time {
        Time(s.saturating_mul(1000))
    }

    /// Milliseconds since the start.
    pub const fn as_millis(self) -> u64 {
        self.0
    }

    /// This time plus `ms` milliseconds, saturating instead of overflowing.
    pub const fn plus_millis(self, ms: u64) -> Time {
        Time(self.0.saturating_add(ms))
    }

    /// This time plus `s` seconds (negative values are clamped to zero).
    pub fn plus_secs(self, s: i64) -> Time {
        self.plus_millis(u64::try_from(s).unwrap_or(0).saturating_mul(1000))
    }

    /// Milliseconds from `earlier` to `self`, or zero when `earlier` is later.
    pub const fn millis_since(self, earlier: Time) -> u64 {
        self.0.saturating_sub(earlier.0)
    }

    /// The time truncated to whole seconds, as `metav1.Time` stores it on the wire.
    pub const fn truncate_to_secs(self) -> Time {
        Time(self.0 / 1000 * 1000)
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (s, ms) = (self.0 / 1000, self.0 % 1000);
        if ms == 0 {
            write!(f, "{s}s")
        } else {
            let frac = format!("{ms:03}");
            write!(f, "{s}.{}s", frac.trim_end_matches('0'))
        }
    }
}

/// `metav1.ObjectMeta`, reduced to the fields the controllers read and write.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ObjectMeta {
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub generate_name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
    #[serde(skip_serializing_if = "is_zero_i64")]
    pub generation: i64,
    #[serde(skip_serializing_if = "is_zero_time")]
    pub creation_timestamp: Time,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<Time>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deletion_grace_period_seconds: Option<i64>,
    #[serde(skip_serializing_if = "is_empty_map")]
    pub labels: StringMap,
    #[serde(skip_serializing_if = "is_empty_map")]
    pub annotations: StringMap,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub owner_references: Vec<OwnerReference>,
}

/// Labels, annotations and selector labels: shared and copied only when written, because they
/// are copied far more often than written. Every pod of a ReplicaSet gets the template's labels,
/// and every sync copies the Deployment (its annotations hold the whole last-applied manifest)
/// and its ReplicaSets; as plain maps each copy allocated every key and value again.
pub type StringMap = Shared<BTreeMap<String, String>>;

/// Whether a label or annotation map is empty (serialization leaves such maps out).
pub fn is_empty_map(m: &StringMap) -> bool {
    m.is_empty()
}

fn is_zero_i64(v: &i64) -> bool {
    *v == 0
}

fn is_zero_time(t: &Time) -> bool {
    *t == Time::ZERO
}

impl ObjectMeta {
    /// The owner reference marked `controller: true`, if any (`metav1.GetControllerOf`).
    pub fn controller_ref(&self) -> Option<&OwnerReference> {
        self.owner_references.iter().find(|r| r.controller)
    }

    /// Whether the object has been asked to go away and is waiting for its finalizers or grace.
    pub fn is_deleting(&self) -> bool {
        self.deletion_timestamp.is_some()
    }
}

/// `metav1.OwnerReference`: the link from a ReplicaSet to its Deployment and from a Pod to its
/// ReplicaSet.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OwnerReference {
    /// The owner's API version and kind: fixed texts, borrowed rather than allocated for every
    /// pod and ReplicaSet (and every copy of one).
    pub api_version: Cow<'static, str>,
    pub kind: Cow<'static, str>,
    pub name: String,
    pub uid: String,
    pub controller: bool,
    pub block_owner_deletion: bool,
}
