//! The layering ARCHITECTURE.md states, held to the code: every module imports only modules
//! of lower layers (or its own top-level module), and modules of one folder import each
//! other in circles only where ARCHITECTURE.md names the circle as one concept split across
//! files.
//!
//! Imports are read from the source text: every path that starts with `crate::`, `super::`,
//! `self::` or `rtenx::` (the binary's name for the library), including the items of `use`
//! groups, outside comments and test modules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, lowest first: a module may import modules of a lower layer and its own
/// top-level module, nothing else. Keep in step with ARCHITECTURE.md, "Layers".
const LAYERS: &[&[&str]] = &[
    &["escape"],
    &["source"],
    &["inventory"],
    &["check"],
    &["formats"],
    &["values", "remote", "signing"],
    &["analysis", "catalogue"],
    &["diff", "report", "synth"],
    &["json_dump", "summary", "sbom"],
    &["tui"],
    &["cli"],
];

/// Circles allowed inside one folder, each one concept split across files (ARCHITECTURE.md
/// names them): the folder and its modules in the circle.
const ONE_CONCEPT: &[(&str, &[&str])] = &[];

type Module = Vec<String>;

/// Every `.rs` file under `root` by module path, with its text.
fn sources(root: &Path) -> BTreeMap<Module, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(root).unwrap().with_extension("");
                let mut module: Module = (relative.iter())
                    .map(|c| c.to_string_lossy().into_owned())
                    .collect();
                if matches!(
                    module.last().map(String::as_str),
                    Some("mod" | "lib" | "main")
                ) {
                    module.pop();
                }
                // lib.rs and main.rs are both the root.
                let text: &mut String = out.entry(module).or_default();
                text.push_str(&std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    out
}

/// The code of `text` without comments and without what follows `#[cfg(test)]` (test
/// modules close a file).
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    let lines = text.lines().map(|line| match line.find("//") {
        Some(at) => &line[..at],
        None => line,
    });
    lines.collect::<Vec<_>>().join("\n")
}

/// The paths `text` names that start at the crate or the module, as written (`crate::a::b`,
/// `super::c`), the items of `use` groups each as a path of its own.
fn paths(text: &str) -> Vec<Vec<String>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let starts = ["crate::", "super::", "self::", "rtenx::"]
            .iter()
            .find(|p| bytes[at..].starts_with(p.as_bytes()));
        let boundary = at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
        let (Some(_), true) = (starts, boundary) else {
            at += 1;
            continue;
        };
        at = read_path(text, at, Vec::new(), &mut out);
    }
    out
}

/// Reads the path at `at` (and its `use` group if it ends in `::{`) onto `prefix`, pushing
/// every complete path to `out`; returns where it ended.
fn read_path(
    text: &str,
    mut at: usize,
    mut prefix: Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> usize {
    let bytes = text.as_bytes();
    loop {
        let start = at;
        while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_') {
            at += 1;
        }
        if at > start {
            prefix.push(text[start..at].to_owned());
        }
        if bytes[at..].starts_with(b"::{") {
            at += 3;
            // The group's items, each a path after the prefix, up to the closing brace.
            loop {
                while at < bytes.len() && matches!(bytes[at], b' ' | b'\n' | b',' | b'\t') {
                    at += 1;
                }
                if at >= bytes.len() || bytes[at] == b'}' {
                    return at + 1;
                }
                let before = at;
                at = read_path(text, at, prefix.clone(), out);
                // Skip what a path does not read (`as name`, `*`).
                while at < bytes.len() && !matches!(bytes[at], b',' | b'}') {
                    at += 1;
                }
                if at == before {
                    at += 1;
                }
            }
        }
        if bytes[at..].starts_with(b"::") && at + 2 < bytes.len() {
            let next = bytes[at + 2];
            if next.is_ascii_alphabetic() || next == b'_' || next == b'{' {
                at += 2;
                continue;
            }
        }
        if prefix.len() > 1 && prefix.last().is_some_and(|s| s != "self") {
            out.push(prefix);
        } else if prefix.len() > 1 {
            prefix.pop();
            out.push(prefix);
        }
        return at;
    }
}

/// `path`, written in `module`, as a path from the crate root.
fn resolve(module: &Module, path: &[String]) -> Module {
    let mut at: Module = match path.first().map(String::as_str) {
        Some("crate" | "rtenx") => Vec::new(),
        _ => module.clone(),
    };
    let mut rest = path.iter().skip(usize::from(matches!(
        path.first().map(String::as_str),
        Some("crate" | "rtenx" | "self")
    )));
    for segment in rest.by_ref() {
        if segment == "super" {
            at.pop();
        } else {
            at.push(segment.clone());
        }
    }
    at
}

/// What a source tree imports: for each module, the modules it names (each cut to the
/// longest prefix that is a module).
fn imports(sources: &BTreeMap<Module, String>) -> BTreeMap<Module, BTreeSet<Module>> {
    let modules: BTreeSet<&Module> = sources.keys().collect();
    let mut out = BTreeMap::new();
    for (module, text) in sources {
        let mut named = BTreeSet::new();
        for path in paths(&code(text)) {
            let mut target = resolve(module, &path);
            while !target.is_empty() && !modules.contains(&target) {
                target.pop();
            }
            if !target.is_empty() && &target != module {
                named.insert(target);
            }
        }
        out.insert(module.clone(), named);
    }
    out
}

