//! What loading a file would import and run: the globals a pickle names and the calls that
//! use them, and the source code a loader compiles. A reader records each with its place and
//! how far it can be trusted; the findings say what is wrong, this list says what is there.

use super::{FileId, Name};
use serde::Serialize;

/// One thing loading the file imports or runs.
#[derive(Debug, Clone, Serialize)]
pub struct Import {
    /// What: `module.name` as the file spells it (a Keras config's `module.class_name`, or its
    /// registered name), or the path of a code file.
    pub name: Name,
    /// How the file names it: the opcode (`GLOBAL`, `STACK_GLOBAL`, `INST`, `EXT2`), `code`, or
    /// `config` (an object a Keras config names).
    pub kind: &'static str,
    /// The file it is in.
    pub file: FileId,
    /// Absolute offset of the opcode or code (of its zip entry, for a compressed one).
    pub offset: u64,
    /// How loading uses it: the first call and how many there are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call: Option<Call>,
    /// How far it can be trusted.
    pub trust: Trust,
}

/// The calls loading makes to an import.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Call {
    /// The opcode of the first call (`REDUCE`, `NEWOBJ`, `BUILD`, ...).
    pub kind: &'static str,
    /// Its absolute offset.
    pub offset: u64,
    /// How many calls there are.
    pub count: u64,
}

/// How far an import can be trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Trust {
    /// In the allowlist of the format's safe loader (`torch.load(weights_only=True)`).
    Safe,
    /// Rebuilds plain data (NumPy arrays, builtin containers), outside that allowlist.
    Data,
    /// A form the reader knows as its format's own (Paddle's bare-tensor `eval`, a TorchScript
    /// class compiled from the archive).
    Recognised,
    /// A standard-library type or builtin that runs nothing when called with data
    /// (`decimal.Decimal`, `builtins.len`), outside the safe loader's allowlist.
    Inert,
    /// A framework class: loading it imports module code (a whole `nn.Module`).
    Module,
    /// Source code the loader compiles and runs.
    Code,
    /// Anything else: loading it can run arbitrary code.
    Unsafe,
}

impl Trust {
    /// Lower-case label, as in JSON.
    pub fn label(self) -> &'static str {
        match self {
            Trust::Safe => "safe",
            Trust::Data => "data",
            Trust::Recognised => "recognised",
            Trust::Inert => "inert",
            Trust::Module => "module",
            Trust::Code => "code",
            Trust::Unsafe => "unsafe",
        }
    }

    /// Whether loading it runs code: source a loader compiles, or an import that can run
    /// anything. The ML-BOM's `rtenx:loading-runs-code` and a check's "unsafe" file say this.
    pub fn runs_code(self) -> bool {
        matches!(self, Trust::Code | Trust::Unsafe)
    }

    /// Whether loading it runs no code beyond rebuilding data.
    pub fn is_safe(self) -> bool {
        matches!(self, Trust::Safe | Trust::Data | Trust::Recognised)
    }
}
