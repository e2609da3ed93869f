//! An object as `kubectl get <kind> <name> -o yaml` prints it: the API server's JSON of the
//! stored object (defaults filled in, zero `omitempty` fields left out, times in RFC 3339), then
//! written as YAML the way kubectl's printer writes it. That printer is `sigs.k8s.io/yaml` over
//! go-yaml v2, whose habits a learner sees on every real cluster and which this module follows:
//! keys in go-yaml's order, a sequence not indented under its key, a string quoted only where
//! YAML 1.1 would read it as something else (`"1"`, `"True"`, the timestamps) or where plain
//! text cannot hold it (`'containers with unready status: [web]'`), long strings folded past
//! column 80, and a string with line breaks (the last-applied manifest) as a literal block.
//!
//! `-o json` prints the same object as kubectl's JSON printer does: Go's `json.MarshalIndent`
//! with four spaces, keys sorted, and `<`, `>` and `&` escaped.
//!
//! Deployments, ReplicaSets and Pods are printed. The object's `resourceVersion` and `managedFields`
//! are left out: the simulator keeps no write counter, and kubectl hides the managed fields.

use super::api::{
    DEFAULT_NAMESPACE, Deployment, Pod, PodConditionType, ReplicaSet, Time, toleration,
};
use super::controller::replica_set::priority_class_value;
use super::kubectl::{self, Moment, Resource, not_found};
use super::kubelet::World;
use super::store::Store;
use serde_json::{Map, Value};
use std::cmp::Ordering;

/// go-yaml's `best_width`: a string is folded at the first space past this column.
const BEST_WIDTH: usize = 80;
/// go-yaml's `best_indent`.
const INDENT: usize = 2;

/// The printed forms of `kubectl get -o`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    Yaml,
    Json,
}

impl Output {
    fn print(self, v: &Value) -> String {
        match self {
            Output::Yaml => to_yaml(v),
            Output::Json => to_json(v),
        }
    }
}

/// `kubectl get <kind> [<name>] -o yaml` for Deployments and ReplicaSets: each request names one
/// object, or with no name asks for every object of its kind. One named object prints as
/// itself; anything else prints as kubectl's `List` of the objects found. The second part is
/// kubectl's NotFound error for each name that names nothing.
///
/// # Errors
/// A kind RolloutScope does not print as YAML.
pub fn get(
    m: &Moment<'_>,
    requests: &[(Resource, Option<&str>)],
) -> Result<(String, Vec<String>), String> {
    get_as(m, requests, Output::Yaml)
}

/// [`get`] in the form asked for: `-o yaml` or `-o json`.
///
/// # Errors
/// A kind RolloutScope does not print in these forms.
pub fn get_as(
    m: &Moment<'_>,
    requests: &[(Resource, Option<&str>)],
    output: Output,
) -> Result<(String, Vec<String>), String> {
    let (store, world) = (m.sim.store(), m.sim.world());
    let mut items = Vec::new();
    let mut missing = Vec::new();
    for &(kind, name) in requests {
        match (kind, name) {
            (Resource::Deployments, Some(n)) => match store.deployments.get(n) {
                Some(d) => items.push(deployment_object(d)),
                None => missing.push(not_found("deployments.apps", n)),
            },
            (Resource::Deployments, None) => {
                items.extend(store.deployments.values().map(deployment_object));
            }
            (Resource::ReplicaSets, Some(n)) => match store.replica_sets.get(n) {
                Some(rs) => items.push(replica_set_object(rs)),
                None => missing.push(not_found("replicasets.apps", n)),
            },
            (Resource::ReplicaSets, None) => {
                items.extend(store.replica_sets.values().map(replica_set_object));
            }
            (Resource::Pods, Some(n)) => match store.pods.get(n) {
                Some(p) => items.push(pod_object(store, world, p)),
                None => missing.push(not_found("pods", n)),
            },
            (Resource::Pods, None) => {
                items.extend(store.pods.values().map(|p| pod_object(store, world, p)));
            }
            _ => {
                return Err(
                    "error: RolloutScope prints -o yaml and -o json for deployments, replicasets and pods only"
                        .to_string(),
                );
            }
        }
    }
    let text = if matches!(requests, [(_, Some(_))]) {
        items
            .first()
            .map(|only| output.print(only))
            .unwrap_or_default()
    } else {
        output.print(&list(items))
    };
    Ok((text, missing))
}

/// Writes `v` as kubectl's JSON printer does (`json.MarshalIndent(obj, "", "    ")` and a final
/// line break): keys sorted, four-space indents, and Go's HTML-safe escapes.
pub fn to_json(v: &Value) -> String {
    let mut bytes = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut ser = serde_json::Serializer::with_formatter(&mut bytes, formatter);
    if serde::Serialize::serialize(v, &mut ser).is_err() {
        return String::new();
    }
    let mut out = super::manifest::go_html_safe(&String::from_utf8(bytes).unwrap_or_default());
    out.push('\n');
    out
}

/// kubectl's `List` of several objects.
fn list(items: Vec<Value>) -> Value {
    let mut list = Map::new();
    list.insert("apiVersion".into(), "v1".into());
    list.insert("items".into(), Value::Array(items));
    list.insert("kind".into(), "List".into());
    let mut meta = Map::new();
    meta.insert("resourceVersion".into(), "".into());
    list.insert("metadata".into(), Value::Object(meta));
    Value::Object(list)
}

/// The Deployment as the API server returns it.
fn deployment_object(d: &Deployment) -> Value {
    let mut v = serde_json::to_value(d).unwrap_or(Value::Null);
    wire_object(&mut v, d.metadata.creation_timestamp);
    if let Some(spec) = v.get_mut("spec") {
        wire_template(spec);
    }
    // Every count in DeploymentStatus is `omitempty`; terminatingReplicas is a pointer, so a
    // known 0 is printed.
    drop_zero(
        v.get_mut("status"),
        &[
            "observedGeneration",
            "replicas",
            "updatedReplicas",
            "readyReplicas",
            "availableReplicas",
            "unavailableReplicas",
        ],
    );
    v
}

