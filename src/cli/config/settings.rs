//! What applies to one file: defaults, then its configuration's top level, then each of its
//! `[[overrides]]` that matches (later ones win), then the command line.

use super::{Config, Layer};
use rtenx::check::{Action, Overrides, Severity};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The settings of one file.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// The configuration file they come from, if any.
    pub config: Option<Arc<Config>>,
    /// Every `deny`, `warn` and `allow`, in the order applied, with where it comes from.
    pub rules: Vec<(String, Action, String)>,
    /// The severity overrides those make.
    pub overrides: Overrides,
    /// Files larger than this are not read.
    pub max_size: Option<u64>,
    /// Files that take longer than this are given up on.
    pub timeout: Option<Duration>,
    /// Data files to pair with the model.
    pub data: Vec<PathBuf>,
    /// The runtime whose own rules also apply.
    pub target: Option<rtenx::formats::Target>,
    /// Whether every tensor's values are read.
    pub values: bool,
    /// The shortest zero run at a tensor's end that VX005 reports, if not the default.
    pub zero_tail: Option<u64>,
}

impl Settings {
    /// The settings of `path` under `config`, with the command line's `cli` last.
    pub fn of(path: &Path, config: Option<&Arc<Config>>, cli: &Layer) -> Self {
        let mut settings = Settings {
            config: config.cloned(),
            ..Settings::default()
        };
        if let Some(config) = config {
            let name = config.path.display().to_string();
            settings.add(&config.base, &name);
            if let Some(relative) = relative_to(path, &config.dir) {
                for (i, o) in config.overrides.iter().enumerate() {
                    if o.paths.is_match(&relative) {
                        settings.add(&o.layer, &format!("{name} [[overrides]] #{}", i + 1));
                    }
                }
            }
        }
        settings.add(cli, "command line");
        settings
    }

    fn add(&mut self, layer: &Layer, source: &str) {
        for (text, selector, action) in &layer.rules {
            self.overrides.set(selector.clone(), *action);
            self.rules.push((text.clone(), *action, source.to_owned()));
        }
        self.max_size = layer.max_size.or(self.max_size);
        self.timeout = layer.timeout.or(self.timeout);
        self.target = layer.target.or(self.target);
        self.values = layer.values.unwrap_or(self.values);
        self.zero_tail = layer.zero_tail.or(self.zero_tail);
        self.data.extend(layer.data.iter().cloned());
    }

    /// Prints the settings of `path` for `--show-settings`, with the settings file inside
    /// the checked path nearest to it that was `ignored`, if any.
    pub fn show(
        &self,
        path: &Path,
        excluded: bool,
        ignored: Option<&Path>,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let shown = |p: &Path| rtenx::escape::sanitize(&p.display().to_string()).into_owned();
        writeln!(out, "{}", shown(path))?;
        let config = self
            .config
            .as_ref()
            .map_or("none".into(), |c| shown(&c.path));
        writeln!(out, "  config: {config}")?;
        if let Some(ignored) = ignored {
            writeln!(
                out,
                "  ignored: {} (inside what is checked: never applied, see RX021)",
                shown(ignored)
            )?;
        }
        if excluded {
            writeln!(out, "  excluded: yes (a folder scan skips it)")?;
        }
        for (text, action, source) in &self.rules {
            let verb = match action {
                Some(Severity::Error) => "deny",
                Some(Severity::Warning) => "warn",
                Some(Severity::Info) => "info",
                None => "allow",
            };
            let text = rtenx::escape::sanitize(text);
            writeln!(
                out,
                "  {verb} {text}  ({})",
                rtenx::escape::sanitize(source)
            )?;
        }
        match self.max_size {
            Some(n) => writeln!(out, "  max-size: {n} bytes")?,
            None => writeln!(out, "  max-size: none")?,
        }
        match self.timeout {
            Some(t) => writeln!(out, "  timeout: {} ms", t.as_millis())?,
            None => writeln!(out, "  timeout: none")?,
        }
        let yes_no = |b| if b { "yes" } else { "no" };
        writeln!(out, "  values: {}", yes_no(self.values))?;
        let zero_tail = self.zero_tail.unwrap_or(rtenx::formats::ZERO_TAIL);
        writeln!(out, "  zero-tail: {zero_tail} bytes")?;
        for data in &self.data {
            writeln!(out, "  data: {}", shown(data))?;
        }
        Ok(())
    }
}

/// Whether a folder scan leaves `path` out under `config`.
pub fn excluded(path: &Path, config: Option<&Arc<Config>>) -> bool {
    config.is_some_and(|c| relative_to(path, &c.dir).is_some_and(|r| c.exclude.is_match(r)))
}

/// `path` relative to the folder `dir`, both made absolute; `None` outside it.
fn relative_to(path: &Path, dir: &Path) -> Option<PathBuf> {
    let path = std::path::absolute(path).ok()?;
    path.strip_prefix(dir).ok().map(Path::to_owned)
}
