//! Upstream test vectors: every case of `tests/fixtures/k8s-vectors.json` — the tables of the
//! Kubernetes unit tests the specification follows — run against the crate's real functions.
//!
//! There is one test per upstream table. A table's translation turns a case's `input` into crate
//! objects, calls the function under test and renders what it got in the shape of the case's
//! `expected`; [`check_table`] compares the two for every case, collects every mismatch (table,
//! case, input, expected, got) and fails once with all of them. [`every_vector_case_runs`] runs
//! every table and checks that together they executed `case_count` cases, so no table or case
//! can be skipped silently.
//!
//! Where the crate's model differs from the Go fixtures, the translation bridges it like this:
//! * **Time.** The crate's [`Time`] counts milliseconds. RFC 3339 timestamps become milliseconds
//!   since the Unix epoch, with a sub-millisecond fraction rounded *up*, which keeps strict
//!   comparisons with whole-second times intact (`18:49:59.000000001` stays after `18:49:59`).
//!   A Go zero time is `Time::ZERO` where the crate takes a `Time`, and `None` in a [`RankKey`].
//! * **"now = real wall clock"** (TestSyncRolloutStatus) becomes a fixed moment long after the
//!   fixture's condition times, [`WALL_CLOCK`].
//! * **Pod phase `""`** (TestOldPodsRunning) has no value in the crate's closed `PodPhase`; it is
//!   the crate's default phase, Pending. Both are non-terminal, which is what the rule reads.
//! * **Feature gate `PodDeletionCost` off** (one ranking case): the gate makes upstream ignore
//!   the annotation, so both pods' deletion costs are 0 in their rank keys.
//! * **Creation order `older < old < new`** becomes three increasing timestamps.
//! * **Descriptive fields.** `meaning` (TestRequeueStuckDeployment) only explains the numbers
//!   and is echoed. Claims written as text — TestSyncRolloutStatus `timestamps` and the
//!   TestAnnotationUtils revision-history rule — are checked, and echoed only when they hold.
//!   TestScale's `previousDeployment(for annotations)` is where upstream's annotations came
//!   from; the cases carry the annotations themselves, which are what `scale` reads.

use rolloutscope::sim::api::{
    ConditionReason, ConditionStatus, Container, Deployment, DeploymentCondition,
    DeploymentConditionType, DeploymentSpec, DeploymentStatus, DeploymentStrategy,
    DeploymentStrategyType, IntOrString, LabelSelector, ObjectMeta, Pod, PodCondition,
    PodConditionType, PodPhase, PullPolicy, ReplicaSet, ReplicaSetSpec, ReplicaSetStatus,
    RollingUpdateDeployment, Time,
};
use rolloutscope::sim::controller::Change;
use rolloutscope::sim::controller::deployment::util::{
    self, DESIRED_REPLICAS_ANNOTATION, MAX_REPLICAS_ANNOTATION, REVISION_ANNOTATION,
    REVISION_HISTORY_ANNOTATION,
};
use rolloutscope::sim::controller::deployment::{SyncContext, progress, recreate, rolling, sync};
use rolloutscope::sim::controller::replica_set::{
    RankKey, get_pods_to_delete, less, slow_start_batch,
};
use rolloutscope::sim::kubectl::rollout_status;
use rolloutscope::sim::store::Store;
use rolloutscope::sim::validation::{ROLLBACK_TO_ANNOTATION, set_defaults, validate_deployment};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::OnceLock;

// ---------------------------------------------------------------------------------------------
// The fixture and the runner
// ---------------------------------------------------------------------------------------------

#[derive(Deserialize)]
struct Vectors {
    case_count: usize,
    tables: Vec<Table>,
}

#[derive(Deserialize)]
struct Table {
    source: String,
    test: String,
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    input: Value,
    expected: Value,
}

fn vectors() -> &'static Vectors {
    static VECTORS: OnceLock<Vectors> = OnceLock::new();
    VECTORS.get_or_init(|| {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/k8s-vectors.json"
        );
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {path}: {e}"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("parse {path}: {e}"))
    })
}

/// A table's translation: from a case (its `input`, and for fields that only describe, its
/// `expected`) to what the crate got, in the shape of `expected`.
type Translate = fn(&Case) -> Value;

/// A translation that reads only the case's `input` and `expected`.
macro_rules! io {
    ($f:ident) => {
        |c: &Case| $f(&c.input, &c.expected)
    };
}

/// Every upstream table, by its `test` name, with its translation.
const TABLES: &[(&str, Translate)] = &[
    (
        "TestDeploymentController_reconcileNewReplicaSet",
        io!(reconcile_new_replica_set),
    ),
    (
        "TestDeploymentController_reconcileOldReplicaSets",
        io!(reconcile_old_replica_sets),
    ),
    (
        "TestDeploymentController_cleanupUnhealthyReplicas",
        io!(cleanup_unhealthy_replicas),
    ),
    (
        "TestDeploymentController_scaleDownOldReplicaSetsForRollingUpdate",
        io!(scale_down_old_replica_sets_for_rolling_update),
    ),
    ("TestScale", io!(scale)),
    (
        "TestDeploymentController_cleanupDeployment",
        io!(cleanup_deployment_count),
    ),
    (
        "TestDeploymentController_cleanupDeploymentOrder",
        io!(cleanup_deployment_order),
    ),
    ("TestRequeueStuckDeployment", io!(requeue_stuck_deployment)),
    ("TestSyncRolloutStatus", io!(sync_rollout_status)),
    ("TestResolveFenceposts", io!(resolve_fenceposts)),
    ("TestNewRSNewReplicas", io!(new_rs_new_replicas)),
    ("TestDeploymentComplete", io!(deployment_complete)),
    ("TestDeploymentProgressing", io!(deployment_progressing)),
    ("TestDeploymentTimedOut", io!(deployment_timed_out)),
    ("TestMaxUnavailable", io!(max_unavailable)),
    ("TestMinAvailable", io!(min_available)),
    (
        "TestReplicasAnnotationsNeedUpdate",
        io!(replicas_annotations_need_update),
    ),
    ("TestAnnotationUtils", io!(annotation_utils)),
    ("TestGetReplicaCountForReplicaSets", io!(replica_counts)),
    ("TestGetReplicaSetFraction", io!(replica_set_fraction)),
    (
        "TestGetNonNegativeInt32FromAnnotation",
        io!(non_negative_int32_from_annotation),
    ),
    ("TestOldPodsRunning", io!(old_pods_running)),
    (
        "TestScaleDownOldReplicaSets",
        io!(scale_down_old_replica_sets_for_recreate),
    ),
    ("TestSlowStartBatch", io!(slow_start)),
    ("TestGetPodsToDelete", io!(pods_to_delete)),
    (
        "TestSortingActivePodsWithRanks (equality tests)",
        |c: &Case| ranks_equal(&c.name, &c.input),
    ),
    (
        "TestSortingActivePodsWithRanks (inequality tests)",
        io!(ranks_ordered),
    ),
    (
        "TestDeploymentStatusViewerStatus",
        io!(deployment_status_viewer),
    ),
    (
        "TestValidateDeployment (errorCases)",
        io!(validate_error_cases),
    ),
    ("TestSetDefaultDeployment", io!(set_default_deployment)),
];

/// What running one table found.
struct TableRun {
    source: String,
    ran: usize,
    failures: Vec<String>,
}

/// Runs every case of the named table; a panic inside a case is that case's failure.
fn run_table(test: &str) -> TableRun {
    let translate = TABLES
        .iter()
        .find(|(name, _)| *name == test)
        .map(|(_, f)| *f)
        .unwrap_or_else(|| panic!("no translation registered for {test:?}"));
    let table = vectors()
        .tables
        .iter()
        .find(|t| t.test == test)
        .unwrap_or_else(|| panic!("the fixture has no table {test:?}"));
    let mut run = TableRun {
        source: table.source.clone(),
        ran: 0,
        failures: Vec::new(),
    };
    for case in &table.cases {
        let got = catch_unwind(AssertUnwindSafe(|| translate(case))).unwrap_or_else(|panic| {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(ToString::to_string))
                .unwrap_or_default();
            json!({ "panicked": msg })
        });
        run.ran += 1;
        if got != case.expected {
            run.failures.push(format!(
                "{test} / {:?}\n    input:    {}\n    expected: {}\n    got:      {}",
                case.name, case.input, case.expected, got
            ));
        }
    }
    run
}

