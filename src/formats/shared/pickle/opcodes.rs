//! The opcodes of pickle protocols 0 to 5, as CPython's `Lib/pickletools.py` documents them:
//! each byte's name, how its argument is encoded, and whether `torch.load(weights_only=True)`
//! implements it.

/// How an opcode's argument follows it in the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg {
    /// No argument.
    None,
    /// One byte.
    U8,
    /// A little-endian `u16`.
    U16,
    /// A little-endian `i32`.
    I32,
    /// A little-endian `u32`.
    U32,
    /// A little-endian `u64`.
    U64,
    /// Text up to a newline (protocol 0 numbers, strings, memo keys, persistent ids).
    Line,
    /// Two newline-ended lines: a module and a name (`GLOBAL`, `INST`).
    Lines,
    /// A one-byte length, then that many bytes.
    Bytes8,
    /// A little-endian `u32` length, then that many bytes.
    Bytes32,
    /// A little-endian `i32` length (negative is an error), then that many bytes.
    SignedBytes32,
    /// A little-endian `u64` length, then that many bytes.
    Bytes64,
}

/// One opcode: its byte, name and argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Op {
    /// The opcode byte.
    pub code: u8,
    /// Its name in `pickletools`, such as `STACK_GLOBAL`.
    pub name: &'static str,
    /// How its argument is encoded.
    pub arg: Arg,
}

macro_rules! opcodes {
    ($($ident:ident = ($code:literal, $arg:ident);)+) => {
        $(
            #[doc = concat!("`", stringify!($ident), "`.")]
            pub const $ident: u8 = $code;
        )+
        /// The opcode with byte `code`, if it is one.
        pub fn op(code: u8) -> Option<Op> {
            match code {
                $($code => Some(Op { code, name: stringify!($ident), arg: Arg::$arg }),)+
                _ => None,
            }
        }
    };
}

opcodes! {
    MARK = (b'(', None);
    STOP = (b'.', None);
    POP = (b'0', None);
    POP_MARK = (b'1', None);
    DUP = (b'2', None);
    FLOAT = (b'F', Line);
    INT = (b'I', Line);
    BININT = (b'J', I32);
    BININT1 = (b'K', U8);
    LONG = (b'L', Line);
    BININT2 = (b'M', U16);
    NONE = (b'N', None);
    PERSID = (b'P', Line);
    BINPERSID = (b'Q', None);
    REDUCE = (b'R', None);
    STRING = (b'S', Line);
    BINSTRING = (b'T', SignedBytes32);
    SHORT_BINSTRING = (b'U', Bytes8);
    UNICODE = (b'V', Line);
    BINUNICODE = (b'X', Bytes32);
    APPEND = (b'a', None);
    BUILD = (b'b', None);
    GLOBAL = (b'c', Lines);
    DICT = (b'd', None);
    EMPTY_DICT = (b'}', None);
    APPENDS = (b'e', None);
    GET = (b'g', Line);
    BINGET = (b'h', U8);
    INST = (b'i', Lines);
    LONG_BINGET = (b'j', U32);
    LIST = (b'l', None);
    EMPTY_LIST = (b']', None);
    OBJ = (b'o', None);
    PUT = (b'p', Line);
    BINPUT = (b'q', U8);
    LONG_BINPUT = (b'r', U32);
    SETITEM = (b's', None);
    TUPLE = (b't', None);
    EMPTY_TUPLE = (b')', None);
    SETITEMS = (b'u', None);
    BINFLOAT = (b'G', U64);
    PROTO = (0x80, U8);
    NEWOBJ = (0x81, None);
    EXT1 = (0x82, U8);
    EXT2 = (0x83, U16);
    EXT4 = (0x84, I32);
    TUPLE1 = (0x85, None);
    TUPLE2 = (0x86, None);
    TUPLE3 = (0x87, None);
    NEWTRUE = (0x88, None);
    NEWFALSE = (0x89, None);
    LONG1 = (0x8a, Bytes8);
    LONG4 = (0x8b, SignedBytes32);
    BINBYTES = (b'B', Bytes32);
    SHORT_BINBYTES = (b'C', Bytes8);
    SHORT_BINUNICODE = (0x8c, Bytes8);
    BINUNICODE8 = (0x8d, Bytes64);
    BINBYTES8 = (0x8e, Bytes64);
    EMPTY_SET = (0x8f, None);
    ADDITEMS = (0x90, None);
    FROZENSET = (0x91, None);
    NEWOBJ_EX = (0x92, None);
    STACK_GLOBAL = (0x93, None);
    MEMOIZE = (0x94, None);
    FRAME = (0x95, U64);
    BYTEARRAY8 = (0x96, Bytes64);
    NEXT_BUFFER = (0x97, None);
    READONLY_BUFFER = (0x98, None);
}

/// The opcodes `torch.load(weights_only=True)` implements (`torch/_weights_only_unpickler.py`,
/// torch 2.15.0); it refuses any other with "Unsupported operand".
pub const WEIGHTS_ONLY: &[u8] = &[
    GLOBAL,
    NEWOBJ,
    REDUCE,
    BUILD,
    APPEND,
    APPENDS,
    SETITEM,
    SETITEMS,
    MARK,
    TUPLE,
    TUPLE1,
    TUPLE2,
    TUPLE3,
    NONE,
    NEWFALSE,
    NEWTRUE,
    EMPTY_TUPLE,
    EMPTY_LIST,
    EMPTY_DICT,
    EMPTY_SET,
    BININT,
    BININT1,
    BININT2,
    BINFLOAT,
    BINUNICODE,
    SHORT_BINSTRING,
    BINPERSID,
    BINGET,
    LONG_BINGET,
    BINPUT,
    LONG_BINPUT,
    LONG1,
    PROTO,
    STOP,
];

/// The name of opcode byte `code`, or `0x..` for a byte that is none.
pub fn name(code: u8) -> String {
    op(code).map_or_else(|| format!("0x{code:02x}"), |op| op.name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_every_opcode_of_protocols_0_to_5_once() {
        let known: Vec<u8> = (0..=255).filter(|&c| op(c).is_some()).collect();
        // pickletools.opcodes has 68 entries.
        assert_eq!(known.len(), 68);
        assert_eq!(op(0x93).map(|o| o.name), Some("STACK_GLOBAL"));
        assert_eq!(name(0xff), "0xff");
        assert!(WEIGHTS_ONLY.iter().all(|&c| op(c).is_some()));
    }
}
