//! PyTorch checkpoints written by torch itself (tests/fixtures/pickle, from
//! tests/fixtures/gen/make_pickle_fixtures.py, make_torchscript_constants.py and
//! make_bad_torch_tensors.py): the records of torch's zip are the properties and sections,
//! every storage is where its member's bytes are, each tensor form torch.save writes checks
//! clean, and the tensors torch refuses for their sizes are errors. The pickle machine and the
//! byte ranges torch returns (`tensors.tsv`) are tests/readers/pickles.rs's.

use crate::common;

use rtenx::inventory::SectionKind;
use std::collections::BTreeMap;

fn dir() -> std::path::PathBuf {
    common::fixtures().join("pickle")
}

/// The members of a zip torch wrote, from its central directory: name to (first data byte,
/// size). torch stores every member uncompressed.
fn members(zip: &[u8]) -> BTreeMap<String, (u64, u64)> {
    let u16_at = |at: usize| u64::from(u16::from_le_bytes([zip[at], zip[at + 1]]));
    let u32_at = |at: usize| u64::from(u32::from_le_bytes(zip[at..at + 4].try_into().unwrap()));
    let end = zip.windows(4).rposition(|w| w == b"PK\x05\x06").unwrap();
    let (count, mut at) = (u16_at(end + 10), u32_at(end + 16) as usize);
    let mut members = BTreeMap::new();
    for _ in 0..count {
        assert_eq!(&zip[at..at + 4], b"PK\x01\x02");
        assert_eq!(u16_at(at + 10), 0, "stored");
        let size = u32_at(at + 24);
        let (name_len, extra_len, comment_len) =
            (u16_at(at + 28), u16_at(at + 30), u16_at(at + 32));
        let local = u32_at(at + 42) as usize;
        let name = &zip[at + 46..at + 46 + name_len as usize];
        let data = local as u64 + 30 + u16_at(local + 26) + u16_at(local + 28);
        members.insert(String::from_utf8(name.to_vec()).unwrap(), (data, size));
        at += 46 + (name_len + extra_len + comment_len) as usize;
    }
    members
}

/// torch's records (`version`, `.format_version`, `byteorder`, `.storage_alignment`) are the
/// properties, with the member's text and its offset; every storage's bytes are a
/// `data/<key>` member, 64-byte aligned as `.storage_alignment` says, and lie in a tensor-data
/// section; every tensor lies inside the member of its storage.
#[test]
fn the_records_of_torchs_zip_are_the_properties_and_the_storages_its_members() {
    for file in [
        "state_dict.pt",
        "dtypes.pt",
        "quantized.pt",
        "tensor_forms.pt",
    ] {
        let bytes = std::fs::read(dir().join(file)).unwrap();
        let zip = members(&bytes);
        let analysis = rtenx::analyze(&dir().join(file)).unwrap();
        assert!(
            analysis.findings.is_empty(),
            "{file}: {:?}",
            analysis.findings
        );
        let inv = &analysis.inventory;
        assert_eq!(inv.format.name(), "pytorch", "{file}");
        let root = file.strip_suffix(".pt").unwrap();
        for (record, key) in [
            ("version", "version"),
            (".format_version", "format version"),
            ("byteorder", "byte order"),
            (".storage_alignment", "storage alignment"),
        ] {
            let (start, size) = zip[&format!("{root}/{record}")];
            let text = std::str::from_utf8(&bytes[start as usize..(start + size) as usize])
                .unwrap()
                .trim();
            let property = inv.properties.iter().find(|p| p.key == key).unwrap();
            assert_eq!(
                (property.value.as_str(), property.offset),
                (text, Some(start)),
                "{file}: {record}"
            );
        }
        assert_eq!(
            inv.format_version,
            format!("zip, version {}", {
                let (start, size) = zip[&format!("{root}/version")];
                std::str::from_utf8(&bytes[start as usize..(start + size) as usize])
                    .unwrap()
                    .trim()
                    .to_owned()
            })
        );
        let storages: Vec<(u64, u64)> = (zip.iter())
            .filter(|(name, _)| name.starts_with(&format!("{root}/data/")))
            .map(|(_, &range)| range)
            .collect();
        assert!(!storages.is_empty(), "{file}");
        for &(start, size) in &storages {
            assert_eq!(start % 64, 0, "{file}: storage at {start}");
            // An empty storage (an empty tensor's) has no bytes to show.
            assert!(
                size == 0
                    || inv
                        .sections
                        .iter()
                        .any(|s| s.kind == SectionKind::TensorData
                            && s.range.start <= start
                            && start + size <= s.range.start + s.range.len),
                "{file}: no tensor-data section holds the storage at {start}"
            );
        }
        for t in &inv.tensors {
            let Some(data) = t.data else { continue };
            assert!(
                storages
                    .iter()
                    .any(|&(s, n)| s <= data.offset && data.offset + data.len <= s + n),
                "{file}: {:?} at {data:?} is in no storage",
                t.name
            );
        }
    }
}

