//! The text report: a summary line per section, as `git diff --stat` gives one per file,
//! then each section that differs. Lines start with `-` for what only A has, `+` for what
//! only B has, and `~` for what both have, changed. Every name is escaped.

use super::{Change, Diff, GraphDiff, HeldTensor, NodeChange, NodeRef, Port, TensorSide};
use crate::analysis::Analysis;
use crate::escape;
use crate::inventory::display::{count_text, dims_text, dtype_text, shape_text, Part};
use crate::inventory::Name;
use humansize::{format_size, BINARY};
use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::path::Path;

/// Items listed per list before the rest are counted, unless all are asked for (JSON lists
/// them all).
const SHOWN: usize = 50;

/// How many items of each list to write.
#[derive(Debug, Clone, Copy)]
pub enum Lists {
    /// The first [`SHOWN`], then how many were left out.
    Cut,
    /// Every item.
    All,
}

impl Lists {
    fn limit(self) -> usize {
        match self {
            Lists::Cut => SHOWN,
            Lists::All => usize::MAX,
        }
    }
}

/// Writes `diff` of `a` (at `paths[0]`) and `b` as text.
pub fn write<W: Write>(
    w: &mut W,
    diff: &Diff,
    sides: [(&Path, &Analysis); 2],
    lists: Lists,
) -> io::Result<()> {
    for (label, (path, analysis)) in ["a", "b"].iter().zip(sides) {
        let inv = &analysis.inventory;
        let size: u64 = inv.files.iter().filter_map(|f| f.size).sum();
        writeln!(
            w,
            "{label}: {} ({} {}, {size} bytes)",
            escape::path(path),
            inv.format,
            escape::sanitize(&inv.format_version)
        )?;
    }
    writeln!(w)?;
    for line in stat_lines(diff) {
        writeln!(w, "{line}")?;
    }
    let n = lists.limit();
    files(w, diff, n)?;
    interface(w, diff, n)?;
    graph(w, &diff.graph, n)?;
    tensors(w, diff, n)?;
    values(w, diff, n)?;
    findings(w, diff, n)
}

/// The totals from A to B, then one line per section, as `git diff --stat` gives one per
/// file: ` graph     | 1 changed`.
pub fn stat_lines(diff: &Diff) -> Vec<String> {
    let totals = summary(diff);
    let sections = stats(diff).into_iter();
    let sections = sections.map(|(title, stat)| format!(" {title:<10}| {stat}"));
    std::iter::once(totals).chain(sections).collect()
}

/// `operators 53 -> 53 (52 paired, 1 added, 1 removed) · parameters 4.4M -> 4.4M · weights
/// 17.6 MiB -> 4.5 MiB`.
fn summary(diff: &Diff) -> String {
    let s = &diff.summary;
    let o = &s.operators;
    let how = [
        (o.paired, "paired"),
        (o.replaced, "replaced"),
        (o.added, "added"),
        (o.removed, "removed"),
    ];
    let how: Vec<String> = (how.iter())
        .filter(|&&(n, what)| n > 0 || what == "paired")
        .map(|(n, what)| format!("{} {what}", count_text(*n)))
        .collect();
    format!(
        "operators {} -> {} ({}) · parameters {} -> {} · weights {} -> {}",
        count_text(o.a),
        count_text(o.b),
        how.join(", "),
        count(s.parameters.a),
        count(s.parameters.b),
        format_size(s.bytes.a, BINARY),
        format_size(s.bytes.b, BINARY),
    )
}

/// A count as written at a glance: exact below 10,000, else to three figures (`4.4M`).
fn count(n: u64) -> String {
    let (scaled, unit) = match n {
        0..10_000 => return count_text(n),
        10_000..1_000_000 => (n as f64 / 1e3, "K"),
        1_000_000..1_000_000_000 => (n as f64 / 1e6, "M"),
        _ => (n as f64 / 1e9, "B"),
    };
    match scaled {
        x if x < 100.0 => format!("{x:.1}{unit}"),
        x => format!("{x:.0}{unit}"),
    }
}

/// The diff as a part of a model's summary, for the model shown as B: the section lines,
/// then the operators and tensors that only A has (which B's views cannot mark).
pub fn part(diff: &Diff) -> Part {
    let mut lines = stat_lines(diff);
    let removed: Vec<String> = (diff.graph.removed.iter().map(|n| format!("- {}", node(n))))
        .chain(
            diff.tensors
                .removed
                .iter()
                .map(|t| format!("- {}", tensor(t))),
        )
        .collect();
    lines.extend(removed.iter().take(SHOWN).cloned());
    if removed.len() > SHOWN {
        lines.push(format!("… and {} more", removed.len() - SHOWN));
    }
    Part {
        heading: "Compared (+ only here, ~ changed, - only in the other model)".to_owned(),
        lines,
    }
}

