//! `.pdiparams.info`: the pickled dict that legacy `paddle.jit.save` writes beside the
//! parameters, from variable names to `{structured_name, stop_gradient, trainable}`.
//!
//! The shared pickle machine reads it: nothing is executed or imported, every opcode and
//! memo entry pays the budget, and what it would import is judged like any pickle's (PK001:
//! `paddle.jit.load` unpickles the file). Damage the machine finds (its errors) is reported as
//! PD019, a warning, since Paddle Inference never reads the file. Each string is copied once however
//! often the memo refers to it.

use super::rules::INFO_INVALID;
use crate::check::{Findings, Place, Severity};
use crate::formats::shared::budget::Interner;
use crate::formats::shared::bytes::head;
use crate::formats::shared::context::Context;
use crate::formats::shared::pickle::{
    self, rules, Id, Located, Options, Pickle, Sink, Source, Text, Tree, Value,
};
use crate::inventory::{FileId, MetadataEntry, Name};
use std::collections::HashMap;

/// Budget entries a name pair takes in the metadata.
const PAIR_ENTRIES: u64 = 2;

/// The marker a `.pdiparams.info` holds near its start: the key of every entry.
const MARKER: &[u8] = b"structured_name";

/// Whether `bytes` look like a `.pdiparams.info`: a pickle of protocol 2 or later whose first
/// object is a dict, with `structured_name` in its first 4 KiB.
pub fn detect(bytes: &[u8]) -> bool {
    let head = head(bytes, 4096);
    let dict_at = match head {
        [0x80, 2..=5, 0x95, ..] => 11, // PROTO, FRAME and its length
        [0x80, 2..=5, ..] => 2,
        _ => return false,
    };
    head.get(dict_at) == Some(&b'}') && head.windows(MARKER.len()).any(|w| w == MARKER)
}

/// Adds the structured names of the `.pdiparams.info` in `bytes` (file `file` of the
/// inventory) to the metadata as variable = structured name; reports a file it cannot read
/// and what loading it would import.
pub fn read(bytes: &[u8], file: FileId, cx: &mut Context<'_>) {
    let located = match file {
        0 => Located::File,
        file => Located::Data { file },
    };
    let src = Source {
        bytes,
        start: 0,
        located,
        item: None,
        nth: 0,
    };
    let options = Options::reporting(false);
    let mut damage = Findings::default();
    let mut sink = Sink {
        inv: &mut cx.inv,
        budget: &mut cx.budget,
        out: &mut damage,
    };
    let p = pickle::read_into(&mut sink, &src, options);
    for finding in damage.into_vec() {
        let damage = finding.rule.severity == Severity::Error;
        if damage && finding.rule.code.starts_with(rules::GROUP.prefix) {
            let place = Place::at(finding.offset).in_file(finding.file);
            cx.report(&INFO_INVALID, place, finding.message);
        } else {
            cx.out.push(finding);
        }
    }
    let mut sink = Sink {
        inv: &mut cx.inv,
        budget: &mut cx.budget,
        out: &mut *cx.out,
    };
    pickle::judge_into(&mut sink, &src, &p, options, &|_| None);
    let Some(root) = p.root else {
        return; // the machine said where and why it stopped
    };
    let Some(Value::Dict(entries)) = p.value(root) else {
        let message = "the pickle is not a dict; a .pdiparams.info is a pickled dict of \
variable names to dicts of strings and booleans";
        return cx.report(&INFO_INVALID, src.place(p.start), message);
    };
    // Offsets in this file, which may be a data file of the model: names of its own.
    let mut names = Interner::default();
    // The structured name of each field dict, looked up once however many variables share
    // the dict through the memo.
    let mut structured_names: HashMap<Id, Option<Id>> = HashMap::new();
    for &(var, fields) in entries {
        let structured = *structured_names.entry(fields).or_insert_with(|| {
            let Some(Value::Dict(fields)) = p.value(fields) else {
                return None;
            };
            let marked = fields.iter().find(|&&(key, _)| p.str(key) == Some(MARKER));
            marked.map(|&(_, structured)| structured)
        });
        let Some(structured) = structured else {
            continue;
        };
        if !cx.spend(PAIR_ENTRIES, Place::FILE) {
            return;
        }
        let var = name(&p, var, &mut names, cx);
        let structured = name(&p, structured, &mut names, cx);
        if let Some((var, structured)) = var.zip(structured) {
            cx.inv.metadata.push(MetadataEntry::new(var, structured));
        }
    }
}