/// Runs the named table and fails with every mismatching case.
fn check_table(test: &str) {
    let run = run_table(test);
    assert!(
        run.failures.is_empty(),
        "{test} ({}): {} of {} cases differ from upstream\n\n{}\n",
        run.source,
        run.failures.len(),
        run.ran,
        run.failures.join("\n\n")
    );
}

#[test]
fn every_vector_case_runs() {
    let v = vectors();
    let in_fixture: Vec<&str> = v.tables.iter().map(|t| t.test.as_str()).collect();
    let registered: Vec<&str> = TABLES.iter().map(|(name, _)| *name).collect();
    let unique: BTreeSet<&str> = in_fixture.iter().copied().collect();
    assert_eq!(
        unique.len(),
        in_fixture.len(),
        "table names repeat in the fixture"
    );
    assert_eq!(
        unique,
        registered.iter().copied().collect::<BTreeSet<_>>(),
        "every fixture table needs exactly one translation"
    );
    let ran: usize = registered.iter().map(|t| run_table(t).ran).sum();
    assert_eq!(
        ran, v.case_count,
        "cases executed vs the fixture's case_count"
    );
}

// ---------------------------------------------------------------------------------------------
// Reading the fixture
// ---------------------------------------------------------------------------------------------

fn field<'a>(v: &'a Value, key: &str) -> &'a Value {
    v.get(key)
        .unwrap_or_else(|| panic!("fixture: no {key:?} in {v}"))
}

fn int(v: &Value, key: &str) -> i32 {
    opt_int(v, key).unwrap_or_else(|| panic!("fixture: {key:?} is null in {v}"))
}

fn opt_int(v: &Value, key: &str) -> Option<i32> {
    let f = field(v, key);
    if f.is_null() {
        return None;
    }
    let n = f
        .as_i64()
        .unwrap_or_else(|| panic!("fixture: {key:?} is not an integer in {v}"));
    Some(i32::try_from(n).unwrap_or_else(|_| panic!("fixture: {key:?} exceeds int32")))
}

fn int_or(v: &Value, key: &str, default: i32) -> i32 {
    if v.get(key).is_some() {
        int(v, key)
    } else {
        default
    }
}

fn boolean(v: &Value, key: &str) -> bool {
    field(v, key)
        .as_bool()
        .unwrap_or_else(|| panic!("fixture: {key:?} is not a bool in {v}"))
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    field(v, key)
        .as_str()
        .unwrap_or_else(|| panic!("fixture: {key:?} is not a string in {v}"))
}

fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    field(v, key)
        .as_array()
        .unwrap_or_else(|| panic!("fixture: {key:?} is not a list in {v}"))
}

/// An `intstr.IntOrString` pointer: null is nil, a number an int, a string a string.
fn int_or_string(v: &Value) -> Option<IntOrString> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(IntOrString::String(s.clone())),
        Value::Number(n) => Some(IntOrString::Int(
            n.as_i64()
                .and_then(|n| i32::try_from(n).ok())
                .unwrap_or_else(|| panic!("fixture: {n} is not an int32")),
        )),
        other => panic!("fixture: {other} is not an IntOrString"),
    }
}

/// An RFC 3339 UTC timestamp (`2017-02-15T18:49:00Z`) as milliseconds since the Unix epoch,
/// rounding a sub-millisecond fraction up; null is the zero time.
fn time(v: &Value) -> Time {
    match v {
        Value::Null => Time::ZERO,
        Value::String(s) => parse_time(s),
        other => panic!("fixture: {other} is not a timestamp"),
    }
}

fn parse_time(s: &str) -> Time {
    let bad = || -> ! { panic!("fixture: {s:?} is not an RFC 3339 UTC time") };
    let num = |t: &str| t.parse::<i64>().unwrap_or_else(|_| bad());
    let Some((date, clock)) = s.strip_suffix('Z').and_then(|b| b.split_once('T')) else {
        bad()
    };
    let d: Vec<i64> = date.split('-').map(num).collect();
    let (hms, frac) = clock.split_once('.').unwrap_or((clock, ""));
    let c: Vec<i64> = hms.split(':').map(num).collect();
    if d.len() != 3 || c.len() != 3 || frac.len() > 9 {
        bad();
    }
    let nanos = if frac.is_empty() {
        0
    } else {
        num(&format!("{frac:0<9}"))
    };
    let secs = ((days_from_civil(d[0], d[1], d[2]) * 24 + c[0]) * 60 + c[1]) * 60 + c[2];
    let ms = secs * 1000 + (nanos + 999_999) / 1_000_000;
    Time::from_millis(u64::try_from(ms).unwrap_or_else(|_| bad()))
}

/// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn condition_status(s: &str) -> ConditionStatus {
    match s {
        "True" => ConditionStatus::True,
        "False" => ConditionStatus::False,
        "Unknown" => ConditionStatus::Unknown,
        other => panic!("fixture: {other:?} is not a condition status"),
    }
}

fn reason(s: &str) -> ConditionReason {
    ConditionReason::parse(s).unwrap_or_else(|| panic!("fixture: {s:?} is not a known reason"))
}

fn phase(s: &str) -> PodPhase {
    match s {
        // Go's empty phase: the crate's closed PodPhase has no such value (see the module docs).
        "phase:\"\"" | "" => PodPhase::default(),
        other => serde_json::from_value(json!(other))
            .unwrap_or_else(|_| panic!("fixture: {other:?} is not a pod phase")),
    }
}

// ---------------------------------------------------------------------------------------------
// Fixture objects
// ---------------------------------------------------------------------------------------------

/// A moment for functions that take `now` but whose cases do not depend on it.
const NOW: Time = Time::from_secs(40 * 24 * 3600);
/// "now = real wall clock" of TestSyncRolloutStatus: long after its 2017 condition times.
const WALL_CLOCK: &str = "2024-01-01T00:00:00Z";
/// The creation times behind "older < old < new".
const OLDER: Time = Time::from_secs(3600);
const OLD: Time = Time::from_secs(2 * 3600);
const NEW: Time = Time::from_secs(3 * 3600);

fn creation(word: &str) -> Time {
    match word {
        "older" => OLDER,
        "old" => OLD,
        "new" => NEW,
        other => panic!("fixture: {other:?} is not a creation order word"),
    }
}

/// `newDeployment` of the deployment-controller tests: a RollingUpdate Deployment `foo`.
fn deployment(
    replicas: i32,
    max_surge: Option<IntOrString>,
    max_unavailable: Option<IntOrString>,
) -> Deployment {
    strategy_deployment(
        DeploymentStrategyType::RollingUpdate,
        Some(replicas),
        max_surge,
        max_unavailable,
    )
}

/// A Deployment `foo` of the given strategy; `rollingUpdate` is set only when a bound is given.
fn strategy_deployment(
    type_: DeploymentStrategyType,
    replicas: Option<i32>,
    max_surge: Option<IntOrString>,
    max_unavailable: Option<IntOrString>,
) -> Deployment {
    let rolling_update =
        (max_surge.is_some() || max_unavailable.is_some()).then_some(RollingUpdateDeployment {
            max_unavailable,
            max_surge,
        });
    Deployment {
        metadata: ObjectMeta {
            name: "foo".to_string(),
            namespace: "default".to_string(),
            uid: "foo-uid".to_string(),
            ..Default::default()
        },
        spec: DeploymentSpec {
            replicas,
            strategy: DeploymentStrategy {
                type_: Some(type_),
                rolling_update,
            },
            ..Default::default()
        },
        ..Default::default()
    }
}

/// The Deployment built from a `{"replicas", "maxSurge", "maxUnavailable"}` object.
fn deployment_of(v: &Value) -> Deployment {
    deployment(
        int(v, "replicas"),
        int_or_string(field(v, "maxSurge")),
        int_or_string(field(v, "maxUnavailable")),
    )
}

