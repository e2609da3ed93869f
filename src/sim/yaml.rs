//! The YAML loader: turns the text a learner types into a [`Document`], a JSON value plus the line
//! on which each field was written, so that an API-server style error such as
//! `spec.replicas: Invalid value: -1: …` can point back at `line 7`.
//!
//! The input is untrusted (it comes from a text box or a shared link), so the loader is built to
//! refuse hostile documents quickly instead of exhausting memory or the stack:
//! * the text is limited in bytes ([`Limits::max_bytes`]);
//! * collections may nest only [`Limits::max_depth`] deep, checked before each one is opened, and
//!   the value is built with an explicit stack, never by recursion;
//! * every node counts against [`Limits::max_nodes`], including the nodes an alias (`*name`)
//!   expands to, so a "billion laughs" document fails after a few thousand events.
//!
//! Plain scalars follow the YAML 1.2 core schema (`true`, `0x1f`, `1.5`, `~`) in a scenario
//! file, and kubectl's own reading (YAML 1.1 in effect: `yes` and `on` are booleans, `010` is
//! octal) in a manifest ([`Schema`]), so a manifest that kubectl would send with a boolean where
//! a string belongs is refused the same way. Quoted and block scalars, and plain scalars tagged `!!str`,
//! are strings. Mapping keys are always strings in the result (`1: x` gives the key `"1"`), as in
//! the JSON the API server stores. YAML 1.1 merge keys (`<<: *defaults`) are honoured, because
//! Kubernetes' own YAML reader (go-yaml) honours them and manifests in the wild use them.

use serde_json::{Map, Number, Value};
use std::collections::BTreeMap;
use yaml_rust2::parser::{Event, Parser, Tag};
use yaml_rust2::scanner::{Marker, ScanError, TScalarStyle};

/// Bounds that keep parsing fast on hostile input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The largest accepted text, in bytes.
    pub max_bytes: usize,
    /// The deepest accepted nesting of mappings and sequences (the top-level collection is
    /// depth 1).
    pub max_depth: usize,
    /// The most nodes (scalars, mappings, sequences, mapping keys) the document may contain once
    /// every alias has been expanded.
    pub max_nodes: usize,
}

impl Default for Limits {
    /// 256 KiB, 64 levels, 100 000 nodes: far above any real Deployment manifest (a large one
    /// has a few hundred nodes and nests about 12 deep), far below what would hurt a browser tab.
    fn default() -> Self {
        Limits {
            max_bytes: 256 * 1024,
            max_depth: 64,
            max_nodes: 100_000,
        }
    }
}

/// Why a text could not be loaded, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct YamlError {
    /// 1-based line of the offending character.
    pub line: usize,
    /// 1-based column of the offending character.
    pub column: usize,
    /// What went wrong, in words.
    pub message: String,
}

impl YamlError {
    fn at(mark: Marker, message: impl Into<String>) -> Self {
        YamlError {
            line: mark.line(),
            column: mark.col() + 1,
            message: message.into(),
        }
    }
}

impl YamlError {
    /// A scanner error. The scanner stops at 255 nested flow collections (`[[[…`) with a terse
    /// "recursion limit exceeded", and it scans ahead of the events the depth check sees, so
    /// that message is reworded as the depth error it is.
    fn scan(e: &ScanError, limits: &Limits) -> Self {
        if e.info() == "recursion limit exceeded" {
            let depth = limits.max_depth.min(255);
            return YamlError::at(
                *e.marker(),
                format!("the document nests deeper than {depth} levels"),
            );
        }
        YamlError::at(*e.marker(), e.info())
    }
}

/// A loaded YAML document: its value as JSON and the source line of each field.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Document {
    /// The document's content. Objects are `BTreeMap`-backed, so iteration is sorted.
    pub value: Value,
    /// The line index, a trie over field paths: (parent node, segment) → (node, 1-based line),
    /// with segments being mapping keys and sequence indices as decimal text. Node 0 is the root.
    /// A mapping entry is recorded at the line of its key, a sequence item at its first line.
    /// A trie keeps the index linear in the number of nodes however deep they sit.
    lines: BTreeMap<(usize, String), (usize, usize)>,
    /// The line of the root node.
    root_line: Option<usize>,
}

impl Document {
    /// The line on which `field_path` was written, or, when that exact field is absent (it is
    /// missing from the text, or a validation path names a sub-field the text does not spell
    /// out), the line of its longest recorded prefix.
    ///
    /// Paths are written as the API server prints them: `spec.template.spec.containers[0].image`,
    /// `metadata.labels[app.kubernetes.io/name]`. A key may be written either way (`a.b` and
    /// `a[b]` name the same field), and an index in brackets matches a sequence item.
    ///
    /// Returns `None` only for an empty document.
    pub fn line_of(&self, field_path: &str) -> Option<usize> {
        let mut node = ROOT;
        let mut line = self.root_line?;
        for segment in split_path(field_path) {
            match self.lines.get(&(node, segment)) {
                Some(&(child, child_line)) => (node, line) = (child, child_line),
                None => break,
            }
        }
        Some(line)
    }

