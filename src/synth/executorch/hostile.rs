//! Hostile ExecuTorch files, a few megabytes each, shaped to cost a reader far more than
//! their size when it copies a string per reference, adds an entry without paying for it
//! or compares every item of one list with every item of another. Strings and tables are
//! shared, as FlatBuffers allow: a shared table is one offset per listing.

use super::with_fh01;
use crate::formats::executorch::schema::{legacy_data as lt, program as et};
use flatbuffers::{FlatBufferBuilder, ForwardsUOffset, Vector, WIPOffset};

type Builder<'a> = FlatBufferBuilder<'a>;
type List<'a, T> = WIPOffset<Vector<'a, ForwardsUOffset<T>>>;

/// `len` bytes of text.
fn long(len: usize) -> String {
    "n".repeat(len)
}

/// An instruction whose arguments are `args`: a kernel call of operator `op`, or a call of
/// delegate `-1 - op` when `op` is negative.
fn call<'a>(b: &mut Builder<'a>, op: i32, args: &[i32]) -> WIPOffset<et::Instruction<'a>> {
    let args = Some(b.create_vector(args));
    let (kind, union) = if op >= 0 {
        let call = et::KernelCall::create(b, &et::KernelCallArgs { op_index: op, args });
        (et::InstructionArguments::KernelCall, call.as_union_value())
    } else {
        let delegate_index = -1 - op;
        let call = et::DelegateCall::create(
            b,
            &et::DelegateCallArgs {
                delegate_index,
                args,
            },
        );
        (
            et::InstructionArguments::DelegateCall,
            call.as_union_value(),
        )
    };
    et::Instruction::create(
        b,
        &et::InstructionArgs {
            instr_args_type: kind,
            instr_args: Some(union),
        },
    )
}

/// One chain of `instructions`.
fn chains<'a>(
    b: &mut Builder<'a>,
    instructions: &[WIPOffset<et::Instruction<'a>>],
) -> List<'a, et::Chain<'a>> {
    let instructions = Some(b.create_vector(instructions));
    let chain = et::Chain::create(
        b,
        &et::ChainArgs {
            instructions,
            ..Default::default()
        },
    );
    b.create_vector(&[chain])
}

/// An operator named `name` with overload `out`.
fn operator<'a>(b: &mut Builder<'a>, name: &str) -> WIPOffset<et::Operator<'a>> {
    let (name, overload) = (b.create_string(name), b.create_string("out"));
    et::Operator::create(
        b,
        &et::OperatorArgs {
            name: Some(name),
            overload: Some(overload),
        },
    )
}

/// A float tensor value of size `[1]`, with `extra` if given; `data_buffer_idx` 0, so a
/// runtime value that is undefined until an instruction writes it.
fn tensor<'a>(
    b: &mut Builder<'a>,
    extra: Option<WIPOffset<et::ExtraTensorInfo<'a>>>,
) -> WIPOffset<et::EValue<'a>> {
    let sizes = Some(b.create_vector(&[1i32]));
    let dim_order = Some(b.create_vector(&[0u8]));
    let t = et::Tensor::create(
        b,
        &et::TensorArgs {
            scalar_type: et::ScalarType::FLOAT,
            sizes,
            dim_order,
            extra_tensor_info: extra,
            ..Default::default()
        },
    );
    value(b, et::KernelTypes::Tensor, t.as_union_value())
}

fn value<'a>(
    b: &mut Builder<'a>,
    val_type: et::KernelTypes,
    val: WIPOffset<flatbuffers::UnionWIPOffset>,
) -> WIPOffset<et::EValue<'a>> {
    et::EValue::create(
        b,
        &et::EValueArgs {
            val_type,
            val: Some(val),
        },
    )
}

