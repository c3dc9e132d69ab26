//! The folder that reports name paths from: the working directory, `check --root`, or a
//! baseline's folder. A model's data files are found at their canonical paths (external data,
//! shards, `.pdiparams`), which would tie a report to the machine that made it, and which
//! GitHub cannot map to the repository: every writer shows a path, and the paths inside a
//! message, relative to the root.

use std::borrow::Cow;
use std::path::{Component, Path, PathBuf};

/// A folder, in the forms a path below it may take: absolute, and canonical (a data file's
/// path is canonical; the working directory may be reached through a symlink).
#[derive(Debug, Clone)]
pub struct Root {
    forms: Vec<PathBuf>,
    /// The working directory's forms, for a path outside the root.
    cwd: Vec<PathBuf>,
    /// Each form of the root, then of the working directory, as messages spell it, ending in
    /// `/`, longest first.
    prefixes: Vec<String>,
}

impl Root {
    /// The folder `dir`, relative to the working directory or absolute.
    pub fn new(dir: &Path) -> Self {
        let forms = |dir: &Path| {
            let mut forms = vec![absolute(dir)];
            forms.extend(std::fs::canonicalize(dir));
            forms.dedup();
            forms
        };
        let (forms, cwd) = (forms(dir), forms(Path::new(".")));
        let mut prefixes = folder_prefixes(&forms);
        for prefix in folder_prefixes(&cwd) {
            if !prefixes.contains(&prefix) {
                prefixes.push(prefix);
            }
        }
        Root {
            forms,
            cwd,
            prefixes,
        }
    }

    /// The working directory.
    pub fn cwd() -> Self {
        Root::new(Path::new("."))
    }

    /// `path` as a report shows it: relative to the root if it is below it, otherwise
    /// relative to the working directory if it is below that (a data file of a model named
    /// from there), otherwise as given.
    pub fn show<'a>(&self, path: &'a Path) -> Cow<'a, Path> {
        match below(&self.forms, path).or_else(|| below(&self.cwd, path)) {
            Some(below) if below != path => Cow::Owned(below),
            _ => Cow::Borrowed(path),
        }
    }

    /// `path` relative to the root with `/` between components, with `..` where it is
    /// outside, worked out lexically: what a baseline compares, on any machine. A remote
    /// path (`hf://`, `https://`) is the same on every machine, and is kept as it is.
    pub fn relative(&self, path: &Path) -> String {
        if let Some(remote) = path.to_str().filter(|p| crate::source::names_remote(p)) {
            return remote.to_owned();
        }
        if let Some(inside) = below(&self.forms, path) {
            return slashed(inside.components());
        }
        let path = absolute(path);
        let root = &self.forms[0];
        let (mut a, mut b) = (path.components().peekable(), root.components().peekable());
        while let (Some(x), Some(y)) = (a.peek(), b.peek()) {
            if x != y {
                break;
            }
            a.next();
            b.next();
        }
        let up = b.filter(|c| matches!(c, Component::Normal(_))).count();
        let down = slashed(a);
        let mut out = vec![".."; up].join("/");
        if !down.is_empty() {
            if !out.is_empty() {
                out.push('/');
            }
            out.push_str(&down);
        }
        out
    }

    /// `message` with the root left out of the paths it names, where a path starts, and the
    /// working directory of those outside the root, as [`Root::show`] shows paths.
    pub fn message<'a>(&self, message: &'a str) -> Cow<'a, str> {
        leave_out(message, &self.prefixes)
    }
}

/// `path` below the folder of `forms`, relative to it (`.` for the folder itself).
fn below(forms: &[PathBuf], path: &Path) -> Option<PathBuf> {
    let path = absolute(path);
    let below = forms.iter().find_map(|f| path.strip_prefix(f).ok())?;
    Some(match below.as_os_str().is_empty() {
        true => PathBuf::from("."),
        false => below.to_owned(),
    })
}

/// `dir` made absolute from the working directory, lexically (no symlink is followed).
pub(super) fn absolute(dir: &Path) -> PathBuf {
    std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned())
}