/// The `progress-test` Deployment of progress_test.go (`currentDeployment`): Recreate.
fn progress_deployment(pds: Option<i32>, replicas: i32, status: DeploymentStatus) -> Deployment {
    let mut d = strategy_deployment(DeploymentStrategyType::Recreate, Some(replicas), None, None);
    d.metadata.name = "progress-test".to_string();
    d.spec.progress_deadline_seconds = pds;
    d.status = status;
    d
}

/// `rs(name, replicas, selector, timestamp)` of the controller tests, with available replicas.
fn rs(name: &str, replicas: i32, available: i32, created: Time) -> ReplicaSet {
    ReplicaSet {
        metadata: ObjectMeta {
            name: name.to_string(),
            namespace: "default".to_string(),
            uid: format!("{name}-uid"),
            creation_timestamp: created,
            ..Default::default()
        }
        .into(),
        spec: ReplicaSetSpec {
            replicas,
            ..Default::default()
        },
        status: ReplicaSetStatus {
            available_replicas: available,
            ..Default::default()
        },
    }
}

/// A ReplicaSet with `status.replicas`, as `newRSWithStatus` builds them.
fn rs_with_status(name: &str, spec: i32, status_replicas: i32) -> ReplicaSet {
    let mut r = rs(name, spec, 0, Time::ZERO);
    r.status.replicas = status_replicas;
    r
}

fn with_annotation(mut r: ReplicaSet, key: &str, value: impl ToString) -> ReplicaSet {
    r.metadata
        .annotations
        .insert(key.to_string(), value.to_string());
    r
}

fn status(replicas: i32, updated: i32, ready: i32, available: i32) -> DeploymentStatus {
    DeploymentStatus {
        replicas,
        updated_replicas: updated,
        ready_replicas: ready,
        available_replicas: available,
        ..Default::default()
    }
}

/// A status from a `{"replicas", "updatedReplicas", "availableReplicas", "readyReplicas"?}`
/// object (a missing count is 0).
fn status_of(v: &Value) -> DeploymentStatus {
    status(
        int(v, "replicas"),
        int(v, "updatedReplicas"),
        int_or(v, "readyReplicas", 0),
        int(v, "availableReplicas"),
    )
}

fn progressing(status: ConditionStatus, reason: ConditionReason, at: Time) -> DeploymentCondition {
    DeploymentCondition {
        type_: DeploymentConditionType::Progressing,
        status,
        last_update_time: at,
        last_transition_time: at,
        reason,
        message: String::new(),
    }
}

