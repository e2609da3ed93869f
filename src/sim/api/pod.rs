//! The Pod and its template: containers with images, resource requests and probes, and the status
//! the scheduler and kubelet write (phase, conditions, container states).

use super::condition::ConditionStatus;
use super::int_or_percent::IntOrString;
use super::meta::{ObjectMeta, Time};
use super::shared::Shared;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

/// `PodTemplateSpec`: what a ReplicaSet stamps out. Its equality (ignoring `pod-template-hash`)
/// decides which ReplicaSet is "new".
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodTemplateSpec {
    /// Shared with the copies of the template, which every deployment-controller pass makes.
    pub metadata: Shared<ObjectMeta>,
    /// Shared with every ReplicaSet and pod stamped from this template.
    pub spec: Shared<PodSpec>,
}

/// `PodSpec`, with the fields RolloutScope acts on typed and every other field kept verbatim.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodSpec {
    /// Run one after another before the app containers; one with `restartPolicy: Always` is a
    /// sidecar, which starts in its turn and keeps running beside them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub init_containers: Vec<Container>,
    pub containers: Vec<Container>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restart_policy: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub termination_grace_period_seconds: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active_deadline_seconds: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dns_policy: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduler_name: Option<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub node_name: String,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub node_selector: BTreeMap<String, String>,
    /// Every other field (volumes, affinity, tolerations, …), kept so templates compare and hash
    /// as the API server stores them.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

impl PodSpec {
    /// The seconds a deletion gives the pod unless it asks for another: its
    /// `terminationGracePeriodSeconds`, defaulted to 30 as the API server defaults it.
    pub fn termination_grace_seconds(&self) -> i64 {
        self.termination_grace_period_seconds.unwrap_or(30)
    }

    /// The names of the pod's scheduling gates (`spec.schedulingGates`): while any is left, the
    /// scheduler does not try the pod, and nothing in the simulated cluster removes one.
    pub fn scheduling_gates(&self) -> Vec<&str> {
        self.names_in("schedulingGates", "name")
    }

    /// The condition types of the pod's readiness gates (`spec.readinessGates`): the pod is
    /// Ready only when each of these conditions is True too, and nothing in the simulated
    /// cluster sets one.
    pub fn readiness_gates(&self) -> Vec<&str> {
        self.names_in("readinessGates", "conditionType")
    }

