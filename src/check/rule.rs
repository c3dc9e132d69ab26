//! Rules: stable codes with a fixed default severity and an explanation.

use serde::Serialize;
use std::fmt;

/// How serious a finding is. Ordered from least to most serious.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; not a defect.
    Info,
    /// Loads, but is slow, wasteful or suspicious.
    Warning,
    /// The file is broken or a runtime will refuse or misread it.
    Error,
}

impl Severity {
    /// Every severity, least serious first.
    pub const ALL: [Severity; 3] = [Severity::Info, Severity::Warning, Severity::Error];

    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `pad`, so that width and alignment flags line columns up.
        f.pad(self.name())
    }
}

/// A check rule. Codes are stable: a code is never reused for another rule.
#[derive(Debug, Serialize)]
pub struct Rule {
    /// Stable code, such as `RT004`.
    pub code: &'static str,
    /// Stable kebab-case name, such as `model-length-invalid`.
    pub name: &'static str,
    /// Default severity.
    pub severity: Severity,
    /// One-line summary.
    pub summary: &'static str,
    /// What the rule checks, why it matters and how to fix it: the rule's doc comment after
    /// its first line, as written (see [`Rule::explanation`]).
    pub doc: &'static str,
}

impl Rule {
    /// The explanation as Markdown: the doc comment's lines without the one space that
    /// follows `///`, and without blank lines around it.
    pub fn explanation(&self) -> String {
        let lines: Vec<&str> = (self.doc.lines())
            .map(|line| line.strip_prefix(' ').unwrap_or(line))
            .collect();
        lines.join("\n").trim_matches('\n').to_owned()
    }

    /// The explanation as blocks for text that is wrapped to a width (a terminal, SARIF's plain
    /// text): each `## ` heading and each paragraph on one line.
    pub fn blocks(&self) -> Vec<DocBlock> {
        let mut blocks = Vec::new();
        let mut paragraph = String::new();
        let explanation = self.explanation();
        for line in explanation.lines().map(str::trim) {
            if line.is_empty() || line.starts_with("## ") {
                if !paragraph.is_empty() {
                    blocks.push(DocBlock::Paragraph(std::mem::take(&mut paragraph)));
                }
                if let Some(heading) = line.strip_prefix("## ") {
                    blocks.push(DocBlock::Heading(heading.to_owned()));
                }
            } else {
                if !paragraph.is_empty() {
                    paragraph.push(' ');
                }
                paragraph.push_str(line);
            }
        }
        if !paragraph.is_empty() {
            blocks.push(DocBlock::Paragraph(paragraph));
        }
        blocks
    }

    /// The fix, for a `help:` line: the first paragraph of the explanation's `## How to fix`,
    /// cut to its first sentence when it is longer than [`HELP_LENGTH`]. `None` for a rule
    /// whose explanation says no fix.
    pub fn help(&self) -> Option<String> {
        let blocks = self.blocks();
        let mut after = blocks
            .iter()
            .skip_while(|b| !matches!(b, DocBlock::Heading(h) if h == "How to fix"))
            .skip(1);
        let Some(DocBlock::Paragraph(fix)) = after.next() else {
            return None;
        };
        if fix.chars().count() <= HELP_LENGTH {
            return Some(fix.clone());
        }
        // A sentence ends at `. ` before a capital letter or a code span.
        let end = fix.match_indices(". ").map(|(at, _)| at).find(|&at| {
            fix[at + 2..]
                .chars()
                .next()
                .is_some_and(|c| c.is_uppercase() || c == '`')
        });
        Some(end.map_or_else(|| fix.clone(), |at| fix[..=at].to_owned()))
    }

    /// The explanation as plain text: each heading and paragraph on one line, a blank line
    /// before each heading.
    pub fn plain_explanation(&self) -> String {
        let mut out = String::new();
        for block in self.blocks() {
            match block {
                DocBlock::Heading(text) if out.is_empty() => out.push_str(&text),
                DocBlock::Heading(text) => out.push_str(&format!("\n\n{text}")),
                DocBlock::Paragraph(text) => out.push_str(&format!("\n{text}")),
            }
        }
        out.trim_start().to_owned()
    }
}

/// The longest fix a `help:` line shows whole, in characters ([`Rule::help`]).
pub const HELP_LENGTH: usize = 160;

/// One block of a rule's explanation (see [`Rule::blocks`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DocBlock {
    /// A section heading, without its `## `.
    Heading(String),
    /// A paragraph, its lines joined by spaces.
    Paragraph(String),
}