    /// The sub-document under a field path (`deployment`, `actions[2].apply`), with its own
    /// field paths and the same source lines, so a manifest embedded in a larger file reports
    /// errors at that file's lines. A path that names nothing gives a `null` document without
    /// lines.
    pub fn child(&self, field_path: &str) -> Document {
        let mut value = &self.value;
        let mut node = Some(ROOT);
        let mut root_line = self.root_line;
        for segment in split_path(field_path) {
            value = match value {
                Value::Object(m) => m.get(segment.as_str()).unwrap_or(&Value::Null),
                Value::Array(a) => segment
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| a.get(i))
                    .unwrap_or(&Value::Null),
                _ => &Value::Null,
            };
            match node.and_then(|n| self.lines.get(&(n, segment))) {
                Some(&(child, line)) => (node, root_line) = (Some(child), Some(line)),
                None => (node, root_line) = (None, None),
            }
        }
        // Copy the subtree below `node`, renaming `node` to the new root.
        let mut lines = BTreeMap::new();
        let mut pending: Vec<usize> = node.into_iter().collect();
        while let Some(parent) = pending.pop() {
            let children = self
                .lines
                .range((parent, String::new())..)
                .take_while(|((p, _), _)| *p == parent);
            for ((_, segment), &(child, line)) in children {
                let new_parent = if Some(parent) == node { ROOT } else { parent };
                lines.insert((new_parent, segment.clone()), (child, line));
                pending.push(child);
            }
        }
        Document {
            value: value.clone(),
            lines,
            root_line,
        }
    }
}

