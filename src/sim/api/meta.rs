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

    /// The wall-clock date this instant stands for, where kubectl prints one (simulated time 0
    /// is 2026-01-01T00:00:00Z): year, month, day, hour, minute, second and the weekday
    /// (0 is Sunday).
    fn civil(self) -> (i64, i64, i64, i64, i64, i64, usize) {
        const EPOCH_DAYS: i64 = 20_454; // 2026-01-01 in days since 1970-01-01
        let secs = i64::try_from(self.0 / 1000).unwrap_or(i64::MAX / 2);
        let days = EPOCH_DAYS + secs / 86_400;
        let rem = secs % 86_400;
        // 1970-01-01 was a Thursday.
        let weekday = usize::try_from((days + 4).rem_euclid(7)).unwrap_or(0);
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let d = doy - (153 * mp + 2) / 5 + 1;
        let m = if mp < 10 { mp + 3 } else { mp - 9 };
        let y = yoe + era * 400 + i64::from(m <= 2);
        (y, m, d, rem / 3600, (rem / 60) % 60, rem % 60, weekday)
    }

    /// RFC 3339 in UTC (`2026-01-01T00:01:10Z`), as the API writes a time into a field.
    pub fn rfc3339(self) -> String {
        let (y, mo, d, h, mi, s, _) = self.civil();
        format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
    }

    /// RFC 1123 with a numeric zone (`Thu, 01 Jan 2026 00:01:10 +0000`), Go's
    /// `time.RFC1123Z`, which `kubectl describe` prints its dates in.
    pub fn rfc1123z(self) -> String {
        const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
        const MONTHS: [&str; 12] = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ];
        let (y, mo, d, h, mi, s, wd) = self.civil();
        let month = usize::try_from(mo - 1).ok().and_then(|i| MONTHS.get(i));
        format!(
            "{}, {d:02} {} {y:04} {h:02}:{mi:02}:{s:02} +0000",
            DAYS[wd % 7],
            month.unwrap_or(&"Jan")
        )
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

/// `controller.kubernetes.io/pod-deletion-cost`.
pub const POD_DELETION_COST_ANNOTATION: &str = "controller.kubernetes.io/pod-deletion-cost";

/// `GetDeletionCostFromPodAnnotations`: the pod's deletion cost, 0 when the annotation is
/// absent; `None` when it is not a base-10 32-bit integer written without a plus sign or
/// leading zeros (`+10` and `008` are refused), which the ReplicaSet controller reads as 0.
pub fn pod_deletion_cost(annotations: &BTreeMap<String, String>) -> Option<i32> {
    let Some(value) = annotations.get(POD_DELETION_COST_ANNOTATION) else {
        return Some(0);
    };
    let valid_first_digit = value.starts_with('-')
        || value == "0"
        || value.starts_with(|c: char| ('1'..='9').contains(&c));
    if !valid_first_digit {
        return None;
    }
    value.parse().ok()
}

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

#[cfg(test)]
mod tests {
    use super::Time;

    #[test]
    fn wall_clock_dates_count_days_from_2026() {
        assert_eq!(Time::ZERO.rfc3339(), "2026-01-01T00:00:00Z");
        let march = Time::from_secs(86_400 * 59 + 3661);
        assert_eq!(march.rfc3339(), "2026-03-01T01:01:01Z");
        assert_eq!(Time::ZERO.rfc1123z(), "Thu, 01 Jan 2026 00:00:00 +0000");
        assert_eq!(
            Time::from_millis(70_900).rfc1123z(),
            "Thu, 01 Jan 2026 00:01:10 +0000"
        );
        assert_eq!(march.rfc1123z(), "Sun, 01 Mar 2026 01:01:01 +0000");
        assert_eq!(
            Time::from_secs(86_400 * 365).rfc1123z(),
            "Fri, 01 Jan 2027 00:00:00 +0000"
        );
    }
}