/// One summary per section.
fn stats(diff: &Diff) -> Vec<(&'static str, String)> {
    let or_same = |parts: Vec<String>| {
        if parts.is_empty() {
            "same".to_owned()
        } else {
            parts.join(", ")
        }
    };
    let count = |n: usize, what: &str| (n > 0).then(|| format!("{n} {what}"));
    let plural =
        |n: usize, what: &str| count(n, &format!("{what}{}", if n == 1 { "" } else { "s" }));
    let f = &diff.files;
    let files = [
        f.format.as_ref().map(|_| "format".to_owned()),
        f.version.as_ref().map(|_| "version".to_owned()),
        f.size.as_ref().map(|_| "size".to_owned()),
        f.producer.as_ref().map(|_| "producer".to_owned()),
        plural(f.metadata.len(), "metadata key"),
    ];
    let i = &diff.interface;
    let interface = [
        plural(i.inputs.len(), "input"),
        plural(i.outputs.len(), "output"),
    ];
    let g = &diff.graph;
    let graph = [
        plural(g.operators.len(), "operator count"),
        count(g.changed.len(), "changed"),
        count(g.added.len(), "added"),
        count(g.removed.len(), "removed"),
    ];
    let t = &diff.tensors;
    let tensors = [
        count(t.changed.len(), "changed"),
        count(t.renamed.len(), "renamed"),
        count(t.added.len(), "added"),
        count(t.removed.len(), "removed"),
    ];
    let fi = &diff.findings;
    let findings = [count(fi.new.len(), "new"), count(fi.fixed.len(), "fixed")];
    let collect = |parts: &[Option<String>]| or_same(parts.iter().flatten().cloned().collect());
    let mut out = vec![
        ("files", collect(&files)),
        ("interface", collect(&interface)),
        (
            "graph",
            format!("{} ({} operators paired)", collect(&graph), g.matched),
        ),
        (
            "tensors",
            format!("{} ({} matched by name)", collect(&tensors), t.matched),
        ),
    ];
    if let Some(v) = &diff.values {
        let beyond = v.changed.iter().filter(|c| !c.within_tolerance).count();
        let within = v.changed.len() - beyond;
        let unpaired = (v.unpaired_a > 0 || v.unpaired_b > 0).then(|| {
            format!(
                "{} {} in A and {} in B could not be paired: values not compared",
                v.unpaired_a,
                if v.unpaired_a == 1 {
                    "tensor"
                } else {
                    "tensors"
                },
                v.unpaired_b
            )
        });
        let parts = [
            count(beyond, "differ"),
            count(within, "within tolerance"),
            count(v.not_compared.len(), "not compared"),
            unpaired,
        ];
        out.push((
            "values",
            format!(
                "{} ({} of {} pairs equal)",
                collect(&parts),
                v.equal,
                v.compared
            ),
        ));
    }
    out.push(("findings", collect(&findings)));
    out
}

fn name(n: &Name) -> std::borrow::Cow<'_, str> {
    n.display()
}

fn heading<W: Write>(w: &mut W, title: &str) -> io::Result<()> {
    writeln!(w, "\n{title}")
}

/// Writes up to `limit` lines of `items`, then how many were left out.
fn list<W: Write, T>(
    w: &mut W,
    items: &[T],
    limit: usize,
    line: impl Fn(&mut W, &T) -> io::Result<()>,
) -> io::Result<()> {
    for item in items.iter().take(limit) {
        line(w, item)?;
    }
    if items.len() > limit {
        writeln!(w, "  … and {} more (--all lists them)", items.len() - limit)?;
    }
    Ok(())
}

fn change<W: Write, T>(
    w: &mut W,
    what: &str,
    c: &Option<Change<T>>,
    show: impl Fn(&T) -> String,
) -> io::Result<()> {
    match c {
        Some(c) => writeln!(w, "~ {what}: {} -> {}", show(&c.a), show(&c.b)),
        None => Ok(()),
    }
}

fn files<W: Write>(w: &mut W, diff: &Diff, n: usize) -> io::Result<()> {
    let f = &diff.files;
    if f.is_empty() {
        return Ok(());
    }
    heading(w, "files")?;
    let text = |s: &String| escape::sanitize(s).into_owned();
    change(w, "format", &f.format, |s| s.to_string())?;
    change(w, "version", &f.version, text)?;
    change(w, "size", &f.size, |n| format!("{n} bytes"))?;
    change(w, "producer", &f.producer, text)?;
    let value = |v: &Option<Name>| v.as_ref().map(|v| escape::clip(name(v), 60).into_owned());
    list(w, &f.metadata, n, |w, m| match (value(&m.a), value(&m.b)) {
        (Some(a), Some(b)) => writeln!(w, "~ metadata {}: {a} -> {b}", name(&m.key)),
        (Some(a), None) => writeln!(w, "- metadata {}: {a}", name(&m.key)),
        (None, Some(b)) => writeln!(w, "+ metadata {}: {b}", name(&m.key)),
        (None, None) => Ok(()),
    })
}

