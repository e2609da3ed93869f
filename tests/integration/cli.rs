//! The command-line runner as a learner calls it: what goes to stdout, what to stderr, and the
//! exit code, for the kubectl commands whose failure kubectl reports with exit 1.

use std::process::Command;

fn kubectl(file: &str, at: &str, args: &[&str]) -> (String, String, Option<i32>) {
    let out = Command::new(env!("CARGO_BIN_EXE_rolloutscope"))
        .args(["kubectl", file, "--at", at, "--"])
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the rolloutscope binary runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

/// §17: `kubectl rollout status` watches: from the moment it starts it prints the status for
/// the Deployment as listed and again for every write that changes it, identical lines
/// included, and stops with exit 0 once the rollout is done.
#[test]
fn rollout_status_watches_until_the_rollout_is_done() {
    let (out, err, code) = kubectl(
        "scenarios/rolling-update.yaml",
        "60s",
        &["rollout", "status", "deploy/web"],
    );
    assert_eq!((code, err.as_str()), (Some(0), ""));
    let lines: Vec<&str> = out.lines().collect();
    let waiting = "Waiting for deployment \"web\" rollout to finish: ";
    assert!(lines.len() > 3, "{out}");
    assert!(
        lines[..lines.len() - 1]
            .iter()
            .all(|l| l.starts_with(waiting)),
        "{out}"
    );
    assert!(
        lines.windows(2).any(|w| w[0] == w[1]),
        "identical lines repeat: {out}"
    );
    for step in [
        "new replicas have been updated...",
        "old replicas are pending termination...",
        "updated replicas are available...",
    ] {
        assert!(out.contains(step), "missing {step:?} in {out}");
    }
    assert_eq!(
        lines.last().copied(),
        Some("deployment \"web\" successfully rolled out")
    );
}

/// §17: `--revision=N` insists on the Deployment running revision N: the rolling update's
/// second revision is watched to the end, the first is refused at once, and a negative one is
/// refused before anything is looked at.
#[test]
fn rollout_status_checks_the_revision_asked_for() {
    let file = "scenarios/rolling-update.yaml";
    let (out, err, code) = kubectl(
        file,
        "60s",
        &["rollout", "status", "deploy/web", "--revision=2"],
    );
    assert_eq!((code, err.as_str()), (Some(0), ""), "{out}");
    assert!(
        out.ends_with("deployment \"web\" successfully rolled out\n"),
        "{out}"
    );
    let (out, err, code) = kubectl(
        file,
        "60s",
        &["rollout", "status", "deploy/web", "--revision", "1"],
    );
    assert_eq!(out, "");
    assert_eq!(
        (code, err.as_str()),
        (
            Some(1),
            "error: desired revision (1) is different from the running revision (2)\n"
        )
    );
    let (_, err, code) = kubectl(
        file,
        "60s",
        &[
            "rollout",
            "status",
            "deploy/web",
            "--watch=false",
            "--revision=-1",
        ],
    );
    assert_eq!(
        (code, err.as_str()),
        (Some(1), "error: revision must be a positive integer: -1\n")
    );
}

/// `printEvent` with `-o wide`: the field path, the source (`kubelet, <node>` for the kubelet),
/// the first time and count, and the event's name, `<object>.<hex nanoseconds>`.
#[test]
fn get_events_wide_adds_printevents_columns() {
    let (out, err, code) = kubectl(
        "scenarios/image-typo.yaml",
        "60s",
        &["get", "events", "-o", "wide"],
    );
    assert_eq!((code, err.as_str()), (Some(0), ""));
    let header: Vec<&str> = out
        .lines()
        .next()
        .unwrap_or_default()
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    assert_eq!(
        header,
        [
            "LAST SEEN",
            "TYPE",
            "REASON",
            "OBJECT",
            "SUBOBJECT",
            "SOURCE",
            "MESSAGE",
            "FIRST SEEN",
            "COUNT",
            "NAME"
        ]
    );
    let pulls: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("Error: ErrImagePull"))
        .collect();
    assert!(!pulls.is_empty(), "{out}");
    for row in pulls {
        assert!(
            row.contains("   spec.containers{web}   kubelet, node-"),
            "{row}"
        );
        let name = row.rsplit(' ').next().unwrap_or_default();
        let (object, hex) = name.rsplit_once('.').unwrap_or_default();
        assert!(row.contains(&format!("pod/{object} ")), "{row}");
        assert!(
            hex.len() == 16 && hex.chars().all(|c| c.is_ascii_hexdigit()),
            "{row}"
        );
    }
    // The scheduler's events.k8s.io records have no core source: kubectl shows their reporting
    // controller and instance.
    let scheduled: Vec<&str> = out.lines().filter(|l| l.contains("Scheduled")).collect();
    assert!(!scheduled.is_empty(), "{out}");
    for row in scheduled {
        assert!(
            row.contains("   default-scheduler, default-scheduler-control-plane   Successfully assigned default/"),
            "{row}"
        );
    }
    // The deployment controller's legacy recorder fills the source's component only.
    let scaled: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("ScalingReplicaSet"))
        .collect();
    assert!(!scaled.is_empty(), "{out}");
    for row in scaled {
        assert!(
            row.contains("   deployment-controller   ") && !row.contains("deployment-controller,"),
            "{row}"
        );
    }
}

