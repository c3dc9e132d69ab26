//! `rtenx explain`.

use super::Outcome;
use clap::Args;
use rtenx::catalogue;
use rtenx::check::Rule;
use std::io::{self, Write};

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// A rule code (such as RT006) or name; without one, every rule is listed.
    code: Option<String>,
    /// Write JSON instead of text.
    #[arg(long)]
    json: bool,
}

fn rule_json(r: &Rule) -> serde_json::Value {
    serde_json::json!({
        "code": r.code,
        "name": r.name,
        "severity": r.severity,
        "summary": r.summary,
        "explanation": r.explanation(),
    })
}

pub fn run(args: ExplainArgs) -> io::Result<Outcome> {
    let mut out = io::stdout().lock();
    let Some(code) = args.code else {
        if args.json {
            let all: Vec<_> = catalogue::rules().map(rule_json).collect();
            serde_json::to_writer_pretty(&mut out, &all)?;
            writeln!(out)?;
        } else {
            for r in catalogue::rules() {
                writeln!(
                    out,
                    "{}  {:<8} {:<28} {}",
                    r.code, r.severity, r.name, r.summary
                )?;
            }
        }
        return Ok(Outcome::Clean);
    };
    let Some(rule) = catalogue::lookup(&code) else {
        super::complain(format_args!(
            "unknown rule `{code}`; `rtenx explain` lists every rule"
        ));
        return Ok(Outcome::Failure);
    };
    if args.json {
        serde_json::to_writer_pretty(&mut out, &rule_json(rule))?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "{} ({}), default severity: {}\n",
            rule.code, rule.name, rule.severity
        )?;
        let moved = catalogue::groups().flat_map(|g| g.moved);
        if let Some(old) = moved
            .into_iter()
            .find(|m| m.code.eq_ignore_ascii_case(&code))
        {
            let (old, new) = (old.code, rule.code);
            writeln!(
                out,
                "{old} is the code this rule had before; it is now {new}.\n"
            )?;
        }
        writeln!(out, "{}\n\n{}", rule.summary, rule.explanation())?;
    }
    Ok(Outcome::Clean)
}