fn layer(module: &Module) -> Option<usize> {
    let top = module.first()?;
    LAYERS.iter().position(|l| l.contains(&top.as_str()))
}

/// Imports against the layers, as `from -> to`.
fn against_the_flow(imports: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<String> {
    let mut out = Vec::new();
    for (from, targets) in imports {
        for to in targets {
            let allowed = match (layer(from), layer(to)) {
                _ if from.first() == to.first() => true,
                (Some(a), Some(b)) => b < a,
                // The crate roots (lib.rs, main.rs) stand above every layer.
                (None, _) => from.is_empty(),
                (Some(_), None) => false,
            };
            if !allowed {
                out.push(format!("{} -> {}", from.join("::"), to.join("::")));
            }
        }
    }
    out
}

/// The circles among the modules of each folder: the folder and the modules in the circle.
fn circles(imports: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<(String, Vec<String>)> {
    // The edges between the children of each folder.
    let mut folders: BTreeMap<Module, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (from, targets) in imports {
        for to in targets {
            let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
            if common < from.len() && common < to.len() {
                let edges = folders.entry(from[..common].to_vec()).or_default();
                edges
                    .entry(from[common].clone())
                    .or_default()
                    .insert(to[common].clone());
                edges.entry(to[common].clone()).or_default();
            }
        }
    }
    let mut out = Vec::new();
    for (folder, edges) in &folders {
        for circle in strongly_connected(edges) {
            out.push((folder.join("::"), circle));
        }
    }
    out
}

/// The strongly connected components of more than one node (Tarjan's algorithm).
fn strongly_connected(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, (usize, usize)>,
        stack: Vec<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let i = s.index.len();
        s.index.insert(v, (i, i));
        s.stack.push(v);
        for w in &s.edges[v] {
            match s.index.get(w.as_str()) {
                None => {
                    visit(s, w);
                    let low = s.index[w.as_str()].1;
                    let e = s.index.get_mut(v).unwrap();
                    e.1 = e.1.min(low);
                }
                Some(&(wi, _)) if s.stack.contains(&w.as_str()) => {
                    let e = s.index.get_mut(v).unwrap();
                    e.1 = e.1.min(wi);
                }
                Some(_) => {}
            }
        }
        let (vi, low) = s.index[v];
        if vi == low {
            let at = s.stack.iter().rposition(|&x| x == v).unwrap();
            let mut component: Vec<String> = s.stack.drain(at..).map(str::to_owned).collect();
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        stack: Vec::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn modules_import_only_lower_layers() {
    let imports = imports(&sources(Path::new("src")));
    for module in imports.keys().filter(|m| !m.is_empty()) {
        assert!(
            layer(module).is_some(),
            "{} has no layer",
            module.join("::")
        );
    }
    let wrong = against_the_flow(&imports);
    assert!(
        wrong.is_empty(),
        "imports against the flow:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn circles_are_only_the_named_ones() {
    let imports = imports(&sources(Path::new("src")));
    let found = circles(&imports);
    let unnamed: Vec<String> = (found.iter())
        .filter(|(folder, circle)| {
            !ONE_CONCEPT
                .iter()
                .any(|(f, c)| f == folder && c.iter().eq(circle.iter()))
        })
        .map(|(folder, circle)| format!("{folder}: {}", circle.join(" <-> ")))
        .collect();
    assert!(
        unnamed.is_empty(),
        "import circles:\n{}",
        unnamed.join("\n")
    );
    assert!(
        ONE_CONCEPT.len() <= 2,
        "at most two circles, each one concept"
    );
}

/// A planted import against the flow and a planted circle are both caught.
#[test]
fn the_checks_catch_planted_imports() {
    let tree = |files: &[(&str, &str)]| -> BTreeMap<Module, String> {
        (files.iter())
            .map(|(m, t)| (m.split('/').map(str::to_owned).collect(), t.to_string()))
            .collect()
    };
    let clean = tree(&[
        (
            "formats/gguf",
            "use crate::inventory::Tensor;\nuse super::shared::bytes;",
        ),
        (
            "formats/shared/bytes",
            "use crate::check::{Findings, Place};",
        ),
        ("formats/shared", ""),
        ("formats", ""),
        ("inventory", "pub fn f() {}"),
        ("check", "use crate::inventory::{self, Name};"),
        ("tui", "use crate::{check::Finding, inventory::Name};"),
    ]);
    assert_eq!(against_the_flow(&imports(&clean)), Vec::<String>::new());
    assert!(circles(&imports(&clean)).is_empty());

    let mut planted = clean.clone();
    planted.insert(
        vec!["formats".into(), "gguf".into()],
        "use crate::{inventory::Tensor, tui::Tab};\n// use crate::cli::x;".into(),
    );
    assert_eq!(
        against_the_flow(&imports(&planted)),
        ["formats::gguf -> tui"]
    );

    let mut circle = clean;
    circle.insert(
        vec!["inventory".into()],
        "use crate::check::Finding;".into(),
    );
    assert_eq!(against_the_flow(&imports(&circle)), ["inventory -> check"]);
    assert_eq!(
        circles(&imports(&circle)),
        [(
            String::new(),
            vec!["check".to_owned(), "inventory".to_owned()]
        )]
    );
}
