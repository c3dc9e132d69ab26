//! Hostile fixtures: `fixtures/<format>/bad/manifest.tsv`, one schema for every format
//! (tests/fixtures/gen/README.md, "Hostile-fixture manifests").

#[cfg(unix)]
use std::path::Path;
use std::path::PathBuf;

/// The manifest's header line: its columns, in order.
const HEADER: &str = "case\tcode\toffset\titem\tsetup\twhat";

/// Rules whose fixtures are too large to commit: (code, test file, test function that makes
/// one and checks it).
pub const GENERATED: &[(&str, &str, &str)] = &[
    (
        "TF002",
        "tests/tflite.rs",
        "a_model_over_the_verifier_table_limit_is_tf002",
    ),
    (
        "RX018",
        "tests/commands/ci.rs",
        "a_file_past_max_size_is_reported_and_others_checked",
    ),
    (
        "RX019",
        "tests/commands/ci.rs",
        "a_file_past_its_timeout_is_given_up_and_others_checked",
    ),
    (
        "RX017",
        "tests/readers/foreign.rs",
        "every_foreign_file_is_named_and_nothing_else_is_reported",
    ),
    (
        "OX002",
        "tests/readers/onnx.rs",
        "an_onnx_file_of_2_gib_is_non_conformant",
    ),
    (
        "RX016",
        "tests/amplification.rs",
        "attribute_lists_past_the_budget_are_counted_not_kept",
    ),
    (
        "ET002",
        "tests/readers/executorch.rs",
        "a_program_of_more_than_a_million_tables_is_over_the_runtime_limits",
    ),
    (
        "ET022",
        "tests/readers/executorch.rs",
        "a_program_of_2_gib_is_too_large",
    ),
    (
        "ET026",
        "tests/readers/executorch.rs",
        "a_data_file_that_the_program_does_not_use_is_reported",
    ),
    (
        "PD013",
        "tests/readers/paddle.rs",
        "a_program_of_2_gib_is_too_large",
    ),
    (
        "PD017",
        "tests/readers/paddle.rs",
        "data_names_the_parameter_file_and_a_second_one_is_unused",
    ),
];

/// Rules proved by a test of their own rather than by a manifest row: about the folders a run
/// starts in, held to a loader's own verdicts (`tests/readers/loadable.rs`), about a signed folder
/// (`tests/signing.rs`, which holds each SG rule to its signed case), or about a local copy
/// held to a Hub repository (`tests/remote.rs`): (code, test file, test function).
pub const LAID_OUT: &[(&str, &str, &str)] = &[
    (
        "KR013",
        "tests/keras.rs",
        "keras2_inbound_nodes_join_layers_as_keras3_ones_do",
    ),
    (
        "HF007",
        "tests/remote.rs",
        "a_local_copy_is_held_to_what_the_hub_records",
    ),
    (
        "HF008",
        "tests/remote.rs",
        "a_local_copy_is_held_to_what_the_hub_records",
    ),
    (
        "RX021",
        "tests/commands/settings.rs",
        "a_model_folder_cannot_pass_its_own_pickle",
    ),
    (
        "GG032",
        "tests/readers/loadable.rs",
        "each_model_loader_rule_fires_on_its_fixture",
    ),
    (
        "GG033",
        "tests/readers/loadable.rs",
        "each_model_loader_rule_fires_on_its_fixture",
    ),
    (
        "GG034",
        "tests/readers/loadable.rs",
        "each_model_loader_rule_fires_on_its_fixture",
    ),
    (
        "GG035",
        "tests/readers/loadable.rs",
        "each_model_loader_rule_fires_on_its_fixture",
    ),
    (
        "GG036",
        "tests/readers/loadable.rs",
        "each_model_loader_rule_fires_on_its_fixture",
    ),
    (
        "GG037",
        "tests/readers/loadable.rs",
        "each_model_loader_rule_fires_on_its_fixture",
    ),
    (
        "GG038",
        "tests/readers/loadable.rs",
        "each_model_loader_rule_fires_on_its_fixture",
    ),
    (
        "GG039",
        "tests/readers/loadable.rs",
        "each_model_loader_rule_fires_on_its_fixture",
    ),
    (
        "GG040",
        "tests/readers/loadable.rs",
        "each_model_loader_rule_fires_on_its_fixture",
    ),
    (
        "GG041",
        "tests/readers/loadable.rs",
        "each_model_loader_rule_fires_on_its_fixture",
    ),
    (
        "GG042",
        "tests/readers/loadable.rs",
        "each_model_loader_rule_fires_on_its_fixture",
    ),
    ("SG001", "tests/signing.rs", "every_rule_has_a_fixture"),
    ("SG002", "tests/signing.rs", "every_rule_has_a_fixture"),
    ("SG003", "tests/signing.rs", "every_rule_has_a_fixture"),
    ("SG004", "tests/signing.rs", "every_rule_has_a_fixture"),
    ("SG005", "tests/signing.rs", "every_rule_has_a_fixture"),
    ("SG006", "tests/signing.rs", "every_rule_has_a_fixture"),
    ("SG007", "tests/signing.rs", "every_rule_has_a_fixture"),
    ("SG008", "tests/signing.rs", "every_rule_has_a_fixture"),
    ("SG009", "tests/signing.rs", "every_rule_has_a_fixture"),
    ("SG010", "tests/signing.rs", "every_rule_has_a_fixture"),
    ("SG011", "tests/signing.rs", "every_rule_has_a_fixture"),
    ("SG012", "tests/signing.rs", "every_rule_has_a_fixture"),
    ("SG013", "tests/signing.rs", "every_rule_has_a_fixture"),
    ("SG014", "tests/signing.rs", "every_rule_has_a_fixture"),
    ("SG015", "tests/signing.rs", "every_rule_has_a_fixture"),
    ("SG016", "tests/signing.rs", "every_rule_has_a_fixture"),
    ("SG017", "tests/signing.rs", "every_rule_has_a_fixture"),
    ("SG018", "tests/signing.rs", "every_rule_has_a_fixture"),
    ("SG019", "tests/signing.rs", "every_rule_has_a_fixture"),
    ("SG020", "tests/signing.rs", "every_rule_has_a_fixture"),
];

