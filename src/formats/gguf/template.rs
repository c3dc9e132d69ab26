//! Chat templates that reach for Python internals to escape a Jinja sandbox.

/// What a sandbox escape needs and no chat template does: dunder attributes that lead from
/// any object to classes, modules and builtins, and Jinja's `import` statements.
const ESCAPES: &[&[u8]] = &[
    b"__class__",
    b"__mro__",
    b"__subclasses__",
    b"__globals__",
    b"__builtins__",
    b"__import__",
    b"__base__",
    b"__init__",
];

/// The first escape in `template`: what it is and where, relative to the template's start.
pub fn escape(template: &[u8]) -> Option<(String, u64)> {
    let dunder = ESCAPES.iter().find_map(|needle| {
        find(template, needle).map(|at| (String::from_utf8_lossy(needle).into_owned(), at))
    });
    let import = statements(template).find_map(|(at, words)| {
        // Jinja's whitespace control (`{%-`, `{%+`) comes before the statement's keyword.
        let body = words.trim_ascii_start();
        let body = body
            .strip_prefix(b"-")
            .or(body.strip_prefix(b"+"))
            .unwrap_or(body);
        let first = body
            .trim_ascii_start()
            .split(|b| b.is_ascii_whitespace())
            .next();
        matches!(first, Some(b"import" | b"from")).then(|| ("an import statement".to_owned(), at))
    });
    [dunder, import]
        .into_iter()
        .flatten()
        .min_by_key(|(_, at)| *at)
}

/// Where `needle` first occurs in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<u64> {
    (0u64..)
        .zip(haystack.windows(needle.len()))
        .find(|(_, w)| w == &needle)
        .map(|(at, _)| at)
}

/// The inside of every `{% ... %}` statement, with where it starts.
fn statements(template: &[u8]) -> impl Iterator<Item = (u64, &[u8])> {
    let mut rest = template;
    let mut base = 0u64;
    std::iter::from_fn(move || {
        let open = find(rest, b"{%")?;
        let start = usize::try_from(open).ok()? + 2;
        let body = rest.get(start..)?;
        let len = find(body, b"%}").and_then(|n| usize::try_from(n).ok());
        let len = len.unwrap_or(body.len());
        let at = base + open;
        let inside = body.get(..len)?;
        let next = start + len;
        base += next as u64;
        rest = rest.get(next..)?;
        Some((at, inside))
    })
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn finds_escapes_and_passes_real_templates() {
        let real = b"{% for message in messages %}{{ '<|' + message['role'] + '|>' + message['content'] }}{% endfor %}{%- if add_generation_prompt %}<|assistant|>{% endif %}";
        assert_eq!(escape(real), None);
        let cve = b"{{ ''.__class__.__mro__[1].__subclasses__() }}";
        assert_eq!(escape(cve), Some(("__class__".to_owned(), 6)));
        let import = b"hi {%- import 'os' as os %}";
        assert_eq!(escape(import), Some(("an import statement".to_owned(), 3)));
        assert_eq!(escape(b"{% if important %}"), None);
    }
}
