//! Any bytes, analysed as `model.pt`: the zip reader (end records, zip64, central directory,
//! local headers), PyTorch checkpoints, TorchScript and `torch.export` archives (nested
//! checkpoints included), legacy checkpoints, tensors and their storages; also through the
//! PyTorch reader directly when detection chooses another format.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rtenx::formats::pytorch::PyTorch;

fuzz_target!(|data: &[u8]| {
    common::check_as(&PyTorch, "model.pt", data);
});
