//! What an import names, resolved as CPython's `Unpickler.find_class` resolves it
//! (`Modules/_pickle.c`, the same in CPython 3.8 to 3.13):
//!
//! 1. Below protocol 3 (the protocol a `PROTO` opcode last set, 0 without one), Python 2
//!    names are mapped to Python 3 ones: a `(module, name)` pair through `_compat_pickle`'s
//!    `NAME_MAPPING`, otherwise the module through `IMPORT_MAPPING` (`__builtin__.eval` is
//!    `builtins.eval`, `commands` is `subprocess`). From protocol 3 on they are not, and
//!    `__builtin__` is a module that does not exist.
//! 2. The module is imported, which runs its top-level code.
//! 3. A dotted name is an attribute walk from the module, one `getattr` per component
//!    (`os` + `path.join` is `os.path.join`): from protocol 4 on in CPython, and by any
//!    loader that resolves names that way. A walk reaches whatever those attributes hold
//!    (`__class__`, `__globals__`, `__loader__`, a module another module imported), so rtenx
//!    judges the object the whole path names, never a prefix of it.

use super::compat_generated::{MODULES, NAMES};

/// An import resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// `module.name` after Python 2 names are mapped: what the safe set is asked about.
    pub path: String,
    /// The module, as imported.
    pub module: String,
    /// Whether the name is an attribute walk (it has a dot).
    pub walk: bool,
    /// The first component of the walk that is a Python internal (`__class__`,
    /// `__globals__`, ...), which leads from any object to code.
    pub dunder: Option<String>,
}

/// Resolves `module` and `name` (as the file spells them) under `protocol`.
pub fn resolve(module: &str, name: &str, protocol: u8) -> Resolved {
    let (module, name) = if protocol < 3 {
        map_python_2(module, name)
    } else {
        (module.to_owned(), name.to_owned())
    };
    let walk = name.contains('.');
    let dunder = name
        .split('.')
        .find(|part| part.len() > 4 && part.starts_with("__") && part.ends_with("__"))
        .map(str::to_owned);
    Resolved {
        path: format!("{module}.{name}"),
        module,
        walk,
        dunder,
    }
}

/// `module` and `name` with `_compat_pickle`'s mapping applied.
fn map_python_2(module: &str, name: &str) -> (String, String) {
    let named = NAMES.binary_search_by(|((m, n), _)| (*m, *n).cmp(&(module, name)));
    if let Some((_, (m, n))) = named.ok().and_then(|i| NAMES.get(i)) {
        return ((*m).to_owned(), (*n).to_owned());
    }
    let moved = MODULES.binary_search_by(|(from, _)| (*from).cmp(module));
    match moved.ok().and_then(|i| MODULES.get(i)) {
        Some((_, to)) => ((*to).to_owned(), name.to_owned()),
        None => (module.to_owned(), name.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_are_cpythons_and_sorted() {
        assert!(NAMES.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(MODULES.windows(2).all(|w| w[0].0 < w[1].0));
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/pickle/compat_pickle.txt");
        let text = std::fs::read_to_string(path).unwrap();
        let mut lines = text.lines().filter(|l| !l.starts_with('#'));
        for ((m, n), (tm, tn)) in NAMES {
            assert_eq!(
                lines.next(),
                Some(format!("name|{m} {n} -> {tm} {tn}").as_str())
            );
        }
        for (from, to) in MODULES {
            assert_eq!(
                lines.next(),
                Some(format!("module|{from} -> {to}").as_str())
            );
        }
        assert_eq!(
            lines.next(),
            None,
            "run tests/fixtures/gen/pickle_compat.py"
        );
    }

    #[test]
    fn names_resolve_as_find_class_resolves_them() {
        let path = |m, n, p| resolve(m, n, p).path;
        assert_eq!(path("__builtin__", "set", 2), "builtins.set");
        assert_eq!(path("__builtin__", "xrange", 0), "builtins.range");
        assert_eq!(path("commands", "getoutput", 2), "subprocess.getoutput");
        // From protocol 3 on, nothing is mapped.
        assert_eq!(path("__builtin__", "eval", 3), "__builtin__.eval");
        let walk = resolve("torch.jit._pickle", "__loader__.source_to_code", 4);
        assert!(walk.walk);
        assert_eq!(walk.dunder.as_deref(), Some("__loader__"));
        let prefix = resolve("torch.nn.modules.module", "torch.ctypes.CDLL", 4);
        assert!(prefix.walk && prefix.dunder.is_none());
        assert_eq!(prefix.path, "torch.nn.modules.module.torch.ctypes.CDLL");
        assert!(!resolve("os", "system", 2).walk);
    }
}
