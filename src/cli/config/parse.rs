//! Reading a configuration file: opened once, as the trust model says (a file found by
//! discovery without following a symlink out of its folder, any of them only up to 1 MiB),
//! TOML into the raw tables, then every value checked, each error placed at its line and
//! column. A path a setting names stays inside the settings file's folder.

use super::{Config, ConfigError, Layer, Override};
use crate::cli::choices::Format;
use clap::ValueEnum;
use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use rtenx::catalogue;
use rtenx::check::Selector;
use rtenx::source::{FileIdentity, ModelFile, OpenError};
use serde::Deserialize;
use std::ops::Range;
use std::path::{Component, Path, PathBuf};
use toml::Spanned;

/// The largest settings file read, in bytes (1 MiB): real ones are a few hundred bytes.
pub const MAX_BYTES: u64 = 1 << 20;

/// How a settings file was come by, which decides how it is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Named by `--config`: opened as the user named it, following a symlink, as a model named
    /// on the command line is.
    Named,
    /// Found in the working directory or one of its parents (a canonical folder): opened
    /// without following any symlink on the way, and a symlink in its place only if it
    /// leads to a file in the same folder.
    Found,
}

/// A table of `rtenx.toml` (or `[tool.rtenx]`): the top level, or one `[[overrides]]`. Both
/// take the same keys; [`read`] refuses the ones that belong to the other.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawTable {
    #[serde(default)]
    deny: Vec<Spanned<String>>,
    #[serde(default)]
    warn: Vec<Spanned<String>>,
    #[serde(default)]
    allow: Vec<Spanned<String>>,
    max_size: Option<Spanned<String>>,
    target: Option<Spanned<String>>,
    timeout: Option<Spanned<String>>,
    values: Option<bool>,
    zero_tail: Option<Spanned<String>>,
    #[serde(default)]
    data: Vec<Spanned<String>>,
    /// Top level only.
    exclude: Option<Spanned<Vec<Spanned<String>>>>,
    /// Top level only.
    format: Option<Spanned<String>>,
    /// Top level only.
    baseline: Option<Spanned<String>>,
    /// Top level only.
    public_key: Option<Spanned<String>>,
    /// Top level only.
    certificate_chain: Option<Spanned<Vec<Spanned<String>>>>,
    /// Top level only.
    require_signature: Option<Spanned<bool>>,
    /// Top level only.
    overrides: Option<Spanned<Vec<RawTable>>>,
    /// `[[overrides]]` only.
    paths: Option<Spanned<Vec<Spanned<String>>>>,
}

/// `pyproject.toml`, of which only `[tool.rtenx]` is read.
#[derive(Deserialize)]
struct PyProject {
    tool: Option<Tools>,
}

#[derive(Deserialize)]
struct Tools {
    rtenx: Option<RawTable>,
}