/// The text of the `str` value `id`, copied once for each place it has in the file.
fn name(p: &Pickle<'_>, id: Id, names: &mut Interner, cx: &mut Context<'_>) -> Option<Name> {
    match p.value(id)? {
        Value::Str(Text::At(span)) => {
            let text = || p.text(&Text::At(*span)).to_vec();
            Some(names.name_at(span.start, span.len, text, &mut cx.budget, cx.out))
        }
        Value::Str(Text::Decoded(name)) => Some(name.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Analysis;

    fn analyze(bytes: &[u8]) -> Analysis {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("inference.pdiparams.info");
        std::fs::write(&path, bytes).unwrap();
        crate::analyze(&path).unwrap()
    }

    fn codes(a: &Analysis) -> Vec<&str> {
        a.findings.iter().map(|f| f.rule.code).collect()
    }

    /// `pickle.dumps({"a": {"structured_name": "fc.w", "trainable": True}}, protocol=2)`
    fn info() -> Vec<u8> {
        let mut b = b"\x80\x02}q\x00X\x01\x00\x00\x00aq\x01}q\x02(X\x0f\x00\x00\x00".to_vec();
        b.extend(b"structured_nameq\x03X\x04\x00\x00\x00fc.wq\x04X\x09\x00\x00\x00");
        b.extend(b"trainableq\x05\x88us.");
        b
    }

    #[test]
    fn names_come_from_the_dict_and_damage_is_a_warning() {
        let b = info();
        assert!(detect(&b));
        let a = analyze(&b);
        let pairs: Vec<(String, String)> = (a.inventory.metadata.iter())
            .map(|m| (m.key.to_string(), m.value.to_string()))
            .collect();
        assert_eq!(pairs, [("a".to_owned(), "fc.w".to_owned())]);
        assert!(codes(&a).is_empty(), "{:?}", a.findings);
        // Cut anywhere: a PD019 warning, no error, no names.
        let cut = analyze(&b[..b.len() - 3]);
        assert_eq!(codes(&cut), ["PD019"]);
        assert!(cut.inventory.metadata.is_empty());
    }

    #[test]
    fn what_loading_would_import_is_judged() {
        // A dict whose entry's value is os.system("true"): the name stays, the call is PK001.
        let mut b = b"\x80\x02}q\x00X\x01\x00\x00\x00a".to_vec();
        b.extend(b"cos\nsystem\nX\x04\x00\x00\x00true\x85Rs.");
        let a = analyze(&b);
        assert!(codes(&a).contains(&"PK001"), "{:?}", a.findings);
        assert!(a.inventory.metadata.is_empty());
    }

    #[test]
    fn memo_references_share_one_copy() {
        // One 1 KiB name memoised, and used as the structured name of 100 variables.
        let mut b = b"\x80\x02}(".to_vec();
        b.extend(b"X\x0f\x00\x00\x00structured_name\x94");
        b.extend(b"X\x00\x04\x00\x00");
        b.extend([b'x'; 1024]);
        b.extend(b"\x94");
        for i in 0..100u8 {
            b.extend(b"X\x02\x00\x00\x00");
            b.extend([b'0' + i / 10, b'0' + i % 10, b'}', b'h', 0, b'h', 1, b's']);
        }
        b.extend(b"u.");
        let a = analyze(&b);
        assert_eq!(a.inventory.metadata.len(), 100, "{:?}", a.findings);
        let first = a.inventory.metadata[0].value.as_bytes().as_ptr();
        assert!(a
            .inventory
            .metadata
            .iter()
            .all(|m| m.value.as_bytes().as_ptr() == first));
    }
}
