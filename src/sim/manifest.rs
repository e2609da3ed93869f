//! The manifest: a Deployment's YAML text as a person edits it. This module cuts it out of a
//! scenario file, checks it the way `kubectl apply` would (decode, default, validate) with every
//! error at its source line, and changes one field at a time for the form controls while
//! leaving the rest of the text — comments, order, flow maps — as the person wrote it.

use super::api::Deployment;
use super::controller::deployment::util::LAST_APPLIED_CONFIG_ANNOTATION;
use super::validation;
use super::yaml::{self, Document, Limits};
use serde_json::Value;

/// Replicas RolloutScope simulates at most: more is valid Kubernetes but beyond a step-through.
pub const MAX_REPLICAS: i64 = 20_000;

/// Why a replica count is refused although Kubernetes would take it: more than RolloutScope
/// simulates. One wording for the manifest, the scenario file, `kubectl scale` and the app.
pub fn beyond_simulated(replicas: i64) -> Option<String> {
    (replicas > MAX_REPLICAS).then(|| {
        format!(
            "{replicas} is valid Kubernetes but more than RolloutScope simulates (at most {MAX_REPLICAS})"
        )
    })
}

/// Why a namespace is refused although Kubernetes would take it: RolloutScope simulates only
/// `default` (an empty namespace is kubectl's default). One wording for the Deployment, applied
/// manifests and the scenario's budgets.
pub fn beyond_simulated_namespace(namespace: &str) -> Option<String> {
    (!namespace.is_empty() && namespace != crate::sim::api::DEFAULT_NAMESPACE).then(|| {
        format!(
            "Unsupported value: {namespace:?}: supported values: \"default\" (RolloutScope simulates the default namespace)"
        )
    })
}

/// One problem with a manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestError {
    /// 1-based line in the manifest text, when known.
    pub line: Option<usize>,
    /// The field path as the API server prints it (`spec.replicas`); empty for YAML syntax.
    pub field: String,
    /// The whole message, API-server style (`spec.replicas: Invalid value: -1: must be …`).
    pub message: String,
}

/// Decodes, defaults and validates the Deployment in `doc`, as the API server would on
/// `kubectl apply`, and returns it as written (defaults are applied again by the command) with
/// the last-applied-configuration annotation that `kubectl apply` adds.
/// Errors carry paths relative to `doc` and no lines; the caller knows where `doc` sits.
///
/// # Errors
/// Every problem found, never only the first.
pub fn check_document(doc: &Document) -> Result<Deployment, Vec<(String, String)>> {
    check_document_with(doc, true)
}

/// [`check_document`] for a manifest applied later in a scenario: decoded (a field the type
/// lacks, or a value of the wrong type, is refused now, as kubectl refuses it before sending)
/// but not validated, since the API server judges it when it arrives, against the Deployment
/// live then; its refusal is a step that changes nothing.
///
/// # Errors
/// Every decoding problem, and a replica count beyond what RolloutScope simulates.
pub fn decode_document(doc: &Document) -> Result<Deployment, Vec<(String, String)>> {
    check_document_with(doc, false)
}

fn check_document_with(
    doc: &Document,
    validate: bool,
) -> Result<Deployment, Vec<(String, String)>> {
    let as_pairs = |errs: Vec<validation::FieldError>| {
        errs.into_iter()
            .map(|e| (e.field.clone(), e.to_string()))
            .collect::<Vec<_>>()
    };
    let d = validation::decode_deployment(doc).map_err(as_pairs)?;
    let mut defaulted = d.clone();
    validation::set_defaults(&mut defaulted);
    let errs = if validate {
        validation::validate_deployment(&defaulted)
    } else {
        Vec::new()
    };
    if !errs.is_empty() {
        return Err(as_pairs(errs));
    }
    if let Some(why) = beyond_simulated(defaulted.replicas().into()) {
        return Err(vec![(
            "spec.replicas".to_string(),
            format!("spec.replicas: {why}"),
        )]);
    }
    // A manifest for another namespace would be another Deployment on a real cluster; the
    // simulator has one namespace, so it says so rather than run it in `default`.
    if let Some(why) = beyond_simulated_namespace(&d.metadata.namespace) {
        return Err(vec![(
            "metadata.namespace".to_string(),
            format!("metadata.namespace: {why}"),
        )]);
    }
    let mut d = d;
    d.metadata.annotations.insert(
        LAST_APPLIED_CONFIG_ANNOTATION.to_string(),
        last_applied_configuration(&doc.value),
    );
    Ok(d)
}

