//! `rtenx sbom`: a CycloneDX 1.6 bill of materials for models (an ML-BOM), built from the
//! inventory alone. Each model is a `machine-learning-model` component with its SHA-256,
//! format and version, parameter count, element types, inputs and outputs (the model card),
//! and the license, name, description, version, author and architecture its metadata states;
//! each data file is a `data` component the model depends on, listed once however many models
//! share it. A model whose loading imports or runs code beyond rebuilding data (an unsafe
//! pickle import, TorchScript source) says so in its properties and in a vulnerability that
//! affects it, so that a BOM consumer sees the verdict without running rtenx. A model in a
//! signed folder records its OpenSSF signature and that signature's status. Files are named
//! relative to a root folder (`..` where they are outside it), never by the absolute paths of
//! the machine that made the BOM.

use crate::inventory::display::{dtype_text, shape_text};
use crate::inventory::signature::Signature;
use crate::inventory::{Graph, Import, Inventory, NodeId, NodeKind};
use crate::report::{FileHash, Root};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::Path;

/// Metadata entries copied into a model card's properties, at most.
const METADATA_LIMIT: usize = 256;

/// One model to list.
pub struct Model<'a> {
    /// The model as read.
    pub inventory: &'a Inventory,
    /// SHA-256 of the model and of each data file that exists.
    pub hashes: &'a [FileHash],
}

/// The CycloneDX 1.6 JSON document for `models`, with paths relative to `root`.
pub fn document(models: &[Model], root: &Root) -> Value {
    let mut components = Vec::new();
    let mut dependencies = Vec::new();
    let mut vulnerabilities = Vec::new();
    let mut refs = BTreeSet::new();
    for model in models {
        let inv = model.inventory;
        let hash = |path: &Path| {
            let found = model.hashes.iter().find(|h| h.path == path);
            found.map(|h| json!([{ "alg": "SHA-256", "content": h.sha256 }]))
        };
        let main = inv.main_file();
        let model_ref = unique(&mut refs, format!("model:{}", root.relative(&main.path)));
        let mut component = model_component(inv, &model_ref, root);
        if let Some(vulnerability) = runs_code(inv, &model_ref) {
            vulnerabilities.push(vulnerability);
        }
        if let Some(hashes) = hash(&main.path) {
            component["hashes"] = hashes;
        }
        components.push(component);
        let mut data_refs = Vec::new();
        for data in inv.files.iter().skip(1) {
            let path = root.relative(&data.path);
            let data_ref = format!("data:{path}");
            if data_refs.contains(&data_ref) {
                continue;
            }
            data_refs.push(data_ref.clone());
            // A data file several models share is one component.
            if !refs.insert(data_ref.clone()) {
                continue;
            }
            let mut component = json!({
                "type": "data",
                "bom-ref": data_ref,
                "name": file_name(&data.path),
                "properties": [property("rtenx:path", path)],
            });
            if let Some(hashes) = hash(&data.path) {
                component["hashes"] = hashes;
            }
            components.push(component);
        }
        dependencies.push(json!({ "ref": model_ref, "dependsOn": data_refs }));
    }
    let mut bom = json!({
        "bomFormat": "CycloneDX",
        "specVersion": "1.6",
        "version": 1,
        "metadata": { "tools": { "components": [{
            "type": "application",
            "name": "rtenx",
            "version": env!("CARGO_PKG_VERSION"),
        }]}},
        "components": components,
        "dependencies": dependencies,
    });
    if !vulnerabilities.is_empty() {
        bom["vulnerabilities"] = json!(vulnerabilities);
    }
    bom
}

/// `wanted`, or with `#2`, `#3`... if an earlier component took it (a model named twice).
fn unique(refs: &mut BTreeSet<String>, wanted: String) -> String {
    let mut candidate = wanted.clone();
    let mut n = 1;
    while !refs.insert(candidate.clone()) {
        n += 1;
        candidate = format!("{wanted}#{n}");
    }
    candidate
}

/// The vulnerability of a model whose loading imports or runs more than data-rebuilding code,
/// with what it imports; `None` if it imports nothing of the kind.
fn runs_code(inv: &Inventory, model_ref: &str) -> Option<Value> {
    let risky: Vec<&Import> = risky(inv).collect();
    let first = risky.first()?;
    let names: Vec<String> = (risky.iter().take(20))
        .map(|i| i.name.display().into_owned())
        .collect();
    let more = risky.len().saturating_sub(names.len());
    let mut what = names.join(", ");
    if more > 0 {
        what.push_str(&format!(" and {more} more"));
    }
    Some(json!({
        "bom-ref": format!("loading-runs-code:{model_ref}"),
        "id": "rtenx-loading-runs-code",
        "source": { "name": "rtenx" },
        "ratings": [{ "source": { "name": "rtenx" }, "severity": "critical", "method": "other" }],
        "description": format!("Loading this model imports or runs code beyond rebuilding data: {what}"),
        "detail": format!("rtenx check names each import and the byte that makes it (first: {} at byte {}); `rtenx explain PK001` says why.", first.name.display(), first.offset),
        "affects": [{ "ref": model_ref }],
    }))
}

/// The imports of `inv` whose loading runs code.
fn risky(inv: &Inventory) -> impl Iterator<Item = &Import> {
    inv.imports.iter().filter(|i| i.trust.runs_code())
}

