//! `torch.export` archives (`.pt2`): the programs in `models/` (JSON graphs that loading
//! deserialises), the weights and constants `data/*/model_*_config.json` describe (raw files
//! placed in the archive, or pickles loaded with `weights_only=False`), and the sample inputs
//! (a checkpoint that `torch.export.load` loads, falling back to `weights_only=False`).

use super::dtypes;
use super::rules::{config_invalid, EXPORT_CONFIG_INVALID, EXPORT_PROGRAM};
use crate::check::Place;
use crate::escape::{excerpt, EXCERPT};
use crate::formats::shared::bytes::Stop;
use crate::formats::shared::context::Context;
use crate::formats::shared::json::{self, Parser, Str, Token};
use crate::formats::shared::zip::{Archive, Member, LOCAL_MAGIC};
use crate::inventory::{ByteRange, DataRange, Import, Storage, Tensor, TensorView, Trust};
use std::borrow::Cow;

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

/// How deep a payload config may nest (it needs five levels: the document, `config`, an
/// entry, its `tensor_meta`, a size).
const MAX_DEPTH: usize = 64;

/// A step of reading a payload config; it stops where the config is not what
/// `torch.export.load` reads ([`Stop::Problem`]), or once the budget ran out.
type Step<T = ()> = Result<T, Stop<json::Error>>;

/// One entry of a payload config: a weight or constant and where it is kept.
struct Payload<'a> {
    /// Its fully qualified name (the entry's key).
    fqn: Cow<'a, str>,
    /// The archive member that holds it, under the config's folder.
    path: Cow<'a, str>,
    /// Whether the member is a pickle (`torch.save` of the object).
    use_pickle: bool,
    /// How a raw member is viewed as a tensor.
    meta: Option<Meta>,
}

/// A raw weight's `tensor_meta`: what `torch.export.load` views its member as.
#[derive(Default)]
struct Meta {
    dtype: Option<i64>,
    sizes: Vec<u64>,
    strides: Vec<u64>,
    storage_offset: Option<u64>,
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
    let mut reader = Reader {
        cx,
        base: config.data,
    };
    let mut entries = match reader.document(&mut Parser::new(text, MAX_DEPTH)) {
        Ok(entries) => entries,
        Err(Stop::Problem(e)) => {
            let message = config_invalid(config.name, &e.what);
            cx.report(
                &EXPORT_CONFIG_INVALID,
                Place::at(config.data.saturating_add(e.at)),
                message,
            );
            return;
        }
        Err(Stop::Short(_) | Stop::Reported) => return,
    };
    // `json.loads` keeps the last entry of a name; they are read in the order of their names.
    entries.sort_by(|a, b| a.fqn.cmp(&b.fqn));
    entries.reverse();
    entries.dedup_by(|later, earlier| later.fqn == earlier.fqn);
    entries.reverse();
    for payload in entries {
        let Some(member) = archive.get(&[dir, payload.path.as_bytes()].concat()) else {
            continue;
        };
        if payload.use_pickle {
            nested_checkpoint(cx, member, read_nested);
        } else if let Some(meta) = payload.meta {
            weight(cx, &payload.fqn, meta, member, &payload.path);
        }
    }
}

/// A payload config being read: what it keeps is paid from the model's budget.
struct Reader<'r, 'x> {
    cx: &'r mut Context<'x>,
    /// Where the config starts in the file.
    base: u64,
}

