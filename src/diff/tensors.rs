//! The tensors: matched by name (after `--rename`), then by bytes (with `--values`), by the
//! operators that read them (once the graphs are paired) and by dtype and shape where that is
//! unambiguous; what is left was added or removed.

use super::{pairing, values, Change, Options};
use crate::inventory::hashing::Seeded;
use crate::inventory::{DType, Inventory, Name, Tensor, TensorId};
use regex::bytes::Regex;
use serde::Serialize;
use std::collections::HashMap;
use std::hash::Hash;

/// A name mapping: A's tensor names that `from` matches are rewritten to `to` (with `$1`
/// and the like for groups) before they are compared with B's.
#[derive(Debug, Clone)]
pub struct RenameRule {
    from: Regex,
    to: String,
}

impl std::str::FromStr for RenameRule {
    type Err = String;

    /// Parses `FROM=TO`: a regular expression, the first `=`, and its replacement.
    fn from_str(s: &str) -> Result<Self, String> {
        let (from, to) = s
            .split_once('=')
            .ok_or_else(|| format!("expected FROM=TO, got {s:?}"))?;
        let from = Regex::new(from).map_err(|e| e.to_string())?;
        Ok(RenameRule {
            from,
            to: to.to_owned(),
        })
    }
}

/// How the tensors differ.
#[derive(Debug, Default, Serialize)]
pub struct TensorsDiff {
    /// Tensors paired by name, or through `--rename`.
    pub matched: u64,
    /// Tensors only B has.
    pub added: Vec<TensorSide>,
    /// Tensors only A has.
    pub removed: Vec<TensorSide>,
    /// Tensors found under another name.
    pub renamed: Vec<Rename>,
    /// Paired tensors whose dtype, shape or size differ.
    pub changed: Vec<TensorChange>,
}

impl TensorsDiff {
    /// Whether nothing differs.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
            && self.removed.is_empty()
            && self.renamed.is_empty()
            && self.changed.is_empty()
    }
}

/// A tensor of one side.
#[derive(Debug, Serialize)]
pub struct TensorSide {
    /// Its name.
    pub name: Name,
    /// Element type.
    pub dtype: Option<DType>,
    /// Dimensions.
    pub shape: Vec<u64>,
    /// Bytes, if known.
    pub byte_size: Option<u64>,
}

impl From<&Tensor> for TensorSide {
    fn from(t: &Tensor) -> Self {
        TensorSide {
            name: t.name.clone(),
            dtype: t.dtype,
            shape: t.shape.clone(),
            byte_size: t.byte_size,
        }
    }
}

/// A tensor found under another name.
#[derive(Debug, Serialize)]
pub struct Rename {
    /// A's name.
    pub a: Name,
    /// B's name.
    pub b: Name,
    /// What showed they are one tensor.
    pub by: RenamedBy,
}

/// What pairs two tensors of different names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RenamedBy {
    /// The same bytes (with `--values`).
    Bytes,
    /// Read at one input slot, or held in one attribute, by paired operators.
    Operator,
    /// The only tensor of its dtype and shape on each side.
    Shape,
}

/// Two paired tensors whose type differs.
#[derive(Debug, Serialize)]
pub struct TensorChange {
    /// A's name.
    pub a: Name,
    /// B's name.
    pub b: Name,
    /// Element types.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dtype: Option<Change<Option<DType>>>,
    /// Dimensions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shape: Option<Change<Vec<u64>>>,
    /// Bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub byte_size: Option<Change<Option<u64>>>,
}

/// The diff, and every pair of tensors (A's, B's) whose values can be compared.
pub(super) struct Compared {
    pub diff: TensorsDiff,
    pub pairs: Vec<(TensorId, TensorId)>,
}

/// Tensors paired so far, and those left on each side.
pub(super) struct Matching<'i> {
    a: &'i Inventory,
    b: &'i Inventory,
    /// Pairs by name, or through `--rename`.
    pub pairs: Vec<(TensorId, TensorId)>,
    renamed: Vec<((TensorId, TensorId), RenamedBy)>,
    left_a: Vec<TensorId>,
    left_b: Vec<TensorId>,
}

impl<'i> Matching<'i> {
    /// Pairs by name (A's rewritten by the first rule that matches it, or as it is if B has
    /// no tensor of the rewritten name), then by bytes with `--values`.
    pub fn by_name(a: &'i Inventory, b: &'i Inventory, options: &Options) -> Self {
        let mut pairs = Vec::new();
        let mut by_name: HashMap<&[u8], Vec<TensorId>> = HashMap::new();
        for (id, t) in b.tensors.iter().enumerate().rev() {
            by_name.entry(t.name.as_bytes()).or_default().push(id);
        }
        let mut left_a = Vec::new();
        for (id, t) in a.tensors.iter().enumerate() {
            let name = mapped(&options.renames, t.name.as_bytes());
            let mut take = |name: &[u8]| by_name.get_mut(name).and_then(Vec::pop);
            match take(&name).or_else(|| take(t.name.as_bytes())) {
                Some(other) => pairs.push((id, other)),
                None => left_a.push(id),
            }
        }
        let mut left_b: Vec<TensorId> = by_name.into_values().flatten().collect();
        left_b.sort_unstable();
        let mut matching = Matching {
            a,
            b,
            pairs,
            renamed: Vec::new(),
            left_a,
            left_b,
        };
        if options.values {
            let state = Seeded::default();
            let (ha, hb) = (
                values::hashes(a, &matching.left_a, &state),
                values::hashes(b, &matching.left_b, &state),
            );
            let found = unique_pairs(
                &mut matching.left_a,
                &mut matching.left_b,
                |id| ha.get(&id).copied().flatten(),
                |id| hb.get(&id).copied().flatten(),
            );
            matching.rename(found, RenamedBy::Bytes);
        }
        matching
    }