/// A pass over an empty store: the functions under test take everything as arguments.
fn with_ctx<T>(now: Time, f: impl FnOnce(&mut SyncContext<'_>) -> T) -> (T, Vec<Change>) {
    let store = Store::default();
    let mut ctx = SyncContext::new(&store, now);
    let out = f(&mut ctx);
    (out, ctx.out.changes)
}

fn rs_updates(changes: &[Change]) -> Vec<&ReplicaSet> {
    changes
        .iter()
        .filter_map(|c| match c {
            Change::UpdateReplicaSet(r) => Some(r),
            _ => None,
        })
        .collect()
}

/// The size written by the single ReplicaSet update the upstream test expects.
fn single_update_size(changes: &[Change]) -> Value {
    match rs_updates(changes).as_slice() {
        [only] => json!(only.spec.replicas),
        many => json!(format!(
            "{} ReplicaSet updates: {:?}",
            many.len(),
            many.iter()
                .map(|r| (&r.metadata.name, r.spec.replicas))
                .collect::<Vec<_>>()
        )),
    }
}

/// Sizes after the pass: each ReplicaSet's starting size, overwritten by every update of it.
fn sizes_after(rss: &[ReplicaSet], changes: &[Change]) -> BTreeMap<String, i32> {
    let mut sizes: BTreeMap<String, i32> = rss
        .iter()
        .map(|r| (r.metadata.name.clone(), r.spec.replicas))
        .collect();
    for r in rs_updates(changes) {
        sizes.insert(r.metadata.name.clone(), r.spec.replicas);
    }
    sizes
}

// ---------------------------------------------------------------------------------------------
// rolling_test.go
// ---------------------------------------------------------------------------------------------

#[test]
fn reconcile_new_replica_set_matches_upstream_table() {
    check_table("TestDeploymentController_reconcileNewReplicaSet");
}

/// allRSs = [newRS, oldRS]; "scaled" is the returned bool.
fn reconcile_new_replica_set(input: &Value, _: &Value) -> Value {
    let d = deployment(
        int(input, "deploymentReplicas"),
        int_or_string(field(input, "maxSurge")),
        int_or_string(field(input, "maxUnavailable")),
    );
    let new_rs = rs("foo-v2", int(input, "newRS.spec.replicas"), 0, Time::ZERO);
    let old_rs = rs("foo-v1", int(input, "oldRS.spec.replicas"), 0, Time::ZERO);
    let all = [new_rs.clone(), old_rs];
    let (scaled, changes) = with_ctx(NOW, |ctx| {
        rolling::reconcile_new_replica_set(ctx, &all, &new_rs, &d)
    });
    let mut got = json!({ "scaled": scaled });
    if scaled {
        got["newRS.spec.replicas"] = single_update_size(&changes);
    }
    got
}

#[test]
fn reconcile_old_replica_sets_matches_upstream_table() {
    check_table("TestDeploymentController_reconcileOldReplicaSets");
}

/// allRSs = [oldRS, newRS], oldRSs = [oldRS]; the old size is the last one written.
fn reconcile_old_replica_sets(input: &Value, _: &Value) -> Value {
    let d = deployment(
        int(input, "deploymentReplicas"),
        int_or_string(field(input, "maxSurge")),
        int_or_string(field(input, "maxUnavailable")),
    );
    let new_rs = rs(
        "foo-new",
        int(input, "newRS.spec.replicas"),
        int(input, "newRS.status.availableReplicas"),
        Time::ZERO,
    );
    let old_rs = rs(
        "foo-old",
        int(input, "oldRS.spec.replicas"),
        int(input, "oldRS.status.availableReplicas"),
        Time::ZERO,
    );
    let all = [old_rs.clone(), new_rs.clone()];
    let olds = [old_rs.clone()];
    let (scaled, changes) = with_ctx(NOW, |ctx| {
        rolling::reconcile_old_replica_sets(ctx, &all, &olds, &new_rs, &d)
    });
    let mut got = json!({ "scaled": scaled });
    if scaled {
        got["oldRS.spec.replicas_after"] = json!(sizes_after(&olds, &changes)["foo-old"]);
    }
    got
}

#[test]
fn cleanup_unhealthy_replicas_matches_upstream_table() {
    check_table("TestDeploymentController_cleanupUnhealthyReplicas");
}

fn cleanup_unhealthy_replicas(input: &Value, _: &Value) -> Value {
    let d = deployment_of(field(input, "deployment"));
    let (spec, available) = (
        int(input, "oldRS.spec.replicas"),
        int(input, "oldRS.status.availableReplicas"),
    );
    assert_eq!(
        spec - available,
        int(input, "unhealthyPods"),
        "fixture: unhealthyPods should be spec − available"
    );
    let old = [rs("foo-v2", spec, available, Time::ZERO)];
    let max = int(input, "maxCleanupCount");
    let (result, _) = with_ctx(NOW, |ctx| {
        rolling::cleanup_unhealthy_replicas(ctx, &old, &d, max)
    });
    let (_, count) = result.unwrap_or_else(|e| panic!("cleanupUnhealthyReplicas failed: {e}"));
    json!({ "cleanupCount": count })
}

#[test]
fn scale_down_old_replica_sets_for_rolling_update_matches_upstream_table() {
    check_table("TestDeploymentController_scaleDownOldReplicaSetsForRollingUpdate");
}

/// allRSs = oldRSs = [oldRS]; "scaled" is a non-zero returned count.
fn scale_down_old_replica_sets_for_rolling_update(input: &Value, _: &Value) -> Value {
    let d = deployment(
        int(input, "deploymentReplicas"),
        int_or_string(field(input, "maxSurge")),
        int_or_string(field(input, "maxUnavailable")),
    );
    let old = [rs(
        "foo-v2",
        int(input, "oldRS.spec.replicas"),
        int(input, "oldRS.status.availableReplicas"),
        Time::ZERO,
    )];
    let (count, changes) = with_ctx(NOW, |ctx| {
        rolling::scale_down_old_replica_sets_for_rolling_update(ctx, &old, &old, &d)
    });
    let mut got = json!({ "scaled": count != 0 });
    if count != 0 {
        got["oldRS.spec.replicas_after"] = single_update_size(&changes);
    }
    got
}

// ---------------------------------------------------------------------------------------------
// sync_test.go
// ---------------------------------------------------------------------------------------------

#[test]
fn proportional_scaling_matches_upstream_table() {
    check_table("TestScale");
}

/// A TestScale ReplicaSet: name, size, creation order and replica annotations.
fn scale_rs(v: &Value) -> ReplicaSet {
    let annotations = field(v, "annotations");
    let r = rs(
        text(v, "name"),
        int(v, "spec.replicas"),
        0,
        creation(text(v, "creation")),
    );
    let r = with_annotation(
        r,
        DESIRED_REPLICAS_ANNOTATION,
        int(annotations, "desired-replicas"),
    );
    with_annotation(r, MAX_REPLICAS_ANNOTATION, int(annotations, "max-replicas"))
}

/// Sizes are the starting sizes overwritten by the updates issued. (Upstream ignores the
/// updates of two cases' `wasntUpdated` ReplicaSets; those updates, if any, would not change
/// a size there, so reading all of them compares the same numbers.)
fn scale(input: &Value, _: &Value) -> Value {
    let d = deployment_of(field(input, "deployment"));
    let new_rs = match field(input, "newRS") {
        Value::Null => None,
        v => Some(scale_rs(v)),
    };
    let olds: Vec<ReplicaSet> = list(input, "oldRSs").iter().map(scale_rs).collect();
    let (result, changes) = with_ctx(NOW, |ctx| sync::scale(ctx, &d, new_rs.as_ref(), &olds));
    if let Err(e) = result {
        return json!({ "error": e });
    }
    let mut all = olds.clone();
    all.extend(new_rs);
    json!({ "spec.replicas": sizes_after(&all, &changes) })
}

/// The old ReplicaSets of a cleanup case; the deletion time, creation offset and revision
/// annotation are optional.
fn cleanup_rss(input: &Value) -> Vec<ReplicaSet> {
    list(input, "oldRSs")
        .iter()
        .map(|v| {
            let mut r = rs_with_status(
                text(v, "name"),
                int(v, "spec.replicas"),
                int(v, "status.replicas"),
            );
            if v.get("deletionTimestamp").is_some_and(|t| !t.is_null()) {
                r.metadata.deletion_timestamp = Some(NOW);
            }
            if v.get("creationOffsetMinutes").is_some() {
                let offset = i64::from(int(v, "creationOffsetMinutes"));
                r.metadata.creation_timestamp =
                    Time::from_millis(NOW.as_millis().saturating_add_signed(offset * 60_000));
            }
            // An empty revision means no annotation (upstream's fixture only sets a non-empty one).
            if let Some(rev) = v.get("revisionAnnotation").and_then(Value::as_str)
                && !rev.is_empty()
            {
                r = with_annotation(r, REVISION_ANNOTATION, rev);
            }
            r
        })
        .collect()
}

/// Deployment `foo` with 1 replica and the case's revisionHistoryLimit; returns the names
/// deleted through `Change::DeleteReplicaSet`, checked against the returned list.
fn run_cleanup(input: &Value) -> Result<Vec<String>, String> {
    let mut d = deployment(1, None, None);
    d.spec.revision_history_limit = Some(int(input, "revisionHistoryLimit"));
    let olds = cleanup_rss(input);
    let (returned, changes) = with_ctx(NOW, |ctx| sync::cleanup_deployment(ctx, &olds, &d));
    let deleted: Vec<String> = changes
        .iter()
        .filter_map(|c| match c {
            Change::DeleteReplicaSet(name) => Some(name.clone()),
            _ => None,
        })
        .collect();
    if returned == deleted {
        Ok(deleted)
    } else {
        Err(format!("returned {returned:?} but deleted {deleted:?}"))
    }
}

#[test]
fn cleanup_deployment_deletes_as_many_as_upstream() {
    check_table("TestDeploymentController_cleanupDeployment");
}

fn cleanup_deployment_count(input: &Value, _: &Value) -> Value {
    match run_cleanup(input) {
        Ok(deleted) => json!({ "deletions": deleted.len() }),
        Err(e) => json!({ "error": e }),
    }
}

#[test]
fn cleanup_deployment_deletes_in_upstream_order() {
    check_table("TestDeploymentController_cleanupDeploymentOrder");
}

/// Upstream compares the deleted names as a set.
fn cleanup_deployment_order(input: &Value, expected: &Value) -> Value {
    let mut deleted = match run_cleanup(input) {
        Ok(deleted) => deleted,
        Err(e) => return json!({ "error": e }),
    };
    deleted.sort();
    let mut want: Vec<String> = list(expected, "deletedRSs")
        .iter()
        .map(|v| match v.as_str() {
            Some(name) => name.to_string(),
            None => format!("<not a name: {v}>"),
        })
        .collect();
    want.sort();
    if deleted == want {
        json!({ "deletedRSs": field(expected, "deletedRSs") })
    } else {
        json!({ "deletedRSs": deleted })
    }
}

// ---------------------------------------------------------------------------------------------
// progress_test.go
// ---------------------------------------------------------------------------------------------

#[test]
fn requeue_stuck_deployment_matches_upstream_table() {
    check_table("TestRequeueStuckDeployment");
}

fn requeue_stuck_deployment(input: &Value, expected: &Value) -> Value {
    let mut st = status_of(field(input, "status"));
    if let Some(c) = field(input, "currentProgressingCondition").as_object() {
        let c = Value::Object(c.clone());
        assert_eq!(text(&c, "type"), "Progressing", "fixture: condition type");
        st.conditions.push(progressing(
            condition_status(text(&c, "status")),
            reason(c.get("reason").and_then(Value::as_str).unwrap_or("")),
            time(c.get("lastUpdateTime").unwrap_or(&Value::Null)),
        ));
    }
    let d = progress_deployment(
        opt_int(input, "progressDeadlineSeconds"),
        int(input, "spec.replicas"),
        st,
    );
    let new_status = status_of(field(input, "newStatus"));
    let now = time(input.get("now").unwrap_or(&Value::Null));
    let after = match progress::requeue_stuck_deployment_after(&d, &new_status, now) {
        None => json!(-1),
        Some(ms) if ms % 1000 == 0 => json!(ms / 1000),
        Some(ms) => json!(ms as f64 / 1000.0),
    };
    // "meaning" only explains the numbers.
    json!({ "requeueAfterSeconds": after, "meaning": field(expected, "meaning") })
}

#[test]
fn sync_rollout_status_matches_upstream_table() {
    check_table("TestSyncRolloutStatus");
}

/// The fixture's existing Progressing condition: `Reason` is True at the test time,
/// `Reason(False)` is False with zero times (upstream's `failedTimedOut`).
fn existing_progressing(word: &str, test_time: Time) -> DeploymentCondition {
    match word.strip_suffix("(False)") {
        Some(r) => progressing(ConditionStatus::False, reason(r), Time::ZERO),
        None => progressing(ConditionStatus::True, reason(word), test_time),
    }
}

fn sync_rollout_status(input: &Value, expected: &Value) -> Value {
    // "existing conditions have lastUpdateTime=lastTransitionTime=<time> (…); now = …"
    let times = text(input, "conditionTimes");
    let test_time = times
        .split_once("lastTransitionTime=")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .map(parse_time)
        .unwrap_or_else(|| panic!("fixture: no condition time in {times:?}"));
    assert!(
        times.ends_with("now = real wall clock"),
        "fixture: unexpected clock in {times:?}"
    );
    let mut st = status_of(field(input, "status"));
    let before = field(input, "currentProgressingConditionReason")
        .as_str()
        .map(|w| existing_progressing(w, test_time));
    st.conditions.extend(before.clone());
    let mut d = progress_deployment(
        opt_int(input, "progressDeadlineSeconds"),
        int(input, "spec.replicas"),
        st,
    );
    let fixture_rs = |v: &Value| {
        let mut r = rs(
            text(v, "name"),
            int(v, "spec.replicas"),
            int(v, "status.availableReplicas"),
            Time::ZERO,
        );
        r.status.replicas = int(v, "status.replicas");
        r
    };
    let new_rs = match field(input, "newRS") {
        Value::Null => None,
        v => Some(fixture_rs(v)),
    };
    let mut all: Vec<ReplicaSet> = list(input, "otherRSs").iter().map(fixture_rs).collect();
    all.extend(new_rs.clone());
    let original = d.status.clone();
    let ((), changes) = with_ctx(parse_time(WALL_CLOCK), |ctx| {
        progress::sync_rollout_status(ctx, &all, new_rs.as_ref(), &mut d);
    });
    let after = changes
        .iter()
        .rev()
        .find_map(|c| match c {
            Change::UpdateDeploymentStatus(d) => Some(d.status.clone()),
            _ => None,
        })
        .unwrap_or(original);
    let cond = after.condition(DeploymentConditionType::Progressing);
    let mut got = json!({
        "progressingCondition": cond.map(|c| json!({
            "status": c.status.as_str(),
            "reason": c.reason.as_str(),
        })),
    });
    if let Some(claim) = expected.get("timestamps").and_then(Value::as_str) {
        let (update, transition) = match claim {
            "lastUpdate and lastTransition unchanged" => (true, true),
            "lastTransitionTime unchanged" => (false, true),
            other => panic!("fixture: unknown timestamp claim {other:?}"),
        };
        let mut problems = Vec::new();
        match (&before, cond) {
            (Some(b), Some(c)) => {
                if update && b.last_update_time != c.last_update_time {
                    problems.push(format!(
                        "lastUpdateTime moved from {} to {}",
                        b.last_update_time, c.last_update_time
                    ));
                }
                if transition && b.last_transition_time != c.last_transition_time {
                    problems.push(format!(
                        "lastTransitionTime moved from {} to {}",
                        b.last_transition_time, c.last_transition_time
                    ));
                }
            }
            _ => problems.push("no Progressing condition before or after".to_string()),
        }
        got["timestamps"] = if problems.is_empty() {
            json!(claim)
        } else {
            json!(problems.join("; "))
        };
    }
    got
}

// ---------------------------------------------------------------------------------------------
// deployment_util_test.go
// ---------------------------------------------------------------------------------------------

#[test]
fn resolve_fenceposts_matches_upstream_table() {
    check_table("TestResolveFenceposts");
}

fn resolve_fenceposts(input: &Value, _: &Value) -> Value {
    let surge = int_or_string(field(input, "maxSurge"));
    let unavailable = int_or_string(field(input, "maxUnavailable"));
    match util::resolve_fenceposts(surge.as_ref(), unavailable.as_ref(), int(input, "desired")) {
        Ok((s, u)) => json!({ "surge": s, "unavailable": u, "error": false }),
        // Upstream returns 0, 0 with the error.
        Err(_) => json!({ "surge": 0, "unavailable": 0, "error": true }),
    }
}

fn strategy_type(word: &str) -> DeploymentStrategyType {
    DeploymentStrategyType::from(word.to_string())
}

#[test]
fn new_rs_new_replicas_matches_upstream_table() {
    check_table("TestNewRSNewReplicas");
}

/// allRSs holds only an unrelated ReplicaSet of the given sizes, not the new one.
fn new_rs_new_replicas(input: &Value, _: &Value) -> Value {
    let d = strategy_deployment(
        strategy_type(text(input, "strategy")),
        Some(int(input, "deploymentReplicas")),
        int_or_string(field(input, "maxSurge")),
        int_or_string(field(input, "maxUnavailable")),
    );
    let all: Vec<ReplicaSet> = list(input, "allRSs.spec.replicas")
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let n = n
                .as_i64()
                .and_then(|n| i32::try_from(n).ok())
                .unwrap_or_else(|| {
                    panic!("fixture: {n} is not a size");
                });
            rs(&format!("rs{i}"), n, 0, Time::ZERO)
        })
        .collect();
    match util::new_rs_new_replicas(&d, &all, int(input, "newRS.spec.replicas")) {
        Ok(n) => json!({ "newReplicas": n }),
        Err(e) => json!({ "error": e }),
    }
}

