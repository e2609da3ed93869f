//! The core as a JavaScript module: `run` and `validate`, bound with wasm-bindgen and built by
//! scripts/build-js. Natively it does nothing; it exists for the wasm32 build.
//!
//! Results cross into JavaScript as JSON text that `JSON.parse` turns into plain objects: the
//! core already serializes its records for the command-line runner, so the module hands over
//! exactly what `rolloutscope run --json` prints, with no second serializer to keep in step.

use js_sys::{Array, Error, JSON, Object, Reflect, TypeError};
use rolloutscope::sim::manifest;
use rolloutscope::sim::scenario::Scenario;
use rolloutscope::sim::{self, TraceFormat};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// The largest integer a JavaScript number holds exactly (`Number.MAX_SAFE_INTEGER`); a larger
/// seed must come as a BigInt, or it would silently be a different seed.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

fn main() {}

/// Runs a scenario file's text to its end and returns its trace.
///
/// `options` (optional): `seed` (a non-negative integer, Number or BigInt) replaces the
/// scenario's seed; `format` is `"json"` (the default: an array with one object per step, each
/// the object `rolloutscope run --json` prints on that step's line) or `"text"` (a string, what
/// `rolloutscope run` prints).
///
/// # Errors
/// Throws an `Error` whose message lists the scenario's problems, one `line N: field: message`
/// per line, and whose `problems` property holds them as `{ line, field, message }`; throws a
/// `TypeError` for options it does not know.
#[wasm_bindgen(unchecked_return_type = "object[] | string")]
pub fn run(
    #[wasm_bindgen(js_name = scenarioYaml)] scenario_yaml: &str,
    #[wasm_bindgen(
        unchecked_optional_param_type = "{ seed?: number | bigint, format?: 'json' | 'text' }"
    )]
    options: Option<Object>,
) -> Result<JsValue, JsValue> {
    let options = RunOptions::from_js(options)?;
    let mut scenario = Scenario::parse(scenario_yaml).map_err(|errs| {
        let message = errs
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n");
        let error = Error::new(&message);
        let problems = problem_list(errs.iter().map(|e| Problem {
            line: e.line,
            field: &e.field,
            message: &e.message,
        }))
        .unwrap_or_else(|_| Array::new().into());
        // Setting a property on a fresh Error cannot fail; were it to, the message says it all.
        let _ = Reflect::set(&error, &"problems".into(), &problems);
        JsValue::from(error)
    })?;
    if let Some(seed) = options.seed {
        scenario.seed = seed;
    }
    let mut trace = String::new();
    sim::write_trace(&scenario, options.format, &mut trace).map_err(|e| error(&e.to_string()))?;
    match options.format {
        TraceFormat::Text => Ok(trace.into()),
        // A JSON string never holds a raw newline, so the line breaks are exactly the record
        // boundaries and the lines become one array for a single `JSON.parse`.
        TraceFormat::JsonLines => JSON::parse(&format!(
            "[{}]",
            trace.trim_end_matches('\n').replace('\n', ",")
        )),
    }
}

/// Checks a Deployment manifest as the API server would on `kubectl apply` and returns its
/// problems as `{ line, field, message }` objects (`line` is `null` when unknown); an empty
/// array when the manifest is valid.
#[wasm_bindgen(unchecked_return_type = "{ line: number | null, field: string, message: string }[]")]
pub fn validate(
    #[wasm_bindgen(js_name = manifestYaml)] manifest_yaml: &str,
) -> Result<JsValue, JsValue> {
    let errs = manifest::check(manifest_yaml).err().unwrap_or_default();
    problem_list(errs.iter().map(|e| Problem {
        line: e.line,
        field: &e.field,
        message: &e.message,
    }))
}

/// What `run`'s second argument may say.
struct RunOptions {
    seed: Option<u64>,
    format: TraceFormat,
}

impl RunOptions {
    /// Reads the options object; `undefined` and `null` (as `None`) mean the defaults.
    fn from_js(options: Option<Object>) -> Result<RunOptions, JsValue> {
        let mut parsed = RunOptions {
            seed: None,
            format: TraceFormat::JsonLines,
        };
        let Some(options) = options else {
            return Ok(parsed);
        };
        // The binding passes any value through as an `Object`; only a real one has options.
        if !options.is_object() {
            return Err(type_error(
                "options must be an object such as { seed: 7, format: 'text' }",
            ));
        }
        // A misspelt option would otherwise be ignored and the run quietly be the wrong one.
        for key in Object::keys(&options).iter() {
            let key = key.as_string().unwrap_or_default();
            if key != "seed" && key != "format" {
                return Err(type_error(&format!(
                    "unknown option {key:?}: run knows seed and format"
                )));
            }
        }
        let seed = Reflect::get(&options, &"seed".into())?;
        if !seed.is_undefined() {
            parsed.seed = Some(seed_from_js(seed)?);
        }
        let format = Reflect::get(&options, &"format".into())?;
        parsed.format = match format.as_string().as_deref() {
            _ if format.is_undefined() => TraceFormat::JsonLines,
            Some("json") => TraceFormat::JsonLines,
            Some("text") => TraceFormat::Text,
            _ => return Err(type_error("options.format must be 'json' or 'text'")),
        };
        Ok(parsed)
    }
}

/// A seed from a Number that is a safe non-negative integer, or from a BigInt within u64.
fn seed_from_js(seed: JsValue) -> Result<u64, JsValue> {
    let invalid = || {
        type_error(
            "options.seed must be a non-negative integer (a BigInt above Number.MAX_SAFE_INTEGER)",
        )
    };
    if seed.is_bigint() {
        return u64::try_from(seed).map_err(|_| invalid());
    }
    match seed.as_f64() {
        Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= MAX_SAFE_INTEGER => {
            // Exact: a safe integer converts to u64 without rounding.
            Ok(n as u64)
        }
        _ => Err(invalid()),
    }
}

/// One problem as JavaScript sees it, in this key order: where, which field, what.
#[derive(Serialize)]
struct Problem<'a> {
    line: Option<usize>,
    field: &'a str,
    message: &'a str,
}

/// Problems as an array of `{ line, field, message }` objects, the one shape both `validate` and
/// `run`'s errors use.
fn problem_list<'a>(problems: impl Iterator<Item = Problem<'a>>) -> Result<JsValue, JsValue> {
    let list = problems.collect::<Vec<_>>();
    let text = serde_json::to_string(&list).map_err(|e| error(&e.to_string()))?;
    JSON::parse(&text)
}

fn error(message: &str) -> JsValue {
    Error::new(message).into()
}

fn type_error(message: &str) -> JsValue {
    TypeError::new(message).into()
}
