//! Large synthetic ExecuTorch programs: one method of `instructions` `aten::add.out` kernel
//! calls, each adding one of `weights` external f32 tensors of `weight_bytes`, stored in a
//! `.ptd` beside the program. The `.ptd` is sparse, so multi-GiB data costs no disk.

pub mod hostile;

use crate::formats::executorch::schema::{data as ft, program as et};
use flatbuffers::{FlatBufferBuilder, WIPOffset};
use std::io::Write;
use std::path::Path;

/// Where the `.ptd`'s segments start: after the FlatBuffer, at a multiple of this.
const SEGMENT_ALIGNMENT: u64 = 128;

/// Writes `model.pte` and `model.ptd` into `dir`.
pub fn write(
    dir: &Path,
    instructions: u32,
    weights: u32,
    weight_bytes: u64,
) -> std::io::Result<()> {
    let elements = i32::try_from(weight_bytes / 4).unwrap_or(i32::MAX);
    std::fs::write(
        dir.join("model.pte"),
        program(instructions, weights, elements),
    )?;
    write_data(&dir.join("model.ptd"), weights, elements)
}

fn program(instructions: u32, weights: u32, elements: i32) -> Vec<u8> {
    let mut b = FlatBufferBuilder::new();
    let sizes = b.create_vector(&[elements]);
    let dim_order = b.create_vector(&[0u8]);
    let mut values = Vec::new();
    for _ in 0..=instructions {
        values.push(tensor(&mut b, sizes, dim_order, None));
    }
    for w in 0..weights {
        let name = b.create_string(&format!("w{w}"));
        let extra = et::ExtraTensorInfo::create(
            &mut b,
            &et::ExtraTensorInfoArgs {
                fully_qualified_name: Some(name),
                location: et::TensorDataLocation::EXTERNAL,
                ..Default::default()
            },
        );
        values.push(tensor(&mut b, sizes, dim_order, Some(extra)));
    }
    let values = b.create_vector(&values);
    let mut calls = Vec::new();
    for i in 0..instructions as i32 {
        let weight = (instructions + 1 + i as u32 % weights.max(1)) as i32;
        let args = b.create_vector(&[i, weight, i + 1, i + 1]);
        let call = et::KernelCall::create(
            &mut b,
            &et::KernelCallArgs {
                op_index: 0,
                args: Some(args),
            },
        );
        calls.push(et::Instruction::create(
            &mut b,
            &et::InstructionArgs {
                instr_args_type: et::InstructionArguments::KernelCall,
                instr_args: Some(call.as_union_value()),
            },
        ));
    }
    let calls = b.create_vector(&calls);
    let chain = et::Chain::create(
        &mut b,
        &et::ChainArgs {
            instructions: Some(calls),
            ..Default::default()
        },
    );
    let (op, overload) = (b.create_string("aten::add"), b.create_string("out"));
    let op = et::Operator::create(
        &mut b,
        &et::OperatorArgs {
            name: Some(op),
            overload: Some(overload),
        },
    );
    let name = b.create_string("forward");
    let plan = et::ExecutionPlanArgs {
        name: Some(name),
        values: Some(values),
        inputs: Some(b.create_vector(&[0])),
        outputs: Some(b.create_vector(&[instructions as i32])),
        chains: Some(b.create_vector(&[chain])),
        operators: Some(b.create_vector(&[op])),
        non_const_buffer_sizes: Some(b.create_vector(&[0i64])),
        ..Default::default()
    };
    let plan = et::ExecutionPlan::create(&mut b, &plan);
    let plans = b.create_vector(&[plan]);
    let root = et::Program::create(
        &mut b,
        &et::ProgramArgs {
            execution_plan: Some(plans),
            ..Default::default()
        },
    );
    et::finish_program_buffer(&mut b, root);
    b.finished_data().to_vec()
}