#[test]
fn deployment_complete_matches_upstream_table() {
    check_table("TestDeploymentComplete");
}

fn deployment_complete(input: &Value, _: &Value) -> Value {
    let mut d = deployment(
        int(input, "desired"),
        int_or_string(field(input, "maxSurge")),
        int_or_string(field(input, "maxUnavailable")),
    );
    d.metadata.generation = i64::from(int(input, "generation"));
    d.status = status(
        int(input, "status.replicas"),
        int(input, "status.updatedReplicas"),
        0,
        int(input, "status.availableReplicas"),
    );
    d.status.observed_generation = i64::from(int(input, "observedGeneration"));
    json!({ "complete": util::deployment_complete(&d, &d.status) })
}

#[test]
fn deployment_progressing_matches_upstream_table() {
    check_table("TestDeploymentProgressing");
}

fn deployment_progressing(input: &Value, _: &Value) -> Value {
    let d = Deployment {
        status: status_of(field(input, "oldStatus")),
        ..Default::default()
    };
    let new_status = status_of(field(input, "newStatus"));
    json!({ "progressing": util::deployment_progressing(&d, &new_status) })
}

#[test]
fn deployment_timed_out_matches_upstream_table() {
    check_table("TestDeploymentTimedOut");
}

fn deployment_timed_out(input: &Value, _: &Value) -> Value {
    let c = field(input, "progressingCondition");
    let mut d = Deployment::default();
    d.spec.progress_deadline_seconds = opt_int(input, "progressDeadlineSeconds");
    d.status.conditions.push(progressing(
        condition_status(text(c, "status")),
        reason(text(c, "reason")),
        time(field(c, "lastUpdateTime")),
    ));
    let now = time(field(input, "now"));
    json!({ "timedOut": util::deployment_timed_out(&d, &d.status, now) })
}

/// The Deployment of TestMaxUnavailable / TestMinAvailable.
fn bounds_deployment(input: &Value) -> Deployment {
    strategy_deployment(
        strategy_type(text(input, "strategy")),
        opt_int(input, "replicas"),
        int_or_string(field(input, "maxSurge")),
        int_or_string(field(input, "maxUnavailable")),
    )
}

#[test]
fn max_unavailable_matches_upstream_table() {
    check_table("TestMaxUnavailable");
}

fn max_unavailable(input: &Value, _: &Value) -> Value {
    json!({ "maxUnavailable": util::max_unavailable(&bounds_deployment(input)) })
}

#[test]
fn min_available_matches_upstream_table() {
    check_table("TestMinAvailable");
}

fn min_available(input: &Value, _: &Value) -> Value {
    json!({ "minAvailable": util::min_available(&bounds_deployment(input)) })
}

#[test]
fn replicas_annotations_need_update_matches_upstream_table() {
    check_table("TestReplicasAnnotationsNeedUpdate");
}

fn replicas_annotations_need_update(input: &Value, _: &Value) -> Value {
    let mut r = rs("hello", 0, 0, Time::ZERO);
    if let Some(annotations) = field(input, "rsAnnotations").as_object() {
        for (k, v) in annotations {
            let v = v
                .as_str()
                .unwrap_or_else(|| panic!("fixture: annotation {k} is not text"));
            r = with_annotation(r, k, v);
        }
    }
    let need = util::replicas_annotations_need_update(
        &r,
        int(input, "desiredReplicas"),
        int(input, "maxReplicas"),
    );
    json!({ "needUpdate": need })
}