/// The output with each UID and each 64-digit ID (a container's, an image digest) replaced by
/// a placeholder: they are drawn from the seed, and the layout around them is what counts.
fn without_ids(text: &str) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let hex = |s: &str| s.chars().all(|c| c.is_ascii_hexdigit());
        let uid = word.len() == 36
            && word.split('-').map(str::len).eq([8, 4, 4, 4, 12])
            && hex(&word.replace('-', ""));
        if uid {
            out.push_str("<uid>");
        } else if word.len() == 64 && hex(word) {
            out.push_str("<id>");
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '-' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// `kubectl get pod NAME -o yaml` (v1.35): the ReplicaSet's copy of the template with what
/// admission adds (generation, service links, priority, the service account and its token
/// volume, the default tolerations), the binding, and the kubelet's status: conditions in its
/// order with `lastProbeTime: null` and `observedGeneration`, and for a crash-looping container
/// the runtime's image name and IDs, allocated resources, root's user, the mount statuses, and
/// the last run's exit under `lastState`, which names the same container as `containerID`
/// while the next run waits.
#[test]
fn get_pod_as_yaml_prints_the_pod_as_the_api_server_returns_it() {
    let (out, err, code) = kubectl(
        "scenarios/crash-loop.yaml",
        "3m",
        &["get", "pod", "web-c676df4db-qjqlf", "-o", "yaml"],
    );
    assert_eq!((code, err.as_str()), (Some(0), ""));
    let expected = "apiVersion: v1
kind: Pod
metadata:
  creationTimestamp: \"2026-01-01T00:00:00Z\"
  generateName: web-c676df4db-
  generation: 1
  labels:
    app: web
    pod-template-hash: c676df4db
  name: web-c676df4db-qjqlf
  namespace: default
  ownerReferences:
  - apiVersion: apps/v1
    blockOwnerDeletion: true
    controller: true
    kind: ReplicaSet
    name: web-c676df4db
    uid: <uid>
  uid: <uid>
spec:
  containers:
  - image: web:1.0
    imagePullPolicy: IfNotPresent
    name: web
    ports:
    - containerPort: 8080
      protocol: TCP
    readinessProbe:
      failureThreshold: 3
      httpGet:
        path: /healthz
        port: 8080
        scheme: HTTP
      periodSeconds: 5
      successThreshold: 1
      timeoutSeconds: 1
    resources:
      requests:
        cpu: 250m
        memory: 128Mi
    terminationMessagePath: /dev/termination-log
    terminationMessagePolicy: File
    volumeMounts:
    - mountPath: /var/run/secrets/kubernetes.io/serviceaccount
      name: kube-api-access-kmpbk
      readOnly: true
  dnsPolicy: ClusterFirst
  enableServiceLinks: true
  nodeName: node-1
  preemptionPolicy: PreemptLowerPriority
  priority: 0
  restartPolicy: Always
  schedulerName: default-scheduler
  securityContext: {}
  serviceAccount: default
  serviceAccountName: default
  terminationGracePeriodSeconds: 30
  tolerations:
  - effect: NoExecute
    key: node.kubernetes.io/not-ready
    operator: Exists
    tolerationSeconds: 300
  - effect: NoExecute
    key: node.kubernetes.io/unreachable
    operator: Exists
    tolerationSeconds: 300
  volumes:
  - name: kube-api-access-kmpbk
    projected:
      defaultMode: 420
      sources:
      - serviceAccountToken:
          expirationSeconds: 3607
          path: token
      - configMap:
          items:
          - key: ca.crt
            path: ca.crt
          name: kube-root-ca.crt
      - downwardAPI:
          items:
          - fieldRef:
              apiVersion: v1
              fieldPath: metadata.namespace
            path: namespace
status:
  conditions:
  - lastProbeTime: null
    lastTransitionTime: \"2026-01-01T00:00:02Z\"
    observedGeneration: 1
    status: \"True\"
    type: PodReadyToStartContainers
  - lastProbeTime: null
    lastTransitionTime: \"2026-01-01T00:00:00Z\"
    observedGeneration: 1
    status: \"True\"
    type: Initialized
  - lastProbeTime: null
    lastTransitionTime: \"2026-01-01T00:01:53Z\"
    message: 'containers with unready status: [web]'
    observedGeneration: 1
    reason: ContainersNotReady
    status: \"False\"
    type: Ready
  - lastProbeTime: null
    lastTransitionTime: \"2026-01-01T00:01:53Z\"
    message: 'containers with unready status: [web]'
    observedGeneration: 1
    reason: ContainersNotReady
    status: \"False\"
    type: ContainersReady
  - lastProbeTime: null
    lastTransitionTime: \"2026-01-01T00:00:00Z\"
    observedGeneration: 1
    status: \"True\"
    type: PodScheduled
  containerStatuses:
  - allocatedResources:
      cpu: 250m
      memory: 128Mi
    containerID: containerd://<id>
    image: docker.io/library/web:1.0
    imageID: docker.io/library/web@sha256:<id>
    lastState:
      terminated:
        containerID: containerd://<id>
        exitCode: 1
        finishedAt: \"2026-01-01T00:01:53Z\"
        reason: Error
        startedAt: \"2026-01-01T00:01:48Z\"
    name: web
    ready: false
    resources:
      requests:
        cpu: 250m
        memory: 128Mi
    restartCount: 4
    started: false
    state:
      waiting:
        message: back-off 1m20s restarting failed container=web pod=web-c676df4db-qjqlf_default(<uid>)
        reason: CrashLoopBackOff
    user:
      linux:
        gid: 0
        supplementalGroups:
        - 0
        uid: 0
    volumeMounts:
    - mountPath: /var/run/secrets/kubernetes.io/serviceaccount
      name: kube-api-access-kmpbk
      readOnly: true
      recursiveReadOnly: Disabled
  hostIP: 192.168.49.3
  hostIPs:
  - ip: 192.168.49.3
  observedGeneration: 1
  phase: Running
  podIP: 10.244.1.2
  podIPs:
  - ip: 10.244.1.2
  qosClass: Burstable
  startTime: \"2026-01-01T00:00:00Z\"
";
    assert_eq!(without_ids(&out), expected);
    // The waiting container names the run that ended, the same one its last state shows.
    let ids: Vec<&str> = out
        .lines()
        .filter_map(|l| l.trim().strip_prefix("containerID: "))
        .collect();
    assert_eq!(ids.len(), 2);
    assert_eq!(ids[0], ids[1]);
    // The pod's own UID, in the back-off message too.
    let uid = out
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("  uid: "))
        .unwrap_or_default();
    assert!(out.contains(&format!("web-c676df4db-qjqlf_default({uid})")));

    // Before the runtime made its container, a pod's status has the spec's image and no IDs.
    let (out, _, code) = kubectl(
        "scenarios/image-typo.yaml",
        "40s",
        &["get", "pods", "-o", "json"],
    );
    assert_eq!(code, Some(0));
    let list: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let waiting = list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|p| {
            p["status"]["containerStatuses"]
                .as_array()
                .into_iter()
                .flatten()
        })
        .find(|cs| cs["state"]["waiting"]["reason"] == "ImagePullBackOff")
        .expect("a pod waits for its image");
    assert_eq!(waiting["image"], "web:2.0-typo");
    assert_eq!(waiting["imageID"], "");
    assert!(waiting.get("containerID").is_none() && waiting.get("user").is_none());
    assert_eq!(waiting["lastState"], serde_json::json!({}));

    // A pod no node can take has only what the API server and the scheduler wrote.
    let (out, _, code) = kubectl(
        "scenarios/six-want-four-ready.yaml",
        "3m",
        &["get", "pods", "-o", "json"],
    );
    assert_eq!(code, Some(0));
    let list: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let pending = list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["status"]["phase"] == "Pending")
        .expect("a pending pod");
    let keys: Vec<&str> = pending["status"]
        .as_object()
        .map(|s| s.keys().map(String::as_str).collect())
        .unwrap_or_default();
    assert_eq!(keys, ["conditions", "phase", "qosClass"]);
    assert_eq!(pending["status"]["conditions"][0]["type"], "PodScheduled");
    assert_eq!(
        pending["status"]["conditions"][0]["reason"],
        "Unschedulable"
    );
    assert_eq!(pending["status"]["conditions"][0]["observedGeneration"], 1);
    assert!(pending["spec"].get("nodeName").is_none());

    // An evicted pod on a running node: the graceful delete made it generation 2, which the
    // kubelet's conditions and status have observed; its merge put DisruptionTarget first.
    let (out, _, code) = kubectl(
        "scenarios/drain-for-maintenance.yaml",
        "40s",
        &["get", "pods", "-o", "json"],
    );
    assert_eq!(code, Some(0));
    let list: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let evicted = list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["metadata"].get("deletionTimestamp").is_some())
        .expect("an evicted pod");
    assert_eq!(evicted["metadata"]["generation"], 2);
    assert_eq!(evicted["status"]["observedGeneration"], 2);
    let conditions: Vec<(&str, i64)> = evicted["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            (
                c["type"].as_str().unwrap_or_default(),
                c["observedGeneration"].as_i64().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        conditions,
        [
            ("DisruptionTarget", 1),
            ("PodReadyToStartContainers", 2),
            ("Initialized", 2),
            ("Ready", 2),
            ("ContainersReady", 2),
            ("PodScheduled", 2),
        ]
    );
}