/// A float tensor value of one dimension.
fn tensor<'a>(
    b: &mut FlatBufferBuilder<'a>,
    sizes: WIPOffset<flatbuffers::Vector<'a, i32>>,
    dim_order: WIPOffset<flatbuffers::Vector<'a, u8>>,
    extra: Option<WIPOffset<et::ExtraTensorInfo<'a>>>,
) -> WIPOffset<et::EValue<'a>> {
    let t = et::Tensor::create(
        b,
        &et::TensorArgs {
            scalar_type: et::ScalarType::FLOAT,
            sizes: Some(sizes),
            dim_order: Some(dim_order),
            extra_tensor_info: extra,
            ..Default::default()
        },
    );
    et::EValue::create(
        b,
        &et::EValueArgs {
            val_type: et::KernelTypes::Tensor,
            val: Some(t.as_union_value()),
        },
    )
}

fn write_data(path: &Path, weights: u32, elements: i32) -> std::io::Result<()> {
    let seg_size = u64::try_from(elements).unwrap_or(0) * 4;
    let stride = seg_size.next_multiple_of(SEGMENT_ALIGNMENT);
    let mut b = FlatBufferBuilder::new();
    let mut segments = Vec::new();
    let mut named: Vec<WIPOffset<ft::NamedData<'_>>> = Vec::new();
    for w in 0..weights {
        segments.push(ft::DataSegment::create(
            &mut b,
            &ft::DataSegmentArgs {
                offset: u64::from(w) * stride,
                size: seg_size,
            },
        ));
    }
    for w in 0..weights {
        let sizes = b.create_vector(&[elements]);
        let dim_order = b.create_vector(&[0u8]);
        let layout = ft::TensorLayout::create(
            &mut b,
            &ft::TensorLayoutArgs {
                scalar_type: et::ScalarType::FLOAT,
                sizes: Some(sizes),
                dim_order: Some(dim_order),
            },
        );
        let key = b.create_string(&format!("w{w}"));
        named.push(ft::NamedData::create(
            &mut b,
            &ft::NamedDataArgs {
                key: Some(key),
                segment_index: w,
                tensor_layout: Some(layout),
            },
        ));
    }
    let (segments, named) = (b.create_vector(&segments), b.create_vector(&named));
    let root = ft::FlatTensor::create(
        &mut b,
        &ft::FlatTensorArgs {
            version: 0,
            segments: Some(segments),
            named_data: Some(named),
        },
    );
    ft::finish_flat_tensor_buffer(&mut b, root);
    let data_size = (u64::from(weights.max(1)) - 1) * stride + seg_size;
    let (out, len) = with_fh01(b.finished_data(), data_size);
    let mut file = std::fs::File::create(path)?;
    file.write_all(&out)?;
    file.set_len(len)
}

/// A finished FlatTensor buffer with the `FH01` header spliced in at byte 8, as the
/// exporter does (the root offset grows by its length, every other offset is relative),
/// padded to where `data_size` bytes of segments start. Returns the bytes up to the
/// segments and the length of the whole file.
pub fn with_fh01(fb: &[u8], data_size: u64) -> (Vec<u8>, u64) {
    const HEADER: u64 = 40;
    let fb_offset = 8 + HEADER;
    let fb_size = fb.len() as u64 - 8;
    let base = (fb_offset + fb_size).next_multiple_of(SEGMENT_ALIGNMENT);
    let root_offset = u32::from_le_bytes(fb[..4].try_into().expect("4 bytes")) + HEADER as u32;
    let mut out = Vec::new();
    out.extend_from_slice(&root_offset.to_le_bytes());
    out.extend_from_slice(&fb[4..8]);
    out.extend_from_slice(b"FH01");
    out.extend_from_slice(&(HEADER as u32).to_le_bytes());
    for field in [fb_offset, fb_size, base, data_size] {
        out.extend_from_slice(&field.to_le_bytes());
    }
    out.extend_from_slice(&fb[8..]);
    out.resize(base as usize, 0);
    (out, base + data_size)
}
