//! `torch.export` archives (`.pt2`): the programs in `models/` (JSON graphs that loading
//! deserialises), the weights and constants `data/*/model_*_config.json` describe (raw files
//! placed in the archive, or pickles loaded with `weights_only=False`), and the sample inputs
//! (a checkpoint that `torch.export.load` loads, falling back to `weights_only=False`).

use super::dtypes;
use super::rules::EXPORT_PROGRAM;
use crate::check::Place;
use crate::escape::{excerpt, EXCERPT};
use crate::formats::shared::context::Context;
use crate::formats::shared::zip::{Archive, Member, LOCAL_MAGIC};
use crate::inventory::{ByteRange, DataRange, Import, Storage, Tensor, TensorView, Trust};
use serde_json::Value;

/// Reads a stored member that is itself a checkpoint archive (the archive reader, which
/// calls this module: handed in so that the two do not import each other).
pub type ReadNested<'r> = &'r dyn Fn(&mut Context<'_>, ByteRange);

/// Reads the `.pt2` archive whose members are under `prefix`, its nested checkpoints with
/// `read_nested`.
pub fn read(
    cx: &mut Context<'_>,
    archive: &Archive<'_>,
    prefix: &[u8],
    nested: bool,
    read_nested: ReadNested<'_>,
) {
    if nested {
        return;
    }
    cx.inv.format_version = "torch.export".to_owned();
    let under = |dir: &[u8]| [prefix, dir].concat();
    let models = under(b"models/");
    for m in archive
        .members
        .iter()
        .filter(|m| m.name.starts_with(&models) && m.name.ends_with(b".json"))
    {
        let message = format!("torch.export.load deserialises a graph that runs when the model is called: a torch.export program, {} ({} bytes)", excerpt(m.name, EXCERPT), m.size);
        cx.report(&EXPORT_PROGRAM, Place::at(m.header), message);
        if cx.spend(1, Place::at(m.header)) {
            let name = cx.name(m.name);
            cx.inv.imports.push(Import {
                name,
                kind: "program",
                file: 0,
                offset: m.header,
                call: None,
                trust: Trust::Code,
            });
        }
    }
    for dir in [&b"data/weights/"[..], b"data/constants/"] {
        let dir = under(dir);
        for config in archive
            .members
            .iter()
            .filter(|m| m.name.starts_with(&dir) && m.name.ends_with(b"_config.json"))
        {
            payloads(cx, archive, config, &dir, read_nested);
        }
    }
    let inputs = under(b"data/sample_inputs/");
    for m in archive
        .members
        .iter()
        .filter(|m| m.name.starts_with(&inputs))
    {
        nested_checkpoint(cx, m, read_nested);
    }
}

/// The weights or constants a payload config describes.
fn payloads(
    cx: &mut Context<'_>,
    archive: &Archive<'_>,
    config: &Member<'_>,
    dir: &[u8],
    read_nested: ReadNested<'_>,
) {
    let Some(text) = config.raw(cx.bytes).filter(|_| config.stored()) else {
        return;
    };
    if !cx
        .budget
        .copy(text.len() as u64, Place::at(config.header), cx.out)
    {
        return;
    }
    let Ok(json) = serde_json::from_slice::<Value>(text) else {
        return;
    };
    let Some(entries) = json.get("config").and_then(Value::as_object) else {
        return;
    };
    for (fqn, payload) in entries {
        let Some(path) = payload.get("path_name").and_then(Value::as_str) else {
            continue;
        };
        let Some(member) = archive.get(&[dir, path.as_bytes()].concat()) else {
            continue;
        };
        if payload.get("use_pickle").and_then(Value::as_bool) == Some(true) {
            nested_checkpoint(cx, member, read_nested);
        } else if let Some(meta) = payload.get("tensor_meta") {
            weight(cx, fqn, meta, member, path);
        }
    }
}

/// A weight stored raw: a view of the file `member` as `meta` describes it.
fn weight(cx: &mut Context<'_>, fqn: &str, meta: &Value, member: &Member<'_>, path: &str) {
    if !cx.spend(1, Place::at(member.header)) {
        return;
    }
    let ints = |key: &str| -> Vec<u64> {
        let items = meta
            .get(key)
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let int = |v: &Value| {
            v.get("as_int")
                .and_then(Value::as_u64)
                .unwrap_or(Tensor::NOT_A_SIZE)
        };
        items.iter().map(int).collect()
    };
    let dtype = meta
        .get("dtype")
        .and_then(Value::as_i64)
        .and_then(dtypes::of_scalar_type);
    let offset = meta
        .get("storage_offset")
        .and_then(|o| o.get("as_int"))
        .and_then(Value::as_u64);
    let name = cx.name(fqn.as_bytes());
    let tensor = Tensor::declared(name, dtype, ints("sizes"), member.header);
    let index = cx.inv.tensors.len();
    let tensor = match member.stored() {
        true => tensor.stored(
            Storage::External,
            DataRange {
                file: 0,
                offset: member.data,
                len: member.compressed,
            },
        ),
        false => Tensor {
            storage: Storage::Inline,
            ..tensor
        },
    };
    cx.inv.tensors.push(tensor);
    let storage = cx.name(path.as_bytes());
    cx.inv.views.push(TensorView {
        tensor: index,
        storage,
        storage_offset: offset.unwrap_or(0),
        strides: ints("strides"),
    });
}

/// A stored member that is itself a checkpoint archive, read for what its pickles import.
fn nested_checkpoint(cx: &mut Context<'_>, member: &Member<'_>, read_nested: ReadNested<'_>) {
    let is_zip = member
        .raw(cx.bytes)
        .is_some_and(|b| b.starts_with(LOCAL_MAGIC));
    if member.stored() && is_zip {
        read_nested(cx, member.range());
    }
}