    /// The `key` of each item in the list field `field`, which the pod spec keeps as written.
    fn names_in(&self, field: &str, key: &str) -> Vec<&str> {
        self.extra
            .get(field)
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(|g| g.get(key).and_then(Value::as_str))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether [`PodSpec::default_requests_to_limits`] would change anything: some container
    /// (init containers included) has a limit without a request for the same resource.
    pub fn has_limits_without_requests(&self) -> bool {
        self.init_containers
            .iter()
            .chain(&self.containers)
            .any(|c| {
                c.resources
                    .limits
                    .keys()
                    .any(|k| !c.resources.requests.contains_key(k))
            })
    }

    /// `SetDefaults_Pod`'s resource defaulting: a container that sets a limit but no request
    /// for a resource requests its limit. Upstream applies it to pods only, never to pod
    /// templates, so a Deployment's template keeps its limits alone while each pod created from
    /// it requests them, and the scheduler counts them.
    pub fn default_requests_to_limits(&mut self) {
        for c in self.init_containers.iter_mut().chain(&mut self.containers) {
            let r = &mut c.resources;
            for (k, v) in &r.limits {
                r.requests.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
    }

    /// How many containers the kubelet runs for a pod of this spec: its init containers and its
    /// app containers.
    pub fn kubelet_container_count(&self) -> usize {
        self.init_containers.len() + self.containers.len()
    }

    /// Container `c` as the kubelet numbers them: the init containers first, in order, then the
    /// app containers. A pod without init containers numbers its app containers from 0.
    pub fn kubelet_container(&self, c: usize) -> Option<&Container> {
        match c.checked_sub(self.init_containers.len()) {
            None => self.init_containers.get(c),
            Some(app) => self.containers.get(app),
        }
    }

    /// The containers' images in order, joined with `sep` (kubectl's IMAGES column uses `,`).
    pub fn images(&self, sep: &str) -> String {
        join_images(&self.containers, sep)
    }

    /// The init containers' images in order, joined with `sep`.
    pub fn init_images(&self, sep: &str) -> String {
        join_images(&self.init_containers, sep)
    }

    /// Every image of the template, the app containers' first (`web:1.0; init containers
    /// migrate:1.0, proxy:1.31`): how a revision is named to a person, since a rollout may
    /// change only an init container's image and the app images alone would then name two
    /// revisions alike.
    pub fn images_with_init(&self) -> String {
        if self.init_containers.is_empty() {
            return self.images(", ");
        }
        format!(
            "{}; init containers {}",
            self.images(", "),
            self.init_images(", ")
        )
    }
}

fn join_images(containers: &[Container], sep: &str) -> String {
    containers
        .iter()
        .map(|c| c.image.as_str())
        .collect::<Vec<_>>()
        .join(sep)
}

/// The service account a pod spec names: `serviceAccountName`, or else the deprecated
/// `serviceAccount`, which the API server's conversion (`Convert_v1_PodSpec_To_core_PodSpec`)
/// takes for it; empty when neither is set.
pub fn service_account_name(spec: &PodSpec) -> &str {
    let field = |key: &str| {
        spec.extra
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    field("serviceAccountName")
        .or_else(|| field("serviceAccount"))
        .unwrap_or_default()
}

/// `Container`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Container {
    pub name: String,
    pub image: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image_pull_policy: Option<PullPolicy>,
    #[serde(skip_serializing_if = "ResourceRequirements::is_empty")]
    pub resources: ResourceRequirements,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<ContainerPort>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub readiness_probe: Option<Probe>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub liveness_probe: Option<Probe>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub startup_probe: Option<Probe>,
    /// Every other field (env, command, args, volumeMounts, …), kept verbatim.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

impl Container {
    /// `IsRestartableInitContainer`: an init container with `restartPolicy: Always`, a sidecar.
    pub fn is_restartable(&self) -> bool {
        self.extra.get("restartPolicy").and_then(Value::as_str) == Some("Always")
    }
}

/// `imagePullPolicy`. Unknown words are kept for validation to reject.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum PullPolicy {
    Always,
    IfNotPresent,
    Never,
    Other(String),
}

impl From<String> for PullPolicy {
    fn from(s: String) -> Self {
        match s.as_str() {
            "Always" => Self::Always,
            "IfNotPresent" => Self::IfNotPresent,
            "Never" => Self::Never,
            _ => Self::Other(s),
        }
    }
}

impl From<PullPolicy> for String {
    fn from(p: PullPolicy) -> Self {
        p.as_str().to_string()
    }
}

impl PullPolicy {
    /// The policy as written in a manifest.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Always => "Always",
            Self::IfNotPresent => "IfNotPresent",
            Self::Never => "Never",
            Self::Other(s) => s,
        }
    }
}

/// `ResourceRequirements`: quantities are kept as written (`"500m"`, `"128Mi"`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourceRequirements {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub requests: BTreeMap<String, Value>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub limits: BTreeMap<String, Value>,
    /// Dynamic resource claims, kept as written (not modelled).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claims: Option<Value>,
}

impl ResourceRequirements {
    fn is_empty(&self) -> bool {
        self.requests.is_empty() && self.limits.is_empty() && self.claims.is_none()
    }
}

/// `ContainerPort`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ContainerPort {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub container_port: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_port: Option<i32>,
    #[serde(rename = "hostIP", skip_serializing_if = "Option::is_none")]
    pub host_ip: Option<String>,
}

/// `Probe`. Timings are `Option` until defaulted (§15.4: timeout 1, period 10, success 1,
/// failure 3, initial delay 0).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Probe {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_get: Option<HttpGetAction>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp_socket: Option<TcpSocketAction>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exec: Option<ExecAction>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grpc: Option<GrpcAction>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_delay_seconds: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_seconds: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub period_seconds: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub success_threshold: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_threshold: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub termination_grace_period_seconds: Option<i64>,
}

impl Probe {
    /// `initialDelaySeconds` after defaulting.
    pub fn initial_delay_seconds(&self) -> i32 {
        self.initial_delay_seconds.unwrap_or(0)
    }
    /// `periodSeconds` after defaulting.
    pub fn period_seconds(&self) -> i32 {
        self.period_seconds.unwrap_or(10)
    }
    /// `timeoutSeconds` after defaulting.
    pub fn timeout_seconds(&self) -> i32 {
        self.timeout_seconds.unwrap_or(1)
    }
    /// `successThreshold` after defaulting.
    pub fn success_threshold(&self) -> i32 {
        self.success_threshold.unwrap_or(1)
    }
    /// `failureThreshold` after defaulting.
    pub fn failure_threshold(&self) -> i32 {
        self.failure_threshold.unwrap_or(3)
    }
}

