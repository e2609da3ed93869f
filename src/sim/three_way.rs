//! The three-way merge of `kubectl apply` (client-side apply): from the manifest the last apply
//! recorded (original), the manifest applied now (modified) and the live object (current) it
//! works out the new object, as `CreateThreeWayMergePatch` and the API server's strategic
//! merge of that patch do between them.
//!
//! A field the manifest sets takes the manifest's value. A field the last applied manifest set
//! and this one leaves out is removed (and defaulted again). Any other live field stays: that
//! is how a `kubectl scale`, a `rollout pause`, a `rollout restart` or a server default
//! survives a later apply. Lists of named things (containers, their ports and env, volumes)
//! are merged item by item under the merge key their Kubernetes type declares
//! (`patchMergeKey`); other lists are replaced whole. `spec.strategy` and each volume keep only
//! the keys the manifest names once the merge changes them (`retainKeys`), so switching to
//! `Recreate` drops the old `rollingUpdate`.

use serde_json::{Map, Value};

/// The merge key of a list field, found by the field names that lead to it (list indices are
/// not part of the path), or `None` for a list that is replaced whole.
fn merge_key(path: &[&str]) -> Option<&'static str> {
    let (last, parent) = path.split_last()?;
    let in_pod_spec = parent.ends_with(&["template", "spec"]);
    let in_container = matches!(
        parent.last(),
        Some(&("containers" | "initContainers" | "ephemeralContainers"))
    );
    match *last {
        "containers"
        | "initContainers"
        | "ephemeralContainers"
        | "volumes"
        | "imagePullSecrets"
        | "resourceClaims"
        | "schedulingGates"
            if in_pod_spec =>
        {
            Some("name")
        }
        "hostAliases" if in_pod_spec => Some("ip"),
        "topologySpreadConstraints" if in_pod_spec => Some("topologyKey"),
        "env" if in_container => Some("name"),
        "ports" if in_container => Some("containerPort"),
        "volumeMounts" if in_container => Some("mountPath"),
        "volumeDevices" if in_container => Some("devicePath"),
        _ => None,
    }
}

/// Whether the object at `path` is patched with `retainKeys`: the Deployment's strategy, and a
/// volume (a list item, so its path is the list's).
fn retains_keys(path: &[&str]) -> bool {
    path == ["spec", "strategy"] || path.ends_with(&["template", "spec", "volumes"])
}

/// The value `kubectl apply` leaves at `path`, from the last applied value there (if any), the
/// manifest's and the live one (if any).
pub fn merge(
    original: Option<&Value>,
    modified: &Value,
    current: Option<&Value>,
    path: &[&str],
) -> Value {
    match modified {
        Value::Object(m) => Value::Object(merge_map(
            original.and_then(Value::as_object),
            m,
            current.and_then(Value::as_object),
            path,
        )),
        Value::Array(m) => merge_key(path)
            .and_then(|key| {
                merge_list(
                    original.and_then(Value::as_array).map(Vec::as_slice),
                    m,
                    current.and_then(Value::as_array).map_or(&[], Vec::as_slice),
                    key,
                    path,
                )
            })
            .unwrap_or_else(|| modified.clone()),
        _ => modified.clone(),
    }
}

fn merge_map(
    original: Option<&Map<String, Value>>,
    modified: &Map<String, Value>,
    current: Option<&Map<String, Value>>,
    path: &[&str],
) -> Map<String, Value> {
    let mut out = current.cloned().unwrap_or_default();
    for (k, m) in modified {
        // An explicit null in the manifest deletes the field.
        if m.is_null() {
            out.remove(k);
            continue;
        }
        let mut at = path.to_vec();
        at.push(k.as_str());
        let merged = merge(
            original.and_then(|o| o.get(k)),
            m,
            current.and_then(|c| c.get(k)),
            &at,
        );
        out.insert(k.clone(), merged);
    }
    for (k, o) in original.into_iter().flatten() {
        if !modified.contains_key(k) && !o.is_null() {
            out.remove(k);
        }
    }
    if retains_keys(path) && current.is_none_or(|c| *c != out) {
        out.retain(|k, _| modified.contains_key(k));
    }
    out
}

