//! Building blocks that format readers share: bounds-checked byte reads, the budget, the
//! protobuf wire format, JSON read in place, FlatBuffers with limits, HDF5 as Keras writes
//! it, the data files a model names, and Python call stacks read as module paths. Each reader
//! picks what its format is made of.

pub mod budget;
pub mod bytes;
pub mod compressed;
pub mod context;
pub mod datafiles;
pub mod expr;
pub mod flatbuffer;
pub mod hdf5;
pub mod hf;
pub mod json;
pub mod numbers;
pub mod pickle;
pub mod protobuf;
pub mod sections;
pub mod stack;
pub mod tar;
pub mod tensor_index;
pub mod zip;