/// Splits `a.b[c.d/e][0].f` into `["a", "b", "c.d/e", "0", "f"]`.
fn split_path(path: &str) -> Vec<String> {
    let mut segments = Vec::new();
    let mut current = String::new();
    let mut chars = path.chars();
    while let Some(c) = chars.next() {
        match c {
            '.' => {
                if !current.is_empty() {
                    segments.push(std::mem::take(&mut current));
                }
            }
            '[' => {
                if !current.is_empty() {
                    segments.push(std::mem::take(&mut current));
                }
                let key: String = chars.by_ref().take_while(|&c| c != ']').collect();
                segments.push(key);
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        segments.push(current);
    }
    segments
}

/// Parses one YAML document into a [`Document`].
///
/// # Errors
/// A [`YamlError`] with the line and column of the problem when the text is not YAML, holds more
/// than one document, breaks one of the [`Limits`], repeats a mapping key, uses a collection as a
/// mapping key, or holds a number JSON cannot represent (beyond 64-bit integers, `.inf`, `.nan`).
///
/// # Guarantees
/// Never panics and never recurses on the input's structure; the work done is linear in the
/// text's length plus [`Limits::max_nodes`].
pub fn parse(text: &str, limits: &Limits) -> Result<Document, YamlError> {
    parse_as(text, limits, Schema::Core)
}

/// [`parse`] for a Kubernetes manifest: plain scalars resolve as kubectl reads them
/// ([`Schema::Kubectl`]).
///
/// # Errors
/// As [`parse`].
pub fn parse_manifest(text: &str, limits: &Limits) -> Result<Document, YamlError> {
    parse_as(text, limits, Schema::Kubectl)
}

fn parse_as(text: &str, limits: &Limits, schema: Schema) -> Result<Document, YamlError> {
    if text.len() > limits.max_bytes {
        return Err(YamlError {
            line: 1,
            column: 1,
            message: format!(
                "the text is {} bytes long; the limit is {} bytes",
                text.len(),
                limits.max_bytes
            ),
        });
    }
    let mut parser = Parser::new_from_str(text);
    let mut builder = Builder::new(limits, schema);
    let mut documents = 0usize;
    loop {
        let (event, mark) = parser
            .next_token()
            .map_err(|e| YamlError::scan(&e, limits))?;
        match event {
            Event::StreamStart | Event::Nothing | Event::DocumentEnd => {}
            Event::StreamEnd => break,
            Event::DocumentStart => {
                documents += 1;
                if documents > 1 {
                    return Err(YamlError::at(
                        mark,
                        "expected a single YAML document, found a second one (a `---` line)",
                    ));
                }
            }
            Event::Scalar(text, style, anchor, tag) => {
                builder.scalar(text, style, anchor, tag.as_ref(), mark)?;
            }
            Event::Alias(anchor) => builder.alias(anchor, mark)?,
            Event::SequenceStart(anchor, _) => builder.open(Open::Sequence, anchor, mark)?,
            Event::MappingStart(anchor, _) => builder.open(Open::Mapping, anchor, mark)?,
            Event::SequenceEnd | Event::MappingEnd => builder.close(mark)?,
        }
    }
    Ok(Document {
        value: builder.root.unwrap_or(Value::Null),
        lines: builder.lines,
        root_line: builder.root_line,
    })
}

/// Which kind of collection an event opens.
enum Open {
    Sequence,
    Mapping,
}

/// A collection under construction.
struct Frame {
    kind: FrameKind,
    /// The anchor to record the finished value under (0: none).
    anchor: usize,
    /// The node count before this collection was opened, to learn how many nodes an alias to it
    /// expands to.
    nodes_before: usize,
    /// The collection's node in the line index.
    node: usize,
}

enum FrameKind {
    Sequence(Vec<Value>),
    Mapping {
        map: Map<String, Value>,
        /// The key read and waiting for its value.
        key: Option<PendingKey>,
        /// Mappings named by `<<` merge keys, applied when the mapping closes.
        merges: Vec<Map<String, Value>>,
    },
}

struct PendingKey {
    text: String,
    merge: bool,
    /// The line-index node of the entry's value.
    node: usize,
}

/// The root's node in the line index.
const ROOT: usize = 0;

/// An anchored value and the number of nodes it holds.
struct Anchored {
    value: Value,
    nodes: usize,
}

/// Builds the JSON value from the event stream with an explicit stack.
struct Builder<'l> {
    limits: &'l Limits,
    schema: Schema,
    stack: Vec<Frame>,
    lines: BTreeMap<(usize, String), (usize, usize)>,
    root_line: Option<usize>,
    /// The last node number handed out in the line index.
    last_node: usize,
    anchors: BTreeMap<usize, Anchored>,
    nodes: usize,
    root: Option<Value>,
}

impl<'l> Builder<'l> {
    fn new(limits: &'l Limits, schema: Schema) -> Self {
        Builder {
            limits,
            schema,
            stack: Vec::new(),
            lines: BTreeMap::new(),
            root_line: None,
            last_node: ROOT,
            anchors: BTreeMap::new(),
            nodes: 0,
            root: None,
        }
    }

    /// Counts `n` more nodes, failing once the document grows past the limit.
    fn count(&mut self, n: usize, mark: Marker, via_alias: bool) -> Result<(), YamlError> {
        self.nodes = self.nodes.saturating_add(n);
        if self.nodes > self.limits.max_nodes {
            let message = if via_alias {
                format!(
                    "document expands to more than {} nodes (YAML alias bomb?)",
                    self.limits.max_nodes
                )
            } else {
                format!("document has more than {} nodes", self.limits.max_nodes)
            };
            return Err(YamlError::at(mark, message));
        }
        Ok(())
    }

    /// Whether the next node is a mapping key.
    fn expecting_key(&self) -> bool {
        matches!(
            self.stack.last(),
            Some(Frame {
                kind: FrameKind::Mapping { key: None, .. },
                ..
            })
        )
    }

    /// Records a line-index entry under `parent` and returns the new node.
    fn record(&mut self, parent: usize, segment: String, line: usize) -> usize {
        self.last_node += 1;
        self.lines.insert((parent, segment), (self.last_node, line));
        self.last_node
    }

    /// The line-index node of a value node that starts at `mark`: the root, a new sequence item
    /// (recorded at its first line) or the value of the pending mapping key (recorded with the
    /// key).
    fn value_node(&mut self, mark: Marker) -> usize {
        let Some(parent) = self.stack.last() else {
            self.root_line.get_or_insert(mark.line());
            return ROOT;
        };
        match &parent.kind {
            FrameKind::Sequence(items) => {
                let (parent, index) = (parent.node, items.len().to_string());
                self.record(parent, index, mark.line())
            }
            FrameKind::Mapping { key, .. } => key.as_ref().map_or(ROOT, |k| k.node),
        }
    }

    /// Reads a mapping key.
    fn key(&mut self, text: String, merge: bool, mark: Marker) -> Result<(), YamlError> {
        let Some(frame) = self.stack.last() else {
            return Ok(());
        };
        let parent = frame.node;
        if let FrameKind::Mapping { map, .. } = &frame.kind
            && !merge
            && map.contains_key(&text)
        {
            let first = self
                .lines
                .get(&(parent, text.clone()))
                .map_or(String::new(), |(_, l)| {
                    format!(" (first defined on line {l})")
                });
            return Err(YamlError::at(
                mark,
                format!("duplicate mapping key {text:?}{first}"),
            ));
        }
        // Merged entries get no lines of their own; their paths resolve to the mapping's line.
        let node = if merge {
            parent
        } else {
            self.record(parent, text.clone(), mark.line())
        };
        if let Some(Frame {
            kind: FrameKind::Mapping { key, .. },
            ..
        }) = self.stack.last_mut()
        {
            *key = Some(PendingKey { text, merge, node });
        }
        Ok(())
    }

    fn scalar(
        &mut self,
        text: String,
        style: TScalarStyle,
        anchor: usize,
        tag: Option<&Tag>,
        mark: Marker,
    ) -> Result<(), YamlError> {
        self.count(1, mark, false)?;
        let forced_string =
            tag.is_some_and(|t| t.handle == "tag:yaml.org,2002:" && t.suffix == "str");
        let value = if style == TScalarStyle::Plain && !forced_string {
            resolve_plain(&text, self.schema).map_err(|m| YamlError::at(mark, m))?
        } else {
            Value::String(text)
        };
        if self.expecting_key() {
            let merge =
                style == TScalarStyle::Plain && !forced_string && value.as_str() == Some("<<");
            let key = key_text(&value).ok_or_else(|| {
                YamlError::at(
                    mark,
                    "a mapping key must be a string, number, boolean or null",
                )
            })?;
            if anchor != 0 {
                self.anchors.insert(
                    anchor,
                    Anchored {
                        value: Value::String(key.clone()),
                        nodes: 1,
                    },
                );
            }
            return self.key(key, merge, mark);
        }
        self.value_node(mark);
        if anchor != 0 {
            self.anchors.insert(
                anchor,
                Anchored {
                    value: value.clone(),
                    nodes: 1,
                },
            );
        }
        self.attach(value, mark)
    }

    fn alias(&mut self, anchor: usize, mark: Marker) -> Result<(), YamlError> {
        let Some(anchored) = self.anchors.get(&anchor) else {
            return Err(YamlError::at(
                mark,
                "the alias refers to a node that is not complete yet (a recursive alias)",
            ));
        };
        let (nodes, key) = (anchored.nodes, key_text(&anchored.value));
        // Count before cloning: the clone is what a bomb would make expensive.
        self.count(nodes, mark, true)?;
        if self.expecting_key() {
            let key = key.ok_or_else(|| {
                YamlError::at(
                    mark,
                    "a mapping key must be a string, number, boolean or null",
                )
            })?;
            return self.key(key, false, mark);
        }
        let value = self
            .anchors
            .get(&anchor)
            .map_or(Value::Null, |a| a.value.clone());
        self.value_node(mark);
        self.attach(value, mark)
    }

    fn open(&mut self, open: Open, anchor: usize, mark: Marker) -> Result<(), YamlError> {
        if self.expecting_key() {
            return Err(YamlError::at(
                mark,
                "a mapping key must be a string, number, boolean or null, not a collection",
            ));
        }
        if self.stack.len() >= self.limits.max_depth {
            return Err(YamlError::at(
                mark,
                format!(
                    "the document nests deeper than {} levels",
                    self.limits.max_depth
                ),
            ));
        }
        let nodes_before = self.nodes;
        self.count(1, mark, false)?;
        let node = self.value_node(mark);
        let kind = match open {
            Open::Sequence => FrameKind::Sequence(Vec::new()),
            Open::Mapping => FrameKind::Mapping {
                map: Map::new(),
                key: None,
                merges: Vec::new(),
            },
        };
        self.stack.push(Frame {
            kind,
            anchor,
            nodes_before,
            node,
        });
        Ok(())
    }

    fn close(&mut self, mark: Marker) -> Result<(), YamlError> {
        let Some(frame) = self.stack.pop() else {
            return Ok(());
        };
        let value = match frame.kind {
            FrameKind::Sequence(items) => Value::Array(items),
            FrameKind::Mapping {
                mut map, merges, ..
            } => {
                // Explicit keys win over merged ones; earlier merged mappings win over later ones.
                for merged in merges {
                    for (k, v) in merged {
                        map.entry(k).or_insert(v);
                    }
                }
                Value::Object(map)
            }
        };
        if frame.anchor != 0 {
            // Keeping a copy costs as much as expanding an alias to it: charge it, so that
            // anchors nested 64 deep over a large list cannot multiply the work.
            let nodes = self.nodes - frame.nodes_before;
            self.count(nodes, mark, true)?;
            self.anchors.insert(
                frame.anchor,
                Anchored {
                    value: value.clone(),
                    nodes,
                },
            );
        }
        self.attach(value, mark)
    }

    /// Hands a finished value to its parent collection, or makes it the document's root.
    fn attach(&mut self, value: Value, mark: Marker) -> Result<(), YamlError> {
        let Some(parent) = self.stack.last_mut() else {
            self.root = Some(value);
            return Ok(());
        };
        match &mut parent.kind {
            FrameKind::Sequence(items) => items.push(value),
            FrameKind::Mapping { map, key, merges } => {
                let Some(k) = key.take() else {
                    return Ok(());
                };
                if !k.merge {
                    map.insert(k.text, value);
                    return Ok(());
                }
                match value {
                    Value::Object(m) => merges.push(m),
                    Value::Array(items) if items.iter().all(Value::is_object) => {
                        merges.extend(items.into_iter().filter_map(|v| match v {
                            Value::Object(m) => Some(m),
                            _ => None,
                        }));
                    }
                    _ => {
                        return Err(YamlError::at(
                            mark,
                            "the value of a `<<` merge key must be a mapping or a list of mappings",
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

/// The string a scalar key becomes (`1` → `"1"`, `true` → `"true"`, `~` → `"null"`).
fn key_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null => Some("null".to_string()),
        Value::Array(_) | Value::Object(_) => None,
    }
}

/// How plain scalars (unquoted words and numbers) resolve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schema {
    /// The YAML 1.2 core schema (`true`, `0x1f`, `1.5`, `~`), which the specification
    /// recommends: for RolloutScope's own scenario format, where a node named `n` stays a name.
    Core,
    /// As kubectl's reader resolves them (go-yaml v2 under `sigs.k8s.io/yaml`, YAML 1.1 in
    /// effect): for Kubernetes manifests. Besides `true` and `false`, the words `y`, `yes`,
    /// `on`, `n`, `no` and `off` (lower, capitalised or upper case) are booleans, so
    /// `value: yes` gets the classic "quote your yes" refusal; underscores in numbers are
    /// dropped; a leading `0` means octal (`010` is 8), `0x`, `0o` and `0b` mark hexadecimal,
    /// octal and binary; other numbers are floats.
    Kubectl,
}

/// Resolves a plain scalar with `schema`.
///
/// # Errors
/// A message when the scalar is a number JSON cannot hold.
pub fn resolve_plain(s: &str, schema: Schema) -> Result<Value, String> {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Ok(Value::Null),
        "true" | "True" | "TRUE" => return Ok(Value::Bool(true)),
        "false" | "False" | "FALSE" => return Ok(Value::Bool(false)),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF"
        | ".nan" | ".NaN" | ".NAN" => {
            return Err(format!(
                "{s} is not a finite number, which JSON (and so Kubernetes) cannot represent"
            ));
        }
        _ => {}
    }
    let too_big = || format!("the integer {s} does not fit in 64 bits");
    if schema == Schema::Kubectl {
        match s {
            "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => {
                return Ok(Value::Bool(true));
            }
            "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => {
                return Ok(Value::Bool(false));
            }
            _ => {}
        }
        // go-yaml tries numbers only for a scalar that starts with a digit, a sign or a dot.
        if !s.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '+' | '-' | '.')) {
            return Ok(Value::String(s.to_string()));
        }
        let plain = s.replace('_', "");
        // An integer too big for 64 bits is tried as a float, as go-yaml does; one that is no
        // float either (hexadecimal, binary), or a float beyond f64, stays the word written.
        if let Some(Some(n)) = go_parse_int(&plain) {
            return Ok(n);
        }
        return Ok(float(&plain, s).unwrap_or_else(|_| Value::String(s.to_string())));
    }
    if let Some(hex) = s.strip_prefix("0x") {
        if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return i64::from_str_radix(hex, 16)
                .map(Value::from)
                .map_err(|_| too_big());
        }
        return Ok(Value::String(s.to_string()));
    }
    if let Some(oct) = s.strip_prefix("0o") {
        if !oct.is_empty() && oct.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
            return i64::from_str_radix(oct, 8)
                .map(Value::from)
                .map_err(|_| too_big());
        }
        return Ok(Value::String(s.to_string()));
    }
    let unsigned = s.strip_prefix(['-', '+']).unwrap_or(s);
    if !unsigned.is_empty() && unsigned.bytes().all(|b| b.is_ascii_digit()) {
        return s.parse::<i64>().map(Value::from).map_err(|_| too_big());
    }
    float(s, s)
}