/// The ReplicaSet as the API server returns it.
fn replica_set_object(rs: &ReplicaSet) -> Value {
    let mut v = serde_json::to_value(rs).unwrap_or(Value::Null);
    // The simulator's ReplicaSet carries no type fields; the API server's answer does.
    if let Some(object) = v.as_object_mut() {
        object.insert("apiVersion".into(), "apps/v1".into());
        object.insert("kind".into(), "ReplicaSet".into());
    }
    wire_object(&mut v, rs.metadata.creation_timestamp);
    if let Some(spec) = v.get_mut("spec") {
        wire_template(spec);
        drop_zero(Some(spec), &["minReadySeconds"]);
    }
    // `replicas` is required in ReplicaSetStatus; the other counts are `omitempty`.
    drop_zero(
        v.get_mut("status"),
        &[
            "fullyLabeledReplicas",
            "readyReplicas",
            "availableReplicas",
            "observedGeneration",
        ],
    );
    v
}

/// The Pod as the API server returns it (v1.35): the ReplicaSet's copy of the template with
/// what the API server adds at creation (`generation: 1`, `enableServiceLinks`, the priority
/// and preemption policy, the default service account, the DefaultTolerationSeconds
/// tolerations, the `kube-api-access-<5>` token volume mounted read-only into every container),
/// the scheduler's `nodeName`, and the status the kubelet reports. Its container statuses
/// carry, once the runtime has made the container, the runtime's fully qualified image name,
/// the container and image IDs, what was allocated (`allocatedResources`, `resources`), the
/// process's user (containerd 2 reports root's `uid: 0`), and each mount's status; its
/// conditions are in the kubelet's order with `lastProbeTime: null` and `observedGeneration`.
///
/// A graceful delete raises `metadata.generation` to 2 (`BeforeDelete`); the kubelet, syncing
/// the deleted pod, reports that generation as observed on its conditions and its status
/// (`observedGeneration`, which only the kubelet writes).
fn pod_object(store: &Store, world: &World, pod: &Pod) -> Value {
    let mut v = serde_json::to_value(pod).unwrap_or(Value::Null);
    let Some(object) = v.as_object_mut() else {
        return v;
    };
    object.insert("apiVersion".into(), "v1".into());
    object.insert("kind".into(), "Pod".into());
    let node = object.remove("nodeName");
    let generation = if pod.metadata.deletion_timestamp.is_some() {
        2
    } else {
        1
    };
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.insert("generation".into(), generation.into());
    }
    let token = kubectl::service_account_token_volume(pod);
    if let Some(spec) = object.get_mut("spec") {
        wire_pod_spec(spec);
        if let Some(spec) = spec.as_object_mut() {
            pod_spec_admission(spec, pod, node, token.as_deref());
        }
    }
    if let Some(status) = object.get_mut("status").and_then(Value::as_object_mut) {
        pod_status(status, store, world, pod, token.as_deref());
    }
    wire_object(&mut v, pod.metadata.creation_timestamp);
    v
}