#[test]
fn annotation_utils_match_upstream_table() {
    check_table("TestAnnotationUtils");
}

/// Three sub-tests, told apart by their inputs.
fn annotation_utils(input: &Value, expected: &Value) -> Value {
    if input.get("calls").is_some() {
        revision_history_calls(input, expected)
    } else if input.get("desired").is_some() {
        let mut r = rs("replicaset", 0, 0, Time::ZERO);
        let updated =
            util::set_replicas_annotations(&mut r, int(input, "desired"), int(input, "max"));
        json!({
            "updated": updated,
            "desired-replicas": r.annotation(DESIRED_REPLICAS_ANNOTATION),
            "max-replicas": r.annotation(MAX_REPLICAS_ANNOTATION),
        })
    } else {
        let d = deployment(int(input, "deployment.spec.replicas"), None, None);
        let r = with_annotation(
            rs(
                "replicaset",
                int(input, "rs.spec.replicas"),
                int(input, "rs.status.availableReplicas"),
                Time::ZERO,
            ),
            DESIRED_REPLICAS_ANNOTATION,
            text(input, "rs.desired-replicas"),
        );
        json!({ "saturated": util::is_saturated(&d, Some(&r)) })
    }
}

/// The digits right after `marker` in `s`.
fn number_after(s: &str, marker: &str) -> i64 {
    let rest = s
        .split_once(marker)
        .map(|(_, rest)| rest)
        .unwrap_or_else(|| panic!("fixture: no {marker:?} in {s:?}"));
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("fixture: no number after {marker:?} in {s:?}"))
}

/// `for i in A..B: SetNewReplicaSetAnnotations(newRevision=str(i+1), exists=true,
/// revHistoryLimitInChars=N)` on a ReplicaSet without a revision; after call i ≥ K the history
/// must read `"{i-1},{i}"`.
fn revision_history_calls(input: &Value, expected: &Value) -> Value {
    let calls = text(input, "calls");
    assert!(
        boolean(input, "rsStartsWithoutRevision"),
        "fixture: RS starts with a revision"
    );
    let first = number_after(calls, "for i in ");
    let last = number_after(calls, &format!("for i in {first}.."));
    let limit = usize::try_from(number_after(calls, "revHistoryLimitInChars="))
        .unwrap_or_else(|_| panic!("fixture: bad limit in {calls:?}"));
    let (history_key, history_claim) = expected
        .as_object()
        .and_then(|m| {
            m.iter()
                .find(|(k, _)| k.starts_with("rs.revision-history_after_call_i"))
        })
        .unwrap_or_else(|| panic!("fixture: no revision-history expectation"));
    let from = number_after(history_key, "(i>=");

    let mut d = Deployment::default();
    for (k, v) in field(input, "deploymentAnnotations")
        .as_object()
        .into_iter()
        .flatten()
    {
        let v = v
            .as_str()
            .unwrap_or_else(|| panic!("fixture: annotation {k} is not text"));
        d.metadata.annotations.insert(k.clone(), v.to_string());
    }
    let mut r = rs("replicaset", 0, 0, Time::ZERO);
    let mut revisions = Vec::new();
    let mut problems = Vec::new();
    for i in first..=last {
        util::set_new_replica_set_annotations(&d, &mut r, &(i + 1).to_string(), true, limit);
        revisions.push(
            r.annotation(REVISION_ANNOTATION)
                .unwrap_or("<none>")
                .to_string(),
        );
        let history = r.annotation(REVISION_HISTORY_ANNOTATION);
        let want = format!("{},{}", i - 1, i);
        if i >= from && history != Some(want.as_str()) {
            problems.push(format!(
                "after call i={i}: history {history:?}, want {want:?}"
            ));
        }
    }
    let mut got = json!({ "rs.revision_after_each_call": revisions });
    got[history_key.as_str()] = if problems.is_empty() {
        history_claim.clone()
    } else {
        json!(problems.join("; "))
    };
    got
}

#[test]
fn replica_counts_match_upstream_table() {
    check_table("TestGetReplicaCountForReplicaSets");
}

fn replica_counts(input: &Value, _: &Value) -> Value {
    let sets: Vec<ReplicaSet> = list(input, "sets")
        .iter()
        .map(|v| {
            let mut r = rs_with_status(
                text(v, "name"),
                int(v, "spec.replicas"),
                int(v, "status.replicas"),
            );
            r.status.observed_generation = i64::from(int(v, "status.observedGeneration"));
            r.status.terminating_replicas = opt_int(v, "status.terminatingReplicas");
            r
        })
        .collect();
    json!({
        "GetReplicaCountForReplicaSets": util::get_replica_count_for_replica_sets(&sets),
        "GetActualReplicaCountForReplicaSets": util::get_actual_replica_count_for_replica_sets(&sets),
        "GetTerminatingReplicaCountForReplicaSets": util::get_terminating_replica_count_for_replica_sets(&sets),
    })
}

#[test]
fn replica_set_fraction_matches_upstream_table() {
    check_table("TestGetReplicaSetFraction");
}

fn replica_set_fraction(input: &Value, _: &Value) -> Value {
    let mut d = deployment(
        int(input, "deployment.spec.replicas"),
        int_or_string(field(input, "maxSurge")),
        int_or_string(field(input, "maxUnavailable")),
    );
    d.status.replicas = int(input, "deployment.status.replicas");
    let mut r = rs("replicaset", int(input, "rs.spec.replicas"), 0, Time::ZERO);
    if let Some(max) = field(input, "rs.max-replicas").as_str() {
        r = with_annotation(r, MAX_REPLICAS_ANNOTATION, max);
    }
    json!({ "fraction": util::get_replica_set_fraction(&r, &d) })
}

#[test]
fn non_negative_int32_annotation_parsing_matches_upstream_table() {
    check_table("TestGetNonNegativeInt32FromAnnotation");
}

/// Upstream checks the error text contains the expected fragment (an empty fragment means no
/// error).
fn non_negative_int32_from_annotation(input: &Value, expected: &Value) -> Value {
    const KEY: &str = "test-annotation";
    let mut r = rs("replicaset", 0, 0, Time::ZERO);
    if let Some(v) = field(input, "annotationValue").as_str() {
        r = with_annotation(r, KEY, v);
    }
    let (value, valid, err) = util::get_non_negative_int32_from_annotation(&r, KEY);
    let want = text(expected, "errorContains");
    let error = if !want.is_empty() && err.contains(want) {
        want.to_string()
    } else {
        err
    };
    json!({ "value": value, "valid": valid, "errorContains": error })
}

// ---------------------------------------------------------------------------------------------
// recreate_test.go
// ---------------------------------------------------------------------------------------------

#[test]
fn old_pods_running_matches_upstream_table() {
    check_table("TestOldPodsRunning");
}

/// newRS is nil in every case.
fn old_pods_running(input: &Value, _: &Value) -> Value {
    let olds: Vec<ReplicaSet> = list(input, "oldRSs")
        .iter()
        .map(|v| {
            let name = v.get("name").and_then(Value::as_str).unwrap_or("rs");
            let mut r = rs_with_status(
                name,
                int_or(v, "spec.replicas", 0),
                int(v, "status.replicas"),
            );
            r.metadata.uid = v
                .get("uid")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            r
        })
        .collect();
    let pod_map: BTreeMap<String, Vec<Pod>> = field(input, "podMap")
        .as_object()
        .unwrap_or_else(|| panic!("fixture: podMap is not an object"))
        .iter()
        .map(|(uid, phases)| {
            let pods = phases
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| {
                    let word = p.as_str().unwrap_or_else(|| panic!("fixture: phase {p}"));
                    pod("", "", phase(word), None)
                })
                .collect();
            (uid.clone(), pods)
        })
        .collect();
    json!({ "oldPodsRunning": recreate::old_pods_running(None, &olds, &pod_map) })
}

