//! Zip archives whose members inflate to far more than the file: every member is inflated at
//! most once and only within the model's budget (its size plus 64 MiB), so the work stops when
//! the budget does, whatever the number of members. Measured on the binary as a child process.
#![cfg(target_os = "linux")]

mod common;

/// A zip of `count` deflated members named `prefix{i}.pkl`, each `body` deflated.
fn zip_of(prefix: &str, count: usize, body: &[u8]) -> Vec<u8> {
    let deflated = miniz_oxide::deflate::compress_to_vec(body, 9);
    let crc = 0u32; // rtenx checks no CRC; a loader would refuse the file anyway.
    let mut out = Vec::new();
    let mut central = Vec::new();
    for i in 0..count {
        let name = format!("{prefix}{i}.pkl");
        let offset = out.len() as u32;
        let header = |sig: &[u8], out: &mut Vec<u8>, central_entry: bool| {
            out.extend_from_slice(sig);
            if central_entry {
                out.extend_from_slice(&20u16.to_le_bytes());
            }
            out.extend_from_slice(&20u16.to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes()); // flags
            out.extend_from_slice(&8u16.to_le_bytes()); // deflate
            out.extend_from_slice(&[0; 4]); // time, date
            out.extend_from_slice(&crc.to_le_bytes());
            out.extend_from_slice(&(deflated.len() as u32).to_le_bytes());
            out.extend_from_slice(&(body.len() as u32).to_le_bytes());
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes()); // extra
            if central_entry {
                out.extend_from_slice(&[0; 8]); // comment, disk, attributes
                out.extend_from_slice(&[0; 4]); // external attributes
                out.extend_from_slice(&offset.to_le_bytes());
            }
            out.extend_from_slice(name.as_bytes());
        };
        header(b"PK\x03\x04", &mut out, false);
        out.extend_from_slice(&deflated);
        header(b"PK\x01\x02", &mut central, true);
    }
    let directory = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
    out.extend_from_slice(&(count as u16).to_le_bytes());
    out.extend_from_slice(&(count as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&directory.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// 400 deflated members of 32 MB each (a pickle of 16M opcodes), 12.8 GB in all from a 13 MB
/// file, in a plain zip and in a PyTorch archive, where every member that is a pickle is
/// judged: the first fills the budget, and the others are not inflated past it.
#[test]
fn members_that_inflate_past_the_budget_are_not_inflated() {
    let mut body = b"\x80\x02".to_vec();
    body.extend(std::iter::repeat_n(*b"N0", 16 << 20).flatten());
    let dir = tempfile::tempdir().unwrap();
    for (name, prefix) in [("bomb.zip", "member"), ("bomb.pt", "archive/data")] {
        let path = dir.path().join(name);
        std::fs::write(&path, zip_of(prefix, 400, &body)).unwrap();
        let run = common::bounded::run(&["check", "--format", "json", path.to_str().unwrap()]);
        run.assert_bounded(name);
    }
}
