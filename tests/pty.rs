//! The real binary in a pseudo-terminal (via util-linux `script`): `inspect` opens the
//! browser on a terminal, draws it, quits on `q`, and restores the terminal.
#![cfg(target_os = "linux")]

use base64::Engine as _;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Runs `inspect` on the subgraphs fixture in a pseudo-terminal, typing `keys`; `wrap` is a
/// shell prefix for the command (such as `timeout`) and `after` a command run once it ends.
fn run_in_pty(keys: &[u8]) -> (String, bool) {
    run_wrapped_in_pty("", keys, "")
}

fn run_wrapped_in_pty(wrap: &str, keys: &[u8], after: &str) -> (String, bool) {
    run_on_in_pty("tests/fixtures/rten/subgraphs.rten", wrap, keys, after)
}

fn run_on_in_pty(fixture: &str, wrap: &str, keys: &[u8], after: &str) -> (String, bool) {
    let bin = env!("CARGO_BIN_EXE_rtenx");
    // The pseudo-terminal starts at 0x0 when our stdin is a pipe: give it a size first.
    let cmd = format!("stty cols 100 rows 30; {wrap} {bin} inspect --tab graph {fixture}; {after}");
    let mut child = Command::new("script")
        .args(["-qfec", &cmd, "/dev/null"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("TERM", "xterm-256color")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("util-linux `script` runs the binary in a pseudo-terminal");
    let mut stdin = child.stdin.take().unwrap();
    std::thread::sleep(Duration::from_millis(700));
    stdin.write_all(keys).unwrap();
    stdin.flush().unwrap();
    // Wait at most 10 s: a browser that ignores the keys must fail the test, not hang it.
    for _ in 0..100 {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    if child.try_wait().unwrap().is_none() {
        child.kill().unwrap();
    }
    let out = child.wait_with_output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.success(),
    )
}

#[test]
fn inspect_on_a_terminal_opens_the_browser_and_quits_cleanly() {
    let (screen, ok) = run_in_pty(b"jjq");
    assert!(ok, "rtenx did not exit cleanly:\n{screen}");
    assert!(
        screen.contains("\x1b[?1049h"),
        "entered the alternate screen"
    );
    assert!(
        screen.contains("Graph") && screen.contains("operators") && screen.contains("Relu"),
        "drew the Graph view"
    );
    assert!(
        screen.contains("\x1b[?1049l"),
        "left the alternate screen (terminal restored)"
    );
}

#[test]
fn a_signal_restores_the_terminal_before_it_ends_the_browser() {
    // `timeout --foreground` lets the browser read the terminal, then sends SIGTERM; `stty`
    // then prints the modes the browser left behind.
    let (screen, _) = run_wrapped_in_pty(
        "timeout --foreground -s TERM 2",
        b"",
        "echo \" status $?\"; stty -a",
    );
    assert!(screen.contains("status 124"), "SIGTERM ended it:\n{screen}");
    let restored = screen
        .rfind("\x1b[?1049l")
        .expect("left the alternate screen");
    assert!(
        restored
            > screen
                .find("\x1b[?1049h")
                .unwrap_or(usize::MAX)
                .min(restored)
    );
    let modes: Vec<&str> = screen[screen.rfind("status 124").unwrap_or(0)..]
        .split_whitespace()
        .collect();
    for mode in ["icanon", "echo", "isig"] {
        assert!(modes.contains(&mode), "{mode} restored: {modes:?}");
    }
}

#[test]
fn the_neighbourhood_view_is_driven_by_keys_on_a_terminal() {
    // Search for the If, open its neighbourhood, move to its first subgraph box, enter it,
    // leave it with p, and quit.
    let (screen, ok) = run_in_pty(b"/op:If\rvl\rpq");
    assert!(ok, "rtenx did not exit cleanly:\n{screen}");
    assert!(screen.contains("neighbourhood"), "opened the view");
    assert!(screen.contains("then_branch"), "drew the subgraph boxes");
    assert!(
        text_of(&screen).contains("If\"if\"›graph1"),
        "entered the subgraph, with the breadcrumb"
    );
    assert!(screen.contains("\x1b[?1049l"), "terminal restored");
}

#[test]
fn a_scope_opens_and_closes_on_a_terminal() {
    // The GPT-2 export opens on its scope tree with `lm` open: open `lm/transformer` with →,
    // go down to `h.0` (after `wte` and `wpe`), open it, step onto its first subscope, close
    // `h.0` again with ← from there, draw it as one box with `v`, go back to the tree with `b`,
    // and copy the row selected then.
    let rows = |tree: &rtenx::inventory::ScopeTree| {
        let h0 = tree
            .scopes
            .iter()
            .position(|s| s.name.as_str() == Some("h.0"));
        let h0 = h0.expect("a scope h.0") as u32;
        let first = tree
            .children(h0)
            .first()
            .copied()
            .expect("h.0 has subscopes");
        (
            tree.scopes[first as usize].name.display().into_owned(),
            tree.label(h0),
        )
    };
    let fixture = "tests/fixtures/onnx/torch_gpt2/model.onnx";
    let analysis = rtenx::analyze(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(fixture)
            .as_path(),
    )
    .unwrap();
    let (inner, h0) = rows(&rtenx::inventory::ScopeTree::build(&analysis.inventory));
    let (screen, ok) = run_on_in_pty(fixture, "", b"j\x1b[Cjjj\x1b[Cj\x1b[Dvbyq", "");
    assert!(ok, "rtenx did not exit cleanly:\n{screen}");
    let text = text_of(&screen);
    assert!(
        text.contains("scopes·") && text.contains("▸h.0"),
        "drew the tree closed at h.0: {text}"
    );
    assert!(
        text.contains(&format!("▸{inner}")),
        "opened h.0: its subscope {inner} drawn"
    );
    assert!(
        text.contains(&format!("scope{h0}")) && text.contains("link"),
        "v drew h.0 as one box with what crosses its edge: {text}"
    );
    assert!(
        text.rfind("scopes·") > text.rfind(&format!("scope{h0}")),
        "b drew the tree again after the box: {text}"
    );
    let copied = base64::engine::general_purpose::STANDARD.encode(&h0);
    assert!(
        screen.contains(&format!("]52;c;{copied}")),
        "closing from inside h.0 selected it, b came back to it, and y copied {h0}"
    );
    assert!(screen.contains("\x1b[?1049l"), "terminal restored");
}

#[test]
fn inspect_diff_reads_both_models_in_the_background_and_marks_the_change() {
    let fixture = "tests/fixtures/diff/mlp_a.onnx --diff tests/fixtures/diff/mlp_b.onnx";
    let (screen, ok) = run_on_in_pty(fixture, "", b"q", "");
    assert!(ok, "rtenx did not exit cleanly:\n{screen}");
    let text = text_of(&screen);
    // The Relu that became Tanh is in the scope `middle`; `fc1` is unchanged.
    assert!(
        text.contains("~▸middle"),
        "marked the changed scope: {text}"
    );
    assert!(
        text.contains("▸fc1") && !text.contains("~▸fc1"),
        "left fc1 unmarked: {text}"
    );
    assert!(screen.contains("\x1b[?1049l"), "terminal restored");
}

/// The characters written, without escape sequences or spaces: the terminal skips cells that
/// did not change with a cursor move, so the words of a line are not always written side by
/// side.
fn text_of(screen: &str) -> String {
    let mut text = String::new();
    let mut chars = screen.chars();
    while let Some(c) = chars.next() {
        match c {
            // A CSI sequence ends with a letter (or `~`).
            '\x1b' => {
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() || c == '~' {
                        break;
                    }
                }
            }
            c if c.is_whitespace() => {}
            c => text.push(c),
        }
    }
    text
}

/// `inspect FOLDER` on a folder of several models asks which one: the chooser lists them
/// with their formats, `j` moves, Enter opens the model chosen in the browser, `q` quits.
#[test]
fn inspect_on_a_folder_of_several_models_asks_which_one() {
    let (screen, _) = run_on_in_pty("tests/fixtures/hf", "", b"jj\rq", "");
    let words = words(&screen);
    assert!(
        words.contains("tests/fixtures/hf holds 31 model files"),
        "{words}"
    );
    assert!(
        words.contains("HF002-arch-not-in-table/model.safetensors safetensors"),
        "{words}"
    );
    // The third model opens in the browser (q, typed at once, quits while it is read).
    let opening = "Opening ";
    let at = words
        .find(opening)
        .expect("the browser opens the model chosen");
    let opened = &words[at..];
    assert!(
        opened.contains("file tests/fixtures/hf/bad/HF002-quantized-gptq/model.safetensors"),
        "{opened}"
    );
    let (screen, ok) = run_on_in_pty("tests/fixtures/hf", "", b"q", "echo \" status $?\"");
    assert!(
        ok && screen.contains("status 0"),
        "q leaves the chooser: {screen}"
    );
}

/// The words a terminal shows, in the order written: escape sequences (which also move the
/// cursor between words) become spaces.
fn words(screen: &str) -> String {
    let mut text = String::new();
    let mut chars = screen.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // CSI: parameters up to a final byte in @..~.
            if chars.next() == Some('[') {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            text.push(' ');
        } else {
            text.push(c);
        }
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
