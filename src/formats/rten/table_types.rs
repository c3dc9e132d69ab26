//! Types of the schema-derived tables in `tables_generated.rs`.

/// An attribute table of the `OperatorAttrs` union.
pub struct AttrTable {
    /// Table name, such as `ConvAttrs`.
    pub name: &'static str,
    /// Fields in declaration order.
    pub fields: &'static [Field],
}

/// One field of an attribute table.
pub struct Field {
    /// Field name.
    pub name: &'static str,
    /// FlatBuffers vtable slot (4 + 2 * field id).
    pub slot: u16,
    /// Type and default.
    pub kind: FieldKind,
    /// First rten release that reads the field, if it was added after the first one.
    pub since: Option<&'static str>,
}

/// Field types used by attribute tables, with their schema defaults.
pub enum FieldKind {
    /// `bool` with default.
    Bool(bool),
    /// `int` with default.
    I32(i32),
    /// `uint` with default.
    U32(u32),
    /// `float` with default.
    F32(f32),
    /// Optional `int`.
    OptI32,
    /// Optional `uint`.
    OptU32,
    /// Optional `float`.
    OptF32,
    /// A `ubyte` enum with its value names and default.
    Enum {
        /// Names by value.
        names: &'static [&'static str],
        /// Default value.
        default: u8,
    },
    /// An optional `ubyte` enum.
    OptEnum {
        /// Names by value.
        names: &'static [&'static str],
    },
    /// `[uint]`.
    VecU32,
    /// `[int]`.
    VecI32,
    /// `string`.
    Str,
    /// A subgraph table.
    Graph,
    /// The `Scalar` union: the value table at `slot`, its type tag at `slot - 2`.
    Scalar,
}

/// What rten expects of one operator type.
pub struct OpInfo {
    /// Operator name.
    pub name: &'static str,
    /// The `OperatorAttrs` tag the operator reads, if any.
    pub attrs: Option<u8>,
    /// Whether rten refuses the operator when the attributes are absent.
    pub attrs_required: bool,
    /// The rten cargo feature the operator needs, if any.
    pub feature: Option<&'static str>,
    /// The most inputs rten accepts, if rtenx knows it.
    pub max_inputs: Option<u32>,
    /// First rten release with the operator.
    pub since: &'static str,
}