/// `number` as a float when it has the core schema's float form, else `written` as a string.
fn float(number: &str, written: &str) -> Result<Value, String> {
    if !is_core_float(number.strip_prefix(['-', '+']).unwrap_or(number)) {
        return Ok(Value::String(written.to_string()));
    }
    let f: f64 = number
        .parse()
        .map_err(|_| format!("{written} is not a number"))?;
    Number::from_f64(f)
        .map(Value::Number)
        .ok_or_else(|| format!("the number {written} is too large for JSON"))
}

/// Go's `strconv.ParseInt(s, 0, 64)`, then `ParseUint` for what is too big for it: `None` when
/// `s` is not an integer in Go's syntax (sign, then `0x`, `0o`, `0b`, a leading `0` for octal, or
/// decimal digits), `Some(None)` when it is one that does not fit in 64 bits.
fn go_parse_int(s: &str) -> Option<Option<Value>> {
    let (negative, unsigned) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let lower = unsigned.get(..2).map(str::to_ascii_lowercase);
    let (radix, digits) = match lower.as_deref() {
        Some("0x") => (16, &unsigned[2..]),
        Some("0o") => (8, &unsigned[2..]),
        Some("0b") => (2, &unsigned[2..]),
        _ if unsigned.len() > 1 && unsigned.starts_with('0') => (8, &unsigned[1..]),
        _ => (10, unsigned),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u128::from_str_radix(digits, radix).ok();
    let value = magnitude.and_then(|m| {
        if negative {
            i64::try_from(m)
                .ok()
                .map(|v| Value::from(-v))
                .or_else(|| (m == 1u128 << 63).then(|| Value::from(i64::MIN)))
        } else {
            u64::try_from(m).ok().map(Value::from)
        }
    });
    Some(value)
}

/// Whether `s` (sign removed) matches the core schema's float form
/// `(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`.
pub(crate) fn is_core_float(s: &str) -> bool {
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", frac)) => digits(frac),
        Some((int, frac)) => digits(int) && frac.bytes().all(|b| b.is_ascii_digit()),
        None => digits(mantissa),
    };
    let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['-', '+']).unwrap_or(e)));
    mantissa_ok && exponent_ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn load(text: &str) -> Document {
        match parse(text, &Limits::default()) {
            Ok(doc) => doc,
            Err(e) => panic!("{text:?} should parse: {e}"),
        }
    }

    fn load_err(text: &str) -> YamlError {
        match parse(text, &Limits::default()) {
            Ok(doc) => panic!("{text:?} should fail, got {:?}", doc.value),
            Err(e) => e,
        }
    }

    const DEPLOYMENT: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app.kubernetes.io/name: web