/// The program of method `plan` listed `listed` times; `root` gives the root table's other
/// fields.
fn program<'a>(
    mut b: Builder<'a>,
    mut plan: et::ExecutionPlanArgs<'a>,
    listed: usize,
    mut root: et::ProgramArgs<'a>,
) -> Vec<u8> {
    if plan.name.is_none() {
        plan.name = Some(b.create_string("forward"));
    }
    plan.inputs = plan.inputs.or_else(|| Some(b.create_vector::<i32>(&[])));
    plan.outputs = plan.outputs.or_else(|| Some(b.create_vector::<i32>(&[])));
    plan.non_const_buffer_sizes = plan
        .non_const_buffer_sizes
        .or_else(|| Some(b.create_vector(&[0i64])));
    plan.values = plan
        .values
        .or_else(|| Some(b.create_vector::<ForwardsUOffset<et::EValue>>(&[])));
    plan.chains = plan.chains.or_else(|| Some(chains(&mut b, &[])));
    let plan = et::ExecutionPlan::create(&mut b, &plan);
    root.execution_plan = Some(b.create_vector(&vec![plan; listed]));
    let root = et::Program::create(&mut b, &root);
    et::finish_program_buffer(&mut b, root);
    b.finished_data().to_vec()
}

/// Zero `i64`s to pad a file: the verifier allows a table per 4 bytes of file, so a file
/// that lists shared tables many times needs bytes besides its offsets.
fn padding<'a>(b: &mut Builder<'a>, bytes: usize) -> WIPOffset<Vector<'a, i64>> {
    b.create_vector(&vec![0i64; bytes / 8 + 1])
}

/// One operator named by `name_len` bytes, listed `listed` times in the operator table, and
/// one kernel call of it listed `calls` times.
pub fn shared_operator(name_len: usize, listed: usize, calls: usize) -> Vec<u8> {
    let mut b = Builder::new();
    let op = operator(&mut b, &long(name_len));
    let operators = Some(b.create_vector(&vec![op; listed]));
    let call = call(&mut b, 0, &[]);
    let chains = Some(chains(&mut b, &vec![call; calls]));
    let plan = et::ExecutionPlanArgs {
        operators,
        chains,
        non_const_buffer_sizes: Some(padding(&mut b, 8 * calls)),
        ..Default::default()
    };
    program(b, plan, 1, Default::default())
}

/// `calls` kernel calls (one shared instruction) whose chain lists `traces` stack traces:
/// frame lists that are one shared table if not `distinct`, else a table each (all pointing
/// at one vector of frames), each of `frames` frames of `forward` (one shared table) whose
/// source line is `line`.
pub fn stack_traces(
    line: &[u8],
    frames: usize,
    calls: usize,
    traces: usize,
    distinct: bool,
) -> Vec<u8> {
    let mut b = Builder::new();
    let (name, context) = (b.create_string("forward"), b.create_string(""));
    let context = if line.is_empty() {
        context
    } else {
        // Text that need not be UTF-8: written as the bytes of a vector, which a string is.
        let bytes = b.create_vector(line);
        WIPOffset::new(bytes.value())
    };
    let frame = et::Frame::create(
        &mut b,
        &et::FrameArgs {
            filename: None,
            lineno: 7,
            name: Some(name),
            context: Some(context),
        },
    );
    let items = Some(b.create_vector(&vec![frame; frames]));
    let list = et::FrameList::create(&mut b, &et::FrameListArgs { items });
    let lists: Vec<_> = match distinct {
        false => vec![list; traces],
        true => (0..traces)
            .map(|_| et::FrameList::create(&mut b, &et::FrameListArgs { items }))
            .collect(),
    };
    let stacktrace = Some(b.create_vector(&lists));
    let op = operator(&mut b, "aten::relu");
    let operators = Some(b.create_vector(&[op]));
    let call = call(&mut b, 0, &[]);
    let instructions = Some(b.create_vector(&vec![call; calls]));
    let chain = et::Chain::create(
        &mut b,
        &et::ChainArgs {
            instructions,
            stacktrace,
            ..Default::default()
        },
    );
    let plan = et::ExecutionPlanArgs {
        operators,
        chains: Some(b.create_vector(&[chain])),
        non_const_buffer_sizes: Some(padding(&mut b, 8 * calls.max(traces))),
        ..Default::default()
    };
    program(b, plan, 1, Default::default())
}