/// Reads the configuration at `path`: a `pyproject.toml` is read for its `[tool.rtenx]`
/// table, and is `Ok(None)` without one; any other file is read whole.
pub fn read(path: &Path, source: Source) -> Result<Option<Config>, ConfigError> {
    let text = load(path, source).map_err(|message| ConfigError {
        path: path.to_owned(),
        at: None,
        message,
    })?;
    let fail = |span: Option<Range<usize>>, message: String| ConfigError {
        path: path.to_owned(),
        at: span.map(|s| line_column(&text, s.start)),
        message,
    };
    let toml_error = |e: toml::de::Error| fail(e.span(), e.message().to_owned());
    let raw: RawTable = if path.file_name().is_some_and(|n| n == "pyproject.toml") {
        let project: PyProject = toml::from_str(&text).map_err(toml_error)?;
        match project.tool.and_then(|t| t.rtenx) {
            Some(table) => table,
            None => return Ok(None),
        }
    } else {
        toml::from_str(&text).map_err(toml_error)?
    };
    if let Some(paths) = &raw.paths {
        let message = "`paths` belongs in an [[overrides]] table".to_owned();
        return Err(fail(Some(paths.span()), message));
    }
    let dir = path.parent().unwrap_or(Path::new(".")).to_owned();
    let exclude = match &raw.exclude {
        Some(list) => globs(list.get_ref(), &fail)?,
        None => GlobSet::empty(),
    };
    let format = raw
        .format
        .as_ref()
        .map(|f| {
            Format::from_str(f.get_ref(), true).map_err(|_| {
                let message = format!(
                    "unknown format `{}` (text, json, sarif, github)",
                    f.get_ref()
                );
                fail(Some(f.span()), message)
            })
        })
        .transpose()?;
    let mut overrides = Vec::new();
    if let Some(list) = &raw.overrides {
        for o in list.get_ref() {
            let misplaced = [
                o.exclude.as_ref().map(|v| ("exclude", v.span())),
                o.format.as_ref().map(|v| ("format", v.span())),
                o.baseline.as_ref().map(|v| ("baseline", v.span())),
                o.public_key.as_ref().map(|v| ("public-key", v.span())),
                o.certificate_chain
                    .as_ref()
                    .map(|v| ("certificate-chain", v.span())),
                o.require_signature
                    .as_ref()
                    .map(|v| ("require-signature", v.span())),
                o.overrides.as_ref().map(|v| ("overrides", v.span())),
            ];
            if let Some((key, span)) = misplaced.into_iter().flatten().next() {
                let message = format!("`{key}` belongs at the top level, not in [[overrides]]");
                return Err(fail(Some(span), message));
            }
            let Some(paths) = &o.paths else {
                let message = "an [[overrides]] table needs `paths`".to_owned();
                return Err(fail(Some(list.span()), message));
            };
            overrides.push(Override {
                paths: globs(paths.get_ref(), &fail)?,
                layer: layer(o, &dir, &fail)?,
            });
        }
    }
    let baseline = raw
        .baseline
        .as_ref()
        .map(|b| inside(&dir, b, "baseline", &fail))
        .transpose()?;
    let signing = super::Signing {
        public_key: (raw.public_key.as_ref())
            .map(|k| inside(&dir, k, "public-key", &fail))
            .transpose()?,
        certificate_chain: (raw.certificate_chain.iter().flat_map(|l| l.get_ref()))
            .map(|c| inside(&dir, c, "certificate-chain file", &fail))
            .collect::<Result<_, _>>()?,
        require_signature: raw.require_signature.as_ref().map(|r| *r.get_ref()),
    };
    Ok(Some(Config {
        path: path.to_owned(),
        baseline,
        signing,
        base: layer(&raw, &dir, &fail)?,
        dir,
        overrides,
        exclude,
        format,
    }))
}

type Fail<'a> = dyn Fn(Option<Range<usize>>, String) -> ConfigError + 'a;

/// The per-file settings of a table.
fn layer(t: &RawTable, dir: &Path, fail: &Fail) -> Result<Layer, ConfigError> {
    let mut rules = Vec::new();
    for (list, action) in super::with_actions(&t.deny, &t.warn, &t.allow) {
        for s in list {
            let selector = Selector::parse(s.get_ref(), catalogue::lookup)
                .map_err(|e| fail(Some(s.span()), e.to_string()))?;
            rules.push((s.get_ref().clone(), selector, action));
        }
    }
    let located = |v: &Spanned<String>, f: fn(&str) -> Result<_, String>| {
        f(v.get_ref()).map_err(|m| fail(Some(v.span()), m))
    };
    let max_size = t
        .max_size
        .as_ref()
        .map(|v| located(v, super::parse_size))
        .transpose()?;
    let timeout = t
        .timeout
        .as_ref()
        .map(|v| super::parse_duration(v.get_ref()).map_err(|m| fail(Some(v.span()), m)))
        .transpose()?;
    let mut data = Vec::new();
    for d in &t.data {
        let file = inside(dir, d, "data file", fail)?;
        if !file.is_file() {
            let message = format!("data file `{}` does not exist", d.get_ref());
            return Err(fail(Some(d.span()), message));
        }
        data.push(file);
    }
    let target = t
        .target
        .as_ref()
        .map(|v| {
            crate::cli::choices::parse_target(v.get_ref()).map_err(|m| fail(Some(v.span()), m))
        })
        .transpose()?;
    let zero_tail = t
        .zero_tail
        .as_ref()
        .map(|v| located(v, super::parse_size))
        .transpose()?;
    Ok(Layer {
        rules,
        max_size,
        timeout,
        data,
        target,
        values: t.values,
        zero_tail,
    })
}

