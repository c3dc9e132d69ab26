//! The real binary in a pseudo-terminal (via util-linux `script`): `inspect` opens the
//! browser on a terminal, draws it, quits on `q`, and restores the terminal.
#![cfg(target_os = "linux")]

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

fn run_in_pty(keys: &[u8]) -> (String, bool) {
    let bin = env!("CARGO_BIN_EXE_rtenx");
    // The pseudo-terminal starts at 0x0 when our stdin is a pipe: give it a size first.
    let cmd = format!(
        "stty cols 100 rows 30; {bin} inspect --tab graph tests/fixtures/rten/subgraphs.rten"
    );
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
        screen.contains("Graph") && screen.contains("loop_scale"),
        "drew the Graph view"
    );
    assert!(
        screen.contains("\x1b[?1049l"),
        "left the alternate screen (terminal restored)"
    );
}