/// A list merged under `key`: the manifest's items, each merged with the live item of the same
/// key, in the manifest's order; a live item the last apply set and the manifest leaves out is
/// deleted; any other live item stays where it was relative to the others (the server's
/// `mergeSortedSlice`). `None` if an item lacks the key, and the list is replaced whole.
fn merge_list(
    original: Option<&[Value]>,
    modified: &[Value],
    current: &[Value],
    key: &str,
    path: &[&str],
) -> Option<Value> {
    let key_of = |v: &Value| v.as_object().and_then(|o| o.get(key)).cloned();
    let modified_keys = modified.iter().map(key_of).collect::<Option<Vec<_>>>()?;
    let current_keys = current.iter().map(key_of).collect::<Option<Vec<_>>>()?;
    let deleted: Vec<Value> = original
        .into_iter()
        .flatten()
        .filter_map(key_of)
        .filter(|k| !modified_keys.contains(k))
        .collect();
    let live = |k: &Value| current_keys.iter().position(|c| c == k);
    let patched: Vec<(Option<usize>, Value)> = modified
        .iter()
        .zip(&modified_keys)
        .map(|(m, k)| {
            let o = original
                .into_iter()
                .flatten()
                .find(|x| key_of(x).as_ref() == Some(k));
            let c = live(k).map(|i| &current[i]);
            (live(k), merge(o, m, c, path))
        })
        .collect();
    let server_only: Vec<(Option<usize>, &Value)> = current
        .iter()
        .zip(&current_keys)
        .enumerate()
        .filter(|(_, (_, k))| !modified_keys.contains(k) && !deleted.contains(k))
        .map(|(i, (c, _))| (Some(i), c))
        .collect();
    // A live-only item goes before the first manifest item that sits after it in the live
    // list; the manifest's items keep their own order.
    let mut out = Vec::with_capacity(patched.len() + server_only.len());
    let (mut i, mut j) = (0, 0);
    while i < server_only.len() || j < patched.len() {
        let left_first = match (server_only.get(i), patched.get(j)) {
            (Some(_), None) => true,
            (Some((Some(l), _)), Some((Some(r), _))) => l < r,
            _ => false,
        };
        if left_first {
            out.push(server_only[i].1.clone());
            i += 1;
        } else {
            out.push(patched[j].1.clone());
            j += 1;
        }
    }
    Some(Value::Array(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(original: Option<Value>, modified: Value, current: Value) -> Value {
        merge(original.as_ref(), &modified, Some(&current), &["spec"])
    }

    #[test]
    fn fields_nobody_applied_stay_and_fields_dropped_from_the_manifest_go() {
        let merged = spec(
            Some(json!({"replicas": 3, "minReadySeconds": 5})),
            json!({"replicas": 4}),
            json!({"replicas": 3, "minReadySeconds": 5, "paused": true}),
        );
        assert_eq!(merged, json!({"replicas": 4, "paused": true}));
    }

    #[test]
    fn an_explicit_null_deletes() {
        let merged = spec(None, json!({"paused": null}), json!({"paused": true}));
        assert_eq!(merged, json!({}));
    }

    #[test]
    fn switching_to_recreate_drops_rolling_update() {
        let live = json!({"strategy": {"type": "RollingUpdate",
            "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}});
        let merged = spec(
            None,
            json!({"strategy": {"type": "Recreate"}}),
            live.clone(),
        );
        assert_eq!(merged, json!({"strategy": {"type": "Recreate"}}));
        // An unchanged strategy keeps what the server filled in.
        let merged = spec(
            None,
            json!({"strategy": {"type": "RollingUpdate"}}),
            live.clone(),
        );
        assert_eq!(merged, live);
    }

    #[test]
    fn containers_merge_by_name_and_keep_live_fields() {
        let tpl = |containers: Value| json!({"template": {"spec": {"containers": containers}}});
        let merged = spec(
            Some(tpl(json!([{"name": "web", "image": "web:1.0"},
                            {"name": "old", "image": "old:1"}]))),
            tpl(json!([{"name": "web", "image": "web:latest"}])),
            tpl(json!([{"name": "log", "image": "log:1"},
                       {"name": "web", "image": "web:1.0", "imagePullPolicy": "IfNotPresent",
                        "ports": [{"containerPort": 80}, {"containerPort": 90}]},
                       {"name": "old", "image": "old:1"}])),
        );
        // `old` was applied and is gone from the manifest; `log` was never applied and stays
        // first; `web` keeps its live pull policy and ports.
        assert_eq!(
            merged,
            tpl(json!([{"name": "log", "image": "log:1"},
                       {"name": "web", "image": "web:latest", "imagePullPolicy": "IfNotPresent",
                        "ports": [{"containerPort": 80}, {"containerPort": 90}]}]))
        );
    }

    #[test]
    fn lists_without_a_merge_key_are_replaced() {
        let tpl = |v: Value| json!({"template": {"spec": {"tolerations": v}}});
        let merged = spec(
            None,
            tpl(json!([{"key": "b"}])),
            tpl(json!([{"key": "a"}, {"key": "b"}])),
        );
        assert_eq!(merged, tpl(json!([{"key": "b"}])));
    }
}
