//! Legacy Keras HDF5 files, read through the shared HDF5 reader: a full model
//! (`model.save("x.h5")`: the root attributes `model_config`, `keras_version`, `backend` and
//! `training_config`, the weights under `model_weights/`), weights alone (`save_weights` to
//! `.h5`: the root attribute `layer_names`; Keras 3's `.weights.h5`: the groups `layers` and
//! `vars`), and the weights member of a `.keras` archive. The config is judged as an
//! archive's `config.json` is, knowing that Keras 3.0.0 to 3.11.2 load a legacy `.h5`
//! ignoring `safe_mode` (CVE-2025-9905); every dataset is a tensor, located without reading
//! its bytes.

use super::config::{self, Located};
use super::rules::{CONFIG_INVALID, METADATA_INVALID};
use super::tree::{Kind, Tree};
use super::{graph, metadata};
use crate::check::{Item, Place};
use crate::escape::{excerpt, sanitize};
use crate::formats::shared::bytes;
use crate::formats::shared::context::Context;
use crate::formats::shared::hdf5::rules::{HDF5_MALFORMED, HDF5_NOT_READ};
use crate::formats::shared::hdf5::{
    self, attributes, Attribute, File, GlobalHeap, Layout, Superblock, Visit,
};
use crate::inventory::{DataRange, MetadataEntry, Storage, Tensor};

/// The root attributes of a full model, in the order they are shown.
const ROOT_STRINGS: &[&str] = &[
    "keras_version",
    "backend",
    "model_config",
    "training_config",
];

/// Reads a legacy `.h5` file (or `.weights.h5`).
pub fn read(cx: &mut Context<'_>) {
    let Some(base) = Superblock::find(cx.bytes) else {
        let message = "no HDF5 signature at the start of the file or after a user block of 512, 1024, ... bytes";
        cx.report(&HDF5_MALFORMED, Place::at(0), message);
        return;
    };
    let Some(file) = open(cx, base) else {
        return;
    };
    let mut heap = GlobalHeap::default();
    let mut root = None;
    let mut top = Vec::new();
    hdf5::walk(cx, &file, |cx, visit| {
        if visit.path.is_empty() {
            root = Some(visit.object.clone());
        } else if !visit.path.contains(&b'/') {
            top.push(visit.path.clone());
        }
        tensor(cx, &file, visit);
    });
    let (root, dense) = root.map(|r| attributes(cx, &file, &r)).unwrap_or_default();
    let has = |name: &str| root.iter().any(|a| a.name == name.as_bytes());
    let top_level = |name: &str| top.iter().any(|p| p == name.as_bytes());
    let mut version = None;
    for attribute in root
        .iter()
        .filter(|a| ROOT_STRINGS.iter().any(|k| a.name == k.as_bytes()))
    {
        let text = match attribute.string(cx, &file, &mut heap) {
            Ok(text) => text,
            Err(stop) => {
                hdf5::report(cx, stop);
                None
            }
        };
        let Some(text) = text else {
            let message = format!("the root attribute \"{}\" at {} is a {} of shape {:?}, not the string Keras writes", excerpt(attribute.name, 40), attribute.at, attribute.datatype.name(), attribute.dataspace.dims);
            cx.report(
                &CONFIG_INVALID,
                Place::field("root attributes", attribute.at),
                message,
            );
            continue;
        };
        match attribute.name {
            b"model_config" => config_attribute(cx, attribute, text),
            b"training_config" => {}
            key => {
                let value = sanitize(&String::from_utf8_lossy(text)).into_owned();
                if key == b"keras_version" {
                    version = Some(value.clone());
                }
                let mut entry = MetadataEntry::new(
                    if key == b"backend" {
                        "backend"
                    } else {
                        "keras_version"
                    },
                    value.as_str(),
                );
                entry.offset = Some(attribute.at);
                cx.inv.metadata.push(entry);
            }
        }
    }
    let major = version.as_deref().and_then(metadata::major);
    let variant = if has("model_config") {
        match major {
            Some(2) | Some(1) => "Keras 2 legacy .h5 (model.save, HDF5)",
            _ => "Keras 3 legacy .h5 (model.save, HDF5)",
        }
    } else if has("layer_names") {
        "Keras weights .h5 (save_weights, HDF5: no config)"
    } else if top_level("layers") || top_level("vars") {
        "Keras 3 weights (.weights.h5, HDF5: no config)"
    } else if dense {
        "HDF5 whose root attributes rtenx does not read (dense storage)"
    } else {
        "HDF5 without Keras' root attributes"
    };
    cx.inv.format_version = variant.into();
    cx.inv.property("variant", variant, None);
    cx.inv.property(
        "HDF5 superblock",
        format!("version {} at {}", file.sb.version, file.sb.base),
        Some(file.sb.base),
    );
    if has("model_config") {
        match &version {
            Some(shown) => metadata::vulnerable(
                cx,
                shown,
                Place::field("keras_version", root_at(&root, "keras_version")),
            ),
            None => {
                let message = "the root group has no keras_version attribute: the Keras version that saved the model, and the CVEs it has, are unknown";
                cx.report(
                    &METADATA_INVALID,
                    Place::field("keras_version", file.sb.root),
                    message,
                );
            }
        }
    }
}