/// The `kubectl.kubernetes.io/last-applied-configuration` annotation `kubectl apply` writes, so
/// that its next apply can tell which fields it set: the manifest as JSON (Go's encoding: keys
/// sorted, `<`, `>` and `&` escaped, a final newline), without this annotation, with the
/// `annotations` map it always sets (empty when the manifest has none) and the namespace.
fn last_applied_configuration(manifest: &Value) -> String {
    let mut v = manifest.clone();
    if let Some(meta) = v.get_mut("metadata").and_then(Value::as_object_mut) {
        let annotations = meta
            .entry("annotations")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        if let Some(a) = annotations.as_object_mut() {
            a.remove(LAST_APPLIED_CONFIG_ANNOTATION);
        }
        meta.entry("namespace")
            .or_insert_with(|| Value::String("default".to_string()));
    }
    let mut out = go_html_safe(&v.to_string());
    out.push('\n');
    out
}

/// JSON text with the escapes Go's `encoding/json` adds by default (`SetEscapeHTML`): `<`, `>`
/// and `&` as `\u003c`, `\u003e`, `\u0026`, and the line and paragraph separators. They can only
/// occur inside strings, so the text stays the same JSON.
pub fn go_html_safe(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for ch in json.chars() {
        match ch {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            _ => out.push(ch),
        }
    }
    out
}

/// Checks a manifest's text: YAML syntax first, then the Deployment itself.
///
/// # Errors
/// Every problem found, each with the line it points at.
pub fn check(text: &str) -> Result<Deployment, Vec<ManifestError>> {
    check_parsed(&parse_document(text)?)
}

/// Checks a manifest already parsed by [`parse_document`], each error at the line it points at.
///
/// # Errors
/// Every problem found.
pub fn check_parsed(doc: &Document) -> Result<Deployment, Vec<ManifestError>> {
    check_document(doc).map_err(|errs| {
        errs.into_iter()
            .map(|(field, message)| ManifestError {
                line: doc.line_of(&field),
                field,
                message,
            })
            .collect()
    })
}

/// Parses a manifest's YAML with the loader's limits.
///
/// # Errors
/// The syntax error, at its line.
pub fn parse_document(text: &str) -> Result<Document, Vec<ManifestError>> {
    yaml::parse_manifest(text, &Limits::default()).map_err(|e| {
        vec![ManifestError {
            line: Some(e.line),
            field: String::new(),
            message: e.message.clone(),
        }]
    })
}

/// The value at a dotted field path (`spec.template.spec.containers[0].image`) of a parsed
/// manifest, if it is there.
pub fn value_at<'a>(doc: &'a Document, path: &str) -> Option<&'a Value> {
    segments(path)
        .iter()
        .try_fold(&doc.value, |v, seg| match seg {
            Segment::Key(k) => v.as_object()?.get(k.as_str()),
            Segment::Index(i) => v.as_array()?.get(*i),
        })
}

/// The block under a top-level key of a scenario file (`deployment:`), dedented, so a person
/// edits the manifest as they would a file of its own. `None` when the key is absent or its
/// value sits on the key's own line (a flow map), which has no block to cut out.
pub fn extract_block(scenario_text: &str, key: &str) -> Option<String> {
    let lines: Vec<&str> = scenario_text.lines().collect();
    let head = format!("{key}:");
    let start = lines
        .iter()
        .position(|l| l.trim_end() == head || l.starts_with(&format!("{head} #")))?;
    block_below(&lines, start, 0)
}

/// The manifest of each `apply:` action of a scenario file, in the order of the `actions:`
/// list, dedented like [`extract_block`]; `None` for an action that is not an apply or whose
/// manifest is written as a flow map.
pub fn extract_apply_blocks(scenario_text: &str) -> Vec<Option<String>> {
    let Ok(doc) = yaml::parse(scenario_text, &Limits::default()) else {
        return Vec::new();
    };
    let lines: Vec<&str> = scenario_text.lines().collect();
    let count = doc
        .value
        .get("actions")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    (0..count)
        .map(|i| {
            let line = doc.line_of(&format!("actions[{i}].apply"))?;
            let text = lines.get(line.checked_sub(1)?)?;
            // The key's column: after `- ` when it opens its list item.
            let column = text.find("apply:")?;
            if !text[column + "apply:".len()..]
                .trim_start()
                .starts_with('#')
                && !text[column + "apply:".len()..].trim().is_empty()
            {
                return None;
            }
            block_below(&lines, line - 1, column)
        })
        .collect()
}