/// `HTTPGetAction`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HttpGetAction {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub port: IntOrString,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheme: Option<String>,
    /// Headers sent with the probe, kept as written (the simulated app ignores them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_headers: Option<Value>,
}

/// `TCPSocketAction`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TcpSocketAction {
    pub port: IntOrString,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

/// `ExecAction`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ExecAction {
    pub command: Vec<String>,
}

/// `GRPCAction`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GrpcAction {
    pub port: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<String>,
}

/// `v1 Pod`. The spec is shared with the ReplicaSet template it came from, so snapshots of a
/// thousand-pod cluster stay cheap to clone.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pod {
    pub metadata: ObjectMeta,
    pub spec: Shared<PodSpec>,
    /// `spec.nodeName`, kept beside the shared spec because binding writes it per pod.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub node_name: String,
    pub status: PodStatus,
}

/// `PodPhase`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum PodPhase {
    #[default]
    Pending,
    Running,
    Succeeded,
    Failed,
    Unknown,
}

impl PodPhase {
    /// The phase as kubectl prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "Pending",
            Self::Running => "Running",
            Self::Succeeded => "Succeeded",
            Self::Failed => "Failed",
            Self::Unknown => "Unknown",
        }
    }
}

/// `PodStatus`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodStatus {
    pub phase: PodPhase,
    pub conditions: Vec<PodCondition>,
    /// The init containers' statuses, in the spec's order (`SortInitContainerStatuses`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub init_container_statuses: Vec<ContainerStatus>,
    pub container_statuses: Vec<ContainerStatus>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_ip: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_ip: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_time: Option<Time>,
}

impl PodStatus {
    /// The largest restart count among the app containers.
    pub fn max_restarts(&self) -> i32 {
        self.container_statuses
            .iter()
            .map(|c| c.restart_count)
            .max()
            .unwrap_or(0)
    }

    /// The largest restart count among the sidecars of `spec` (init containers with
    /// `restartPolicy: Always`).
    pub fn max_sidecar_restarts(&self, spec: &PodSpec) -> i32 {
        self.sidecar_statuses(spec)
            .map(|cs| cs.restart_count)
            .max()
            .unwrap_or(0)
    }

    /// The statuses of the sidecars of `spec`, in the spec's order.
    pub fn sidecar_statuses<'s>(
        &'s self,
        spec: &'s PodSpec,
    ) -> impl Iterator<Item = &'s ContainerStatus> + Clone {
        self.init_container_statuses
            .iter()
            .zip(&spec.init_containers)
            .filter(|(_, c)| c.is_restartable())
            .map(|(cs, _)| cs)
    }

    /// The status of container `c` in the kubelet's numbering ([`PodSpec::kubelet_container`]),
    /// for a spec with `inits` init containers.
    pub fn kubelet_container(&self, inits: usize, c: usize) -> Option<&ContainerStatus> {
        match c.checked_sub(inits) {
            None => self.init_container_statuses.get(c),
            Some(app) => self.container_statuses.get(app),
        }
    }

    /// [`PodStatus::kubelet_container`], to change.
    pub fn kubelet_container_mut(
        &mut self,
        inits: usize,
        c: usize,
    ) -> Option<&mut ContainerStatus> {
        match c.checked_sub(inits) {
            None => self.init_container_statuses.get_mut(c),
            Some(app) => self.container_statuses.get_mut(app),
        }
    }
}

/// What `printPod` reads from a pod's init containers ([`Pod::init_walk`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InitWalk {
    /// The `Init:` STATUS while the pod initializes; `None` once every init container is past.
    pub status: Option<String>,
    /// The started and ready sidecars before the walk stopped, which READY counts.
    pub ready_sidecars: usize,
    /// The restarts of the init containers walked, which RESTARTS shows while the pod
    /// initializes.
    pub restarts: i32,
    /// The restarts of the sidecars walked, which RESTARTS adds to the app containers' once the
    /// pod has initialized.
    pub sidecar_restarts: i32,
    /// The latest `lastState.terminated.finishedAt` of the init containers walked.
    pub last_restart: Option<Time>,
    /// The same, of the sidecars walked.
    pub last_sidecar_restart: Option<Time>,
}