fn slashed<'a>(components: impl Iterator<Item = Component<'a>>) -> String {
    let parts: Vec<_> = components
        .filter(|c| !matches!(c, Component::CurDir))
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

/// The folders `forms` as text ending in `/`, longest first; the file system root is left out,
/// since every absolute path starts with it.
pub(super) fn folder_prefixes(forms: &[PathBuf]) -> Vec<String> {
    let mut prefixes: Vec<String> = forms
        .iter()
        .map(|f| format!("{}/", f.display().to_string().trim_end_matches(['/', '.'])))
        .filter(|p| p.len() > 1)
        .collect();
    prefixes.sort_by_key(|p| std::cmp::Reverse(p.len()));
    prefixes.dedup();
    prefixes
}

/// `message` with each of `folders` (text ending in `/`) left out where a path starts (where
/// no character of a path comes before it, so `m/` inside `dim/x` stays), one after the other.
pub(super) fn leave_out<'a>(message: &'a str, folders: &[String]) -> Cow<'a, str> {
    let path_char = |c: char| c.is_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '~');
    let mut message = Cow::Borrowed(message);
    for folder in folders {
        if !message.contains(folder.as_str()) {
            continue;
        }
        let mut kept = String::with_capacity(message.len());
        let mut rest = message.as_ref();
        while let Some(at) = rest.find(folder.as_str()) {
            let starts_a_path = !kept
                .chars()
                .chain(rest[..at].chars())
                .next_back()
                .is_some_and(path_char);
            kept.push_str(&rest[..at]);
            if !starts_a_path {
                kept.push_str(folder);
            }
            rest = &rest[at + folder.len()..];
        }
        kept.push_str(rest);
        message = Cow::Owned(kept);
    }
    message
}

#[cfg(test)]
mod tests {
    use super::Root;
    use std::path::Path;

    #[test]
    fn paths_below_the_root_are_relative_and_others_as_given() {
        let cwd = std::env::current_dir().unwrap();
        let root = Root::cwd();
        let data = cwd.join("m/w.data");
        assert_eq!(root.show(&data), Path::new("m/w.data"));
        assert_eq!(root.show(Path::new("m/a.onnx")), Path::new("m/a.onnx"));
        assert_eq!(root.show(Path::new("./m/a.onnx")), Path::new("m/a.onnx"));
        assert_eq!(
            root.show(Path::new("../o/a.onnx")),
            Path::new("../o/a.onnx")
        );
        assert_eq!(
            root.show(Path::new("/elsewhere/a")),
            Path::new("/elsewhere/a")
        );
        assert_eq!(root.show(&cwd), Path::new("."));
        // A root of its own: paths relative to the working directory are moved to it, and the
        // others are relative to the working directory.
        let models = Root::new(Path::new("m"));
        assert_eq!(models.show(Path::new("m/a.onnx")), Path::new("a.onnx"));
        assert_eq!(models.show(Path::new("b.onnx")), Path::new("b.onnx"));
        assert_eq!(models.show(&cwd.join("n/w.data")), Path::new("n/w.data"));
        let text = format!("{}/m/a and {}/n/b", cwd.display(), cwd.display());
        assert_eq!(models.message(&text), "a and n/b");
    }

    #[test]
    fn a_baseline_path_is_relative_with_slashes_even_outside() {
        let root = Root::new(Path::new("/r/repo"));
        assert_eq!(root.relative(Path::new("/r/repo/m/a.onnx")), "m/a.onnx");
        assert_eq!(
            root.relative(Path::new("/r/other/b.rten")),
            "../other/b.rten"
        );
        assert_eq!(
            root.relative(Path::new("/r/repo/./m/../c.gguf")),
            "m/../c.gguf"
        );
        assert_eq!(root.relative(Path::new("/r")), "..");
    }

    #[test]
    fn a_message_names_paths_below_the_root_relative_to_it() {
        let cwd = std::env::current_dir().unwrap();
        let root = Root::cwd();
        let message = format!("data file {}/m/w.data does not exist", cwd.display());
        assert_eq!(root.message(&message), "data file m/w.data does not exist");
        // Only where a path starts.
        let inside = format!("location \"x{}/m\"", cwd.display());
        assert_eq!(root.message(&inside), inside);
    }
}