/// The lines below line `start` (0-based) indented deeper than `column`, dedented: the block
/// value of the key on that line. Blank and comment lines inside it are kept; trailing ones
/// belong to whatever follows.
fn block_below(lines: &[&str], start: usize, column: usize) -> Option<String> {
    let deeper = |l: &&&str| {
        l.trim().is_empty()
            || l.len() - l.trim_start().len() > column
            || l.trim_start().starts_with('#')
    };
    let body: Vec<&str> = lines
        .get(start + 1..)?
        .iter()
        .take_while(deeper)
        .copied()
        .collect();
    let end = body
        .iter()
        .rposition(|l| !l.trim().is_empty() && !l.starts_with('#'))?
        + 1;
    let body = &body[..end];
    let indent = body
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()?;
    let mut out = String::new();
    for l in body {
        out.push_str(l.get(indent..).unwrap_or("").trim_end());
        out.push('\n');
    }
    Some(out)
}

/// One step of a field path.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Segment {
    Key(String),
    Index(usize),
}

fn segments(path: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (key, rest) = part.split_once('[').unwrap_or((part, ""));
        if !key.is_empty() {
            out.push(Segment::Key(key.to_string()));
        }
        for idx in rest.split('[') {
            let idx = idx.trim_end_matches(']');
            match idx.parse() {
                Ok(i) => out.push(Segment::Index(i)),
                Err(_) if idx.is_empty() => {}
                Err(_) => out.push(Segment::Key(idx.to_string())),
            }
        }
    }
    out
}

/// A logical line of block YAML: a physical line, or the part of one after a `- ` sequence
/// dash (which opens a mapping at a deeper column on the same line).
#[derive(Clone, Copy, Debug)]
struct Logical<'a> {
    /// The physical line (0-based).
    line: usize,
    /// The column the content starts at.
    indent: usize,
    /// The content, or `"-"` for a sequence dash.
    text: &'a str,
}

fn logical_lines(text: &str) -> Vec<Logical<'_>> {
    let mut out = Vec::new();
    for (line, raw) in text.lines().enumerate() {
        let trimmed = raw.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let mut indent = raw.len() - trimmed.len();
        let mut rest = trimmed;
        while let Some(after) = rest
            .strip_prefix('-')
            .filter(|a| a.is_empty() || a.starts_with(' '))
        {
            out.push(Logical {
                line,
                indent,
                text: "-",
            });
            let content = after.trim_start();
            indent += 1 + (after.len() - content.len());
            rest = content;
            if rest.is_empty() {
                break;
            }
        }
        if !rest.is_empty() {
            out.push(Logical {
                line,
                indent,
                text: rest,
            });
        }
    }
    out
}

/// The value written after `key:` on a line, without a trailing comment, and the byte offset
/// where it starts; `None` when the line is not that key.
fn after_key<'a>(text: &'a str, key: &str) -> Option<(usize, &'a str)> {
    let rest = text
        .strip_prefix(key)
        .or_else(|| text.strip_prefix(&format!("\"{key}\"")))
        .or_else(|| text.strip_prefix(&format!("'{key}'")))?;
    let rest = rest.strip_prefix(':')?;
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    let value = rest.trim_start();
    let offset = text.len() - value.len();
    let value = if value.starts_with('#') {
        ""
    } else if value.starts_with(['"', '\'']) {
        value
    } else {
        value.find(" #").map_or(value, |i| value[..i].trim_end())
    };
    Some((offset, value))
}

