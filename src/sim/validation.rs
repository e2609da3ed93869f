//! Validation: the API server's gatekeeping for a Deployment a learner submits. A rejected
//! manifest is described by [`FieldError`]s: a field path, an error type, the offending value and
//! a detail, rendered exactly as the API server renders them (apimachinery's `field.Error`,
//! v1.34+ wording with JSON-encoded values):
//!
//! ```text
//! spec.replicas: Invalid value: -1: must be greater than or equal to 0
//! ```
//!
//! The functions follow the API server's create path, in order:
//! 1. [`decode_deployment`]: the codec. Checks `apiVersion`/`kind` and the JSON type of every
//!    typed field, keeping the field path of a type error (upstream's decoder loses it).
//! 2. [`set_defaults`]: `SetDefaults_Deployment` and the pod-template defaults (spec §1.1, §15.4).
//! 3. [`validate_deployment`] (`ValidateDeployment`) on create, or
//!    [`validate_deployment_update`] (`ValidateDeploymentUpdate` plus the registry strategy's
//!    selector immutability check) on update.
//!
//! Like upstream, validation expects a defaulted object: a field that defaulting always fills
//! (`restartPolicy`, `imagePullPolicy`, a probe's `successThreshold`) is judged, when unset, as
//! the zero value upstream's internal types would hold, which usually fails.
//!
//! Only the pod-template rules that matter to a simulator are mirrored (containers, names,
//! images, pull policies, ports, resources, probes, restart and DNS policy, labels); volumes,
//! security contexts, init containers, affinity and the like are kept verbatim and not checked.

use super::api::pod::{HttpGetAction, ResourceRequirements};
use super::api::quantity::{
    QUANTITY_REGEX_MESSAGE, canonical, parse_milli, quantity_text, round_up_to_milli,
};
use super::api::{
    Container, Deployment, DeploymentStrategyType, IntOrString, LabelSelector, ObjectMeta, PodSpec,
    PodTemplateSpec, Probe, PullPolicy, SelectorOperator,
};
use super::order;
use super::yaml::Document;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// The annotation through which apps/v1 carries the removed `spec.rollbackTo.revision`
/// (`appsv1.DeprecatedRollbackTo`); upstream's conversion turns it into the internal field that
/// `ValidateRollback` checks.
pub const ROLLBACK_TO_ANNOTATION: &str = "deprecated.deployment.rollback.to";

/// The type of a [`FieldError`] (`field.ErrorType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ErrorKind {
    /// A required field is missing or empty (`Required value`).
    Required,
    /// The value is malformed or out of range (`Invalid value`).
    Invalid,
    /// The field may not be set here (`Forbidden`).
    Forbidden,
    /// The value is not one of a closed set (`Unsupported value`).
    Unsupported,
    /// The value repeats one that must be unique (`Duplicate value`).
    Duplicate,
    /// The value names something that does not exist (`Not found`).
    NotFound,
    /// The value is too long (`Too long`).
    TooLong,
    /// The value has the wrong JSON type, e.g. a string where an integer belongs. Renders as
    /// `Invalid value`, as upstream's `ErrorTypeTypeInvalid` does.
    TypeInvalid,
    /// The field is not part of the API type. Not a `field.Error` upstream but a strict decoding
    /// error, which the API server returns under `kubectl apply`'s default
    /// `--validate=strict`: it renders as `unknown field "<path>"`.
    UnknownField,
    /// Not a `field.Error` either: the request fails as a whole before validation. kubectl's
    /// REST mapper knows no such kind in that version (a Deployment in `apps/v1beta2` or
    /// `extensions/v1beta1`, from tutorials older than v1.16), or the API server cannot convert
    /// the object (a legacy rollback annotation that is not an integer). The detail is the whole
    /// message.
    Request,
}

impl ErrorKind {
    /// The text the API server prints for this type (`ErrorType.String()`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Required => "Required value",
            Self::Invalid | Self::TypeInvalid => "Invalid value",
            Self::Forbidden => "Forbidden",
            Self::Unsupported => "Unsupported value",
            Self::Duplicate => "Duplicate value",
            Self::NotFound => "Not found",
            Self::TooLong => "Too long",
            Self::UnknownField => "unknown field",
            Self::Request => "request failed",
        }
    }

    /// Whether the bad value is printed (never for Required, Forbidden and Too long).
    fn shows_value(self) -> bool {
        !matches!(self, Self::Required | Self::Forbidden | Self::TooLong)
    }
}

/// One validation failure (`field.Error`). Its [`Display`](fmt::Display) is the API server's
/// text: `<field>: <type>[: <value>][: <detail>]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    /// The field path as upstream prints it: `spec.template.spec.containers[0].image`. Empty for
    /// a problem with the document as a whole.
    pub field: String,
    /// The error type.
    pub kind: ErrorKind,
    /// The offending value, already rendered as v1.34+ does (strings quoted, numbers bare,
    /// structures as JSON); `None` when there is none to show.
    pub value: Option<String>,
    /// The explanation; may be empty.
    pub detail: String,
}

impl FieldError {
    /// `field.Required`.
    pub fn required(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(field, ErrorKind::Required, None, detail)
    }

    /// `field.Invalid`, with a value rendered by [`render_value`].
    pub fn invalid(field: impl Into<String>, value: String, detail: impl Into<String>) -> Self {
        Self::new(field, ErrorKind::Invalid, Some(value), detail)
    }

    /// `field.TypeInvalid`, with a value rendered by [`render_value`].
    pub fn type_invalid(
        field: impl Into<String>,
        value: String,
        detail: impl Into<String>,
    ) -> Self {
        Self::new(field, ErrorKind::TypeInvalid, Some(value), detail)
    }

    /// `field.Forbidden`.
    pub fn forbidden(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(field, ErrorKind::Forbidden, None, detail)
    }

    /// `field.NotSupported`: the detail lists the supported values, quoted, in the given order.
    pub fn not_supported(field: impl Into<String>, value: String, supported: &[&str]) -> Self {
        let detail = if supported.is_empty() {
            String::new()
        } else {
            let quoted: Vec<String> = supported.iter().map(|s| go_quote(s)).collect();
            format!("supported values: {}", quoted.join(", "))
        };
        Self::new(field, ErrorKind::Unsupported, Some(value), detail)
    }

    /// `field.Duplicate`.
    pub fn duplicate(field: impl Into<String>, value: String) -> Self {
        Self::new(field, ErrorKind::Duplicate, Some(value), "")
    }

    /// `field.NotFound`.
    pub fn not_found(field: impl Into<String>, value: String) -> Self {
        Self::new(field, ErrorKind::NotFound, Some(value), "")
    }

    /// A strict decoding error for a field the API type does not have.
    pub fn unknown_field(field: impl Into<String>) -> Self {
        Self::new(field, ErrorKind::UnknownField, None, "")
    }

    /// `field.TooLong` (modern wording: `may not be more than N bytes`).
    pub fn too_long(field: impl Into<String>, max_bytes: usize) -> Self {
        let unit = if max_bytes == 1 { "byte" } else { "bytes" };
        Self::new(
            field,
            ErrorKind::TooLong,
            None,
            format!("may not be more than {max_bytes} {unit}"),
        )
    }

    fn new(
        field: impl Into<String>,
        kind: ErrorKind,
        value: Option<String>,
        detail: impl Into<String>,
    ) -> Self {
        FieldError {
            field: field.into(),
            kind,
            value,
            detail: detail.into(),
        }
    }
}

impl fmt::Display for FieldError {
    /// `field.Error.Error()`: `ErrorBody` prefixed with the field path.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The strict decoder names the field inside its own text (`unknown field "spec.x"`).
        if self.kind == ErrorKind::UnknownField {
            return write!(f, "unknown field {}", go_quote(&self.field));
        }
        if self.kind == ErrorKind::Request {
            return write!(f, "{}: {}", self.field, self.detail);
        }
        if !self.field.is_empty() {
            write!(f, "{}: ", self.field)?;
        }
        f.write_str(self.kind.as_str())?;
        if let (true, Some(value)) = (self.kind.shows_value(), &self.value) {
            write!(f, ": {value}")?;
        }
        if !self.detail.is_empty() {
            write!(f, ": {}", self.detail)?;
        }
        Ok(())
    }
}

impl std::error::Error for FieldError {}

/// Each error's text once, in order: the API server drops repeated causes.
fn distinct_messages(errs: &[FieldError]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    errs.iter()
        .map(ToString::to_string)
        .filter(|m| seen.insert(m.clone()))
        .collect()
}

/// How kubectl prints a refused object (`cmdutil.CheckErr` on an Invalid status): `The <Kind>
/// "<name>" is invalid: ` followed by the one cause, or by a line per cause starting `* ` when
/// there are several (kubectl's `MultilineError`). `kind` is the bare kind (`Deployment`), which
/// is what the status details carry.
pub fn render_kubectl_invalid(kind: &str, name: &str, errs: &[FieldError]) -> String {
    // A request that failed as a whole is a 400, which kubectl prints as the server said it.
    if let Some(failed) = errs.iter().find(|e| e.kind == ErrorKind::Request) {
        return format!("Error from server (BadRequest): {}", failed.detail);
    }
    let messages = distinct_messages(errs);
    let head = format!("The {kind} {} is invalid: ", go_quote(name));
    match messages.as_slice() {
        [one] => format!("{head}{one}"),
        many => many.iter().fold(head, |text, m| format!("{text}\n* {m}")),
    }
}

/// The API server's own message for an invalid object (`NewInvalid`), as a controller's event
/// quotes it: `Pod "web-6b7d-x2k4p" is invalid: <error>`, or `[<error>, <error>]` for several
/// (`ErrorList.ToAggregate`, which drops repeats).
pub fn render_status_invalid(kind: &str, name: &str, errs: &[FieldError]) -> String {
    let messages = distinct_messages(errs);
    let list = match messages.as_slice() {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    };
    format!("{kind} {} is invalid: {list}", go_quote(name))
}

/// The checks pod creation adds to those of a pod template (`validateContainersOnlyForPod`): an
/// image with leading or trailing whitespace passes in a Deployment's template, but no pod can
/// be created from it.
pub fn validate_pod_create(spec: &PodSpec) -> Vec<FieldError> {
    let path = Path::root("spec");
    let mut errs = Vec::new();
    for (list, field) in [
        (&spec.containers, "containers"),
        (&spec.init_containers, "initContainers"),
    ] {
        for (i, c) in list.iter().enumerate() {
            if c.image.trim() != c.image {
                errs.push(FieldError::invalid(
                    &path.child(field).index(i).child("image"),
                    go_quote(&c.image),
                    "must not have leading or trailing whitespace",
                ));
            }
        }
    }
    errs
}

// ---------------------------------------------------------------------------------------------
// Value rendering (apimachinery "Nicer value rendering in API errors", v1.34)
// ---------------------------------------------------------------------------------------------

/// Renders a bad value as v1.34+ API errors do: a string with Go's `%q`, a number or boolean
/// bare, anything else as JSON (Go's `json.Marshal`: sorted keys, `<>&` escaped).
pub fn render_value(value: &Value) -> String {
    match value {
        Value::String(s) => go_quote(s),
        other => go_json(other),
    }
}

/// Go's `strconv.Quote`.
pub(crate) fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if u32::from(c) < 0x20 || u32::from(c) == 0x7f => {
                out.push_str(&format!("\\x{:02x}", u32::from(c)));
            }
            c if c.is_ascii() || go_is_print(c) => out.push(c),
            c if u32::from(c) < 0x10000 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push_str(&format!("\\U{:08x}", u32::from(c))),
        }
    }
    out.push('"');
    out
}

/// A value of a named string type upstream (`core.PullPolicy`, `core.Protocol`, an operator or
/// an effect), which the v1.34+ error body renders with `json.Marshal` rather than `%q`:
/// `"A\u003cw"`, `"Always\u0007"`.
pub(crate) fn go_json_str(s: &str) -> String {
    go_html_escape(Value::String(s.to_string()).to_string())
}

/// Whether Go's `strconv.IsPrint` holds for a character that is not ASCII: letters, marks,
/// numbers, punctuation and symbols are printable; spaces other than U+0020, format characters,
/// private use and noncharacters are not, and `%q` escapes them (`\u00a0`, `\u200b`), so a
/// non-breaking or zero-width space pasted into a name shows in the error instead of hiding.
fn go_is_print(c: char) -> bool {
    let u = u32::from(c);
    let not_print: &[(u32, u32)] = &[
        // Other spaces (Zs), line and paragraph separators (Zl, Zp).
        (0x00A0, 0x00A0),
        (0x1680, 0x1680),
        (0x2000, 0x200A),
        (0x2028, 0x2029),
        (0x202F, 0x202F),
        (0x205F, 0x205F),
        (0x3000, 0x3000),
        // Format characters (Cf).
        (0x00AD, 0x00AD),
        (0x0600, 0x0605),
        (0x061C, 0x061C),
        (0x06DD, 0x06DD),
        (0x070F, 0x070F),
        (0x0890, 0x0891),
        (0x08E2, 0x08E2),
        (0x180E, 0x180E),
        (0x200B, 0x200F),
        (0x202A, 0x202E),
        (0x2060, 0x2064),
        (0x2066, 0x206F),
        (0xFEFF, 0xFEFF),
        (0xFFF9, 0xFFFB),
        (0x110BD, 0x110BD),
        (0x110CD, 0x110CD),
        (0x13430, 0x1343F),
        (0x1BCA0, 0x1BCA3),
        (0x1D173, 0x1D17A),
        (0xE0001, 0xE0001),
        (0xE0020, 0xE007F),
        // Private use (Co) and the noncharacters.
        (0xE000, 0xF8FF),
        (0xF0000, 0x10FFFF),
        (0xFDD0, 0xFDEF),
    ];
    !c.is_control()
        && (u & 0xFFFE) != 0xFFFE
        && !not_print.iter().any(|&(lo, hi)| (lo..=hi).contains(&u))
}

/// Go's `json.Marshal` of a JSON value: like serde_json, plus Go's HTML-safe escapes.
fn go_json(value: &Value) -> String {
    go_html_escape(value.to_string())
}

