//! The leaves of a loaded object by key path, as `state_dict` keys are written
//! (`optimizer.state.0.step`): dicts, lists, tuples, dict-like objects (`OrderedDict`) and the
//! state `BUILD` gave an object are gone through, each once however often it is referred to,
//! without recursion and no deeper than [`MAX_DEPTH`].

use super::machine::MAX_DEPTH;
use super::tree::Tree;
use super::value::{Id, Value};

/// Whether to go on after a leaf.
pub enum Flow {
    /// Go on.
    Continue,
    /// Stop the walk.
    Stop,
}

/// One key of a path.
enum Key<'t> {
    Text(&'t [u8]),
    Number(i64),
    /// A step that adds nothing to the path: the state of an object.
    Same,
}

/// Calls `leaf(path, id)` for each value under `root` that `is_leaf` accepts, in order, with
/// the keys that lead to it joined by `.`; the root itself is a leaf with an empty path.
pub fn leaves<T: Tree>(
    tree: &T,
    root: Id,
    is_leaf: impl Fn(Id) -> bool,
    mut leaf: impl FnMut(&[u8], Id) -> Flow,
) {
    let mut visited = vec![false; 0];
    let mut path: Vec<u8> = Vec::new();
    // (value, its key, depth, length of the parent's path)
    let mut work: Vec<(Id, Key<'_>, u32, usize)> = vec![(root, Key::Same, 0, 0)];
    while let Some((id, key, depth, base)) = work.pop() {
        path.truncate(base);
        match key {
            Key::Text(text) => push_key(&mut path, base, text),
            Key::Number(n) => push_key(&mut path, base, n.to_string().as_bytes()),
            Key::Same => {}
        }
        if is_leaf(id) {
            if let Flow::Stop = leaf(&path, id) {
                return;
            }
            continue;
        }
        if depth >= MAX_DEPTH {
            continue;
        }
        let Some(value) = tree.value(id) else {
            continue;
        };
        let slot = id as usize;
        if visited.len() <= slot {
            visited.resize(slot + 1, false);
        }
        let Some(seen) = visited.get_mut(slot) else {
            continue;
        };
        if std::mem::replace(seen, true) {
            continue;
        }
        let base = path.len();
        let depth = depth + 1;
        let start = work.len();
        let key_of = |k: Id, i: usize| match tree.value(k) {
            Some(Value::Str(_)) => tree.str(k).map_or(index(i), Key::Text),
            Some(Value::Int(n)) => Key::Number(*n),
            _ => index(i),
        };
        match value {
            Value::Dict(pairs) => {
                for (i, &(k, v)) in pairs.iter().enumerate() {
                    work.push((v, key_of(k, i), depth, base));
                }
            }
            Value::List(items) | Value::Tuple(items) => {
                for (i, &v) in items.iter().enumerate() {
                    work.push((v, index(i), depth, base));
                }
            }
            Value::Call(call) => {
                for (i, &(k, v)) in call.items.iter().enumerate() {
                    work.push((v, key_of(k, i), depth, base));
                }
                for (i, &v) in call.list.iter().enumerate() {
                    work.push((v, index(i), depth, base));
                }
                if let Some(state) = call.state {
                    work.push((state, Key::Same, depth, base));
                }
            }
            _ => {}
        }
        // Children were pushed in order; the work stack pops them in reverse.
        if let Some(children) = work.get_mut(start..) {
            children.reverse();
        }
    }
}

fn index<'t>(i: usize) -> Key<'t> {
    Key::Number(i64::try_from(i).unwrap_or(i64::MAX))
}

fn push_key(path: &mut Vec<u8>, base: usize, key: &[u8]) {
    if base > 0 {
        path.push(b'.');
    }
    path.extend_from_slice(key);
}
