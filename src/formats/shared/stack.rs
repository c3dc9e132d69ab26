//! Python call stacks that a file records for an operator (ExecuTorch's per-instruction
//! stack traces, Paddle's `op_callstack`), read as the module path of the operator.
//!
//! A stack trace names functions and source lines, not modules: a frame of `forward` whose
//! line is `x = self.embed(x)` says that the operator was made inside the submodule `embed`.
//! The module path of a stack is the submodule each caller frame (every frame but the
//! innermost, which is the operator's own line) calls through `self`, outermost first:
//! `self.encoder.layers[3](x)` gives `encoder.layers.3`, and the frames of `forward` calling
//! `self.embed(x)` and then `self.proj(h)` give `embed.proj`. Only frames of a function
//! named `forward` are read, so that the frames of the framework between two modules (a
//! `__call__`, `_call_impl`, Paddle's `_dygraph_call_func`) add nothing.
//!
//! What the source does not say is left out, not guessed: a loop over a module list
//! (`for layer in self.layers: x = layer(x)`) calls no `self.` attribute, so the operators of
//! each layer are placed in the enclosing module; a line calling two submodules
//! (`self.ff(self.norm(x))`) could be either, so it adds nothing.
//!
//! Reading a stack is bounded whatever the file holds: at most [`MAX_FRAMES`] frames, the
//! first [`MAX_LINE`] bytes of each line, a path of at most [`MAX_PATH`] bytes.

/// Frames of one stack read, from the outermost.
pub const MAX_FRAMES: usize = 64;
/// Bytes of a source line searched for a call.
pub const MAX_LINE: usize = 1024;
/// Bytes of a module path; the parts past it are dropped.
pub const MAX_PATH: usize = 1024;

/// One frame of a stack: the function and the source line it was running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame<'a> {
    /// The function's name, such as `forward`.
    pub function: &'a [u8],
    /// The line of source, such as `x = self.embed(x)`.
    pub line: &'a [u8],
}

/// The module path of a stack whose frames are `frames`, outermost first (see the module's
/// documentation): the parts joined with `.`, such as `layers.0.attn`; empty if no frame
/// says.
pub fn module_path<'a>(frames: impl IntoIterator<Item = Frame<'a>>) -> Vec<u8> {
    let mut path = Vec::new();
    let mut frames = frames.into_iter().take(MAX_FRAMES).peekable();
    while let Some(frame) = frames.next() {
        // The innermost frame is the operator's own line, not a call into a module.
        if frames.peek().is_none() {
            break;
        }
        if frame.function != b"forward" {
            continue;
        }
        let Some(called) = called_module(frame.line) else {
            continue;
        };
        if path.len().saturating_add(called.len()) >= MAX_PATH {
            break;
        }
        if !path.is_empty() {
            path.push(b'.');
        }
        path.extend_from_slice(&called);
    }
    path
}

/// The frames of a Python traceback as text, the form Paddle records (`File "m.py", line
/// 3, in forward` and the source line after it, in one string or two), outermost first, at
/// most [`MAX_FRAMES`].
pub fn traceback<'a>(lines: impl IntoIterator<Item = &'a [u8]>) -> Vec<Frame<'a>> {
    let mut frames: Vec<Frame<'a>> = Vec::new();
    let mut awaiting_line = false;
    let lines = lines.into_iter().flat_map(|l| l.split(|&b| b == b'\n'));
    for line in lines {
        let text = line.trim_ascii();
        if text.starts_with(b"File \"") {
            if frames.len() >= MAX_FRAMES {
                break;
            }
            let function = after_last(text, b", in ").unwrap_or_default();
            frames.push(Frame {
                function,
                line: &[],
            });
            awaiting_line = true;
        } else if awaiting_line {
            if let Some(last) = frames.last_mut() {
                last.line = text;
            }
            awaiting_line = false;
        }
    }
    frames
}

/// The text after the last `sep` in `text`.
fn after_last<'a>(text: &'a [u8], sep: &[u8]) -> Option<&'a [u8]> {
    let at = text.windows(sep.len()).rposition(|w| w == sep)?;
    text.get(at.checked_add(sep.len())?..)
}

/// The one submodule `line` calls through `self` (`self.layers[0](x)` gives `layers.0`);
/// `None` if it calls none, or several different ones.
fn called_module(line: &[u8]) -> Option<Vec<u8>> {
    let line = line.get(..line.len().min(MAX_LINE)).unwrap_or_default();
    let mut found: Option<Vec<u8>> = None;
    let mut at = 0;
    while let Some(start) = find(line, b"self.", at) {
        at = start.saturating_add(5);
        let preceded = start
            .checked_sub(1)
            .and_then(|p| line.get(p))
            .is_some_and(|&b| is_ident(b) || b == b'.');
        if preceded {
            continue;
        }
        let Some((chain, end)) = call_chain(line, at) else {
            continue;
        };
        at = end;
        match &found {
            None => found = Some(chain),
            Some(seen) if *seen == chain => {}
            Some(_) => return None,
        }
    }
    found
}

/// The first `needle` in `line` at or after `from`.
fn find(line: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let rest = line.get(from..)?;
    let at = rest.windows(needle.len()).position(|w| w == needle)?;
    from.checked_add(at)
}

