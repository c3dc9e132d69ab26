//! What TorchScript's own unpickler resolves: `torch.jit.load` reads `data.pkl` and
//! `constants.pkl` with a C++ unpickler (`torch/csrc/jit/serialization/unpickler.cpp`) that
//! imports no Python. It knows a fixed set of `torch.jit._pickle` helpers, and resolves every
//! `__torch__.` name to a class compiled from the archive's `code/`, whose source the report
//! lists as code that loading runs. `torch.load` takes this path only for an archive with a
//! `constants.pkl` record; any other archive is unpickled by Python, where these names are
//! ordinary imports.

use crate::formats::shared::pickle::Resolved;

/// `torch.jit._pickle` helpers the C++ unpickler knows (`Unpickler::readGlobal`).
const HELPERS: &[&str] = &[
    "build_boollist",
    "build_doublelist",
    "build_intlist",
    "build_tensor_from_id",
    "build_tensorlist",
    "restore_type_tag",
];

/// Whether TorchScript's unpickler resolves the import itself, without Python.
pub fn resolves(resolved: &Resolved) -> bool {
    if resolved.walk || resolved.dunder.is_some() {
        return false;
    }
    let helper = resolved
        .path
        .strip_prefix("torch.jit._pickle.")
        .is_some_and(|name| HELPERS.contains(&name));
    helper || resolved.module == "__torch__" || resolved.module.starts_with("__torch__.")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::shared::pickle::resolve;

    #[test]
    fn only_the_cxx_unpicklers_own_names_are_its_own() {
        let own = |m, n| resolves(&resolve(m, n, 2));
        assert!(own("torch.jit._pickle", "build_intlist"));
        assert!(own("__torch__.torch.nn.modules.linear", "Linear"));
        assert!(!own("torch.jit._pickle", "_loader"));
        assert!(!resolves(&resolve(
            "torch.jit._pickle",
            "__loader__.source_to_code",
            4
        )));
        assert!(!resolves(&resolve(
            "torch.jit._pickle",
            "build_intlist.__class__",
            4
        )));
        assert!(!own("os", "system"));
    }
}
