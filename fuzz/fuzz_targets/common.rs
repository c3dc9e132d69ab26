//! What every target asserts about an analysis, beyond "no panic".
//!
//! Each check is a documented promise of rtenx (README, docs/finding-offsets.md, the doc
//! comments of `Inventory` and `Finding`); a failed assertion is a crash like a panic.

#![allow(dead_code)] // Not every target uses every helper.

use rtenx::check::{Finding, Item};
use rtenx::inventory::{FileRole, Inventory};
use rtenx::Analysis;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A folder that exists and is empty, made once per process, for models whose external data
/// locations are resolved against it: every location is then missing (DX006) or refused
/// before the file system is asked, and nothing outside it is ever looked at. The name is
/// fixed, so runs are reproducible and leave at most one empty folder behind.
pub fn empty_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join("rtenx-fuzz-empty");
        std::fs::create_dir_all(&dir).expect("cannot create the empty folder for fuzzing");
        let entries = std::fs::read_dir(&dir)
            .expect("cannot list the empty folder")
            .count();
        assert_eq!(
            entries,
            0,
            "{} must be empty for reproducible runs",
            dir.display()
        );
        dir
    })
}

/// Rules known to break the offset invariant, each with its reproducer under
/// `tests/fixtures/fuzz/`; they are let through so that fuzzing can go on finding other
/// problems. Remove an entry once its bug is fixed.
const KNOWN_OFFSET_PAST_END: &[&str] = &[
    // RT009 adds the verifier's position to model_offset, and flatbuffers reports positions
    // it never reached (a root offset of 0xdeadbeef is "misaligned at 3735928559"):
    // tests/fixtures/fuzz/rten/RT009-offset-past-end.rten.
    "RT009",
];

/// Known bug, let through so that fuzzing can go on (remove once fixed): the RTen reader
/// sorts its sections only when it walked the FlatBuffer, so when the model data cannot be
/// read (RT003, RT004, RT009) a tensor data section that starts before the model data is
/// listed after it: tests/fixtures/fuzz/rten/sections-unsorted.rten.
fn known_unsorted_sections(a: &Analysis) -> bool {
    a.inventory.format.name() == "rten"
        && a.findings
            .iter()
            .any(|f| ["RT003", "RT004", "RT009"].contains(&f.rule.code))
}

/// Findings that point at a byte the file *claims*, which may lie past its end: a tensor's
/// data start (docs/finding-offsets.md). Every other finding on the model points inside it.
fn may_point_past_end(f: &Finding, inv: &Inventory, size: u64) -> bool {
    match f.item {
        Some(Item::Tensor { tensor }) => inv.tensors.get(tensor).is_some_and(|t| {
            t.data
                .as_ref()
                .is_some_and(|d| d.file == f.file && d.offset.saturating_add(d.len) > size)
        }),
        _ => false,
    }
}

/// The invariants of an analysis of `bytes`.
pub fn check_analysis(bytes: &[u8], a: &Analysis) {
    let inv = &a.inventory;
    let size = bytes.len() as u64;
    let main = inv
        .files
        .first()
        .expect("the inventory lists the model file");
    assert_eq!(main.role, FileRole::Model, "files[0] is the model");
    assert_eq!(main.size, Some(size), "files[0].size is the model's size");
    for file in &inv.files[1..] {
        assert_eq!(
            file.role,
            FileRole::ExternalData,
            "files[1..] are data files"
        );
    }

    // Sections: in a listed file, sorted by file and start ("sorted by file and start offset").
    for s in &inv.sections {
        assert!(
            s.file < inv.files.len(),
            "section in file {} of {}",
            s.file,
            inv.files.len()
        );
        assert!(
            s.range.start.checked_add(s.range.len).is_some(),
            "section end overflows: {s:?}"
        );
    }
    if !known_unsorted_sections(a) {
        for pair in inv.sections.windows(2) {
            let key = |s: &rtenx::inventory::Section| (s.file, s.range.start);
            assert!(
                key(&pair[0]) <= key(&pair[1]),
                "sections out of order: {pair:?}"
            );
        }
    }

    for f in &a.findings {
        assert!(
            f.file < inv.files.len(),
            "{}: file {} of {}",
            f.rule.code,
            f.file,
            inv.files.len()
        );
        if let (0, Some(offset)) = (f.file, f.offset) {
            assert!(
                offset <= size
                    || may_point_past_end(f, inv, size)
                    || KNOWN_OFFSET_PAST_END.contains(&f.rule.code),
                "{} points at byte {offset} of a {size}-byte model: {}",
                f.rule.code,
                f.message
            );
        }
        if let Some(item) = f.item {
            assert!(
                item_exists(item, inv),
                "{} names a missing {item:?}",
                f.rule.code
            );
        }
        assert!(
            f.message.chars().count() <= 1000 + 40,
            "{}: message not clipped",
            f.rule.code
        );
    }
}