/// An expected value, or `*`: not compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect<T> {
    /// `*`: any value.
    Any,
    /// This value.
    Is(T),
}

impl<T> Expect<T> {
    fn matches<U: ?Sized>(&self, actual: &U) -> bool
    where
        T: PartialEq<U>,
    {
        match self {
            Expect::Any => true,
            Expect::Is(expected) => expected.eq(actual),
        }
    }
}

/// One expected finding.
#[derive(Debug)]
pub struct Row {
    /// Rule code.
    pub code: String,
    /// Absolute byte offset; `-` is `Is(None)`, a finding without one.
    pub offset: Expect<Option<u64>>,
    /// The tensor's, node's or data file's name; `-` for any other item.
    pub item: Expect<String>,
    /// What the case does.
    pub what: String,
}

impl Row {
    /// Whether a finding with this code, offset and item name is this row's.
    pub fn matches(&self, code: &str, offset: Option<u64>, item: &str) -> bool {
        self.code == code && self.offset.matches(&offset) && self.item.matches(item)
    }
}

/// One hostile case: an entry file that rtenx checks, with its expected findings.
#[derive(Debug)]
pub struct Case {
    /// The folder under `fixtures/`, such as `onnx`.
    pub format: String,
    /// The entry file, relative to `fixtures/<format>/bad/`: a file, or a file in a folder
    /// that holds the case's other files.
    pub entry: String,
    /// Steps that make what the repository cannot hold, or `-`.
    pub setup: String,
    /// The findings it must produce; none when its only row has code `-`.
    pub rows: Vec<Row>,
}

impl Case {
    /// The file or folder directly in `bad/` that holds the case.
    pub fn unit(&self) -> &str {
        self.entry.split('/').next().unwrap_or_default()
    }

    /// `<format>/bad/<entry>`, the entry's path under `fixtures/`.
    pub fn name(&self) -> String {
        format!("{}/bad/{}", self.format, self.entry)
    }

    /// The entry file in the repository, without its setup.
    pub fn path(&self) -> PathBuf {
        self.bad().join(&self.entry)
    }

    /// `fixtures/<format>/bad`.
    fn bad(&self) -> PathBuf {
        super::fixtures().join(&self.format).join("bad")
    }
}

/// Every format folder under `fixtures/` that has a `bad/manifest.tsv`, sorted.
pub fn formats() -> Vec<String> {
    let mut found: Vec<String> = std::fs::read_dir(super::fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("bad/manifest.tsv").is_file())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    found.sort();
    assert!(found.len() >= 2, "expected rten and onnx: {found:?}");
    found
}

/// The cases of `fixtures/<format>/bad/manifest.tsv`, in manifest order.
pub fn cases(format: &str) -> Vec<Case> {
    let path = super::fixtures().join(format).join("bad/manifest.tsv");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(HEADER), "{}: header", path.display());
    let mut cases: Vec<Case> = Vec::new();
    let mut clean = std::collections::BTreeSet::new(); // entries whose row is `-`
    for line in lines.filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let cols: Vec<&str> = line.split('\t').collect();
        let [entry, code, offset, item, setup, what] = cols[..] else {
            panic!("{}: not 6 columns: {line}", path.display())
        };
        let case = match cases.iter_mut().find(|c| c.entry == entry) {
            Some(case) => case,
            None => {
                cases.push(Case {
                    format: format.to_owned(),
                    entry: entry.to_owned(),
                    setup: setup.to_owned(),
                    rows: Vec::new(),
                });
                cases.last_mut().unwrap()
            }
        };
        assert_eq!(case.setup, setup, "{entry}: rows differ in setup");
        assert!(!clean.contains(entry), "{entry}: `-` must be its only row");
        if code == "-" {
            assert!(case.rows.is_empty(), "{entry}: `-` must be its only row");
            clean.insert(entry);
            continue;
        }
        let offset = match offset {
            "*" => Expect::Any,
            "-" => Expect::Is(None),
            n => Expect::Is(Some(n.parse().unwrap_or_else(|_| panic!("offset: {line}")))),
        };
        let item = match item {
            "*" => Expect::Any,
            name => Expect::Is(name.to_owned()),
        };
        case.rows.push(Row {
            code: code.to_owned(),
            offset,
            item,
            what: what.to_owned(),
        });
    }
    cases
}

