//! A pod's tolerations: which of a node's taints the pod accepts, and for how long it stays on a
//! node under a `NoExecute` taint. Tolerations are kept verbatim in the pod spec's `extra` map
//! (RolloutScope types only the fields its controllers read), so they are read here as JSON.
//!
//! The simulated nodes carry the taints the control plane sets itself (the node lifecycle
//! controller's `node.kubernetes.io/unreachable`, `NoSchedule` and `NoExecute`, on a node whose
//! kubelet stopped, and `node.kubernetes.io/unschedulable:NoSchedule` on a cordoned node) and
//! the taints a scenario gives its nodes.

use super::PodSpec;
use super::node::Taint;
use serde_json::{Value, json};

/// The taint of a node whose kubelet stopped posting status.
pub const UNREACHABLE: &str = "node.kubernetes.io/unreachable";
/// The taint of a node whose kubelet reports it not ready.
pub const NOT_READY: &str = "node.kubernetes.io/not-ready";
/// The taint of a cordoned node.
pub const UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable";
/// `defaultNotReadyTolerationSeconds` and `defaultUnreachableTolerationSeconds` of the
/// DefaultTolerationSeconds admission plugin.
pub const DEFAULT_TOLERATION_SECONDS: i64 = 300;

/// The tolerations the pod template asks for, as written.
pub fn written(spec: &PodSpec) -> &[Value] {
    spec.extra
        .get("tolerations")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The tolerations the DefaultTolerationSeconds admission plugin adds to a pod created with
/// `written`: `not-ready` and `unreachable`, `NoExecute`, for 300 seconds each, unless a
/// toleration already covers that taint's key and `NoExecute` effect.
pub fn admission_defaults(written: &[Value]) -> Vec<Value> {
    let covers = |taint: &str| {
        written.iter().any(|t| {
            let key = text(t, "key");
            (key.is_empty() || key == taint) && matches!(text(t, "effect"), "" | "NoExecute")
        })
    };
    [NOT_READY, UNREACHABLE]
        .into_iter()
        .filter(|taint| !covers(taint))
        .map(|taint| {
            json!({
                "key": taint,
                "operator": "Exists",
                "effect": "NoExecute",
                "tolerationSeconds": DEFAULT_TOLERATION_SECONDS
            })
        })
        .collect()
}

/// Every toleration a pod created from `spec` has: the written ones, then the admission
/// plugin's.
pub fn of_pod(spec: &PodSpec) -> Vec<Value> {
    let written = written(spec);
    let mut all = written.to_vec();
    all.extend(admission_defaults(written));
    all
}

/// `Toleration.ToleratesTaint` for a taint with this key and effect and no value: an empty
/// effect matches every effect, an empty key (with `Exists`) every key; `Equal` (the default
/// operator) needs the toleration's value to equal the taint's, which is empty here.
pub fn tolerates(t: &Value, key: &str, effect: &str) -> bool {
    tolerates_taint(t, key, "", effect)
}

/// `Toleration.ToleratesTaint`: the effects match (an empty one matches all), the keys match (an
/// empty one, with `Exists`, matches all), and with `Equal` (the default operator) the values
/// are equal; `Exists` takes any value.
pub fn tolerates_taint(t: &Value, key: &str, value: &str, effect: &str) -> bool {
    let (t_key, t_effect) = (text(t, "key"), text(t, "effect"));
    if !t_effect.is_empty() && t_effect != effect {
        return false;
    }
    if !t_key.is_empty() && t_key != key {
        return false;
    }
    match text(t, "operator") {
        "" | "Equal" => text(t, "value") == value,
        "Exists" => true,
        _ => false,
    }
}

/// Whether any of `tolerations` tolerates the taint (`TolerationsTolerateTaint`).
pub fn tolerated(tolerations: &[Value], key: &str, effect: &str) -> bool {
    tolerations.iter().any(|t| tolerates(t, key, effect))
}

/// The first of the node's `NoSchedule` and `NoExecute` taints that none of `tolerations`
/// tolerates (`FindMatchingUntoleratedTaint`, as TaintToleration's filter calls it).
pub fn untolerated_taint<'t>(tolerations: &[Value], taints: &'t [Taint]) -> Option<&'t Taint> {
    taints.iter().find(|taint| {
        matches!(taint.effect.as_str(), "NoSchedule" | "NoExecute")
            && !tolerations
                .iter()
                .any(|t| tolerates_taint(t, &taint.key, &taint.value, &taint.effect))
    })
}

/// How many of the node's `PreferNoSchedule` taints the pod does not tolerate, counting only
/// its tolerations with that effect or none (`countIntolerableTaintsPreferNoSchedule`), which
/// TaintToleration's score counts against the node.
pub fn intolerable_prefer_no_schedule(tolerations: &[Value], taints: &[Taint]) -> i64 {
    let preferring: Vec<&Value> = tolerations
        .iter()
        .filter(|t| matches!(text(t, "effect"), "" | "PreferNoSchedule"))
        .collect();
    taints
        .iter()
        .filter(|taint| taint.effect == "PreferNoSchedule")
        .filter(|taint| {
            !preferring
                .iter()
                .any(|t| tolerates_taint(t, &taint.key, &taint.value, &taint.effect))
        })
        .count() as i64
}