#[test]
fn scale_down_old_replica_sets_for_recreate_matches_upstream_table() {
    check_table("TestScaleDownOldReplicaSets");
}

fn scale_down_old_replica_sets_for_recreate(input: &Value, _: &Value) -> Value {
    let d = deployment(int(input, "deploymentReplicas"), None, None);
    let olds: Vec<ReplicaSet> = list(input, "oldRSSizes")
        .iter()
        .enumerate()
        .map(|(n, size)| {
            let size = size.as_i64().and_then(|s| i32::try_from(s).ok());
            rs(
                &format!("foo-{n}"),
                size.unwrap_or_else(|| panic!("fixture: size")),
                0,
                Time::ZERO,
            )
        })
        .collect();
    let (_, changes) = with_ctx(NOW, |ctx| {
        recreate::scale_down_old_replica_sets_for_recreate(ctx, &olds, &d)
    });
    let sizes = sizes_after(&olds, &changes);
    let after: Vec<i32> = olds.iter().map(|r| sizes[&r.metadata.name]).collect();
    json!({ "oldRS.spec.replicas_after": after })
}

// ---------------------------------------------------------------------------------------------
// replica_set_test.go and controller_utils_test.go
// ---------------------------------------------------------------------------------------------

/// A pod on `node` in `phase`; `ready` adds a Ready condition with that status.
fn pod(name: &str, node: &str, phase: PodPhase, ready: Option<bool>) -> Pod {
    let mut p = Pod {
        metadata: ObjectMeta {
            name: name.to_string(),
            ..Default::default()
        },
        spec: Default::default(),
        node_name: node.to_string(),
        status: Default::default(),
    };
    p.status.phase = phase;
    if let Some(ready) = ready {
        p.status.conditions.push(PodCondition {
            type_: PodConditionType::Ready,
            status: if ready {
                ConditionStatus::True
            } else {
                ConditionStatus::False
            },
            last_transition_time: Time::ZERO,
            reason: None,
            message: None,
        });
    }
    p
}

#[test]
fn slow_start_batch_matches_upstream_table() {
    check_table("TestSlowStartBatch");
}

/// The call fails once more than `callsThatSucceed` calls were made.
fn slow_start(input: &Value, _: &Value) -> Value {
    let count = usize::try_from(int(input, "count")).unwrap_or(0);
    let initial = usize::try_from(int(input, "initialBatchSize")).unwrap_or(0);
    let succeed = usize::try_from(int(input, "callsThatSucceed")).unwrap_or(0);
    let mut calls = 0usize;
    let (successes, errs, batches) = slow_start_batch(count, initial, || {
        calls += 1;
        if calls > succeed {
            Err("fake error")
        } else {
            Ok(())
        }
    });
    json!({
        "successes": successes,
        "error": !errs.is_empty(),
        "callCount": calls,
        "batches": batches,
    })
}

/// The pods of TestGetPodsToDelete, by the legend's letters.
fn legend_pod(letter: &str) -> Pod {
    match letter {
        "U" => pod("U", "", PodPhase::Pending, None),
        "SP" => pod("SP", "fake-node", PodPhase::Pending, None),
        "NR" => pod("NR", "fake-node", PodPhase::Running, Some(false)),
        "R1" => pod("R1", "fake-node-1", PodPhase::Running, Some(true)),
        "R2" => pod("R2", "fake-node-2", PodPhase::Running, Some(true)),
        other => panic!("fixture: {other:?} is not in the pod legend"),
    }
}

#[test]
fn pods_to_delete_match_upstream_table() {
    check_table("TestGetPodsToDelete");
}

fn pods_to_delete(input: &Value, _: &Value) -> Value {
    let legend: BTreeMap<&str, Pod> = ["U", "SP", "NR", "R1", "R2"]
        .into_iter()
        .map(|l| (l, legend_pod(l)))
        .collect();
    let letters = |v: &[Value]| -> Vec<&Pod> {
        v.iter()
            .map(|l| {
                let l = l.as_str().unwrap_or_else(|| panic!("fixture: pod {l}"));
                legend
                    .get(l)
                    .unwrap_or_else(|| panic!("fixture: {l:?} is not in the legend"))
            })
            .collect()
    };
    let pods = letters(list(input, "pods"));
    let related = match field(input, "related") {
        Value::String(s) if s == "same as pods" => pods.clone(),
        Value::Array(v) => letters(v),
        other => panic!("fixture: related {other}"),
    };
    let diff = usize::try_from(int(input, "diff")).unwrap_or(0);
    let chosen = get_pods_to_delete(&pods, &related, diff, NOW);
    let names: Vec<&str> = chosen.iter().map(|p| p.metadata.name.as_str()).collect();
    json!({ "podsToDelete": names })
}

/// A pod of TestSortingActivePodsWithRanks by its upstream name (a parenthetical describes it),
/// as the rank key `ActivePodsWithRanks.Less` reads; times are relative to [`NOW`] and a zero
/// time is `None`.
fn ranked_pod(label: &str, rank: i64, deletion_cost_gate: bool) -> RankKey<'static> {
    let name = label.split('(').next().unwrap_or(label).trim();
    let hours = |h: u64| Some(Time::from_millis(NOW.as_millis() - h * 3_600_000));
    let (now, then) = (Some(NOW), hours(30 * 24));
    // (assigned, phase, ready, restarts, ready since, created, deletion cost)
    let (assigned, phase, ready, restarts, ready_time, creation, cost) = match name {
        "unscheduled" => (false, PodPhase::Pending, false, 0, None, None, 0),
        "pending" => (true, PodPhase::Pending, false, 0, None, None, 0),
        "unknown-phase" => (true, PodPhase::Unknown, false, 0, None, None, 0),
        "not-ready" => (true, PodPhase::Running, false, 0, None, None, 0),
        "ready-no-last-transition-time" => (true, PodPhase::Running, true, 0, None, None, 0),
        "ready-now" => (true, PodPhase::Running, true, 0, now, now, 0),
        "ready-then" => (true, PodPhase::Running, true, 0, then, then, 0),
        "ready-high-restarts" => (true, PodPhase::Running, true, 9001, now, now, 0),
        "ready-now-created-then" => (true, PodPhase::Running, true, 0, now, then, 0),
        "low-deletion-cost" => (true, PodPhase::Running, true, 0, now, then, 10),
        "high-deletion-cost" => (true, PodPhase::Running, true, 0, now, then, 100),
        // Not ready, so the ready time is never read (upstream sets no Ready condition).
        "unscheduled-5-hours" => (false, PodPhase::Pending, false, 0, None, hours(5), 0),
        "unscheduled-8-hours" => (false, PodPhase::Pending, false, 0, None, hours(8), 0),
        "ready-2-hours" => (false, PodPhase::Running, true, 0, hours(2), then, 0),
        "ready-5-hours" => (false, PodPhase::Running, true, 0, hours(5), then, 0),
        "ready-8-hours" => (false, PodPhase::Running, true, 0, hours(8), then, 0),
        other => panic!("fixture: no ranking pod {other:?}"),
    };
    RankKey {
        assigned,
        phase,
        ready,
        deletion_cost: if deletion_cost_gate { cost } else { 0 },
        rank,
        ready_time,
        max_restarts: restarts,
        max_sidecar_restarts: 0,
        creation,
        uid: "",
    }
}

fn ranks(input: &Value) -> Vec<i64> {
    list(input, "ranks")
        .iter()
        .map(|r| r.as_i64().unwrap_or_else(|| panic!("fixture: rank {r}")))
        .collect()
}

#[test]
fn equally_ranked_pods_match_upstream_table() {
    check_table("TestSortingActivePodsWithRanks (equality tests)");
}

/// The pods are named by the case: `A vs itself` or `A vs B`, with an optional parenthetical.
fn ranks_equal(name: &str, input: &Value) -> Value {
    assert!(
        boolean(input, "LogarithmicScaleDown"),
        "the crate always scales down logarithmically"
    );
    let pair = name.split(" (").next().unwrap_or(name);
    let (a, b) = pair
        .split_once(" vs ")
        .unwrap_or_else(|| panic!("fixture: case name {name:?} names no pair"));
    let b = if b == "itself" { a } else { b };
    let r = ranks(input);
    let (pa, pb) = (ranked_pod(a, r[0], true), ranked_pod(b, r[1], true));
    json!({
        "less(0,1)": less(&pa, &pb, Some(NOW)),
        "less(1,0)": less(&pb, &pa, Some(NOW)),
    })
}