fn port(p: &Port) -> String {
    format!("{} {}", dtype_text(p.dtype), shape_text(p.shape.as_deref()))
}

fn interface<W: Write>(w: &mut W, diff: &Diff, n: usize) -> io::Result<()> {
    if diff.interface.is_empty() {
        return Ok(());
    }
    heading(w, "interface")?;
    for (kind, changes) in [
        ("input", &diff.interface.inputs),
        ("output", &diff.interface.outputs),
    ] {
        list(w, changes, n, |w, c| match (&c.a, &c.b) {
            (Some(a), Some(b)) => {
                writeln!(w, "~ {kind} {}: {} -> {}", name(&c.name), port(a), port(b))
            }
            (Some(a), None) => writeln!(w, "- {kind} {}: {}", name(&c.name), port(a)),
            (None, Some(b)) => writeln!(w, "+ {kind} {}: {}", name(&c.name), port(b)),
            (None, None) => Ok(()),
        })?;
    }
    Ok(())
}

fn node(n: &NodeRef) -> String {
    labelled(n, &format!("node {}", n.node))
}

/// An operator with `at` saying where it is: `Gemm "fc1" (node 7)`.
fn labelled(n: &NodeRef, at: &str) -> String {
    let graph = match n.graph {
        0 => String::new(),
        g => format!(" in subgraph {g}"),
    };
    let op = escape::clip(escape::sanitize(&n.op_type), 100);
    format!("{op} \"{}\" ({at}{graph})", name(&n.name))
}

/// Two paired operators, named once where they share type and name.
fn pair(a: &NodeRef, b: &NodeRef) -> String {
    if a.op_type != b.op_type || a.name != b.name || a.graph != b.graph {
        format!("{} / {}", node(a), node(b))
    } else if a.node == b.node {
        node(a)
    } else {
        labelled(a, &format!("node {} / {}", a.node, b.node))
    }
}

/// What changed between two paired operators.
fn node_change(c: &NodeChange) -> String {
    let mut what = Vec::new();
    if let Some(op) = &c.op_type {
        what.push(format!("{} -> {}", op.a, op.b));
    }
    if let Some(n) = &c.inputs {
        what.push(format!("inputs {} -> {}", n.a, n.b));
    }
    if !c.attributes.is_empty() {
        let names: Vec<String> = c.attributes.iter().map(|a| a.to_string()).collect();
        what.push(format!("attributes {}", names.join(", ")));
    }
    let mut what = vec![escape::sanitize(&what.join("; ")).into_owned()];
    what.retain(|s| !s.is_empty());
    what.extend(c.tensors.iter().map(held));
    what.join("; ")
}

/// A constant a paired operator holds, changed: `input 1 w -> w_quantized (f32 -> i8)`.
fn held(t: &HeldTensor) -> String {
    let place = match (&t.input, &t.attribute) {
        (Some(k), _) => format!("input {k}"),
        (None, Some(attr)) => format!("attribute {}", escape::sanitize(attr)),
        (None, None) => "tensor".to_owned(),
    };
    let c = &t.change;
    let names = if c.a == c.b {
        name(&c.a).into_owned()
    } else {
        format!("{} -> {}", name(&c.a), name(&c.b))
    };
    let mut what = type_changes(c);
    if t.values_differ {
        what.push("values differ".to_owned());
    }
    format!("{place} {names} ({})", what.join(", "))
}

fn graph<W: Write>(w: &mut W, g: &GraphDiff, n: usize) -> io::Result<()> {
    if g.is_empty() {
        return Ok(());
    }
    heading(w, "graph")?;
    list(w, &g.operators, n, |w, o| {
        writeln!(w, "~ {}: {} -> {}", escape::sanitize(&o.op_type), o.a, o.b)
    })?;
    list(w, &g.changed, n, |w, c| {
        writeln!(w, "~ {}: {}", pair(&c.a, &c.b), node_change(c))
    })?;
    list(w, &g.removed, n, |w, x| writeln!(w, "- {}", node(x)))?;
    list(w, &g.added, n, |w, x| writeln!(w, "+ {}", node(x)))
}