/// One delegate whose backend id is `id_len` bytes, listed `listed` times in the method's
/// delegate table, and one call of it listed `calls` times.
pub fn shared_delegate(id_len: usize, listed: usize, calls: usize) -> Vec<u8> {
    let mut b = Builder::new();
    let id = Some(b.create_string(&long(id_len)));
    let processed = et::BackendDelegateDataReference::create(
        &mut b,
        &et::BackendDelegateDataReferenceArgs {
            location: et::DataLocation::INLINE,
            index: 0,
        },
    );
    let delegate = et::BackendDelegate::create(
        &mut b,
        &et::BackendDelegateArgs {
            id,
            processed: Some(processed),
            compile_specs: None,
        },
    );
    let delegates = Some(b.create_vector(&vec![delegate; listed]));
    let call = call(&mut b, -1, &[]);
    let chains = Some(chains(&mut b, &vec![call; calls]));
    let blob = b.create_vector(&[0u8; 16]);
    let blob = et::BackendDelegateInlineData::create(
        &mut b,
        &et::BackendDelegateInlineDataArgs { data: Some(blob) },
    );
    let root = et::ProgramArgs {
        backend_delegate_data: Some(b.create_vector(&[blob])),
        ..Default::default()
    };
    let plan = et::ExecutionPlanArgs {
        delegates,
        chains,
        non_const_buffer_sizes: Some(padding(&mut b, 8 * calls)),
        ..Default::default()
    };
    program(b, plan, 1, root)
}

/// A String value of `len` bytes, passed `uses` times to one kernel call.
pub fn shared_string_argument(len: usize, uses: usize) -> Vec<u8> {
    let mut b = Builder::new();
    let text = Some(b.create_string(&long(len)));
    let string = et::String::create(&mut b, &et::StringArgs { string_val: text });
    let values = [value(
        &mut b,
        et::KernelTypes::String,
        string.as_union_value(),
    )];
    let values = Some(b.create_vector(&values));
    let op = operator(&mut b, "aten::add");
    let operators = Some(b.create_vector(&[op]));
    let call = call(&mut b, 0, &vec![0; uses]);
    let plan = et::ExecutionPlanArgs {
        values,
        operators,
        chains: Some(chains(&mut b, &[call])),
        ..Default::default()
    };
    program(b, plan, 1, Default::default())
}

/// One named-data entry whose key is `key_len` bytes, listed `listed` times in the program.
pub fn shared_named_data(key_len: usize, listed: usize) -> Vec<u8> {
    let mut b = Builder::new();
    let key = Some(b.create_string(&long(key_len)));
    let entry = et::NamedData::create(
        &mut b,
        &et::NamedDataArgs {
            key,
            segment_index: 0,
        },
    );
    let segment = et::DataSegment::create(&mut b, &et::DataSegmentArgs { offset: 0, size: 0 });
    let root = et::ProgramArgs {
        named_data: Some(b.create_vector(&vec![entry; listed])),
        segments: Some(b.create_vector(&[segment])),
        ..Default::default()
    };
    program(b, Default::default(), 1, root)
}