/// The pod condition types, in the order `kubectl describe` lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum PodConditionType {
    PodReadyToStartContainers,
    Initialized,
    Ready,
    ContainersReady,
    PodScheduled,
    /// Set by the component that is about to delete the pod for a disruption (the taint
    /// eviction controller's `DeletionByTaintManager`); appended last, as `UpdatePodCondition`
    /// appends a new type.
    DisruptionTarget,
}

impl PodConditionType {
    /// The type as kubectl prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PodReadyToStartContainers => "PodReadyToStartContainers",
            Self::Initialized => "Initialized",
            Self::Ready => "Ready",
            Self::ContainersReady => "ContainersReady",
            Self::PodScheduled => "PodScheduled",
            Self::DisruptionTarget => "DisruptionTarget",
        }
    }
}

/// `PodCondition`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodCondition {
    #[serde(rename = "type")]
    pub type_: PodConditionType,
    pub status: ConditionStatus,
    pub last_transition_time: Time,
    /// A fixed reason, borrowed rather than copied into every condition and every copy of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<Cow<'static, str>>,
    /// Shared: the kubelet gives one message to two conditions (ContainersReady and Ready), and
    /// every copy of the pod's status copies its conditions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Arc<str>>,
}

/// `ContainerStatus`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ContainerStatus {
    pub name: String,
    pub image: String,
    pub ready: bool,
    pub started: bool,
    pub restart_count: i32,
    pub state: ContainerState,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_state: Option<ContainerState>,
}

impl ContainerStatus {
    /// Whether the container exited with code 0 (`Completed`): an init container that has done
    /// its work.
    pub fn succeeded(&self) -> bool {
        matches!(self.state, ContainerState::Terminated { exit_code: 0, .. })
    }
}

/// `ContainerState`: exactly one of waiting, running or terminated.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ContainerState {
    Waiting {
        reason: String,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        message: String,
    },
    #[serde(rename_all = "camelCase")]
    Running { started_at: Time },
    #[serde(rename_all = "camelCase")]
    Terminated {
        exit_code: i32,
        reason: String,
        /// Set by the kubelet only for a few reasons (`ContainerStatusUnknown`).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        message: String,
        started_at: Time,
        finished_at: Time,
    },
}

impl Default for ContainerState {
    fn default() -> Self {
        ContainerState::Waiting {
            reason: "ContainerCreating".to_string(),
            message: String::new(),
        }
    }
}

impl Pod {
    /// The pod condition of the given type, if present.
    pub fn condition(&self, t: PodConditionType) -> Option<&PodCondition> {
        self.status.conditions.iter().find(|c| c.type_ == t)
    }

    /// Whether the Ready condition is True (`podutil.IsPodReady`).
    pub fn is_ready(&self) -> bool {
        self.condition(PodConditionType::Ready)
            .is_some_and(|c| c.status == ConditionStatus::True)
    }

    /// `IsPodAvailable`: Ready, and Ready for longer than `min_ready_seconds` (strictly).
    pub fn is_available(&self, min_ready_seconds: i32, now: Time) -> bool {
        let Some(c) = self.condition(PodConditionType::Ready) else {
            return false;
        };
        if c.status != ConditionStatus::True {
            return false;
        }
        min_ready_seconds <= 0
            || c.last_transition_time
                .plus_secs(i64::from(min_ready_seconds))
                < now
    }

    /// Whether the pod is active for a ReplicaSet: not terminal and not being deleted
    /// (`controller.IsPodActive`).
    pub fn is_active(&self) -> bool {
        !matches!(self.status.phase, PodPhase::Succeeded | PodPhase::Failed)
            && self.metadata.deletion_timestamp.is_none()
    }

    /// The largest restart count among all the pod's containers, init containers included.
    pub fn max_restarts_of_any(&self) -> i32 {
        self.status
            .init_container_statuses
            .iter()
            .map(|c| c.restart_count)
            .fold(self.max_restarts(), i32::max)
    }

    /// The largest restart count among the pod's sidecars (init containers with
    /// `restartPolicy: Always`).
    pub fn max_sidecar_restarts(&self) -> i32 {
        self.status.max_sidecar_restarts(&self.spec)
    }