/// The file `value` names, from the settings file's folder `dir`: refused if, with `.` and
/// `..` worked out lexically, it is outside that folder (an absolute path, or one that climbs
/// out), since a folder's settings may name only its own files.
fn inside(
    dir: &Path,
    value: &Spanned<String>,
    what: &str,
    fail: &Fail,
) -> Result<PathBuf, ConfigError> {
    let named = value.get_ref();
    let outside = || {
        let message = format!(
            "{what} `{named}` is outside this settings file's folder {}: settings name only \
             files in their own folder (below it)",
            dir.display()
        );
        fail(Some(value.span()), message)
    };
    let below = lexically_below(Path::new(named)).ok_or_else(outside)?;
    if below.as_os_str().is_empty() {
        return Err(outside());
    }
    Ok(dir.join(below))
}

/// `path` with `.` and `..` worked out lexically, if it is relative and stays below the
/// folder it starts from (a `..` that climbs above it, a root or a drive is `None`).
fn lexically_below(path: &Path) -> Option<PathBuf> {
    let mut below = PathBuf::new();
    for part in path.components() {
        match part {
            Component::Normal(name) => below.push(name),
            Component::CurDir => {}
            Component::ParentDir => {
                if !below.pop() {
                    return None;
                }
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(below)
}

/// The text of the settings file at `path`, opened once as `source` says, a regular file of
/// at most [`MAX_BYTES`]; the error is what to say after the path.
fn load(path: &Path, source: Source) -> Result<String, String> {
    let file = match source {
        Source::Named => ModelFile::open(path).map_err(|e| cannot_read(&e))?,
        Source::Found => open_found(path)?,
    };
    let len = file.bytes().len();
    if len as u64 > MAX_BYTES {
        return Err(format!(
            "is {len} bytes; a settings file is read only up to 1 MiB ({MAX_BYTES} bytes)"
        ));
    }
    String::from_utf8(file.bytes().to_vec()).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        format!("is not UTF-8 text (byte {at})")
    })
}

/// Opens the settings file at `path`, in a canonical folder, following no symlink out of it:
/// a symlink in its place is followed only to a file in that folder or below.
fn open_found(path: &Path) -> Result<ModelFile, String> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| format!("cannot read: {e}"))?;
    if !meta.file_type().is_symlink() {
        let identity = FileIdentity::of(&meta);
        return ModelFile::open_checked(path, identity).map_err(|e| cannot_read(&e));
    }
    let dir = path.parent().unwrap_or(Path::new("/"));
    let target = std::fs::read_link(path).map_err(|e| format!("cannot read: {e}"))?;
    let shown = target.display();
    let below = match target.strip_prefix(dir) {
        Ok(rest) => lexically_below(rest),
        Err(_) if target.is_absolute() => None,
        Err(_) => lexically_below(&target),
    };
    let Some(below) = below.filter(|b| !b.as_os_str().is_empty()) else {
        let dir = dir.display();
        return Err(format!(
            "is a symlink to {shown}, outside its folder {dir}: not read (a settings file is \
             followed only to a file in its own folder)"
        ));
    };
    let real = dir.join(below);
    if std::fs::symlink_metadata(&real).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(format!(
            "is a symlink to {shown}, itself a symlink: not followed further"
        ));
    }
    ModelFile::open_checked(&real, None)
        .map_err(|e| format!("is a symlink to {shown}: {}", cannot_read(&e)))
}

/// Why a settings file could not be opened, without its path, which the error names first.
fn cannot_read(e: &OpenError) -> String {
    match e {
        OpenError::Io { source, .. } => format!("cannot read: {source}"),
        OpenError::NotAFile { .. } => "is not a regular file".to_owned(),
        OpenError::Changed { .. } | OpenError::ChangedWhileRead { .. } => {
            "changed while it was read; not read".to_owned()
        }
        OpenError::Remote { cause, .. } => cause.clone(),
    }
}