/// `kubectl get deployment web -o yaml` prints the stored object as kubectl's YAML printer
/// does: defaults filled in, keys sorted, a sequence flush with its key, the counts that are
/// zero left out but for terminatingReplicas, times in RFC 3339 and quoted, the last-applied
/// manifest as a literal block. Several objects come as a List; a missing name is NotFound on
/// stderr; kinds other than deployments and replicasets are refused.
#[test]
fn get_deployment_as_yaml_prints_the_stored_object() {
    let (out, err, code) = kubectl(
        "scenarios/rolling-update.yaml",
        "45s",
        &["get", "deployment", "web", "-o", "yaml"],
    );
    assert_eq!((code, err.as_str()), (Some(0), ""));
    let applied = r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"labels":{"app":"web"},"name":"web","namespace":"default"},"spec":{"replicas":10,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"image":"web:1.0","name":"web","ports":[{"containerPort":8080}],"readinessProbe":{"httpGet":{"path":"/healthz","port":8080},"periodSeconds":5},"resources":{"requests":{"cpu":"250m","memory":"128Mi"}}}]}}}}"#;
    let expected = format!(
        "apiVersion: apps/v1
kind: Deployment
metadata:
  annotations:
    deployment.kubernetes.io/revision: \"1\"
    kubectl.kubernetes.io/last-applied-configuration: |
      {applied}
  creationTimestamp: \"2026-01-01T00:00:00Z\"
  generation: 1
  labels:
    app: web
  name: web
  namespace: default
  uid: UID
spec:
  progressDeadlineSeconds: 600
  replicas: 10
  revisionHistoryLimit: 10
  selector:
    matchLabels:
      app: web
  strategy:
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 25%
    type: RollingUpdate
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - image: web:1.0
        imagePullPolicy: IfNotPresent
        name: web
        ports:
        - containerPort: 8080
          protocol: TCP
        readinessProbe:
          failureThreshold: 3
          httpGet:
            path: /healthz
            port: 8080
            scheme: HTTP
          periodSeconds: 5
          successThreshold: 1
          timeoutSeconds: 1
        resources:
          requests:
            cpu: 250m
            memory: 128Mi
        terminationMessagePath: /dev/termination-log
        terminationMessagePolicy: File
      dnsPolicy: ClusterFirst
      restartPolicy: Always
      schedulerName: default-scheduler
      securityContext: {{}}
      terminationGracePeriodSeconds: 30
status:
  availableReplicas: 10
  conditions:
  - lastTransitionTime: \"2026-01-01T00:00:07Z\"
    lastUpdateTime: \"2026-01-01T00:00:07Z\"
    message: Deployment has minimum availability.
    reason: MinimumReplicasAvailable
    status: \"True\"
    type: Available
  - lastTransitionTime: \"2026-01-01T00:00:00Z\"
    lastUpdateTime: \"2026-01-01T00:00:07Z\"
    message: ReplicaSet \"web-c676df4db\" has successfully progressed.
    reason: NewReplicaSetAvailable
    status: \"True\"
    type: Progressing
  observedGeneration: 1
  readyReplicas: 10
  replicas: 10
  terminatingReplicas: 0
  updatedReplicas: 10
"
    );
    let uid = out
        .lines()
        .find_map(|l| l.strip_prefix("  uid: "))
        .unwrap_or_default()
        .to_string();
    assert_eq!(out.replace(&uid, "UID"), expected);

    // Mid-rollout, the ReplicaSets as a List, each with its type and annotations.
    let (out, err, code) = kubectl(
        "scenarios/rolling-update.yaml",
        "70s",
        &["get", "rs", "-o", "yaml"],
    );
    assert_eq!((code, err.as_str()), (Some(0), ""));
    assert!(out.starts_with("apiVersion: v1\nitems:\n- apiVersion: apps/v1\n  kind: ReplicaSet\n  metadata:\n    annotations:\n      deployment.kubernetes.io/desired-replicas: \"10\"\n"), "{out}");
    assert!(
        out.ends_with("kind: List\nmetadata:\n  resourceVersion: \"\"\n"),
        "{out}"
    );
    assert_eq!(
        out.matches("\n- apiVersion: apps/v1\n  kind: ReplicaSet\n")
            .count(),
        2
    );

    let (out, err, code) = kubectl(
        "scenarios/rolling-update.yaml",
        "70s",
        &["get", "deploy/nope", "-o", "yaml"],
    );
    assert_eq!(
        (out.as_str(), err.trim_end(), code),
        (
            "",
            "Error from server (NotFound): deployments.apps \"nope\" not found",
            Some(1)
        )
    );
    let (_, err, code) = kubectl(
        "scenarios/rolling-update.yaml",
        "70s",
        &["get", "nodes", "-o", "yaml"],
    );
    assert_eq!(
        (err.trim_end(), code),
        (
            "error: RolloutScope prints -o yaml and -o json for deployments, replicasets and pods only",
            Some(1)
        )
    );
    // -o json is the same object, as Go's json.MarshalIndent writes it.
    let (out, err, code) = kubectl(
        "scenarios/rolling-update.yaml",
        "45s",
        &["get", "deploy/web", "-o", "json"],
    );
    assert_eq!((code, err.as_str()), (Some(0), ""));
    assert!(out.starts_with("{\n    \"apiVersion\": \"apps/v1\",\n    \"kind\": \"Deployment\",\n    \"metadata\": {\n        \"annotations\": {\n            \"deployment.kubernetes.io/revision\": \"1\",\n"), "{out}");
    assert!(
        out.contains(
            "\n        \"terminatingReplicas\": 0,\n        \"updatedReplicas\": 10\n    }\n}\n"
        ),
        "{out}"
    );
    let parsed: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(
        parsed["status"]["conditions"][1]["reason"],
        "NewReplicaSetAvailable"
    );
}

