//! Every repeated field of every ONNX message rtenx reads, filled with millions of empty
//! entries in a file of at most 16 MB, stays under 300 MiB of peak memory in `check`, in
//! `dump --json` and in the browser's indexes. The fields are read from `schema/onnx.proto`,
//! so a field added to the schema is tested without touching this file; a message with
//! repeated fields but no way into a model fails the test until it gets one in `PARENTS`.
//! Measured as the growth of the process's peak resident memory (Linux only).
#![cfg(target_os = "linux")]

use std::io::Write;

/// Largest hostile file, and the peak memory growth allowed while it is read.
const MAX_FILE: usize = 16 << 20;
const MAX_GROWTH_KIB: u64 = 300 * 1024;

/// Where each message with repeated fields sits in a model: its parent and field number.
const PARENTS: &[(&str, &str, u32)] = &[
    ("GraphProto", "ModelProto", 7),
    ("TrainingInfoProto", "ModelProto", 20),
    ("FunctionProto", "ModelProto", 25),
    ("NodeProto", "GraphProto", 1),
    ("TensorProto", "GraphProto", 5),
    ("SparseTensorProto", "GraphProto", 15),
    ("ValueInfoProto", "GraphProto", 11),
    ("AttributeProto", "NodeProto", 5),
    ("TypeProto", "ValueInfoProto", 2),
    ("TypeProto.Tensor", "TypeProto", 1),
    ("TensorShapeProto", "TypeProto.Tensor", 2),
    ("TensorShapeProto.Dimension", "TensorShapeProto", 1),
];

/// How one entry of a repeated field is written.
#[derive(Debug, Clone, Copy)]
enum Wire {
    /// An empty string or message.
    Empty,
    /// A zero varint.
    Varint,
    /// Zero in 4 or 8 bytes.
    Fixed(usize),
    /// One packed run of zero values of this size.
    Packed(usize),
}

#[derive(Debug)]
struct Repeated {
    message: String,
    name: String,
    number: u32,
    wire: Wire,
}

fn repeated_fields() -> Vec<Repeated> {
    let proto = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/schema/onnx.proto"))
        .expect("schema/onnx.proto");
    // Open blocks: a message's name, or `None` for an enum or oneof.
    let mut stack: Vec<Option<String>> = Vec::new();
    let mut fields = Vec::new();
    for line in proto
        .lines()
        .map(|l| l.split("//").next().unwrap_or("").trim())
    {
        if let Some(name) = line.strip_prefix("message ") {
            stack.push(Some(name.trim_end_matches('{').trim().to_owned()));
        } else if line.ends_with('{') {
            stack.push(None);
        } else if line == "}" {
            stack.pop();
        } else if let Some(rest) = line.strip_prefix("repeated ") {
            let words: Vec<&str> = rest.split_whitespace().collect();
            let (ty, name, number) = (words[0], words[1], words[3].trim_end_matches(';'));
            let size = match ty {
                "float" | "fixed32" | "sfixed32" => Some(4),
                "double" | "fixed64" | "sfixed64" => Some(8),
                "int32" | "int64" | "uint32" | "uint64" | "sint32" | "sint64" | "bool" => None,
                _ => Some(0),
            };
            let packed = rest.contains("packed = true");
            let wire = match (size, packed) {
                (Some(0), _) => Wire::Empty,
                (None, false) => Wire::Varint,
                (Some(n), false) => Wire::Fixed(n),
                (None, true) => Wire::Packed(1),
                (Some(n), true) => Wire::Packed(n),
            };
            fields.push(Repeated {
                message: stack
                    .iter()
                    .flatten()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("."),
                name: name.to_owned(),
                number: number.parse().expect("a field number"),
                wire,
            });
        }
    }
    fields
}

fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn key(number: u32, wire_type: u8, out: &mut Vec<u8>) {
    varint(u64::from(number) << 3 | u64::from(wire_type), out);
}

/// A message holding only `field`, repeated as often as fits in about `budget` bytes.
fn bomb(field: &Repeated, budget: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(budget + 16);
    match field.wire {
        Wire::Packed(size) => {
            key(field.number, 2, &mut out);
            let len = budget / size * size;
            varint(len as u64, &mut out);
            out.resize(out.len() + len, 0);
        }
        wire => {
            let mut entry = Vec::new();
            match wire {
                Wire::Empty => {
                    key(field.number, 2, &mut entry);
                    entry.push(0);
                }
                Wire::Varint => {
                    key(field.number, 0, &mut entry);
                    entry.push(0);
                }
                Wire::Fixed(n) => {
                    key(field.number, if n == 4 { 5 } else { 1 }, &mut entry);
                    entry.resize(entry.len() + n, 0);
                }
                Wire::Packed(_) => unreachable!(),
            }
            while out.len() + entry.len() <= budget {
                out.extend_from_slice(&entry);
            }
        }
    }
    out
}

/// `payload`, as the content of a `message`, wrapped up to a whole ModelProto.
fn in_model(message: &str, payload: Vec<u8>) -> Vec<u8> {
    let mut content = payload;
    let mut message = message.to_owned();
    while message != "ModelProto" {
        let (_, parent, number) = PARENTS
            .iter()
            .find(|(m, ..)| *m == message)
            .unwrap_or_else(|| panic!("{message} has repeated fields: add it to PARENTS"));
        let mut outer = Vec::with_capacity(content.len() + 16);
        key(*number, 2, &mut outer);
        varint(content.len() as u64, &mut outer);
        outer.extend_from_slice(&content);
        content = outer;
        message = (*parent).to_owned();
    }
    // ir_version 10 first, so that the file is recognised as ONNX.
    let mut model = vec![0x08, 0x0a];
    model.extend_from_slice(&content);
    model
}

fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with(field)).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn every_repeated_field_filled_with_empty_entries_stays_small() {
    let fields = repeated_fields();
    assert!(
        fields.len() >= 30,
        "only {} repeated fields parsed",
        fields.len()
    );
    let mut report = Vec::new();
    for field in &fields {
        let model = in_model(&field.message, bomb(field, MAX_FILE - 64));
        assert!(model.len() <= MAX_FILE, "{} bytes", model.len());
        let file = rtenx::source::ModelFile::in_memory("bomb.onnx", model);
        std::fs::write("/proc/self/clear_refs", "5").expect("reset the peak RSS");
        let before = status_kib("VmRSS:");
        let analysis = rtenx::analyze_file(&file);
        let mut sink = std::io::sink();
        rtenx::json_dump::write(&mut sink, &analysis).unwrap();
        sink.flush().unwrap();
        let app = rtenx::tui::App::new(analysis, rtenx::tui::Tab::Graph);
        drop(app);
        let grown = status_kib("VmHWM:").saturating_sub(before);
        report.push(format!(
            "{}.{} ({}): {grown} KiB",
            field.message, field.name, field.number
        ));
        assert!(
            grown < MAX_GROWTH_KIB,
            "{}.{}: peak RSS grew by {grown} KiB\n{}",
            field.message,
            field.name,
            report.join("\n")
        );
    }
    eprintln!("{}", report.join("\n"));
}