/// Whether the `pyproject.toml` at `path` has a `[tool.rtenx]` table, judged without
/// applying anything: a regular file of at most [`MAX_BYTES`] that parses as TOML with the
/// table. For telling the user that the settings of a folder being checked were ignored.
pub fn has_rtenx_table(path: &Path) -> bool {
    #[derive(Deserialize)]
    struct Probe {
        tool: Option<ProbeTools>,
    }
    #[derive(Deserialize)]
    struct ProbeTools {
        rtenx: Option<serde::de::IgnoredAny>,
    }
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return false;
    };
    if !meta.is_file() || meta.len() > MAX_BYTES {
        return false;
    }
    let Ok(file) = ModelFile::open_same(path, FileIdentity::of(&meta)) else {
        return false;
    };
    let text = std::str::from_utf8(file.bytes()).unwrap_or("");
    toml::from_str::<Probe>(text).is_ok_and(|p| p.tool.is_some_and(|t| t.rtenx.is_some()))
}

/// The globs of `list` (see [`glob`]).
fn globs(list: &[Spanned<String>], fail: &Fail) -> Result<GlobSet, ConfigError> {
    let mut set = GlobSetBuilder::new();
    for pattern in list {
        let glob = glob(pattern.get_ref())
            .map_err(|e| fail(Some(pattern.span()), e.kind().to_string()))?;
        set.add(glob);
    }
    set.build().map_err(|e| fail(None, e.to_string()))
}

/// A pattern matched against paths relative to a folder with `/` between components: `*`
/// stays within a component, `**` crosses them, and a pattern with no `/` matches a file
/// name in any folder.
pub fn glob(pattern: &str) -> Result<Glob, globset::Error> {
    let text = pattern.trim_start_matches("./");
    let text = if text.contains('/') {
        text.to_owned()
    } else {
        format!("**/{text}")
    };
    GlobBuilder::new(&text).literal_separator(true).build()
}