/// The escapes Go's JSON encoder adds to serde_json's output (`<`, `>`, `&`, U+2028, U+2029).
fn go_html_escape(text: String) -> String {
    if !text.contains(['<', '>', '&', '\u{2028}', '\u{2029}']) {
        return text;
    }
    text.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

fn render_int(v: i64) -> String {
    v.to_string()
}

fn render_int_or_string(v: &IntOrString) -> String {
    match v {
        IntOrString::Int(i) => i.to_string(),
        IntOrString::String(s) => go_json(&Value::String(s.clone())),
    }
}

/// A label map as `json.Marshal` renders a Go `map[string]string`; an empty map renders as
/// `null` (it is nil when the manifest leaves the labels out).
fn render_labels(labels: &BTreeMap<String, String>) -> String {
    if labels.is_empty() {
        return "null".to_string();
    }
    go_json(&serde_json::to_value(labels).unwrap_or(Value::Null))
}

/// A `*metav1.LabelSelector` as `json.Marshal` renders it: fields in struct order
/// (`matchLabels` before `matchExpressions`), empty ones omitted, `null` when absent.
fn render_selector(selector: Option<&LabelSelector>) -> String {
    match selector.map(serde_json::to_string) {
        Some(Ok(text)) => go_html_escape(text),
        _ => "null".to_string(),
    }
}

// ---------------------------------------------------------------------------------------------
// Field paths
// ---------------------------------------------------------------------------------------------

/// A field path under construction (`field.Path`).
#[derive(Clone, Debug, Default)]
struct Path(String);

impl Path {
    fn root(name: &str) -> Path {
        Path(name.to_string())
    }

    /// `Child`: `a` → `a.b`.
    fn child(&self, name: &str) -> Path {
        if self.0.is_empty() {
            Path(name.to_string())
        } else {
            Path(format!("{}.{name}", self.0))
        }
    }

    /// `Index`: `a` → `a[0]`.
    fn index(&self, i: usize) -> Path {
        Path(format!("{}[{i}]", self.0))
    }

    /// `Key`: `a` → `a[k]`.
    fn key(&self, k: &str) -> Path {
        Path(format!("{}[{k}]", self.0))
    }
}

impl From<&Path> for String {
    fn from(p: &Path) -> String {
        p.0.clone()
    }
}

// ---------------------------------------------------------------------------------------------
// Decoding
// ---------------------------------------------------------------------------------------------

/// Converts a loaded manifest into a typed [`Deployment`], the job of the API server's codec.
///
/// `status` is dropped (the API server clears it on create), as are `creationTimestamp` and
/// `deletionTimestamp` (set by the server; copied manifests carry them as text). A JSON `null`
/// counts as absent, an integral float (`3.0`) as an integer, as Go's decoder treats them.
///
/// # Errors
/// Every problem found, each with its field path (look its line up with
/// [`Document::line_of`]):
/// * the document is empty or not a mapping;
/// * `apiVersion` or `kind` is missing (`apiVersion: Required value`) or is not `apps/v1` /
///   `Deployment` (`kind: Unsupported value: "Pod": supported values: "Deployment"`); a
///   Deployment in another version is kubectl's own error (`no matches for kind "Deployment"
///   in version "apps/v1beta2"`), as [`ErrorKind::Request`];
/// * a typed field has the wrong JSON type. Upstream reports this as a decode error without a
///   path (`json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of
///   type int32`); here it is a [`ErrorKind::TypeInvalid`] error at the field that reuses
///   upstream's type name: `spec.replicas: Invalid value: "three": must be of type int32`.
pub fn decode_deployment(doc: &Document) -> Result<Deployment, Vec<FieldError>> {
    let root = match &doc.value {
        Value::Object(root) => root,
        Value::Null => {
            return Err(vec![FieldError::required(
                "",
                "the document is empty; expected a Deployment manifest",
            )]);
        }
        _ => {
            return Err(vec![FieldError::new(
                "",
                ErrorKind::TypeInvalid,
                None,
                "a Deployment manifest must be a YAML mapping",
            )]);
        }
    };
    let mut errs = Vec::new();
    check_type_meta(root.get("apiVersion"), "apiVersion", "apps/v1", &mut errs);
    check_type_meta(root.get("kind"), "kind", "Deployment", &mut errs);
    // A Deployment in another version is kubectl's mapping error, not the API server's.
    if let [only] = errs.as_mut_slice()
        && only.field == "apiVersion"
        && only.kind == ErrorKind::Unsupported
    {
        let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().to_string();
        let meta = root.get("metadata");
        *only = FieldError::new(
            "apiVersion",
            ErrorKind::Request,
            None,
            format!(
                "resource mapping not found for name: {} namespace: {} from \"STDIN\": no matches for kind \"Deployment\" in version {}; ensure CRDs are installed first",
                go_quote(&text(meta.and_then(|m| m.get("name")))),
                go_quote(&text(meta.and_then(|m| m.get("namespace")))),
                go_quote(&text(root.get("apiVersion"))),
            ),
        );
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    let mut value = doc.value.clone();
    check_shape(
        &mut value,
        Shape::Object(DEPLOYMENT),
        &Path::root(""),
        &mut errs,
    );
    if !errs.is_empty() {
        return Err(errs);
    }
    // A document that decodes may still name fields the type does not have: under strict
    // field validation the API server refuses it, naming each one.
    unknown_fields(
        &doc.value,
        Shape::Object(DEPLOYMENT),
        &Path::root(""),
        &mut errs,
    );
    if !errs.is_empty() {
        return Err(errs);
    }
    if let Some(template) = value.pointer_mut("/spec/template") {
        drop_zero_values(template);
    }
    let mut d: Deployment = serde_json::from_value(value).map_err(|e| {
        vec![FieldError::new(
            "",
            ErrorKind::TypeInvalid,
            None,
            format!("the manifest cannot be decoded as a Deployment: {e}"),
        )]
    })?;
    canonicalize_quantities(&mut d);
    Ok(d)
}

/// Fields of the pod template whose Go type is a pointer (or that have no `omitempty` and are
/// checked for their zero), so that a zero written in the manifest is kept: `false`,
/// `0` or `""` there means something other than leaving the field out.
const ZERO_IS_SET: &[&str] = &[
    "activeDeadlineSeconds",
    "allowPrivilegeEscalation",
    "automountServiceAccountToken",
    "containerPort",
    "defaultMode",
    "enableServiceLinks",
    "expirationSeconds",
    "fsGroup",
    "fsGroupChangePolicy",
    "hostUsers",
    "maxSkew",
    "minDomains",
    "mode",
    "optional",
    "port",
    "preemptionPolicy",
    "priority",
    "privileged",
    "procMount",
    "readOnlyRootFilesystem",
    "restartPolicy",
    "runAsGroup",
    "runAsNonRoot",
    "runAsUser",
    "runtimeClassName",
    "service",
    "setHostnameAsFQDN",
    "shareProcessNamespace",
    "sizeLimit",
    "supplementalGroupsPolicy",
    "terminationGracePeriodSeconds",
    "tolerationSeconds",
    "type",
    "weight",
];

/// The map-typed fields of the pod template, whose empty `{}` is the same as leaving them out
/// and whose entries are data (an empty label value is a value); an empty object elsewhere is a
/// struct that is set (`emptyDir: {}`, `securityContext: {}`).
const EMPTY_MAP_IS_UNSET: &[&str] = &[
    "annotations",
    "labels",
    "limits",
    "matchLabels",
    "nodeSelector",
    "overhead",
    "requests",
];

/// Drops from the pod template the values the API server cannot tell from an absent field:
/// decoding JSON into Go's typed object leaves a non-pointer field's zero (`""`, `0`, `false`,
/// an empty list or map) exactly as if it had not been written, and serializing it back leaves
/// it out. So `initialDelaySeconds: 0`, `hostPort: 0` or `command: []` in a manifest change
/// neither the stored template nor its pod-template-hash, and a re-apply that adds one starts
/// no rollout, as on a real cluster. Pointer fields keep their zero ([`ZERO_IS_SET`]).
fn drop_zero_values(v: &mut Value) {
    match v {
        Value::Object(map) => {
            map.retain(|key, value| {
                // A map's entries are data, not fields: a label's empty value is kept.
                let is_map = EMPTY_MAP_IS_UNSET.contains(&key.as_str());
                if !is_map {
                    drop_zero_values(value);
                }
                let zero = match value {
                    Value::String(s) => s.is_empty(),
                    Value::Bool(b) => !*b,
                    Value::Number(n) => n.as_f64() == Some(0.0),
                    Value::Array(items) => items.is_empty(),
                    Value::Object(m) => m.is_empty() && is_map,
                    Value::Null => false,
                };
                !zero || ZERO_IS_SET.contains(&key.as_str())
            });
        }
        Value::Array(items) => items.iter_mut().for_each(drop_zero_values),
        _ => {}
    }
}

/// Rewrites every resource quantity of the pod template in its canonical form, as decoding
/// into `resource.Quantity` does on the API server: the stored template, and so template
/// comparison, the pod-template-hash, validation messages and `kubectl describe`, see `1Gi`
/// whether the manifest said `1Gi`, `1024Mi` or `1073741824`, and `500m` for `0.5`. Changing
/// only a quantity's notation is therefore no template change and starts no rollout. An amount
/// finer than a milli-unit is rounded up to one (`SetDefaults_ResourceList`: `100u` → `1m`).
/// Text that is not a quantity is left for validation to refuse.
fn canonicalize_quantities(d: &mut Deployment) {
    fn rewrite<'a>(quantities: impl Iterator<Item = &'a mut Value>) {
        for q in quantities {
            if let Some(text) = quantity_text(q).and_then(|t| canonical(&t)) {
                *q = Value::String(round_up_to_milli(&text));
            }
        }
    }
    let spec = &mut *d.spec.template.spec;
    for c in spec.init_containers.iter_mut().chain(&mut spec.containers) {
        let r = &mut c.resources;
        rewrite(r.requests.values_mut().chain(r.limits.values_mut()));
    }
}

fn check_type_meta(value: Option<&Value>, field: &str, expected: &str, errs: &mut Vec<FieldError>) {
    match value {
        None | Some(Value::Null) => errs.push(FieldError::required(field, "")),
        Some(Value::String(s)) if s.is_empty() => errs.push(FieldError::required(field, "")),
        Some(Value::String(s)) if s == expected => {}
        Some(Value::String(s)) => {
            errs.push(FieldError::not_supported(field, go_quote(s), &[expected]));
        }
        Some(other) => errs.push(FieldError::type_invalid(
            field,
            render_value(other),
            "must be of type string",
        )),
    }
}

/// The JSON shape the typed API structs expect, so that a type error is reported at its path
/// before serde sees the value.
#[derive(Clone, Copy)]
enum Shape {
    /// Removed before decoding (server-set or ignored fields).
    Ignore,
    /// A field of the API type that the simulator does not model: accepted as written, and kept
    /// where the typed struct has room for it (a pod template's `extra` fields, so that a change
    /// to, say, `env` still changes the template).
    Any,
    Str,
    Bool,
    Int32,
    Int64,
    /// `intstr.IntOrString`.
    IntOrStr,
    /// `map[string]string`.
    StrMap,
    /// A map of anything (resource quantities; validation checks them).
    AnyMap,
    List(&'static Shape),
    Object(&'static [Field]),
}

/// A known field of an object shape.
#[derive(Clone, Copy)]
struct Field {
    name: &'static str,
    shape: Shape,
    /// A field the typed struct cannot do without: when absent it gets its Go zero value, so
    /// validation reports it as upstream would (`port: Invalid value: 0: …`).
    required: bool,
}

const fn opt(name: &'static str, shape: Shape) -> Field {
    Field {
        name,
        shape,
        required: false,
    }
}

const fn req(name: &'static str, shape: Shape) -> Field {
    Field {
        name,
        shape,
        required: true,
    }
}

const OWNER_REFERENCE: &[Field] = &[
    opt("apiVersion", Shape::Str),
    opt("kind", Shape::Str),
    opt("name", Shape::Str),
    opt("uid", Shape::Str),
    opt("controller", Shape::Bool),
    opt("blockOwnerDeletion", Shape::Bool),
];

const OBJECT_META: &[Field] = &[
    opt("name", Shape::Str),
    opt("generateName", Shape::Str),
    opt("namespace", Shape::Str),
    opt("uid", Shape::Str),
    opt("generation", Shape::Int64),
    opt("creationTimestamp", Shape::Ignore),
    opt("deletionTimestamp", Shape::Ignore),
    opt("deletionGracePeriodSeconds", Shape::Int64),
    opt("labels", Shape::StrMap),
    opt("annotations", Shape::StrMap),
    opt(
        "ownerReferences",
        Shape::List(&Shape::Object(OWNER_REFERENCE)),
    ),
    opt("selfLink", Shape::Any),
    opt("resourceVersion", Shape::Any),
    opt("finalizers", Shape::Any),
    opt("managedFields", Shape::Any),
];

const SELECTOR_REQUIREMENT: &[Field] = &[
    req("key", Shape::Str),
    req("operator", Shape::Str),
    opt("values", Shape::List(&Shape::Str)),
];

const LABEL_SELECTOR: &[Field] = &[
    opt("matchLabels", Shape::StrMap),
    opt(
        "matchExpressions",
        Shape::List(&Shape::Object(SELECTOR_REQUIREMENT)),
    ),
];

const HTTP_GET: &[Field] = &[
    opt("path", Shape::Str),
    req("port", Shape::IntOrStr),
    opt("host", Shape::Str),
    opt("scheme", Shape::Str),
    opt("httpHeaders", Shape::List(&Shape::Object(HTTP_HEADER))),
];

const HTTP_HEADER: &[Field] = &[opt("name", Shape::Str), opt("value", Shape::Str)];

const TCP_SOCKET: &[Field] = &[req("port", Shape::IntOrStr), opt("host", Shape::Str)];

const EXEC: &[Field] = &[opt("command", Shape::List(&Shape::Str))];

const GRPC: &[Field] = &[req("port", Shape::Int32), opt("service", Shape::Str)];

const PROBE: &[Field] = &[
    opt("httpGet", Shape::Object(HTTP_GET)),
    opt("tcpSocket", Shape::Object(TCP_SOCKET)),
    opt("exec", Shape::Object(EXEC)),
    opt("grpc", Shape::Object(GRPC)),
    opt("initialDelaySeconds", Shape::Int32),
    opt("timeoutSeconds", Shape::Int32),
    opt("periodSeconds", Shape::Int32),
    opt("successThreshold", Shape::Int32),
    opt("failureThreshold", Shape::Int32),
    opt("terminationGracePeriodSeconds", Shape::Int64),
];

const CONTAINER_PORT: &[Field] = &[
    opt("name", Shape::Str),
    opt("containerPort", Shape::Int32),
    opt("protocol", Shape::Str),
    opt("hostPort", Shape::Int32),
    opt("hostIP", Shape::Str),
];

const OBJECT_FIELD_SELECTOR: &[Field] =
    &[opt("apiVersion", Shape::Str), opt("fieldPath", Shape::Str)];

const RESOURCE_FIELD_SELECTOR: &[Field] = &[
    opt("containerName", Shape::Str),
    opt("resource", Shape::Str),
    opt("divisor", Shape::Any),
];

/// `ConfigMapKeySelector` and `SecretKeySelector`.
const KEY_SELECTOR: &[Field] = &[
    opt("name", Shape::Str),
    opt("key", Shape::Str),
    opt("optional", Shape::Bool),
];

const FILE_KEY_SELECTOR: &[Field] = &[
    opt("volumeName", Shape::Str),
    opt("path", Shape::Str),
    opt("key", Shape::Str),
    opt("optional", Shape::Bool),
];

const ENV_VAR_SOURCE: &[Field] = &[
    opt("fieldRef", Shape::Object(OBJECT_FIELD_SELECTOR)),
    opt("resourceFieldRef", Shape::Object(RESOURCE_FIELD_SELECTOR)),
    opt("configMapKeyRef", Shape::Object(KEY_SELECTOR)),
    opt("secretKeyRef", Shape::Object(KEY_SELECTOR)),
    opt("fileKeyRef", Shape::Object(FILE_KEY_SELECTOR)),
];

const ENV_VAR: &[Field] = &[
    opt("name", Shape::Str),
    opt("value", Shape::Str),
    opt("valueFrom", Shape::Object(ENV_VAR_SOURCE)),
];

/// `ConfigMapEnvSource` and `SecretEnvSource`.
const ENV_SOURCE_REF: &[Field] = &[opt("name", Shape::Str), opt("optional", Shape::Bool)];

const ENV_FROM_SOURCE: &[Field] = &[
    opt("prefix", Shape::Str),
    opt("configMapRef", Shape::Object(ENV_SOURCE_REF)),
    opt("secretRef", Shape::Object(ENV_SOURCE_REF)),
];

const VOLUME_MOUNT: &[Field] = &[
    opt("name", Shape::Str),
    opt("readOnly", Shape::Bool),
    opt("recursiveReadOnly", Shape::Str),
    opt("mountPath", Shape::Str),
    opt("subPath", Shape::Str),
    opt("mountPropagation", Shape::Str),
    opt("subPathExpr", Shape::Str),
];

const TOLERATION: &[Field] = &[
    opt("key", Shape::Str),
    opt("operator", Shape::Str),
    opt("value", Shape::Str),
    opt("effect", Shape::Str),
    opt("tolerationSeconds", Shape::Int64),
];

const RESOURCES: &[Field] = &[
    opt("requests", Shape::AnyMap),
    opt("limits", Shape::AnyMap),
    opt("claims", Shape::Any),
];

const CONTAINER: &[Field] = &[
    opt("name", Shape::Str),
    opt("image", Shape::Str),
    opt("imagePullPolicy", Shape::Str),
    opt("resources", Shape::Object(RESOURCES)),
    opt("ports", Shape::List(&Shape::Object(CONTAINER_PORT))),
    opt("readinessProbe", Shape::Object(PROBE)),
    opt("livenessProbe", Shape::Object(PROBE)),
    opt("startupProbe", Shape::Object(PROBE)),
    // The rest of core/v1 `Container` (v1.35), which the simulator does not model.
    opt("command", Shape::Any),
    opt("args", Shape::Any),
    opt("workingDir", Shape::Any),
    opt("envFrom", Shape::List(&Shape::Object(ENV_FROM_SOURCE))),
    opt("env", Shape::List(&Shape::Object(ENV_VAR))),
    opt("resizePolicy", Shape::Any),
    opt("restartPolicy", Shape::Any),
    opt("restartPolicyRules", Shape::Any),
    opt("volumeMounts", Shape::List(&Shape::Object(VOLUME_MOUNT))),
    opt("volumeDevices", Shape::Any),
    opt("lifecycle", Shape::Any),
    opt("terminationMessagePath", Shape::Any),
    opt("terminationMessagePolicy", Shape::Str),
    opt("securityContext", Shape::Object(SECURITY_CONTEXT)),
    opt("stdin", Shape::Any),
    opt("stdinOnce", Shape::Any),
    opt("tty", Shape::Any),
];

const POD_SPEC: &[Field] = &[
    opt("containers", Shape::List(&Shape::Object(CONTAINER))),
    opt("restartPolicy", Shape::Str),
    opt("terminationGracePeriodSeconds", Shape::Int64),
    opt("activeDeadlineSeconds", Shape::Int64),
    opt("dnsPolicy", Shape::Str),
    opt("schedulerName", Shape::Str),
    opt("nodeName", Shape::Str),
    opt("nodeSelector", Shape::StrMap),
    // The rest of core/v1 `PodSpec` (v1.35, alpha fields included: the decoder knows them even
    // where their gate is off), which the simulator does not model.
    opt("volumes", Shape::List(&Shape::Object(VOLUME))),
    opt("initContainers", Shape::List(&Shape::Object(CONTAINER))),
    opt("ephemeralContainers", Shape::Any),
    opt("serviceAccountName", Shape::Str),
    opt("serviceAccount", Shape::Any),
    opt("automountServiceAccountToken", Shape::Any),
    opt("hostNetwork", Shape::Any),
    opt("hostPID", Shape::Any),
    opt("hostIPC", Shape::Any),
    opt("shareProcessNamespace", Shape::Any),
    opt("securityContext", Shape::Object(POD_SECURITY_CONTEXT)),
    opt("imagePullSecrets", Shape::Any),
    opt("hostname", Shape::Str),
    opt("hostnameOverride", Shape::Any),
    opt("subdomain", Shape::Str),
    opt("affinity", Shape::Object(AFFINITY)),
    opt("tolerations", Shape::List(&Shape::Object(TOLERATION))),
    opt("hostAliases", Shape::Any),
    opt("priorityClassName", Shape::Any),
    opt("priority", Shape::Any),
    opt("dnsConfig", Shape::Any),
    opt("readinessGates", Shape::Any),
    opt("runtimeClassName", Shape::Any),
    opt("enableServiceLinks", Shape::Any),
    opt("preemptionPolicy", Shape::Any),
    opt("overhead", Shape::Any),
    opt(
        "topologySpreadConstraints",
        Shape::List(&Shape::Object(TOPOLOGY_SPREAD_CONSTRAINT)),
    ),
    opt("setHostnameAsFQDN", Shape::Any),
    opt("os", Shape::Any),
    opt("hostUsers", Shape::Any),
    opt("schedulingGates", Shape::Any),
    opt("resourceClaims", Shape::Any),
    opt("resources", Shape::Any),
    opt("workloadRef", Shape::Any),
];

// Affinity (`core/v1` `Affinity` and its terms), checked field by field so that a typo deep in
// a node affinity is refused at its path, as the API server's strict decoding refuses it.

const NODE_SELECTOR_REQUIREMENT: &[Field] = &[
    req("key", Shape::Str),
    req("operator", Shape::Str),
    opt("values", Shape::List(&Shape::Str)),
];

const NODE_SELECTOR_TERM: &[Field] = &[
    opt(
        "matchExpressions",
        Shape::List(&Shape::Object(NODE_SELECTOR_REQUIREMENT)),
    ),
    opt(
        "matchFields",
        Shape::List(&Shape::Object(NODE_SELECTOR_REQUIREMENT)),
    ),
];

const NODE_SELECTOR: &[Field] = &[req(
    "nodeSelectorTerms",
    Shape::List(&Shape::Object(NODE_SELECTOR_TERM)),
)];

const PREFERRED_SCHEDULING_TERM: &[Field] = &[
    req("weight", Shape::Int32),
    req("preference", Shape::Object(NODE_SELECTOR_TERM)),
];

const NODE_AFFINITY: &[Field] = &[
    opt(
        "requiredDuringSchedulingIgnoredDuringExecution",
        Shape::Object(NODE_SELECTOR),
    ),
    opt(
        "preferredDuringSchedulingIgnoredDuringExecution",
        Shape::List(&Shape::Object(PREFERRED_SCHEDULING_TERM)),
    ),
];

const POD_AFFINITY_TERM: &[Field] = &[
    opt("labelSelector", Shape::Object(LABEL_SELECTOR)),
    opt("namespaces", Shape::List(&Shape::Str)),
    req("topologyKey", Shape::Str),
    opt("namespaceSelector", Shape::Object(LABEL_SELECTOR)),
    opt("matchLabelKeys", Shape::List(&Shape::Str)),
    opt("mismatchLabelKeys", Shape::List(&Shape::Str)),
];

const WEIGHTED_POD_AFFINITY_TERM: &[Field] = &[
    req("weight", Shape::Int32),
    req("podAffinityTerm", Shape::Object(POD_AFFINITY_TERM)),
];

const POD_AFFINITY: &[Field] = &[
    opt(
        "requiredDuringSchedulingIgnoredDuringExecution",
        Shape::List(&Shape::Object(POD_AFFINITY_TERM)),
    ),
    opt(
        "preferredDuringSchedulingIgnoredDuringExecution",
        Shape::List(&Shape::Object(WEIGHTED_POD_AFFINITY_TERM)),
    ),
];

const AFFINITY: &[Field] = &[
    opt("nodeAffinity", Shape::Object(NODE_AFFINITY)),
    opt("podAffinity", Shape::Object(POD_AFFINITY)),
    opt("podAntiAffinity", Shape::Object(POD_AFFINITY)),
];

const TOPOLOGY_SPREAD_CONSTRAINT: &[Field] = &[
    req("maxSkew", Shape::Int32),
    req("topologyKey", Shape::Str),
    req("whenUnsatisfiable", Shape::Str),
    opt("labelSelector", Shape::Object(LABEL_SELECTOR)),
    opt("minDomains", Shape::Int32),
    opt("nodeAffinityPolicy", Shape::Str),
    opt("nodeTaintsPolicy", Shape::Str),
    opt("matchLabelKeys", Shape::List(&Shape::Str)),
];

// Security contexts (`SecurityContext` of a container, `PodSecurityContext` of a pod).

const SE_LINUX_OPTIONS: &[Field] = &[
    opt("user", Shape::Str),
    opt("role", Shape::Str),
    opt("type", Shape::Str),
    opt("level", Shape::Str),
];

const WINDOWS_OPTIONS: &[Field] = &[
    opt("gmsaCredentialSpecName", Shape::Str),
    opt("gmsaCredentialSpec", Shape::Str),
    opt("runAsUserName", Shape::Str),
    opt("hostProcess", Shape::Bool),
];

const PROFILE: &[Field] = &[req("type", Shape::Str), opt("localhostProfile", Shape::Str)];

const CAPABILITIES: &[Field] = &[
    opt("add", Shape::List(&Shape::Str)),
    opt("drop", Shape::List(&Shape::Str)),
];

const SECURITY_CONTEXT: &[Field] = &[
    opt("capabilities", Shape::Object(CAPABILITIES)),
    opt("privileged", Shape::Bool),
    opt("seLinuxOptions", Shape::Object(SE_LINUX_OPTIONS)),
    opt("windowsOptions", Shape::Object(WINDOWS_OPTIONS)),
    opt("runAsUser", Shape::Int64),
    opt("runAsGroup", Shape::Int64),
    opt("runAsNonRoot", Shape::Bool),
    opt("readOnlyRootFilesystem", Shape::Bool),
    opt("allowPrivilegeEscalation", Shape::Bool),
    opt("procMount", Shape::Str),
    opt("seccompProfile", Shape::Object(PROFILE)),
    opt("appArmorProfile", Shape::Object(PROFILE)),
];

const SYSCTL: &[Field] = &[req("name", Shape::Str), req("value", Shape::Str)];

const POD_SECURITY_CONTEXT: &[Field] = &[
    opt("seLinuxOptions", Shape::Object(SE_LINUX_OPTIONS)),
    opt("windowsOptions", Shape::Object(WINDOWS_OPTIONS)),
    opt("runAsUser", Shape::Int64),
    opt("runAsGroup", Shape::Int64),
    opt("runAsNonRoot", Shape::Bool),
    opt("supplementalGroups", Shape::List(&Shape::Int64)),
    opt("supplementalGroupsPolicy", Shape::Str),
    opt("fsGroup", Shape::Int64),
    opt("sysctls", Shape::List(&Shape::Object(SYSCTL))),
    opt("fsGroupChangePolicy", Shape::Str),
    opt("seccompProfile", Shape::Object(PROFILE)),
    opt("appArmorProfile", Shape::Object(PROFILE)),
    opt("seLinuxChangePolicy", Shape::Str),
];

// Volumes: the name and exactly the source kinds `VolumeSource` has, the common ones field by
// field.

const KEY_TO_PATH: &[Field] = &[
    req("key", Shape::Str),
    req("path", Shape::Str),
    opt("mode", Shape::Int32),
];

const EMPTY_DIR: &[Field] = &[opt("medium", Shape::Str), opt("sizeLimit", Shape::Any)];

const CONFIG_MAP_VOLUME: &[Field] = &[
    opt("name", Shape::Str),
    opt("items", Shape::List(&Shape::Object(KEY_TO_PATH))),
    opt("defaultMode", Shape::Int32),
    opt("optional", Shape::Bool),
];

const SECRET_VOLUME: &[Field] = &[
    opt("secretName", Shape::Str),
    opt("items", Shape::List(&Shape::Object(KEY_TO_PATH))),
    opt("defaultMode", Shape::Int32),
    opt("optional", Shape::Bool),
];

const PVC_VOLUME: &[Field] = &[req("claimName", Shape::Str), opt("readOnly", Shape::Bool)];

const HOST_PATH: &[Field] = &[req("path", Shape::Str), opt("type", Shape::Str)];

const VOLUME: &[Field] = &[
    req("name", Shape::Str),
    opt("emptyDir", Shape::Object(EMPTY_DIR)),
    opt("configMap", Shape::Object(CONFIG_MAP_VOLUME)),
    opt("secret", Shape::Object(SECRET_VOLUME)),
    opt("persistentVolumeClaim", Shape::Object(PVC_VOLUME)),
    opt("hostPath", Shape::Object(HOST_PATH)),
    opt("projected", Shape::Any),
    opt("downwardAPI", Shape::Any),
    opt("ephemeral", Shape::Any),
    opt("csi", Shape::Any),
    opt("image", Shape::Any),
    opt("nfs", Shape::Any),
    opt("iscsi", Shape::Any),
    opt("fc", Shape::Any),
    opt("rbd", Shape::Any),
    opt("cephfs", Shape::Any),
    opt("cinder", Shape::Any),
    opt("flexVolume", Shape::Any),
    opt("flocker", Shape::Any),
    opt("glusterfs", Shape::Any),
    opt("gitRepo", Shape::Any),
    opt("gcePersistentDisk", Shape::Any),
    opt("awsElasticBlockStore", Shape::Any),
    opt("azureFile", Shape::Any),
    opt("azureDisk", Shape::Any),
    opt("vsphereVolume", Shape::Any),
    opt("quobyte", Shape::Any),
    opt("photonPersistentDisk", Shape::Any),
    opt("portworxVolume", Shape::Any),
    opt("scaleIO", Shape::Any),
    opt("storageos", Shape::Any),
];

const POD_TEMPLATE: &[Field] = &[
    opt("metadata", Shape::Object(OBJECT_META)),
    opt("spec", Shape::Object(POD_SPEC)),
];

const ROLLING_UPDATE: &[Field] = &[
    opt("maxUnavailable", Shape::IntOrStr),
    opt("maxSurge", Shape::IntOrStr),
];

const STRATEGY: &[Field] = &[
    opt("type", Shape::Str),
    opt("rollingUpdate", Shape::Object(ROLLING_UPDATE)),
];

const DEPLOYMENT_SPEC: &[Field] = &[
    opt("replicas", Shape::Int32),
    opt("selector", Shape::Object(LABEL_SELECTOR)),
    opt("template", Shape::Object(POD_TEMPLATE)),
    opt("strategy", Shape::Object(STRATEGY)),
    opt("minReadySeconds", Shape::Int32),
    opt("revisionHistoryLimit", Shape::Int32),
    opt("paused", Shape::Bool),
    opt("progressDeadlineSeconds", Shape::Int32),
];

const DEPLOYMENT: &[Field] = &[
    opt("apiVersion", Shape::Str),
    opt("kind", Shape::Str),
    opt("metadata", Shape::Object(OBJECT_META)),
    opt("spec", Shape::Object(DEPLOYMENT_SPEC)),
    opt("status", Shape::Ignore),
];

/// The Go zero value of a shape, used for `null` list items and missing required fields.
fn zero_value(shape: Shape) -> Value {
    match shape {
        Shape::Ignore | Shape::Any => Value::Null,
        Shape::Str => Value::String(String::new()),
        Shape::Bool => Value::Bool(false),
        Shape::Int32 | Shape::Int64 | Shape::IntOrStr => Value::from(0),
        Shape::StrMap | Shape::AnyMap | Shape::Object(_) => Value::Object(serde_json::Map::new()),
        Shape::List(_) => Value::Array(Vec::new()),
    }
}

/// The integer a JSON number holds when it is integral and within `[min, max]`.
fn integral(value: &Value, min: i64, max: i64) -> Option<i64> {
    let Value::Number(n) = value else {
        return None;
    };
    let i = match n.as_i64() {
        Some(i) => i,
        None => {
            let f = n.as_f64()?;
            // Exactly representable integral floats only (|f| < 2^53 covers every i32).
            if f.fract() != 0.0 || f.abs() >= 9_007_199_254_740_992.0 {
                return None;
            }
            f as i64
        }
    };
    (min..=max).contains(&i).then_some(i)
}

/// Appends a strict decoding error for each field of `value` that `shape` does not know, in the
/// order the API server meets them: kubectl sends the object as JSON with each object's keys
/// sorted, and the decoder walks it depth first.
///
/// Recursion is bounded by the depth of the static schema, not by the input.
fn unknown_fields(value: &Value, shape: Shape, path: &Path, errs: &mut Vec<FieldError>) {
    match (shape, value) {
        (Shape::List(item), Value::Array(items)) => {
            for (i, v) in items.iter().enumerate() {
                unknown_fields(v, *item, &path.index(i), errs);
            }
        }
        (Shape::Object(fields), Value::Object(map)) => {
            let mut keys: Vec<&String> = map.keys().collect();
            order::sort(&mut keys);
            for key in keys {
                match fields.iter().find(|f| f.name == key.as_str()) {
                    Some(field) => {
                        if let Some(v) = map.get(key.as_str()) {
                            unknown_fields(v, field.shape, &path.child(key), errs);
                        }
                    }
                    None => errs.push(FieldError::unknown_field(&path.child(key))),
                }
            }
        }
        _ => {}
    }
}

/// Checks (and normalizes) `value` against `shape`, appending a type error for each mismatch.
///
/// Recursion is bounded by the depth of the static schema, not by the input.
fn check_shape(value: &mut Value, shape: Shape, path: &Path, errs: &mut Vec<FieldError>) {
    let mismatch = |value: &Value, errs: &mut Vec<FieldError>, expected: &str| {
        errs.push(FieldError::type_invalid(
            path,
            render_value(value),
            format!("must be of type {expected}"),
        ));
    };
    match shape {
        Shape::Ignore | Shape::Any => {}
        Shape::Str => {
            if !value.is_string() {
                mismatch(value, errs, "string");
            }
        }
        Shape::Bool => {
            if !value.is_boolean() {
                mismatch(value, errs, "boolean");
            }
        }
        Shape::Int32 | Shape::Int64 => {
            let (min, max, name) = if matches!(shape, Shape::Int32) {
                (i64::from(i32::MIN), i64::from(i32::MAX), "int32")
            } else {
                (i64::MIN, i64::MAX, "int64")
            };
            match integral(value, min, max) {
                Some(i) => *value = Value::from(i),
                None => mismatch(value, errs, name),
            }
        }
        Shape::IntOrStr => {
            if !value.is_string() {
                match integral(value, i64::from(i32::MIN), i64::from(i32::MAX)) {
                    Some(i) => *value = Value::from(i),
                    None => mismatch(value, errs, "int32 or string"),
                }
            }
        }
        Shape::AnyMap => {
            if !value.is_object() {
                mismatch(value, errs, "object");
            }
        }
        Shape::StrMap => {
            let Value::Object(map) = value else {
                return mismatch(value, errs, "object");
            };
            for (k, v) in map.iter_mut() {
                match v {
                    Value::Null => *v = Value::String(String::new()),
                    Value::String(_) => {}
                    other => errs.push(FieldError::type_invalid(
                        &path.key(k),
                        render_value(other),
                        "must be of type string",
                    )),
                }
            }
        }
        Shape::List(item) => {
            let Value::Array(items) = value else {
                return mismatch(value, errs, "array");
            };
            for (i, v) in items.iter_mut().enumerate() {
                if v.is_null() {
                    *v = zero_value(*item);
                }
                check_shape(v, *item, &path.index(i), errs);
            }
        }
        Shape::Object(fields) => {
            let Value::Object(map) = value else {
                return mismatch(value, errs, "object");
            };
            map.retain(|_, v| !v.is_null());
            for field in fields {
                match (map.get_mut(field.name), field.shape) {
                    (Some(_), Shape::Ignore) => {
                        map.remove(field.name);
                    }
                    (Some(v), shape) => check_shape(v, shape, &path.child(field.name), errs),
                    (None, shape) if field.required => {
                        map.insert(field.name.to_string(), zero_value(shape));
                    }
                    (None, _) => {}
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Defaults
// ---------------------------------------------------------------------------------------------

/// Fills in the defaults the API server applies to an apps/v1 Deployment
/// (`SetDefaults_Deployment`, then the pod defaults of `pkg/apis/core/v1/defaults.go`):
///
/// * `replicas` 1; `strategy.type` `RollingUpdate`; for RollingUpdate a missing `rollingUpdate`
///   becomes empty and `maxUnavailable` and `maxSurge` each become `"25%"` on their own (so
///   `{maxSurge: 5}` becomes `{maxSurge: 5, maxUnavailable: "25%"}`); Recreate gets none;
///   `revisionHistoryLimit` 10 (an explicit 0 stays); `progressDeadlineSeconds` 600.
/// * Pod template (`SetDefaults_PodSpec`): `restartPolicy: Always`,
///   `terminationGracePeriodSeconds: 30`, `dnsPolicy: ClusterFirst`,
///   `schedulerName: default-scheduler`, `securityContext: {}`.
/// * Each container (`SetDefaults_Container`): `imagePullPolicy` `Always` when the image's tag
///   is `latest` or it has neither tag nor digest, else `IfNotPresent`.
/// * Each probe (`SetDefaults_Probe`, `SetDefaults_HTTPGetAction`): `timeoutSeconds` 1,
///   `periodSeconds` 10, `successThreshold` 1, `failureThreshold` 3 (a written 0 counts as
///   unset, because upstream's fields are plain integers); `initialDelaySeconds` stays as
///   written; an `httpGet` gets `path: /` and `scheme: HTTP`.
///
/// Defaulting never overwrites a value that is set, so applying it twice changes nothing.
pub fn set_defaults(d: &mut Deployment) {
    let spec = &mut d.spec;
    spec.replicas.get_or_insert(1);
    let strategy = &mut spec.strategy;
    // Upstream defaulting tests for the empty string, so `type: ""` is as good as unset; the
    // same holds for a container's pull policy and a port's protocol below.
    if strategy.type_ == Some(DeploymentStrategyType::Other(String::new())) {
        strategy.type_ = None;
    }
    let type_ = strategy
        .type_
        .get_or_insert(DeploymentStrategyType::RollingUpdate);
    if *type_ == DeploymentStrategyType::RollingUpdate {
        let rolling = strategy.rolling_update.get_or_insert_with(Default::default);
        rolling
            .max_unavailable
            .get_or_insert_with(|| IntOrString::String("25%".to_string()));
        rolling
            .max_surge
            .get_or_insert_with(|| IntOrString::String("25%".to_string()));
    }
    spec.revision_history_limit.get_or_insert(10);
    spec.progress_deadline_seconds.get_or_insert(600);
    set_defaults_pod_spec(&mut spec.template.spec);
}

/// `SetDefaults_PodSpec` and, for each container, `SetDefaults_Container` and the probe
/// defaults.
fn set_defaults_pod_spec(spec: &mut PodSpec) {
    fn default_str(field: &mut Option<String>, value: &str) {
        if field.as_deref().is_none_or(str::is_empty) {
            *field = Some(value.to_string());
        }
    }
    default_str(&mut spec.dns_policy, "ClusterFirst");
    default_str(&mut spec.restart_policy, "Always");
    let security = spec
        .extra
        .entry("securityContext".to_string())
        .or_insert(Value::Null);
    if security.is_null() {
        *security = Value::Object(serde_json::Map::new());
    }
    spec.termination_grace_period_seconds.get_or_insert(30);
    default_str(&mut spec.scheduler_name, "default-scheduler");
    // `SetDefaults_Volume`: a volume that names no source is an empty directory, so the v1
    // API never reports `must specify a volume type`.
    if let Some(volumes) = spec.extra.get_mut("volumes").and_then(Value::as_array_mut) {
        for volume in volumes.iter_mut().filter_map(Value::as_object_mut) {
            if names_no_source(volume) {
                volume.insert("emptyDir".into(), Value::Object(serde_json::Map::new()));
            }
        }
    }
    for c in spec.init_containers.iter_mut().chain(&mut spec.containers) {
        set_defaults_container(c);
    }
}

fn set_defaults_container(c: &mut Container) {
    if c.image_pull_policy.is_none()
        || c.image_pull_policy == Some(PullPolicy::Other(String::new()))
    {
        c.image_pull_policy = Some(default_pull_policy(&c.image));
    }
    // An unset protocol means TCP everywhere it is read, so `protocol: ""` is made unset rather
    // than TCP: the two then hash to the same pod template, as they do upstream.
    for port in &mut c.ports {
        if port.protocol.as_deref() == Some("") {
            port.protocol = None;
        }
    }
    for probe in [
        &mut c.readiness_probe,
        &mut c.liveness_probe,
        &mut c.startup_probe,
    ]
    .into_iter()
    .flatten()
    {
        set_defaults_probe(probe);
    }
}

fn set_defaults_probe(p: &mut Probe) {
    for (field, default) in [
        (&mut p.timeout_seconds, 1),
        (&mut p.period_seconds, 10),
        (&mut p.success_threshold, 1),
        (&mut p.failure_threshold, 3),
    ] {
        if matches!(field, None | Some(0)) {
            *field = Some(default);
        }
    }
    if let Some(http) = &mut p.http_get {
        if http.path.as_deref().is_none_or(str::is_empty) {
            http.path = Some("/".to_string());
        }
        if http.scheme.as_deref().is_none_or(str::is_empty) {
            http.scheme = Some("HTTP".to_string());
        }
    }
}

/// The pull policy `SetDefaults_Container` picks: `Always` for the tag `latest` or no tag and
/// no digest (the tag then defaults to `latest`), `IfNotPresent` otherwise, including images that
/// do not parse as a reference (upstream ignores the parse error and sees an empty tag).
///
/// Examples: `nginx` → Always, `nginx:latest` → Always, `nginx:1.27` → IfNotPresent,
/// `localhost:5000/app` → Always, `nginx@sha256:…` → IfNotPresent, `NGINX` → IfNotPresent.
fn default_pull_policy(image: &str) -> PullPolicy {
    let (name, digest) = match image.split_once('@') {
        Some((name, _)) => (name, true),
        None => (image, false),
    };
    let (repository, tag) = match name.rfind(':') {
        // A colon after the last slash separates the tag; one before it is a registry port.
        Some(i) if !name[i..].contains('/') => (&name[..i], Some(&name[i + 1..])),
        _ => (name, None),
    };
    let mut components = repository.split('/');
    let first = components.next().unwrap_or_default();
    let has_registry = repository.contains('/')
        && (first.contains(['.', ':'])
            || first == "localhost"
            || first.chars().any(|c| c.is_ascii_uppercase()));
    let path_is_lowercase = if has_registry {
        components.all(|c| !c.chars().any(|ch| ch.is_ascii_uppercase()))
    } else {
        !repository.chars().any(|ch| ch.is_ascii_uppercase())
    };
    let valid = !repository.is_empty()
        && !image.chars().any(char::is_whitespace)
        && path_is_lowercase
        && tag.is_none_or(|t| !t.is_empty());
    match (valid, tag) {
        (false, _) => PullPolicy::IfNotPresent,
        (true, Some("latest")) => PullPolicy::Always,
        (true, Some(_)) => PullPolicy::IfNotPresent,
        (true, None) if digest => PullPolicy::IfNotPresent,
        (true, None) => PullPolicy::Always,
    }
}

// ---------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------

/// Validates a Deployment on create (`ValidateDeployment`): object metadata, then every rule of
/// `ValidateDeploymentSpec` in upstream's order (spec §18.2), with the pod-template rules
/// described in the module docs. Returns every error found; an empty list means valid.
///
/// Expects a defaulted object ([`set_defaults`]), as the API server validates after defaulting.
pub fn validate_deployment(d: &Deployment) -> Vec<FieldError> {
    if let Some(failed) = conversion_error(d) {
        return vec![failed];
    }
    let mut errs = Vec::new();
    validate_object_meta(&d.metadata, &Path::root("metadata"), &mut errs);
    validate_deployment_spec(d, &Path::root("spec"), &mut errs);
    errs
}

/// Validates an update of `old` to `new` (`ValidateDeploymentUpdate` and the apps/v1 registry
/// strategy's `ValidateUpdate`): the metadata update rules (name and namespace are immutable;
/// labels and annotations must be well formed), the spec rules of [`validate_deployment`], and
/// finally the immutability of `spec.selector`
/// (`spec.selector: Invalid value: {"matchLabels":{"app":"b"}}: field is immutable`).
pub fn validate_deployment_update(new: &Deployment, old: &Deployment) -> Vec<FieldError> {
    if let Some(failed) = conversion_error(new) {
        return vec![failed];
    }
    let mut errs = Vec::new();
    let meta = Path::root("metadata");
    validate_immutable_str(
        &new.metadata.name,
        &old.metadata.name,
        &meta.child("name"),
        &mut errs,
    );
    let namespace = |m: &ObjectMeta| {
        if m.namespace.is_empty() {
            super::api::DEFAULT_NAMESPACE.to_string()
        } else {
            m.namespace.clone()
        }
    };
    validate_immutable_str(
        &namespace(&new.metadata),
        &namespace(&old.metadata),
        &meta.child("namespace"),
        &mut errs,
    );
    if !old.metadata.uid.is_empty() && !new.metadata.uid.is_empty() {
        validate_immutable_str(
            &new.metadata.uid,
            &old.metadata.uid,
            &meta.child("uid"),
            &mut errs,
        );
    }
    validate_labels(&new.metadata.labels, &meta.child("labels"), &mut errs);
    validate_annotations(
        &new.metadata.annotations,
        &meta.child("annotations"),
        &mut errs,
    );
    validate_deployment_spec(new, &Path::root("spec"), &mut errs);
    if new.spec.selector != old.spec.selector {
        errs.push(FieldError::invalid(
            "spec.selector",
            render_selector(new.spec.selector.as_ref()),
            FIELD_IMMUTABLE,
        ));
    }
    errs
}

const FIELD_IMMUTABLE: &str = "field is immutable";
const IS_NEGATIVE: &str = "must be greater than or equal to 0";
const MULTIPLE_HANDLERS: &str = "may not specify more than 1 handler type";

fn validate_immutable_str(new: &str, old: &str, path: &Path, errs: &mut Vec<FieldError>) {
    if new != old {
        errs.push(FieldError::invalid(path, go_quote(new), FIELD_IMMUTABLE));
    }
}

/// `ValidateNonnegativeField`.
fn validate_nonnegative(value: i64, path: &Path, errs: &mut Vec<FieldError>) {
    if value < 0 {
        errs.push(FieldError::invalid(path, render_int(value), IS_NEGATIVE));
    }
}

/// `ValidateObjectMeta` with `ValidateDeploymentName` (a DNS-1123 subdomain). An empty
/// namespace is accepted: the simulator puts such objects in `default`, as kubectl does.
fn validate_object_meta(meta: &ObjectMeta, path: &Path, errs: &mut Vec<FieldError>) {
    if !meta.generate_name.is_empty() {
        // A prefix may end in a dash (`maskTrailingDash`).
        let masked = match meta.generate_name.strip_suffix('-') {
            Some(head) if !head.is_empty() => format!("{head}a"),
            _ => meta.generate_name.clone(),
        };
        for msg in is_dns1123_subdomain(&masked) {
            errs.push(FieldError::invalid(
                &path.child("generateName"),
                go_quote(&meta.generate_name),
                msg,
            ));
        }
    }
    if meta.name.is_empty() {
        errs.push(FieldError::required(
            &path.child("name"),
            "name or generateName is required",
        ));
    } else {
        for msg in is_dns1123_subdomain(&meta.name) {
            errs.push(FieldError::invalid(
                &path.child("name"),
                go_quote(&meta.name),
                msg,
            ));
        }
    }
    if !meta.namespace.is_empty() {
        for msg in is_dns1123_label(&meta.namespace) {
            errs.push(FieldError::invalid(
                &path.child("namespace"),
                go_quote(&meta.namespace),
                msg,
            ));
        }
    }
    // `ValidateObjectMeta` also checks that `generation` is not negative, but the Deployment
    // strategy's PrepareForCreate and PrepareForUpdate set it (1, or the stored one) before
    // validating, so a written generation is never seen and never refused.
    validate_labels(&meta.labels, &path.child("labels"), errs);
    validate_annotations(&meta.annotations, &path.child("annotations"), errs);
}

/// `ValidateLabels`: every key a qualified name, every value a valid label value; errors are
/// reported at the map's path, as upstream does.
fn validate_labels(labels: &BTreeMap<String, String>, path: &Path, errs: &mut Vec<FieldError>) {
    for (k, v) in labels {
        validate_label_name(k, path, errs);
        for msg in is_valid_label_value(v) {
            errs.push(FieldError::invalid(path, go_quote(v), msg));
        }
    }
}

/// `ValidateLabelName`.
fn validate_label_name(name: &str, path: &Path, errs: &mut Vec<FieldError>) {
    for msg in is_qualified_name(name) {
        errs.push(FieldError::invalid(path, go_quote(name), msg));
    }
}

/// The most bytes all annotations of one object may hold (`TotalAnnotationSizeLimitB`).
const TOTAL_ANNOTATION_SIZE_LIMIT: usize = 256 * 1024;

/// `ValidateAnnotations`: keys are qualified names (case-insensitively) and the total size is
/// bounded.
fn validate_annotations(
    annotations: &BTreeMap<String, String>,
    path: &Path,
    errs: &mut Vec<FieldError>,
) {
    for k in annotations.keys() {
        for msg in is_qualified_name(&k.to_lowercase()) {
            errs.push(FieldError::invalid(path, go_quote(k), msg));
        }
    }
    let size: usize = annotations.iter().map(|(k, v)| k.len() + v.len()).sum();
    if size > TOTAL_ANNOTATION_SIZE_LIMIT {
        errs.push(FieldError::too_long(path, TOTAL_ANNOTATION_SIZE_LIMIT));
    }
}

/// What `metav1.LabelSelectorAsSelector` makes of a selector that parses.
enum ParsedSelector<'a> {
    /// No selector: matches nothing.
    Nothing,
    /// An empty selector: matches everything.
    Everything,
    Some(&'a LabelSelector),
}

/// `ValidateDeploymentSpec` (spec §18.2), rules in upstream's order.
fn validate_deployment_spec(d: &Deployment, path: &Path, errs: &mut Vec<FieldError>) {
    let spec = &d.spec;
    // 1. replicas
    let replicas = spec.replicas.unwrap_or(0);
    validate_nonnegative(i64::from(replicas), &path.child("replicas"), errs);

    // 2. selector
    let selector_path = path.child("selector");
    let mut selector_parses = true;
    match &spec.selector {
        None => errs.push(FieldError::required(&selector_path, "")),
        Some(selector) => {
            let before = errs.len();
            validate_label_selector(selector, &selector_path, errs);
            selector_parses = errs.len() == before;
            if selector.is_empty() {
                errs.push(FieldError::invalid(
                    &selector_path,
                    render_selector(Some(selector)),
                    "empty selector is invalid for deployment",
                ));
            }
        }
    }

    // 3. template (skipped when the selector does not parse)
    if selector_parses {
        let parsed = match &spec.selector {
            None => ParsedSelector::Nothing,
            Some(s) if s.is_empty() => ParsedSelector::Everything,
            Some(s) => ParsedSelector::Some(s),
        };
        validate_pod_template_spec_for_replica_set(
            &spec.template,
            &parsed,
            &path.child("template"),
            errs,
        );
    } else {
        errs.push(FieldError::invalid(
            &selector_path,
            render_selector(spec.selector.as_ref()),
            "invalid label selector",
        ));
    }

    // 4. strategy
    validate_deployment_strategy(d, &path.child("strategy"), errs);

    // 5–8. minReadySeconds, revisionHistoryLimit, rollback, progressDeadlineSeconds
    validate_nonnegative(
        i64::from(spec.min_ready_seconds),
        &path.child("minReadySeconds"),
        errs,
    );
    if let Some(limit) = spec.revision_history_limit {
        validate_nonnegative(i64::from(limit), &path.child("revisionHistoryLimit"), errs);
    }
    if let Some(revision) = d.metadata.annotations.get(ROLLBACK_TO_ANNOTATION) {
        validate_rollback(revision, path, errs);
    }
    if let Some(deadline) = spec.progress_deadline_seconds {
        let deadline_path = path.child("progressDeadlineSeconds");
        validate_nonnegative(i64::from(deadline), &deadline_path, errs);
        if deadline <= spec.min_ready_seconds {
            errs.push(FieldError::invalid(
                &deadline_path,
                render_int(i64::from(deadline)),
                "must be greater than minReadySeconds",
            ));
        }
    }
}

/// `ValidateRollback` on the revision the conversion reads from [`ROLLBACK_TO_ANNOTATION`]
/// (the internal `spec.rollbackTo.revision`, reported at upstream's path
/// `spec.rollback.version`). An empty annotation is ignored, as upstream's conversion does; one
/// that is not an integer never gets here ([`conversion_error`]).
fn validate_rollback(revision: &str, spec_path: &Path, errs: &mut Vec<FieldError>) {
    if let Ok(v) = revision.parse::<i64>() {
        validate_nonnegative(v, &spec_path.child("rollback").child("version"), errs);
    }
}

/// `Convert_v1_Deployment_To_apps_Deployment`: a legacy rollback annotation that is not a
/// base-10 int64 fails the conversion, so the API server answers 400 BadRequest before any
/// validation (`transformDecodeError`'s wording around the conversion's own).
fn conversion_error(d: &Deployment) -> Option<FieldError> {
    let revision = d.metadata.annotations.get(ROLLBACK_TO_ANNOTATION)?;
    let why = match revision.parse::<i64>() {
        Ok(_) => return None,
        Err(_) if revision.is_empty() => return None,
        Err(e) => match e.kind() {
            std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow => {
                "value out of range"
            }
            _ => "invalid syntax",
        },
    };
    Some(FieldError::new(
        &Path::root("metadata")
            .child("annotations")
            .key(ROLLBACK_TO_ANNOTATION),
        ErrorKind::Request,
        None,
        format!(
            "Deployment in version \"v1\" cannot be handled as a Deployment: failed to parse annotation[{ROLLBACK_TO_ANNOTATION}]={revision} as int64: strconv.ParseInt: parsing {}: {why}",
            go_quote(revision)
        ),
    ))
}

/// `ValidateLabelSelector` (strict: label values in expressions are checked too).
fn validate_label_selector(selector: &LabelSelector, path: &Path, errs: &mut Vec<FieldError>) {
    validate_labels(&selector.match_labels, &path.child("matchLabels"), errs);
    for (i, expr) in selector.match_expressions.iter().enumerate() {
        let p = path.child("matchExpressions").index(i);
        match &expr.operator {
            SelectorOperator::In | SelectorOperator::NotIn => {
                if expr.values.is_empty() {
                    errs.push(FieldError::required(
                        &p.child("values"),
                        "must be specified when `operator` is 'In' or 'NotIn'",
                    ));
                }
            }
            SelectorOperator::Exists | SelectorOperator::DoesNotExist => {
                if !expr.values.is_empty() {
                    errs.push(FieldError::forbidden(
                        &p.child("values"),
                        "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                    ));
                }
            }
            SelectorOperator::Other(op) => errs.push(FieldError::invalid(
                &p.child("operator"),
                go_json_str(op),
                "not a valid selector operator",
            )),
        }
        validate_label_name(&expr.key, &p.child("key"), errs);
        for (j, v) in expr.values.iter().enumerate() {
            for msg in is_valid_label_value(v) {
                errs.push(FieldError::invalid(
                    &p.child("values").index(j),
                    go_quote(v),
                    msg,
                ));
            }
        }
    }
}

/// `ValidatePodTemplateSpecForReplicaSet`.
fn validate_pod_template_spec_for_replica_set(
    template: &PodTemplateSpec,
    selector: &ParsedSelector<'_>,
    path: &Path,
    errs: &mut Vec<FieldError>,
) {
    let labels = &template.metadata.labels;
    let matches = match selector {
        ParsedSelector::Nothing => false,
        ParsedSelector::Everything => true,
        ParsedSelector::Some(s) => s.matches(labels),
    };
    if !matches {
        errs.push(FieldError::invalid(
            &path.child("metadata").child("labels"),
            render_labels(labels),
            "`selector` does not match template `labels`",
        ));
    }
    validate_pod_template_spec(template, path, errs);
    let spec_path = path.child("spec");
    let restart_policy = template.spec.restart_policy.as_deref().unwrap_or_default();
    if restart_policy != "Always" {
        errs.push(FieldError::not_supported(
            &spec_path.child("restartPolicy"),
            go_json_str(restart_policy),
            &["Always"],
        ));
    }
    if template.spec.active_deadline_seconds.is_some() {
        errs.push(FieldError::forbidden(
            &spec_path.child("activeDeadlineSeconds"),
            "activeDeadlineSeconds in ReplicaSet is not Supported",
        ));
    }
}

/// `ValidatePodTemplateSpec`. Note upstream's label path, `spec.template.labels` (no
/// `metadata`).
fn validate_pod_template_spec(template: &PodTemplateSpec, path: &Path, errs: &mut Vec<FieldError>) {
    validate_labels(&template.metadata.labels, &path.child("labels"), errs);
    validate_annotations(
        &template.metadata.annotations,
        &path.child("annotations"),
        errs,
    );
    // `ValidatePodSpecificAnnotations`: a deletion cost is a 32-bit integer.
    let annotations = &template.metadata.annotations;
    if crate::sim::api::meta::pod_deletion_cost(annotations).is_none() {
        let key = crate::sim::api::meta::POD_DELETION_COST_ANNOTATION;
        errs.push(FieldError::invalid(
            &path.child("annotations").key(key),
            go_quote(annotations.get(key).map(String::as_str).unwrap_or_default()),
            "must be a 32bit integer",
        ));
    }
    let spec_path = path.child("spec");
    validate_pod_spec(&template.spec, &spec_path, errs);
    let has_ephemeral = match template.spec.extra.get("ephemeralContainers") {
        None | Some(Value::Null) => false,
        Some(Value::Array(items)) => !items.is_empty(),
        Some(_) => true,
    };
    if has_ephemeral {
        errs.push(FieldError::forbidden(
            &spec_path.child("ephemeralContainers"),
            "ephemeral containers not allowed in pod template",
        ));
    }
}

/// The parts of `ValidatePodSpec` a simulator needs, in upstream's order.
fn validate_pod_spec(spec: &PodSpec, path: &Path, errs: &mut Vec<FieldError>) {
    let volumes = validate_volumes(spec.extra.get("volumes"), &path.child("volumes"), errs);
    validate_containers(&spec.containers, &volumes, &path.child("containers"), errs);
    validate_init_containers(
        &spec.init_containers,
        &spec.containers,
        &volumes,
        &path.child("initContainers"),
        errs,
    );
    let restart_path = path.child("restartPolicy");
    match spec.restart_policy.as_deref().unwrap_or_default() {
        "Always" | "OnFailure" | "Never" => {}
        "" => errs.push(FieldError::required(&restart_path, "")),
        other => errs.push(FieldError::not_supported(
            &restart_path,
            go_json_str(other),
            &["Always", "OnFailure", "Never"],
        )),
    }
    let dns_path = path.child("dnsPolicy");
    match spec.dns_policy.as_deref().unwrap_or_default() {
        "ClusterFirstWithHostNet" | "ClusterFirst" | "Default" | "None" => {}
        "" => errs.push(FieldError::required(&dns_path, "")),
        other => errs.push(FieldError::not_supported(
            &dns_path,
            go_json_str(other),
            &["ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"],
        )),
    }
    validate_labels(&spec.node_selector, &path.child("nodeSelector"), errs);
    validate_affinity(spec.extra.get("affinity"), &path.child("affinity"), errs);
    validate_topology_spread_constraints(
        spec.extra.get("topologySpreadConstraints"),
        &path.child("topologySpreadConstraints"),
        errs,
    );
    let text = |key: &str| {
        spec.extra
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    let service_account = text("serviceAccountName");
    if !service_account.is_empty() {
        for msg in is_dns1123_subdomain(service_account) {
            errs.push(FieldError::invalid(
                &path.child("serviceAccountName"),
                go_quote(service_account),
                msg,
            ));
        }
    }
    if !spec.node_name.is_empty() {
        for msg in is_dns1123_subdomain(&spec.node_name) {
            errs.push(FieldError::invalid(
                &path.child("nodeName"),
                go_quote(&spec.node_name),
                msg,
            ));
        }
    }
    if let Some(deadline) = spec.active_deadline_seconds
        && !(1..=i64::from(i32::MAX)).contains(&deadline)
    {
        errs.push(FieldError::invalid(
            &path.child("activeDeadlineSeconds"),
            render_int(deadline),
            inclusive_range_error(1, i64::from(i32::MAX)),
        ));
    }
    // `ValidateDNS1123Label` for the pod's hostname and subdomain.
    for key in ["hostname", "subdomain"] {
        let value = text(key);
        if !value.is_empty() {
            for msg in is_dns1123_label(value) {
                errs.push(FieldError::invalid(&path.child(key), go_quote(value), msg));
            }
        }
    }
    validate_tolerations(
        spec.extra.get("tolerations"),
        &path.child("tolerations"),
        errs,
    );
}

/// What is wrong with one taint, field by field (`validateNodeTaints`): a key that is a
/// qualified name, a value that is a label value, and an effect taints can have. The scenario
/// loader reports each at its path; the app's taint action refuses with the first.
pub fn taint_problems(taint: &crate::sim::api::Taint) -> Vec<(&'static str, String)> {
    use crate::sim::api::node::TAINT_EFFECTS;
    let mut problems = Vec::new();
    if taint.key.is_empty() {
        problems.push(("key", "Required value".to_string()));
    } else {
        for msg in is_qualified_name(&taint.key) {
            problems.push((
                "key",
                format!("Invalid value: {}: {msg}", go_quote(&taint.key)),
            ));
        }
    }
    for msg in is_valid_label_value(&taint.value) {
        problems.push((
            "value",
            format!("Invalid value: {}: {msg}", go_quote(&taint.value)),
        ));
    }
    if taint.effect.is_empty() {
        problems.push(("effect", "Required value".to_string()));
    } else if !TAINT_EFFECTS.contains(&taint.effect.as_str()) {
        let supported: Vec<String> = TAINT_EFFECTS.iter().map(|e| go_quote(e)).collect();
        problems.push((
            "effect",
            format!(
                "Unsupported value: {}: supported values: {}",
                go_json_str(&taint.effect),
                supported.join(", ")
            ),
        ));
    }
    problems
}

/// `ValidateTolerations`, each toleration in this order: a key that is a label name; an empty
/// key only with `Exists`; `tolerationSeconds` only with `NoExecute`; with `Equal` (or no
/// operator) a value that is a label value, with `Exists` no value, and no other operator
/// (`Lt` and `Gt` need the `TaintTolerationComparisonOperators` gate, alpha and off in v1.35);
/// an effect, when set, that taints can have.
fn validate_tolerations(tolerations: Option<&Value>, path: &Path, errs: &mut Vec<FieldError>) {
    for (p, t) in items(tolerations, path) {
        let (key, operator, value, effect) = (
            text_of(t, "key"),
            text_of(t, "operator"),
            text_of(t, "value"),
            text_of(t, "effect"),
        );
        let seconds = t.get("tolerationSeconds").filter(|v| !v.is_null());
        if !key.is_empty() {
            validate_label_name(key, &p.child("key"), errs);
        }
        if key.is_empty() && operator != "Exists" {
            errs.push(FieldError::invalid(
                &p.child("operator"),
                go_json_str(operator),
                "operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
            ));
        }
        if seconds.is_some() && effect != "NoExecute" {
            errs.push(FieldError::invalid(
                &p.child("effect"),
                go_json_str(effect),
                "effect must be 'NoExecute' when `tolerationSeconds` is set",
            ));
        }
        match operator {
            "" | "Equal" => {
                let msgs = is_valid_label_value(value);
                if !msgs.is_empty() {
                    errs.push(FieldError::invalid(
                        &p.child("operator"),
                        go_quote(value),
                        msgs.join(";"),
                    ));
                }
            }
            "Exists" => {
                if !value.is_empty() {
                    // The whole toleration is the value, as the internal type renders it.
                    let rendered = format!(
                        "{{\"Key\":{},\"Operator\":{},\"Value\":{},\"Effect\":{},\"TolerationSeconds\":{}}}",
                        go_quote(key),
                        go_quote(operator),
                        go_quote(value),
                        go_quote(effect),
                        seconds
                            .and_then(Value::as_i64)
                            .map_or("null".to_string(), |s| s.to_string())
                    );
                    errs.push(FieldError::invalid(
                        &p.child("operator"),
                        rendered,
                        "value must be empty when `operator` is 'Exists'",
                    ));
                }
            }
            other => errs.push(FieldError::not_supported(
                &p.child("operator"),
                go_json_str(other),
                &["Equal", "Exists"],
            )),
        }
        if !effect.is_empty() && !crate::sim::api::node::TAINT_EFFECTS.contains(&effect) {
            errs.push(FieldError::not_supported(
                &p.child("effect"),
                go_json_str(effect),
                &crate::sim::api::node::TAINT_EFFECTS,
            ));
        }
    }
}

/// `validateContainers`: each container's common checks, names unique among the regular
/// containers, then its probes.
fn validate_containers(
    containers: &[Container],
    volumes: &BTreeSet<&str>,
    path: &Path,
    errs: &mut Vec<FieldError>,
) {
    if containers.is_empty() {
        errs.push(FieldError::required(path, ""));
        return;
    }
    let mut names = BTreeSet::new();
    for (i, c) in containers.iter().enumerate() {
        let p = path.index(i);
        validate_container_common(c, volumes, &p, errs);
        if !names.insert(c.name.as_str()) {
            errs.push(FieldError::duplicate(&p.child("name"), go_quote(&c.name)));
        }
        validate_container_probes(c, &p, errs);
    }
    // `checkHostPortConflicts`: a host port (with its protocol and host IP) only once across
    // the containers.
    let mut host_ports = BTreeSet::new();
    for (i, c) in containers.iter().enumerate() {
        for (j, port) in c.ports.iter().enumerate() {
            let Some(host_port) = port.host_port.filter(|p| *p != 0) else {
                continue;
            };
            let key = format!(
                "{}/{}/{host_port}",
                port.protocol.as_deref().unwrap_or("TCP"),
                port.host_ip.as_deref().unwrap_or_default()
            );
            if !host_ports.insert(key.clone()) {
                errs.push(FieldError::duplicate(
                    &path.index(i).child("ports").index(j).child("hostPort"),
                    go_quote(&key),
                ));
            }
        }
    }
}

/// `validateInitContainers`: the common checks; a container `restartPolicy` of `Always` only
/// (a sidecar); names unique among init and regular containers together; and probes only on
/// sidecars, since an ordinary init container runs to completion before anything would probe
/// it.
fn validate_init_containers(
    inits: &[Container],
    regular: &[Container],
    volumes: &BTreeSet<&str>,
    path: &Path,
    errs: &mut Vec<FieldError>,
) {
    let mut names: BTreeSet<&str> = regular.iter().map(|c| c.name.as_str()).collect();
    for (i, c) in inits.iter().enumerate() {
        let p = path.index(i);
        validate_container_common(c, volumes, &p, errs);
        match c.extra.get("restartPolicy") {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if s == "Always" => {}
            Some(other) => errs.push(FieldError::not_supported(
                &p.child("restartPolicy"),
                render_value(other),
                &["Always"],
            )),
        }
        let name_path = p.child("name");
        if names.contains(c.name.as_str()) {
            errs.push(FieldError::duplicate(&name_path, go_quote(&c.name)));
        } else if !c.name.is_empty() {
            names.insert(c.name.as_str());
        }
        if c.is_restartable() {
            validate_container_probes(c, &p, errs);
            continue;
        }
        for (field, set) in [
            (
                "lifecycle",
                c.extra.get("lifecycle").is_some_and(|v| !v.is_null()),
            ),
            ("livenessProbe", c.liveness_probe.is_some()),
            ("readinessProbe", c.readiness_probe.is_some()),
            ("startupProbe", c.startup_probe.is_some()),
        ] {
            if set {
                errs.push(FieldError::forbidden(
                    &p.child(field),
                    "may not be set for init containers without restartPolicy=Always",
                ));
            }
        }
    }
}

/// The parts of `validateContainerCommon` that apply, in its order: the name, the image, the
/// termination message policy, the ports, the environment, the volume mounts, the pull policy
/// and the resources.
fn validate_container_common(
    c: &Container,
    volumes: &BTreeSet<&str>,
    p: &Path,
    errs: &mut Vec<FieldError>,
) {
    let name_path = p.child("name");
    if c.name.is_empty() {
        errs.push(FieldError::required(&name_path, ""));
    } else {
        for msg in is_dns1123_label(&c.name) {
            errs.push(FieldError::invalid(&name_path, go_quote(&c.name), msg));
        }
    }
    if c.image.is_empty() {
        errs.push(FieldError::required(&p.child("image"), ""));
    }
    // An empty policy is defaulted to File before validation, so only another word is refused.
    if let Some(policy) = c
        .extra
        .get("terminationMessagePolicy")
        .and_then(Value::as_str)
        && !matches!(policy, "" | "File" | "FallbackToLogsOnError")
    {
        errs.push(FieldError::not_supported(
            &p.child("terminationMessagePolicy"),
            go_json_str(policy),
            &["File", "FallbackToLogsOnError"],
        ));
    }
    validate_container_ports(c, &p.child("ports"), errs);
    validate_env(c.extra.get("env"), &p.child("env"), errs);
    validate_env_from(c.extra.get("envFrom"), &p.child("envFrom"), errs);
    validate_volume_mounts(
        c.extra.get("volumeMounts"),
        volumes,
        &p.child("volumeMounts"),
        errs,
    );
    let policy_path = p.child("imagePullPolicy");
    match &c.image_pull_policy {
        None => errs.push(FieldError::required(&policy_path, "")),
        Some(PullPolicy::Other(s)) if s.is_empty() => {
            errs.push(FieldError::required(&policy_path, ""));
        }
        Some(PullPolicy::Other(s)) => errs.push(FieldError::not_supported(
            &policy_path,
            go_json_str(s),
            &["Always", "IfNotPresent", "Never"],
        )),
        Some(_) => {}
    }
    validate_resources(&c.resources, &p.child("resources"), errs);
}

/// The liveness, readiness and startup probe checks, for regular containers and sidecars.
fn validate_container_probes(c: &Container, p: &Path, errs: &mut Vec<FieldError>) {
    if let Some(probe) = &c.liveness_probe {
        validate_probe(probe, &p.child("livenessProbe"), errs);
        validate_success_threshold_is_one(probe, &p.child("livenessProbe"), errs);
    }
    if let Some(probe) = &c.readiness_probe {
        let rp = p.child("readinessProbe");
        validate_probe(probe, &rp, errs);
        if let Some(t) = probe.termination_grace_period_seconds {
            errs.push(FieldError::invalid(
                &rp.child("terminationGracePeriodSeconds"),
                render_int(t),
                "must not be set for readinessProbes",
            ));
        }
    }
    if let Some(probe) = &c.startup_probe {
        validate_probe(probe, &p.child("startupProbe"), errs);
        validate_success_threshold_is_one(probe, &p.child("startupProbe"), errs);
    }
}

/// `validateContainerPorts` (names unique and well formed, port numbers in range, protocol one
/// of the supported ones when set).
fn validate_container_ports(c: &Container, path: &Path, errs: &mut Vec<FieldError>) {
    let mut names = BTreeSet::new();
    for (i, port) in c.ports.iter().enumerate() {
        let p = path.index(i);
        if let Some(name) = port.name.as_deref().filter(|n| !n.is_empty()) {
            let msgs = is_valid_port_name(name);
            if !msgs.is_empty() {
                for msg in msgs {
                    errs.push(FieldError::invalid(&p.child("name"), go_quote(name), msg));
                }
            } else if !names.insert(name) {
                errs.push(FieldError::duplicate(&p.child("name"), go_quote(name)));
            }
        }
        if port.container_port == 0 {
            errs.push(FieldError::required(&p.child("containerPort"), ""));
        } else {
            for msg in is_valid_port_num(i64::from(port.container_port)) {
                errs.push(FieldError::invalid(
                    &p.child("containerPort"),
                    render_int(i64::from(port.container_port)),
                    msg,
                ));
            }
        }
        if let Some(host_port) = port.host_port.filter(|p| *p != 0) {
            for msg in is_valid_port_num(i64::from(host_port)) {
                errs.push(FieldError::invalid(
                    &p.child("hostPort"),
                    render_int(i64::from(host_port)),
                    msg,
                ));
            }
        }
        if let Some(protocol) = &port.protocol
            && !matches!(protocol.as_str(), "SCTP" | "TCP" | "UDP")
        {
            errs.push(FieldError::not_supported(
                &p.child("protocol"),
                go_json_str(protocol),
                &["SCTP", "TCP", "UDP"],
            ));
        }
    }
}

/// The items of a list field the strict decoder has already checked (a list of mappings), each
/// with its path.
fn items<'v>(
    list: Option<&'v Value>,
    path: &Path,
) -> impl Iterator<Item = (Path, &'v Map<String, Value>)> {
    list.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .filter_map(move |(i, v)| Some((path.index(i), v.as_object()?)))
}

/// A string field of a decoded item, `""` when it is absent.
fn text_of<'v>(item: &'v Map<String, Value>, key: &str) -> &'v str {
    item.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// `validateAffinity` for the terms the scheduler reads (`controller::scheduler`), so that one
/// it could not read is refused, as the API server refuses it: the node affinity, required
/// ([`validate_required_node_selector`]) then preferred, then the pod affinity and
/// anti-affinity, each required then preferred.
fn validate_affinity(affinity: Option<&Value>, path: &Path, errs: &mut Vec<FieldError>) {
    validate_required_node_selector(affinity, path, errs);
    validate_preferred_scheduling_terms(affinity, path, errs);
    // `validatePodAffinityTerms`, then `validateWeightedPodAffinityTerms`, for each kind.
    for kind in ["podAffinity", "podAntiAffinity"] {
        let terms = affinity
            .and_then(|a| a.get(kind))
            .and_then(|a| a.get("requiredDuringSchedulingIgnoredDuringExecution"));
        let terms_path = path
            .child(kind)
            .child("requiredDuringSchedulingIgnoredDuringExecution");
        for (p, term) in items(terms, &terms_path) {
            validate_pod_affinity_term(term, &p, errs);
        }
        // `validateWeightedPodAffinityTerms`: a weight in 1–100, then the term.
        let preferred_path = path
            .child(kind)
            .child("preferredDuringSchedulingIgnoredDuringExecution");
        let preferred = affinity
            .and_then(|a| a.get(kind))
            .and_then(|a| a.get("preferredDuringSchedulingIgnoredDuringExecution"));
        for (p, weighted) in items(preferred, &preferred_path) {
            validate_preference_weight(weighted, &p, errs);
            if let Some(term) = weighted.get("podAffinityTerm").and_then(Value::as_object) {
                validate_pod_affinity_term(term, &p.child("podAffinityTerm"), errs);
            }
        }
    }
}

/// A preferred term's `weight`, which must be in 1–100 for node and pod affinity alike.
fn validate_preference_weight(term: &Map<String, Value>, p: &Path, errs: &mut Vec<FieldError>) {
    let weight = term.get("weight").and_then(Value::as_i64).unwrap_or(0);
    if !(1..=100).contains(&weight) {
        errs.push(FieldError::invalid(
            &p.child("weight"),
            render_int(weight),
            "must be in the range 1-100",
        ));
    }
}

/// `validatePodAffinityTerm`: both label selectors, the namespace names, the `matchLabelKeys`
/// and `mismatchLabelKeys` lists, and a topology key that is a label name and set.
fn validate_pod_affinity_term(term: &Map<String, Value>, p: &Path, errs: &mut Vec<FieldError>) {
    // `ValidatePodAffinityTermSelector`: both selectors.
    let selector_of = |field: &str| {
        term.get(field)
            .filter(|s| !s.is_null())
            .and_then(|s| serde_json::from_value::<LabelSelector>(s.clone()).ok())
    };
    let label_selector = selector_of("labelSelector");
    if let Some(selector) = &label_selector {
        validate_label_selector(selector, &p.child("labelSelector"), errs);
    }
    if let Some(selector) = selector_of("namespaceSelector") {
        validate_label_selector(&selector, &p.child("namespaceSelector"), errs);
    }
    // Each namespace name, reported at `namespace` (upstream's path, singular).
    for name in term
        .get("namespaces")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        for msg in is_dns1123_label(name) {
            errs.push(FieldError::invalid(
                &p.child("namespace"),
                go_quote(name),
                msg,
            ));
        }
    }
    // `validateMatchLabelKeysAndMismatchLabelKeys` on a template, whose selector the API
    // server has not merged the keys into: both lists only beside a labelSelector and made of
    // label names, and no key in both.
    let keys_of = |field: &str| -> Vec<&str> {
        term.get(field)
            .and_then(Value::as_array)
            .map(|ks| ks.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    };
    let (match_keys, mismatch_keys) = (keys_of("matchLabelKeys"), keys_of("mismatchLabelKeys"));
    for (field, keys) in [
        ("matchLabelKeys", &match_keys),
        ("mismatchLabelKeys", &mismatch_keys),
    ] {
        if keys.is_empty() {
            continue;
        }
        let keys_path = p.child(field);
        if label_selector.is_none() {
            errs.push(FieldError::forbidden(
                &keys_path,
                "must not be specified when labelSelector is not set",
            ));
            continue;
        }
        for (i, key) in keys.iter().enumerate() {
            validate_label_name(key, &keys_path.index(i), errs);
        }
    }
    for (i, key) in match_keys.iter().enumerate() {
        if mismatch_keys.contains(key) {
            errs.push(FieldError::invalid(
                &p.child("matchLabelKeys").index(i),
                go_quote(key),
                "exists in both matchLabelKeys and mismatchLabelKeys",
            ));
        }
    }
    let key = text_of(term, "topologyKey");
    let key_path = p.child("topologyKey");
    if key.is_empty() {
        errs.push(FieldError::required(&key_path, "can not be empty"));
    }
    validate_label_name(key, &key_path, errs);
}

/// `validateTopologySpreadConstraints`, each constraint in this order: `maxSkew` positive, a
/// `topologyKey`, a known `whenUnsatisfiable`, no later constraint with the same key and
/// action (reported at the first of the two), `minDomains` positive and only with
/// `DoNotSchedule`, known node inclusion policies, `matchLabelKeys` only beside a
/// `labelSelector`, each a label name not already in it; then the label selector.
fn validate_topology_spread_constraints(
    constraints: Option<&Value>,
    path: &Path,
    errs: &mut Vec<FieldError>,
) {
    const NOT_POSITIVE: &str = "must be greater than zero";
    let all: Vec<(Path, &Map<String, Value>)> = items(constraints, path).collect();
    for (i, (p, c)) in all.iter().enumerate() {
        let max_skew = c.get("maxSkew").and_then(Value::as_i64).unwrap_or(0);
        if max_skew <= 0 {
            errs.push(FieldError::invalid(
                &p.child("maxSkew"),
                render_int(max_skew),
                NOT_POSITIVE,
            ));
        }
        let key = text_of(c, "topologyKey");
        if key.is_empty() {
            errs.push(FieldError::required(
                &p.child("topologyKey"),
                "can not be empty",
            ));
        }
        let when = text_of(c, "whenUnsatisfiable");
        if !["DoNotSchedule", "ScheduleAnyway"].contains(&when) {
            errs.push(FieldError::not_supported(
                &p.child("whenUnsatisfiable"),
                go_json_str(when),
                &["DoNotSchedule", "ScheduleAnyway"],
            ));
        }
        if all[i + 1..].iter().any(|(_, other)| {
            text_of(other, "topologyKey") == key && text_of(other, "whenUnsatisfiable") == when
        }) {
            errs.push(FieldError::duplicate(
                &p.child("{topologyKey, whenUnsatisfiable}"),
                go_quote(&format!("{{{key}, {when}}}")),
            ));
        }
        if let Some(min_domains) = c.get("minDomains").and_then(Value::as_i64) {
            let min_path = p.child("minDomains");
            if min_domains <= 0 {
                errs.push(FieldError::invalid(
                    &min_path,
                    render_int(min_domains),
                    NOT_POSITIVE,
                ));
            }
            if when != "DoNotSchedule" {
                errs.push(FieldError::invalid(
                    &min_path,
                    render_int(min_domains),
                    format!(
                        "can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {when}"
                    ),
                ));
            }
        }
        for policy in ["nodeAffinityPolicy", "nodeTaintsPolicy"] {
            if let Some(value) = c.get(policy).and_then(Value::as_str)
                && !["Honor", "Ignore"].contains(&value)
            {
                errs.push(FieldError::not_supported(
                    &p.child(policy),
                    go_json_str(value),
                    &["Honor", "Ignore"],
                ));
            }
        }
        let selector = c
            .get("labelSelector")
            .filter(|s| !s.is_null())
            .and_then(|s| serde_json::from_value::<LabelSelector>(s.clone()).ok());
        let keys_path = p.child("matchLabelKeys");
        let keys: Vec<&str> = c
            .get("matchLabelKeys")
            .and_then(Value::as_array)
            .map(|ks| ks.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if !keys.is_empty() && selector.is_none() {
            errs.push(FieldError::forbidden(
                &keys_path,
                "must not be specified when labelSelector is not set",
            ));
        }
        for (j, k) in keys.iter().enumerate() {
            validate_label_name(k, &keys_path.index(j), errs);
            if selector.as_ref().is_some_and(|s| {
                s.match_labels.contains_key(*k) || s.match_expressions.iter().any(|e| e.key == *k)
            }) {
                errs.push(FieldError::invalid(
                    &keys_path.index(j),
                    go_quote(k),
                    "exists in both matchLabelKeys and labelSelector",
                ));
            }
        }
        if let Some(selector) = &selector {
            validate_label_selector(selector, &p.child("labelSelector"), errs);
        }
    }
}

/// Checks each of a requirement's `values` with `check`, reporting at `values[j]`.
fn validate_each_value(
    req: &Map<String, Value>,
    path: &Path,
    check: fn(&str) -> Vec<String>,
    errs: &mut Vec<FieldError>,
) {
    let values = req.get("values").and_then(Value::as_array);
    for (j, value) in values.into_iter().flatten().enumerate() {
        let value = value.as_str().unwrap_or_default();
        for msg in check(value) {
            errs.push(FieldError::invalid(&path.index(j), go_quote(value), msg));
        }
    }
}

/// `validateNodeAffinity`'s required part (`ValidateNodeSelector`): at least one node selector
/// term; in each, every `matchExpressions` requirement with a label key, the values its
/// operator needs and label values (`ValidateNodeSelectorRequirement`), and every
/// `matchFields` requirement on `metadata.name` with `In` or `NotIn` and one node name
/// (`ValidateNodeFieldSelectorRequirement`).
fn validate_required_node_selector(
    affinity: Option<&Value>,
    path: &Path,
    errs: &mut Vec<FieldError>,
) {
    let Some(required) = affinity
        .and_then(|a| a.get("nodeAffinity"))
        .and_then(|a| a.get("requiredDuringSchedulingIgnoredDuringExecution"))
        .filter(|r| !r.is_null())
    else {
        return;
    };
    let path = path
        .child("nodeAffinity")
        .child("requiredDuringSchedulingIgnoredDuringExecution");
    let terms_path = path.child("nodeSelectorTerms");
    let terms = required
        .get("nodeSelectorTerms")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    if terms.is_empty() {
        errs.push(FieldError::required(
            &terms_path,
            "must have at least one node selector term",
        ));
        return;
    }
    for (t, term) in terms.iter().enumerate() {
        validate_node_selector_term(term, &terms_path.index(t), errs);
    }
}

/// `validatePreferredSchedulingTerms`, the second half of `validateNodeAffinity`: each
/// preferred term's weight in 1–100, then its preference as a node selector term.
fn validate_preferred_scheduling_terms(
    affinity: Option<&Value>,
    path: &Path,
    errs: &mut Vec<FieldError>,
) {
    let terms = affinity
        .and_then(|a| a.get("nodeAffinity"))
        .and_then(|a| a.get("preferredDuringSchedulingIgnoredDuringExecution"));
    let terms_path = path
        .child("nodeAffinity")
        .child("preferredDuringSchedulingIgnoredDuringExecution");
    for (p, term) in items(terms, &terms_path) {
        validate_preference_weight(term, &p, errs);
        let preference = term.get("preference").cloned().unwrap_or(Value::Null);
        validate_node_selector_term(&preference, &p.child("preference"), errs);
    }
}

/// `ValidateNodeSelectorTerm`: each `matchExpressions` requirement with a label key, the values
/// its operator needs and label values (`ValidateNodeSelectorRequirement`), and each
/// `matchFields` requirement on `metadata.name` with `In` or `NotIn` and one node name
/// (`ValidateNodeFieldSelectorRequirement`).
fn validate_node_selector_term(term: &Value, term_path: &Path, errs: &mut Vec<FieldError>) {
    for (p, req) in items(
        term.get("matchExpressions"),
        &term_path.child("matchExpressions"),
    ) {
        let operator = text_of(req, "operator");
        let values = req
            .get("values")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        let values_path = p.child("values");
        match operator {
            "In" | "NotIn" if values == 0 => errs.push(FieldError::required(
                &values_path,
                "must be specified when `operator` is 'In' or 'NotIn'",
            )),
            "Exists" | "DoesNotExist" if values > 0 => errs.push(FieldError::forbidden(
                &values_path,
                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            )),
            "Gt" | "Lt" if values != 1 => errs.push(FieldError::required(
                &values_path,
                "must be specified single value when `operator` is 'Lt' or 'Gt'",
            )),
            "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt" => {}
            other => errs.push(FieldError::invalid(
                &p.child("operator"),
                go_json_str(other),
                "not a valid selector operator",
            )),
        }
        validate_label_name(text_of(req, "key"), &p.child("key"), errs);
        // Each value is a label value (checked since v1.33).
        validate_each_value(req, &values_path, is_valid_label_value, errs);
    }
    for (p, req) in items(term.get("matchFields"), &term_path.child("matchFields")) {
        let operator = text_of(req, "operator");
        match operator {
            "In" | "NotIn" => {
                if req
                    .get("values")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len)
                    != 1
                {
                    errs.push(FieldError::required(
                        &p.child("values"),
                        "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
                    ));
                }
            }
            other => errs.push(FieldError::invalid(
                &p.child("operator"),
                go_json_str(other),
                "not a valid selector operator",
            )),
        }
        let key = text_of(req, "key");
        if key != "metadata.name" {
            errs.push(FieldError::invalid(
                &p.child("key"),
                go_quote(key),
                "not a valid field selector key",
            ));
        } else {
            // A node name (`ValidateNodeName`).
            validate_each_value(req, &p.child("values"), is_dns1123_subdomain, errs);
        }
    }
}

/// Whether a volume has nothing but its name: no volume source is set.
fn names_no_source(volume: &serde_json::Map<String, Value>) -> bool {
    !volume.iter().any(|(k, v)| k != "name" && !v.is_null())
}

/// `ValidateVolumes`: each volume has a source (`must specify a volume type`), a name that is
/// set, a DNS-1123 label and unique. Returns the names of the volumes without errors, which
/// are the ones the containers' volume mounts may name (upstream leaves the others out).
fn validate_volumes<'v>(
    volumes: Option<&'v Value>,
    path: &Path,
    errs: &mut Vec<FieldError>,
) -> BTreeSet<&'v str> {
    let mut names = BTreeSet::new();
    for (p, volume) in items(volumes, path) {
        let name = text_of(volume, "name");
        let name_path = p.child("name");
        let mut own = Vec::new();
        // `validateVolumeSource` comes first; a second source is a decoding matter here.
        if names_no_source(volume) {
            own.push(FieldError::required(&p, "must specify a volume type"));
        }
        if name.is_empty() {
            own.push(FieldError::required(&name_path, ""));
        } else {
            for msg in is_dns1123_label(name) {
                own.push(FieldError::invalid(&name_path, go_quote(name), msg));
            }
        }
        if names.contains(name) {
            own.push(FieldError::duplicate(&name_path, go_quote(name)));
        }
        if own.is_empty() {
            names.insert(name);
        }
        errs.append(&mut own);
    }
    names
}

/// `ValidateEnv` with the relaxed names of v1.34 on (`RelaxedEnvironmentVariableValidation`,
/// GA): a name is set and printable ASCII other than `=`; and `validateEnvVarValueFrom`'s rule
/// that `valueFrom` and a non-empty `value` exclude each other.
fn validate_env(env: Option<&Value>, path: &Path, errs: &mut Vec<FieldError>) {
    for (p, var) in items(env, path) {
        let name = text_of(var, "name");
        if name.is_empty() {
            errs.push(FieldError::required(&p.child("name"), ""));
        } else {
            validate_env_var_name(name, &p.child("name"), errs);
        }
        // `validateEnvVarValueFrom`: each source's own rules (the key selectors' names and
        // keys), then exactly one source, and no `value` beside it.
        if let Some(from) = var.get("valueFrom").and_then(Value::as_object) {
            for source in ["configMapKeyRef", "secretKeyRef"] {
                if let Some(selector) = from.get(source).and_then(Value::as_object) {
                    validate_key_selector(selector, &p.child("valueFrom").child(source), errs);
                }
            }
            let sources = from.values().filter(|v| !v.is_null()).count();
            let detail = if sources == 0 {
                Some(
                    "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`",
                )
            } else if !text_of(var, "value").is_empty() {
                Some("may not be specified when `value` is not empty")
            } else if sources > 1 {
                Some("may not have more than one field specified at a time")
            } else {
                None
            };
            if let Some(detail) = detail {
                errs.push(FieldError::invalid(
                    &p.child("valueFrom"),
                    go_quote(""),
                    detail,
                ));
            }
        }
    }
}

/// The relaxed environment variable name rule (`IsRelaxedEnvVarName`): printable ASCII other
/// than `=`, for a variable's name and for an `envFrom` prefix.
fn validate_env_var_name(name: &str, path: &Path, errs: &mut Vec<FieldError>) {
    if name.chars().any(|c| !(' '..='~').contains(&c) || c == '=') {
        errs.push(FieldError::invalid(
            path,
            go_quote(name),
            "a valid environment variable name must consist only of printable ASCII characters other than '='",
        ));
    }
}

/// `validateConfigMapKeySelector` / `validateSecretKeySelector`: the object's name is a DNS
/// subdomain (an empty one too is invalid, not missing), and the key is set and a valid key.
fn validate_key_selector(selector: &Map<String, Value>, path: &Path, errs: &mut Vec<FieldError>) {
    let name = text_of(selector, "name");
    for msg in is_dns1123_subdomain(name) {
        errs.push(FieldError::invalid(
            &path.child("name"),
            go_quote(name),
            msg,
        ));
    }
    let key = text_of(selector, "key");
    if key.is_empty() {
        errs.push(FieldError::required(&path.child("key"), ""));
    } else {
        for msg in is_config_map_key(key) {
            errs.push(FieldError::invalid(&path.child("key"), go_quote(key), msg));
        }
    }
}

/// `ValidateEnvFrom`: a prefix is a valid variable name; each entry names one ConfigMap or
/// Secret (set, and a DNS subdomain). The one-source errors are at the list's path, without
/// the entry's index, as upstream reports them.
fn validate_env_from(env_from: Option<&Value>, path: &Path, errs: &mut Vec<FieldError>) {
    for (p, source) in items(env_from, path) {
        let prefix = text_of(source, "prefix");
        if !prefix.is_empty() {
            validate_env_var_name(prefix, &p.child("prefix"), errs);
        }
        let mut sources = 0;
        for kind in ["configMapRef", "secretRef"] {
            let Some(reference) = source.get(kind).and_then(Value::as_object) else {
                continue;
            };
            sources += 1;
            let name_path = p.child(kind).child("name");
            let name = text_of(reference, "name");
            if name.is_empty() {
                errs.push(FieldError::required(&name_path, ""));
            } else {
                for msg in is_dns1123_subdomain(name) {
                    errs.push(FieldError::invalid(&name_path, go_quote(name), msg));
                }
            }
        }
        match sources {
            0 => errs.push(FieldError::invalid(
                path,
                go_quote(""),
                "must specify one of: `configMapRef` or `secretRef`",
            )),
            1 => {}
            _ => errs.push(FieldError::forbidden(
                path,
                "may not have more than one field specified at a time",
            )),
        }
    }
}

/// `ValidateVolumeMounts`: each mount names a volume of the pod and a path, and no two mount
/// at the same path.
fn validate_volume_mounts(
    mounts: Option<&Value>,
    volumes: &BTreeSet<&str>,
    path: &Path,
    errs: &mut Vec<FieldError>,
) {
    let mut paths = BTreeSet::new();
    for (p, mount) in items(mounts, path) {
        let name = text_of(mount, "name");
        if name.is_empty() {
            errs.push(FieldError::required(&p.child("name"), ""));
        }
        if !volumes.contains(name) {
            errs.push(FieldError::not_found(&p.child("name"), go_quote(name)));
        }
        let mount_path = text_of(mount, "mountPath");
        if mount_path.is_empty() {
            errs.push(FieldError::required(&p.child("mountPath"), ""));
        }
        if !paths.insert(mount_path) {
            errs.push(FieldError::invalid(
                &p.child("mountPath"),
                go_quote(mount_path),
                "must be unique",
            ));
        }
    }
}

/// `validateProbe`: exactly one handler, and non-negative timings.
fn validate_probe(probe: &Probe, path: &Path, errs: &mut Vec<FieldError>) {
    validate_handler(probe, path, errs);
    for (name, value) in [
        ("initialDelaySeconds", probe.initial_delay_seconds),
        ("timeoutSeconds", probe.timeout_seconds),
        ("periodSeconds", probe.period_seconds),
        ("successThreshold", probe.success_threshold),
        ("failureThreshold", probe.failure_threshold),
    ] {
        validate_nonnegative(i64::from(value.unwrap_or(0)), &path.child(name), errs);
    }
    if let Some(t) = probe.termination_grace_period_seconds
        && t <= 0
    {
        errs.push(FieldError::invalid(
            &path.child("terminationGracePeriodSeconds"),
            render_int(t),
            "must be greater than 0",
        ));
    }
}

/// The liveness and startup rule `successThreshold` must be 1.
fn validate_success_threshold_is_one(probe: &Probe, path: &Path, errs: &mut Vec<FieldError>) {
    let threshold = probe.success_threshold.unwrap_or(0);
    if threshold != 1 {
        errs.push(FieldError::invalid(
            &path.child("successThreshold"),
            render_int(i64::from(threshold)),
            "must be 1",
        ));
    }
}

/// `validateHandler`: handlers are considered in upstream's order (exec, httpGet, tcpSocket,
/// grpc); the first is validated, every later one is forbidden.
fn validate_handler(probe: &Probe, path: &Path, errs: &mut Vec<FieldError>) {
    let mut n_handlers = 0;
    let mut take = |name: &str, errs: &mut Vec<FieldError>| {
        n_handlers += 1;
        if n_handlers > 1 {
            errs.push(FieldError::forbidden(&path.child(name), MULTIPLE_HANDLERS));
            false
        } else {
            true
        }
    };
    if let Some(exec) = &probe.exec
        && take("exec", errs)
        && exec.command.is_empty()
    {
        errs.push(FieldError::required(
            &path.child("exec").child("command"),
            "",
        ));
    }
    if let Some(http) = &probe.http_get
        && take("httpGet", errs)
    {
        validate_http_get(http, &path.child("httpGet"), errs);
    }
    if let Some(tcp) = &probe.tcp_socket
        && take("tcpSocket", errs)
    {
        validate_port_num_or_name(&tcp.port, &path.child("tcpSocket").child("port"), errs);
    }
    if let Some(grpc) = &probe.grpc
        && take("grpc", errs)
    {
        for msg in is_valid_port_num(i64::from(grpc.port)) {
            errs.push(FieldError::invalid(
                &path.child("grpc").child("port"),
                render_int(i64::from(grpc.port)),
                msg,
            ));
        }
    }
    if n_handlers == 0 {
        errs.push(FieldError::required(path, "must specify a handler type"));
    }
}

/// `validateHTTPGetAction`.
fn validate_http_get(http: &HttpGetAction, path: &Path, errs: &mut Vec<FieldError>) {
    if http.path.as_deref().is_none_or(str::is_empty) {
        errs.push(FieldError::required(&path.child("path"), ""));
    }
    validate_port_num_or_name(&http.port, &path.child("port"), errs);
    let scheme = http.scheme.as_deref().unwrap_or_default();
    if !matches!(scheme, "HTTP" | "HTTPS") {
        errs.push(FieldError::not_supported(
            &path.child("scheme"),
            go_json_str(scheme),
            &["HTTP", "HTTPS"],
        ));
    }
    // `IsHTTPHeaderName` for each header, reported at the list's path without an index.
    let headers = http.http_headers.as_ref().and_then(Value::as_array);
    for header in headers.into_iter().flatten() {
        let name = header
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let valid =
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
        if !valid {
            errs.push(FieldError::invalid(
                &path.child("httpHeaders"),
                go_quote(name),
                regex_error(
                    "a valid HTTP header must consist of alphanumeric characters or '-'",
                    "[-A-Za-z0-9]+",
                    &["X-Header-Name"],
                ),
            ));
        }
    }
}

/// `ValidatePortNumOrName`.
fn validate_port_num_or_name(port: &IntOrString, path: &Path, errs: &mut Vec<FieldError>) {
    match port {
        IntOrString::Int(n) => {
            for msg in is_valid_port_num(i64::from(*n)) {
                errs.push(FieldError::invalid(path, render_int(i64::from(*n)), msg));
            }
        }
        IntOrString::String(name) => {
            for msg in is_valid_port_name(name) {
                errs.push(FieldError::invalid(path, go_quote(name), msg));
            }
        }
    }
}

/// `ValidateResourceRequirements`: resource names, quantities (well formed, non-negative, whole
/// for extended resources), requests ≤ limits (equal for resources that cannot be
/// overcommitted). Limits are checked before requests, each in name order.
///
/// Quantities were made canonical while decoding, so errors print them as upstream does
/// (`1000m` as `1`).
fn validate_resources(r: &ResourceRequirements, path: &Path, errs: &mut Vec<FieldError>) {
    let limits_path = path.child("limits");
    let requests_path = path.child("requests");
    for (name, quantity) in &r.limits {
        let p = limits_path.key(name);
        validate_container_resource_name(name, &p, errs);
        validate_quantity(name, quantity, &p, errs);
        validate_huge_page_value(name, quantity, &p, errs);
    }
    for (name, quantity) in &r.requests {
        let p = requests_path.key(name);
        validate_container_resource_name(name, &p, errs);
        validate_quantity(name, quantity, &p, errs);
        validate_requests_against_limits(r, name, quantity, &requests_path, &limits_path, errs);
        validate_huge_page_value(name, quantity, &p, errs);
    }
    // Huge pages come with cpu or memory, in either list.
    let names = || r.limits.keys().chain(r.requests.keys());
    if names().any(|n| is_huge_page_resource_name(n))
        && !names().any(|n| n == "cpu" || n == "memory")
    {
        errs.push(FieldError::forbidden(
            path,
            "HugePages require cpu or memory",
        ));
    }
}

/// The prefix of the huge-page resources, followed by the page size: `hugepages-2Mi`.
const HUGE_PAGES_PREFIX: &str = "hugepages-";

/// `IsHugePageResourceName`.
fn is_huge_page_resource_name(name: &str) -> bool {
    name.starts_with(HUGE_PAGES_PREFIX)
}

/// `validateResourceQuantityHugePageValue`: a huge-page quantity is a whole number of pages of
/// the size its name gives (`hugepages-2Mi`: a multiple of 2Mi).
fn validate_huge_page_value(name: &str, quantity: &Value, path: &Path, errs: &mut Vec<FieldError>) {
    let Some(size) = name.strip_prefix(HUGE_PAGES_PREFIX) else {
        return;
    };
    let Some(text) = quantity_text(quantity) else {
        return;
    };
    let Some(milli) = parse_milli(&text) else {
        return;
    };
    // `IsHugePageResourceValueDivisible`: the value rounds up to a whole number first.
    let value = milli.div_euclid(1000) + i64::from(milli.rem_euclid(1000) != 0);
    let divisible = match parse_milli(size) {
        Some(page) if page > 0 && page % 1000 == 0 => value % (page / 1000) == 0,
        _ => false,
    };
    if !divisible {
        errs.push(FieldError::invalid(
            path,
            go_quote(&text),
            format!("{text} is not positive integer multiple of {name}"),
        ));
    }
}

/// The requests-against-limits part of `ValidateResourceRequirements`: a request at most its
/// limit, and equal to it for resources that cannot be overcommitted, which must have one.
fn validate_requests_against_limits(
    r: &ResourceRequirements,
    name: &str,
    quantity: &Value,
    requests_path: &Path,
    limits_path: &Path,
    errs: &mut Vec<FieldError>,
) {
    match r.limits.get(name) {
        Some(limit) => {
            let (Some(req_text), Some(lim_text)) = (quantity_text(quantity), quantity_text(limit))
            else {
                return;
            };
            // A negative quantity is refused on its own line, and still compared here.
            let signed = |text: &str| match text.trim().strip_prefix('-') {
                Some(magnitude) => parse_milli(magnitude).map(|v| -v),
                None => parse_milli(text),
            };
            let (Some(req), Some(lim)) = (signed(&req_text), signed(&lim_text)) else {
                return;
            };
            if req != lim && !is_overcommit_allowed(name) {
                errs.push(FieldError::invalid(
                    requests_path,
                    go_quote(&req_text),
                    format!("must be equal to {name} limit of {lim_text}"),
                ));
            } else if req > lim {
                errs.push(FieldError::invalid(
                    requests_path,
                    go_quote(&req_text),
                    format!("must be less than or equal to {name} limit of {lim_text}"),
                ));
            }
        }
        None if !is_overcommit_allowed(name) => errs.push(FieldError::required(
            limits_path,
            "Limit must be set for non overcommitable resources",
        )),
        None => {}
    }
}

/// `ValidateResourceQuantityValue`, with the parse check upstream does while decoding.
fn validate_quantity(name: &str, quantity: &Value, path: &Path, errs: &mut Vec<FieldError>) {
    let Some(text) = quantity_text(quantity) else {
        errs.push(FieldError::invalid(
            path,
            render_value(quantity),
            QUANTITY_REGEX_MESSAGE,
        ));
        return;
    };
    if !matches_quantity_regex(&text) {
        errs.push(FieldError::invalid(
            path,
            go_quote(&text),
            QUANTITY_REGEX_MESSAGE,
        ));
        return;
    }
    if let Some(magnitude) = text.strip_prefix('-') {
        match parse_milli(magnitude) {
            Some(0) => return,
            Some(_) => errs.push(FieldError::invalid(path, go_quote(&text), IS_NEGATIVE)),
            None => errs.push(FieldError::invalid(
                path,
                go_quote(&text),
                QUANTITY_REGEX_MESSAGE,
            )),
        }
        return;
    }
    match parse_milli(&text) {
        None => errs.push(FieldError::invalid(
            path,
            go_quote(&text),
            QUANTITY_REGEX_MESSAGE,
        )),
        Some(milli) if is_extended_resource_name(name) && milli % 1000 != 0 => {
            errs.push(FieldError::invalid(
                path,
                go_quote(&text),
                "must be an integer",
            ));
        }
        Some(_) => {}
    }
}

/// Whether `s` matches `^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$`.
fn matches_quantity_regex(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let skip = |i: &mut usize, pred: &dyn Fn(u8) -> bool, at_most_one: bool| {
        while *i < b.len() && pred(b[*i]) {
            *i += 1;
            if at_most_one {
                break;
            }
        }
    };
    skip(&mut i, &|c| c == b'+' || c == b'-', true);
    let start = i;
    skip(&mut i, &|c| c.is_ascii_digit() || c == b'.', false);
    if i == start {
        return false;
    }
    skip(&mut i, &|c| b"eEinumkKMGTP".contains(&c), false);
    skip(&mut i, &|c| c == b'+' || c == b'-', true);
    skip(&mut i, &|c| c.is_ascii_digit(), false);
    i == b.len()
}

/// `validateContainerResourceName`.
fn validate_container_resource_name(name: &str, path: &Path, errs: &mut Vec<FieldError>) {
    // `validateResourceName` first, which stops at a name that is not qualified...
    let msgs = is_qualified_name(name);
    let qualified = msgs.is_empty();
    for msg in msgs {
        errs.push(FieldError::invalid(path, go_quote(name), msg));
    }
    if qualified && !name.contains('/') && !is_standard_resource_name(name) {
        errs.push(FieldError::invalid(
            path,
            go_quote(name),
            "must be a standard resource type or fully qualified",
        ));
    }
    // ...then the container's own check, which runs whatever that found: `gpu` gets both
    // errors.
    if !name.contains('/') {
        if !is_standard_container_resource_name(name) {
            errs.push(FieldError::invalid(
                path,
                go_quote(name),
                "must be a standard resource for containers",
            ));
        }
    } else if !is_native_resource(name) && !is_extended_resource_name(name) {
        errs.push(FieldError::invalid(
            path,
            go_quote(name),
            "doesn't follow extended resource name standard",
        ));
    }
}

fn is_standard_container_resource_name(name: &str) -> bool {
    matches!(name, "cpu" | "memory" | "ephemeral-storage") || is_huge_page_resource_name(name)
}

fn is_standard_resource_name(name: &str) -> bool {
    const STANDARD: &[&str] = &[
        "cpu",
        "memory",
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "pods",
        "services",
        "replicationcontrollers",
        "resourcequotas",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "storage",
        "requests.storage",
        "services.nodeports",
        "services.loadbalancers",
    ];
    STANDARD.contains(&name)
        || is_huge_page_resource_name(name)
        || name.starts_with("requests.hugepages-")
}

/// `IsNativeResource`: unprefixed, or in the `kubernetes.io/` domain.
fn is_native_resource(name: &str) -> bool {
    !name.contains('/') || name.contains("kubernetes.io/")
}

/// `IsExtendedResourceName`, e.g. `nvidia.com/gpu`.
fn is_extended_resource_name(name: &str) -> bool {
    !is_native_resource(name)
        && !name.starts_with("requests.")
        && is_qualified_name(&format!("requests.{name}")).is_empty()
}

/// `IsOvercommitAllowed`: native resources other than huge pages.
fn is_overcommit_allowed(name: &str) -> bool {
    is_native_resource(name) && !is_huge_page_resource_name(name)
}

/// `ValidateDeploymentStrategy` and `ValidateRollingUpdateDeployment`.
///
/// An unsupported type is reported at `spec.strategy` with the whole internal strategy struct as
/// the value, as upstream does; Go's `json.Marshal` of the untagged internal struct gives
/// `{"Type":"Blue","RollingUpdate":null}`.
fn validate_deployment_strategy(d: &Deployment, path: &Path, errs: &mut Vec<FieldError>) {
    let strategy = &d.spec.strategy;
    let rolling_path = path.child("rollingUpdate");
    match (&strategy.type_, &strategy.rolling_update) {
        (Some(DeploymentStrategyType::Recreate), Some(_)) => errs.push(FieldError::forbidden(
            &rolling_path,
            "may not be specified when strategy `type` is 'Recreate'",
        )),
        (Some(DeploymentStrategyType::Recreate), None) => {}
        (Some(DeploymentStrategyType::RollingUpdate), None) => errs.push(FieldError::required(
            &rolling_path,
            "this should be defaulted and never be nil",
        )),
        (Some(DeploymentStrategyType::RollingUpdate), Some(rolling)) => {
            let zero = IntOrString::Int(0);
            let max_unavailable = rolling.max_unavailable.as_ref().unwrap_or(&zero);
            let max_surge = rolling.max_surge.as_ref().unwrap_or(&zero);
            let unavailable_path = rolling_path.child("maxUnavailable");
            validate_positive_int_or_percent(max_unavailable, &unavailable_path, errs);
            validate_positive_int_or_percent(max_surge, &rolling_path.child("maxSurge"), errs);
            if int_or_percent_value(max_unavailable) == 0 && int_or_percent_value(max_surge) == 0 {
                errs.push(FieldError::invalid(
                    &unavailable_path,
                    render_int_or_string(max_unavailable),
                    "may not be 0 when `maxSurge` is 0",
                ));
            }
            if percent_value(max_unavailable).is_some_and(|p| p > 100) {
                errs.push(FieldError::invalid(
                    &unavailable_path,
                    render_int_or_string(max_unavailable),
                    "must not be greater than 100%",
                ));
            }
        }
        (type_, rolling) => {
            let type_text = type_.as_ref().map_or("", DeploymentStrategyType::as_str);
            let rolling_text = match rolling {
                None => "null".to_string(),
                Some(r) => {
                    let zero = IntOrString::Int(0);
                    format!(
                        "{{\"MaxUnavailable\":{},\"MaxSurge\":{}}}",
                        render_int_or_string(r.max_unavailable.as_ref().unwrap_or(&zero)),
                        render_int_or_string(r.max_surge.as_ref().unwrap_or(&zero)),
                    )
                }
            };
            let value = format!(
                "{{\"Type\":{},\"RollingUpdate\":{rolling_text}}}",
                go_json(&Value::String(type_text.to_string()))
            );
            errs.push(FieldError::not_supported(
                path,
                value,
                &["Recreate", "RollingUpdate"],
            ));
        }
    }
}

/// `ValidatePodDisruptionBudget` (policy/v1, create), which checks only the spec, then, once the
/// spec passes, the API server's own check of the name (`rest.BeforeCreate`), which for this
/// kind is only `ValidatePathSegmentName`. Setting both `minAvailable` and `maxUnavailable` is
/// refused with the whole internal spec as the value, which has no JSON tags, so its fields
/// print capitalised.
pub fn validate_disruption_budget(b: &crate::sim::api::PodDisruptionBudget) -> Vec<FieldError> {
    let mut errs = validate_disruption_budget_spec(b);
    if errs.is_empty() {
        let name = &b.metadata.name;
        let path = Path::root("metadata").child("name");
        if name.is_empty() {
            errs.push(FieldError::required(
                &path,
                "name or generateName is required",
            ));
        }
        let problems: Vec<&str> = match name.as_str() {
            "." => vec!["may not be '.'"],
            ".." => vec!["may not be '..'"],
            _ => [('/', "may not contain '/'"), ('%', "may not contain '%'")]
                .into_iter()
                .filter(|(c, _)| name.contains(*c))
                .map(|(_, msg)| msg)
                .collect(),
        };
        for msg in problems {
            errs.push(FieldError::invalid(&path, go_quote(name), msg));
        }
        let meta = Path::root("metadata");
        validate_labels(&b.metadata.labels, &meta.child("labels"), &mut errs);
        validate_annotations(
            &b.metadata.annotations,
            &meta.child("annotations"),
            &mut errs,
        );
    }
    errs
}

/// `ValidatePodDisruptionBudgetSpec`.
fn validate_disruption_budget_spec(b: &crate::sim::api::PodDisruptionBudget) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let spec = &b.spec;
    let path = Path::root("spec");
    if spec.min_available.is_some() && spec.max_unavailable.is_some() {
        let int_or =
            |v: &Option<IntOrString>| v.as_ref().map_or("null".into(), render_int_or_string);
        let selector = spec.selector.as_ref().map_or("null".into(), |s| {
            go_json(&serde_json::to_value(s).unwrap_or(Value::Null))
        });
        let policy = spec
            .unhealthy_pod_eviction_policy
            .as_deref()
            .map_or("null".into(), go_json_str);
        errs.push(FieldError::invalid(
            &path,
            format!(
                "{{\"MinAvailable\":{},\"Selector\":{selector},\"MaxUnavailable\":{},\"UnhealthyPodEvictionPolicy\":{policy}}}",
                int_or(&spec.min_available),
                int_or(&spec.max_unavailable)
            ),
            "minAvailable and maxUnavailable cannot be both set",
        ));
    }
    for (field, value) in [
        ("minAvailable", &spec.min_available),
        ("maxUnavailable", &spec.max_unavailable),
    ] {
        let Some(v) = value else { continue };
        let p = path.child(field);
        validate_positive_int_or_percent(v, &p, &mut errs);
        if percent_value(v).is_some_and(|n| n > 100) {
            errs.push(FieldError::invalid(
                &p,
                render_int_or_string(v),
                "must not be greater than 100%",
            ));
        }
    }
    if let Some(selector) = &spec.selector {
        validate_label_selector(selector, &path.child("selector"), &mut errs);
    }
    if let Some(policy) = spec.unhealthy_pod_eviction_policy.as_deref()
        && !matches!(policy, "AlwaysAllow" | "IfHealthyBudget")
    {
        errs.push(FieldError::not_supported(
            &path.child("unhealthyPodEvictionPolicy"),
            go_json_str(policy),
            &["AlwaysAllow", "IfHealthyBudget"],
        ));
    }
    errs
}

/// `ValidatePositiveIntOrPercent`.
fn validate_positive_int_or_percent(v: &IntOrString, path: &Path, errs: &mut Vec<FieldError>) {
    match v {
        IntOrString::String(s) => {
            for msg in is_valid_percent(s) {
                errs.push(FieldError::invalid(path, render_int_or_string(v), msg));
            }
        }
        IntOrString::Int(i) => validate_nonnegative(i64::from(*i), path, errs),
    }
}

/// `getPercentValue`: the number of a valid percent string.
fn percent_value(v: &IntOrString) -> Option<i64> {
    match v {
        IntOrString::String(s) if is_valid_percent(s).is_empty() => {
            Some(s.trim_end_matches('%').parse().unwrap_or(i64::MAX))
        }
        _ => None,
    }
}

/// `getIntOrPercentValue`: the percent number, else `IntValue()`, which is `strconv.Atoi` with
/// its error dropped: a non-numeric string is 0, and a number too large for an int is clamped
/// to the largest (or smallest) one, as `Atoi` returns it with its range error.
fn int_or_percent_value(v: &IntOrString) -> i64 {
    percent_value(v).unwrap_or_else(|| match v {
        IntOrString::Int(i) => i64::from(*i),
        IntOrString::String(s) => go_atoi(s),
    })
}

/// `strconv.Atoi` with its error dropped, as `IntValue()` uses it.
fn go_atoi(s: &str) -> i64 {
    match s.parse::<i64>() {
        Ok(v) => v,
        Err(e) => match e.kind() {
            std::num::IntErrorKind::PosOverflow => i64::MAX,
            std::num::IntErrorKind::NegOverflow => i64::MIN,
            _ => 0,
        },
    }
}

// ---------------------------------------------------------------------------------------------
// Syntax checks (k8s.io/apimachinery/pkg/util/validation), returning upstream's messages
// ---------------------------------------------------------------------------------------------

const QUALIFIED_NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const QUALIFIED_NAME_ERR: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const LABEL_VALUE_ERR: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_ERR: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN_ERR: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const PERCENT_FMT: &str = "[0-9]+%";
const PERCENT_ERR: &str =
    "a valid percent string must be a numeric string followed by an ending '%'";

/// `RegexError`: the message, examples and the regular expression used.
fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    let mut out = msg.to_string();
    if examples.is_empty() {
        out.push_str(&format!(" (regex used for validation is '{fmt}')"));
        return out;
    }
    out.push_str(" (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            out.push_str(" or ");
        }
        out.push_str(&format!("'{e}', "));
    }
    out.push_str(&format!("regex used for validation is '{fmt}')"));
    out
}

fn max_len_error(n: usize) -> String {
    format!("must be no more than {n} characters")
}

fn inclusive_range_error(lo: i64, hi: i64) -> String {
    format!("must be between {lo} and {hi}, inclusive")
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`
fn is_qualified_name_part(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(f), Some(l)) => {
            f.is_ascii_alphanumeric()
                && l.is_ascii_alphanumeric()
                && b.iter()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
fn is_dns1123_label_text(s: &str) -> bool {
    let b = s.as_bytes();
    let edge = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    match (b.first(), b.last()) {
        (Some(f), Some(l)) => edge(f) && edge(l) && b.iter().all(|c| edge(c) || *c == b'-'),
        _ => false,
    }
}

fn is_dns1123_subdomain_text(s: &str) -> bool {
    s.split('.').all(is_dns1123_label_text)
}

/// `IsQualifiedName`: an optional DNS-subdomain prefix and `/`, then a name of at most 63
/// characters (label keys, annotation keys, resource names).
pub(crate) fn is_qualified_name(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                errs.extend(
                    is_dns1123_subdomain(prefix)
                        .into_iter()
                        .map(|m| format!("prefix part {m}")),
                );
            }
            *name
        }
        _ => {
            errs.push(format!(
                "a qualified name {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(
                    QUALIFIED_NAME_ERR,
                    QUALIFIED_NAME_FMT,
                    &["MyName", "my.name", "123-abc"]
                )
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push(format!("name part {}", max_len_error(63)));
    }
    if !is_qualified_name_part(name) {
        errs.push(format!(
            "name part {}",
            regex_error(
                QUALIFIED_NAME_ERR,
                QUALIFIED_NAME_FMT,
                &["MyName", "my.name", "123-abc"]
            )
        ));
    }
    errs
}

/// `IsValidLabelValue`.
pub(crate) fn is_valid_label_value(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len_error(63));
    }
    if !value.is_empty() && !is_qualified_name_part(value) {
        errs.push(regex_error(
            LABEL_VALUE_ERR,
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

/// `IsDNS1123Label`.
fn is_dns1123_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len_error(63));
    }
    if !is_dns1123_label_text(value) {
        if is_dns1123_subdomain_text(value) {
            errs.push("must not contain dots".to_string());
        } else {
            errs.push(regex_error(
                DNS1123_LABEL_ERR,
                DNS1123_LABEL_FMT,
                &["my-name", "123-abc"],
            ));
        }
    }
    errs
}

/// `IsConfigMapKey`: a key of a ConfigMap or Secret, as `kubectl create configmap` and `kubectl
/// create secret generic` check each `--from-literal` key before they send anything.
pub fn is_config_map_key(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 253 {
        errs.push(max_len_error(253));
    }
    let valid = !value.is_empty()
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'));
    if !valid {
        errs.push(regex_error(
            "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
            "[-._a-zA-Z0-9]+",
            &["key.name", "KEY_NAME", "key-name"],
        ));
    }
    // `hasChDirPrefix`: a key is a file name in a volume.
    if value == "." {
        errs.push("must not be '.'".to_string());
    } else if value == ".." {
        errs.push("must not be '..'".to_string());
    } else if value.starts_with("..") {
        errs.push("must not start with '..'".to_string());
    }
    errs
}

/// `IsDNS1123Subdomain`.
pub fn is_dns1123_subdomain(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 253 {
        errs.push(max_len_error(253));
    }
    if !is_dns1123_subdomain_text(value) {
        errs.push(regex_error(
            DNS1123_SUBDOMAIN_ERR,
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// `IsValidPortNum`.
fn is_valid_port_num(port: i64) -> Vec<String> {
    if (1..=65535).contains(&port) {
        Vec::new()
    } else {
        vec![inclusive_range_error(1, 65535)]
    }
}

/// `IsValidPortName` (an IANA service name).
fn is_valid_port_name(port: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if port.len() > 15 {
        errs.push(max_len_error(15));
    }
    let charset_ok = !port.is_empty()
        && port
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if !charset_ok {
        errs.push(
            "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)".to_string(),
        );
    }
    // Each rule is checked on its own, so `HTTP` breaks the first two.
    if !port.bytes().any(|b| b.is_ascii_lowercase()) {
        errs.push("must contain at least one letter (a-z)".to_string());
    }
    if port.contains("--") {
        errs.push("must not contain consecutive hyphens".to_string());
    }
    if port.starts_with('-') || port.ends_with('-') {
        errs.push("must not begin or end with a hyphen".to_string());
    }
    errs
}

/// `IsValidPercent`: `^[0-9]+%$`.
fn is_valid_percent(s: &str) -> Vec<String> {
    let ok = s
        .strip_suffix('%')
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
    if ok {
        Vec::new()
    } else {
        vec![regex_error(PERCENT_ERR, PERCENT_FMT, &["1%", "93%"])]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::yaml::{Limits, parse};
    use serde_json::json;

    const VALID: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports:
        - containerPort: 80
        resources:
          requests: {cpu: 100m, memory: 64Mi}
          limits: {cpu: 500m, memory: 128Mi}
        readinessProbe:
          httpGet: {path: /, port: 80}
        livenessProbe:
          tcpSocket: {port: 80}
";

    fn doc(text: &str) -> Document {
        match parse(text, &Limits::default()) {
            Ok(d) => d,
            Err(e) => panic!("test YAML does not parse: {e}"),
        }
    }

    fn decode(text: &str) -> Result<Deployment, Vec<FieldError>> {
        decode_deployment(&doc(text))
    }

    fn decoded(text: &str) -> Deployment {
        match decode(text) {
            Ok(d) => d,
            Err(errs) => panic!("should decode: {}", render(&errs)),
        }
    }

    /// The valid Deployment, defaulted, as the API server would hold it before validating.
    fn valid() -> Deployment {
        let mut d = decoded(VALID);
        set_defaults(&mut d);
        d
    }

    fn render(errs: &[FieldError]) -> String {
        errs.iter().map(|e| format!("{e}\n")).collect()
    }

    /// The rendered errors of the valid Deployment after `change`.
    fn errors_after(change: impl FnOnce(&mut Deployment)) -> Vec<String> {
        let mut d = valid();
        change(&mut d);
        validate_deployment(&d)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    fn first_error_after(change: impl FnOnce(&mut Deployment)) -> FieldError {
        let mut d = valid();
        change(&mut d);
        match validate_deployment(&d).into_iter().next() {
            Some(e) => e,
            None => panic!("expected an error"),
        }
    }

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn pct(s: &str) -> Option<IntOrString> {
        Some(IntOrString::String(s.to_string()))
    }

    #[test]
    fn the_valid_deployment_has_no_errors() {
        assert_eq!(render(&validate_deployment(&valid())), "");
        assert_eq!(render(&validate_deployment_update(&valid(), &valid())), "");
    }

    // --- TestValidateDeployment (errorCases), pkg/apis/apps/validation/validation_test.go ---

    #[test]
    fn vector_missing_name() {
        let e = first_error_after(|d| d.metadata.name.clear());
        assert_eq!(
            e.to_string(),
            "metadata.name: Required value: name or generateName is required"
        );
    }

    #[test]
    fn vector_selector_does_not_match_template_labels() {
        let e = first_error_after(|d| {
            d.spec.selector = Some(LabelSelector {
                match_labels: labels(&[("name", "def")]).into(),
                ..Default::default()
            });
            d.spec.template.metadata.labels = labels(&[("name", "abc")]).into();
        });
        assert_eq!(
            (e.field.as_str(), e.kind),
            ("spec.template.metadata.labels", ErrorKind::Invalid)
        );
        assert_eq!(
            e.to_string(),
            "spec.template.metadata.labels: Invalid value: {\"name\":\"abc\"}: `selector` does not match template `labels`"
        );
    }

    #[test]
    fn vector_restart_policy_never() {
        let e = first_error_after(|d| d.spec.template.spec.restart_policy = Some("Never".into()));
        assert_eq!(
            e.to_string(),
            "spec.template.spec.restartPolicy: Unsupported value: \"Never\": supported values: \"Always\""
        );
    }

    #[test]
    fn vector_unknown_strategy_type() {
        let e = first_error_after(|d| {
            d.spec.strategy.type_ = Some(DeploymentStrategyType::Other("randomType".into()));
        });
        assert_eq!(e.field, "spec.strategy");
        assert_eq!(
            e.to_string(),
            "spec.strategy: Unsupported value: {\"Type\":\"randomType\",\"RollingUpdate\":{\"MaxUnavailable\":\"25%\",\"MaxSurge\":\"25%\"}}: supported values: \"Recreate\", \"RollingUpdate\""
        );
        let e = first_error_after(|d| {
            d.spec.strategy.type_ = Some(DeploymentStrategyType::Other("Blue".into()));
            d.spec.strategy.rolling_update = None;
        });
        assert_eq!(
            e.to_string(),
            "spec.strategy: Unsupported value: {\"Type\":\"Blue\",\"RollingUpdate\":null}: supported values: \"Recreate\", \"RollingUpdate\""
        );
    }

    #[test]
    fn vector_rolling_update_with_recreate() {
        let e = first_error_after(|d| {
            d.spec.strategy.type_ = Some(DeploymentStrategyType::Recreate);
            d.spec.strategy.rolling_update = Some(Default::default());
        });
        assert_eq!(e.kind, ErrorKind::Forbidden);
        assert_eq!(
            e.to_string(),
            "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"
        );
    }

    #[test]
    fn vector_max_surge_not_a_percent() {
        let e = first_error_after(|d| {
            d.spec.strategy.rolling_update = Some(crate::sim::api::RollingUpdateDeployment {
                max_surge: pct("20Percent"),
                max_unavailable: None,
            });
        });
        assert_eq!(
            e.to_string(),
            "spec.strategy.rollingUpdate.maxSurge: Invalid value: \"20Percent\": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"
        );
    }

    #[test]
    fn vector_max_surge_and_max_unavailable_both_zero() {
        let e = first_error_after(|d| {
            d.spec.strategy.rolling_update = Some(crate::sim::api::RollingUpdateDeployment {
                max_surge: pct("0%"),
                max_unavailable: Some(IntOrString::Int(0)),
            });
        });
        assert_eq!(
            e.to_string(),
            "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0"
        );
    }

    #[test]
    fn vector_max_unavailable_over_100_percent() {
        let e = first_error_after(|d| {
            d.spec.strategy.rolling_update = Some(crate::sim::api::RollingUpdateDeployment {
                max_surge: None,
                max_unavailable: pct("110%"),
            });
        });
        assert_eq!(
            e.to_string(),
            "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: \"110%\": must not be greater than 100%"
        );
    }

    #[test]
    fn vector_negative_rollback_revision() {
        let e = first_error_after(|d| {
            d.metadata
                .annotations
                .insert(ROLLBACK_TO_ANNOTATION.into(), "-3".into());
        });
        assert_eq!(
            e.to_string(),
            "spec.rollback.version: Invalid value: -3: must be greater than or equal to 0"
        );
        assert!(
            errors_after(|d| {
                d.metadata
                    .annotations
                    .insert(ROLLBACK_TO_ANNOTATION.into(), "2".into());
            })
            .is_empty()
        );
    }

    #[test]
    fn vector_progress_deadline_equal_to_min_ready() {
        let e = first_error_after(|d| {
            d.spec.progress_deadline_seconds = Some(600);
            d.spec.min_ready_seconds = 600;
        });
        assert_eq!(
            e.to_string(),
            "spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds"
        );
    }

    #[test]
    fn vector_ephemeral_containers_in_template() {
        let e = first_error_after(|d| {
            d.spec
                .template
                .spec
                .extra
                .insert("ephemeralContainers".into(), json!(["ec"]));
        });
        assert_eq!(
            e.to_string(),
            "spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template"
        );
    }

    // --- §18 examples and the rest of ValidateDeploymentSpec ---

    #[test]
    fn negative_replicas() {
        assert_eq!(
            errors_after(|d| d.spec.replicas = Some(-1)),
            ["spec.replicas: Invalid value: -1: must be greater than or equal to 0"]
        );
    }

    #[test]
    fn missing_selector_also_fails_the_template_match() {
        assert_eq!(
            errors_after(|d| d.spec.selector = None),
            [
                "spec.selector: Required value",
                "spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: `selector` does not match template `labels`",
            ]
        );
    }

    #[test]
    fn empty_selector() {
        assert_eq!(
            errors_after(|d| d.spec.selector = Some(LabelSelector::default())),
            ["spec.selector: Invalid value: {}: empty selector is invalid for deployment"]
        );
    }

    #[test]
    fn unparsable_selector_skips_the_template() {
        let errs = errors_after(|d| {
            d.spec.selector = Some(LabelSelector {
                match_labels: labels(&[("app", "web")]).into(),
                match_expressions: vec![crate::sim::api::LabelSelectorRequirement {
                    key: "tier".into(),
                    operator: SelectorOperator::Other("Near".into()),
                    values: vec![],
                }],
            });
            d.spec.template.spec.containers.clear();
        });
        assert_eq!(
            errs,
            [
                "spec.selector.matchExpressions[0].operator: Invalid value: \"Near\": not a valid selector operator",
                "spec.selector: Invalid value: {\"matchLabels\":{\"app\":\"web\"},\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"Near\"}]}: invalid label selector",
            ]
        );
    }

    #[test]
    fn selector_expression_rules() {
        let errs = errors_after(|d| {
            d.spec.selector = Some(LabelSelector {
                match_labels: labels(&[("app", "web")]).into(),
                match_expressions: vec![
                    crate::sim::api::LabelSelectorRequirement {
                        key: "tier".into(),
                        operator: SelectorOperator::In,
                        values: vec![],
                    },
                    crate::sim::api::LabelSelectorRequirement {
                        key: "tier".into(),
                        operator: SelectorOperator::Exists,
                        values: vec!["x".into()],
                    },
                ],
            });
        });
        assert_eq!(
            errs[..2],
            [
                "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
                "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            ]
        );
        assert_eq!(errs.len(), 3, "{errs:#?}");
        assert!(errs[2].ends_with("invalid label selector"));
    }

    #[test]
    fn expressions_that_match_the_template_are_accepted() {
        let errs = errors_after(|d| {
            d.spec.selector = Some(LabelSelector {
                match_labels: BTreeMap::new().into(),
                match_expressions: vec![crate::sim::api::LabelSelectorRequirement {
                    key: "app".into(),
                    operator: SelectorOperator::In,
                    values: vec!["web".into(), "api".into()],
                }],
            });
        });
        assert!(errs.is_empty(), "{errs:#?}");
    }

    #[test]
    fn active_deadline_is_forbidden() {
        assert_eq!(
            errors_after(|d| d.spec.template.spec.active_deadline_seconds = Some(30)),
            [
                "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported"
            ]
        );
    }

    #[test]
    fn percent_zero_renders_quoted() {
        let e = first_error_after(|d| {
            d.spec.strategy.rolling_update = Some(crate::sim::api::RollingUpdateDeployment {
                max_surge: Some(IntOrString::Int(0)),
                max_unavailable: pct("0%"),
            });
        });
        assert_eq!(
            e.to_string(),
            "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: \"0%\": may not be 0 when `maxSurge` is 0"
        );
    }

    #[test]
    fn one_percent_with_zero_surge_is_accepted() {
        // Raw values are compared: "1%" of 10 resolves to 0, but validation sees 1.
        assert!(
            errors_after(|d| {
                d.spec.replicas = Some(10);
                d.spec.strategy.rolling_update = Some(crate::sim::api::RollingUpdateDeployment {
                    max_surge: Some(IntOrString::Int(0)),
                    max_unavailable: pct("1%"),
                });
            })
            .is_empty()
        );
    }

    #[test]
    fn negative_int_or_percent_and_other_counters() {
        assert_eq!(
            errors_after(|d| {
                d.spec.strategy.rolling_update = Some(crate::sim::api::RollingUpdateDeployment {
                    max_surge: Some(IntOrString::Int(-1)),
                    max_unavailable: Some(IntOrString::Int(1)),
                });
                d.spec.min_ready_seconds = -5;
                d.spec.revision_history_limit = Some(-1);
                d.spec.progress_deadline_seconds = Some(-2);
            }),
            [
                "spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: must be greater than or equal to 0",
                "spec.minReadySeconds: Invalid value: -5: must be greater than or equal to 0",
                "spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0",
                "spec.progressDeadlineSeconds: Invalid value: -2: must be greater than or equal to 0",
            ]
        );
    }

    #[test]
    fn zero_revision_history_limit_is_valid() {
        assert!(errors_after(|d| d.spec.revision_history_limit = Some(0)).is_empty());
    }

    /// A legacy rollback annotation that is not an integer fails the conversion before any
    /// validation: a 400 that kubectl prints as the server words it, alone.
    #[test]
    fn unparsable_rollback_annotation() {
        let mut d = valid();
        d.metadata
            .annotations
            .insert(ROLLBACK_TO_ANNOTATION.into(), "two".into());
        d.spec.min_ready_seconds = -5;
        let errs = validate_deployment(&d);
        assert_eq!(
            render_kubectl_invalid("Deployment", "web", &errs),
            "Error from server (BadRequest): Deployment in version \"v1\" cannot be handled as a Deployment: failed to parse annotation[deprecated.deployment.rollback.to]=two as int64: strconv.ParseInt: parsing \"two\": invalid syntax"
        );
        assert_eq!(
            errs.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "metadata.annotations[deprecated.deployment.rollback.to]: Deployment in version \"v1\" cannot be handled as a Deployment: failed to parse annotation[deprecated.deployment.rollback.to]=two as int64: strconv.ParseInt: parsing \"two\": invalid syntax"
            ]
        );
    }

    // --- object metadata and labels ---

    #[test]
    fn names_must_be_dns_subdomains() {
        assert_eq!(
            errors_after(|d| d.metadata.name = "Web_1".into()),
            [
                "metadata.name: Invalid value: \"Web_1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
            ]
        );
        assert!(errors_after(|d| d.metadata.name = "web.v2-1".into()).is_empty());
        let long = "a".repeat(254);
        let errs = errors_after(|d| d.metadata.name = long.clone());
        assert_eq!(errs.len(), 1);
        assert!(
            errs[0].ends_with(": must be no more than 253 characters"),
            "{errs:?}"
        );
    }

    #[test]
    fn label_syntax() {
        let errs = errors_after(|d| {
            d.metadata.labels = labels(&[
                ("bad key!", "ok"),
                ("tier", "-front"),
                ("example.com/x", "y"),
            ])
            .into();
        });
        assert_eq!(
            errs,
            [
                "metadata.labels: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
                "metadata.labels: Invalid value: \"-front\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
            ]
        );
        assert_eq!(
            errors_after(|d| d.metadata.labels = labels(&[("a/b/c", "x")]).into()),
            [
                "metadata.labels: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
            ]
        );
        assert_eq!(
            errors_after(|d| d.metadata.labels = labels(&[("/x", "")]).into()),
            ["metadata.labels: Invalid value: \"/x\": prefix part must be non-empty"]
        );
    }

    #[test]
    fn template_labels_are_checked_at_upstreams_path() {
        let errs = errors_after(|d| {
            d.spec
                .template
                .metadata
                .labels
                .insert("v".into(), "1.0!".into());
        });
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(
            errs[0].starts_with("spec.template.labels: Invalid value: \"1.0!\": a valid label")
        );
    }

    // --- containers ---

    #[test]
    fn at_least_one_container() {
        assert_eq!(
            errors_after(|d| d.spec.template.spec.containers.clear()),
            ["spec.template.spec.containers: Required value"]
        );
    }

    #[test]
    fn container_name_image_and_duplicates() {
        let errs = errors_after(|d| {
            let mut second = d.spec.template.spec.containers[0].clone();
            second.image.clear();
            d.spec.template.spec.containers.push(second);
            let mut third = d.spec.template.spec.containers[0].clone();
            third.name = "Side.Car".into();
            d.spec.template.spec.containers.push(third);
            let mut fourth = d.spec.template.spec.containers[0].clone();
            fourth.name.clear();
            d.spec.template.spec.containers.push(fourth);
        });
        assert_eq!(
            errs,
            [
                "spec.template.spec.containers[1].image: Required value",
                "spec.template.spec.containers[1].name: Duplicate value: \"web\"",
                "spec.template.spec.containers[2].name: Invalid value: \"Side.Car\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
                "spec.template.spec.containers[3].name: Required value",
            ]
        );
        assert_eq!(
            errors_after(|d| d.spec.template.spec.containers[0].name = "side.car".into()),
            [
                "spec.template.spec.containers[0].name: Invalid value: \"side.car\": must not contain dots"
            ]
        );
    }

    /// Upstream defaulting tests for `""`, so an empty strategy type, pull policy or protocol
    /// is defaulted rather than refused; and a written generation is replaced before
    /// validation, so even a negative one passes.
    #[test]
    fn empty_strings_are_defaulted_and_generation_is_not_checked() {
        let mut d = valid();
        d.spec.strategy.type_ = Some(DeploymentStrategyType::Other(String::new()));
        let c = &mut d.spec.template.spec.containers[0];
        c.image_pull_policy = Some(PullPolicy::Other(String::new()));
        c.ports[0].protocol = Some(String::new());
        d.metadata.generation = -3;
        set_defaults(&mut d);
        assert_eq!(validate_deployment(&d), []);
        assert_eq!(
            d.spec.strategy.type_,
            Some(DeploymentStrategyType::RollingUpdate)
        );
        let c = &d.spec.template.spec.containers[0];
        assert_eq!(c.image_pull_policy, Some(PullPolicy::IfNotPresent));
        assert_eq!(c.ports[0].protocol, None);
    }

    /// `ValidateVolumes`, `ValidateVolumeMounts`, `ValidateEnv` and the host port, in
    /// `validatePodSpec`'s order: the volumes first, then each container's policy, ports,
    /// environment and mounts.
    #[test]
    fn volumes_mounts_env_and_host_ports() {
        let errs = errors_after(|d| {
            let spec = &mut d.spec.template.spec;
            spec.extra.insert(
                "volumes".into(),
                serde_json::json!([{"name": "cfg", "emptyDir": {}}, {"name": "cfg", "emptyDir": {}}, {"name": ""}]),
            );
            let c = &mut spec.containers[0];
            c.ports[0].host_port = Some(70000);
            c.extra
                .insert("terminationMessagePolicy".into(), "Sometimes".into());
            c.extra.insert(
                "env".into(),
                serde_json::json!([
                    {"name": "A=B", "value": "1"},
                    {"name": "", "value": "x"},
                    {"name": "1ok.and-fine", "value": "v", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                    {"name": "E", "valueFrom": {}},
                    {"name": "F", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}, "secretKeyRef": {"name": "s", "key": "k"}}}
                ]),
            );
            c.extra.insert(
                "volumeMounts".into(),
                serde_json::json!([{"name": "data", "mountPath": "/d"}, {"name": "cfg", "mountPath": "/d"}]),
            );
        });
        let c = "spec.template.spec.containers[0]";
        assert_eq!(
            errs,
            [
                "spec.template.spec.volumes[1].name: Duplicate value: \"cfg\"".to_string(),
                "spec.template.spec.volumes[2]: Required value: must specify a volume type"
                    .to_string(),
                "spec.template.spec.volumes[2].name: Required value".to_string(),
                format!(
                    "{c}.terminationMessagePolicy: Unsupported value: \"Sometimes\": supported values: \"File\", \"FallbackToLogsOnError\""
                ),
                format!(
                    "{c}.ports[0].hostPort: Invalid value: 70000: must be between 1 and 65535, inclusive"
                ),
                format!(
                    "{c}.env[0].name: Invalid value: \"A=B\": a valid environment variable name must consist only of printable ASCII characters other than '='"
                ),
                format!("{c}.env[1].name: Required value"),
                format!(
                    "{c}.env[2].valueFrom: Invalid value: \"\": may not be specified when `value` is not empty"
                ),
                format!(
                    "{c}.env[3].valueFrom: Invalid value: \"\": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"
                ),
                format!(
                    "{c}.env[4].valueFrom: Invalid value: \"\": may not have more than one field specified at a time"
                ),
                format!("{c}.volumeMounts[0].name: Not found: \"data\""),
                format!("{c}.volumeMounts[1].mountPath: Invalid value: \"/d\": must be unique"),
            ]
        );
    }

    /// `ValidateEnvFrom`, the key selectors of `valueFrom`, HTTP header names, a duplicate host
    /// port across containers, the service account and the hostname, each where
    /// `ValidatePodSpec` and `validateContainerCommon` put them.
    #[test]
    fn env_from_key_selectors_headers_host_ports_and_pod_names() {
        let errs = errors_after(|d| {
            let spec = &mut d.spec.template.spec;
            spec.extra
                .insert("serviceAccountName".into(), "Bad_Name".into());
            spec.extra.insert("hostname".into(), "A_B".into());
            let mut second = spec.containers[0].clone();
            second.name = "two".into();
            second.ports[0].host_port = Some(8080);
            let c = &mut spec.containers[0];
            c.ports[0].host_port = Some(8080);
            c.extra.insert(
                "env".into(),
                serde_json::json!([
                    {"name": "A", "valueFrom": {"configMapKeyRef": {"key": "bad key"}}},
                    {"name": "B", "valueFrom": {"secretKeyRef": {"name": "s"}}}
                ]),
            );
            c.extra.insert(
                "envFrom".into(),
                serde_json::json!([
                    {"prefix": "P=", "configMapRef": {"name": ""}},
                    {},
                    {"configMapRef": {"name": "c"}, "secretRef": {"name": "Bad"}}
                ]),
            );
            c.readiness_probe = Some(crate::sim::api::Probe {
                http_get: Some(crate::sim::api::pod::HttpGetAction {
                    path: Some("/".into()),
                    port: crate::sim::api::IntOrString::Int(8080),
                    host: None,
                    scheme: Some("HTTP".into()),
                    http_headers: Some(
                        serde_json::json!([{"name": "bad header", "value": "v"}, {"name": "X-Ok", "value": "v"}]),
                    ),
                }),
                ..Default::default()
            });
            spec.containers.push(second);
        });
        let c = "spec.template.spec.containers[0]";
        let subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
        let expected = [
            format!("{c}.env[0].valueFrom.configMapKeyRef.name: Invalid value: \"\": {subdomain}"),
            format!("{c}.env[0].valueFrom.configMapKeyRef.key: Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"),
            format!("{c}.env[1].valueFrom.secretKeyRef.key: Required value"),
            format!("{c}.envFrom[0].prefix: Invalid value: \"P=\": a valid environment variable name must consist only of printable ASCII characters other than '='"),
            format!("{c}.envFrom[0].configMapRef.name: Required value"),
            format!("{c}.envFrom: Invalid value: \"\": must specify one of: `configMapRef` or `secretRef`"),
            format!("{c}.envFrom[2].secretRef.name: Invalid value: \"Bad\": {subdomain}"),
            format!("{c}.envFrom: Forbidden: may not have more than one field specified at a time"),
            format!("{c}.readinessProbe.httpGet.httpHeaders: Invalid value: \"bad header\": a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')"),
            "spec.template.spec.containers[1].ports[0].hostPort: Duplicate value: \"TCP//8080\"".to_string(),
            format!("spec.template.spec.serviceAccountName: Invalid value: \"Bad_Name\": {subdomain}"),
            "spec.template.spec.hostname: Invalid value: \"A_B\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')".to_string(),
        ];
        assert_eq!(errs, expected);
    }

    /// `ValidatePodSpecificAnnotations`: a template's deletion cost is a 32-bit integer without
    /// a plus sign or leading zeros, at upstream's path (`spec.template.annotations`).
    #[test]
    fn a_template_deletion_cost_is_a_32bit_integer() {
        let with_cost = |cost: &str| {
            let cost = cost.to_string();
            errors_after(move |d| {
                let mut annotations = (*d.spec.template.metadata.annotations).clone();
                annotations.insert("controller.kubernetes.io/pod-deletion-cost".into(), cost);
                d.spec.template.metadata.annotations = annotations.into();
            })
        };
        for ok in ["0", "-5", "2147483647"] {
            assert_eq!(with_cost(ok), Vec::<String>::new(), "{ok}");
        }
        for bad in ["+10", "008", "abc", "2147483648", ""] {
            assert_eq!(
                with_cost(bad),
                [format!(
                    "spec.template.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: {bad:?}: must be a 32bit integer"
                )],
                "{bad}"
            );
        }
    }

    /// `IsValidPortName` checks each rule on its own: `HTTP` has no lower-case letter either.
    #[test]
    fn port_name_rules_are_each_checked() {
        let errs = errors_after(|d| {
            d.spec.template.spec.containers[0].ports[0].name = Some("HTTP".into());
        });
        assert_eq!(
            errs,
            [
                "spec.template.spec.containers[0].ports[0].name: Invalid value: \"HTTP\": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
                "spec.template.spec.containers[0].ports[0].name: Invalid value: \"HTTP\": must contain at least one letter (a-z)",
            ]
        );
    }

    #[test]
    fn pull_policy_must_be_supported() {
        assert_eq!(
            errors_after(|d| {
                d.spec.template.spec.containers[0].image_pull_policy =
                    Some(PullPolicy::Other("Sometimes".into()));
            }),
            [
                "spec.template.spec.containers[0].imagePullPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"IfNotPresent\", \"Never\""
            ]
        );
    }

    #[test]
    fn container_ports() {
        let errs = errors_after(|d| {
            let c = &mut d.spec.template.spec.containers[0];
            c.ports[0].container_port = 70000;
            c.ports[0].protocol = Some("HTTP".into());
            c.ports.push(crate::sim::api::pod::ContainerPort {
                name: Some("Web--".into()),
                container_port: 0,
                ..Default::default()
            });
        });
        assert_eq!(
            errs,
            [
                "spec.template.spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
                "spec.template.spec.containers[0].ports[0].protocol: Unsupported value: \"HTTP\": supported values: \"SCTP\", \"TCP\", \"UDP\"",
                "spec.template.spec.containers[0].ports[1].name: Invalid value: \"Web--\": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
                "spec.template.spec.containers[0].ports[1].name: Invalid value: \"Web--\": must not contain consecutive hyphens",
                "spec.template.spec.containers[0].ports[1].name: Invalid value: \"Web--\": must not begin or end with a hyphen",
                "spec.template.spec.containers[0].ports[1].containerPort: Required value",
            ]
        );
    }

    #[test]
    fn resource_quantities_must_parse() {
        let errs = errors_after(|d| {
            let r = &mut d.spec.template.spec.containers[0].resources;
            r.requests.insert("cpu".into(), json!("abc"));
            r.requests.insert("memory".into(), json!("-64Mi"));
            r.limits.insert("memory".into(), json!(true));
        });
        assert_eq!(
            errs,
            [
                format!("spec.template.spec.containers[0].resources.limits[memory]: Invalid value: true: {QUANTITY_REGEX_MESSAGE}"),
                format!("spec.template.spec.containers[0].resources.requests[cpu]: Invalid value: \"abc\": {QUANTITY_REGEX_MESSAGE}"),
                "spec.template.spec.containers[0].resources.requests[memory]: Invalid value: \"-64Mi\": must be greater than or equal to 0".to_string(),
            ]
        );
    }

    #[test]
    fn requests_may_not_exceed_limits() {
        assert_eq!(
            errors_after(|d| {
                let r = &mut d.spec.template.spec.containers[0].resources;
                r.requests.insert("cpu".into(), json!("1"));
                r.requests.insert("memory".into(), json!(1));
            }),
            [
                "spec.template.spec.containers[0].resources.requests: Invalid value: \"1\": must be less than or equal to cpu limit of 500m"
            ]
        );
        // A negative limit is refused and still compared.
        assert_eq!(
            errors_after(|d| {
                let r = &mut d.spec.template.spec.containers[0].resources;
                r.limits.insert("cpu".into(), json!("-1"));
            }),
            [
                "spec.template.spec.containers[0].resources.limits[cpu]: Invalid value: \"-1\": must be greater than or equal to 0",
                "spec.template.spec.containers[0].resources.requests: Invalid value: \"100m\": must be less than or equal to cpu limit of -1",
            ]
        );
    }

    /// `validateInitContainers`: the common container checks, names unique across init and
    /// app containers, a container `restartPolicy` of `Always` only, and probes only on
    /// sidecars.
    #[test]
    fn init_containers() {
        let init = |name: &str, image: &str| Container {
            name: name.into(),
            image: image.into(),
            image_pull_policy: Some(PullPolicy::IfNotPresent),
            ..Default::default()
        };
        let errs = errors_after(|d| {
            let probe = d.spec.template.spec.containers[0].readiness_probe.clone();
            let mut migrate = init("migrate", "migrate:1.0");
            migrate.readiness_probe = probe.clone();
            migrate
                .extra
                .insert("restartPolicy".into(), json!("OnFailure"));
            let mut proxy = init("proxy", "proxy:1.31");
            proxy.extra.insert("restartPolicy".into(), json!("Always"));
            proxy.readiness_probe = probe;
            let web = init("web", "");
            d.spec.template.spec.init_containers = vec![migrate, proxy, web];
        });
        assert_eq!(
            errs,
            [
                "spec.template.spec.initContainers[0].restartPolicy: Unsupported value: \"OnFailure\": supported values: \"Always\"",
                "spec.template.spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always",
                "spec.template.spec.initContainers[2].image: Required value",
                "spec.template.spec.initContainers[2].name: Duplicate value: \"web\"",
            ]
        );
    }

    #[test]
    fn resource_names() {
        let errs = errors_after(|d| {
            let r = &mut d.spec.template.spec.containers[0].resources;
            r.limits.insert("gpu".into(), json!("1"));
            r.limits.insert("pods".into(), json!("1"));
            r.limits.insert("example.com/widget".into(), json!("1.5"));
            r.requests.insert("example.com/widget".into(), json!("1"));
        });
        assert_eq!(
            errs,
            [
                "spec.template.spec.containers[0].resources.limits[example.com/widget]: Invalid value: \"1.5\": must be an integer",
                "spec.template.spec.containers[0].resources.limits[gpu]: Invalid value: \"gpu\": must be a standard resource type or fully qualified",
                // The container's own name check runs after the general one, and adds its error.
                "spec.template.spec.containers[0].resources.limits[gpu]: Invalid value: \"gpu\": must be a standard resource for containers",
                "spec.template.spec.containers[0].resources.limits[pods]: Invalid value: \"pods\": must be a standard resource for containers",
                "spec.template.spec.containers[0].resources.requests: Invalid value: \"1\": must be equal to example.com/widget limit of 1.5",
            ]
        );
    }

    #[test]
    fn huge_pages_come_in_whole_pages_and_with_cpu_or_memory() {
        let errs = errors_after(|d| {
            let r = &mut d.spec.template.spec.containers[0].resources;
            r.requests.clear();
            r.limits.clear();
            r.limits.insert("hugepages-2Mi".into(), json!("3Mi"));
            r.requests.insert("hugepages-2Mi".into(), json!("3Mi"));
        });
        assert_eq!(
            errs,
            [
                "spec.template.spec.containers[0].resources.limits[hugepages-2Mi]: Invalid value: \"3Mi\": 3Mi is not positive integer multiple of hugepages-2Mi",
                "spec.template.spec.containers[0].resources.requests[hugepages-2Mi]: Invalid value: \"3Mi\": 3Mi is not positive integer multiple of hugepages-2Mi",
                "spec.template.spec.containers[0].resources: Forbidden: HugePages require cpu or memory",
            ]
        );
        // Whole pages with memory beside them are fine.
        let errs = errors_after(|d| {
            let r = &mut d.spec.template.spec.containers[0].resources;
            r.limits.insert("hugepages-2Mi".into(), json!("4Mi"));
            r.requests.insert("hugepages-2Mi".into(), json!("4Mi"));
            r.requests.insert("memory".into(), json!("64Mi"));
        });
        assert_eq!(errs, Vec::<String>::new());
    }

    #[test]
    fn quantity_regex_is_upstreams() {
        for ok in ["1", "500m", "1.5Gi", "+1", "1e3", "1E-3", "0.1", "128Mi"] {
            assert!(matches_quantity_regex(ok), "{ok}");
        }
        for bad in ["", "abc", "1 Gi", "m", "1Gi!", "--1"] {
            assert!(!matches_quantity_regex(bad), "{bad}");
        }
    }

    // --- probes ---

    #[test]
    fn liveness_and_startup_success_threshold_must_be_one() {
        assert_eq!(
            errors_after(|d| {
                let c = &mut d.spec.template.spec.containers[0];
                if let Some(p) = &mut c.liveness_probe {
                    p.success_threshold = Some(2);
                }
                let mut startup = c.liveness_probe.clone();
                if let Some(p) = &mut startup {
                    p.success_threshold = Some(3);
                }
                c.startup_probe = startup;
                if let Some(p) = &mut c.readiness_probe {
                    p.success_threshold = Some(3);
                }
            }),
            [
                "spec.template.spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1",
                "spec.template.spec.containers[0].startupProbe.successThreshold: Invalid value: 3: must be 1",
            ]
        );
    }

    #[test]
    fn probes_need_exactly_one_handler() {
        assert_eq!(
            errors_after(|d| {
                let c = &mut d.spec.template.spec.containers[0];
                if let Some(p) = &mut c.liveness_probe {
                    p.exec = Some(crate::sim::api::pod::ExecAction {
                        command: vec!["true".into()],
                    });
                }
                if let Some(p) = &mut c.readiness_probe {
                    p.http_get = None;
                }
            }),
            [
                "spec.template.spec.containers[0].livenessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type",
                "spec.template.spec.containers[0].readinessProbe: Required value: must specify a handler type",
            ]
        );
    }

    #[test]
    fn probe_fields() {
        assert_eq!(
            errors_after(|d| {
                let c = &mut d.spec.template.spec.containers[0];
                if let Some(p) = &mut c.readiness_probe {
                    p.period_seconds = Some(-1);
                    p.initial_delay_seconds = Some(-2);
                    p.termination_grace_period_seconds = Some(5);
                    if let Some(h) = &mut p.http_get {
                        h.port = IntOrString::String("HTTP".into());
                        h.scheme = Some("ftp".into());
                    }
                }
                if let Some(p) = &mut c.liveness_probe {
                    p.termination_grace_period_seconds = Some(0);
                    p.tcp_socket = Some(crate::sim::api::pod::TcpSocketAction {
                        port: IntOrString::Int(0),
                        host: None,
                    });
                }
            }),
            [
                "spec.template.spec.containers[0].livenessProbe.tcpSocket.port: Invalid value: 0: must be between 1 and 65535, inclusive",
                "spec.template.spec.containers[0].livenessProbe.terminationGracePeriodSeconds: Invalid value: 0: must be greater than 0",
                "spec.template.spec.containers[0].readinessProbe.httpGet.port: Invalid value: \"HTTP\": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
                "spec.template.spec.containers[0].readinessProbe.httpGet.port: Invalid value: \"HTTP\": must contain at least one letter (a-z)",
                "spec.template.spec.containers[0].readinessProbe.httpGet.scheme: Unsupported value: \"ftp\": supported values: \"HTTP\", \"HTTPS\"",
                "spec.template.spec.containers[0].readinessProbe.initialDelaySeconds: Invalid value: -2: must be greater than or equal to 0",
                "spec.template.spec.containers[0].readinessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0",
                "spec.template.spec.containers[0].readinessProbe.terminationGracePeriodSeconds: Invalid value: 5: must not be set for readinessProbes",
            ]
        );
    }

    #[test]
    fn pod_level_policies() {
        assert_eq!(
            errors_after(|d| {
                d.spec.template.spec.dns_policy = Some("Custom".into());
                d.spec.template.spec.restart_policy = Some("Sometimes".into());
            }),
            [
                "spec.template.spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", \"Never\"",
                "spec.template.spec.dnsPolicy: Unsupported value: \"Custom\": supported values: \"ClusterFirst\", \"ClusterFirstWithHostNet\", \"Default\", \"None\"",
                "spec.template.spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\"",
            ]
        );
    }

    // --- many errors at once, and the aggregate message ---

    const BROKEN: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: Web
spec:
  replicas: -1
  strategy:
    type: Recreate
    rollingUpdate: {maxSurge: 1}
  minReadySeconds: 10
  progressDeadlineSeconds: 5
  template:
    metadata:
      labels: {app: web}
    spec:
      restartPolicy: OnFailure
      containers:
      - name: web
        imagePullPolicy: Sometimes
        livenessProbe:
          periodSeconds: 5
";

    #[test]
    fn many_errors_at_once() {
        let mut d = decoded(BROKEN);
        set_defaults(&mut d);
        let errs = validate_deployment(&d);
        let expected = [
            "metadata.name: Invalid value: \"Web\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
            "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
            "spec.selector: Required value",
            "spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: `selector` does not match template `labels`",
            "spec.template.spec.containers[0].image: Required value",
            "spec.template.spec.containers[0].imagePullPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"IfNotPresent\", \"Never\"",
            "spec.template.spec.containers[0].livenessProbe: Required value: must specify a handler type",
            "spec.template.spec.restartPolicy: Unsupported value: \"OnFailure\": supported values: \"Always\"",
            "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'",
            "spec.progressDeadlineSeconds: Invalid value: 5: must be greater than minReadySeconds",
        ];
        assert_eq!(
            render(&errs),
            expected
                .iter()
                .map(|e| format!("{e}\n"))
                .collect::<String>()
        );
        let message = render_kubectl_invalid("Deployment", &d.metadata.name, &errs);
        assert_eq!(
            message,
            format!(
                "The Deployment \"Web\" is invalid: {}",
                expected
                    .iter()
                    .map(|e| format!("\n* {e}"))
                    .collect::<String>()
            )
        );
        // Every error points at a line of the manifest.
        let document = doc(BROKEN);
        let lines: Vec<Option<usize>> = errs.iter().map(|e| document.line_of(&e.field)).collect();
        assert_eq!(
            lines,
            [
                Some(4),
                Some(6),
                Some(5),
                Some(14),
                Some(18),
                Some(19),
                Some(20),
                Some(16),
                Some(9),
                Some(11)
            ]
        );
    }

    #[test]
    fn render_kubectl_invalid_forms() {
        let one = [FieldError::invalid(
            "spec.replicas",
            "-1".into(),
            IS_NEGATIVE,
        )];
        let twice = [one[0].clone(), one[0].clone()];
        let two = [one[0].clone(), FieldError::required("spec.selector", "")];
        assert_eq!(
            render_kubectl_invalid("Deployment", "web", &twice),
            "The Deployment \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0"
        );
        assert_eq!(
            render_kubectl_invalid("Deployment", "web", &two),
            "The Deployment \"web\" is invalid: \n* spec.replicas: Invalid value: -1: must be greater than or equal to 0\n* spec.selector: Required value"
        );
    }

    #[test]
    fn display_of_each_kind() {
        let cases = [
            (FieldError::required("a", ""), "a: Required value"),
            (FieldError::forbidden("a", "no"), "a: Forbidden: no"),
            (
                FieldError::duplicate("a", "\"x\"".into()),
                "a: Duplicate value: \"x\"",
            ),
            (
                FieldError::not_found("a", "\"x\"".into()),
                "a: Not found: \"x\"",
            ),
            (
                FieldError::too_long("a", 10),
                "a: Too long: may not be more than 10 bytes",
            ),
            (
                FieldError::not_supported("a", "\"x\"".into(), &["y", "z"]),
                "a: Unsupported value: \"x\": supported values: \"y\", \"z\"",
            ),
            (
                FieldError::type_invalid("a", "true".into(), "must be of type string"),
                "a: Invalid value: true: must be of type string",
            ),
        ];
        for (e, text) in cases {
            assert_eq!(e.to_string(), text);
        }
    }

    #[test]
    fn values_render_like_go() {
        assert_eq!(render_value(&json!("a\"b\n\u{1}é")), "\"a\\\"b\\n\\x01é\"");
        assert_eq!(render_value(&json!(-1)), "-1");
        assert_eq!(render_value(&json!(1.5)), "1.5");
        assert_eq!(
            render_value(&json!({"b": "<&>", "a": [true]})),
            "{\"a\":[true],\"b\":\"\\u003c\\u0026\\u003e\"}"
        );
    }

    /// `%q` escapes what `strconv.IsPrint` rejects: a non-breaking or zero-width space pasted
    /// into a name shows in the error, where printed raw it would be invisible; printable
    /// letters beyond ASCII stay as they are.
    #[test]
    fn go_quote_escapes_invisible_characters() {
        assert_eq!(go_quote("web\u{a0}x\u{200b}"), "\"web\\u00a0x\\u200b\"");
        assert_eq!(go_quote("caf\u{e9}\u{85}"), "\"caf\u{e9}\\u0085\"");
        assert_eq!(go_quote("\u{feff}\u{f0000}"), "\"\\ufeff\\U000f0000\"");
        assert_eq!(go_quote("\u{1f600}"), "\"\u{1f600}\"");
    }

    /// A named string type (here `core.PullPolicy` and `core.RestartPolicy`) is rendered by
    /// `json.Marshal`, with Go's HTML-safe and `\u00XX` escapes, where a plain string gets `%q`.
    #[test]
    fn named_string_types_render_as_json() {
        let mut d = valid();
        d.spec.template.spec.containers[0].image_pull_policy =
            Some(crate::sim::api::PullPolicy::Other("A<w&ys\u{7}".into()));
        d.spec.template.spec.restart_policy = Some("N<ver".into());
        let out = render(&validate_deployment(&d));
        assert!(
            out.contains("imagePullPolicy: Unsupported value: \"A\\u003cw\\u0026ys\\u0007\": supported values: \"Always\", \"IfNotPresent\", \"Never\""),
            "{out}"
        );
        assert!(
            out.contains("spec.template.spec.restartPolicy: Unsupported value: \"N\\u003cver\": supported values: \"Always\"\n"),
            "{out}"
        );
    }

    /// `IntValue()` is `strconv.Atoi` with its error dropped: a number too large for an int is
    /// clamped, not 0, so it does not also count as a zero `maxUnavailable` beside a zero
    /// `maxSurge`.
    #[test]
    fn an_overflowing_int_or_string_is_clamped_not_zero() {
        let big = IntOrString::String("99999999999999999999".into());
        assert_eq!(int_or_percent_value(&big), i64::MAX);
        assert_eq!(
            int_or_percent_value(&IntOrString::String("-99999999999999999999".into())),
            i64::MIN
        );
        assert_eq!(int_or_percent_value(&IntOrString::String("abc".into())), 0);
        let mut d = valid();
        let rolling = d
            .spec
            .strategy
            .rolling_update
            .get_or_insert_with(Default::default);
        rolling.max_surge = Some(IntOrString::Int(0));
        rolling.max_unavailable = Some(big);
        let out = render(&validate_deployment(&d));
        assert!(!out.contains("may not be 0"), "{out}");
        assert!(out.contains("a valid percent string"), "{out}");
    }

    #[test]
    fn a_required_node_affinity_is_checked_as_the_scheduler_reads_it() {
        let with = |affinity: Value| {
            let mut d = valid();
            d.spec
                .template
                .spec
                .extra
                .insert("affinity".into(), json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": affinity}}));
            render(&validate_deployment(&d))
        };
        let p = "spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
        assert_eq!(
            with(json!({"nodeSelectorTerms": []})),
            format!("{p}: Required value: must have at least one node selector term\n")
        );
        assert_eq!(
            with(json!({"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "zone", "operator": "In"},
                {"key": "gen", "operator": "Gt", "values": ["1", "2"]},
                {"key": "gpu", "operator": "Exists", "values": ["x"]},
                {"key": "zone", "operator": "Foo", "values": ["a"]}
            ], "matchFields": [{"key": "metadata.labels", "operator": "In", "values": ["a", "b"]}]}]})),
            format!(
                "{p}[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'\n\
                 {p}[0].matchExpressions[1].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'\n\
                 {p}[0].matchExpressions[2].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'\n\
                 {p}[0].matchExpressions[3].operator: Invalid value: \"Foo\": not a valid selector operator\n\
                 {p}[0].matchFields[0].values: Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector\n\
                 {p}[0].matchFields[0].key: Invalid value: \"metadata.labels\": not a valid field selector key\n"
            )
        );
        // A term with no requirements is valid (it matches no node).
        assert_eq!(with(json!({"nodeSelectorTerms": [{}]})), "");
        // Values are label values; a field selector's values are node names.
        let values = with(json!({"nodeSelectorTerms": [{
            "matchExpressions": [{"key": "zone", "operator": "In", "values": ["a b"]}],
            "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["Bad_Name"]}]
        }]}));
        assert!(
            values.starts_with(&format!(
                "{p}[0].matchExpressions[0].values[0]: Invalid value: \"a b\": "
            )) && values.contains(&format!(
                "\n{p}[0].matchFields[0].values[0]: Invalid value: \"Bad_Name\": "
            )),
            "{values}"
        );
        // A pod anti-affinity term needs its topology key.
        let mut d = valid();
        d.spec.template.spec.extra.insert(
            "affinity".into(),
            json!({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {"matchLabels": {"app": "web"}}}]}}),
        );
        let rendered = render(&validate_deployment(&d));
        assert!(
            rendered.starts_with("spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty\n"),
            "{rendered}"
        );
        // Its label selector is checked as any.
        d.spec.template.spec.extra.insert(
            "affinity".into(),
            json!({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {"matchExpressions": [{"key": "app", "operator": "In"}]}, "topologyKey": "kubernetes.io/hostname"}]}}),
        );
        let rendered = render(&validate_deployment(&d));
        assert!(
            rendered.starts_with("spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].values: Required value"),
            "{rendered}"
        );
    }

    /// `validatePodAffinityTerm`: the selectors, namespace names (at upstream's singular path),
    /// the label-key lists, then the topology key; for a preferred term, its weight first.
    #[test]
    fn pod_affinity_terms_are_validated_as_upstream() {
        let mut d = valid();
        d.spec.template.spec.extra.insert(
            "affinity".into(),
            json!({"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 0, "podAffinityTerm": {
                    "namespaceSelector": {"matchLabels": {"bad key!": "x"}},
                    "namespaces": ["Bad_NS"],
                    "matchLabelKeys": ["pod-template-hash"],
                    "topologyKey": "kubernetes.io/hostname"}},
                {"weight": 10, "podAffinityTerm": {
                    "labelSelector": {"matchLabels": {"app": "web"}},
                    "matchLabelKeys": ["tier"], "mismatchLabelKeys": ["tier"],
                    "topologyKey": "kubernetes.io/hostname"}}
            ]}}),
        );
        let rendered = render(&validate_deployment(&d));
        let p = "spec.template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution";
        let lines: Vec<&str> = rendered.lines().collect();
        assert_eq!(lines.len(), 5, "{rendered}");
        assert_eq!(
            lines[0],
            format!("{p}[0].weight: Invalid value: 0: must be in the range 1-100")
        );
        assert!(lines[1].starts_with(&format!("{p}[0].podAffinityTerm.namespaceSelector.matchLabels: Invalid value: \"bad key!\": ")), "{rendered}");
        assert!(
            lines[2].starts_with(&format!(
                "{p}[0].podAffinityTerm.namespace: Invalid value: \"Bad_NS\": "
            )),
            "{rendered}"
        );
        assert_eq!(
            lines[3],
            format!(
                "{p}[0].podAffinityTerm.matchLabelKeys: Forbidden: must not be specified when labelSelector is not set"
            )
        );
        assert_eq!(
            lines[4],
            format!(
                "{p}[1].podAffinityTerm.matchLabelKeys[0]: Invalid value: \"tier\": exists in both matchLabelKeys and mismatchLabelKeys"
            )
        );
    }

    /// `ValidateTolerations`: each rule's path and text, in upstream's order per toleration.
    #[test]
    fn tolerations_are_validated_as_upstream() {
        let with = |tolerations: Value| {
            let mut d = valid();
            d.spec
                .template
                .spec
                .extra
                .insert("tolerations".into(), tolerations);
            render(&validate_deployment(&d))
        };
        let p = "spec.template.spec.tolerations";
        assert_eq!(
            with(json!([
                {"operator": "Equal", "value": "gpu"},
                {"key": "dedicated", "operator": "Exists", "value": "gpu", "effect": "NoSchedule"},
                {"key": "dedicated", "effect": "NoSchedule", "tolerationSeconds": 10},
                {"key": "dedicated", "operator": "Lt", "value": "5"},
                {"key": "bad key!", "effect": "Sometimes"}
            ])),
            format!(
                "{p}[0].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\"\n\
                 {p}[1].operator: Invalid value: {{\"Key\":\"dedicated\",\"Operator\":\"Exists\",\"Value\":\"gpu\",\"Effect\":\"NoSchedule\",\"TolerationSeconds\":null}}: value must be empty when `operator` is 'Exists'\n\
                 {p}[2].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set\n\
                 {p}[3].operator: Unsupported value: \"Lt\": supported values: \"Equal\", \"Exists\"\n\
                 {p}[4].key: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')\n\
                 {p}[4].effect: Unsupported value: \"Sometimes\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"\n"
            )
        );
        assert_eq!(
            with(json!([
                {"operator": "Exists"},
                {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30},
                {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}
            ])),
            ""
        );
    }

    /// `validateTopologySpreadConstraints`: each rule's path and text, in upstream's order per
    /// constraint; a repeated key and action is reported at the first of the pair.
    #[test]
    fn topology_spread_constraints_are_validated_as_upstream() {
        let with = |constraints: Value| {
            let mut d = valid();
            d.spec
                .template
                .spec
                .extra
                .insert("topologySpreadConstraints".into(), constraints);
            render(&validate_deployment(&d))
        };
        let p = "spec.template.spec.topologySpreadConstraints";
        assert_eq!(
            with(json!([
                {"maxSkew": 0, "topologyKey": "", "whenUnsatisfiable": "Sometimes"},
                {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
                 "minDomains": 0, "nodeTaintsPolicy": "Always"},
                {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
                 "matchLabelKeys": ["pod-template-hash"]},
                {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                 "labelSelector": {"matchLabels": {"app": "web"}}, "matchLabelKeys": ["app"]}
            ])),
            format!(
                "{p}[0].maxSkew: Invalid value: 0: must be greater than zero\n\
                 {p}[0].topologyKey: Required value: can not be empty\n\
                 {p}[0].whenUnsatisfiable: Unsupported value: \"Sometimes\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"\n\
                 {p}[1].{{topologyKey, whenUnsatisfiable}}: Duplicate value: \"{{zone, ScheduleAnyway}}\"\n\
                 {p}[1].minDomains: Invalid value: 0: must be greater than zero\n\
                 {p}[1].minDomains: Invalid value: 0: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway\n\
                 {p}[1].nodeTaintsPolicy: Unsupported value: \"Always\": supported values: \"Honor\", \"Ignore\"\n\
                 {p}[2].matchLabelKeys: Forbidden: must not be specified when labelSelector is not set\n\
                 {p}[3].matchLabelKeys[0]: Invalid value: \"app\": exists in both matchLabelKeys and labelSelector\n"
            )
        );
        assert_eq!(
            with(json!([
                {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
                 "labelSelector": {"matchLabels": {"app": "web"}}, "minDomains": 3,
                 "matchLabelKeys": ["pod-template-hash"], "nodeAffinityPolicy": "Ignore"},
                {"maxSkew": 2, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway"}
            ])),
            ""
        );
    }

    // --- updates ---

    #[test]
    fn selector_is_immutable() {
        let old = valid();
        let mut new = valid();
        new.spec.selector = Some(LabelSelector {
            match_labels: labels(&[("app", "web"), ("tier", "front")]).into(),
            ..Default::default()
        });
        new.spec
            .template
            .metadata
            .labels
            .insert("tier".into(), "front".into());
        assert_eq!(
            render(&validate_deployment_update(&new, &old)),
            "spec.selector: Invalid value: {\"matchLabels\":{\"app\":\"web\",\"tier\":\"front\"}}: field is immutable\n"
        );
    }

    #[test]
    fn name_and_namespace_are_immutable() {
        let old = valid();
        let mut new = valid();
        new.metadata.name = "api".into();
        new.metadata.namespace = "prod".into();
        assert_eq!(
            render(&validate_deployment_update(&new, &old)),
            "metadata.name: Invalid value: \"api\": field is immutable\nmetadata.namespace: Invalid value: \"prod\": field is immutable\n"
        );
        let mut same = valid();
        same.metadata.namespace = "default".into();
        assert!(validate_deployment_update(&same, &old).is_empty());
    }

    #[test]
    fn update_validates_the_new_spec() {
        let old = valid();
        let mut new = valid();
        new.spec.replicas = Some(-2);
        assert_eq!(
            render(&validate_deployment_update(&new, &old)),
            "spec.replicas: Invalid value: -2: must be greater than or equal to 0\n"
        );
    }

    // --- decoding ---

    fn decode_errors(text: &str) -> Vec<String> {
        match decode(text) {
            Ok(_) => panic!("should fail to decode"),
            Err(errs) => errs.iter().map(ToString::to_string).collect(),
        }
    }

    #[test]
    fn api_version_and_kind_are_checked() {
        assert_eq!(
            decode_errors("metadata: {name: web}\n"),
            ["apiVersion: Required value", "kind: Required value"]
        );
        assert_eq!(
            decode_errors("apiVersion: extensions/v1beta1\nkind: Pod\n"),
            [
                "apiVersion: Unsupported value: \"extensions/v1beta1\": supported values: \"apps/v1\"",
                "kind: Unsupported value: \"Pod\": supported values: \"Deployment\"",
            ]
        );
        assert_eq!(
            decode_errors("apiVersion: apps/v1beta2\nkind: Deployment\nmetadata: {name: web}\n"),
            [
                "apiVersion: resource mapping not found for name: \"web\" namespace: \"\" from \"STDIN\": no matches for kind \"Deployment\" in version \"apps/v1beta2\"; ensure CRDs are installed first"
            ]
        );
        assert_eq!(
            decode_errors("apiVersion: 1\nkind: Deployment\n"),
            ["apiVersion: Invalid value: 1: must be of type string"]
        );
        assert_eq!(
            decode_errors(""),
            ["Required value: the document is empty; expected a Deployment manifest"]
        );
        assert_eq!(
            decode_errors("- a\n"),
            ["Invalid value: a Deployment manifest must be a YAML mapping"]
        );
    }

    /// Under kubectl's default `--validate=strict`, the API server refuses a field the type
    /// does not have, naming each one as the strict decoder meets it: keys sorted within each
    /// object, depth first. A misspelt field must not quietly fall back to its default.
    #[test]
    fn affinity_security_contexts_volumes_and_spread_constraints_are_checked_field_by_field() {
        let text = "\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      securityContext: {runAsNonroot: true, fsGroup: 2000}
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpresions: [{key: zone, operator: In, values: [a]}]
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 100
            podAffinityTerm: {topologyKey: kubernetes.io/hostname, labelSelecter: {}}
      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelselector: {}}
      volumes:
      - {name: cache, emptydir: {}}
      - {name: conf, configMap: {name: web, item: []}}
      containers:
      - name: web
        image: web:1.0
        securityContext: {readOnlyRootFilesystem: true, capabilities: {drop: [ALL], ad: []}}
";
        assert_eq!(
            decode_errors(text),
            [
                "unknown field \"spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpresions\"",
                "unknown field \"spec.template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.labelSelecter\"",
                "unknown field \"spec.template.spec.containers[0].securityContext.capabilities.ad\"",
                "unknown field \"spec.template.spec.securityContext.runAsNonroot\"",
                "unknown field \"spec.template.spec.topologySpreadConstraints[0].labelselector\"",
                "unknown field \"spec.template.spec.volumes[0].emptydir\"",
                "unknown field \"spec.template.spec.volumes[1].configMap.item\"",
            ]
        );
        // Spelled right, the same manifest decodes, and the fields are kept in the template.
        let fixed = text
            .replace("runAsNonroot", "runAsNonRoot")
            .replace("matchExpresions", "matchExpressions")
            .replace("labelSelecter", "labelSelector")
            .replace("labelselector", "labelSelector")
            .replace("emptydir", "emptyDir")
            .replace("item: []", "items: []")
            .replace("ad: []", "add: []");
        let d = decode(&fixed).unwrap_or_else(|e| panic!("{e:?}"));
        assert!(d.spec.template.spec.extra.contains_key("affinity"));
        assert_eq!(
            decode_errors(&fixed.replace("fsGroup: 2000", "fsGroup: two")),
            [
                "spec.template.spec.securityContext.fsGroup: Invalid value: \"two\": must be of type int64"
            ]
        );
    }

    #[test]
    fn unknown_fields_are_refused_in_the_order_the_decoder_meets_them() {
        let text = "\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, lables: {a: b}}
spec:
  replica: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: web:1.0
        readinesProbe: {tcpSocket: {port: 8080}}
        ports: [{containerPort: 80, protocl: TCP}]
  strategy: {rollingUpdate: {maxsurge: 1}}
  aaa: null
";
        assert_eq!(
            decode_errors(text),
            [
                "unknown field \"metadata.lables\"",
                "unknown field \"spec.aaa\"",
                "unknown field \"spec.replica\"",
                "unknown field \"spec.strategy.rollingUpdate.maxsurge\"",
                "unknown field \"spec.template.spec.containers[0].ports[0].protocl\"",
                "unknown field \"spec.template.spec.containers[0].readinesProbe\"",
            ]
        );
        // The error keeps its path apart, so the editor can point at the line.
        let errs = decode(text).err().unwrap_or_default();
        assert_eq!(errs[2].field, "spec.replica");
        assert_eq!(errs[2].kind, ErrorKind::UnknownField);
    }

    /// Environment variables, their sources, volume mounts, init containers and tolerations are
    /// checked field by field too: a misspelt `value` would otherwise leave the variable empty
    /// without a word.
    #[test]
    fn env_and_mount_fields_are_checked_strictly() {
        let text = "\
apiVersion: apps/v1
kind: Deployment
spec:
  template:
    spec:
      containers:
      - name: web
        env:
        - {name: A, vaule: x}
        - {name: B, valueFrom: {secretKeyRef: {name: s, key: k, optinal: true}}}
        - {name: C, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
        envFrom: [{configMapRef: {name: c}, prefx: P_}]
        volumeMounts: [{name: v, mountPath: /x, readonly: true}]
      initContainers: [{name: init, imgae: busybox}]
      tolerations: [{key: k, operater: Exists}]
";
        assert_eq!(
            decode_errors(text),
            [
                "unknown field \"spec.template.spec.containers[0].env[0].vaule\"",
                "unknown field \"spec.template.spec.containers[0].env[1].valueFrom.secretKeyRef.optinal\"",
                "unknown field \"spec.template.spec.containers[0].envFrom[0].prefx\"",
                "unknown field \"spec.template.spec.containers[0].volumeMounts[0].readonly\"",
                "unknown field \"spec.template.spec.initContainers[0].imgae\"",
                "unknown field \"spec.template.spec.tolerations[0].operater\"",
            ]
        );
        assert_eq!(
            decode_errors(
                "apiVersion: apps/v1\nkind: Deployment\nspec: {template: {spec: {containers: [{name: w, env: [{name: A, value: 1}]}]}}}\n"
            ),
            [
                "spec.template.spec.containers[0].env[0].value: Invalid value: 1: must be of type string"
            ]
        );
    }

    /// A type error stops decoding before strict checks run, as upstream's decoder returns its
    /// fatal error instead of the strict ones.
    #[test]
    fn a_type_error_comes_before_unknown_fields() {
        let text = "apiVersion: apps/v1\nkind: Deployment\nspec: {replicas: x, replica: 3}\n";
        assert_eq!(
            decode_errors(text),
            ["spec.replicas: Invalid value: \"x\": must be of type int32"]
        );
    }

    /// Real fields the simulator does not model are accepted, and a pod template keeps them, so
    /// that changing one (a classic: an environment variable) still changes the template.
    #[test]
    fn unmodelled_api_fields_are_accepted_and_kept_in_the_template() {
        let with_env = |value: &str| {
            decoded(&format!(
                "\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web, finalizers: [x], resourceVersion: \"7\"}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      serviceAccountName: web
      securityContext: {{runAsNonRoot: true}}
      tolerations: [{{key: k, operator: Exists}}]
      affinity: {{}}
      volumes: [{{name: v, emptyDir: {{}}}}]
      containers:
      - name: web
        image: web:1.0
        command: [serve]
        env: [{{name: MODE, value: {value}}}]
        volumeMounts: [{{name: v, mountPath: /data}}]
        ports: [{{containerPort: 80, hostPort: 8080}}]
        readinessProbe: {{httpGet: {{port: 80, httpHeaders: [{{name: h, value: v}}]}}}}
"
            ))
        };
        let (a, b) = (with_env("a"), with_env("b"));
        assert_eq!(a.spec.replicas, Some(2));
        let container = &a.spec.template.spec.containers[0];
        assert!(container.extra.contains_key("env"));
        assert!(a.spec.template.spec.extra.contains_key("tolerations"));
        assert_ne!(a.spec.template, b.spec.template);
    }

    #[test]
    fn type_errors_keep_their_field_path() {
        let text = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {version: 1.0}
spec:
  replicas: three
  paused: \"yes\"
  selector: [app]
  strategy:
    rollingUpdate: {maxSurge: 1.5}
  template:
    spec:
      containers:
      - name: web
        image: {repo: nginx}
        ports: 80
        readinessProbe:
          periodSeconds: 3000000000
";
        let errs = match decode(text) {
            Ok(_) => panic!("should fail"),
            Err(errs) => errs,
        };
        assert_eq!(
            render(&errs),
            "\
metadata.labels[version]: Invalid value: 1.0: must be of type string
spec.replicas: Invalid value: \"three\": must be of type int32
spec.selector: Invalid value: [\"app\"]: must be of type object
spec.template.spec.containers[0].image: Invalid value: {\"repo\":\"nginx\"}: must be of type string
spec.template.spec.containers[0].ports: Invalid value: 80: must be of type array
spec.template.spec.containers[0].readinessProbe.periodSeconds: Invalid value: 3000000000: must be of type int32
spec.strategy.rollingUpdate.maxSurge: Invalid value: 1.5: must be of type int32 or string
spec.paused: Invalid value: \"yes\": must be of type boolean
"
        );
        assert!(errs.iter().all(|e| e.kind == ErrorKind::TypeInvalid));
        let document = doc(text);
        assert_eq!(document.line_of(&errs[0].field), Some(5));
        assert_eq!(document.line_of(&errs[1].field), Some(7));
        assert_eq!(document.line_of(&errs[5].field), Some(19));
    }

    /// `SetDefaults_Volume`: a volume that names no source is an empty directory, stored as
    /// such, and a container may mount it.
    #[test]
    fn a_volume_without_a_source_defaults_to_an_empty_directory() {
        let mut d = valid();
        d.spec
            .template
            .spec
            .extra
            .insert("volumes".into(), serde_json::json!([{"name": "scratch"}]));
        d.spec.template.spec.containers[0].extra.insert(
            "volumeMounts".into(),
            serde_json::json!([{"name": "scratch", "mountPath": "/s"}]),
        );
        set_defaults(&mut d);
        assert_eq!(validate_deployment(&d), []);
        assert_eq!(
            d.spec.template.spec.extra["volumes"],
            serde_json::json!([{"name": "scratch", "emptyDir": {}}])
        );
    }

    /// Zeros of non-pointer fields are as good as absent to the API server, so they change
    /// neither the stored template nor its hash; a label's empty value and a pointer field's
    /// zero are kept.
    #[test]
    fn zeros_the_api_server_cannot_see_are_dropped_and_pointer_zeros_kept() {
        let manifest = |extra: &str| {
            format!(
                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web}}\nspec:\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{labels: {{app: web, empty: \"\"}}}}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n        readinessProbe:\n          httpGet: {{path: /, port: 80}}\n{extra}"
            )
        };
        let plain = decoded(&manifest(""));
        let zeros = decoded(&manifest(
            "          initialDelaySeconds: 0\n        ports: [{containerPort: 80, hostPort: 0, name: \"\"}]\n        command: []\n        stdin: false\n        workingDir: \"\"\n        env: [{name: A, value: \"\"}]\n      nodeSelector: {}\n      hostNetwork: false\n      tolerations: []\n",
        ));
        let ports_only = decoded(&manifest(
            "        ports: [{containerPort: 80}]\n        env: [{name: A}]\n",
        ));
        // Only the port and the env var remain of what the second manifest wrote.
        assert_eq!(zeros.spec.template, ports_only.spec.template);
        assert_ne!(zeros.spec.template, plain.spec.template);
        assert_eq!(
            plain
                .spec
                .template
                .metadata
                .labels
                .get("empty")
                .map(String::as_str),
            Some(""),
            "a label's empty value is data"
        );
        // A pointer field's zero is a setting: it stays.
        let grace = decoded(&manifest(
            "      terminationGracePeriodSeconds: 0\n      automountServiceAccountToken: false\n",
        ));
        assert_eq!(
            grace.spec.template.spec.termination_grace_period_seconds,
            Some(0)
        );
        assert_eq!(
            grace
                .spec
                .template
                .spec
                .extra
                .get("automountServiceAccountToken"),
            Some(&Value::Bool(false))
        );
    }

    #[test]
    fn decoding_is_lenient_where_go_is() {
        let d = decoded(
            "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  creationTimestamp: null
  resourceVersion: \"12\"
spec:
  replicas: 2.0
  revisionHistoryLimit: null
  selector:
    matchExpressions:
    - {operator: Exists}
  template:
    metadata:
      creationTimestamp: \"2024-01-01T00:00:00Z\"
      labels: {app: web, empty: null}
    spec:
      containers:
      - name: web
        image: nginx
        env: [{name: A, value: b}]
        readinessProbe:
          httpGet: {path: /}
      volumes: null
status:
  replicas: 3
  conditions: [{type: Available, lastUpdateTime: \"2024-01-01T00:00:00Z\"}]
",
        );
        assert_eq!(d.spec.replicas, Some(2));
        assert_eq!(d.spec.revision_history_limit, None);
        assert_eq!(
            d.spec.template.metadata.labels,
            labels(&[("app", "web"), ("empty", "")]).into()
        );
        let selector = d
            .spec
            .selector
            .as_ref()
            .map(|s| s.match_expressions[0].key.clone());
        assert_eq!(selector.as_deref(), Some(""));
        let c = &d.spec.template.spec.containers[0];
        assert_eq!(
            c.extra.get("env"),
            Some(&json!([{"name": "A", "value": "b"}]))
        );
        let port = c
            .readiness_probe
            .as_ref()
            .and_then(|p| p.http_get.as_ref())
            .map(|h| h.port.clone());
        assert_eq!(port, Some(IntOrString::Int(0)));
        assert!(!d.spec.template.spec.extra.contains_key("volumes"));
        assert_eq!(d.status, Default::default());
    }

    #[test]
    fn decode_default_validate_round_trip() {
        let d = valid();
        assert_eq!(
            d.spec.template.spec.containers[0].image_pull_policy,
            Some(PullPolicy::IfNotPresent)
        );
        let probe = d.spec.template.spec.containers[0]
            .readiness_probe
            .clone()
            .unwrap_or_default();
        assert_eq!(
            (
                probe.timeout_seconds,
                probe.period_seconds,
                probe.success_threshold,
                probe.failure_threshold,
                probe.initial_delay_seconds
            ),
            (Some(1), Some(10), Some(1), Some(3), None)
        );
        assert_eq!(
            probe.http_get.map(|h| (h.path, h.scheme)),
            Some((Some("/".to_string()), Some("HTTP".to_string())))
        );
    }

    // --- defaults: TestSetDefaultDeployment, pkg/apis/apps/v1/defaults_test.go ---

    fn defaulted_spec(spec: Value) -> Value {
        let d: Deployment = match serde_json::from_value(json!({ "spec": spec })) {
            Ok(d) => d,
            Err(e) => panic!("bad test input: {e}"),
        };
        let mut d = d;
        set_defaults(&mut d);
        let spec = serde_json::to_value(&d.spec).unwrap_or(Value::Null);
        json!({
            "replicas": spec["replicas"],
            "strategy": spec["strategy"],
            "revisionHistoryLimit": spec["revisionHistoryLimit"],
            "progressDeadlineSeconds": spec["progressDeadlineSeconds"],
        })
    }

    #[test]
    fn vector_defaults() {
        let cases = [
            (
                json!({}),
                json!({"replicas": 1, "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}, "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600}),
            ),
            (
                json!({"replicas": 5, "strategy": {"rollingUpdate": {"maxSurge": 5}}}),
                json!({"replicas": 5, "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 5, "maxUnavailable": "25%"}}, "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600}),
            ),
            (
                json!({"replicas": 3, "strategy": {"type": "RollingUpdate"}}),
                json!({"replicas": 3, "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}, "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600}),
            ),
            (
                json!({"replicas": 5, "strategy": {"type": "Recreate"}, "revisionHistoryLimit": 0}),
                json!({"replicas": 5, "strategy": {"type": "Recreate"}, "revisionHistoryLimit": 0, "progressDeadlineSeconds": 600}),
            ),
            (
                json!({"replicas": 5, "strategy": {"type": "Recreate"}, "progressDeadlineSeconds": 30, "revisionHistoryLimit": 2}),
                json!({"replicas": 5, "strategy": {"type": "Recreate"}, "revisionHistoryLimit": 2, "progressDeadlineSeconds": 30}),
            ),
        ];
        for (input, expected) in cases {
            assert_eq!(defaulted_spec(input.clone()), expected, "input {input}");
        }
    }

    #[test]
    fn pod_template_defaults() {
        let mut d = Deployment::default();
        d.spec.template.spec.containers.push(Container {
            name: "c".into(),
            image: "nginx".into(),
            ..Default::default()
        });
        set_defaults(&mut d);
        let spec = &d.spec.template.spec;
        assert_eq!(spec.restart_policy.as_deref(), Some("Always"));
        assert_eq!(spec.termination_grace_period_seconds, Some(30));
        assert_eq!(spec.dns_policy.as_deref(), Some("ClusterFirst"));
        assert_eq!(spec.scheduler_name.as_deref(), Some("default-scheduler"));
        assert_eq!(spec.extra.get("securityContext"), Some(&json!({})));
        assert_eq!(
            spec.containers[0].image_pull_policy,
            Some(PullPolicy::Always)
        );
        let once = d.clone();
        set_defaults(&mut d);
        assert_eq!(d, once, "defaulting twice changes nothing");
    }

    #[test]
    fn explicit_values_survive_defaulting() {
        let mut d = decoded(
            "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      terminationGracePeriodSeconds: 5\n      securityContext: {runAsUser: 1}\n      containers:\n      - {name: c, image: app, imagePullPolicy: Never, livenessProbe: {exec: {command: [x]}, periodSeconds: 0, timeoutSeconds: 7, initialDelaySeconds: 4}}\n",
        );
        set_defaults(&mut d);
        let spec = &d.spec.template.spec;
        assert_eq!(spec.restart_policy.as_deref(), Some("Never"));
        assert_eq!(spec.termination_grace_period_seconds, Some(5));
        assert_eq!(
            spec.extra.get("securityContext"),
            Some(&json!({"runAsUser": 1}))
        );
        let c = &spec.containers[0];
        assert_eq!(c.image_pull_policy, Some(PullPolicy::Never));
        let p = c.liveness_probe.clone().unwrap_or_default();
        assert_eq!(
            (p.period_seconds, p.timeout_seconds, p.initial_delay_seconds),
            (Some(10), Some(7), Some(4))
        );
    }

    #[test]
    fn pull_policy_follows_the_image_tag() {
        let cases = [
            ("nginx", PullPolicy::Always),
            ("nginx:latest", PullPolicy::Always),
            ("library/nginx", PullPolicy::Always),
            ("localhost:5000/app", PullPolicy::Always),
            (
                "registry.example.com:443/team/app:latest",
                PullPolicy::Always,
            ),
            ("nginx:1.27", PullPolicy::IfNotPresent),
            ("localhost:5000/app:v2", PullPolicy::IfNotPresent),
            ("nginx@sha256:0123456789abcdef", PullPolicy::IfNotPresent),
            (
                "nginx:1.27@sha256:0123456789abcdef",
                PullPolicy::IfNotPresent,
            ),
            ("NGINX", PullPolicy::IfNotPresent),
            ("", PullPolicy::IfNotPresent),
            ("nginx:", PullPolicy::IfNotPresent),
        ];
        for (image, policy) in cases {
            assert_eq!(default_pull_policy(image), policy, "{image}");
        }
    }

    #[test]
    fn syntax_helpers() {
        assert!(is_valid_percent("0%").is_empty());
        assert!(!is_valid_percent("%").is_empty());
        assert!(!is_valid_percent("5").is_empty());
        assert!(is_qualified_name("app.kubernetes.io/name").is_empty());
        assert_eq!(
            is_qualified_name(&"a".repeat(64)),
            ["name part must be no more than 63 characters"]
        );
        assert!(is_valid_label_value("").is_empty());
        assert!(is_dns1123_label("a-1").is_empty());
        assert!(is_valid_port_name("http").is_empty());
        assert_eq!(
            is_valid_port_name("8080"),
            ["must contain at least one letter (a-z)"]
        );
    }
}
