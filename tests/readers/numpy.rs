//! NumPy files written by `numpy.save` and `numpy.savez` (tests/fixtures/pickle, from
//! tests/fixtures/gen/make_pickle_fixtures.py), held to the `.npy` format itself: each
//! header is parsed here as NEP 1 defines it, and rtenx's tensor is the array it describes,
//! its data right after the header and to the end of the file (or member). tests/readers/pickles.rs
//! holds the byte ranges numpy returned (`tensors.tsv`); tests/hostile.rs the hostile files.

use crate::common;

use rtenx::inventory::{DType, Inventory};
use std::path::PathBuf;

fn pickle_dir(name: &str) -> PathBuf {
    common::fixtures().join("pickle").join(name)
}

/// What a `.npy` header says: its `descr`, `fortran_order` and `shape`, and where the data
/// starts (the header's end).
#[derive(Debug)]
struct Header {
    descr: String,
    fortran_order: bool,
    shape: Vec<u64>,
    data_start: usize,
}

/// Parses the header at the start of `bytes`: magic, version, header length (2 bytes in 1.0,
/// 4 in 2.0 and 3.0), then a Python dict literal padded with spaces to a newline.
fn header(bytes: &[u8]) -> Header {
    assert_eq!(&bytes[..6], b"\x93NUMPY");
    let (len, text_at) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        _ => (
            u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize,
            12,
        ),
    };
    let text = std::str::from_utf8(&bytes[text_at..text_at + len]).unwrap();
    let value = |key: &str| {
        let rest = &text[text.find(&format!("'{key}': ")).unwrap() + key.len() + 4..];
        rest.to_owned()
    };
    let descr = value("descr");
    let descr = if let Some(quoted) = descr.strip_prefix('\'') {
        quoted[..quoted.find('\'').unwrap()].to_owned()
    } else {
        // A structured type: a list up to the `, 'fortran_order'` that follows it.
        descr[..descr.find(", 'fortran_order'").unwrap()].to_owned()
    };
    let shape = value("shape");
    let shape = shape[1..shape.find(')').unwrap()]
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| d.parse().unwrap())
        .collect();
    Header {
        descr,
        fortran_order: value("fortran_order").starts_with("True"),
        shape,
        data_start: text_at + len,
    }
}

/// The type rtenx gives a plain `descr`; `None` for those it reads as bytes (strings,
/// structured types, objects).
fn dtype(descr: &str) -> Option<DType> {
    Some(match &descr[1..] {
        "f8" => DType::F64,
        "f4" => DType::F32,
        "i2" => DType::I16,
        "i8" => DType::I64,
        "b1" => DType::Bool,
        "c8" => DType::Complex64,
        _ => return None,
    })
}

fn property<'a>(inv: &'a Inventory, key: &str) -> &'a str {
    let p = inv.properties.iter().find(|p| p.key == key).unwrap();
    p.value.as_str()
}

/// Every `.npy` file numpy.save wrote, with the analysis rtenx makes of it.
fn npy_files() -> Vec<(String, Vec<u8>, rtenx::Analysis)> {
    let mut names: Vec<String> = std::fs::read_dir(pickle_dir(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".npy"))
        .collect();
    names.sort();
    assert!(names.len() >= 10, "{names:?}");
    names
        .into_iter()
        .map(|n| {
            let path = pickle_dir(&n);
            let analysis = rtenx::analyze(&path).unwrap();
            (n, std::fs::read(&path).unwrap(), analysis)
        })
        .collect()
}

#[test]
fn each_npy_file_is_one_tensor_where_its_header_says() {
    for (name, bytes, analysis) in npy_files() {
        let h = header(&bytes);
        let inv = &analysis.inventory;
        assert_eq!(inv.format.name(), "numpy", "{name}");
        let version = format!("npy {}.{}", bytes[6], bytes[7]);
        assert_eq!(inv.format_version, version, "{name}");
        assert_eq!(property(inv, "descr"), h.descr, "{name}");
        assert_eq!(
            property(inv, "fortran_order"),
            h.fortran_order.to_string(),
            "{name}"
        );
        let [tensor] = &inv.tensors[..] else {
            panic!("{name}: {:?}", inv.tensors)
        };
        // A lone array is named after its file.
        assert_eq!(tensor.name.as_str(), Some(name.as_str()));
        assert_eq!(tensor.shape, h.shape, "{name}");
        assert_eq!(tensor.elements, Some(h.shape.iter().product()), "{name}");
        assert_eq!(tensor.dtype, dtype(&h.descr), "{name}");
        if h.descr == "|O" {
            // An object array's data is a pickle, no tensor bytes.
            assert_eq!(tensor.data, None, "{name}");
        } else {
            // The array's bytes follow the header to the end of the file.
            let data = tensor.data.unwrap();
            assert_eq!(data.offset, h.data_start as u64, "{name}");
            assert_eq!(data.offset + data.len, bytes.len() as u64, "{name}");
        }
        assert_eq!(
            inv.big_endian.contains(&0),
            h.descr.starts_with('>'),
            "{name}"
        );
    }
}