    fn rename(&mut self, found: Vec<(TensorId, TensorId)>, by: RenamedBy) {
        self.renamed.extend(found.into_iter().map(|p| (p, by)));
    }

    /// Pairs tensors left on both sides that paired operators read at one slot (`found`,
    /// the first pair of each tensor counting).
    pub fn by_operator(&mut self, found: &[(TensorId, TensorId)]) {
        let free = |left: &[TensorId], n: usize| {
            let mut free = vec![false; n];
            for &id in left {
                free[id] = true;
            }
            free
        };
        let mut free_a = free(&self.left_a, self.a.tensors.len());
        let mut free_b = free(&self.left_b, self.b.tensors.len());
        let mut taken = Vec::new();
        for &(x, y) in found {
            if free_a.get(x) == Some(&true) && free_b.get(y) == Some(&true) {
                (free_a[x], free_b[y]) = (false, false);
                taken.push((x, y));
            }
        }
        self.left_a.retain(|&id| free_a[id]);
        self.left_b.retain(|&id| free_b[id]);
        self.rename(taken, RenamedBy::Operator);
    }

    /// Pairs what is left by a dtype and shape that one tensor has on each side, and
    /// compares every pair's type.
    pub fn finish(mut self) -> Compared {
        let (a, b) = (self.a, self.b);
        let found = unique_pairs(&mut self.left_a, &mut self.left_b, shape_of(a), shape_of(b));
        self.rename(found, RenamedBy::Shape);
        let mut diff = TensorsDiff {
            matched: self.pairs.len() as u64,
            ..TensorsDiff::default()
        };
        let mut pairs = self.pairs;
        self.renamed.sort_unstable_by_key(|&((x, _), _)| x);
        for &((x, y), by) in &self.renamed {
            diff.renamed.push(Rename {
                a: a.tensors[x].name.clone(),
                b: b.tensors[y].name.clone(),
                by,
            });
        }
        pairs.extend(self.renamed.iter().map(|&(p, _)| p));
        for &(x, y) in &pairs {
            if let Some(change) = TensorChange::of(&a.tensors[x], &b.tensors[y]) {
                diff.changed.push(change);
            }
        }
        diff.removed = (self.left_a.iter())
            .map(|&id| (&a.tensors[id]).into())
            .collect();
        diff.added = (self.left_b.iter())
            .map(|&id| (&b.tensors[id]).into())
            .collect();
        Compared { diff, pairs }
    }
}

impl TensorChange {
    /// Two tensors by name, their type unchanged.
    pub(super) fn named(a: Name, b: Name) -> Self {
        TensorChange {
            a,
            b,
            dtype: None,
            shape: None,
            byte_size: None,
        }
    }

    /// How `a` and `b` differ in type, if they do.
    pub(super) fn of(a: &Tensor, b: &Tensor) -> Option<Self> {
        let change = TensorChange {
            dtype: Change::of(a.dtype, b.dtype),
            shape: Change::of(a.shape.clone(), b.shape.clone()),
            byte_size: Change::of(a.byte_size, b.byte_size),
            ..TensorChange::named(a.name.clone(), b.name.clone())
        };
        let changed =
            change.dtype.is_some() || change.shape.is_some() || change.byte_size.is_some();
        changed.then_some(change)
    }
}

/// A tensor's dtype and shape, by its id.
fn shape_of(inv: &Inventory) -> impl Fn(TensorId) -> Option<(Option<DType>, Vec<u64>)> + '_ {
    move |id| inv.tensors.get(id).map(|t| (t.dtype, t.shape.clone()))
}

/// `name` rewritten by the first rule whose pattern matches it.
fn mapped<'n>(rules: &[RenameRule], name: &'n [u8]) -> std::borrow::Cow<'n, [u8]> {
    rules
        .iter()
        .find(|r| r.from.is_match(name))
        .map_or(std::borrow::Cow::Borrowed(name), |r| {
            r.from.replace_all(name, r.to.as_bytes())
        })
}

/// Pairs the tensors of `left_a` and `left_b` whose key occurs once on each side, and
/// removes them from both lists.
fn unique_pairs<K: Hash + Eq>(
    left_a: &mut Vec<TensorId>,
    left_b: &mut Vec<TensorId>,
    key_a: impl Fn(TensorId) -> Option<K>,
    key_b: impl Fn(TensorId) -> Option<K>,
) -> Vec<(TensorId, TensorId)> {
    let keyed = |ids: &[TensorId], key: &dyn Fn(TensorId) -> Option<K>| -> Vec<(K, usize)> {
        ids.iter().filter_map(|&id| Some((key(id)?, id))).collect()
    };
    let found = pairing::unique_pairs(keyed(left_a, &key_a), keyed(left_b, &key_b));
    let mut taken_b: Vec<TensorId> = found.iter().map(|p| p.1).collect();
    taken_b.sort_unstable();
    left_a.retain(|id| found.binary_search_by_key(id, |p| p.0).is_err());
    left_b.retain(|id| taken_b.binary_search(id).is_err());
    found
}
