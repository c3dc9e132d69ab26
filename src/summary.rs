//! The text summary `rtenx inspect` prints when it is not on a terminal.

use crate::analysis::Analysis;
use crate::escape::sanitize;
use crate::inventory::{Dim, Graph, Inventory, NodeKind, Storage};
use humansize::{format_size, BINARY};
use std::io::{self, Write};

/// How many findings the summary lists before it stops.
const MAX_FINDINGS: usize = 50;

/// Writes a summary of `analysis`.
pub fn write(w: &mut dyn Write, analysis: &Analysis) -> io::Result<()> {
    let inv = &analysis.inventory;
    let main = inv.main_file();
    let size = main.size.unwrap_or(0);
    writeln!(w, "{}", sanitize(&main.path.display().to_string()))?;
    writeln!(w, "  format   {} {}", inv.format, inv.format_version)?;
    writeln!(w, "  size     {} ({size} bytes)", format_size(size, BINARY))?;
    if let Some(rt) = &inv.runtime {
        writeln!(
            w,
            "  needs    {} >= {} ({})",
            rt.runtime, rt.min_version, rt.reason
        )?;
    }
    properties(w, inv)?;
    sections(w, inv)?;
    if let Some(graph) = inv.graphs.first() {
        io_list(w, "Inputs", graph, &graph.inputs, inv)?;
        io_list(w, "Outputs", graph, &graph.outputs, inv)?;
    }
    operators(w, inv)?;
    tensors(w, inv)?;
    if !inv.metadata.is_empty() {
        writeln!(w, "\nMetadata")?;
        for m in &inv.metadata {
            writeln!(w, "  {:<18} {}", m.key.display(), m.value.display())?;
        }
    }
    findings(w, analysis)
}

fn properties(w: &mut dyn Write, inv: &Inventory) -> io::Result<()> {
    if inv.properties.is_empty() {
        return Ok(());
    }
    writeln!(w, "\nProperties")?;
    for p in &inv.properties {
        let at = p.offset.map(|o| format!("@{o}")).unwrap_or_default();
        writeln!(w, "  {:<20} {:<14} {at}", p.key, sanitize(&p.value))?;
    }
    Ok(())
}

fn sections(w: &mut dyn Write, inv: &Inventory) -> io::Result<()> {
    writeln!(w, "\nSections")?;
    let mut file = 0;
    for s in &inv.sections {
        if s.file != file {
            file = s.file;
            let path = inv
                .files
                .get(file)
                .map(|f| f.path.display().to_string())
                .unwrap_or_default();
            writeln!(w, "  in {}", sanitize(&path))?;
        }
        let r = s.range;
        writeln!(
            w,
            "  {:<14} {:>12} .. {:<12} {:>10}",
            s.kind.label(),
            r.start,
            r.end(),
            format_size(r.len, BINARY)
        )?;
    }
    Ok(())
}

/// Formats a value's shape, such as `[batch, 16]`.
pub fn shape_text(dims: Option<&[Dim]>) -> String {
    let Some(dims) = dims else {
        return "[?]".into();
    };
    let parts: Vec<String> = dims
        .iter()
        .map(|d| match d {
            Dim::Fixed(n) => n.to_string(),
            Dim::Symbolic(name) => name.display().into_owned(),
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

fn io_list(
    w: &mut dyn Write,
    title: &str,
    graph: &Graph,
    ids: &[u32],
    inv: &Inventory,
) -> io::Result<()> {
    writeln!(w, "\n{title} ({})", ids.len())?;
    for &id in ids {
        let Some(node) = graph.node(id) else {
            writeln!(w, "  #{id} (out of range)")?;
            continue;
        };
        let (dtype, shape) = match &node.kind {
            NodeKind::Value(v) => (v.dtype, shape_text(v.shape.as_deref())),
            NodeKind::Constant { tensor } => match inv.tensors.get(*tensor) {
                Some(t) => (t.dtype, format!("{:?} (constant)", t.shape)),
                None => (None, String::new()),
            },
            _ => (None, "(not a value)".into()),
        };
        let dtype = dtype.map_or("?".to_owned(), |d| d.to_string());
        writeln!(w, "  {:<24} {dtype:<5} {shape}", node.name.display())?;
    }
    Ok(())
}

fn operators(w: &mut dyn Write, inv: &Inventory) -> io::Result<()> {
    let hist = inv.operator_histogram();
    let total: u64 = hist.iter().map(|(_, n)| n).sum();
    let nodes: usize = inv.graphs.iter().map(|g| g.nodes.len()).sum();
    writeln!(
        w,
        "\nOperators ({total} in {} graph{}, {nodes} nodes in all)",
        inv.graphs.len(),
        if inv.graphs.len() == 1 { "" } else { "s" }
    )?;
    for (op, n) in hist {
        writeln!(w, "  {:<24} {n:>8}", sanitize(op))?;
    }
    Ok(())
}

fn tensors(w: &mut dyn Write, inv: &Inventory) -> io::Result<()> {
    let t = inv.totals();
    let inline = inv
        .tensors
        .iter()
        .filter(|t| t.storage == Storage::Inline)
        .count();
    writeln!(w, "\nTensors")?;
    writeln!(
        w,
        "  {} constants ({} external, {inline} inline), {} parameters, {}",
        t.tensors,
        t.external,
        t.parameters,
        format_size(t.bytes, BINARY)
    )?;
    if let Some(big) = inv.tensors.iter().max_by_key(|t| t.byte_size) {
        writeln!(
            w,
            "  largest: {} {:?} {}",
            big.name.display(),
            big.shape,
            format_size(big.byte_size.unwrap_or(0), BINARY)
        )?;
    }
    Ok(())
}

fn findings(w: &mut dyn Write, analysis: &Analysis) -> io::Result<()> {
    let counts = crate::check::Counts::of(&analysis.findings);
    writeln!(
        w,
        "\nFindings: {} errors, {} warnings, {} infos",
        counts.errors, counts.warnings, counts.infos
    )?;
    for f in analysis.findings.iter().take(MAX_FINDINGS) {
        let at = f.offset.map(|o| format!(" @{o}")).unwrap_or_default();
        writeln!(
            w,
            "  {}[{}]{at} {}",
            f.severity,
            f.rule.code,
            sanitize(&f.message)
        )?;
    }
    if analysis.findings.len() > MAX_FINDINGS {
        writeln!(
            w,
            "  ... and {} more (run `rtenx check` for all)",
            analysis.findings.len() - MAX_FINDINGS
        )?;
    }
    Ok(())
}