/// A doc comment's line without the space that follows `///`, at compile time.
#[doc(hidden)]
pub const fn doc_line(line: &'static str) -> &'static str {
    match line.as_bytes() {
        [b' ', rest @ ..] => match std::str::from_utf8(rest) {
            Ok(text) => text,
            Err(_) => line,
        },
        _ => line,
    }
}

/// A family of rules that share a code prefix: the format-neutral rules, the data-file rules,
/// or one format's own. The prefix is declared once here, as ruff's `Linter` enum does, and a
/// registry test holds every code to it.
#[derive(Debug)]
pub struct RuleGroup {
    /// The prefix every code in the group starts with, such as `OX`.
    pub prefix: &'static str,
    /// What the group covers, such as `ONNX`.
    pub title: &'static str,
    /// The rules, in code order.
    pub rules: &'static [&'static Rule],
    /// Codes this group once used for rules that moved to another group. A code never changes
    /// meaning, so `--allow`, `--deny` and `explain` still accept the old one.
    pub moved: &'static [Moved],
}

/// An old code and the rule it now names.
#[derive(Debug)]
pub struct Moved {
    /// The code as it was, such as `OX012`.
    pub code: &'static str,
    /// The rule that carries it on.
    pub rule: &'static Rule,
}

/// Declares a rule group: each rule as a constant, plus `RULES` listing them and `GROUP`
/// holding the prefix, in one place. A rule's doc comment is its text: the first line is the
/// summary, the rest the explanation that `rtenx explain` and `docs/rules/` show, in Markdown
/// with the sections `## What it does`, `## Why` and `## How to fix`.
///
/// ```
/// rtenx::rules! {
///     group = ("ZZ", "Examples");
///     /// One-line summary.
///     ///
///     /// ## What it does
///     /// A longer explanation of what is checked.
///     EXAMPLE = ("ZZ001", "example-rule", Warning);
/// }
/// assert_eq!(RULES.len(), 1);
/// assert_eq!(GROUP.prefix, "ZZ");
/// assert_eq!(EXAMPLE.summary, "One-line summary.");
/// assert_eq!(EXAMPLE.explanation(), "## What it does\nA longer explanation of what is checked.");
/// ```
#[macro_export]
macro_rules! rules {
    (
        group = ($prefix:literal, $title:literal $(, moved: [$($old:literal => $new:path),+ $(,)?])?);
        $(
            #[doc = $summary:literal]
            $(#[doc = $doc:literal])*
            $ident:ident = ($code:literal, $name:literal, $sev:ident);
        )+
    ) => {
        $(
            #[doc = $summary]
            $(#[doc = $doc])*
            pub static $ident: $crate::check::Rule = $crate::check::Rule {
                code: $code,
                name: $name,
                severity: $crate::check::Severity::$sev,
                summary: $crate::check::rule::doc_line($summary),
                doc: concat!($($doc, "\n"),*),
            };
        )+
        $crate::rules!(@group $prefix, $title, [$($ident),+] $(, [$($old => $new),+])?);
    };
    (@group $prefix:literal, $title:literal, [$($ident:ident),+] $(, [$($old:literal => $new:path),+])?) => {
        /// Every rule declared in this module, in code order.
        pub static RULES: &[&$crate::check::Rule] = &[$(&$ident),+];
        /// This module's rules with their code prefix.
        pub static GROUP: $crate::check::RuleGroup = $crate::check::RuleGroup {
            prefix: $prefix,
            title: $title,
            rules: RULES,
            moved: &[$($($crate::check::Moved { code: $old, rule: &$new }),+)?],
        };
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    static SAMPLE: Rule = Rule {
        code: "ZZ001",
        name: "sample",
        severity: Severity::Error,
        summary: "Summary.",
        doc: "\n ## What it does\n Checks one\n thing.\n\n ## Why\n Because.\n",
    };

    #[test]
    fn blocks_put_each_heading_and_paragraph_on_one_line() {
        assert_eq!(
            SAMPLE.blocks(),
            [
                DocBlock::Heading("What it does".into()),
                DocBlock::Paragraph("Checks one thing.".into()),
                DocBlock::Heading("Why".into()),
                DocBlock::Paragraph("Because.".into()),
            ]
        );
        assert_eq!(
            SAMPLE.plain_explanation(),
            "What it does\nChecks one thing.\n\nWhy\nBecause."
        );
    }

    #[test]
    fn help_is_the_first_paragraph_of_how_to_fix_cut_to_a_sentence_when_long() {
        let rule = |doc: &'static str| Rule { doc, ..SAMPLE };
        assert_eq!(SAMPLE.help(), None);
        let short = rule(" ## How to fix\n Save it\n again.\n\n More.\n");
        assert_eq!(short.help().as_deref(), Some("Save it again."));
        let long: &'static str = Box::leak(
            format!(
                " ## How to fix\n Save `a.data` again. {}\n",
                "Then more. ".repeat(20)
            )
            .into_boxed_str(),
        );
        assert_eq!(rule(long).help().as_deref(), Some("Save `a.data` again."));
        // Every rule's help is one line.
        for rule in crate::catalogue::rules() {
            if let Some(help) = rule.help() {
                assert!(
                    !help.is_empty() && !help.contains('\n'),
                    "{}: {help}",
                    rule.code
                );
            }
        }
    }
}
