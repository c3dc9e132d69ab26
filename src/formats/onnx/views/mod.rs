//! Views of ONNX's protobuf messages read in place ([`crate::formats::shared::protobuf`]):
//! each keeps its message's scalars and the byte slices of its strings, lists and embedded
//! messages, and is held to prost's decoding of `schema/onnx.proto` by differential tests.

pub mod attribute;
pub mod graph;
pub mod model;
pub mod node;
pub mod tensor;
pub mod value;
