//! `rtenx sbom` writes CycloneDX 1.6 JSON that the official schema accepts
//! (tests/fixtures/cyclonedx, copied from cyclonedx-python-lib), with what each model's
//! inventory and metadata say.

use crate::common;

use common::rtenx;
use serde_json::Value;
use std::path::Path;

/// The SPDX and JSF schemas the CycloneDX schema refers to, served from the committed copies:
/// nothing is fetched.
struct Committed(std::collections::HashMap<String, Value>);

impl jsonschema::Retrieve for Committed {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let found = self.0.get(uri.as_str()).cloned();
        found.ok_or_else(|| format!("{uri} is not committed").into())
    }
}

/// The official CycloneDX 1.6 schema, with the SPDX and JSF schemas it refers to.
fn cyclonedx() -> jsonschema::Validator {
    let dir = common::fixtures().join("cyclonedx");
    let load = |name: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap()
    };
    let referenced = ["spdx.SNAPSHOT.schema.json", "jsf-0.82.SNAPSHOT.schema.json"]
        .map(|name| (format!("http://cyclonedx.org/schema/{name}"), load(name)));
    jsonschema::draft7::options()
        .with_retriever(Committed(referenced.into_iter().collect()))
        .build(&load("bom-1.6.SNAPSHOT.schema.json"))
        .unwrap()
}