/// The component of one model.
fn model_component(inv: &Inventory, bom_ref: &str, root: &Root) -> Value {
    let card = Card::of(inv);
    let totals = inv.totals();
    let dtypes: BTreeSet<&str> = inv.tensors.iter().map(|t| dtype_text(t.dtype)).collect();
    let dtypes: Vec<&str> = dtypes.into_iter().collect();
    let main = inv.main_file();
    let mut properties = vec![
        property("rtenx:path", root.relative(&main.path)),
        property("rtenx:format", inv.format.name()),
        property("rtenx:parameters", totals.parameters),
        property("rtenx:tensors", totals.tensors),
        property("rtenx:dtypes", dtypes.join(", ")),
    ];
    if !inv.format_version.is_empty() {
        properties.insert(2, property("rtenx:format-version", &inv.format_version));
    }
    let risky = risky(inv).count();
    if !inv.imports.is_empty() {
        properties.push(property("rtenx:loading-runs-code", risky > 0));
        properties.push(property("rtenx:unsafe-imports", risky));
    }
    let mut parameters = json!({
        "inputs": values(inv, |g| &g.inputs),
        "outputs": values(inv, |g| &g.outputs),
    });
    if let Some(architecture) = &card.architecture {
        parameters["architectureFamily"] = json!(architecture);
    }
    let mut component = json!({
        "type": "machine-learning-model",
        "bom-ref": bom_ref,
        "name": card.name.clone().unwrap_or_else(|| file_name(&main.path)),
        "properties": properties,
        "modelCard": { "modelParameters": parameters, "properties": card.properties },
    });
    if let Some(version) = card.version {
        component["version"] = json!(version);
    }
    if let Some(description) = card.description {
        component["description"] = json!(description);
    }
    if let Some(license) = card.license {
        component["licenses"] = json!([{ "license": { "name": license } }]);
    }
    if let Some(author) = card.author {
        component["authors"] = json!([{ "name": author }]);
    }
    if let Some(signature) = &inv.signature {
        signed(&mut component, signature, root);
    }
    component
}

/// Records the model's OpenSSF signature in its component: its status and what it says as
/// `rtenx:signature:*` properties, and the bundle as a `digital-signature` reference with
/// its hash. CycloneDX's own `signature` (JSF) signs the BOM's JSON, which a Sigstore
/// bundle over the model's files is not. `verified` means verified with the key or root the
/// user gave; `integrity-only` that the files match a signature nobody verified.
fn signed(component: &mut Value, signature: &Signature, root: &Root) {
    let path = root.relative(&signature.path);
    let mut properties = vec![
        property(
            "rtenx:signature:status",
            json!(signature.status).as_str().unwrap_or_default(),
        ),
        property("rtenx:signature:file", &path),
    ];
    if let Some(reason) = &signature.reason {
        properties.push(property("rtenx:signature:reason", reason));
    }
    if let Some(b) = &signature.bundle {
        properties.extend([
            property("rtenx:signature:signer", &b.signer),
            property("rtenx:signature:hashing", b.hashing.text()),
            property("rtenx:signature:files", b.files),
            property("rtenx:signature:bytes", b.bytes),
            property("rtenx:signature:format", &b.format),
        ]);
        if let Some(algorithm) = &b.algorithm {
            properties.push(property("rtenx:signature:algorithm", algorithm));
        }
        component["externalReferences"] = json!([{
            "type": "digital-signature",
            "url": crate::report::uri(Path::new(&path)),
            "comment": format!(
                "OpenSSF model signature (Sigstore bundle v{}): {}",
                b.bundle_version,
                signature.status.text()
            ),
            "hashes": [{ "alg": "SHA-256", "content": b.sha256 }],
        }]);
    }
    if let Some(list) = component["properties"].as_array_mut() {
        list.extend(properties);
    }
}

/// What a model's metadata says about it, by the last part of each key (`general.license`
/// and `license` alike).
#[derive(Default)]
struct Card {
    name: Option<String>,
    description: Option<String>,
    version: Option<String>,
    license: Option<String>,
    author: Option<String>,
    architecture: Option<String>,
    /// Every metadata entry that is not a list, as `metadata:KEY`.
    properties: Vec<Value>,
}

impl Card {
    fn of(inv: &Inventory) -> Self {
        let mut card = Card::default();
        for entry in inv.metadata.iter().filter(|e| e.list.is_none()) {
            let key = entry.key.display();
            let value = entry.value.display().into_owned();
            let last = key.rsplit(['.', ':', '/']).next().unwrap_or(&key);
            let slot = match last.to_ascii_lowercase().as_str() {
                "name" | "model_name" => &mut card.name,
                "description" | "doc_string" => &mut card.description,
                "version" | "model_version" => &mut card.version,
                "license" | "licence" | "license_name" => &mut card.license,
                "author" | "authors" => &mut card.author,
                "architecture" => &mut card.architecture,
                _ => &mut None,
            };
            slot.get_or_insert_with(|| value.clone());
            if card.properties.len() < METADATA_LIMIT {
                card.properties
                    .push(property(&format!("metadata:{key}"), value));
            }
        }
        card
    }
}

/// The main graph's inputs or outputs, as `name: dtype[shape]`.
fn values(inv: &Inventory, list: impl Fn(&Graph) -> &Vec<NodeId>) -> Vec<Value> {
    let Some(graph) = inv.graphs.first() else {
        return Vec::new();
    };
    list(graph)
        .iter()
        .filter_map(|&id| graph.node(id))
        .map(|node| {
            let text = match &node.kind {
                NodeKind::Value(v) => format!(
                    "{}: {}{}",
                    node.name.display(),
                    dtype_text(v.dtype),
                    shape_text(v.shape.as_deref())
                ),
                _ => node.name.display().into_owned(),
            };
            json!({ "format": text })
        })
        .collect()
}

fn property(name: &str, value: impl std::fmt::Display) -> Value {
    json!({ "name": name, "value": value.to_string() })
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .unwrap_or(path.as_os_str())
        .to_string_lossy()
        .into_owned()
}
