//! What a DSSE signature signs: the pre-authentication encoding of the payload
//! (../shared/reference/signing.md, "PAE").

/// The payload type `model_signing` puts into the PAE, whatever the envelope says.
pub const IN_TOTO_PAYLOAD_TYPE: &str = "application/vnd.in-toto+json";

/// DSSE v1.0's PAE: `"DSSEv1" SP len(type) SP type SP len(body) SP body`.
pub fn pae(payload: &[u8]) -> Vec<u8> {
    let mut out = header("DSSEv1", payload.len());
    out.extend_from_slice(payload);
    out
}

/// The PAE `model_signing` 0.2.0 signed, which 1.x still accepts: `DSSEV1`, and the body
/// as Python's `repr` of the payload bytes (`b'...'`), the bytes formatted into a string.
pub fn pae_compat(payload: &[u8]) -> Vec<u8> {
    let mut out = header("DSSEV1", payload.len());
    python_bytes_repr(payload, &mut out);
    out
}

fn header(magic: &str, len: usize) -> Vec<u8> {
    let ty = IN_TOTO_PAYLOAD_TYPE;
    format!("{magic} {} {ty} {len} ", ty.len()).into_bytes()
}

/// `repr(bytes)` as CPython writes it: single quotes unless the bytes hold `'` and no `"`.
fn python_bytes_repr(bytes: &[u8], out: &mut Vec<u8>) {
    let quote = if bytes.contains(&b'\'') && !bytes.contains(&b'"') {
        b'"'
    } else {
        b'\''
    };
    out.push(b'b');
    out.push(quote);
    for &b in bytes {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ if b == quote => out.extend_from_slice(&[b'\\', b]),
            0x20..=0x7e => out.push(b),
            _ => out.extend_from_slice(format!("\\x{b:02x}").as_bytes()),
        }
    }
    out.push(quote);
}

#[cfg(test)]
mod tests {
    use super::*;

    // Vectors printed by model_signing 1.1.1's `sign_sigstore_pb.pae` and `pae_compat`.
    const PAYLOAD: &[u8] = b"{\"a\": \"it's\"}\n\t\x00\xff\\";

    #[test]
    fn pae_is_dsse_v1() {
        let want = b"DSSEv1 28 application/vnd.in-toto+json 18 {\"a\": \"it's\"}\n\t\x00\xff\\";
        assert_eq!(pae(PAYLOAD), want);
    }

    #[test]
    fn pae_compat_is_the_python_repr() {
        let want = br#"DSSEV1 28 application/vnd.in-toto+json 18 b'{"a": "it\'s"}\n\t\x00\xff\\'"#;
        assert_eq!(pae_compat(PAYLOAD), want);
        let want = br#"DSSEV1 28 application/vnd.in-toto+json 3 b'x"y'"#;
        assert_eq!(pae_compat(b"x\"y"), want);
        let want = br#"DSSEV1 28 application/vnd.in-toto+json 3 b"x'y""#;
        assert_eq!(pae_compat(b"x'y"), want);
    }
}