/// §17: past the progress deadline the watch prints `error: ...` on stderr after the lines it
/// printed and exits 1; `--watch=false` looks once and succeeds while the rollout is still
/// waiting; `--timeout` ends the watch as kubectl does; a missing Deployment is NotFound.
#[test]
fn rollout_status_fails_like_kubectl_past_the_deadline() {
    let waiting = "Waiting for deployment \"web\" rollout to finish: 2 out of 4 new replicas have been updated...\n";
    let deadline = "error: deployment \"web\" exceeded its progress deadline\n";
    let (out, err, code) = kubectl(
        "scenarios/image-typo.yaml",
        "40s",
        &["rollout", "status", "deploy/web"],
    );
    assert_eq!(
        (out.as_str(), err.as_str(), code),
        (waiting, deadline, Some(1))
    );

    let (out, err, code) = kubectl(
        "scenarios/image-typo.yaml",
        "40s",
        &["rollout", "status", "deploy/web", "--watch=false"],
    );
    assert_eq!((out.as_str(), err.as_str(), code), (waiting, "", Some(0)));

    let (out, err, code) = kubectl(
        "scenarios/image-typo.yaml",
        "40s",
        &["rollout", "status", "deployment", "web", "--timeout", "10s"],
    );
    assert_eq!(
        (out.as_str(), err.as_str(), code),
        (
            waiting,
            "error: timed out waiting for the condition\n",
            Some(1)
        )
    );

    let (out, err, code) = kubectl(
        "scenarios/image-typo.yaml",
        "2m",
        &["rollout", "status", "deploy/web"],
    );
    assert_eq!((out.as_str(), err.as_str(), code), ("", deadline, Some(1)));

    let (_, err, code) = kubectl(
        "scenarios/image-typo.yaml",
        "2m",
        &["rollout", "status", "deploy/nope"],
    );
    assert_eq!(code, Some(1));
    assert_eq!(
        err,
        "Error from server (NotFound): deployments.apps \"nope\" not found\n"
    );
}