/// Lists the datasets of the HDF5 file that starts at `base` (a `.keras` archive's weights
/// member, stored) as tensors.
pub fn weights(cx: &mut Context<'_>, base: u64) {
    if let Some(file) = open(cx, base) {
        hdf5::walk(cx, &file, |cx, visit| tensor(cx, &file, visit));
    }
}

/// The HDF5 file whose superblock is at `base`, or its problem reported.
fn open<'a>(cx: &mut Context<'a>, base: u64) -> Option<File<'a>> {
    // h5py copies every dataset it reads: HDF5 aligns nothing.
    cx.inv.preferred_alignment = Some(1);
    let bytes = cx.bytes;
    match Superblock::read(bytes, base) {
        Ok(sb) => Some(File { bytes, sb }),
        Err(stop) => {
            hdf5::report(cx, stop);
            None
        }
    }
}

/// Where the root attribute `name` is.
fn root_at(root: &[Attribute<'_>], name: &str) -> u64 {
    root.iter()
        .find(|a| a.name == name.as_bytes())
        .map_or(0, |a| a.at)
}

/// Reads and walks the `model_config` attribute, `text`.
fn config_attribute(cx: &mut Context<'_>, attribute: &Attribute<'_>, text: &[u8]) {
    let doc = Located {
        name: "model_config",
        legacy_h5: true,
        data: bytes::offset_in(cx.bytes, text),
        header: attribute.at,
    };
    let place = Place::field("model_config", attribute.at);
    let tree = match Tree::parse(cx, text, place) {
        Ok(tree) => tree,
        Err(e) => {
            let message = format!("load_model refuses the file: the model_config attribute is not JSON it reads whole ({} at {})", e.what, doc.of(e.at));
            cx.report(&CONFIG_INVALID, Place::at(doc.of(e.at)), message);
            return;
        }
    };
    let object = tree.root().and_then(|r| tree.get(r));
    if !object.is_some_and(|v| matches!(v.kind, Kind::Object)) {
        let message =
            "load_model refuses the file: the model_config attribute is not a JSON object";
        cx.report(&CONFIG_INVALID, place, message);
        return;
    }
    let model = config::walk(cx, &tree, doc);
    graph::build(cx, &model);
}

/// The tensor the object `visit` is, if it is a dataset.
fn tensor(cx: &mut Context<'_>, file: &File<'_>, visit: &Visit<'_>) {
    let dataset = match visit.dataset(file) {
        None => return,
        Some(Ok(dataset)) => dataset,
        Some(Err(stop)) => return hdf5::report(cx, stop),
    };
    let at = visit.object.at;
    let place = Place::at(at);
    if !cx.spend(1, place) {
        return;
    }
    let name = cx.copied(&visit.path, place);
    let shape = match dataset.dataspace.null {
        true => vec![0],
        false => dataset.dataspace.dims.clone(),
    };
    let mut tensor = Tensor::declared(name, dataset.datatype.dtype(), shape, at);
    let index = cx.inv.tensors.len();
    let shown = || excerpt(&visit.path, 200).into_owned();
    match dataset.layout {
        Layout::Contiguous {
            address: Some(offset),
            size,
        } => {
            let len = size.or(tensor.byte_size).unwrap_or_default();
            tensor = tensor.stored(
                Storage::External,
                DataRange {
                    file: 0,
                    offset,
                    len,
                },
            );
        }
        Layout::Compact { at, len } => {
            tensor = tensor.stored(
                Storage::Inline,
                DataRange {
                    file: 0,
                    offset: at,
                    len,
                },
            );
        }
        Layout::Contiguous { address: None, .. } => {}
        Layout::Chunked | Layout::Virtual => {
            let how = match (dataset.layout, dataset.filtered) {
                (Layout::Virtual, _) => "virtual (its data lies in other datasets)",
                (_, true) => "chunked and filtered (compressed)",
                _ => "chunked",
            };
            let message = format!("dataset \"{}\" at {at} is {how}: its shape and type are listed, its bytes are not located", shown());
            cx.report(
                &HDF5_NOT_READ,
                place.item(Item::Tensor { tensor: index }),
                message,
            );
        }
    }
    if tensor.dtype.is_none() {
        let message = format!(
            "dataset \"{}\" at {at} holds elements of type {}, which rtenx lists without a type",
            shown(),
            dataset.datatype.name()
        );
        cx.report(
            &HDF5_NOT_READ,
            place.item(Item::Tensor { tensor: index }),
            message,
        );
    }
    cx.inv.tensors.push(tensor);
}
