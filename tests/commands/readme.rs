//! The README and docs/usage.md stay true: the formats they name are the registry's, the flags
//! they list are clap's, the tabs they list are the browser's, and CI runs the README's test
//! command.

use rtenx::formats::registry::FORMATS;
use rtenx::tui::Tab;
use std::collections::BTreeSet;
use std::path::Path;

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

/// The README's table of formats names every format the registry reads, and nothing in the
/// README lists rules: their reference is generated (docs/rules/, tests/docs.rs).
#[test]
fn readme_lists_every_format_rtenx_reads() {
    let readme = read("README.md").to_lowercase();
    let table: Vec<&str> = readme
        .lines()
        .skip_while(|l| !l.starts_with("| format |"))
        .take_while(|l| l.starts_with('|'))
        .collect();
    for format in rtenx::formats::registry::FORMATS {
        assert!(
            table.iter().any(|row| row.contains(format.about().name)),
            "the README's format table lacks {}",
            format.about().name
        );
    }
    // The crate's description, and the wheel's on PyPI.
    for manifest in ["Cargo.toml", "pyproject.toml"] {
        let text = read(manifest).to_lowercase();
        let description = text.lines().find(|l| l.starts_with("description")).unwrap();
        for format in rtenx::formats::registry::FORMATS {
            assert!(
                description.contains(format.about().name),
                "{manifest}'s description lacks {}",
                format.about().name
            );
        }
    }
}

#[test]
fn ci_runs_the_readme_test_command() {
    let readme = read("README.md");
    let block = readme
        .split("```sh\n")
        .nth(1)
        .expect("the README opens with a sh block");
    let commands: Vec<&str> = block
        .lines()
        .take_while(|l| !l.starts_with("```"))
        .collect();
    assert_eq!(
        commands.len(),
        2,
        "the README starts with two commands: {commands:?}"
    );
    assert!(
        commands[0].contains("tests/fixtures/"),
        "the first runs on a shipped model"
    );
    let ci = read(".ci/run");
    assert!(
        ci.lines().any(|l| l.trim() == commands[1]),
        ".ci/run must run `{}`",
        commands[1]
    );
}

/// docs/usage.md names every extension of every format the registry reads, where it says
/// which files a folder scan checks.
#[test]
fn usage_names_every_extension_a_folder_scan_checks() {
    let usage = read("docs/usage.md");
    let check = usage.split("## `rtenx check PATH...`").nth(1).unwrap();
    let scan = check.trim_start().split("\n\n").next().unwrap();
    for format in FORMATS {
        for ext in format.about().extensions {
            assert!(
                scan.contains(&format!("`.{ext}`")),
                "docs/usage.md's check section lacks .{ext} ({})",
                format.about().name
            );
        }
    }
}

/// The long flags of `rtenx COMMAND --help`, as clap renders its definition.
fn flags(command: &str) -> BTreeSet<String> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rtenx"))
        .args([command, "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let long = |l: &str| {
        let l = l.trim_start();
        let l = l
            .strip_prefix("-h, ")
            .or(l.strip_prefix("-V, "))
            .unwrap_or(l);
        let name = l.strip_prefix("--")?.split([' ', '=']).next()?;
        Some(format!("--{name}"))
    };
    let all = help.lines().filter_map(long);
    all.filter(|f| f != "--help" && f != "--version").collect()
}

/// The flags the option table after `heading` in docs/usage.md lists, in its first column.
fn table_flags(usage: &str, heading: &str) -> BTreeSet<String> {
    let section = usage.split(heading).nth(1).unwrap();
    let table = (section.lines())
        .skip_while(|l| !l.starts_with("| option |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'));
    let first = table.filter_map(|l| l.split('|').nth(1));
    let mut flags = BTreeSet::new();
    for cell in first {
        for part in cell.split(['`', ',']) {
            if let Some(name) = part.trim().strip_prefix("--") {
                let name = name.split([' ', '=']).next().unwrap();
                flags.insert(format!("--{name}"));
            }
        }
    }
    flags
}

/// docs/usage.md's option tables of `check` and `diff` list exactly the flags clap defines
/// (`--all-infos`, an old name, is not a flag of its own).
#[test]
fn usage_lists_every_flag_of_check_and_diff() {
    let usage = read("docs/usage.md");
    for (command, heading) in [
        ("check", "## `rtenx check PATH...`"),
        ("diff", "## `rtenx diff A B`"),
    ] {
        assert_eq!(
            table_flags(&usage, heading),
            flags(command),
            "docs/usage.md's table of {command} and `rtenx {command} --help` differ"
        );
    }
}

/// The tab tables of the README and docs/usage.md list the browser's tabs, numbered, in its
/// order, and docs/usage.md names each `--tab` value.
#[test]
fn the_docs_list_every_tab_of_the_browser() {
    let tabs: Vec<String> = Tab::ALL
        .iter()
        .map(|t| format!("{} {}", t.number(), t.title()))
        .collect();
    for doc in ["README.md", "docs/usage.md"] {
        let text = read(doc);
        let rows: Vec<String> = (text.lines())
            .skip_while(|l| !l.starts_with("| tab |"))
            .skip(2)
            .take_while(|l| l.starts_with('|'))
            .map(|l| l.split('|').nth(1).unwrap().trim().to_owned())
            .collect();
        assert_eq!(rows, tabs, "{doc}'s tab table");
    }
    let usage = read("docs/usage.md");
    let values = usage.split("`--tab NAME` opens on a").nth(1).unwrap();
    let values = values.split("\n\n").next().unwrap();
    for tab in Tab::ALL {
        let value = tab.title().to_lowercase();
        assert!(values.contains(&format!("`{value}`")), "--tab {value}");
    }
    assert!(usage.contains(&format!("browser with {} tabs", number(Tab::ALL.len()))));
}

/// A small count in words.
fn number(n: usize) -> &'static str {
    [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ]
    .get(n)
    .copied()
    .unwrap_or("many")
}
