//! Recognising an ONNX model, which has no magic number, from its first protobuf fields.

use crate::formats::shared::protobuf::varint;

/// Field numbers of ModelProto and the wire type each must have (0 varint, 2 length).
const KNOWN: &[(u64, u8)] = &[
    (1, 0),
    (2, 2),
    (3, 2),
    (4, 2),
    (5, 0),
    (6, 2),
    (7, 2),
    (8, 2),
    (14, 2),
    (20, 2),
    (25, 2),
    (26, 2),
];

/// True if the file starts like a ModelProto: at least two known ModelProto fields with the
/// right wire types, ir_version or the graph among them. Scanning stops at the 16th field, at
/// the first unknown tag, or at a field that runs past the end, so truncated models and
/// models followed by junk are still recognised (and then reported by the reader).
pub fn looks_like_model(bytes: &[u8]) -> bool {
    let mut pos = 0;
    let mut seen_core = false;
    let mut fields = 0;
    while fields < 16 && pos < bytes.len() {
        let Some(tag) = varint(bytes, &mut pos) else {
            break;
        };
        let (field, wire) = (tag >> 3, (tag & 7) as u8);
        if !KNOWN.contains(&(field, wire)) {
            break;
        }
        let Some(value) = varint(bytes, &mut pos) else {
            break;
        };
        fields += 1;
        seen_core |= field == 1 || field == 7;
        if wire == 2 {
            match usize::try_from(value).ok().and_then(|v| pos.checked_add(v)) {
                Some(end) if end <= bytes.len() => pos = end,
                _ => break,
            }
        }
    }
    seen_core && fields >= 2
}

#[cfg(test)]
mod tests {
    use super::looks_like_model;

    #[test]
    fn recognises_model_headers_and_rejects_other_bytes() {
        // ir_version 8, then a 2-byte producer_name.
        assert!(looks_like_model(&[0x08, 0x08, 0x12, 0x02, b'p', b't']));
        assert!(!looks_like_model(b"RTEN\x02\0\0\0"));
        assert!(
            looks_like_model(&[0x08, 0x08, 0x12, 0x09, b'p']),
            "truncated model"
        );
        assert!(
            looks_like_model(&[0x08, 0x08, 0x12, 0x01, b'p', 0, 0]),
            "junk after it"
        );
        assert!(
            !looks_like_model(&[0x08, 0x08, 0, 0]),
            "one field is not enough"
        );
        assert!(!looks_like_model(&[]));
    }
}
