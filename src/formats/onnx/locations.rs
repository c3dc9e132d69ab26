//! The location rules ONNX adds to the shared data-file rules: onnxruntime's markers, which
//! name no file, and, when rten is the target, rten's narrower idea of a location.

use super::rules::{LOCATION_MISSING, LOCATION_SPECIAL, RTEN_REFUSES_LOCATION};
use crate::check::Findings;
use crate::escape::{excerpt, EXCERPT};
use crate::formats::shared::datafiles::{DataFiles, Location, LocationRules, Problem};
use std::path::{Component, Path};

/// ONNX's location rules.
pub struct OnnxLocations;

impl LocationRules for OnnxLocations {
    fn refuse(&self, loc: &Location<'_>) -> Option<Problem> {
        let (location, shown) = (loc.text(), loc.shown());
        let (rule, message) = if location.is_empty() {
            (
                &LOCATION_MISSING,
                "external data location is empty".to_owned(),
            )
        } else if location.starts_with('#') {
            let why = format!("location \"{shown}\" is an in-memory initializer marker (#)");
            (&LOCATION_SPECIAL, why)
        // Split lazily: a hostile location can have millions of parts.
        } else if location.split(['/', '\\']).any(|p| p == "_ORT_MEM_ADDR_") {
            let why = format!("location \"{shown}\" is onnxruntime's memory-address marker");
            (&LOCATION_SPECIAL, why)
        } else {
            return None;
        };
        Some(Problem { rule, message })
    }
}

/// Reports each location of `files` that rten refuses, once, at the first tensor that uses
/// it, with how many do.
pub fn rten(files: &DataFiles, out: &mut Findings) {
    for used in files.used() {
        if let Some(why) = rten_refuses(&used.location) {
            let tensors = match used.count {
                1 => "1 tensor uses it".to_owned(),
                n => format!("{n} tensors use it"),
            };
            let message = format!("{why} ({tensors})");
            out.add(&RTEN_REFUSES_LOCATION, used.place, message);
        }
    }
}

/// rten's stricter rule: one file name in the model's folder, extension starting `data` or
/// `onnx_data`.
fn rten_refuses(loc: &Location<'_>) -> Option<String> {
    let (location, shown) = (loc.text(), loc.shown());
    if !loc.is_utf8() {
        // rten decodes every protobuf string as UTF-8 and refuses the model if one is not.
        return Some(format!(
            "location \"{shown}\" is not UTF-8; rten cannot read the model"
        ));
    }
    // rten asks `Path::components` for exactly one plain name, so `./w.data` fails too. A
    // backslash is a separator on Windows, where rten refuses it as well.
    let mut parts = Path::new(location).components();
    let bare = matches!(parts.next(), Some(Component::Normal(_)))
        && parts.next().is_none()
        && !location.contains('\\');
    if !bare {
        return Some(format!("location \"{shown}\" is not a bare file name; rten reads only a file name in the model's folder, with nothing before it"));
    }
    let ext = Path::new(location)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("");
    (!(ext.starts_with("data") || ext.starts_with("onnx_data"))).then(|| {
        let has = match excerpt(ext.as_bytes(), EXCERPT) {
            ext if ext.is_empty() => "has no extension".to_owned(),
            ext => format!("has extension \"{ext}\""),
        };
        format!("location \"{shown}\" {has}; rten needs one starting `data` or `onnx_data`")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn onnxruntime_markers_and_empty_locations_are_refused() {
        for special in ["*/_ORT_MEM_ADDR_/*", "#mem", "x/_ORT_MEM_ADDR_/y"] {
            assert_eq!(
                OnnxLocations
                    .refuse(&Location::new(special.as_bytes()))
                    .unwrap()
                    .rule
                    .code,
                "OX013",
                "{special}"
            );
        }
        let empty = OnnxLocations.refuse(&Location::new(b"")).unwrap();
        assert_eq!(empty.rule.code, "OX011");
        assert!(OnnxLocations.refuse(&Location::new(b"w.data")).is_none());
    }

    #[test]
    fn rten_location_rule() {
        let rten = |location: &[u8]| rten_refuses(&Location::new(location));
        assert!(rten(b"model.onnx.data").is_none());
        assert!(rten(b"w.onnx_data_3").is_none());
        assert!(rten(b"weights.bin")
            .unwrap()
            .contains("has extension \"bin\""));
        assert!(rten(b"weights").unwrap().contains("has no extension"));
        assert!(rten(b"w\xff.data").unwrap().contains("not UTF-8"));
        for refused in ["sub/w.data", "./w.data", "sub\\w.data"] {
            let why = rten(refused.as_bytes()).unwrap();
            assert!(why.contains("not a bare file name"), "{why}");
        }
    }
}