#[test]
fn only_the_object_array_has_a_finding_and_it_says_why() {
    for (name, _, analysis) in npy_files() {
        let codes: Vec<&str> = analysis.findings.iter().map(|f| f.rule.code).collect();
        if name == "object.npy" {
            assert_eq!(codes, ["NP002"], "{name}");
            let message = &analysis.findings[0].message;
            assert!(message.contains("allow_pickle"), "{message}");
        } else {
            assert!(codes.is_empty(), "{name}: {codes:?}");
        }
    }
}

/// The stored members of an archive `numpy.savez` wrote, found from their local headers:
/// (key, where the member's `.npy` bytes start, how many there are).
fn stored_members(zip: &[u8]) -> Vec<(String, usize, usize)> {
    let u16_at = |at: usize| u16::from_le_bytes([zip[at], zip[at + 1]]) as usize;
    let u32_at = |at: usize| u32::from_le_bytes(zip[at..at + 4].try_into().unwrap()) as usize;
    let mut members = Vec::new();
    let mut at = 0;
    while zip[at..].starts_with(b"PK\x03\x04") {
        assert_eq!(u16_at(at + 8), 0, "stored, not deflated");
        let (name_len, extra_len) = (u16_at(at + 26), u16_at(at + 28));
        let name = std::str::from_utf8(&zip[at + 30..at + 30 + name_len]).unwrap();
        let data = at + 30 + name_len + extra_len;
        // numpy.savez writes the sizes in the local header, or 0xFFFFFFFF and a zip64 extra.
        let size = match u32_at(at + 22) {
            0xFFFF_FFFF => {
                u64::from_le_bytes(zip[at + 34 + name_len..][..8].try_into().unwrap()) as usize
            }
            size => size,
        };
        let key = name.strip_suffix(".npy").unwrap();
        members.push((key.to_owned(), data, size));
        at = data + size;
    }
    members
}

#[test]
fn an_npz_member_is_a_tensor_named_by_its_key_at_its_bytes() {
    let bytes = std::fs::read(pickle_dir("arrays.npz")).unwrap();
    let analysis = rtenx::analyze(&pickle_dir("arrays.npz")).unwrap();
    assert!(analysis.findings.is_empty(), "{:?}", analysis.findings);
    let inv = &analysis.inventory;
    let members = stored_members(&bytes);
    assert_eq!(
        members.iter().map(|m| m.0.as_str()).collect::<Vec<_>>(),
        ["weight", "bias", "ids"]
    );
    assert_eq!(inv.tensors.len(), members.len());
    for (key, start, size) in members {
        let npy = &bytes[start..start + size];
        let h = header(npy);
        let tensor = inv
            .tensors
            .iter()
            .find(|t| t.name.as_str() == Some(key.as_str()))
            .unwrap_or_else(|| panic!("no tensor {key}"));
        assert_eq!(tensor.shape, h.shape, "{key}");
        assert_eq!(tensor.dtype, dtype(&h.descr), "{key}");
        let data = tensor.data.unwrap();
        assert_eq!(data.offset, (start + h.data_start) as u64, "{key}");
        assert_eq!(data.offset + data.len, (start + size) as u64, "{key}");
    }
}

#[test]
fn a_compressed_npz_has_the_same_tensors_as_a_stored_one() {
    let read = |name: &str| rtenx::analyze(&pickle_dir(name)).unwrap();
    let (stored, compressed) = (read("arrays.npz"), read("arrays_compressed.npz"));
    assert!(compressed.findings.is_empty(), "{:?}", compressed.findings);
    let tensors = |a: &rtenx::Analysis| {
        a.inventory
            .tensors
            .iter()
            .map(|t| (t.name.display().into_owned(), t.dtype, t.shape.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(tensors(&compressed), tensors(&stored));
}
