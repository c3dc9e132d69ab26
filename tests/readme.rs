//! The README stays true: its format table matches the registry, and CI runs its test command.

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
