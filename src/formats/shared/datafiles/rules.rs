//! Rules for data files that a model names: where they may be, what they may be, and
//! whether their bytes match what the model records (codes DX001..). Any format whose files
//! name other files reports these, so a location means the same to every reader.

crate::rules! {
    group = ("DX", "Data files");
    /// An external data location is absolute or climbs out of the model's folder.
    ///
    /// ## What it does
    /// The location must be a relative path inside the model's folder. Absolute paths, drive
    /// letters (C:), UNC paths (\\server), a leading root separator and any `..` component are
    /// refused, and so are components of dots and spaces that Windows trims to `..` (`.. .`),
    /// and locations that become one of these once a Windows program converts them to its ANSI
    /// code page, where best-fit mapping turns fullwidth `．／＼：`, look-alikes such as the
    /// fraction and division slashes `⁄∕`, the set minus `∖` and the ratio `∶`, the yen and won
    /// signs (Japanese and Korean code pages) and Unicode spaces into `. / \ :` and a space. The
    /// characters and code pages come from Windows' published best-fit tables. rtenx never
    /// opens such a path.
    ///
    /// ## Why
    /// Such a location lets a model read any file on the machine: onnx refuses them for ONNX
    /// external data since CVE-2022-25882 and CVE-2024-27318.
    ///
    /// ## How to fix
    /// Do not load the model from an untrusted source. A model of your own: keep its data files
    /// in its folder and write their locations as relative names (`weights.bin`).
    LOCATION_TRAVERSAL = ("DX001", "location-traversal", Error);
    /// The external data path leaves the model's folder through a symlink.
    ///
    /// ## What it does
    /// A symlink at the data file or at a folder on its path resolves outside the model's folder
    /// (CVE-2026-27489, CVE-2026-34447). rtenx resolves every level and never opens the target.
    /// Caches that link each file to a shared store, such as the Hugging Face hub's
    /// `snapshots/<rev>/* -> ../../blobs/*`, trip this rule: check a real copy of the folder, or,
    /// when the store is trusted, run with `--warn DX002` (formerly OX014).
    ///
    /// ## Why
    /// onnx refuses every symlink in an ONNX data path; onnxruntime follows them.
    ///
    /// ## How to fix
    /// Copy the data file into the model's folder in place of the link (`cp -L`), or check a
    /// copy of the folder that holds real files.
    SYMLINK_ESCAPE = ("DX002", "symlink-escape", Error);
    /// The external data path goes through a symlink that stays inside the model's folder.
    ///
    /// ## What it does
    /// The path is safe today, but onnx's loader refuses symlinks outright, and a symlink can be
    /// retargeted after the model is checked.
    ///
    /// ## How to fix
    /// Replace the link with the file it points to (`cp -L`).
    SYMLINK_INSIDE = ("DX003", "symlink-inside", Warning);
    /// The external data path is not a regular file.
    ///
    /// ## What it does
    /// The location names a folder, device, FIFO or socket. Reading a device or FIFO can block or
    /// never end; rtenx does not open it.
    ///
    /// ## How to fix
    /// Put the data file itself at the location the model names.
    NOT_REGULAR_FILE = ("DX004", "not-regular-file", Error);
    /// The external data file has more than one hard link.
    ///
    /// ## What it does
    /// A hard link can make a file outside the model's folder appear inside it (CVE-2026-34446);
    /// onnx refuses ONNX data files with a link count above 1.
    ///
    /// ## How to fix
    /// Copy the file (`cp`, not `ln`), so that the model's folder holds a file of its own.
    HARD_LINK = ("DX005", "hard-link", Warning);
    /// The external data file does not exist.
    ///
    /// ## What it does
    /// The location passes every safety rule but no file is there. rtenx still checks everything
    /// else.
    ///
    /// ## Why
    /// The model cannot load.
    ///
    /// ## How to fix
    /// Copy the data file next to the model under the name the model records (a download that
    /// skipped it, or a model file copied alone, are the usual causes).
    DATA_FILE_MISSING = ("DX006", "data-file-missing", Error);
    /// The external data location names another file, or a device, on Windows.
    ///
    /// ## What it does
    /// Windows reads some names differently from Linux and macOS. A location that is not UTF-8
    /// cannot name a file on Windows at all (on Linux and macOS the bytes name the file as they
    /// are, and that is the file rtenx checks).
    ///
    /// ## Why
    /// A component named after a DOS device (`CON`, `PRN`, `AUX`, `NUL`, `COM1`-`COM9`,
    /// `LPT1`-`LPT9`, with or without an extension) opens the device; a colon selects an NTFS
    /// alternate data stream hidden inside another file; a trailing dot or space is dropped;
    /// `<>"|?*` and control characters are refused; and a program that opens files through its ANSI
    /// code page reads a character such as fullwidth `／` or the yen sign as the `/` or `\` that
    /// best-fit mapping turns it into. A model that works here may then read the wrong bytes, hang
    /// or fail on Windows.
    ///
    /// ## How to fix
    /// Rename the data file.
    LOCATION_NOT_PORTABLE = ("DX007", "location-not-portable", Warning);
    /// An external data location names the model file itself.
    ///
    /// ## What it does
    /// The location leads to the model file being read (by name, symlink or hard link), so the
    /// tensor's bytes would be read out of the model's own structure: its names, attributes and
    /// other tensors. No exporter writes this; it hides one thing inside another. rtenx does not
    /// use the range.
    ///
    /// ## How to fix
    /// Do not load the model: no writer produces it. Export the model again from its source.
    LOCATION_IS_MODEL = ("DX008", "location-is-model", Error);
    /// An external data file's SHA-1 differs from its recorded checksum.
    ///
    /// ## What it does
    /// With `--verify-checksums`, rtenx hashes each external data file and compares it with the
    /// checksum the model records for the tensors stored in it (ONNX: the `checksum` external-data
    /// key). A mismatch means the file changed after the model was written, or belongs to another
    /// model.
    ///
    /// ## How to fix
    /// Download or copy the data file again, the one written with this model; if the data was
    /// changed on purpose, save the model again so that its checksums are recomputed.
    CHECKSUM_MISMATCH = ("DX009", "checksum-mismatch", Error);
    /// A recorded checksum is not a SHA-1 digest.
    ///
    /// ## What it does
    /// A model records the SHA-1 of a data file as 40 hexadecimal digits. Any other value can never
    /// match, so `--verify-checksums` would report a mismatch for an intact file, and the model's
    /// own integrity check is void. This needs no data file to be read.
    ///
    /// ## How to fix
    /// Write the checksum again with the digest of the data file.
    CHECKSUM_INVALID = ("DX010", "checksum-invalid", Warning);
}

/// The message of [`DATA_FILE_MISSING`] for the data file `shown` that is not there (`why`:
/// `does not exist`, or the error looking it up).
pub fn missing(shown: impl std::fmt::Display, why: impl std::fmt::Display) -> String {
    format!("data file {shown} {why}")
}

/// The message of [`DATA_FILE_MISSING`] for a data file named outside the model (`--data`,
/// or found beside it) that cannot be opened, in one wording for every format.
pub fn cannot_open(path: &std::path::Path, e: &crate::source::OpenError) -> String {
    format!("cannot open data file {}: {e}", crate::escape::path(path))
}