/// The extent of a node's children: logical lines `[from, to)`.
fn children_end(lines: &[Logical<'_>], from: usize, parent_indent: usize, is_key: bool) -> usize {
    lines[from..]
        .iter()
        .position(|l| {
            // A sequence may sit at its key's own column (`containers:\n- name: web`).
            !(l.indent > parent_indent || (is_key && l.indent == parent_indent && l.text == "-"))
        })
        .map_or(lines.len(), |p| from + p)
}

/// Writes `value` (already YAML) as a scalar at `path`, or removes the field when `value` is
/// `None`. Returns the new text, or `None` when the path runs through something only a full
/// re-render could change (a flow map, a missing sequence item, a multi-line scalar).
pub fn set_field(text: &str, path: &str, value: Option<&str>) -> Option<String> {
    let segs = segments(path);
    let lines = logical_lines(text);
    let mut from = 0;
    let mut to = lines.len();
    // The column of the enclosing node, for inserting a first child under an empty key.
    let mut parent_indent: Option<usize> = None;
    let mut phys: Vec<String> = text.lines().map(str::to_string).collect();
    for (depth, seg) in segs.iter().enumerate() {
        let last = depth + 1 == segs.len();
        let level = lines[from..to].first().map(|l| l.indent);
        match seg {
            Segment::Index(i) => {
                let level = level?;
                let dash = lines[from..to]
                    .iter()
                    .enumerate()
                    .filter(|(_, l)| l.indent == level && l.text == "-")
                    .nth(*i)
                    .map(|(k, _)| from + k)?;
                if last {
                    return None;
                }
                let end = children_end(&lines, dash + 1, level, false);
                parent_indent = Some(level);
                (from, to) = (dash + 1, end.min(to));
            }
            Segment::Key(key) => {
                let found = level.and_then(|level| {
                    (from..to).find(|&k| {
                        lines[k].indent == level && after_key(lines[k].text, key).is_some()
                    })
                });
                match found {
                    Some(k) => {
                        let l = lines[k];
                        let (offset, written) = after_key(l.text, key).unwrap_or((0, ""));
                        if last {
                            if written.is_empty()
                                && k + 1 < lines.len()
                                && lines[k + 1].indent > l.indent
                            {
                                // A block under the key, not a scalar: it can only be removed,
                                // with every line under it.
                                let dash = phys.get(l.line)?.trim_start().starts_with('-');
                                if value.is_some() || dash {
                                    return None;
                                }
                                // Up to the block's last line: a comment or blank line after
                                // it belongs to what follows.
                                let end = children_end(&lines, k + 1, l.indent, true);
                                let stop = lines[k + 1..end].last().map_or(l.line, |n| n.line) + 1;
                                phys.drain(l.line..stop);
                                return Some(join(&phys, text));
                            }
                            return write_scalar(&mut phys, l, offset, written, value, text);
                        }
                        if !written.is_empty() {
                            // A flow map or an anchor: not a block we can walk into.
                            return None;
                        }
                        let end = children_end(&lines, k + 1, l.indent, true).min(to);
                        parent_indent = Some(l.indent);
                        (from, to) = (k + 1, end);
                        if from == to {
                            // `key:` with nothing under it: insert below the key itself.
                            return insert(
                                &mut phys,
                                l.line + 1,
                                l.indent + 2,
                                &segs[depth + 1..],
                                value,
                                text,
                            );
                        }
                    }
                    None => {
                        let Some(value) = value else {
                            // Removing a field that is not there changes nothing.
                            return Some(text.to_string());
                        };
                        let indent = level.unwrap_or_else(|| parent_indent.map_or(0, |p| p + 2));
                        let at = lines[from..to].last().map_or(0, |l| l.line + 1);
                        return insert(&mut phys, at, indent, &segs[depth..], Some(value), text);
                    }
                }
            }
        }
    }
    None
}

/// Replaces (or, with `None`, removes) the scalar written on logical line `l`, whose value
/// starts `offset` bytes into its text and reads `written`.
fn write_scalar(
    phys: &mut Vec<String>,
    l: Logical<'_>,
    offset: usize,
    written: &str,
    value: Option<&str>,
    text: &str,
) -> Option<String> {
    // A flow collection closed on its own line can be removed with that line.
    let one_line_flow = written.starts_with(['{', '[']) && written.trim_end().ends_with(['}', ']']);
    if written.starts_with(['{', '[', '|', '>', '&', '*', '!'])
        && !(value.is_none() && one_line_flow)
    {
        // A flow collection, block scalar, anchor or tag: only a re-render can change it.
        return None;
    }
    let line = phys.get(l.line)?.clone();
    match value {
        Some(v) => {
            // Keep the key's spelling and any trailing comment; replace only the value.
            let value_col = l.indent + offset;
            let head = line.get(..value_col)?.trim_end();
            let tail = line.get(value_col + written.len()..).unwrap_or("");
            phys[l.line] = format!("{head} {v}{tail}");
        }
        None => {
            if line.trim_start().starts_with('-') {
                // Removing a dash line would remove a sequence item.
                return None;
            }
            phys.remove(l.line);
        }
    }
    Some(join(phys, text))
}

fn insert(
    phys: &mut Vec<String>,
    at: usize,
    indent: usize,
    rest: &[Segment],
    value: Option<&str>,
    text: &str,
) -> Option<String> {
    let value = value?;
    let mut new_lines = Vec::new();
    for (i, seg) in rest.iter().enumerate() {
        let Segment::Key(k) = seg else {
            return None;
        };
        let pad = " ".repeat(indent + 2 * i);
        if i + 1 == rest.len() {
            new_lines.push(format!("{pad}{k}: {value}"));
        } else {
            new_lines.push(format!("{pad}{k}:"));
        }
    }
    let at = at.min(phys.len());
    phys.splice(at..at, new_lines);
    Some(join(phys, text))
}

fn join(phys: &[String], text: &str) -> String {
    let mut s = phys.join("\n");
    if text.ends_with('\n') || text.is_empty() {
        s.push('\n');
    }
    s
}

/// Renders a form value as a YAML scalar: numbers and plain words as they are, anything YAML
/// would read differently in double quotes.
pub fn yaml_scalar(raw: &str) -> String {
    // A number, negative ones included, is written as YAML reads it: `-3` is an integer, so a
    // form's number field meets the API server's range check, not a type error. It is written
    // in its plain decimal form, since kubectl's reader takes `010` for octal 8.
    if let Ok(n) = raw.parse::<i64>() {
        return n.to_string();
    }
    let number = raw.parse::<f64>().is_ok()
        && raw
            .chars()
            .all(|c| c.is_ascii_digit() || "+-.eE".contains(c));
    let plain = number
        || !raw.is_empty()
            && raw.trim() == raw
            && !raw.contains(": ")
            && !raw.contains(" #")
            && !raw.starts_with([
                '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"',
                '%', '@', '`',
            ])
            // Words kubectl's reader takes for something else (`yes`, `off`, `null`, `0x1f`).
            && matches!(
                super::yaml::resolve_plain(raw, yaml::Schema::Kubectl),
                Ok(Value::String(_))
            );
    if plain {
        raw.to_string()
    } else {
        serde_json::to_string(raw).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANIFEST: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # the name
spec:
  replicas: 10
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: web:1.0
          readinessProbe:
            httpGet: {path: /healthz, port: 8080}
            periodSeconds: 5
";

    /// What `kubectl apply` records, as a real cluster shows it: sorted keys, the empty
    /// `annotations` map and the namespace it adds, Go's HTML-safe escapes, a final newline.
    #[test]
    fn apply_records_the_manifest_as_kubectl_does() {
        let d = check(MANIFEST).expect("valid");
        assert_eq!(
            d.metadata.annotations[LAST_APPLIED_CONFIG_ANNOTATION],
            concat!(
                r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"web","namespace":"default"},"#,
                r#""spec":{"replicas":10,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"#,
                r#""spec":{"containers":[{"image":"web:1.0","name":"web","readinessProbe":{"httpGet":{"path":"/healthz","port":8080},"periodSeconds":5}}]}}}}"#,
                "\n"
            )
        );
        let with_own = MANIFEST.replace(
            "  name: web # the name\n",
            "  name: web\n  annotations:\n    note: a <b> & c\n    kubectl.kubernetes.io/last-applied-configuration: stale\n",
        );
        let d = check(&with_own).expect("valid");
        let recorded = &d.metadata.annotations[LAST_APPLIED_CONFIG_ANNOTATION];
        assert!(
            recorded.contains(r#""annotations":{"note":"a \u003cb\u003e \u0026 c"}"#),
            "{recorded}"
        );
    }

    /// One namespace is simulated: `default`, spelled out or left to kubectl, is taken; another
    /// is refused at its line with its path, in the editor as in a scenario's apply action.
    #[test]
    fn a_manifest_for_another_namespace_is_refused_with_its_path() {
        let ns = |n: &str| {
            MANIFEST.replace(
                "  name: web # the name\n",
                &format!("  name: web\n  namespace: {n}\n"),
            )
        };
        assert!(check(MANIFEST).is_ok());
        assert!(check(&ns("default")).is_ok());
        let errs = check(&ns("prod")).expect_err("another namespace");
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert_eq!(errs[0].field, "metadata.namespace");
        assert_eq!(errs[0].line, Some(5));
        assert_eq!(
            errs[0].message,
            "metadata.namespace: Unsupported value: \"prod\": supported values: \"default\" (RolloutScope simulates the default namespace)"
        );
        // An invalid name is the API server's to judge first.
        let errs = check(&ns("Bad_NS")).expect_err("invalid");
        assert!(
            errs[0].message.contains("a lowercase RFC 1123 label"),
            "{errs:?}"
        );
        let doc = parse_document(&ns("prod")).expect("YAML");
        assert!(decode_document(&doc).is_err(), "an applied manifest too");
    }

    #[test]
    fn set_field_replaces_a_scalar_and_keeps_everything_else() {
        let out = set_field(MANIFEST, "spec.replicas", Some("4")).unwrap();
        assert_eq!(out, MANIFEST.replace("replicas: 10", "replicas: 4"));
        let out = set_field(MANIFEST, "metadata.name", Some("api")).unwrap();
        assert!(out.contains("  name: api # the name\n"), "{out}");
    }

    #[test]
    fn set_field_walks_into_sequence_items() {
        let out = set_field(
            MANIFEST,
            "spec.template.spec.containers[0].image",
            Some("web:2.0"),
        )
        .unwrap();
        assert_eq!(out, MANIFEST.replace("web:1.0", "web:2.0"));
        let out = set_field(
            MANIFEST,
            "spec.template.spec.containers[0].readinessProbe.periodSeconds",
            Some("2"),
        )
        .unwrap();
        assert_eq!(
            out,
            MANIFEST.replace("periodSeconds: 5", "periodSeconds: 2")
        );
    }

    #[test]
    fn set_field_inserts_missing_fields_at_the_right_depth() {
        let out = set_field(MANIFEST, "spec.strategy.rollingUpdate.maxSurge", Some("1")).unwrap();
        assert!(
            out.ends_with("  strategy:\n    rollingUpdate:\n      maxSurge: 1\n"),
            "{out}"
        );
        let d = check(&out).unwrap();
        assert_eq!(d.replicas(), 10);
        let out = set_field(
            MANIFEST,
            "spec.template.spec.containers[0].readinessProbe.failureThreshold",
            Some("1"),
        )
        .unwrap();
        assert!(
            out.contains("            periodSeconds: 5\n            failureThreshold: 1\n"),
            "{out}"
        );
        let out = set_field(MANIFEST, "spec.minReadySeconds", Some("5")).unwrap();
        let doc = parse_document(&out).unwrap();
        assert_eq!(
            value_at(&doc, "spec.minReadySeconds"),
            Some(&Value::from(5))
        );
        assert!(check(&out).is_ok());
    }

    #[test]
    fn set_field_removes_a_scalar_and_ignores_a_missing_one() {
        let out = set_field(MANIFEST, "spec.replicas", None).unwrap();
        assert_eq!(out, MANIFEST.replace("  replicas: 10\n", ""));
        assert_eq!(
            set_field(MANIFEST, "spec.minReadySeconds", None).as_deref(),
            Some(MANIFEST)
        );
    }

    /// Choosing Recreate in the form removes `rollingUpdate`, written as a block or a one-line
    /// flow map, with what is under it and nothing else.
    #[test]
    fn set_field_removes_a_block_or_a_one_line_flow_map() {
        let block = format!(
            "{MANIFEST}  strategy:\n    type: RollingUpdate\n    rollingUpdate:\n      maxSurge: 1\n      maxUnavailable: 0\n\n  # how long a pod must stay ready\n  minReadySeconds: 2\n"
        );
        let out = set_field(&block, "spec.strategy.rollingUpdate", None).unwrap();
        assert_eq!(
            out,
            format!(
                "{MANIFEST}  strategy:\n    type: RollingUpdate\n\n  # how long a pod must stay ready\n  minReadySeconds: 2\n"
            )
        );
        let flow =
            format!("{MANIFEST}  strategy:\n    rollingUpdate: {{maxSurge: 1}}\n    type: X\n");
        let out = set_field(&flow, "spec.strategy.rollingUpdate", None).unwrap();
        assert_eq!(out, format!("{MANIFEST}  strategy:\n    type: X\n"));
        // A block cannot be replaced by a scalar.
        assert_eq!(
            set_field(&block, "spec.strategy.rollingUpdate", Some("1")),
            None
        );
    }

    #[test]
    fn set_field_declines_flow_maps_and_missing_items() {
        assert_eq!(
            set_field(MANIFEST, "spec.selector.matchLabels.app", Some("x")),
            None
        );
        assert_eq!(
            set_field(
                MANIFEST,
                "spec.template.spec.containers[1].image",
                Some("x")
            ),
            None
        );
        assert_eq!(set_field(MANIFEST, "spec.template", Some("x")), None);
    }

    #[test]
    fn sequences_at_their_key_column_are_walked_too() {
        let text =
            "spec:\n  containers:\n  - name: a\n    image: a:1\n  - name: b\n    image: b:1\n";
        let out = set_field(text, "spec.containers[1].image", Some("b:2")).unwrap();
        assert_eq!(out, text.replace("b:1", "b:2"));
    }

    #[test]
    fn check_reports_field_paths_at_their_lines() {
        let text = MANIFEST.replace("replicas: 10", "replicas: -1");
        let errs = check(&text).unwrap_err();
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].line, Some(6));
        assert_eq!(
            errs[0].message,
            "spec.replicas: Invalid value: -1: must be greater than or equal to 0"
        );
        let errs = check("spec: [\n").unwrap_err();
        assert!(errs[0].line.is_some());
        let errs = check(&MANIFEST.replace("replicas: 10", "replicas: 20001")).unwrap_err();
        assert!(errs[0].message.contains("at most 20000"), "{:?}", errs);
    }

    #[test]
    fn extract_apply_blocks_cuts_out_each_apply_action() {
        let indented = |by: &str| {
            MANIFEST
                .lines()
                .map(|l| format!("{by}{l}\n"))
                .collect::<String>()
        };
        let scenario = format!(
            "name: x\ndeployment:\n{}actions:\n  - {{at: 1s, scale: 2}}\n  - at: 5s\n    apply:\n{}  - apply: # comment\n{}    at: 9s\n  - {{at: 12s, apply: {{kind: Deployment}}}}\n",
            indented("  "),
            indented("      "),
            indented("      "),
        );
        assert_eq!(
            extract_apply_blocks(&scenario),
            [
                None,
                Some(MANIFEST.to_string()),
                Some(MANIFEST.to_string()),
                None
            ]
        );
        let bundled = crate::sim::scenario::BUNDLED
            .iter()
            .find(|(f, _)| *f == "missing-configmap.yaml")
            .map(|(_, t)| *t)
            .unwrap_or_default();
        let blocks = extract_apply_blocks(bundled);
        let block = blocks.iter().flatten().next().expect("an apply action");
        assert!(block.starts_with("apiVersion: apps/v1\n"), "{block}");
        assert!(
            block.contains("configMapRef: {name: web-settings}"),
            "{block}"
        );
        assert!(check(block).is_ok(), "{block}");
    }

    #[test]
    fn extract_block_dedents_the_deployment_of_a_scenario() {
        let scenario = format!(
            "name: x\ndeployment:\n{}actions:\n  - {{at: 1s, scale: 2}}\n",
            MANIFEST
                .lines()
                .map(|l| format!("  {l}\n"))
                .collect::<String>()
        );
        assert_eq!(
            extract_block(&scenario, "deployment").as_deref(),
            Some(MANIFEST)
        );
        assert_eq!(extract_block(&scenario, "nothing"), None);
        for (_, text) in crate::sim::scenario::BUNDLED {
            let block = extract_block(text, "deployment").unwrap();
            assert!(check(&block).is_ok(), "{block}");
        }
    }

    #[test]
    fn yaml_scalar_quotes_only_what_yaml_would_misread() {
        assert_eq!(yaml_scalar("25%"), "25%");
        assert_eq!(yaml_scalar("web:2.0"), "web:2.0");
        assert_eq!(yaml_scalar("a: b"), "\"a: b\"");
        assert_eq!(yaml_scalar("true"), "\"true\"");
        assert_eq!(yaml_scalar(""), "\"\"");
        assert_eq!(yaml_scalar("-3"), "-3");
        assert_eq!(yaml_scalar("-0.5"), "-0.5");
        assert_eq!(yaml_scalar("-x"), "\"-x\"");
        assert_eq!(yaml_scalar("Yes"), "\"Yes\"");
        assert_eq!(yaml_scalar("0x1f"), "\"0x1f\"");
        assert_eq!(yaml_scalar("010"), "10");
    }
}