impl Reader<'_, '_> {
    /// The entries of a payload config, `{"config": {fqn: {"path_name": ..., "use_pickle": ...,
    /// "tensor_meta": {...}}}}`.
    fn document<'a>(&mut self, p: &mut Parser<'a>) -> Step<Vec<Payload<'a>>> {
        p.object_document()?;
        let mut entries = None;
        while let Some(key) = p.key_or_end()? {
            let Some((at, token)) = p.token()? else {
                break;
            };
            match (key.is("config"), token) {
                (true, Token::Object) => {
                    let mut read = Vec::new();
                    while let Some(fqn) = p.key_or_end()? {
                        read.push(self.entry(p, fqn)?);
                    }
                    entries = Some(read);
                }
                (true, token) => {
                    return wrong(at, format!("config is {}, not an object", token.kind()))
                }
                (false, token) => p.finish_value(&token)?,
            }
        }
        p.end()?;
        entries.map_or_else(|| wrong(0, "it has no config".into()), Ok)
    }

    /// The entry named `fqn`.
    fn entry<'a>(&mut self, p: &mut Parser<'a>, fqn: Str<'a>) -> Step<Payload<'a>> {
        let shown = || excerpt(fqn.raw().as_bytes(), EXCERPT);
        self.spend(fqn.at)?;
        let (at, token) = p.token()?.unwrap_or((fqn.at, Token::End));
        if token != Token::Object {
            return wrong(
                at,
                format!("\"{}\" is {}, not an object", shown(), token.kind()),
            );
        }
        let (mut path, mut use_pickle, mut meta) = (None, false, None);
        while let Some(key) = p.key_or_end()? {
            let Some((at, token)) = p.token()? else {
                break;
            };
            let expected = match (&*key.unescape(), token) {
                ("path_name", Token::Str(s)) => {
                    path = Some(s.unescape());
                    continue;
                }
                ("use_pickle", Token::Bool(b)) => {
                    use_pickle = b;
                    continue;
                }
                ("tensor_meta", Token::Object) => {
                    meta = Some(self.tensor_meta(p)?);
                    continue;
                }
                ("tensor_meta", Token::Null) => {
                    meta = None;
                    continue;
                }
                ("path_name", _) => "a string",
                ("use_pickle", _) => "a boolean",
                ("tensor_meta", _) => "an object",
                (_, token) => {
                    p.finish_value(&token)?;
                    continue;
                }
            };
            let (key, kind) = (key.unescape(), token.kind());
            return wrong(
                at,
                format!("the {key} of \"{}\" is {kind}, not {expected}", shown()),
            );
        }
        let Some(path) = path else {
            return wrong(fqn.at, format!("\"{}\" has no path_name", shown()));
        };
        if !use_pickle && meta.is_none() {
            let message = format!(
                "\"{}\" is a raw tensor (use_pickle false) without tensor_meta",
                shown()
            );
            return wrong(fqn.at, message);
        }
        Ok(Payload {
            fqn: fqn.unescape(),
            path,
            use_pickle,
            meta,
        })
    }

    /// A `tensor_meta` object, after its `{`.
    fn tensor_meta(&mut self, p: &mut Parser<'_>) -> Step<Meta> {
        let mut meta = Meta::default();
        while let Some(key) = p.key_or_end()? {
            let Some((_, token)) = p.token()? else {
                break;
            };
            match (&*key.unescape(), token) {
                ("dtype", Token::Number(n)) => meta.dtype = n.as_i64(),
                ("sizes", Token::Array) => meta.sizes = self.ints(p)?,
                ("strides", Token::Array) => meta.strides = self.ints(p)?,
                ("storage_offset", Token::Object) => meta.storage_offset = as_int(p)?,
                (_, token) => p.finish_value(&token)?,
            }
        }
        Ok(meta)
    }

    /// A list of symbolic integers, after its `[`: each `{"as_int": n}`, anything else not a
    /// size.
    fn ints(&mut self, p: &mut Parser<'_>) -> Step<Vec<u64>> {
        let mut ints = Vec::new();
        while let Some((at, token)) = p.item_or_end()? {
            self.spend(at)?;
            let int = match token {
                Token::Object => as_int(p)?,
                token => {
                    p.finish_value(&token)?;
                    None
                }
            };
            ints.push(int.unwrap_or(Tensor::NOT_A_SIZE));
        }
        Ok(ints)
    }

    /// Pays for an entry of the config read at `at` in it.
    fn spend(&mut self, at: u64) -> Step {
        match self.cx.spend(1, Place::at(self.base.saturating_add(at))) {
            true => Ok(()),
            false => Err(Stop::Reported),
        }
    }
}

/// A symbolic integer's `as_int`, after its `{`, if it is a non-negative integer.
fn as_int(p: &mut Parser<'_>) -> Step<Option<u64>> {
    let mut int = None;
    while let Some(key) = p.key_or_end()? {
        match (key.is("as_int"), p.token()?) {
            (true, Some((_, Token::Number(n)))) => int = n.as_u64(),
            (_, Some((_, token))) => p.finish_value(&token)?,
            (_, None) => break,
        }
    }
    Ok(int)
}

/// A config that is JSON but not what `torch.export.load` reads: `what` is wrong at `at`.
fn wrong<T>(at: u64, what: String) -> Step<T> {
    Err(Stop::Problem(json::Error { at, what }))
}

/// A weight stored raw: a view of the file `member` as `meta` describes it.
fn weight(cx: &mut Context<'_>, fqn: &str, meta: Meta, member: &Member<'_>, path: &str) {
    if !cx.spend(1, Place::at(member.header)) {
        return;
    }
    let dtype = meta.dtype.and_then(dtypes::of_scalar_type);
    let name = cx.name(fqn.as_bytes());
    let tensor = Tensor::declared(name, dtype, meta.sizes, member.header);
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
        storage_offset: meta.storage_offset.unwrap_or(0),
        strides: meta.strides,
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
