//! Any bytes, read as Python stack traces by `rtenx::formats::shared::stack`, the code that
//! turns ExecuTorch `stacktrace` frame lists and Paddle `op_callstack` attributes into module
//! paths:
//! - as a Paddle call stack, strings separated by NUL bytes, through `traceback` and then
//!   `module_path`;
//! - as ExecuTorch source lines, each line a frame of `forward`, through `module_path`.
//!
//! Beyond "no panic", it asserts what the module promises: at most `MAX_FRAMES` frames, each
//! a piece of one line of the input, its source line trimmed; a path of at most `MAX_PATH` bytes whose parts
//! are identifiers or (after the first) numbers; frames of a function other than `forward`
//! and the innermost frame's line add nothing.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rtenx::formats::shared::stack::{self, Frame, MAX_FRAMES, MAX_PATH};

fuzz_target!(|data: &[u8]| {
    let frames = stack::traceback(data.split(|&b| b == 0));
    assert!(frames.len() <= MAX_FRAMES, "{} frames", frames.len());
    for f in &frames {
        for text in [f.function, f.line] {
            assert!(inside(text, data), "a frame's text is not the input's");
            assert!(
                !text.contains(&b'\n') && !text.contains(&0),
                "{f:?} spans lines"
            );
        }
        assert_eq!(
            f.line.trim_ascii(),
            f.line,
            "{f:?}: the line is not trimmed"
        );
    }
    check_path(&frames);

    let lines: Vec<Frame<'_>> = data
        .split(|&b| b == b'\n')
        .map(|line| Frame {
            function: b"forward",
            line,
        })
        .collect();
    check_path(&lines);
});

/// The module path of `frames`, checked.
fn check_path(frames: &[Frame<'_>]) {
    let path = stack::module_path(frames.iter().copied());
    assert!(path.len() <= MAX_PATH, "a path of {} bytes", path.len());
    if !path.is_empty() {
        for (i, part) in path.split(|&b| b == b'.').enumerate() {
            let identifier = part
                .first()
                .is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_')
                && part.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_');
            let number = i > 0 && !part.is_empty() && part.iter().all(u8::is_ascii_digit);
            assert!(
                identifier || number,
                "part {i} of {:?}",
                String::from_utf8_lossy(&path)
            );
        }
    }
    // Only the calls of `forward` frames count, and never the innermost frame's line.
    let other = frames.iter().map(|f| Frame {
        function: b"__call__",
        line: f.line,
    });
    assert!(
        stack::module_path(other).is_empty(),
        "a frame of __call__ gave a path"
    );
    if let Some((last, outer)) = frames.split_last() {
        let blank = Frame {
            function: last.function,
            line: b"",
        };
        let without = stack::module_path(outer.iter().copied().chain([blank]));
        assert_eq!(without, path, "the innermost frame's line changed the path");
    }
}

/// True if `part` lies in `whole`.
fn inside(part: &[u8], whole: &[u8]) -> bool {
    let range = whole.as_ptr_range();
    part.is_empty() || (range.start <= part.as_ptr() && part.as_ptr_range().end <= range.end)
}