/// `kubectl rollout history` prints through kubectl's name printer: `deployment.apps/web `
/// (with its trailing space), then the revision table and a blank line. After an undo, the
/// revision-1 ReplicaSet is revision 3 (§10.1 item 7), so the history lists 2 and 3.
#[test]
fn rollout_history_lists_the_revisions_like_kubectl() {
    let (out, err, code) = kubectl(
        "scenarios/rollout-undo.yaml",
        "10m",
        &["rollout", "history", "deploy/web"],
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out,
        "deployment.apps/web \nREVISION  CHANGE-CAUSE\n2         <none>\n3         <none>\n\n"
    );
    let (out, err, code) = kubectl(
        "scenarios/rollout-undo.yaml",
        "10m",
        &["rollout", "history", "deployment", "nope"],
    );
    assert_eq!((out.as_str(), code), ("", Some(1)));
    assert_eq!(
        err,
        "Error from server (NotFound): deployments.apps \"nope\" not found\n"
    );
}

/// A pod that does not exist is kubectl's NotFound, on stderr with exit 1, like any other
/// object.
#[test]
fn describe_of_a_missing_pod_fails_like_kubectl() {
    let (out, err, code) = kubectl(
        "scenarios/rolling-update.yaml",
        "1m",
        &["describe", "pod", "nope"],
    );
    assert_eq!((out.as_str(), code), ("", Some(1)));
    assert_eq!(
        err,
        "Error from server (NotFound): pods \"nope\" not found\n"
    );
}

/// `describe rs` answers for a ReplicaSet by name, and a missing one is kubectl's NotFound.
#[test]
fn describe_replica_set_by_name() {
    let (out, _, code) = kubectl(
        "scenarios/rolling-update.yaml",
        "2m",
        &["describe", "rs", "web-555bf46d9f"],
    );
    assert_eq!(code, Some(0));
    assert!(
        out.starts_with("Name:           web-555bf46d9f\nNamespace:      default\n"),
        "{out}"
    );
    assert!(
        out.contains("Replicas:       10 current / 10 desired\n"),
        "{out}"
    );
    let (out, err, code) = kubectl(
        "scenarios/rolling-update.yaml",
        "2m",
        &["describe", "replicaset", "nope"],
    );
    assert_eq!((out.as_str(), code), ("", Some(1)));
    assert_eq!(
        err,
        "Error from server (NotFound): replicasets.apps \"nope\" not found\n"
    );
}