/// What the taint eviction controller does with a pod on a node tainted `key:NoExecute`
/// (`processPodOnNode` with `getMinTolerationTime`), counted from when it saw the pod there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eviction {
    /// No toleration matches the taint (or one allows 0 s or less): evicted at once.
    Now,
    /// Evicted once the matching toleration's `tolerationSeconds` have passed.
    AfterSeconds(i64),
    /// A matching toleration has no `tolerationSeconds`: the pod stays, whatever happens.
    Never,
}

/// How long the first of `tolerations` that tolerates this `NoExecute` taint lets the pod stay
/// (`GetMatchingTolerations`): `None` when none tolerates it, `Some(None)` when the one that does
/// has no `tolerationSeconds` (for ever).
pub fn toleration_seconds(tolerations: &[Value], taint: &Taint) -> Option<Option<i64>> {
    tolerations
        .iter()
        .find(|t| tolerates_taint(t, &taint.key, &taint.value, "NoExecute"))
        .map(|t| t.get("tolerationSeconds").and_then(Value::as_i64))
}

/// The eviction of a pod with `tolerations` from a node with these `NoExecute` taints
/// (`GetMatchingTolerations`, then `getMinTolerationTime`): at once if one of them is not
/// tolerated, else after the shortest `tolerationSeconds` of the tolerations used (the first
/// that tolerates each taint), never if none of those has a time.
pub fn no_execute_eviction_all(tolerations: &[Value], taints: &[&Taint]) -> Eviction {
    let mut shortest: Option<i64> = None;
    for taint in taints {
        let Some(used) = toleration_seconds(tolerations, taint) else {
            return Eviction::Now;
        };
        if let Some(secs) = used {
            shortest = Some(shortest.map_or(secs, |s| s.min(secs)));
        }
    }
    match shortest {
        None => Eviction::Never,
        Some(secs) if secs <= 0 => Eviction::Now,
        Some(secs) => Eviction::AfterSeconds(secs),
    }
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_admission_defaults_and_the_first_matching_toleration_decide_the_eviction() {
        let unreachable = Taint::new(UNREACHABLE, "", "NoExecute");
        let none: Vec<Value> = Vec::new();
        let defaults = admission_defaults(&none);
        assert_eq!(defaults.len(), 2);
        assert_eq!(
            no_execute_eviction_all(&defaults, &[&unreachable]),
            Eviction::AfterSeconds(300)
        );
        // An own toleration for the key replaces the default for it.
        let own = vec![
            json!({"key": UNREACHABLE, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}),
        ];
        let mut all = own.clone();
        all.extend(admission_defaults(&own));
        assert_eq!(all.len(), 2, "only not-ready is added");
        assert_eq!(
            no_execute_eviction_all(&all, &[&unreachable]),
            Eviction::AfterSeconds(60)
        );
        // The first matching toleration decides, not the shortest.
        let first = vec![
            json!({"key": UNREACHABLE, "operator": "Exists", "effect": "NoExecute"}),
            json!({"key": UNREACHABLE, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}),
        ];
        assert_eq!(
            no_execute_eviction_all(&first, &[&unreachable]),
            Eviction::Never
        );
        // Tolerating everything, for ever: no default is added and the pod is never evicted.
        let every = vec![json!({"operator": "Exists"})];
        assert!(admission_defaults(&every).is_empty());
        assert_eq!(
            no_execute_eviction_all(&every, &[&unreachable]),
            Eviction::Never
        );
        // Nothing matches: at once; a NoSchedule toleration does not match NoExecute.
        let no_schedule =
            vec![json!({"key": UNREACHABLE, "operator": "Exists", "effect": "NoSchedule"})];
        assert_eq!(
            no_execute_eviction_all(&no_schedule, &[&unreachable]),
            Eviction::Now
        );
        assert!(tolerated(&no_schedule, UNREACHABLE, "NoSchedule"));
        assert!(!tolerated(&no_schedule, UNSCHEDULABLE, "NoSchedule"));
        // Equal needs the (empty) value; a zero time evicts at once.
        let equal = vec![json!({"key": UNSCHEDULABLE, "value": "x", "effect": "NoSchedule"})];
        assert!(!tolerated(&equal, UNSCHEDULABLE, "NoSchedule"));
        let zero = vec![json!({"key": UNREACHABLE, "operator": "Exists", "tolerationSeconds": 0})];
        assert_eq!(
            no_execute_eviction_all(&zero, &[&unreachable]),
            Eviction::Now
        );
    }
}
