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
    /// What the rule checks, why it matters and how to fix it.
    pub explanation: &'static str,
}

/// Declares rules as constants plus a `RULES` slice listing them, in one place.
///
/// ```
/// rtenx::rules! {
///     EXAMPLE = ("ZZ001", "example-rule", Warning,
///         "One-line summary.",
///         "A longer explanation of what is checked and why.");
/// }
/// assert_eq!(RULES.len(), 1);
/// assert_eq!(EXAMPLE.code, "ZZ001");
/// ```
#[macro_export]
macro_rules! rules {
    ($($ident:ident = ($code:literal, $name:literal, $sev:ident, $summary:literal, $explanation:literal);)+) => {
        $(
            #[doc = $summary]
            pub static $ident: $crate::check::Rule = $crate::check::Rule {
                code: $code,
                name: $name,
                severity: $crate::check::Severity::$sev,
                summary: $summary,
                explanation: $explanation,
            };
        )+
        /// Every rule declared in this module, in code order.
        pub static RULES: &[&$crate::check::Rule] = &[$(&$ident),+];
    };
}