/// `get pdb` and `describe pdb` answer for the drain scenario's budget, and a missing one is
/// kubectl's NotFound.
#[test]
fn get_and_describe_a_disruption_budget() {
    let file = "scenarios/drain-for-maintenance.yaml";
    let (out, _, code) = kubectl(file, "30s", &["get", "pdb"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        out,
        "NAME   MIN AVAILABLE   MAX UNAVAILABLE   ALLOWED DISRUPTIONS   AGE\nweb    5               N/A               1                     30s\n"
    );
    let (out, _, code) = kubectl(file, "30s", &["describe", "pdb", "web"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("Min available:  5\n"), "{out}");
    assert!(out.contains("    Allowed disruptions:  1\n"), "{out}");
    let (_, err, code) = kubectl(file, "30s", &["describe", "pdb", "nope"]);
    assert_eq!(code, Some(1));
    assert_eq!(
        err,
        "Error from server (NotFound): poddisruptionbudgets.policy \"nope\" not found\n"
    );
}

/// A name that names nothing is taken as a prefix (`DescribeMatchingResources`): every object of
/// the type whose name starts with it is described, in name order, each followed by a blank
/// line; with no match it is still NotFound.
#[test]
fn describe_takes_a_name_that_names_nothing_as_a_prefix() {
    let (out, err, code) = kubectl(
        "scenarios/rolling-update.yaml",
        "61s",
        &["describe", "rs", "web-"],
    );
    assert_eq!((code, err.as_str()), (Some(0), ""));
    assert!(out.starts_with("Name:           web-555bf46d9f\n"), "{out}");
    assert!(out.contains("\n\nName:           web-c676df4db\n"), "{out}");
    assert!(out.ends_with("\n\n"), "{out}");
    let (out, _, code) = kubectl(
        "scenarios/rolling-update.yaml",
        "61s",
        &["describe", "pods", "web-555bf46d9f-"],
    );
    assert_eq!(code, Some(0));
    assert_eq!(
        out.matches("\nControlled By:    ReplicaSet/web-555bf46d9f\n")
            .count(),
        5,
        "{out}"
    );
    let (out, err, code) = kubectl(
        "scenarios/rolling-update.yaml",
        "61s",
        &["describe", "deploy", "api"],
    );
    assert_eq!((out.as_str(), code), ("", Some(1)));
    assert_eq!(
        err,
        "Error from server (NotFound): deployments.apps \"api\" not found\n"
    );
}

/// `describe nodes` without a name describes every node, one after another with a blank line
/// between, as kubectl joins several descriptions.
#[test]
fn describe_nodes_describes_every_node() {
    let (out, err, code) = kubectl(
        "scenarios/six-want-four-ready.yaml",
        "3m",
        &["describe", "nodes"],
    );
    assert_eq!((code, err.as_str()), (Some(0), ""));
    assert!(out.starts_with("Name:               node-1\n"), "{out}");
    assert!(
        out.contains("Events:              <none>\n\n\nName:               node-2\n"),
        "{out}"
    );
    let (_, err, code) = kubectl(
        "scenarios/six-want-four-ready.yaml",
        "3m",
        &["describe", "node", "node-9"],
    );
    assert_eq!(code, Some(1));
    assert_eq!(
        err,
        "Error from server (NotFound): nodes \"node-9\" not found\n"
    );
}

/// `get events --sort-by=.lastTimestamp` lists the events oldest last-seen first (so the LAST
/// SEEN ages never grow down the table), as tutorials sort them; an unknown field is refused.
/// The scheduler's events come first whatever their age: it records through events.k8s.io, so
/// in the view kubectl sorts they have no lastTimestamp, and a null sorts before any time.
#[test]
fn events_sort_by_last_timestamp() {
    let (out, err, code) = kubectl(
        "scenarios/rolling-update.yaml",
        "2m",
        &["get", "events", "--sort-by=.lastTimestamp"],
    );
    assert_eq!((code, err.as_str()), (Some(0), ""));
    let reasons: Vec<&str> = out
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().nth(2))
        .collect();
    let scheduled = reasons.iter().filter(|r| **r == "Scheduled").count();
    assert!(scheduled >= 20, "{out}");
    assert!(
        reasons[..scheduled].iter().all(|r| *r == "Scheduled"),
        "the scheduler's events lead:\n{out}"
    );
    let (out, err, code) = kubectl(
        "scenarios/crash-loop.yaml",
        "4m",
        &["get", "events", "--sort-by=.lastTimestamp"],
    );
    assert_eq!((code, err.as_str()), (Some(0), ""));
    // Past the scheduler's rows, oldest first.
    let out: String = out
        .lines()
        .filter(|l| !l.contains(" Scheduled "))
        .flat_map(|l| [l, "\n"])
        .collect();
    let seconds = |age: &str| -> u64 {
        let (m, s) = age.split_once('m').unwrap_or(("0", age));
        let s = s.trim_end_matches('s');
        m.parse::<u64>().unwrap_or(0) * 60 + s.parse::<u64>().unwrap_or(0)
    };
    let ages: Vec<u64> = out
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .map(seconds)
        .collect();
    assert!(ages.len() > 5, "{out}");
    assert!(ages.windows(2).all(|w| w[0] >= w[1]), "{ages:?}\n{out}");
    let (_, err, code) = kubectl(
        "scenarios/crash-loop.yaml",
        "4m",
        &["get", "events", "--sort-by=.reason"],
    );
    assert_eq!(code, Some(1));
    assert!(
        err.starts_with("error: unsupported --sort-by \".reason\""),
        "{err}"
    );
}

/// `kubectl rollout history --revision=N` prints that revision's pod template as
/// `DescribePodTemplate` writes it into a plain buffer, tabs and all, under
/// `deployment.apps/web with revision #N`; an unknown revision is kubectl's error.
#[test]
fn rollout_history_of_one_revision_prints_its_template() {
    let (out, err, code) = kubectl(
        "scenarios/rollout-undo.yaml",
        "10m",
        &["rollout", "history", "deploy/web", "--revision=2"],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.starts_with("deployment.apps/web with revision #2\nPod Template:\n  Labels:\tapp=web\n\tpod-template-hash="),
        "{out}"
    );
    assert!(out.contains("\n    Image:\tweb:2.0\n"), "{out}");
    assert!(out.ends_with("  Tolerations:\t<none>\n\n"), "{out}");
    let (_, err, code) = kubectl(
        "scenarios/rollout-undo.yaml",
        "10m",
        &["rollout", "history", "deploy", "web", "--revision", "9"],
    );
    assert_eq!(code, Some(1));
    assert_eq!(err, "error: unable to find the specified revision\n");
}

/// `--revision` must not be negative (`RolloutHistoryOptions.Validate`), and kubectl prints
/// the `with revision #N` header even when there is no history to show it from.
#[test]
fn rollout_history_checks_its_revision_like_kubectl() {
    let (out, err, code) = kubectl(
        "scenarios/rollout-undo.yaml",
        "10m",
        &["rollout", "history", "deploy/web", "--revision=-1"],
    );
    assert_eq!((out.as_str(), code), ("", Some(1)));
    assert_eq!(err, "error: revision must be a positive integer: -1\n");
}

/// `kubectl events` lists every event by the time it was last seen, oldest first, with its own
/// printer: OBJECT as `Kind/name`, and a repeated event's LAST SEEN as `<age> (x<n> over <age
/// of the first>)`. So the events that just happened, repeats included, are at the end.
#[test]
fn events_lists_by_last_seen_with_kubectl_events_printer() {
    let (out, err, code) = kubectl("scenarios/image-typo.yaml", "3m", &["events"]);
    assert_eq!((code, err.as_str()), (Some(0), ""));
    let mut lines = out.lines();
    assert_eq!(
        lines
            .next()
            .map(|h| h.split_whitespace().collect::<Vec<_>>()),
        Some(vec!["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"])
    );
    assert!(
        out.contains("31s (x7 over 2m28s)     Normal    BackOff             Pod/web-5b4cbd44fd-"),
        "{out}"
    );
    assert!(out.contains("   Deployment/web   "), "{out}");
    let seconds = |age: &str| -> u64 {
        let (m, s) = age.split_once('m').unwrap_or(("0", age));
        m.parse::<u64>().unwrap_or(0) * 60 + s.trim_end_matches('s').parse::<u64>().unwrap_or(0)
    };
    let ages: Vec<u64> = lines
        .filter_map(|l| l.split_whitespace().next())
        .map(seconds)
        .collect();
    assert!(ages.len() > 20, "{out}");
    assert!(ages.windows(2).all(|w| w[0] >= w[1]), "{ages:?}\n{out}");
    assert_eq!(ages.last(), Some(&0), "the latest event is last");
}

/// `kubectl get` that finds nothing succeeds with nothing on stdout (so `| wc -l` counts 0) and
/// says so on stderr, as `get.go` writes it.
#[test]
fn get_with_nothing_to_list_says_so_on_stderr() {
    let dir = std::env::temp_dir().join(format!("rolloutscope-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("zero.yaml");
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/rolling-update.yaml"),
    )
    .expect("bundled scenario")
    .replace("replicas: 10", "replicas: 0");
    assert!(
        text.contains("replicas: 0"),
        "the scenario sets its replicas"
    );
    std::fs::write(&file, text).expect("write scenario");
    let file = file.to_string_lossy().into_owned();
    for args in [
        &["get", "pods"][..],
        &["get", "events", "--field-selector", "type=Warning"],
    ] {
        let (out, err, code) = kubectl(&file, "10s", args);
        assert_eq!(
            (out.as_str(), err.as_str(), code),
            ("", "No resources found in default namespace.\n", Some(0)),
            "{args:?}"
        );
    }
    // The Deployment itself is listed.
    let (out, _, code) = kubectl(&file, "10s", &["get", "deploy"]);
    assert_eq!(code, Some(0));
    assert!(out.starts_with("NAME "), "{out}");
}

/// The API server keeps an event for an hour after its last write (`--event-ttl`): two hours
/// into a crash loop, the pod's scheduling and first pulls are gone from `get events` and
/// `describe`, while the back-off that still repeats stays.
#[test]
fn events_expire_an_hour_after_they_were_last_seen() {
    let (at_50m, _, _) = kubectl("scenarios/crash-loop.yaml", "50m", &["get", "events"]);
    assert!(at_50m.contains(" Scheduled "), "{at_50m}");
    let (out, err, code) = kubectl("scenarios/crash-loop.yaml", "2h", &["get", "events"]);
    assert_eq!((err.as_str(), code), ("", Some(0)));
    assert!(!out.contains(" Scheduled "), "{out}");
    assert!(!out.contains("ScalingReplicaSet"), "{out}");
    assert!(out.contains(" BackOff "), "{out}");
    let (described, _, _) = kubectl(
        "scenarios/crash-loop.yaml",
        "2h",
        &["describe", "deploy", "web"],
    );
    assert!(
        described.ends_with("Events:          <none>\n"),
        "{described}"
    );
}

/// `rollout` names its Deployment with any of kubectl's words for the kind.
#[test]
fn rollout_takes_every_name_of_the_deployment_kind() {
    for target in ["deploy/web", "deployment.apps/web", "deployments/web"] {
        let (out, err, code) = kubectl(
            "scenarios/rolling-update.yaml",
            "3m",
            &["rollout", "status", target, "--watch=false"],
        );
        assert_eq!(
            (out.as_str(), err.as_str(), code),
            ("deployment \"web\" successfully rolled out\n", "", Some(0)),
            "{target}"
        );
    }
}

/// `kubectl get TYPE NAME…` and `kubectl get TYPE/NAME…`: the named objects only, in the order
/// named, with kinds on the names once several types are named; a name that names nothing is
/// kubectl's NotFound on stderr, after what was found, and exit 1; and a type given both ways is
/// refused as kubectl refuses it.
#[test]
fn get_looks_objects_up_by_name_like_kubectl() {
    let file = "scenarios/rolling-update.yaml";
    let (out, err, code) = kubectl(file, "70s", &["get", "deploy", "web"]);
    assert_eq!(
        (out.as_str(), err.as_str(), code),
        (
            "NAME   READY   UP-TO-DATE   AVAILABLE   AGE\nweb    8/10    10           8           70s\n",
            "",
            Some(0)
        )
    );
    let (out, err, code) = kubectl(file, "70s", &["get", "deployment", "nope", "web"]);
    assert!(
        out.starts_with("NAME ") && out.lines().count() == 2,
        "{out}"
    );
    assert_eq!(
        (err.as_str(), code),
        (
            "Error from server (NotFound): deployments.apps \"nope\" not found\n",
            Some(1)
        )
    );
    // Two kinds: each its own table, names with their kinds, a blank line between.
    let (all, _, _) = kubectl(file, "70s", &["get", "rs"]);
    let rs: Vec<&str> = all
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let (out, err, code) = kubectl(
        file,
        "70s",
        &[
            "get",
            "deploy/web",
            &format!("rs/{}", rs[1]),
            &format!("rs/{}", rs[0]),
        ],
    );
    assert_eq!((err.as_str(), code), ("", Some(0)));
    let tables: Vec<&str> = out.split("\n\n").collect();
    assert_eq!(tables.len(), 2, "{out}");
    assert!(tables[0].contains("\ndeployment.apps/web "), "{out}");
    let names: Vec<&str> = tables[1]
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(
        names,
        [
            format!("replicaset.apps/{}", rs[1]),
            format!("replicaset.apps/{}", rs[0])
        ]
    );
    // A name is not a prefix for get, as it is for describe.
    let (out, err, code) = kubectl(file, "70s", &["get", "pods", "web", "-o", "wide"]);
    assert_eq!(
        (out.as_str(), err.as_str(), code),
        (
            "",
            "Error from server (NotFound): pods \"web\" not found\n",
            Some(1)
        )
    );
    let (_, err, code) = kubectl(file, "70s", &["get", "deploy", "deploy/web"]);
    assert!(
        err.starts_with(
            "error: there is no need to specify a resource type as a separate argument"
        ),
        "{err}"
    );
    assert_eq!(code, Some(1));
}

/// `rollout history` of a ReplicaSet: kubectl fetches it, then finds no history viewer for its
/// kind; a missing one is NotFound first.
#[test]
fn rollout_history_of_a_replica_set_has_no_history_viewer() {
    let (out, err, code) = kubectl(
        "scenarios/rolling-update.yaml",
        "30s",
        &["rollout", "history", "rs/web-c676df4db"],
    );
    assert_eq!(
        (out.as_str(), err.as_str(), code),
        (
            "",
            "error: no history viewer has been implemented for \"ReplicaSet.apps\"\n",
            Some(1)
        )
    );
    let (_, err, code) = kubectl(
        "scenarios/rolling-update.yaml",
        "30s",
        &["rollout", "history", "rs", "nope"],
    );
    assert_eq!(
        (err.as_str(), code),
        (
            "Error from server (NotFound): replicasets.apps \"nope\" not found\n",
            Some(1)
        )
    );
}
