//! TensorProtos, wherever they live, into inventory tensors.

use super::dtypes::Typed;
use super::dtypes::{from_onnx, typed_field};
use super::external;
use super::rules::*;
use super::views::tensor::TensorView;
use super::Reader;
use crate::check::{generic, Item, Place};
use crate::formats::shared::bytes::offset_in;
use crate::formats::shared::datafiles::checksum::Recorded;
use crate::inventory::{DType, DataRange, GraphId, Name, NodeId, Storage, Tensor, TensorId};

/// `TensorProto.data_location` value for external data.
const EXTERNAL: i32 = 1;
/// Offsets that allow zero-copy memory mapping.
const PAGE: u64 = 4096;

impl Reader<'_> {
    /// Adds `t` as `name`, owned by `node` of `graph` and declared at offset `decl` of the
    /// model file (if known), and checks how its data is stored. Findings about the tensor
    /// that have no offset of their own point at the declaration.
    pub fn tensor(
        &mut self,
        t: &TensorView<'_>,
        name: Name,
        graph: GraphId,
        node: Option<NodeId>,
        decl: Option<u64>,
    ) -> TensorId {
        let id = self.cx.inv.tensors.len();
        let place = Place::on(Item::Tensor { tensor: id }).offset(decl);
        let code = t.data_type.unwrap_or(0);
        let dtype = from_onnx(code);
        if dtype.is_none() {
            self.cx.report(
                &DTYPE_UNDEFINED,
                place,
                format!(
                    "tensor \"{name}\" has data_type {code}, which is {}",
                    if code == 0 {
                        "UNDEFINED"
                    } else {
                        "not an ONNX type"
                    }
                ),
            );
        }
        if let Some((i, d)) = t.dims.iter().enumerate().find(|(_, &d)| d < 0) {
            self.cx.report(
                &NEGATIVE_DIM,
                place,
                format!("dims[{i}] is {d}; a stored tensor's dimensions are sizes, 0 or more"),
            );
        }
        // A negative dim (OX031) is kept as not a size, so that sizes built on it overflow.
        let shape: Vec<u64> = t
            .dims
            .iter()
            .map(|&d| u64::try_from(d).unwrap_or(Tensor::NOT_A_SIZE))
            .collect();
        let mut tensor = Tensor::declared(name, dtype, shape, 0);
        (tensor.storage, tensor.data) = if t.data_location == Some(EXTERNAL) {
            let data = self.external(t, dtype, tensor.byte_size, id, place);
            (Storage::External, data)
        } else {
            self.inline(t, dtype, tensor.elements, place)
        };
        // Without a declaration to point at, an inline tensor is placed at its bytes.
        let inline_at = (tensor.storage == Storage::Inline).then_some(tensor.data);
        tensor.decl_offset = decl.or(inline_at.flatten().map(|d| d.offset));
        (tensor.graph, tensor.node) = (graph, node);
        self.cx.inv.tensors.push(tensor);
        id
    }

    /// The names of the value fields `t` sets; nothing is allocated unless a finding lists
    /// them.
    fn value_fields<'t>(t: &'t TensorView<'_>) -> impl Iterator<Item = &'static str> + Clone + 't {
        let raw = t.raw_data.is_some().then_some("raw_data");
        let typed = Typed::ALL.into_iter().filter(|&f| t.count(f) > 0);
        raw.into_iter().chain(typed.map(Typed::name))
    }

    /// The names of `fields`, separated by commas.
    fn listed(fields: impl Iterator<Item = &'static str>) -> String {
        fields.collect::<Vec<_>>().join(", ")
    }

    fn inline(
        &mut self,
        t: &TensorView<'_>,
        dtype: Option<DType>,
        elements: Option<u64>,
        place: Place,
    ) -> (Storage, Option<DataRange>) {
        let fields = Self::value_fields(t);
        let count = fields.clone().count();
        if count > 1 {
            self.cx.report(
                &TENSOR_VALUE_FIELDS,
                place,
                format!(
                    "inline tensor sets {count} value fields ({}); exactly one is allowed",
                    Self::listed(fields)
                ),
            );
        } else if count == 0 && elements.is_some_and(|n| n > 0) {
            self.cx.report(
                &TENSOR_VALUE_FIELDS,
                place,
                format!(
                    "inline tensor has {} elements but no value field",
                    elements.unwrap_or(0)
                ),
            );
            return (Storage::Missing, None);
        }
        if let Some(raw) = t.raw_data {
            if dtype == Some(DType::String) {
                self.cx.report(
                    &STRING_IN_RAW_DATA,
                    place,
                    "STRING tensor stores its data in raw_data",
                );
            }
            let range = offset_in(self.cx.bytes, raw).map(|offset| DataRange {
                file: 0,
                offset,
                len: raw.len() as u64,
            });
            return (Storage::Inline, range);
        }
        if let (Some(dtype), Some(elements)) = (dtype, elements) {
            self.typed_count(t, dtype, elements, place);
        }
        (Storage::Inline, None)
    }

    /// Checks the entry count of a typed value field against the element count.
    fn typed_count(&mut self, t: &TensorView<'_>, dtype: DType, elements: u64, place: Place) {
        let Some((field, per_element)) = typed_field(dtype) else {
            return;
        };
        let stored = t.count(field);
        let Some(expected) = elements.checked_mul(per_element) else {
            return;
        };
        if stored != 0 && stored != expected {
            self.cx.report(
                &generic::TENSOR_SIZE_MISMATCH,
                place,
                format!(
                    "{} holds {stored} entries, but shape {:?} of {dtype} needs {expected}",
                    field.name(),
                    t.dims
                ),
            );
        }
    }

    fn external(
        &mut self,
        t: &TensorView<'_>,
        dtype: Option<DType>,
        byte_size: Option<u64>,
        id: TensorId,
        place: Place,
    ) -> Option<DataRange> {
        let mut inline = Self::value_fields(t).peekable();
        if inline.peek().is_some() {
            self.cx.report(
                &EXTERNAL_WITH_INLINE_DATA,
                place,
                if t.raw_data.is_some_and(<[u8]>::is_empty) {
                    "EXTERNAL tensor also sets raw_data, to nothing: onnx and onnxruntime \
ignore it, but rten reads the empty raw_data instead of the external data and refuses the model"
                        .to_owned()
                } else {
                    format!("EXTERNAL tensor also sets {}", Self::listed(inline))
                },
            );
        }
        if matches!(dtype, None | Some(DType::String)) {
            self.cx.report(
                &EXTERNAL_DTYPE_INVALID,
                place,
                format!(
                    "EXTERNAL tensor has data_type {}, which external data cannot hold",
                    t.data_type.unwrap_or(0)
                ),
            );
        }
        let r = external::parse(&t.external_data, place, self.cx.out);
        let location = r.location?;
        let file = self
            .files
            .file(location, place, &mut self.cx.inv, self.cx.out)?;
        let offset = r.offset.unwrap_or(0);
        if r.offset.is_some_and(|o| o % PAGE != 0) {
            self.cx.report(&EXTERNAL_OFFSET_UNALIGNED, place.offset(offset).in_file(file), format!(
                "offset {offset} is not a multiple of {PAGE}: the tensor cannot be memory-mapped on its own"));
        }
        if let Some(checksum) = &r.checksum {
            self.checksums.push(Recorded {
                file,
                sha1: checksum.clone(),
                tensor: id,
            });
        }
        if !r.usable {
            return None;
        }
        let len = r.length.or(byte_size)?;
        Some(DataRange { file, offset, len })
    }
}
