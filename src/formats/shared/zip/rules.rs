//! Rules of zip archives read in place (codes ZP001..): PyTorch checkpoints and NumPy `.npz`
//! files. References: the zip specification (APPNOTE 6.3), Python's `zipfile`, and torch's
//! miniz-based `PyTorchStreamReader`; `tests/fixtures/pickle/verdicts.tsv` records what torch,
//! numpy and the scanners say about each fixture.

crate::rules! {
    group = ("ZP", "Zip archives");
    /// The archive's records are missing, cut short or do not fit together.
    ///
    /// ## What it does
    /// Finds the end of central directory record (and the zip64 one it defers to), reads
    /// every central directory entry and the local header it points at, and checks that each
    /// fits in the file, that the central directory ends where the end records start, and
    /// that nothing follows the end record.
    ///
    /// ## Why
    /// torch's reader refuses an archive whose records do not fit; Python's `zipfile` accepts
    /// data before the archive and shifts every offset, so the two can read different
    /// members. A truncated download loses the central directory first.
    ///
    /// ## How to fix
    /// Copy or download the file again; if it was made by hand, write it with `zipfile` or
    /// `torch.save`.
    ZIP_INVALID = ("ZP001", "zip-invalid", Error);
    /// A member's local header disagrees with its central directory entry.
    ///
    /// ## What it does
    /// Compares each local header's name, compression method and flags (bit 3 aside) with the
    /// central directory entry that points at it.
    ///
    /// ## Why
    /// Loaders find members through the central directory; tools that walk local headers (or
    /// check one against the other) see something else. torch reads `archive/data.pkl` by its
    /// central name whatever its local header says and runs it; modelscan skips the whole
    /// file as a bad zip (exit 3) and fickling reports a read error without naming the import.
    ///
    /// ## How to fix
    /// Rewrite the archive with a standard zip writer; a mismatch is never made by one.
    LOCAL_HEADER_MISMATCH = ("ZP002", "local-header-mismatch", Error);
    /// Two members have the same name.
    ///
    /// ## What it does
    /// Reports every member whose name an earlier member already has, at its local header.
    ///
    /// ## Why
    /// Python's `zipfile` and torch read the last member of a name; a tool that takes the
    /// first sees another file. With a malicious `data.pkl` first and a benign one last,
    /// `torch.load` loads the benign one, picklescan and modelscan see nothing, and the
    /// malicious pickle waits for a reader that takes the first. rtenx reads both.
    ///
    /// ## How to fix
    /// Rewrite the archive with each member once.
    DUPLICATE_MEMBER = ("ZP003", "duplicate-member", Error);
    /// A member's name is absolute or has a `..` component.
    ///
    /// ## What it does
    /// Reports member names that start with `/`, `\` or a drive letter, or have a `..`
    /// component between `/` or `\` separators.
    ///
    /// ## Why
    /// Extracting the archive (`unzip`, `zipfile.extractall` in older Pythons, hand-written
    /// extraction) writes outside the target folder ("zip slip"). torch refuses such a
    /// member ("file in archive is not in a subdirectory"); picklescan and modelscan say
    /// nothing.
    ///
    /// ## How to fix
    /// Do not extract the archive; rewrite it with relative member names.
    MEMBER_NAME_ESCAPES = ("ZP004", "member-name-escapes", Error);
    /// A member has the encryption flag set.
    ///
    /// ## What it does
    /// Reports members whose general-purpose flags have bit 0 (encrypted) or bit 6 (strong
    /// encryption) set. rtenx reads the bytes as they are stored.
    ///
    /// ## Why
    /// torch (miniz) refuses the member ("unsupported encryption"), Python's `zipfile` asks
    /// for a password, and picklescan reads the stored bytes anyway: the flag makes loaders
    /// and scanners disagree about what the member holds. No model writer encrypts members.
    ///
    /// ## How to fix
    /// Rewrite the archive without encryption.
    ENCRYPTED_MEMBER = ("ZP005", "encrypted-member", Error);
}