/// 1-based line and column (in characters) of byte `offset` of `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A temporary folder by its canonical path, as discovery knows its folders.
    fn canonical_tempdir() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = std::fs::canonicalize(dir.path()).unwrap();
        (dir, path)
    }

    /// The error of reading `text` as the settings file `name` of a fresh folder, the
    /// folder written DIR.
    fn error(name: &str, text: &str) -> String {
        let (_dir, dir) = canonical_tempdir();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let e = read(&path, Source::Found).unwrap_err();
        e.to_string().replace(&dir.display().to_string(), "DIR")
    }

    #[test]
    fn settings_name_only_files_in_their_own_folder() {
        let outside = "is outside this settings file's folder DIR: settings name only files in \
                       their own folder (below it)";
        assert_eq!(
            error("rtenx.toml", "data = [\"/etc/passwd\"]\n"),
            format!("DIR/rtenx.toml:1:9: data file `/etc/passwd` {outside}")
        );
        assert_eq!(
            error(
                "rtenx.toml",
                "\n[[overrides]]\npaths = [\"a/**\"]\ndata = [\"a/../../w.ptd\"]\n"
            ),
            format!("DIR/rtenx.toml:4:9: data file `a/../../w.ptd` {outside}")
        );
        assert_eq!(
            error("rtenx.toml", "baseline = \"../baseline.json\"\n"),
            format!("DIR/rtenx.toml:1:12: baseline `../baseline.json` {outside}")
        );
        assert!(error("rtenx.toml", "baseline = \"/tmp/b.json\"\n")
            .starts_with("DIR/rtenx.toml:1:12: baseline `/tmp/b.json` is outside"));
        // Below the folder, by any lexical way, is fine.
        let (_dir, dir) = canonical_tempdir();
        std::fs::create_dir(dir.join("m")).unwrap();
        std::fs::write(dir.join("m/w.ptd"), b"").unwrap();
        let path = dir.join("rtenx.toml");
        let text = "data = [\"./m/../m/w.ptd\"]\nbaseline = \"m/b.json\"\n";
        std::fs::write(&path, text).unwrap();
        let config = read(&path, Source::Found).unwrap().unwrap();
        assert_eq!(config.base.data, [dir.join("m/w.ptd")]);
        assert_eq!(config.baseline, Some(dir.join("m/b.json")));
    }

    #[cfg(unix)]
    #[test]
    fn a_settings_file_is_not_followed_out_of_its_folder_nor_read_past_1_mib() {
        let (_dir, dir) = canonical_tempdir();
        let (_other, other) = canonical_tempdir();
        let path = dir.join("rtenx.toml");
        let error = |source| {
            let e = read(&path, source).unwrap_err().to_string();
            e.replace(&dir.display().to_string(), "DIR")
                .replace(&other.display().to_string(), "OTHER")
        };
        // A symlink to a file elsewhere is refused; named by --config, it is followed.
        std::fs::write(other.join("allow.toml"), "allow = [\"PK001\"]\n").unwrap();
        std::os::unix::fs::symlink(other.join("allow.toml"), &path).unwrap();
        assert_eq!(
            error(Source::Found),
            "DIR/rtenx.toml: is a symlink to OTHER/allow.toml, outside its folder DIR: not read \
             (a settings file is followed only to a file in its own folder)"
        );
        assert!(read(&path, Source::Named).unwrap().is_some());
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink("../x/allow.toml", &path).unwrap();
        assert!(
            error(Source::Found).contains("is a symlink to ../x/allow.toml, outside its folder")
        );
        // To a file in its own folder, it is read.
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir(dir.join("conf")).unwrap();
        std::fs::write(dir.join("conf/rtenx.toml"), "warn = [\"RX005\"]\n").unwrap();
        std::os::unix::fs::symlink("conf/rtenx.toml", &path).unwrap();
        let config = read(&path, Source::Found).unwrap().unwrap();
        assert_eq!(config.base.rules.len(), 1);
        // ... but not through a second symlink that leads out.
        std::fs::remove_file(dir.join("conf/rtenx.toml")).unwrap();
        std::os::unix::fs::symlink(other.join("allow.toml"), dir.join("conf/rtenx.toml")).unwrap();
        assert_eq!(
            error(Source::Found),
            "DIR/rtenx.toml: is a symlink to conf/rtenx.toml, itself a symlink: not followed \
             further"
        );
        // Over 1 MiB: refused whole, whoever names it.
        std::fs::remove_file(&path).unwrap();
        let mut big = "# padding\n".repeat(110_000);
        big.push_str("allow = [\"PK001\"]\n");
        std::fs::write(&path, big).unwrap();
        for source in [Source::Found, Source::Named] {
            assert_eq!(
                error(source),
                "DIR/rtenx.toml: is 1100018 bytes; a settings file is read only up to 1 MiB \
                 (1048576 bytes)"
            );
        }
        // Not a regular file.
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir(&path).unwrap();
        assert_eq!(
            error(Source::Found),
            "DIR/rtenx.toml: is not a regular file"
        );
    }

    #[test]
    fn errors_name_file_line_and_column() {
        assert_eq!(
            error("rtenx.toml", "deny = [\"warning\"]\nwarn = [\"RX999\"]\n"),
            "DIR/rtenx.toml:2:9: unknown rule code or level `RX999` (levels: error, warning, \
             info; `rtenx explain` lists codes)"
        );
        assert!(error("rtenx.toml", "colour = 1\n")
            .starts_with("DIR/rtenx.toml:1:1: unknown field `colour`"));
        assert_eq!(
            error("rtenx.toml", "\n\nmax-size = \"3 parsecs\"\n"),
            "DIR/rtenx.toml:3:12: `3 parsecs` has an unknown unit (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)"
        );
        assert!(error(
            "pyproject.toml",
            "[tool.rtenx]\n[[tool.rtenx.overrides]]\nallow = [\"RX005\"]\n"
        )
        .starts_with("DIR/pyproject.toml:2:"));
        assert_eq!(
            error("rtenx.toml", "[[overrides]]\npaths = [\"a/[\"]\n"),
            "DIR/rtenx.toml:2:10: unclosed character class; missing ']'"
        );
        assert!(error("rtenx.toml", "timeout = [").starts_with("DIR/rtenx.toml:1:12:"));
    }

    #[test]
    fn a_pyproject_without_the_table_is_no_config() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pyproject.toml");
        std::fs::write(&path, "[tool.ruff]\nline-length = 100\n").unwrap();
        assert!(read(&path, Source::Found).unwrap().is_none());
    }
}