/// What the API server's admission and defaulting add to a pod's spec at creation, and the
/// scheduler's binding.
fn pod_spec_admission(
    spec: &mut Map<String, Value>,
    pod: &Pod,
    node: Option<Value>,
    token: Option<&str>,
) {
    if let Some(node) = node {
        spec.insert("nodeName".into(), node);
    }
    // `SetDefaults_Pod`, then the Priority admission plugin (the class's value, or 0).
    spec.entry("enableServiceLinks").or_insert(true.into());
    let class = spec
        .get("priorityClassName")
        .and_then(Value::as_str)
        .unwrap_or("");
    let priority = priority_class_value(class).unwrap_or(0);
    spec.entry("priority").or_insert(priority.into());
    spec.entry("preemptionPolicy")
        .or_insert("PreemptLowerPriority".into());
    // The ServiceAccount admission plugin, and the deprecated field filled from it.
    let account = spec
        .entry("serviceAccountName")
        .or_insert("default".into())
        .clone();
    spec.insert("serviceAccount".into(), account);
    spec.insert(
        "tolerations".into(),
        Value::Array(toleration::of_pod(&pod.spec)),
    );
    let Some(token) = token else {
        return;
    };
    // `TokenVolumeSource`: the token, the cluster's CA bundle and the namespace.
    let volume = serde_json::json!({
        "name": token,
        "projected": {
            "defaultMode": 420,
            "sources": [
                {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                {"configMap": {"items": [{"key": "ca.crt", "path": "ca.crt"}], "name": "kube-root-ca.crt"}},
                {"downwardAPI": {"items": [{"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}, "path": "namespace"}]}}
            ]
        }
    });
    push_to(spec, "volumes", volume);
    for key in ["initContainers", "containers"] {
        let containers = spec.get_mut(key).and_then(Value::as_array_mut);
        for c in containers
            .into_iter()
            .flatten()
            .filter_map(Value::as_object_mut)
        {
            push_to(c, "volumeMounts", token_mount(token));
        }
    }
}

/// The token volume's mount, as the ServiceAccount admission plugin adds it to each container.
fn token_mount(token: &str) -> Value {
    serde_json::json!({
        "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
        "name": token,
        "readOnly": true
    })
}

/// Appends `item` to the list under `key`, making the list if there is none.
fn push_to(object: &mut Map<String, Value>, key: &str, item: Value) {
    match object.get_mut(key).and_then(Value::as_array_mut) {
        Some(list) => list.push(item),
        None => {
            object.insert(key.into(), Value::Array(vec![item]));
        }
    }
}

/// The pod's status as the kubelet and the API server report it (v1.35, where
/// `PodObservedGenerationTracking`, `InPlacePodVerticalScaling`, `SupplementalGroupsPolicy`
/// and `RecursiveReadOnlyMounts` are on).
fn pod_status(
    status: &mut Map<String, Value>,
    store: &Store,
    world: &World,
    pod: &Pod,
    token: Option<&str>,
) {
    // The kubelet's conditions carry the generation it last saw; the scheduler's
    // PodScheduled False of a pod no kubelet has, and a condition set before a delete, the
    // first.
    let kubelet_wrote = kubectl::kubelet_wrote_status(pod);
    let seen = if kubectl::kubelet_saw_deletion(store, pod) {
        2
    } else {
        1
    };
    let conditions: Vec<Value> = kubectl::conditions_in_api_order(store, pod)
        .into_iter()
        .map(|c| {
            let kubelets = kubelet_wrote && c.type_ != PodConditionType::DisruptionTarget;
            let mut v = serde_json::to_value(c).unwrap_or(Value::Null);
            if let Some(c) = v.as_object_mut() {
                c.insert("lastProbeTime".into(), Value::Null);
                c.insert(
                    "observedGeneration".into(),
                    (if kubelets { seen } else { 1 }).into(),
                );
            }
            v
        })
        .collect();
    status.insert("conditions".into(), Value::Array(conditions));
    status.insert("qosClass".into(), kubectl::qos_class(&pod.spec).into());
    // The simulator's own encoding spells these `hostIp` and `podIp`; each has a list beside it.
    for (ours, key, ips) in [
        ("hostIp", "hostIP", "hostIPs"),
        ("podIp", "podIP", "podIPs"),
    ] {
        if let Some(ip) = status.remove(ours).filter(|_| kubelet_wrote) {
            status.insert(ips.into(), serde_json::json!([{ "ip": ip }]));
            status.insert(key.into(), ip);
        }
    }
    // Only the kubelet writes these; a pod it has not synced has none (`omitempty`).
    if !kubelet_wrote {
        status.remove("containerStatuses");
        return;
    }
    status.insert("observedGeneration".into(), seen.into());
    for (key, containers) in [
        ("initContainerStatuses", &pod.spec.init_containers),
        ("containerStatuses", &pod.spec.containers),
    ] {
        let Some(statuses) = status.get_mut(key).and_then(Value::as_array_mut) else {
            continue;
        };
        for (cs, c) in statuses.iter_mut().zip(containers.iter()) {
            if let Some(cs) = cs.as_object_mut() {
                container_status(cs, pod, c, token, world);
            }
        }
    }
}

/// The identity of a container's first process as containerd 2 reports it
/// (`status.containerStatuses[].user.linux`): `runAsUser` (the container's over the pod's), else
/// the image's user, and `runAsGroup`, else group 0; its groups are its own, the pod's
/// `supplementalGroups` and its `fsGroup` (the `Merge` policy; the simulated images list no
/// other groups for their users), in ascending order.
fn process_user(pod: &Pod, c: &crate::sim::api::Container, image_user: i64) -> Value {
    let pod_context = pod.spec.extra.get("securityContext");
    let id = |key: &str| {
        crate::sim::kubelet::effective_security_field(pod, c, key).and_then(Value::as_i64)
    };
    let uid = id("runAsUser").unwrap_or(image_user);
    let gid = id("runAsGroup").unwrap_or(0);
    let mut groups = vec![gid];
    if let Some(context) = pod_context {
        let listed = context.get("supplementalGroups").and_then(Value::as_array);
        groups.extend(listed.into_iter().flatten().filter_map(Value::as_i64));
        groups.extend(context.get("fsGroup").and_then(Value::as_i64));
    }
    crate::sim::order::sort(&mut groups);
    groups.dedup();
    serde_json::json!({"linux": {"gid": gid, "supplementalGroups": groups, "uid": uid}})
}

/// One container's status: see [`pod_object`].
fn container_status(
    cs: &mut Map<String, Value>,
    pod: &Pod,
    c: &crate::sim::api::Container,
    token: Option<&str>,
    world: &World,
) {
    let restarts = cs.get("restartCount").and_then(Value::as_i64).unwrap_or(0);
    let restarts = i32::try_from(restarts).unwrap_or(0);
    let waiting_first = restarts == 0
        && !cs.contains_key("lastState")
        && cs.get("state").is_some_and(|s| s.get("waiting").is_some());
    let (image, image_id) = kubectl::image_refs(&c.image);
    if waiting_first {
        cs.insert("imageID".into(), "".into());
    } else {
        let id = kubectl::container_id(pod, &c.name, restarts);
        cs.insert("image".into(), image.into());
        cs.insert("imageID".into(), image_id.into());
        cs.insert("containerID".into(), id.clone().into());
        if let Some(terminated) = cs
            .get_mut("state")
            .and_then(|s| s.get_mut("terminated"))
            .and_then(Value::as_object_mut)
        {
            terminated.insert("containerID".into(), id.into());
        }
        let resources = serde_json::to_value(&c.resources).unwrap_or(Value::Null);
        if let Some(requests) = resources
            .get("requests")
            .filter(|r| r.as_object().is_some_and(|r| !r.is_empty()))
        {
            cs.insert("allocatedResources".into(), requests.clone());
        }
        cs.insert(
            "resources".into(),
            if resources.is_null() {
                Value::Object(Map::new())
            } else {
                resources
            },
        );
        cs.insert(
            "user".into(),
            process_user(pod, c, world.behavior(&c.image).user),
        );
    }
    // The run that ended last: the one before a running (or ended) container, or, for a
    // container waiting to be restarted, the same run its `containerID` names.
    let waiting = cs.get("state").is_some_and(|s| s.get("waiting").is_some());
    let last_run = if waiting { restarts } else { restarts - 1 };
    match cs.get_mut("lastState").and_then(Value::as_object_mut) {
        Some(last) => {
            if let Some(terminated) = last.get_mut("terminated").and_then(Value::as_object_mut) {
                terminated.insert(
                    "containerID".into(),
                    kubectl::container_id(pod, &c.name, last_run).into(),
                );
            }
        }
        None => {
            cs.insert("lastState".into(), Value::Object(Map::new()));
        }
    }
    // Each mount's status: its name, path, and for a read-only one `recursiveReadOnly`.
    let mut mounts: Vec<Value> = c
        .extra
        .get("volumeMounts")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    mounts.extend(token.map(token_mount));
    let mounts: Vec<Value> = mounts
        .iter()
        .map(|m| {
            let mut status = Map::new();
            for key in ["mountPath", "name"] {
                if let Some(v) = m.get(key) {
                    status.insert(key.into(), v.clone());
                }
            }
            if m.get("readOnly").and_then(Value::as_bool) == Some(true) {
                status.insert("readOnly".into(), true.into());
                status.insert("recursiveReadOnly".into(), "Disabled".into());
            }
            Value::Object(status)
        })
        .collect();
    if !mounts.is_empty() {
        cs.insert("volumeMounts".into(), Value::Array(mounts));
    }
}

/// What every stored object carries: its namespace and its creation time (at the scenario's
/// start too, which the simulator's own encoding leaves out), and its times as RFC 3339 strings.
fn wire_object(v: &mut Value, created: Time) {
    if let Some(meta) = v.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.entry("namespace")
            .or_insert_with(|| DEFAULT_NAMESPACE.into());
        meta.insert("creationTimestamp".into(), created.rfc3339().into());
    }
    wire_times(v);
}

/// The pod template as the API server defaults it: the fields `SetDefaults_Container` and
/// `SetDefaults_ContainerPort` fill in that the simulator leaves unset (they do not change what
/// it simulates), an empty `resources`, and no empty name or creation time in the template's
/// metadata (a zero `creationTimestamp` is omitted since v1.33, PR #130989).
fn wire_template(spec: &mut Value) {
    let Some(template) = spec.get_mut("template") else {
        return;
    };
    if let Some(meta) = template.get_mut("metadata").and_then(Value::as_object_mut) {
        if meta.get("name").and_then(Value::as_str) == Some("") {
            meta.remove("name");
        }
        meta.remove("creationTimestamp");
    }
    if let Some(pod_spec) = template.get_mut("spec") {
        wire_pod_spec(pod_spec);
    }
}

/// A pod spec (a template's, or a pod's) as the API server defaults it; see [`wire_template`].
fn wire_pod_spec(pod_spec: &mut Value) {
    defaults_by_field(pod_spec);
    let Some(pod) = pod_spec.as_object_mut() else {
        return;
    };
    // The deprecated `serviceAccount` stands in for a missing `serviceAccountName` on the way in
    // (`Convert_v1_PodSpec_To_core_PodSpec`) and is filled from it on the way out
    // (`Convert_core_PodSpec_To_v1_PodSpec`), so the two always agree.
    let name = |key: &str| {
        pod.get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    if let Some(account) = name("serviceAccountName").or_else(|| name("serviceAccount")) {
        pod.insert("serviceAccountName".into(), account.clone().into());
        pod.insert("serviceAccount".into(), account.into());
    }
    if let Some(volumes) = pod.get_mut("volumes").and_then(Value::as_array_mut) {
        for volume in volumes.iter_mut().filter_map(Value::as_object_mut) {
            // `SetDefaults_{ConfigMap,Secret,DownwardAPI,Projected}VolumeSource`: 0644.
            for source in ["configMap", "secret", "downwardAPI", "projected"] {
                if let Some(src) = volume.get_mut(source).and_then(Value::as_object_mut) {
                    src.entry("defaultMode").or_insert_with(|| 420.into());
                }
            }
            if let Some(host) = volume.get_mut("hostPath").and_then(Value::as_object_mut) {
                host.entry("type").or_insert_with(|| "".into());
            }
        }
    }
    for key in ["initContainers", "containers"] {
        let Some(containers) = pod.get_mut(key).and_then(Value::as_array_mut) else {
            continue;
        };
        for c in containers.iter_mut().filter_map(Value::as_object_mut) {
            c.entry("resources")
                .or_insert_with(|| Value::Object(Map::new()));
            c.entry("terminationMessagePath")
                .or_insert_with(|| "/dev/termination-log".into());
            c.entry("terminationMessagePolicy")
                .or_insert_with(|| "File".into());
            if let Some(ports) = c.get_mut("ports").and_then(Value::as_array_mut) {
                for p in ports.iter_mut().filter_map(Value::as_object_mut) {
                    p.entry("protocol").or_insert_with(|| "TCP".into());
                }
            }
        }
    }
}

/// A field's name and its default value.
type FieldDefault = (&'static str, fn() -> Value);

/// The defaults that follow a field wherever it is in the pod spec: `SetDefaults_HTTPGetAction`
/// (probes and lifecycle hooks), `SetDefaults_ObjectFieldSelector` (`apiVersion: v1`),
/// `SetDefaults_ServiceAccountTokenProjection` (an hour), a gRPC probe's `service` (no
/// `omitempty`) and a resource field's `divisor` (a Quantity, printed as `"0"` when unset).
fn defaults_by_field(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                if let Some(field) = value.as_object_mut() {
                    let defaults: &[FieldDefault] = match key.as_str() {
                        "httpGet" => &[("path", || "/".into()), ("scheme", || "HTTP".into())],
                        "fieldRef" => &[("apiVersion", || "v1".into())],
                        "resourceFieldRef" => &[("divisor", || "0".into())],
                        "serviceAccountToken" => &[("expirationSeconds", || 3600.into())],
                        "grpc" => &[("service", || "".into())],
                        _ => &[],
                    };
                    for (name, default) in defaults {
                        field.entry(*name).or_insert_with(default);
                    }
                }
                defaults_by_field(value);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(defaults_by_field),
        _ => {}
    }
}

/// Removes the listed `omitempty` counts that are zero, and an empty `conditions` list.
fn drop_zero(status: Option<&mut Value>, keys: &[&str]) {
    let Some(status) = status.and_then(Value::as_object_mut) else {
        return;
    };
    for key in keys {
        if status.get(*key).and_then(Value::as_i64) == Some(0) {
            status.remove(*key);
        }
    }
    if status
        .get("conditions")
        .and_then(Value::as_array)
        .is_some_and(Vec::is_empty)
    {
        status.remove("conditions");
    }
}

/// The simulator encodes a time as milliseconds; the API writes `metav1.Time` as RFC 3339.
fn wire_times(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                let is_time = matches!(
                    key.as_str(),
                    "creationTimestamp"
                        | "deletionTimestamp"
                        | "lastUpdateTime"
                        | "lastTransitionTime"
                        | "startTime"
                        | "startedAt"
                        | "finishedAt"
                );
                match value.as_u64() {
                    Some(ms) if is_time => *value = Time::from_millis(ms).rfc3339().into(),
                    _ => wire_times(value),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(wire_times),
        _ => {}
    }
}

/// Writes `v` as kubectl's YAML printer does (`yaml.Marshal` of `sigs.k8s.io/yaml`, which is
/// go-yaml v2's block style).
pub fn to_yaml(v: &Value) -> String {
    let mut w = Writer {
        out: String::new(),
        column: 0,
    };
    match v {
        Value::Object(map) if !map.is_empty() => w.mapping(map, 0),
        Value::Array(items) if !items.is_empty() => w.sequence(items, 0),
        other => {
            w.scalar(other, 0);
            w.newline();
        }
    }
    w.out
}

/// The output and the column the next character goes in.
struct Writer {
    out: String,
    column: usize,
}

impl Writer {
    fn put(&mut self, s: &str) {
        self.out.push_str(s);
        self.column += s.chars().count();
    }

    fn newline(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    fn indent(&mut self, indent: usize) {
        if self.column > 0 {
            self.newline();
        }
        while self.column < indent {
            self.out.push(' ');
            self.column += 1;
        }
    }

    /// A block mapping whose keys start at `indent`; the first key goes where the writer is
    /// (after a sequence's `- `), the others on lines of their own.
    fn mapping(&mut self, map: &Map<String, Value>, indent: usize) {
        let mut keys: Vec<&String> = map.keys().collect();
        crate::sim::order::sort_by(&mut keys, |a, b| go_yaml_key_order(a, b));
        for (i, key) in keys.into_iter().enumerate() {
            if i > 0 || self.column != indent {
                self.indent(indent);
            }
            self.key(key);
            self.put(":");
            match &map[key] {
                Value::Object(m) if !m.is_empty() => {
                    self.newline();
                    self.mapping(m, indent + INDENT);
                }
                // go-yaml writes a sequence in a mapping without indenting it.
                Value::Array(items) if !items.is_empty() => {
                    self.newline();
                    self.sequence(items, indent);
                }
                other => {
                    self.put(" ");
                    self.scalar(other, indent + INDENT);
                    if !self.out.ends_with('\n') {
                        self.newline();
                    }
                }
            }
        }
    }

    /// A block sequence whose dashes are at `indent`.
    fn sequence(&mut self, items: &[Value], indent: usize) {
        for item in items {
            self.indent(indent);
            self.put("- ");
            match item {
                Value::Object(m) if !m.is_empty() => self.mapping(m, indent + INDENT),
                Value::Array(inner) if !inner.is_empty() => self.sequence(inner, indent + INDENT),
                other => {
                    self.scalar(other, indent + INDENT);
                    if !self.out.ends_with('\n') {
                        self.newline();
                    }
                }
            }
        }
    }

    /// A mapping key: a scalar in go-yaml's simple-key context, never folded. A key with a line
    /// break (which no Kubernetes field or label key can have) is written double-quoted on one
    /// line, where go-yaml would write a complex `? ` key.
    fn key(&mut self, key: &str) {
        match choose_style(key) {
            Style::Plain => self.put(key),
            Style::Literal => self.double_quoted(key, usize::MAX, false),
            Style::Single => self.single_quoted(key, usize::MAX, false),
            Style::Double => self.double_quoted(key, usize::MAX, false),
        }
    }

    /// A scalar value; a string folded onto lines at `indent` once past column 80.
    fn scalar(&mut self, v: &Value, indent: usize) {
        match v {
            Value::Null => self.put("null"),
            Value::Bool(b) => self.put(if *b { "true" } else { "false" }),
            Value::Number(n) => self.put(&n.to_string()),
            Value::String(s) => match choose_style(s) {
                Style::Plain => self.plain(s, indent),
                Style::Single => self.single_quoted(s, indent, true),
                Style::Double => self.double_quoted(s, indent, true),
                Style::Literal => self.literal(s, indent),
            },
            Value::Object(_) => self.put("{}"),
            Value::Array(_) => self.put("[]"),
        }
    }

    /// `yaml_emitter_write_plain_scalar`: a space past the best width becomes a line break.
    fn plain(&mut self, s: &str, indent: usize) {
        let chars: Vec<char> = s.chars().collect();
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                if !spaces && self.column > BEST_WIDTH && chars.get(i + 1) != Some(&' ') {
                    self.indent(indent);
                } else {
                    self.put(" ");
                }
                spaces = true;
            } else {
                self.put(c.encode_utf8(&mut [0; 4]));
                spaces = false;
            }
        }
    }

    /// `yaml_emitter_write_single_quoted_scalar`: a quote is doubled.
    fn single_quoted(&mut self, s: &str, indent: usize, fold: bool) {
        let chars: Vec<char> = s.chars().collect();
        self.put("'");
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                if fold
                    && !spaces
                    && self.column > BEST_WIDTH
                    && i > 0
                    && i + 1 < chars.len()
                    && chars.get(i + 1) != Some(&' ')
                {
                    self.indent(indent);
                } else {
                    self.put(" ");
                }
                spaces = true;
            } else {
                if c == '\'' {
                    self.put("'");
                }
                self.put(c.encode_utf8(&mut [0; 4]));
                spaces = false;
            }
        }
        self.put("'");
    }

    /// `yaml_emitter_write_double_quoted_scalar`: what cannot be printed is escaped.
    fn double_quoted(&mut self, s: &str, indent: usize, fold: bool) {
        let chars: Vec<char> = s.chars().collect();
        self.put("\"");
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                if fold && !spaces && self.column > BEST_WIDTH && i > 0 && i + 1 < chars.len() {
                    self.indent(indent);
                    if chars.get(i + 1) == Some(&' ') {
                        self.put("\\");
                    }
                } else {
                    self.put(" ");
                }
                spaces = true;
                continue;
            }
            spaces = false;
            let is_break = matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}');
            let escape = !is_printable(c) || is_break || matches!(c, '"' | '\\' | '\u{feff}');
            let escaped = match c {
                _ if !escape => None,
                '\0' => Some("\\0".to_string()),
                '\u{7}' => Some("\\a".to_string()),
                '\u{8}' => Some("\\b".to_string()),
                '\t' => Some("\\t".to_string()),
                '\n' => Some("\\n".to_string()),
                '\u{b}' => Some("\\v".to_string()),
                '\u{c}' => Some("\\f".to_string()),
                '\r' => Some("\\r".to_string()),
                '\u{1b}' => Some("\\e".to_string()),
                '"' => Some("\\\"".to_string()),
                '\\' => Some("\\\\".to_string()),
                '\u{85}' => Some("\\N".to_string()),
                '\u{a0}' => Some("\\_".to_string()),
                '\u{2028}' => Some("\\L".to_string()),
                '\u{2029}' => Some("\\P".to_string()),
                c => Some(match u32::from(c) {
                    n if n <= 0xff => format!("\\x{n:02X}"),
                    n if n <= 0xffff => format!("\\u{n:04X}"),
                    n => format!("\\U{n:08X}"),
                }),
            };
            match escaped {
                Some(e) => self.put(&e),
                None => self.put(c.encode_utf8(&mut [0; 4])),
            }
        }
        self.put("\"");
    }

    /// `yaml_emitter_write_literal_scalar` with its hints: `|` keeps one final line break,
    /// `|-` none, `|+` several, and an indentation digit when the text starts with a space.
    fn literal(&mut self, s: &str, indent: usize) {
        self.put("|");
        if s.starts_with([' ', '\n']) {
            self.put(&INDENT.to_string());
        }
        if !s.ends_with('\n') {
            self.put("-");
        } else if s == "\n" || s.ends_with("\n\n") {
            self.put("+");
        }
        self.newline();
        let mut breaks = true;
        for c in s.chars() {
            if c == '\n' {
                self.newline();
                breaks = true;
            } else {
                if breaks {
                    self.indent(indent);
                    breaks = false;
                }
                self.put(c.encode_utf8(&mut [0; 4]));
            }
        }
    }
}

