//! Rules of NumPy files (codes NP001..): `.npy` arrays and `.npz` archives. The pickle rules
//! (PK) judge object arrays, and the zip rules (ZP) `.npz` archives. References:
//! `numpy/lib/format.py` and `numpy/lib/_npyio_impl.py` (numpy 2.4.6);
//! `tests/fixtures/pickle/verdicts.tsv` records what numpy and the scanners say.

crate::rules! {
    group = ("NP", "NumPy");
    /// A `.npy` header that `numpy.load` refuses.
    ///
    /// ## What it does
    /// Reads the magic, the version (1.0, 2.0 or 3.0), the header length and the header: a
    /// Python dict literal with exactly `descr` (a dtype string or a list of fields),
    /// `fortran_order` (a bool) and `shape` (a tuple of non-negative integers), at most 10,000
    /// bytes long.
    ///
    /// ## Why
    /// `numpy.load` refuses any other header ("Header does not contain the correct keys",
    /// "Header info length ... is large and may not be safe to load securely"). modelscan
    /// fails on every `.npy` with numpy 2.4 and fickling reads the header as pickle opcodes;
    /// neither says whether the array loads.
    ///
    /// ## How to fix
    /// Write the array again with `numpy.save`.
    NPY_HEADER_INVALID = ("NP001", "npy-header-invalid", Error);
    /// An object array: its data is a pickle that `numpy.load` runs only with `allow_pickle=True`.
    ///
    /// ## What it does
    /// Reports arrays whose dtype is `O`. rtenx reads the pickle that follows the header with
    /// the pickle machine, so what it imports is judged by the PK rules.
    ///
    /// ## Why
    /// `numpy.load` refuses the array by default ("Object arrays cannot be loaded when
    /// allow_pickle=False"); passing `allow_pickle=True` lets the pickle run any global, and
    /// picklescan is the only scanner that reads it.
    ///
    /// ## How to fix
    /// Store numeric arrays; keep Python objects out of `.npy` files.
    OBJECT_ARRAY = ("NP002", "object-array", Warning);
}