    /// Whether the pod has reached Succeeded or Failed.
    pub fn is_terminal(&self) -> bool {
        matches!(self.status.phase, PodPhase::Succeeded | PodPhase::Failed)
    }

    /// The largest restart count among the pod's containers.
    pub fn max_restarts(&self) -> i32 {
        self.status.max_restarts()
    }

    /// `kubectl get pods` STATUS column (`printPod`, modern rules of §15.8), in upstream's
    /// order: `status.reason` or the phase; `SchedulingGated`; the containers from last to first,
    /// where each waiting or terminated one overwrites the result with its reason; `Completed`
    /// with a container still running becomes `Running` or `NotReady`; and a pod being deleted
    /// shows `Unknown` (node lost) or, while its phase is not terminal, `Terminating`. While
    /// the pod initializes, the first init container that has not completed (a sidecar: not
    /// started) decides STATUS instead ([`Pod::init_status`]).
    pub fn kubectl_status(&self) -> String {
        self.kubectl_status_text().into_owned()
    }

    /// [`Pod::kubectl_status`], borrowed from the pod wherever it can be: a ReplicaSet lane
    /// tallies the STATUS of every pod after every step, and a thousand pods should not cost a
    /// thousand strings.
    pub fn kubectl_status_text(&self) -> Cow<'_, str> {
        let mut reason = match self.status.reason.as_deref() {
            Some(r) if !r.is_empty() => Cow::Borrowed(r),
            _ => Cow::Borrowed(self.status.phase.as_str()),
        };
        if self.status.conditions.iter().any(|c| {
            c.type_ == PodConditionType::PodScheduled
                && c.reason.as_deref() == Some("SchedulingGated")
        }) {
            reason = Cow::Borrowed("SchedulingGated");
        }
        let init = self.init_status();
        let initializing = init.is_some();
        if let Some(init) = init {
            reason = Cow::Owned(init);
        }
        if initializing && !self.is_initialized() {
            return self.deleting_status().map_or(reason, Cow::Borrowed);
        }
        // Upstream walks the container statuses from the last to the first, so the first one in
        // status order that is waiting or terminated has the final word; the kubelet reports them
        // sorted by name (`SortedContainerStatuses`), where the store keeps the template's order.
        let mut has_running = false;
        let mut decisive: Option<&ContainerStatus> = None;
        for cs in &self.status.container_statuses {
            match &cs.state {
                ContainerState::Waiting { reason: r, .. } if r.is_empty() => {}
                ContainerState::Waiting { .. } | ContainerState::Terminated { .. }
                    if decisive.is_none_or(|d| cs.name < d.name) =>
                {
                    decisive = Some(cs);
                }
                // Upstream counts a running container here only when it is also ready.
                ContainerState::Running { .. } if cs.ready => has_running = true,
                _ => {}
            }
        }
        match decisive.map(|cs| &cs.state) {
            Some(ContainerState::Waiting { reason: r, .. }) => reason = Cow::Borrowed(r),
            Some(ContainerState::Terminated {
                reason: r,
                exit_code,
                ..
            }) => {
                reason = if r.is_empty() {
                    Cow::Owned(format!("ExitCode:{exit_code}"))
                } else {
                    Cow::Borrowed(r)
                };
            }
            _ => {}
        }
        if reason == "Completed" && has_running {
            reason = Cow::Borrowed(if self.is_ready() {
                "Running"
            } else {
                "NotReady"
            });
        }
        self.deleting_status().map_or(reason, Cow::Borrowed)
    }

    /// STATUS of a pod being deleted: `Unknown` when its node was lost, `Terminating` while its
    /// phase is not terminal.
    fn deleting_status(&self) -> Option<&'static str> {
        self.metadata.deletion_timestamp?;
        if self.status.reason.as_deref() == Some("NodeLost") {
            return Some("Unknown");
        }
        (!self.is_terminal()).then_some("Terminating")
    }

    /// The `Init:` STATUS of `printPod` while the pod initializes ([`InitWalk::status`]).
    pub fn init_status(&self) -> Option<String> {
        self.init_walk().status
    }

    /// `printPod`'s walk over the init containers, in order: past those that completed and
    /// the sidecars that started (counting the ready ones), and stopping at the first other
    /// one, which gives `Init:<reason>` when it failed (`Init:Error`, `Init:ExitCode:<n>`) or
    /// waits for a reason (`Init:CrashLoopBackOff`, `Init:ImagePullBackOff`), else
    /// `Init:<done>/<all>`. Restarts are counted up to and including that one.
    pub fn init_walk(&self) -> InitWalk {
        let all = self.spec.init_containers.len();
        let mut walk = InitWalk::default();
        for (i, cs) in self.status.init_container_statuses.iter().enumerate() {
            let sidecar = self
                .spec
                .init_containers
                .get(i)
                .is_some_and(Container::is_restartable);
            let finished = match &cs.last_state {
                Some(ContainerState::Terminated { finished_at, .. }) => Some(*finished_at),
                _ => None,
            };
            walk.restarts += cs.restart_count;
            walk.last_restart = walk.last_restart.max(finished);
            if sidecar {
                walk.sidecar_restarts += cs.restart_count;
                walk.last_sidecar_restart = walk.last_sidecar_restart.max(finished);
            }
            walk.status = Some(match &cs.state {
                ContainerState::Terminated { exit_code: 0, .. } => continue,
                _ if sidecar && cs.started => {
                    walk.ready_sidecars += usize::from(cs.ready);
                    continue;
                }
                ContainerState::Terminated {
                    reason, exit_code, ..
                } => {
                    if reason.is_empty() {
                        format!("Init:ExitCode:{exit_code}")
                    } else {
                        ["Init:", reason].concat()
                    }
                }
                ContainerState::Waiting { reason, .. }
                    if !reason.is_empty() && reason != "PodInitializing" =>
                {
                    ["Init:", reason].concat()
                }
                _ => format!("Init:{i}/{all}"),
            });
            break;
        }
        walk
    }

    /// Whether the Initialized condition is True.
    pub fn is_initialized(&self) -> bool {
        self.condition(PodConditionType::Initialized)
            .is_some_and(|c| c.status == ConditionStatus::True)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(state: ContainerState, ready: bool) -> ContainerStatus {
        ContainerStatus {
            name: "c".to_string(),
            ready,
            state,
            ..Default::default()
        }
    }

    fn completed() -> ContainerState {
        ContainerState::Terminated {
            exit_code: 0,
            reason: "Completed".to_string(),
            message: String::new(),
            started_at: Time::ZERO,
            finished_at: Time::ZERO,
        }
    }

    fn running() -> ContainerState {
        ContainerState::Running {
            started_at: Time::ZERO,
        }
    }

    /// A running pod with these container statuses and its Ready condition at `ready`.
    fn pod(containers: Vec<ContainerStatus>, ready: ConditionStatus) -> Pod {
        let mut p = Pod::default();
        p.status.phase = PodPhase::Running;
        p.status.container_statuses = containers;
        p.status.conditions = vec![PodCondition {
            type_: PodConditionType::Ready,
            status: ready,
            last_transition_time: Time::ZERO,
            reason: None,
            message: None,
        }];
        p
    }

    /// `printPod`'s init-container cases: completed ones and started sidecars are passed
    /// over, a failed one gives `Init:<reason>` (`Init:ExitCode:<n>` without a reason), a
    /// waiting one its reason unless that is `PodInitializing`, and any other `Init:<i>/<n>`.
    #[test]
    fn init_containers_decide_status_while_the_pod_initializes() {
        let waiting = |reason: &str| ContainerState::Waiting {
            reason: reason.to_string(),
            message: String::new(),
        };
        let failed = |reason: &str, exit_code| ContainerState::Terminated {
            exit_code,
            reason: reason.to_string(),
            message: String::new(),
            started_at: Time::ZERO,
            finished_at: Time::ZERO,
        };
        let sidecar = || {
            let mut c = Container {
                name: "proxy".into(),
                ..Default::default()
            };
            c.extra
                .insert("restartPolicy".into(), Value::from("Always"));
            c
        };
        let plain = |name: &str| Container {
            name: name.into(),
            ..Default::default()
        };
        let cases: Vec<(Vec<(ContainerState, bool)>, &str)> = vec![
            (
                vec![
                    (waiting("PodInitializing"), false),
                    (waiting("PodInitializing"), false),
                ],
                "Init:0/2",
            ),
            (vec![(completed(), false), (running(), false)], "Init:1/2"),
            (
                vec![(completed(), false), (running(), true)],
                "PodInitializing",
            ),
            (
                vec![
                    (failed("Error", 1), false),
                    (waiting("PodInitializing"), false),
                ],
                "Init:Error",
            ),
            (
                vec![(failed("", 2), false), (waiting("PodInitializing"), false)],
                "Init:ExitCode:2",
            ),
            (
                vec![
                    (waiting("CrashLoopBackOff"), false),
                    (waiting("PodInitializing"), false),
                ],
                "Init:CrashLoopBackOff",
            ),
            (
                vec![
                    (waiting("ImagePullBackOff"), false),
                    (waiting("PodInitializing"), false),
                ],
                "Init:ImagePullBackOff",
            ),
        ];
        for (states, want) in cases {
            let mut p = Pod {
                spec: Shared::new(PodSpec {
                    init_containers: vec![plain("migrate"), sidecar()],
                    containers: vec![plain("web")],
                    ..Default::default()
                }),
                ..Default::default()
            };
            p.status.phase = PodPhase::Pending;
            p.status.init_container_statuses = states
                .into_iter()
                .map(|(state, started)| ContainerStatus {
                    started,
                    ready: started,
                    state,
                    ..Default::default()
                })
                .collect();
            p.status.container_statuses = vec![status(waiting("PodInitializing"), false)];
            assert_eq!(p.kubectl_status(), want);
        }
    }

    #[test]
    fn completed_beside_a_running_ready_container_is_running_or_not_ready() {
        let both = || vec![status(completed(), false), status(running(), true)];
        assert_eq!(
            pod(both(), ConditionStatus::True).kubectl_status(),
            "Running"
        );
        assert_eq!(
            pod(both(), ConditionStatus::False).kubectl_status(),
            "NotReady"
        );
        // Upstream's check wants the other container running and ready.
        let unready = vec![status(completed(), false), status(running(), false)];
        assert_eq!(
            pod(unready, ConditionStatus::False).kubectl_status(),
            "Completed"
        );
        // Another reason than Completed stands.
        let waiting = ContainerState::Waiting {
            reason: "CrashLoopBackOff".to_string(),
            message: String::new(),
        };
        let crashing = vec![status(waiting, false), status(running(), true)];
        assert_eq!(
            pod(crashing, ConditionStatus::False).kubectl_status(),
            "CrashLoopBackOff"
        );
    }

    #[test]
    fn the_first_container_by_name_has_the_final_word() {
        let waiting = |reason: &str| ContainerState::Waiting {
            reason: reason.to_string(),
            message: String::new(),
        };
        let named = |name: &str, state| ContainerStatus {
            name: name.to_string(),
            state,
            ..Default::default()
        };
        // In template order `web` comes first, but the kubelet lists `aaa` first.
        let statuses = vec![
            named("web", waiting("CrashLoopBackOff")),
            named("aaa", waiting("ImagePullBackOff")),
        ];
        assert_eq!(
            pod(statuses, ConditionStatus::False).kubectl_status(),
            "ImagePullBackOff"
        );
        let statuses = vec![
            named("web", waiting("CrashLoopBackOff")),
            named("zzz", waiting("ImagePullBackOff")),
        ];
        assert_eq!(
            pod(statuses, ConditionStatus::False).kubectl_status(),
            "CrashLoopBackOff"
        );
    }

    #[test]
    fn deletion_shows_unknown_for_a_lost_node_even_when_terminal() {
        let mut p = pod(vec![status(completed(), false)], ConditionStatus::False);
        p.status.phase = PodPhase::Succeeded;
        p.metadata.deletion_timestamp = Some(Time::ZERO);
        assert_eq!(p.kubectl_status(), "Completed");
        p.status.reason = Some("NodeLost".to_string());
        assert_eq!(p.kubectl_status(), "Unknown");
        p.status.phase = PodPhase::Running;
        p.status.reason = None;
        assert_eq!(p.kubectl_status(), "Terminating");
    }

    #[test]
    fn a_scheduling_gated_pod_says_so() {
        let mut p = Pod::default();
        p.status.conditions.push(PodCondition {
            type_: PodConditionType::PodScheduled,
            status: ConditionStatus::False,
            last_transition_time: Time::ZERO,
            reason: Some("SchedulingGated".into()),
            message: None,
        });
        assert_eq!(p.kubectl_status(), "SchedulingGated");
    }
}