/// The attribute chain at `at` (just after `self.`) if it is called, such as `a.b[2]` in
/// `self.a.b[2](x)`, as `a.b.2`, with where it ends.
fn call_chain(line: &[u8], mut at: usize) -> Option<(Vec<u8>, usize)> {
    let mut chain = Vec::new();
    let end = identifier(line, at)?;
    chain.extend_from_slice(line.get(at..end)?);
    at = end;
    loop {
        match line.get(at) {
            Some(b'.') => {
                let start = at.checked_add(1)?;
                let end = identifier(line, start)?;
                chain.push(b'.');
                chain.extend_from_slice(line.get(start..end)?);
                at = end;
            }
            Some(b'[') => {
                let start = at.checked_add(1)?;
                let digits = line.get(start..)?.iter().take_while(|b| b.is_ascii_digit());
                let end = start.checked_add(digits.count())?;
                if end == start || line.get(end) != Some(&b']') {
                    return None;
                }
                chain.push(b'.');
                chain.extend_from_slice(line.get(start..end)?);
                at = end.checked_add(1)?;
            }
            _ => break,
        }
    }
    let spaces = line.get(at..)?.iter().take_while(|&&b| b == b' ').count();
    let open = at.checked_add(spaces)?;
    (line.get(open) == Some(&b'(')).then_some((chain, open))
}

/// The end of the identifier starting at `at`, if one does.
fn identifier(line: &[u8], at: usize) -> Option<usize> {
    let first = *line.get(at)?;
    if !(first.is_ascii_alphabetic() || first == b'_') {
        return None;
    }
    let rest = line.get(at..)?.iter().take_while(|&&b| is_ident(b)).count();
    at.checked_add(rest)
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame<'a>(function: &'a str, line: &'a str) -> Frame<'a> {
        Frame {
            function: function.as_bytes(),
            line: line.as_bytes(),
        }
    }

    fn path(frames: &[Frame<'_>]) -> String {
        String::from_utf8(module_path(frames.iter().copied())).unwrap()
    }

    #[test]
    fn a_stack_gives_the_submodules_called_through_self() {
        let linear = frame("forward", "return F.linear(input, self.weight, self.bias)");
        assert_eq!(
            path(&[frame("forward", "x = self.embed(x)"), linear]),
            "embed"
        );
        let stack = [
            frame("forward", "x = self.layers[0](x)"),
            frame("forward", "h = self.norm(x)"),
            frame("forward", "input = module(input)"),
            linear,
        ];
        assert_eq!(path(&stack), "layers.0.norm");
        let chained = [frame("forward", "y = self.enc.blocks [12] (x)"), linear];
        assert_eq!(path(&[chained[0], linear]), "", "a space inside is no call");
        let chained = [frame("forward", "y = self.enc.blocks[12] (x)"), linear];
        assert_eq!(path(&chained), "enc.blocks.12");
        // The operator's own line says where it is made, not which module it is in.
        assert_eq!(path(&[frame("forward", "return self.head(x)")]), "");
        assert_eq!(path(&[]), "");
    }

    #[test]
    fn what_the_source_does_not_say_is_left_out() {
        let op = frame("forward", "return F.relu(x)");
        let cases = [
            frame("forward", "x = layer(x)"),
            frame("forward", "return x + self.ff(self.norm(x))"),
            frame("_call_impl", "return self.forward(x)"),
            frame("forward", "w = self.weight"),
            frame("forward", "y = myself.embed(x)"),
            frame("forward", "y = self.(x)"),
            frame("forward", "y = self.a[](x)"),
            frame("forward", "y = self.a[x](x)"),
            frame("forward", ""),
        ];
        for case in cases {
            assert_eq!(path(&[case, op]), "", "{case:?}");
        }
        let twice = frame("forward", "x = self.f(self.f(x))");
        assert_eq!(path(&[twice, op]), "f", "the same module twice is one");
    }

    #[test]
    fn hostile_stacks_are_bounded() {
        let long = format!("x = self.{}(x)", "a".repeat(10 * MAX_PATH));
        assert_eq!(path(&[frame("forward", &long), frame("f", "")]), "");
        let call = frame("forward", "x = self.abcdefgh(x)");
        let mut deep = vec![call; 10_000];
        deep.push(frame("forward", "op"));
        let got = path(&deep);
        assert!(got.len() < MAX_PATH, "{}", got.len());
        assert_eq!(got.split('.').count(), MAX_FRAMES - 1);
        let calls = "self.a(".repeat(MAX_LINE);
        assert_eq!(path(&[frame("forward", &calls), frame("f", "")]), "a");
        let bytes = Frame {
            function: b"forward",
            line: b"\xff\xfe self.\xc3(x) self.ok(\x00)",
        };
        assert_eq!(module_path([bytes, bytes]), b"ok");
    }

    #[test]
    fn a_traceback_as_text_gives_its_frames() {
        let strings: [&[u8]; 5] = [
            b"  File \"/m/gen.py\", line 22, in <module>",
            b"    paddle.jit.save(net)",
            b"  File \"/m/gen.py\", line 9, in forward\n    return self.fc(x)",
            b"  File \"x.py\", line 1, in forward",
            b"  File \"\xff\", line 1, in \xfe",
        ];
        let frames = traceback(strings);
        assert_eq!(
            frames,
            [
                frame("<module>", "paddle.jit.save(net)"),
                frame("forward", "return self.fc(x)"),
                frame("forward", ""),
                Frame {
                    function: b"\xfe",
                    line: b""
                }
            ]
        );
        assert_eq!(module_path(frames), b"fc");
        let many = vec![&b"File \"a\", line 1, in f"[..]; 10 * MAX_FRAMES];
        assert_eq!(traceback(many).len(), MAX_FRAMES);
    }
}