spec:
  replicas: 3
  template:
    spec:
      containers:
      - name: app
        image: nginx:1.27
        readinessProbe:
          httpGet: {path: /, port: 80}
      - name: sidecar
        image: busybox
";

    #[test]
    fn deployment_loads_with_lines() {
        let doc = load(DEPLOYMENT);
        assert_eq!(doc.value["spec"]["replicas"], json!(3));
        assert_eq!(
            doc.value["spec"]["template"]["spec"]["containers"][1]["image"],
            json!("busybox")
        );
        assert_eq!(doc.line_of("kind"), Some(2));
        assert_eq!(doc.line_of("spec.replicas"), Some(8));
        assert_eq!(doc.line_of("spec.template.spec.containers[0]"), Some(12));
        assert_eq!(
            doc.line_of("spec.template.spec.containers[0].image"),
            Some(13)
        );
        assert_eq!(
            doc.line_of("spec.template.spec.containers[1].image"),
            Some(17)
        );
        assert_eq!(
            doc.line_of("metadata.labels[app.kubernetes.io/name]"),
            Some(6)
        );
        assert_eq!(doc.line_of("metadata.labels.app"), Some(5));
    }

    #[test]
    fn line_of_falls_back_to_the_longest_recorded_prefix() {
        let doc = load(DEPLOYMENT);
        assert_eq!(
            doc.line_of("spec.template.spec.containers[0].readinessProbe.periodSeconds"),
            Some(14)
        );
        assert_eq!(
            doc.line_of("spec.template.spec.containers[0].readinessProbe.httpGet.port"),
            Some(15)
        );
        assert_eq!(doc.line_of("spec.selector"), Some(7));
        assert_eq!(doc.line_of("status.replicas"), Some(1));
        assert_eq!(doc.line_of(""), Some(1));
    }

    #[test]
    fn child_documents_keep_the_parents_lines() {
        let doc = load(&format!(
            "scenario: demo\nactions:\n- wait: 1\n- apply:\n{}",
            indent(DEPLOYMENT)
        ));
        let sub = doc.child("actions[1].apply");
        assert_eq!(sub.value["spec"]["replicas"], json!(3));
        assert_eq!(sub.line_of("spec.replicas"), Some(12));
        assert_eq!(
            sub.line_of("spec.template.spec.containers[1].image"),
            Some(21)
        );
        assert_eq!(sub.line_of(""), Some(4));
        assert_eq!(doc.child("").line_of("actions[0].wait"), Some(3));
        let missing = doc.child("actions[7]");
        assert_eq!(missing.line_of("a"), None);
        assert_eq!(missing.value, Value::Null);
    }

    fn indent(text: &str) -> String {
        text.lines().map(|l| format!("    {l}\n")).collect()
    }

    #[test]
    fn empty_documents_are_null() {
        assert_eq!(load("").value, Value::Null);
        assert_eq!(load("# only a comment\n").value, Value::Null);
        assert_eq!(load("---\n").value, Value::Null);
        assert_eq!(load("").line_of("spec"), None);
    }

    #[test]
    fn plain_scalars_follow_the_core_schema() {
        let doc = load(
            "a: ~\nb: null\nc: NULL\nd:\ne: true\nf: False\ng: 42\nh: -7\ni: 0x1F\nj: 0o17\n\
             k: 1.5\nl: .5\nm: 1e3\nn: yes\no: 1.2.3\np: 0x\nq: 007\nr: +3\n",
        );
        assert_eq!(
            doc.value,
            json!({
                "a": null, "b": null, "c": null, "d": null, "e": true, "f": false,
                "g": 42, "h": -7, "i": 31, "j": 15, "k": 1.5, "l": 0.5, "m": 1000.0,
                "n": "yes", "o": "1.2.3", "p": "0x", "q": 7, "r": 3
            })
        );
    }

    #[test]
    fn manifest_scalars_resolve_as_kubectl_reads_them() {
        let text = "a: ~\ne: true\nf: False\ng: 42\nh: -7\ni: 0x1F\nj: 0o17\nk: 1.5\nl: .5\n\
                    m: 1e3\nyes_word: yes\no: 1.2.3\np: 0x\nq: 007\nr: +3\ns: 010\nt: 08\n\
                    u: 1_000\nv: 0b101\nw: Off\nx: Y\nz: -010\nwords: yesterday\non: 1\n\
                    hex: 0x742d35Cc6634C0532925a3b844Bc454e4438f44e\nbig: 99999999999999999999\n\
                    inf: 1e400\n";
        let doc = match parse_manifest(text, &Limits::default()) {
            Ok(doc) => doc,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(
            doc.value,
            json!({
                "a": null, "e": true, "f": false, "g": 42, "h": -7, "i": 31, "j": 15, "k": 1.5,
                "l": 0.5, "m": 1000.0, "yes_word": true, "o": "1.2.3", "p": "0x", "q": 7, "r": 3,
                // A leading 0 is octal; 08 is no octal number and reads as the float 8.
                "s": 8, "t": 8.0, "u": 1000, "v": 5, "w": false, "x": true, "z": -8,
                "words": "yesterday",
                // Too big for 64 bits: a float when it reads as one, else the word itself.
                "hex": "0x742d35Cc6634C0532925a3b844Bc454e4438f44e", "big": 1e20, "inf": "1e400",
                // A boolean word as a key becomes "true", as `sigs.k8s.io/yaml` writes it.
                "true": 1
            })
        );
    }

    #[test]
    fn quoted_block_and_str_tagged_scalars_are_strings() {
        let doc = load("a: \"1\"\nb: 'true'\nc: !!str 12\nd: |\n  line\ne: >-\n  folded\n");
        assert_eq!(
            doc.value,
            json!({"a": "1", "b": "true", "c": "12", "d": "line\n", "e": "folded"})
        );
    }

    #[test]
    fn integers_beyond_64_bits_are_rejected_with_their_line() {
        let e = load_err("a: 1\nb: 99999999999999999999\n");
        assert_eq!(e.line, 2);
        assert!(e.message.contains("does not fit in 64 bits"), "{e}");
        assert!(parse("x: 0xFFFFFFFFFFFFFFFFF", &Limits::default()).is_err());
    }

    #[test]
    fn non_finite_numbers_are_rejected() {
        for text in ["a: .inf", "a: -.Inf", "a: .nan", "a: 1e999"] {
            let e = load_err(text);
            assert_eq!(e.line, 1, "{text}");
        }
    }

    #[test]
    fn oversized_text_is_rejected() {
        let limits = Limits {
            max_bytes: 10,
            ..Limits::default()
        };
        let e = match parse("a: 12345678901", &limits) {
            Err(e) => e,
            Ok(_) => panic!("should fail"),
        };
        assert!(e.message.contains("limit is 10 bytes"), "{e}");
    }

    #[test]
    fn deep_flow_nesting_is_rejected() {
        for n in [100, 10_000, 100_000] {
            let text = "[".repeat(n);
            let e = load_err(&text);
            assert!(e.message.contains("nests deeper than 64 levels"), "{e}");
            let text = "{a: ".repeat(n);
            assert!(parse(&text, &Limits::default()).is_err(), "{n}");
        }
    }

    #[test]
    fn deep_block_nesting_is_rejected() {
        let text = "- ".repeat(10_000) + "x\n";
        let e = load_err(&text);
        assert!(e.message.contains("deeper than 64"), "{e}");
        let mut text = String::new();
        for depth in 0..200 {
            text.push_str(&" ".repeat(depth));
            text.push_str("a:\n");
        }
        let e = load_err(&text);
        assert!(e.message.contains("deeper than 64"), "{e}");
        assert_eq!(e.line, 65);
    }

    #[test]
    fn nesting_at_the_limit_is_accepted() {
        let text = "[".repeat(64) + &"]".repeat(64);
        assert!(parse(&text, &Limits::default()).is_ok());
        let text = "[".repeat(65) + &"]".repeat(65);
        assert!(parse(&text, &Limits::default()).is_err());
    }

    #[test]
    fn billion_laughs_is_rejected() {
        let mut text = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for i in 1..10 {
            let p = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        let e = load_err(&text);
        assert!(e.message.contains("alias bomb"), "{e}");
    }

    #[test]
    fn nested_anchors_cannot_multiply_the_work() {
        let depth = 60;
        let mut text = String::new();
        for i in 0..depth {
            text.push_str(&format!("{{k{i}: &a{i} "));
        }
        text.push('[');
        text.push_str(&"1,".repeat(5_000));
        text.push(']');
        text.push_str(&"}".repeat(depth));
        let e = load_err(&text);
        assert!(e.message.contains("alias bomb"), "{e}");
    }

    #[test]
    fn deep_documents_keep_a_small_line_index() {
        // 60 levels deep, 20 000 items at the bottom: the index holds one entry per node.
        let mut text = String::new();
        for i in 0..60 {
            text.push_str(&format!("{{k{i}: "));
        }
        text.push('[');
        text.push_str(&"1,".repeat(20_000));
        text.push(']');
        text.push_str(&"}".repeat(60));
        let doc = load(&text);
        assert_eq!(doc.lines.len(), 60 + 20_000);
        let deep: String = (0..60).map(|i| format!("k{i}.")).collect();
        assert_eq!(doc.line_of(&format!("{deep}[19999]")), Some(1));
    }

    #[test]
    fn too_many_plain_nodes_are_rejected() {
        let limits = Limits {
            max_nodes: 10,
            ..Limits::default()
        };
        assert!(parse("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]", &limits).is_err());
        assert!(parse("[1, 2, 3, 4, 5, 6, 7, 8, 9]", &limits).is_ok());
    }

    #[test]
    fn aliases_clone_the_anchored_value() {
        let doc = load("base: &b {cpu: 1, memory: 2Gi}\ncopy: *b\nname: &n web\nagain: *n\n");
        assert_eq!(doc.value["copy"], json!({"cpu": 1, "memory": "2Gi"}));
        assert_eq!(doc.value["again"], json!("web"));
    }

    #[test]
    fn merge_keys_fill_missing_entries() {
        let doc = load("defaults: &d {a: 1, b: 2}\nthing:\n  <<: *d\n  b: 3\n");
        assert_eq!(doc.value["thing"], json!({"a": 1, "b": 3}));
        let doc = load("x: &x {a: 1}\ny: &y {a: 2, c: 3}\nz:\n  <<: [*x, *y]\n");
        assert_eq!(doc.value["z"], json!({"a": 1, "c": 3}));
        assert!(parse("a:\n  <<: 5\n", &Limits::default()).is_err());
    }

    #[test]
    fn undefined_and_recursive_aliases_are_rejected() {
        assert!(parse("a: *nothing\n", &Limits::default()).is_err());
        assert!(parse("a: &a [*a]\n", &Limits::default()).is_err());
    }

    #[test]
    fn duplicate_keys_name_the_key_and_both_lines() {
        let e = load_err("metadata:\n  name: a\n  name: b\n");
        assert_eq!((e.line, e.column), (3, 3));
        assert_eq!(
            e.message,
            "duplicate mapping key \"name\" (first defined on line 2)"
        );
        assert_eq!(
            e.to_string(),
            "line 3, column 3: duplicate mapping key \"name\" (first defined on line 2)"
        );
    }

    #[test]
    fn non_string_keys_become_strings() {
        let doc = load("1: x\ntrue: y\n~: z\n1.5: w\n");
        assert_eq!(
            doc.value,
            json!({"1": "x", "true": "y", "null": "z", "1.5": "w"})
        );
        assert!(parse("? [a]\n: b\n", &Limits::default()).is_err());
    }

    #[test]
    fn a_second_document_is_rejected() {
        let e = load_err("a: 1\n---\nb: 2\n");
        assert_eq!(e.line, 2);
        assert!(e.message.contains("single YAML document"), "{e}");
        assert_eq!(load("---\na: 1\n...\n").value, json!({"a": 1}));
    }

    #[test]
    fn syntax_errors_carry_a_position() {
        let e = load_err("a: [1, 2\nb: 3\n");
        assert!(e.line >= 1 && e.column >= 1, "{e}");
        let e = load_err("a: b: c\n");
        assert_eq!(e.line, 1, "{e}");
    }

    #[test]
    fn split_path_understands_brackets_and_dots() {
        assert_eq!(
            split_path("metadata.labels[app.kubernetes.io/name]"),
            vec!["metadata", "labels", "app.kubernetes.io/name"]
        );
        assert_eq!(
            split_path("spec.containers[0].image"),
            vec!["spec", "containers", "0", "image"]
        );
        assert!(split_path("").is_empty());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        #[test]
        fn arbitrary_text_never_panics(text in "[-\\[\\]{}:,&*!|>'\"#?a-c0-9 \n]{0,200}") {
            let _ = parse(&text, &Limits { max_bytes: 1024, max_depth: 8, max_nodes: 200 });
        }
    }
}