/// A legacy checkpoint (`_use_new_zipfile_serialization=False`) is a stream of pickles, not a
/// zip: rtenx names the form and lists the same tensors as the zip of the same state dict.
#[test]
fn a_legacy_checkpoint_lists_the_tensors_of_its_zip_twin() {
    let read = |file: &str| rtenx::analyze(&dir().join(file)).unwrap();
    let (legacy, zip) = (read("state_dict_legacy.pt"), read("state_dict.pt"));
    assert_eq!(legacy.inventory.format_version, "legacy");
    assert!(legacy.findings.is_empty(), "{:?}", legacy.findings);
    let tensors = |a: &rtenx::Analysis| {
        let mut list: Vec<_> = (a.inventory.tensors.iter())
            .map(|t| (t.name.display().into_owned(), t.dtype, t.shape.clone()))
            .collect();
        list.sort_by(|a, b| a.0.cmp(&b.0));
        list
    };
    assert_eq!(tensors(&legacy), tensors(&zip));
}

/// The checkpoints of every tensor form torch.save writes (make_pickle_fixtures.py's
/// `make_torch_tensors`), which torch loads: every dtype (`_rebuild_tensor_v2` and `_v3`),
/// sparse, quantized and meta tensors, Parameters with and without state, tensors of an
/// XLA-like device. None produces a finding, but for `device_numpy.pt`'s NumPy array, which
/// `weights_only=True` refuses unless NumPy's globals are allowed (PT001, a warning).
#[test]
fn every_tensor_form_torch_saves_checks_without_findings() {
    let forms = [
        ("dtypes.pt", &[][..]),
        ("sparse.pt", &[]),
        ("quantized.pt", &[]),
        ("tensor_forms.pt", &[]),
        ("device_tensor.pt", &[]),
        ("device_numpy.pt", &["PT001"]),
    ];
    let mut failures = Vec::new();
    for (file, expected) in forms {
        let analysis = rtenx::analyze(&dir().join(file)).unwrap();
        let codes: Vec<&str> = analysis.findings.iter().map(|f| f.rule.code).collect();
        if codes != expected {
            failures.push(format!("{file}: {:?}", analysis.findings));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A sparse tensor has no bytes of its own: its parts are tensors (held to torch's accessors
/// by `tensors.tsv`), and a metadata entry gives its layout and dense size.
#[test]
fn sparse_tensors_are_their_parts_and_a_metadata_entry() {
    let analysis = rtenx::analyze(&dir().join("sparse.pt")).unwrap();
    let entries: Vec<(String, String)> = (analysis.inventory.metadata.iter())
        .map(|m| (m.key.to_string(), m.value.to_string()))
        .collect();
    let keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["coo", "coo_hybrid", "csr", "csc", "bsr", "bsc"]);
    assert_eq!(
        entries[0].1,
        "torch.sparse_coo tensor of size [3, 4], stored as coo.indices, coo.values"
    );
    assert_eq!(
        entries[5].1,
        "torch.sparse_bsc tensor of size [3, 4], stored as bsc.ccol_indices, bsc.row_indices, bsc.values"
    );
}

/// A file, the findings it must produce as (code, offset, item), and torch's refusal.
type Refused = (
    &'static str,
    &'static [(&'static str, u64, &'static str)],
    &'static str,
);

/// The tensors of `bad/tensor-*.pt` (tests/fixtures/gen/make_bad_torch_tensors.py) that torch
/// refuses for their size, stride, storage offset or storage, with the findings each must
/// produce, as the generator prints them for `bad/manifest.tsv`: (file, [(code, offset,
/// item)], torch.load(weights_only=True)'s refusal).
const REFUSED_TENSORS: &[Refused] = &[
    (
        "PT010-tensor-stride-overflow.pt",
        &[("PT010", 293, "w")],
        "Storage size calculation overflowed with sizes=[4] and strides=[4611686018427387904]",
    ),
    (
        "PT010-tensor-size-overflow.pt",
        &[("PT010", 229, "w"), ("RX008", 229, "w")],
        "Storage size calculation overflowed with sizes=[4611686018427387904] and strides=[1]",
    ),
    (
        "PT010-tensor-numel-overflow.pt",
        &[("PT010", 235, "w"), ("RX008", 235, "w")],
        "numel: integer multiplication overflow",
    ),
    (
        "PT010-tensor-offset-overflow.pt",
        &[("PT010", 293, "w")],
        "Storage size calculation overflowed with sizes=[4] and strides=[1]",
    ),
    (
        "PT010-tensor-v3-stride-overflow.pt",
        &[("PT010", 326, "w")],
        "Storage size calculation overflowed with sizes=[4] and strides=[9223372036854775807]",
    ),
    (
        "PT006-tensor-v3-storage-too-small.pt",
        &[("PT006", 832, "w")],
        "Trying to resize storage that is not resizable",
    ),
    (
        "PT006-tensor-qtensor-storage-too-small.pt",
        &[("PT006", 832, "q")],
        "setStorage: sizes [100], strides [1], storage offset 0, and itemsize 1 requiring a \
         storage size of 100 are out of bounds for storage of size 8",
    ),
    (
        "PT006-tensor-sparse-values-too-small.pt",
        &[("PT006", 1152, "coo.values")],
        "Trying to resize storage that is not resizable",
    ),
];

/// Each tensor torch refuses for its size, stride, storage offset or storage is an error at
/// its rebuild call or its storage, naming the tensor, and nothing else is reported.
#[test]
fn tensors_torch_refuses_for_their_sizes_are_errors() {
    let mut failures = Vec::new();
    for (file, expected, _torch) in REFUSED_TENSORS {
        let analysis = rtenx::analyze(&dir().join("bad").join(file)).unwrap();
        let inv = &analysis.inventory;
        let found: Vec<(&str, Option<u64>, String)> = (analysis.findings.iter())
            .map(|f| {
                let item = match f.item {
                    Some(rtenx::check::Item::Tensor { tensor }) => {
                        inv.tensors[tensor].name.to_string()
                    }
                    _ => "-".to_owned(),
                };
                (f.rule.code, f.offset, item)
            })
            .collect();
        let wanted: Vec<(&str, Option<u64>, String)> = (expected.iter())
            .map(|&(code, offset, item)| (code, Some(offset), item.to_owned()))
            .collect();
        if found != wanted {
            failures.push(format!("{file}: {found:?}, expected {wanted:?}"));
        }
        for (code, _, item) in &found {
            let message = &analysis
                .findings
                .iter()
                .find(|f| f.rule.code == *code)
                .unwrap()
                .message;
            if code.starts_with("PT") && !message.contains(&format!("tensor \"{item}\"")) {
                failures.push(format!(
                    "{file}: {code} does not name tensor {item}: {message}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A TorchScript archive's constants (`constants.pkl`, storages under `constants/`) are listed
/// as tensors named `constants.<i>`, at their bytes: the traced fixture's one constant holds
/// 2.0, 3.0 and 4.0 (tests/fixtures/gen/make_torchscript_constants.py).
#[test]
fn torchscript_constants_are_listed_at_their_bytes() {
    let path = dir().join("traced_constants.pt");
    let analysis = rtenx::analyze(&path).unwrap();
    let constant = (analysis.inventory.tensors.iter())
        .find(|t| t.name.to_string() == "constants.0")
        .expect("constants.0 listed");
    assert_eq!(constant.shape, [3]);
    let data = constant.data.unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let start = data.offset as usize;
    let values: Vec<f32> = bytes[start..start + data.len as usize]
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(values, [2.0, 3.0, 4.0]);
    assert!(!analysis.has_errors(), "{:?}", analysis.findings);
}