/// Every case of every format.
pub fn all_cases() -> Vec<Case> {
    formats().iter().flat_map(|f| cases(f)).collect()
}

/// The case of `format` held by `unit`.
pub fn case(format: &str, unit: &str) -> Case {
    cases(format)
        .into_iter()
        .find(|c| c.unit() == unit)
        .unwrap_or_else(|| panic!("no case {unit} in {format}"))
}

/// A case copied into a temporary folder, with its setup applied.
#[cfg(unix)]
pub struct Prepared {
    /// Holds `bad/<unit>` and what the setup makes next to it; removed on drop.
    _root: tempfile::TempDir,
    /// The entry file in the copy.
    pub entry: PathBuf,
    /// The runtime the setup names (`target rten`), if any.
    pub target: Option<rtenx::formats::Target>,
    /// With `values` in the setup, the values are read, with this zero-tail (`values 4096`).
    pub values: Option<u64>,
}

#[cfg(unix)]
impl Prepared {
    /// The folder that holds the entry file, where the setup was applied.
    pub fn dir(&self) -> &Path {
        self.entry.parent().unwrap()
    }

    /// Checks the entry with `--verify-checksums`, the option that reads the most, and the
    /// setup's target and `--values`.
    pub fn analyze(&self) -> rtenx::Analysis {
        let options = rtenx::formats::ReadOptions {
            verify_checksums: true,
            target: self.target,
            values: self.values.map(|zero_tail| rtenx::formats::ValueCheck {
                zero_tail,
                cancel: None,
            }),
            ..Default::default()
        };
        rtenx::analyze_with(&self.entry, &options).unwrap()
    }
}

#[cfg(unix)]
impl Case {
    /// A copy of the case in `<temp>/bad/`, with its setup applied in the entry's folder.
    pub fn prepare(&self) -> Prepared {
        let root = tempfile::tempdir().unwrap();
        let bad = root.path().join("bad");
        std::fs::create_dir(&bad).unwrap();
        copy(&self.bad().join(self.unit()), &bad.join(self.unit()));
        let mut prepared = Prepared {
            entry: bad.join(&self.entry),
            _root: root,
            target: None,
            values: None,
        };
        (prepared.target, prepared.values) = apply(prepared.dir(), &self.setup);
        prepared
    }

    /// Checks a prepared copy of the case with `--verify-checksums`.
    pub fn analyze(&self) -> rtenx::Analysis {
        self.prepare().analyze()
    }
}

/// Copies a file, or a folder and everything in it.
#[cfg(unix)]
fn copy(from: &Path, to: &Path) {
    if !from.is_dir() {
        std::fs::copy(from, to).unwrap();
        return;
    }
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        copy(&entry.path(), &to.join(entry.file_name()));
    }
}

/// Applies setup steps inside `dir`; the runtime a `target` step names, and the zero-tail of a
/// `values` step (`values`, or `values 4096`).
#[cfg(unix)]
fn apply(dir: &Path, setup: &str) -> (Option<rtenx::formats::Target>, Option<u64>) {
    use std::fs;
    let (mut target, mut values) = (None, None);
    for step in setup
        .split(';')
        .map(str::trim)
        .filter(|s| !s.is_empty() && *s != "-")
    {
        let words: Vec<&str> = step.split_whitespace().collect();
        match words[..] {
            ["mkdir", path] => fs::create_dir_all(dir.join(path)).unwrap(),
            ["write", path, content] => {
                let bytes = match content.strip_prefix('@') {
                    Some(size) => vec![0u8; size.parse().unwrap()],
                    None => (0..content.len() / 2)
                        .map(|i| u8::from_str_radix(&content[2 * i..2 * i + 2], 16).unwrap())
                        .collect(),
                };
                fs::write(dir.join(path), bytes).unwrap();
            }
            ["symlink", link, target] => {
                std::os::unix::fs::symlink(target, dir.join(link)).unwrap()
            }
            ["hardlink", link, existing] => {
                fs::hard_link(dir.join(existing), dir.join(link)).unwrap()
            }
            ["fifo", path] => {
                let status = std::process::Command::new("mkfifo")
                    .arg(dir.join(path))
                    .status()
                    .unwrap();
                assert!(status.success());
            }
            ["target", "rten"] => target = Some(rtenx::formats::Target::Rten),
            ["values"] => values = Some(rtenx::formats::ZERO_TAIL),
            ["values", bytes] => values = Some(bytes.parse().unwrap()),
            _ => panic!("unknown setup step `{step}`"),
        }
    }
    (target, values)
}