/// Whether the item a finding names is in the inventory, so that a writer or the browser
/// can look it up (the Findings tab jumps to it).
fn item_exists(item: Item, inv: &Inventory) -> bool {
    match item {
        Item::Field { .. } => true,
        Item::Graph { graph } | Item::GraphRef { graph, .. } => graph < inv.graphs.len(),
        Item::Node { graph, node } => inv
            .graphs
            .get(graph)
            .is_some_and(|g| g.node(node).is_some()),
        Item::Tensor { tensor } => tensor < inv.tensors.len(),
        Item::Section { section } => section < inv.sections.len(),
        Item::Import { import } => import < inv.imports.len(),
    }
}

/// Whether `c` may appear in text rtenx prints: the rule of `rtenx::escape::sanitize`, plus
/// the newline that ends each line.
pub fn printable(c: char) -> bool {
    c == '\n' || !rtenx::escape::needs_escape(c)
}

/// Asserts that `out` is UTF-8 text with nothing but printable characters and newlines;
/// with `color`, the writer's own `ESC [ digits;... m` colour codes are allowed.
pub fn check_text(what: &str, out: &[u8], color: bool) {
    let text = std::str::from_utf8(out).unwrap_or_else(|e| panic!("{what}: not UTF-8: {e}"));
    let mut rest = text;
    while let Some((i, c)) = rest.char_indices().find(|&(_, c)| !printable(c)) {
        if color && c == '\x1b' {
            let after = &rest[i + 1..];
            let body = after
                .strip_prefix('[')
                .unwrap_or_else(|| panic!("{what}: bare ESC"));
            let end = body
                .find(|c: char| !(c.is_ascii_digit() || c == ';'))
                .unwrap_or(body.len());
            assert!(
                body[end..].starts_with('m'),
                "{what}: escape other than a colour code"
            );
            rest = &body[end + 1..];
            continue;
        }
        let line = text[..text.len() - rest.len() + i].matches('\n').count() + 1;
        panic!(
            "{what}: unescaped {:?} (U+{:04X}) on line {line}",
            c, c as u32
        );
    }
}

/// Analyses `data` as a file at `path` and builds its scope tree, and, when detection
/// chooses another format, also reads it as `format` directly, since `Format::read` promises
/// never to panic on any input; checks both analyses.
pub fn check_as(
    format: &dyn rtenx::formats::Format,
    path: impl Into<std::path::PathBuf>,
    data: &[u8],
) {
    use rtenx::check::{generic, Findings};
    use rtenx::formats::ReadOptions;
    use rtenx::source::ModelFile;

    let file = ModelFile::in_memory(path, data.to_vec());
    let analysis = rtenx::analyze_file(&file);
    check_analysis(data, &analysis);
    rtenx::inventory::ScopeTree::build(&analysis.inventory);
    if analysis.inventory.format.name() != format.about().name {
        let mut findings = Findings::default();
        let inventory = format.read(&file, &ReadOptions::default(), &mut findings);
        generic::run(&inventory, file.bytes(), &mut findings);
        let forced = Analysis {
            inventory,
            findings: findings.into_vec(),
        };
        check_analysis(data, &forced);
    }
}
