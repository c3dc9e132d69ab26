//! What a call that loading makes does, in words: the callables that reach a shell, a process,
//! Python code, the network, files, the import system or any attribute, by the path an import
//! resolves to, and the sentence that says so with the call as Python would write it
//! (`loading runs a shell command: os.system('ls')`). Any other callable just "calls". The
//! table follows the deny lists of picklescan (`_unsafe_globals`) and ModelAudit, grouped by
//! what the callable does rather than by module.

use super::names::Resolved;
use super::opcodes;
use super::shown;
use super::tree::Tree;
use super::value::Id;
use std::fmt;

/// What calling a global does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Runs a command line through the shell.
    Shell,
    /// Starts a program.
    Process,
    /// Runs (or compiles) Python source or code objects.
    Code,
    /// Opens a URL or a network connection.
    Network,
    /// Reads, writes or deletes files.
    Files,
    /// Imports a module by name.
    Import,
    /// Gets an attribute by name: with a call after it, any function of any module.
    Attribute,
}

impl fmt::Display for Effect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Effect::Shell => "runs a shell command",
            Effect::Process => "starts a process",
            Effect::Code => "runs Python code",
            Effect::Network => "opens a URL or a network connection",
            Effect::Files => "reads or writes files",
            Effect::Import => "imports a module",
            Effect::Attribute => "gets an attribute by name (a way to reach any function)",
        })
    }
}

/// Callables by path: `module.name` names it and its attributes, a path ending in `*` every
/// name that starts so. `posix` and `nt`, the modules `os` takes its functions from, are
/// looked up as `os`. The first entry that matches decides.
const TABLE: &[(&str, Effect)] = &[
    ("os.system", Effect::Shell),
    ("os.popen", Effect::Shell),
    ("subprocess.getoutput", Effect::Shell),
    ("subprocess.getstatusoutput", Effect::Shell),
    ("pydoc.pipepager", Effect::Shell),
    ("pydoc.tempfilepager", Effect::Shell),
    ("imaplib.IMAP4_stream", Effect::Shell),
    ("subprocess.Popen", Effect::Process),
    ("subprocess.call", Effect::Process),
    ("subprocess.run", Effect::Process),
    ("subprocess.check_call", Effect::Process),
    ("subprocess.check_output", Effect::Process),
    ("os.exec*", Effect::Process),
    ("os.spawn*", Effect::Process),
    ("os.posix_spawn*", Effect::Process),
    ("os.startfile", Effect::Process),
    ("pty.spawn", Effect::Process),
    ("uuid._get_command_stdout", Effect::Process),
    ("builtins.eval", Effect::Code),
    ("builtins.exec", Effect::Code),
    ("builtins.compile", Effect::Code),
    ("runpy", Effect::Code),
    ("code", Effect::Code),
    ("numpy.testing._private.utils.runstring", Effect::Code),
    ("cProfile.run*", Effect::Code),
    ("profile.run*", Effect::Code),
    ("pdb.run*", Effect::Code),
    ("timeit", Effect::Code),
    ("types.CodeType", Effect::Code),
    ("types.FunctionType", Effect::Code),
    ("torch.hub.load", Effect::Code),
    ("urllib.request", Effect::Network),
    ("urllib.robotparser", Effect::Network),
    ("requests", Effect::Network),
    ("http.client", Effect::Network),
    ("http.server", Effect::Network),
    ("socket", Effect::Network),
    ("ssl", Effect::Network),
    ("ftplib", Effect::Network),
    ("smtplib", Effect::Network),
    ("poplib", Effect::Network),
    ("imaplib", Effect::Network),
    ("telnetlib", Effect::Network),
    ("xmlrpc.client", Effect::Network),
    ("webbrowser", Effect::Network),
    ("builtins.open", Effect::Files),
    ("io.open", Effect::Files),
    ("io.FileIO", Effect::Files),
    ("_io.open", Effect::Files),
    ("_io.FileIO", Effect::Files),
    ("os.open", Effect::Files),
    ("os.remove", Effect::Files),
    ("os.unlink", Effect::Files),
    ("os.rmdir", Effect::Files),
    ("os.removedirs", Effect::Files),
    ("os.rename*", Effect::Files),
    ("os.replace", Effect::Files),
    ("os.mkdir", Effect::Files),
    ("os.makedirs", Effect::Files),
    ("os.chmod", Effect::Files),
    ("os.chown", Effect::Files),
    ("os.truncate", Effect::Files),
    ("os.symlink", Effect::Files),
    ("os.link", Effect::Files),
    ("shutil", Effect::Files),
    ("tempfile", Effect::Files),
    ("pathlib.Path", Effect::Files),
    ("pathlib.PosixPath", Effect::Files),
    ("pathlib.WindowsPath", Effect::Files),
    ("logging.FileHandler", Effect::Files),
    ("builtins.__import__", Effect::Import),
    ("importlib", Effect::Import),
    ("pkgutil.resolve_name", Effect::Import),
    ("pydoc.locate", Effect::Import),
    ("builtins.getattr", Effect::Attribute),
    ("operator.attrgetter", Effect::Attribute),
    ("operator.methodcaller", Effect::Attribute),
    ("_operator.attrgetter", Effect::Attribute),
    ("_operator.methodcaller", Effect::Attribute),
];