/// A `.ptd` with one opaque entry whose key is `key_len` bytes, listed `listed` times.
pub fn shared_data_keys(key_len: usize, listed: usize) -> Vec<u8> {
    use crate::formats::executorch::schema::data as ft;
    let mut b = Builder::new();
    let key = Some(b.create_string(&long(key_len)));
    let entry = ft::NamedData::create(
        &mut b,
        &ft::NamedDataArgs {
            key,
            segment_index: 0,
            tensor_layout: None,
        },
    );
    let segment = ft::DataSegment::create(&mut b, &ft::DataSegmentArgs { offset: 0, size: 0 });
    let root = ft::FlatTensorArgs {
        version: 0,
        segments: Some(b.create_vector(&[segment])),
        named_data: Some(b.create_vector(&vec![entry; listed])),
    };
    let root = ft::FlatTensor::create(&mut b, &root);
    ft::finish_flat_tensor_buffer(&mut b, root);
    with_fh01(b.finished_data(), 0).0
}

/// One EXTERNAL tensor value whose name is `len` bytes, listed `listed` times.
pub fn shared_external_name(len: usize, listed: usize) -> Vec<u8> {
    let mut b = Builder::new();
    let name = Some(b.create_string(&long(len)));
    let extra = et::ExtraTensorInfo::create(
        &mut b,
        &et::ExtraTensorInfoArgs {
            fully_qualified_name: name,
            location: et::TensorDataLocation::EXTERNAL,
            ..Default::default()
        },
    );
    let external = tensor(&mut b, Some(extra));
    let plan = et::ExecutionPlanArgs {
        values: Some(b.create_vector(&vec![external; listed])),
        ..Default::default()
    };
    program(b, plan, 1, Default::default())
}

/// One method named by `name_len` bytes, whose operator table lists `operators` operators
/// named by as many bytes, each called once, listed `listed` times in the program.
pub fn shared_plan(name_len: usize, operators: usize, listed: usize) -> Vec<u8> {
    let mut b = Builder::new();
    let name = Some(b.create_string(&long(name_len)));
    let op = operator(&mut b, &long(name_len));
    let calls: Vec<_> = (0..operators as i32)
        .map(|i| call(&mut b, i, &[]))
        .collect();
    let plan = et::ExecutionPlanArgs {
        name,
        operators: Some(b.create_vector(&vec![op; operators])),
        chains: Some(chains(&mut b, &calls)),
        ..Default::default()
    };
    program(b, plan, listed, Default::default())
}

/// One instruction whose argument union is NONE, listed `count` times.
pub fn empty_instructions(count: usize) -> Vec<u8> {
    let mut b = Builder::new();
    let empty = et::Instruction::create(&mut b, &et::InstructionArgs::default());
    let plan = et::ExecutionPlanArgs {
        chains: Some(chains(&mut b, &vec![empty; count])),
        non_const_buffer_sizes: Some(padding(&mut b, 4096)),
        ..Default::default()
    };
    program(b, plan, 1, Default::default())
}

/// An int list value of `items` values that are not in the method, passed `uses` times to
/// one kernel call.
pub fn list_argument(items: usize, uses: usize) -> Vec<u8> {
    let mut b = Builder::new();
    let items = Some(b.create_vector(&vec![1i64 << 40; items]));
    let list = et::IntList::create(&mut b, &et::IntListArgs { items });
    let values = [value(
        &mut b,
        et::KernelTypes::IntList,
        list.as_union_value(),
    )];
    let values = Some(b.create_vector(&values));
    let op = operator(&mut b, "aten::cat");
    let operators = Some(b.create_vector(&[op]));
    let call = call(&mut b, 0, &vec![0; uses]);
    let plan = et::ExecutionPlanArgs {
        values,
        operators,
        chains: Some(chains(&mut b, &[call])),
        ..Default::default()
    };
    program(b, plan, 1, Default::default())
}

/// `n` undefined tensor values (one shared table) and one kernel call that writes each.
pub fn distinct_outputs(n: usize) -> Vec<u8> {
    let mut b = Builder::new();
    let undefined = tensor(&mut b, None);
    let values = Some(b.create_vector(&vec![undefined; n]));
    let op = operator(&mut b, "aten::split");
    let operators = Some(b.create_vector(&[op]));
    let args: Vec<i32> = (0..n as i32).collect();
    let call = call(&mut b, 0, &args);
    let plan = et::ExecutionPlanArgs {
        values,
        operators,
        chains: Some(chains(&mut b, &[call])),
        non_const_buffer_sizes: Some(padding(&mut b, 4096)),
        ..Default::default()
    };
    program(b, plan, 1, Default::default())
}

