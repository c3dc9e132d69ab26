//! Generated code records the SHA-1 of every source it was made from (`// source PATH sha1
//! HEX`); a source changed without regenerating fails here, so CI needs no flatc. Regenerate
//! with `schema/regen.sh`.

use sha1::{Digest, Sha1};
use std::path::Path;

/// Every file `schema/regen.sh` writes.
const GENERATED: &[&str] = &[
    "src/formats/rten/schema_generated.rs",
    "src/formats/rten/tables_generated.rs",
    "src/formats/executorch/schema/scalar_type_generated.rs",
    "src/formats/executorch/schema/program_generated.rs",
    "src/formats/executorch/schema/flat_tensor_generated.rs",
    "src/formats/executorch/schema/flat_tensor_legacy_generated.rs",
    "src/formats/tflite/schema_generated.rs",
];

#[test]
fn generated_code_is_current_with_its_sources() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut stale = Vec::new();
    for file in GENERATED {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let sources: Vec<(&str, &str)> = (text.lines().take(8))
            .filter_map(|l| l.strip_prefix("// source "))
            .filter_map(|l| l.split_once(" sha1 "))
            .collect();
        assert!(!sources.is_empty(), "{file} records no source");
        for (source, recorded) in sources {
            let bytes = std::fs::read(root.join(source)).unwrap();
            let actual = format!("{:x}", Sha1::digest(&bytes));
            if actual != recorded {
                stale.push(format!("{file}: {source} changed ({recorded} -> {actual})"));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "run schema/regen.sh:\n{}",
        stale.join("\n")
    );
}

/// `.gitattributes` marks every generated file, so that reviews and language statistics
/// leave it out.
#[test]
fn generated_files_are_marked() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let attributes = std::fs::read_to_string(root.join(".gitattributes")).unwrap();
    for file in GENERATED {
        let line = format!("{file} linguist-generated");
        assert!(
            attributes.lines().any(|l| l == line),
            "{file} is not marked"
        );
    }
}