/// How two tensors' dtype, shape and bytes differ: `f32 -> i8, 2048 -> 512 bytes`.
fn type_changes(c: &super::TensorChange) -> Vec<String> {
    let mut what = Vec::new();
    if let Some(d) = &c.dtype {
        what.push(format!("{} -> {}", dtype_text(d.a), dtype_text(d.b)));
    }
    if let Some(s) = &c.shape {
        what.push(format!("{} -> {}", dims_text(&s.a), dims_text(&s.b)));
    }
    if let Some(s) = &c.byte_size {
        let bytes = |n: Option<u64>| n.map_or("?".to_owned(), |n| n.to_string());
        what.push(format!("{} -> {} bytes", bytes(s.a), bytes(s.b)));
    }
    what
}

fn tensor(t: &TensorSide) -> String {
    format!(
        "{} {} {}",
        name(&t.name),
        dtype_text(t.dtype),
        dims_text(&t.shape)
    )
}

fn tensors<W: Write>(w: &mut W, diff: &Diff, n: usize) -> io::Result<()> {
    let t = &diff.tensors;
    if t.is_empty() {
        return Ok(());
    }
    heading(w, "tensors")?;
    // A renamed tensor whose type changed too is written once, as renamed.
    let retyped: HashMap<(&[u8], &[u8]), &super::TensorChange> = (t.changed.iter())
        .map(|c| ((c.a.as_bytes(), c.b.as_bytes()), c))
        .collect();
    let renamed: HashSet<(&[u8], &[u8])> = (t.renamed.iter())
        .map(|r| (r.a.as_bytes(), r.b.as_bytes()))
        .collect();
    let changed: Vec<_> = (t.changed.iter())
        .filter(|c| !renamed.contains(&(c.a.as_bytes(), c.b.as_bytes())))
        .collect();
    list(w, &changed, n, |w, c| {
        let what = type_changes(c);
        let names = if c.a.as_bytes() == c.b.as_bytes() {
            name(&c.a).into_owned()
        } else {
            format!("{} / {}", name(&c.a), name(&c.b))
        };
        writeln!(w, "~ {names}: {}", what.join(", "))
    })?;
    list(w, &t.renamed, n, |w, r| {
        let by = match r.by {
            super::RenamedBy::Bytes => "same bytes",
            super::RenamedBy::Operator => "read by paired operators",
            super::RenamedBy::Shape => "same dtype and shape",
        };
        let what = (retyped.get(&(r.a.as_bytes(), r.b.as_bytes())))
            .map(|c| format!(": {}", type_changes(c).join(", ")))
            .unwrap_or_default();
        writeln!(w, "~ {} -> {} ({by}){what}", name(&r.a), name(&r.b))
    })?;
    list(w, &t.removed, n, |w, x| writeln!(w, "- {}", tensor(x)))?;
    list(w, &t.added, n, |w, x| writeln!(w, "+ {}", tensor(x)))
}

fn values<W: Write>(w: &mut W, diff: &Diff, n: usize) -> io::Result<()> {
    let Some(v) = &diff.values else {
        return Ok(());
    };
    if v.changed.is_empty() && v.not_compared.is_empty() {
        return Ok(());
    }
    heading(w, "values")?;
    list(w, &v.changed, n, |w, c| {
        let figures = c.numeric.map_or("bytes differ".to_owned(), |n| {
            let mut s = format!(
                "{} differing, max abs {:.3e}, max rel {:.3e}",
                n.differing, n.max_abs, n.max_rel
            );
            if n.nan_appeared > 0 {
                s.push_str(&format!(", {} NaN appeared", n.nan_appeared));
            }
            if n.inf_appeared > 0 {
                s.push_str(&format!(", {} Inf appeared", n.inf_appeared));
            }
            s
        });
        let mark = if c.within_tolerance {
            " (within tolerance)"
        } else {
            ""
        };
        writeln!(w, "~ {}: {figures}{mark}", name(&c.a))
    })?;
    list(w, &v.not_compared, n, |w, x| {
        writeln!(w, "  {}: not compared, {}", name(&x.a), x.reason)
    })
}

fn findings<W: Write>(w: &mut W, diff: &Diff, n: usize) -> io::Result<()> {
    let f = &diff.findings;
    if f.is_empty() {
        return Ok(());
    }
    heading(w, "findings")?;
    for (mark, keys) in [("-", &f.fixed), ("+", &f.new)] {
        list(w, keys, n, |w, k| {
            let item = k
                .item
                .as_deref()
                .map(|i| format!(" {i}"))
                .unwrap_or_default();
            let message = escape::clip(escape::sanitize(&k.message), 120);
            writeln!(
                w,
                "{mark} {}[{}]{item}: {message}",
                k.severity.name(),
                k.code
            )
        })?;
    }
    Ok(())
}