/// One method with `delegates` delegates (one shared table), listed `methods` times.
pub fn delegates_in_methods(methods: usize, delegates: usize) -> Vec<u8> {
    let mut b = Builder::new();
    let id = Some(b.create_string("B"));
    let processed = et::BackendDelegateDataReference::create(
        &mut b,
        &et::BackendDelegateDataReferenceArgs {
            location: et::DataLocation::INLINE,
            index: 0,
        },
    );
    let delegate = et::BackendDelegate::create(
        &mut b,
        &et::BackendDelegateArgs {
            id,
            processed: Some(processed),
            compile_specs: None,
        },
    );
    let plan = et::ExecutionPlanArgs {
        delegates: Some(b.create_vector(&vec![delegate; delegates])),
        ..Default::default()
    };
    // Each listing visits the method's tables and two per delegate.
    let tables = methods * (8 + 2 * delegates);
    let blob = b.create_vector(&vec![0u8; 4 * tables]);
    let blob = et::BackendDelegateInlineData::create(
        &mut b,
        &et::BackendDelegateInlineDataArgs { data: Some(blob) },
    );
    let root = et::ProgramArgs {
        backend_delegate_data: Some(b.create_vector(&[blob])),
        ..Default::default()
    };
    program(b, plan, methods, root)
}

/// A first-generation `.ptd` whose one tensor table is listed `tensors` times and whose one
/// 64-byte segment is listed `segments` times.
pub fn legacy_data(tensors: usize, segments: usize) -> Vec<u8> {
    let mut b = Builder::new();
    let name = Some(b.create_string("w"));
    let sizes = Some(b.create_vector(&[64i32]));
    let dim_order = Some(b.create_vector(&[0u8]));
    // 64 bytes (BYTE, the default scalar type).
    let tensor = lt::TensorMetadata::create(
        &mut b,
        &lt::TensorMetadataArgs {
            fully_qualified_name: name,
            scalar_type: Default::default(),
            sizes,
            dim_order,
            segment_index: 0,
            offset: 0,
        },
    );
    let segment = lt::DataSegment::create(
        &mut b,
        &lt::DataSegmentArgs {
            offset: 0,
            size: 64,
        },
    );
    // A long key pads the file for the verifier's table allowance.
    let key = Some(b.create_string(&long(2 * (tensors + segments))));
    let named = lt::NamedData::create(
        &mut b,
        &lt::NamedDataArgs {
            key,
            segment_index: 0,
        },
    );
    let root = lt::FlatTensorArgs {
        version: 0,
        tensor_alignment: 16,
        tensors: Some(b.create_vector(&vec![tensor; tensors])),
        segments: Some(b.create_vector(&vec![segment; segments])),
        named_data: Some(b.create_vector(&[named])),
    };
    let root = lt::FlatTensor::create(&mut b, &root);
    lt::finish_flat_tensor_buffer(&mut b, root);
    let (mut bytes, len) = with_fh01(b.finished_data(), 64);
    bytes.resize(len as usize, 0);
    bytes
}

/// One method whose inputs and outputs each list its one tensor value `ids` times, listed
/// `listed` times in the program.
pub fn repeated_io(ids: usize, listed: usize) -> Vec<u8> {
    let mut b = Builder::new();
    let value = tensor(&mut b, None);
    let values = Some(b.create_vector(&[value]));
    let plan = et::ExecutionPlanArgs {
        values,
        inputs: Some(b.create_vector(&vec![0i32; ids])),
        outputs: Some(b.create_vector(&vec![0i32; ids])),
        ..Default::default()
    };
    program(b, plan, listed, Default::default())
}