/// What calling the global `resolved` names does, if the table knows: `None` for other
/// callables, and for a walk through a Python internal, which leads elsewhere than its name.
pub fn of(resolved: &Resolved) -> Option<Effect> {
    if resolved.walk && resolved.dunder.is_some() {
        return None;
    }
    let path = resolved.path.as_str();
    let path = match ["posix.", "nt."].iter().find_map(|m| path.strip_prefix(m)) {
        Some(name) => format!("os.{name}"),
        None => path.to_owned(),
    };
    TABLE
        .iter()
        .find(|(entry, _)| matches(&path, entry))
        .map(|&(_, effect)| effect)
}

/// Whether `path` is named by table entry `entry`.
fn matches(path: &str, entry: &str) -> bool {
    match entry.strip_suffix('*') {
        Some(prefix) => path.starts_with(prefix),
        None => path
            .strip_prefix(entry)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('.')),
    }
}

/// What calling `func` with `args` by opcode `op` does, said first, then the call as Python
/// writes it: `loading runs a shell command: os.system('ls')`, or `loading calls f(1)` for a
/// callable the table does not know. `NEWOBJ` and `NEWOBJ_EX` call only `__new__`, which
/// makes an object without running what calling the class runs.
pub fn consequence<T: Tree>(tree: &T, op: u8, func: Id, args: Id) -> String {
    let effect = tree
        .import_of(func)
        .and_then(|import| tree.resolution(import))
        .and_then(|resolved| of(&resolved));
    let call = shown::call(tree, op, func, args);
    match (op, effect) {
        (opcodes::NEWOBJ | opcodes::NEWOBJ_EX, Some(effect)) => format!(
            "loading makes an object of a class that {effect} when called, with __new__ alone: {call}"
        ),
        (opcodes::NEWOBJ | opcodes::NEWOBJ_EX, None) => {
            format!("loading makes an object with __new__ alone: {call}")
        }
        (_, Some(effect)) => format!("loading {effect}: {call}"),
        (_, None) => format!("loading calls {call}"),
    }
}

#[cfg(test)]
mod tests {
    use super::super::names::resolve;
    use super::*;

    fn effect(module: &str, name: &str) -> Option<Effect> {
        of(&resolve(module, name, 2))
    }

    #[test]
    fn callables_are_told_by_what_they_do() {
        assert_eq!(effect("os", "system"), Some(Effect::Shell));
        assert_eq!(effect("posix", "system"), Some(Effect::Shell));
        assert_eq!(effect("nt", "system"), Some(Effect::Shell));
        assert_eq!(effect("commands", "getoutput"), Some(Effect::Shell));
        assert_eq!(effect("subprocess", "Popen"), Some(Effect::Process));
        assert_eq!(effect("posix", "execv"), Some(Effect::Process));
        assert_eq!(effect("__builtin__", "eval"), Some(Effect::Code));
        assert_eq!(effect("runpy", "_run_code"), Some(Effect::Code));
        assert_eq!(effect("urllib2", "urlopen"), Some(Effect::Network));
        assert_eq!(effect("webbrowser", "open"), Some(Effect::Network));
        assert_eq!(effect("__builtin__", "open"), Some(Effect::Files));
        assert_eq!(effect("shutil", "rmtree"), Some(Effect::Files));
        assert_eq!(effect("importlib", "import_module"), Some(Effect::Import));
        assert_eq!(effect("builtins", "__import__"), Some(Effect::Import));
        assert_eq!(effect("builtins", "getattr"), Some(Effect::Attribute));
    }

    #[test]
    fn a_name_is_matched_whole_and_a_walk_through_an_internal_is_not_matched() {
        assert_eq!(effect("os", "systemd"), None);
        assert_eq!(effect("codecs", "decode"), None);
        assert_eq!(effect("subprocess", "list2cmdline"), None);
        assert_eq!(effect("builtins", "print"), None);
        assert_eq!(of(&resolve("os", "system.__call__", 4)), None);
        assert_eq!(of(&resolve("os", "system.x", 4)), Some(Effect::Shell));
    }
}