#[test]
fn ordered_ranked_pods_match_upstream_table() {
    check_table("TestSortingActivePodsWithRanks (inequality tests)");
}

fn ranks_ordered(input: &Value, _: &Value) -> Value {
    assert!(
        boolean(input, "LogarithmicScaleDown"),
        "the crate always scales down logarithmically"
    );
    let gate = boolean(input, "PodDeletionCost");
    let lesser = ranked_pod(
        text(input, "lesser"),
        i64::from(int(input, "lesserRank")),
        gate,
    );
    let greater = ranked_pod(
        text(input, "greater"),
        i64::from(int(input, "greaterRank")),
        gate,
    );
    json!({
        "less(lesser,greater)": less(&lesser, &greater, Some(NOW)),
        "less(greater,lesser)": less(&greater, &lesser, Some(NOW)),
    })
}

// ---------------------------------------------------------------------------------------------
// kubectl rollout_status_test.go
// ---------------------------------------------------------------------------------------------

#[test]
fn rollout_status_matches_kubectl_table() {
    check_table("TestDeploymentStatusViewerStatus");
}

/// Deployment `foo` (the upstream fixture's name), no revision requested.
fn deployment_status_viewer(input: &Value, _: &Value) -> Value {
    let s = field(input, "status");
    let mut d = deployment(int(input, "spec.replicas"), None, None);
    d.metadata.generation = i64::from(int(input, "generation"));
    d.status = status(
        int(s, "replicas"),
        int(s, "updatedReplicas"),
        0,
        int(s, "availableReplicas"),
    );
    d.status.observed_generation = i64::from(int(s, "observedGeneration"));
    d.status.unavailable_replicas = int(s, "unavailableReplicas");
    match rollout_status(&d, None) {
        Ok((message, done)) => json!({ "message": message, "done": done }),
        Err(e) => json!({ "error": e }),
    }
}

// ---------------------------------------------------------------------------------------------
// apps validation_test.go and v1 defaults_test.go
// ---------------------------------------------------------------------------------------------

/// `validDeployment()` of the apps validation tests.
fn valid_deployment() -> Deployment {
    let labels: BTreeMap<String, String> = [("name".to_string(), "abc".to_string())].into();
    let mut d = strategy_deployment(
        DeploymentStrategyType::RollingUpdate,
        None,
        Some(IntOrString::Int(1)),
        Some(IntOrString::Int(1)),
    );
    d.metadata.name = "abc".to_string();
    d.metadata.uid.clear();
    d.spec.selector = Some(LabelSelector {
        match_labels: labels.clone().into(),
        ..Default::default()
    });
    d.spec.template.metadata.labels = labels.into();
    let spec = &mut d.spec.template.spec;
    spec.restart_policy = Some("Always".to_string());
    spec.dns_policy = Some("Default".to_string());
    let mut container = Container {
        name: "nginx".to_string(),
        image: "image".to_string(),
        image_pull_policy: Some(PullPolicy::Never),
        ..Default::default()
    };
    container
        .extra
        .insert("terminationMessagePolicy".to_string(), json!("File"));
    spec.containers.push(container);
    // spec.rollbackTo.revision 1, which apps/v1 carries as an annotation.
    d.metadata
        .annotations
        .insert(ROLLBACK_TO_ANNOTATION.to_string(), "1".to_string());
    d
}

/// A fixture value as a crate type, through the type's own serde form.
fn from_fixture<T: serde::de::DeserializeOwned>(v: &Value) -> T {
    serde_json::from_value(v.clone())
        .unwrap_or_else(|e| panic!("fixture: {v} does not decode: {e}"))
}

/// Applies one of the error cases' changes to `validDeployment()`.
fn tweak(d: &mut Deployment, key: &str, v: &Value) {
    match key {
        "metadata.name" => d.metadata.name = text(&json!({ "v": v }), "v").to_string(),
        "spec.selector.matchLabels" => {
            d.spec.selector = Some(LabelSelector {
                match_labels: from_fixture(v),
                ..Default::default()
            });
        }
        "template.labels" => {
            d.spec.template.metadata.labels = from_fixture(v);
        }
        "spec.template.spec.restartPolicy" => {
            d.spec.template.spec.restart_policy = v.as_str().map(str::to_string);
        }
        "spec.strategy.type" => d.spec.strategy.type_ = v.as_str().map(strategy_type),
        "spec.strategy" => {
            d.spec.strategy = from_fixture(v);
        }
        // Upstream replaces the whole strategy: RollingUpdate with just these bounds.
        "spec.strategy.rollingUpdate" => {
            d.spec.strategy = DeploymentStrategy {
                type_: Some(DeploymentStrategyType::RollingUpdate),
                rolling_update: Some(from_fixture(v)),
            };
        }
        "spec.rollbackTo.revision" => {
            let rev = v
                .as_i64()
                .unwrap_or_else(|| panic!("fixture: revision {v}"));
            d.metadata
                .annotations
                .insert(ROLLBACK_TO_ANNOTATION.to_string(), rev.to_string());
        }
        "spec.progressDeadlineSeconds" => {
            d.spec.progress_deadline_seconds = v.as_i64().and_then(|n| i32::try_from(n).ok());
        }
        "spec.minReadySeconds" => {
            d.spec.min_ready_seconds = v
                .as_i64()
                .and_then(|n| i32::try_from(n).ok())
                .unwrap_or_else(|| panic!("fixture: minReadySeconds {v}"));
        }
        "spec.template.spec.ephemeralContainers" => {
            let containers: Vec<Value> = v
                .as_array()
                .into_iter()
                .flatten()
                .map(|name| json!({ "name": name, "image": "image", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "File" }))
                .collect();
            d.spec
                .template
                .spec
                .extra
                .insert("ephemeralContainers".to_string(), Value::Array(containers));
        }
        other => panic!("fixture: no translation for the change {other:?}"),
    }
}

#[test]
fn validation_rejects_upstream_error_cases() {
    check_table("TestValidateDeployment (errorCases)");
}

/// Upstream checks that the first error contains the key; the field and type were read from
/// validation.go and are checked too when given.
fn validate_error_cases(input: &Value, expected: &Value) -> Value {
    let baseline = validate_deployment(&valid_deployment());
    if let Some(e) = baseline.first() {
        return json!({ "validDeployment() is not valid": e.to_string() });
    }
    let mut d = valid_deployment();
    for (key, v) in input.as_object().into_iter().flatten() {
        tweak(&mut d, key, v);
    }
    let errs = validate_deployment(&d);
    let Some(first) = errs.first() else {
        return json!({ "firstErrorContains": "<no errors>" });
    };
    let want = text(expected, "firstErrorContains");
    let rendered = first.to_string();
    let mut got = json!({
        "firstErrorContains": if rendered.contains(want) { want.to_string() } else { rendered },
    });
    if expected.get("field").is_some() {
        got["field"] = json!(first.field);
    }
    if expected.get("type").is_some() {
        got["type"] = json!(first.kind.as_str());
    }
    got
}

#[test]
fn defaulting_matches_upstream_table() {
    check_table("TestSetDefaultDeployment");
}

fn set_default_deployment(input: &Value, _: &Value) -> Value {
    let mut d = Deployment {
        spec: serde_json::from_value(input.clone())
            .unwrap_or_else(|e| panic!("fixture: not a DeploymentSpec: {e}")),
        ..Default::default()
    };
    set_defaults(&mut d);
    json!({
        "replicas": d.spec.replicas,
        "strategy": d.spec.strategy,
        "revisionHistoryLimit": d.spec.revision_history_limit,
        "progressDeadlineSeconds": d.spec.progress_deadline_seconds,
    })
}
