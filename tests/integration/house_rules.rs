//! House rules that can be checked by reading files: the invariants ARCHITECTURE.md promises.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Code lines only: comments are allowed to name what the code must not use.
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| {
            let t = l.trim_start();
            !(t.starts_with("//") || t.starts_with("*"))
        })
}

#[test]
fn the_core_names_no_web_crate_clock_or_hash_map() {
    const BANNED: &[&str] = &[
        "leptos",
        "web_sys",
        "js_sys",
        "wasm_bindgen",
        "Instant",
        "SystemTime",
        "HashMap",
        "HashSet",
        "thread_rng",
        "getrandom",
    ];
    let mut files = Vec::new();
    rust_files(&root().join("src/sim"), &mut files);
    assert!(files.len() > 10, "src/sim should hold the core");
    let mut hits = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("read source");
        for (n, line) in code_lines(&text) {
            for b in BANNED {
                if line.contains(b) {
                    hits.push(format!("{}:{n}: names {b}: {}", f.display(), line.trim()));
                }
            }
        }
    }
    assert!(
        hits.is_empty(),
        "the core must stay pure:\n{}",
        hits.join("\n")
    );
}

#[test]
fn the_ui_is_the_only_part_that_uses_leptos() {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    for f in &files {
        let rel = f
            .strip_prefix(root())
            .unwrap_or(f)
            .to_string_lossy()
            .replace('\\', "/");
        if rel.starts_with("src/ui/") || rel == "src/main.rs" || rel == "src/lib.rs" {
            continue;
        }
        let text = std::fs::read_to_string(f).expect("read source");
        for (n, line) in code_lines(&text) {
            assert!(
                !line.contains("leptos"),
                "{rel}:{n} uses leptos outside src/ui"
            );
        }
    }
}

#[test]
fn every_module_opens_with_a_doc_comment_defining_its_noun() {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    rust_files(&root().join("tests"), &mut files);
    let missing: Vec<String> = files
        .iter()
        .filter(|f| {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            !text.trim_start().starts_with("//!")
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "modules without a //! opening comment:\n{}",
        missing.join("\n")
    );
}

#[test]
fn no_unsafe_inner_html_or_input_unwraps_in_the_crate() {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let mut hits = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("read source");
        let in_tests = text.find("#[cfg(test)]").unwrap_or(text.len());
        for (n, line) in code_lines(&text[..in_tests]) {
            for b in ["unsafe ", "inner_html", ".unwrap()"] {
                if line.contains(b) {
                    hits.push(format!("{}:{n}: {}", f.display(), line.trim()));
                }
            }
        }
    }
    assert!(hits.is_empty(), "banned constructs:\n{}", hits.join("\n"));
}

#[test]
fn the_code_sorts_through_sim_order() {
    const DIRECT: &[&str] = &[".sort()", ".sort_by(", ".sort_by_key(", ".sort_unstable"];
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let mut hits = Vec::new();
    for f in &files {
        if f.ends_with("sim/order.rs") {
            continue;
        }
        let text = std::fs::read_to_string(f).expect("read source");
        // A file's tests come last, after its `#[cfg(test)]`; they may sort as they like.
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for (n, line) in code_lines(code) {
            if let Some(d) = DIRECT.iter().find(|d| line.contains(*d)) {
                hits.push(format!("{}:{n}: calls {d}: {}", f.display(), line.trim()));
            }
        }
    }
    assert!(
        hits.is_empty(),
        "sort with sim::order instead (one copy of the sorting code in the app):\n{}",
        hits.join("\n")
    );
}

#[test]
fn main_rs_only_mounts_the_app() {
    let text = std::fs::read_to_string(root().join("src/main.rs")).expect("read src/main.rs");
    let code: Vec<&str> = code_lines(&text)
        .map(|(_, l)| l)
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert!(
        code.len() <= 12,
        "src/main.rs should only install the panic hook and mount the app"
    );
}

#[test]
fn architecture_doc_lists_the_invariants() {
    let text =
        std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md exists");
    for needle in ["## Codemap", "## Invariants", "src/sim", "src/ui"] {
        assert!(
            text.contains(needle),
            "ARCHITECTURE.md should mention {needle}"
        );
    }
}