/// The styles go-yaml writes a string in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    Plain,
    Single,
    Double,
    Literal,
}

/// The style go-yaml v2 gives a string: its encoder asks for a literal block when the string
/// has a line break, double quotes when YAML 1.1 would resolve the plain text to something
/// other than a string, and plain text otherwise; then the emitter's analysis
/// (`yaml_emitter_analyze_scalar`) falls back to single and then double quotes where plain
/// text, or single quotes, cannot hold the string.
fn choose_style(s: &str) -> Style {
    let a = analyze(s);
    if s.contains('\n') {
        return if a.block_allowed {
            Style::Literal
        } else {
            Style::Double
        };
    }
    if !resolves_to_string(s) || is_base60_float(s) {
        return Style::Double;
    }
    if a.block_plain_allowed {
        Style::Plain
    } else if a.single_quoted_allowed {
        Style::Single
    } else {
        Style::Double
    }
}

/// What `yaml_emitter_analyze_scalar` finds a block-context scalar allows.
struct Analysis {
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

fn analyze(s: &str) -> Analysis {
    if s.is_empty() {
        return Analysis {
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    let chars: Vec<char> = s.chars().collect();
    let is_break = |c: char| matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}');
    let blank_or_end = |i: usize| {
        chars
            .get(i)
            .is_none_or(|&c| c == ' ' || c == '\t' || is_break(c))
    };
    let mut block_indicators = s.starts_with("---") || s.starts_with("...");
    let (mut special, mut line_breaks) = (false, false);
    let (mut leading_space, mut leading_break, mut trailing_space, mut trailing_break) =
        (false, false, false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    let mut preceded_by_whitespace = true;
    for (i, &c) in chars.iter().enumerate() {
        let followed_by_whitespace = blank_or_end(i + 1);
        if i == 0 {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                | '%' | '@' | '`' => block_indicators = true,
                '?' | ':' | '-' if followed_by_whitespace => block_indicators = true,
                _ => {}
            }
        } else {
            match c {
                ':' if followed_by_whitespace => block_indicators = true,
                '#' if preceded_by_whitespace => block_indicators = true,
                _ => {}
            }
        }
        if !is_printable(c) {
            special = true;
        }
        if c == ' ' {
            leading_space |= i == 0;
            trailing_space |= i + 1 == chars.len();
            break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            line_breaks = true;
            leading_break |= i == 0;
            trailing_break |= i + 1 == chars.len();
            space_break |= previous_space;
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = c == ' ' || c == '\t' || is_break(c);
    }
    let mut a = Analysis {
        block_plain_allowed: true,
        single_quoted_allowed: true,
        block_allowed: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.block_plain_allowed = false;
    }
    if trailing_space {
        a.block_allowed = false;
    }
    if break_space {
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
    }
    if space_break || special {
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
        a.block_allowed = false;
    }
    if line_breaks || block_indicators {
        a.block_plain_allowed = false;
    }
    a
}

/// go-yaml v2's `is_printable`, which reads UTF-8 bytes: a line feed, printable ASCII, and
/// U+00A0 to U+FFFD but for the surrogates and the byte-order mark. U+0085 and anything beyond
/// the Basic Multilingual Plane (an emoji) are not, so a string holding one is double-quoted
/// with `\N` or `\U0001F680`.
fn is_printable(c: char) -> bool {
    matches!(c, '\n' | ' '..='~' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}')
        && c != '\u{feff}'
}

/// Whether go-yaml v2's `resolve` reads the plain text as a string: not null, a YAML 1.1
/// boolean (`yes`, `On`, `n`), a number (`010`, `1e3`, `0x1f`, `.5`) or a timestamp
/// (`2026-01-01`, `2026-01-01T00:00:00Z`). `<<` is a string too: its first character has no
/// entry in `resolveTable`, so the merge key is never looked up.
fn resolves_to_string(s: &str) -> bool {
    const NON_STRINGS: &[&str] = &[
        "", "~", "null", "Null", "NULL", "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE",
        "on", "On", "ON", "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off",
        "OFF", ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
        "-.Inf", "-.INF",
    ];
    if NON_STRINGS.contains(&s) {
        return false;
    }
    match s.chars().next() {
        Some('.') => !is_go_float(s),
        Some('+' | '-' | '0'..='9') => {
            if is_timestamp(s) {
                return false;
            }
            let plain = s.replace('_', "");
            !(is_go_int(&plain) || (is_yaml_style_float(&plain) && is_go_float(&plain)))
        }
        _ => true,
    }
}

/// `strconv.ParseInt(s, 0, 64)` or `ParseUint` succeeds: a sign, then a decimal, `0x`, `0o`,
/// `0b` or leading-zero octal number that fits in 64 bits.
fn is_go_int(s: &str) -> bool {
    let (negative, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let lower = body.to_ascii_lowercase();
    let (digits, radix) = if let Some(d) = lower.strip_prefix("0x") {
        (d, 16)
    } else if let Some(d) = lower.strip_prefix("0o") {
        (d, 8)
    } else if let Some(d) = lower.strip_prefix("0b") {
        (d, 2)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (&lower[1..], 8)
    } else {
        (lower.as_str(), 10)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return false;
    }
    match u128::from_str_radix(digits, radix) {
        Ok(n) if negative => n <= 1 << 63,
        Ok(n) => n <= u128::from(u64::MAX),
        Err(_) => false,
    }
}

/// go-yaml's `yamlStyleFloat`: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`, the
/// YAML core schema's float form with a sign.
fn is_yaml_style_float(s: &str) -> bool {
    super::yaml::is_core_float(s.strip_prefix(['-', '+']).unwrap_or(s))
}

/// `strconv.ParseFloat(s, 64)` succeeds: a finite decimal number (an overflow is an error).
fn is_go_float(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    let body = lower.strip_prefix(['-', '+']).unwrap_or(&lower);
    if matches!(body, "inf" | "infinity" | "nan") {
        return true;
    }
    is_yaml_style_float(s) && s.parse::<f64>().is_ok_and(f64::is_finite)
}

/// go-yaml v2's `parseTimestamp`: `2006-1-2`, or with a time after `T`, `t` or a space
/// (`15:4:5`, an optional fraction, and after `T`/`t` a `Z` or `±07:00` zone).
fn is_timestamp(s: &str) -> bool {
    fn number(s: &str, min: usize, max: usize) -> Option<(u32, &str)> {
        let n = s.chars().take_while(char::is_ascii_digit).count();
        if n < min || n > max {
            return None;
        }
        Some((s[..n].parse().ok()?, &s[n..]))
    }
    let date = || -> Option<&str> {
        let (_, rest) = number(s, 4, 4)?;
        let (month, rest) = number(rest.strip_prefix('-')?, 1, 2)?;
        let (day, rest) = number(rest.strip_prefix('-')?, 1, 2)?;
        ((1..=12).contains(&month) && (1..=31).contains(&day)).then_some(rest)
    };
    let Some(rest) = date() else {
        return false;
    };
    if rest.is_empty() {
        return true;
    }
    let zoned = rest.starts_with(['T', 't']);
    let Some(time) = rest.strip_prefix(['T', 't', ' ']) else {
        return false;
    };
    let clock = || -> Option<&str> {
        let (h, r) = number(time, 1, 2)?;
        let (mi, r) = number(r.strip_prefix(':')?, 1, 2)?;
        let (sec, r) = number(r.strip_prefix(':')?, 1, 2)?;
        let r = match r.strip_prefix('.') {
            Some(frac) => number(frac, 1, 9)?.1,
            None => r,
        };
        (h < 24 && mi < 60 && sec < 60).then_some(r)
    };
    let Some(zone) = clock() else {
        return false;
    };
    if !zoned {
        return zone.is_empty();
    }
    zone == "Z" || {
        let offset = || -> Option<&str> {
            let (_, r) = number(zone.strip_prefix(['+', '-'])?, 2, 2)?;
            Some(number(r.strip_prefix(':')?, 2, 2)?.1)
        };
        offset() == Some("")
    }
}

/// go-yaml's `isBase60Float`: `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`, which it
/// quotes so that YAML 1.1 readers do not take `1:20` for a number.
fn is_base60_float(s: &str) -> bool {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (main, frac) = match body.split_once('.') {
        Some((m, f)) => (m, Some(f)),
        None => (body, None),
    };
    if frac.is_some_and(|f| !f.chars().all(|c| c.is_ascii_digit() || c == '_')) {
        return false;
    }
    let mut parts = main.split(':');
    let head = parts.next().unwrap_or_default();
    let head_ok = head.starts_with(|c: char| c.is_ascii_digit())
        && head.chars().all(|c| c.is_ascii_digit() || c == '_');
    let sexagesimal = |p: &str| match p.as_bytes() {
        [d] => d.is_ascii_digit(),
        [a, b] => (b'0'..=b'5').contains(a) && b.is_ascii_digit(),
        _ => false,
    };
    let rest: Vec<&str> = parts.collect();
    head_ok && !rest.is_empty() && rest.iter().all(|p| sexagesimal(p))
}

/// go-yaml v2's `keyList.Less`: runs of digits compare as numbers, a letter sorts after any
/// other character, and otherwise characters compare by code point.
fn go_yaml_key_order(a: &str, b: &str) -> Ordering {
    let (ar, br): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    for i in 0..ar.len().min(br.len()) {
        if ar[i] == br[i] {
            continue;
        }
        let (al, bl) = (ar[i].is_alphabetic(), br[i].is_alphabetic());
        if al && bl {
            return ar[i].cmp(&br[i]);
        }
        if al || bl {
            return if bl {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        }
        // Both are not letters: compare the numbers that start here, if any. A run of zeros
        // after other digits counts as a number too.
        let leading_nonzero = ar[..i]
            .iter()
            .rev()
            .take_while(|c| c.is_ascii_digit())
            .any(|&c| c != '0');
        let (mut an, mut bn): (u128, u128) = if (ar[i] == '0' || br[i] == '0') && leading_nonzero {
            (1, 1)
        } else {
            (0, 0)
        };
        let mut ai = i;
        while ai < ar.len() && ar[ai].is_ascii_digit() {
            an = an
                .saturating_mul(10)
                .saturating_add(u128::from(ar[ai] as u8 - b'0'));
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && br[bi].is_ascii_digit() {
            bn = bn
                .saturating_mul(10)
                .saturating_add(u128::from(br[bi] as u8 - b'0'));
            bi += 1;
        }
        if an != bn {
            return an.cmp(&bn);
        }
        if ai != bi {
            return ai.cmp(&bi);
        }
        return ar[i].cmp(&br[i]);
    }
    ar.len().cmp(&br.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Quoting as kubectl prints it: numbers, booleans, timestamps and empty strings in double
    /// quotes, `: ` and leading indicators in single quotes, everything else plain.
    #[test]
    fn strings_are_quoted_as_go_yaml_quotes_them() {
        let cases = [
            ("web", "web"),
            ("1", "\"1\""),
            ("25%", "25%"),
            ("True", "\"True\""),
            ("on", "\"on\""),
            ("", "\"\""),
            ("2026-01-01T00:00:00Z", "\"2026-01-01T00:00:00Z\""),
            ("010", "\"010\""),
            ("1e3", "\"1e3\""),
            ("7c79c4bf97", "7c79c4bf97"),
            ("6e5844", "6e5844"),
            ("1:20", "\"1:20\""),
            ("web:1.0", "web:1.0"),
            (
                "containers with unready status: [web]",
                "'containers with unready status: [web]'",
            ),
            ("*", "'*'"),
            ("- x", "'- x'"),
            ("it's: here", "'it''s: here'"),
            ("/dev/termination-log", "/dev/termination-log"),
            ("tab\there", "\"tab\\there\""),
            ("<<", "<<"),
            ("rocket 🚀", "\"rocket \\U0001F680\""),
            ("next\u{85}line", "\"next\\Nline\""),
            ("no\u{a0}break", "no\u{a0}break"),
            ("ünïcödé", "ünïcödé"),
            (
                "ReplicaSet \"web-1\" has successfully progressed.",
                "ReplicaSet \"web-1\" has successfully progressed.",
            ),
        ];
        for (s, want) in cases {
            assert_eq!(to_yaml(&json!({ "k": s })), format!("k: {want}\n"), "{s:?}");
        }
    }

    /// What kubectl prints reads back as what the API server sent: a YAML 1.1 reader (as kubectl
    /// reads a manifest) gets every string back as that string, never a boolean, number or
    /// null, for tricky words and for every object of every bundled scenario at its end.
    #[test]
    fn the_printed_yaml_reads_back_as_the_object() {
        let read_back = |v: &Value| {
            let text = to_yaml(v);
            let doc = crate::sim::yaml::parse_manifest(&text, &crate::sim::yaml::Limits::default())
                .unwrap_or_else(|e| panic!("{e:?}\n{text}"));
            assert_eq!(&doc.value, v, "{text}");
        };
        let words = [
            "",
            " ",
            "~",
            "null",
            "yes",
            "No",
            "ON",
            "y",
            "0x1F",
            "0o17",
            "017",
            "08",
            "1_000",
            "+1",
            "-1",
            "1.5",
            ".5",
            "1.",
            "1e5",
            "-1E-3",
            ".inf",
            "-.Inf",
            ".NaN",
            "1:20",
            "2026-01-01",
            "2026-1-2T3:04:05Z",
            "2026-01-01 00:00:00",
            "12:30",
            "- a",
            "-a",
            "? a",
            ":a",
            "a: b",
            "a:b",
            "a #b",
            "a#b",
            "#a",
            "[a]",
            "{a}",
            "*a",
            "&a",
            "!a",
            "|a",
            ">a",
            "'a'",
            "\"a\"",
            "%a",
            "@a",
            "`a",
            "a ",
            " a",
            "a  b",
            "tab\tx",
            "line\nbreak",
            "trailing\n",
            "two\n\n",
            "\nlead",
            "ünïcödé",
            "---",
            "...",
            "a, b",
            "a,b",
            "=",
            "\\",
            "é: x",
            "rocket 🚀",
            "next\u{85}line",
            "no\u{a0}break",
            "🚀\nline",
        ];
        for w in words {
            read_back(&json!({ w: w, "list": [w, {"k": w}] }));
        }
        let long = "word ".repeat(60);
        read_back(
            &json!({ "a": long.trim(), "b": format!("'{long}'"), "c": format!("x: {long}") }),
        );
        for (name, text) in crate::sim::scenario::BUNDLED {
            let sc = crate::sim::scenario::Scenario::parse(text)
                .unwrap_or_else(|e| panic!("{name}: {e:?}"));
            let sim = crate::sim::scenario::run_with(&sc, |_, _| {}).sim;
            for d in sim.store().deployments.values() {
                read_back(&deployment_object(d));
            }
            for rs in sim.store().replica_sets.values() {
                read_back(&replica_set_object(rs));
            }
            for p in sim.store().pods.values() {
                read_back(&pod_object(sim.store(), sim.world(), p));
            }
        }
    }

    /// `-o json`: four-space indents, sorted keys, Go's escapes of `<`, `>` and `&`, empty
    /// collections inline, a final line break.
    #[test]
    fn json_is_printed_as_go_marshals_it() {
        let v = json!({"b": {"x": [], "y": {}}, "a": "<web> & co", "n": [1, true, null]});
        assert_eq!(
            to_json(&v),
            "{\n    \"a\": \"\\u003cweb\\u003e \\u0026 co\",\n    \"b\": {\n        \"x\": [],\n        \"y\": {}\n    },\n    \"n\": [\n        1,\n        true,\n        null\n    ]\n}\n"
        );
    }

    /// Block layout: keys in go-yaml's order (`_` before digits, numbers by value, letters
    /// last), sequences flush with their key, mappings in a
    /// sequence starting on the dash's line, empty collections in flow style, a multi-line
    /// string as a literal block.
    #[test]
    fn layout_follows_go_yaml() {
        let v = json!({
            "spec": {"containers": [{"name": "web", "image": "web:1.0", "ports": [{"containerPort": 8080}]}], "securityContext": {}},
            "a_b": 1, "aB": 2, "a10": 3, "a9": 4,
            "note": "{\"a\":1}\n",
            "items": [],
        });
        assert_eq!(
            to_yaml(&v),
            "a_b: 1\na9: 4\na10: 3\naB: 2\nitems: []\nnote: |\n  {\"a\":1}\nspec:\n  containers:\n  - image: web:1.0\n    name: web\n    ports:\n    - containerPort: 8080\n  securityContext: {}\n"
        );
    }

    /// A long string is folded at the first space once the line is past column 80 (so a line
    /// may run a word over), its continuation indented two past its key; a quoted one likewise.
    #[test]
    fn long_strings_fold_past_column_80() {
        let message = "Failed to pull image \"web:2.0-typo\": rpc error: code = NotFound desc = failed to pull and unpack image";
        let out = to_yaml(&json!({"status": {"conditions": [{"message": message}]}}));
        assert_eq!(
            out,
            "status:\n  conditions:\n  - message: 'Failed to pull image \"web:2.0-typo\": rpc error: code = NotFound desc\n      = failed to pull and unpack image'\n"
        );
        let plain = "ReplicaSet \"web-555bf46d9f\" is progressing, and this message is long enough to fold somewhere";
        let out = to_yaml(&json!({ "message": plain }));
        assert_eq!(
            out,
            "message: ReplicaSet \"web-555bf46d9f\" is progressing, and this message is long enough\n  to fold somewhere\n"
        );
    }
}
