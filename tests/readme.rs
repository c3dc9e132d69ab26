//! The README stays true: its rule table matches the registry, and CI runs its test command.

mod common;

use std::path::Path;

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

#[test]
fn readme_lists_every_rule_as_the_registry_defines_it() {
    let readme = read("README.md");
    for rule in common::rules() {
        let row = format!(
            "| {} | `{}` | {} | {} |",
            rule.code, rule.name, rule.severity, rule.summary
        );
        assert!(
            readme.contains(&row),
            "README lacks or misstates the row:\n{row}"
        );
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