fn assert_valid(doc: &Value) {
    let validator = cyclonedx();
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

/// A safetensors file whose `__metadata__` is a small model card.
fn safetensors_with_card(path: &Path) {
    let mut header = r#"{"__metadata__":{"license":"apache-2.0","name":"tiny card","author":"rtenx tests","description":"two floats"},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#.to_owned();
    while header.len() % 8 != 0 {
        header.push(' ');
    }
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend_from_slice(&[0; 8]);
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn the_sbom_of_every_format_validates_against_cyclonedx_1_6() {
    let dir = tempfile::tempdir().unwrap();
    let card = dir.path().join("card.safetensors");
    safetensors_with_card(&card);
    let (out, err, code) = rtenx(&[
        "sbom",
        "tests/fixtures/rten/mlp.rten",
        "tests/fixtures/onnx/external_one_file/model.onnx",
        "tests/fixtures/gguf/llama.gguf",
        "tests/fixtures/executorch/external",
        "tests/fixtures/ci-repo/models",
        card.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_valid(&doc);
    assert_eq!(doc["specVersion"], "1.6");
    let components = doc["components"].as_array().unwrap();
    let models: Vec<&Value> = components
        .iter()
        .filter(|c| c["type"] == "machine-learning-model")
        .collect();
    assert_eq!(models.len(), 1 + 1 + 1 + 1 + 4 + 1);
    let property = |c: &Value, name: &str| {
        let all = c["properties"].as_array().unwrap();
        let found = all.iter().find(|p| p["name"] == name);
        found.map(|p| p["value"].as_str().unwrap().to_owned())
    };
    // The RTen MLP: its format, parameters, dtypes, inputs and outputs.
    let mlp = models[0];
    assert_eq!(mlp["name"], "mlp.rten");
    assert_eq!(property(mlp, "rtenx:format").as_deref(), Some("rten"));
    let inventory = rtenx::analyze(&common::fixtures().join("rten/mlp.rten"))
        .unwrap()
        .inventory;
    let parameters = inventory.totals().parameters.to_string();
    assert_eq!(property(mlp, "rtenx:parameters"), Some(parameters));
    assert_eq!(property(mlp, "rtenx:dtypes").as_deref(), Some("f32"));
    let inputs = mlp["modelCard"]["modelParameters"]["inputs"]
        .as_array()
        .unwrap();
    assert_eq!(inputs.len(), inventory.graphs[0].inputs.len());
    assert!(
        inputs[0]["format"].as_str().unwrap().contains("f32"),
        "{inputs:?}"
    );
    let hash = mlp["hashes"][0]["content"].as_str().unwrap();
    assert_eq!(hash.len(), 64);
    // The ONNX model depends on its external data file, which has its own hash.
    let onnx = models[1];
    let deps = doc["dependencies"].as_array().unwrap();
    let onnx_deps = deps.iter().find(|d| d["ref"] == onnx["bom-ref"]).unwrap();
    let data_ref = onnx_deps["dependsOn"][0].as_str().unwrap();
    assert!(data_ref.ends_with("weights.data"), "{data_ref}");
    let data = components
        .iter()
        .find(|c| c["bom-ref"] == data_ref)
        .unwrap();
    assert_eq!(data["type"], "data");
    assert_eq!(data["hashes"][0]["alg"], "SHA-256");
    // GGUF metadata: the name and architecture.
    let gguf = models[2];
    assert_eq!(gguf["name"], "rtenx tiny llama (fixture)");
    assert_eq!(
        gguf["modelCard"]["modelParameters"]["architectureFamily"],
        "llama"
    );
    // The ExecuTorch program depends on the .ptd beside it.
    let pte = models[3];
    let pte_deps = deps.iter().find(|d| d["ref"] == pte["bom-ref"]).unwrap();
    assert!(pte_deps["dependsOn"][0].as_str().unwrap().ends_with(".ptd"));
    // The safetensors model card: license, name, author and description.
    let card = models[8];
    assert_eq!(card["name"], "tiny card");
    assert_eq!(card["licenses"][0]["license"]["name"], "apache-2.0");
    assert_eq!(card["authors"][0]["name"], "rtenx tests");
    assert_eq!(card["description"], "two floats");
}

#[test]
fn an_unreadable_path_is_exit_2_and_the_rest_is_listed() {
    let (out, err, code) = rtenx(&["sbom", "tests/fixtures/rten/mlp.rten", "missing.onnx"]);
    assert_eq!(code, 2);
    assert!(err.contains("missing.onnx"), "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["components"].as_array().unwrap().len(), 1);
}

/// A model whose loading runs code carries the verdict: properties and a vulnerability that
/// affects it; a model named twice, and a data file two models share, keep bom-refs unique.
#[test]
fn the_sbom_carries_the_verdict_and_unique_refs() {
    let hostile = "tests/fixtures/pickle/bad/PK001-global-os-system.pkl";
    let (out, _, code) = rtenx(&[
        "sbom",
        hostile,
        hostile,
        "tests/fixtures/pickle/checkpoint.pth",
    ]);
    assert_eq!(code, 0);
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_valid(&doc);
    let refs: Vec<&str> = (doc["components"].as_array().unwrap().iter())
        .map(|c| c["bom-ref"].as_str().unwrap())
        .collect();
    let unique: std::collections::BTreeSet<&&str> = refs.iter().collect();
    assert_eq!(unique.len(), refs.len(), "{refs:?}");
    let vulnerabilities = doc["vulnerabilities"].as_array().unwrap();
    assert_eq!(
        vulnerabilities.len(),
        2,
        "one per listing of the hostile file"
    );
    let first = &vulnerabilities[0];
    assert!(first["description"].as_str().unwrap().contains("os.system"));
    assert_eq!(first["affects"][0]["ref"], refs[0]);
    let property = |component: &Value, name: &str| {
        (component["properties"].as_array().unwrap().iter())
            .find(|p| p["name"] == name)
            .map(|p| p["value"].clone())
    };
    let components = doc["components"].as_array().unwrap();
    assert_eq!(
        property(&components[0], "rtenx:loading-runs-code"),
        Some("true".into())
    );
    assert_eq!(
        property(&components[2], "rtenx:loading-runs-code"),
        Some("false".into())
    );
}

/// Issue 39: the bom-refs and paths of a model and its data files named the build machine's
/// folders. The same models in two folders give the same BOM, with no absolute path in it.
#[test]
fn the_sbom_names_files_relative_to_the_root_the_same_on_every_machine() {
    let boms: Vec<String> = (0..2)
        .map(|_| {
            let dir = tempfile::tempdir().unwrap();
            let models = dir.path().join("models");
            std::fs::create_dir(&models).unwrap();
            for name in ["model.onnx", "weights.data"] {
                let from = common::fixtures().join("onnx/external_one_file").join(name);
                std::fs::copy(from, models.join(name)).unwrap();
            }
            let (out, err, code) = common::rtenx_in(dir.path(), &["sbom", "models"]);
            assert_eq!(code, 0, "{err}");
            let shown = dir.path().display().to_string();
            assert!(!out.contains(&shown), "{out}");
            // From elsewhere, with --root: the same names.
            let root = dir.path().to_str().unwrap();
            let (elsewhere, _, _) = rtenx(&["sbom", "--root", root, &format!("{root}/models")]);
            assert_eq!(elsewhere, out);
            out
        })
        .collect();
    assert_eq!(boms[0], boms[1]);
    let doc: Value = serde_json::from_str(&boms[0]).unwrap();
    let refs: Vec<&str> = (doc["components"].as_array().unwrap().iter())
        .map(|c| c["bom-ref"].as_str().unwrap())
        .collect();
    assert_eq!(
        refs,
        ["model:models/model.onnx", "data:models/weights.data"]
    );
}

/// The `rtenx:signature:*` properties of the first model of `rtenx sbom ARGS`, and its
/// external references; the document validates.
fn signed_model(args: &[&str]) -> (Vec<(String, String)>, Value) {
    let (out, err, code) = rtenx(&[&["sbom"], args].concat());
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_valid(&doc);
    let model = &doc["components"][0];
    let properties = (model["properties"].as_array().unwrap().iter())
        .filter_map(|p| {
            let name = p["name"].as_str()?.strip_prefix("rtenx:signature:")?;
            Some((name.to_owned(), p["value"].as_str()?.to_owned()))
        })
        .collect();
    (properties, model["externalReferences"].clone())
}

#[test]
fn the_sbom_records_the_signature_and_says_verified_only_when_it_was() {
    let signed = "tests/fixtures/signing/cases/key-p256-safetensors/model";
    let key = "tests/fixtures/signing/material/p256.pub.pem";
    let (properties, references) = signed_model(&[signed, "--public-key", key]);
    let value = |properties: &[(String, String)], name: &str| {
        let found = properties.iter().find(|(n, _)| n == name);
        found.map(|(_, v)| v.clone()).unwrap_or_default()
    };
    assert_eq!(value(&properties, "status"), "verified", "{properties:?}");
    assert_eq!(
        value(&properties, "signer"),
        "key SHA256:e5c9427f8c8951b3466ebfae9ccd59a488c94daac1948863f91bc3bd2a19f7f9"
    );
    assert_eq!(value(&properties, "algorithm"), "ECDSA P-256");
    assert_eq!(value(&properties, "hashing"), "files sha256");
    assert_eq!(value(&properties, "files"), "2");
    assert_eq!(value(&properties, "file"), format!("{signed}/model.sig"));
    let reference = &references[0];
    assert_eq!(reference["type"], "digital-signature");
    assert_eq!(reference["url"], format!("{signed}/model.sig").as_str());
    assert_eq!(reference["hashes"][0]["alg"], "SHA-256");
    assert_eq!(
        reference["hashes"][0]["content"].as_str().unwrap().len(),
        64
    );
    // Without a key: the files match, nothing more is claimed.
    let (properties, _) = signed_model(&[signed]);
    assert_eq!(value(&properties, "status"), "integrity-only");
    assert!(value(&properties, "signer").starts_with("unsigned key hint "));
    // Tampered: failed, and why.
    let tampered = "tests/fixtures/signing/cases/tamper-safetensors-config/model";
    let (properties, _) = signed_model(&[tampered, "--public-key", key]);
    assert_eq!(value(&properties, "status"), "failed");
    assert!(
        value(&properties, "reason").contains("config.json"),
        "{properties:?}"
    );
    // An unsigned folder: none, and no reference.
    let (properties, references) = signed_model(&["tests/fixtures/safetensors/hf_repo"]);
    assert_eq!(value(&properties, "status"), "none");
    assert!(references.is_null(), "{references}");
}
