#!/usr/bin/env python3
"""Generate src/formats/rten/tables_generated.rs from schema/rten.fbs and schema/rten_ops.tsv.

The output is plain Rust data (attribute-table layouts and the operator list)
built from the types in `src/formats/rten/table_types.rs`. Run from anywhere;
paths are resolved relative to the repository root (the parent of this
script's directory). Python 3.11+, standard library only.

The schema parser only knows the subset of the FlatBuffers IDL that
schema/rten.fbs uses: `//` and `///` comments, `attribute`, `file_identifier`,
`file_extension`, `root_type`, `enum Name: type { ... }`, `union Name { ... }`
and `table Name { field:type [= default] [(attr, attr: "value")]; }`, with
`[T]` vector types. Anything else is an error, as is any disagreement between
the schema and the operator table.

Usage: gen_rten_tables.py [--check]
  --check   do not write; exit 1 if tables_generated.rs is missing or out of date.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FBS_PATH = ROOT / "schema" / "rten.fbs"
TSV_PATH = ROOT / "schema" / "rten_ops.tsv"
OUT_PATH = ROOT / "src" / "formats" / "rten" / "tables_generated.rs"

ATTRS_UNION = "OperatorAttrs"
OP_ENUM = "OperatorType"
TSV_COLUMNS = ["value", "name", "attrs", "attrs_required", "feature", "max_inputs", "since"]
KNOWN_FEATURES = {"random", "fft"}
VERSION_RE = re.compile(r"^\d+\.\d+\.\d+$")

# FlatBuffers scalar type names (with aliases) -> canonical name.
SCALARS = {
    "bool": "bool",
    "byte": "i8", "int8": "i8",
    "ubyte": "u8", "uint8": "u8",
    "short": "i16", "int16": "i16",
    "ushort": "u16", "uint16": "u16",
    "int": "i32", "int32": "i32",
    "uint": "u32", "uint32": "u32",
    "long": "i64", "int64": "i64",
    "ulong": "u64", "uint64": "u64",
    "float": "f32", "float32": "f32",
    "double": "f64", "float64": "f64",
}
INT_TYPES = {"i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64"}


class SchemaError(Exception):
    pass


def fail(msg: str) -> None:
    raise SchemaError(msg)


# --------------------------------------------------------------------------
# Schema model and parser
# --------------------------------------------------------------------------


@dataclasses.dataclass
class FieldDef:
    name: str
    type: str  # element type for vectors
    is_vector: bool
    default: str | None  # literal text after `=`, if any
    attrs: dict[str, str | None]
    line: int

    @property
    def is_null_default(self) -> bool:
        return self.default == "null"

    @property
    def required(self) -> bool:
        return "required" in self.attrs

    @property
    def since(self) -> str | None:
        return self.attrs.get("since")


@dataclasses.dataclass
class EnumDef:
    name: str
    base: str
    values: list[tuple[str, int]]
    line: int


@dataclasses.dataclass
class UnionDef:
    name: str
    members: list[tuple[str, int]]  # (table name, tag)
    line: int


@dataclasses.dataclass
class TableDef:
    name: str
    fields: list[FieldDef]
    line: int


@dataclasses.dataclass
class Schema:
    enums: dict[str, EnumDef]
    unions: dict[str, UnionDef]
    tables: dict[str, TableDef]
    attributes: set[str]
    root_type: str | None
    file_identifier: str | None
    file_extension: str | None


TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<number>[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_.]*)
  | (?P<punct>[{}()\[\]:;,=])
    """,
    re.VERBOSE,
)


@dataclasses.dataclass
class Token:
    kind: str
    text: str
    line: int


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    pos = 0
    line = 1
    while pos < len(text):
        m = TOKEN_RE.match(text, pos)
        if m is None:
            fail(f"rten.fbs:{line}: unexpected character {text[pos]!r}")
        kind = m.lastgroup
        assert kind is not None
        value = m.group()
        if kind not in ("ws", "comment"):
            tokens.append(Token(kind, value, line))
        line += value.count("\n")
        pos = m.end()
    return tokens


class Parser:
    def __init__(self, tokens: list[Token]):
        self.toks = tokens
        self.i = 0

    def peek(self) -> Token | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def next(self) -> Token:
        tok = self.peek()
        if tok is None:
            fail("rten.fbs: unexpected end of file")
        self.i += 1
        return tok

    def expect(self, text: str) -> Token:
        tok = self.next()
        if tok.text != text:
            fail(f"rten.fbs:{tok.line}: expected {text!r}, found {tok.text!r}")
        return tok

    def ident(self) -> Token:
        tok = self.next()
        if tok.kind != "ident":
            fail(f"rten.fbs:{tok.line}: expected a name, found {tok.text!r}")
        return tok

    def accept(self, text: str) -> bool:
        tok = self.peek()
        if tok is not None and tok.text == text:
            self.i += 1
            return True
        return False

    def string(self) -> str:
        tok = self.next()
        if tok.kind != "string":
            fail(f"rten.fbs:{tok.line}: expected a string, found {tok.text!r}")
        return tok.text[1:-1]

    # -- declarations ------------------------------------------------------

    def parse(self) -> Schema:
        schema = Schema({}, {}, {}, set(), None, None, None)
        names: dict[str, int] = {}

        def declare(name: str, line: int) -> None:
            if name in names:
                fail(f"rten.fbs:{line}: {name} already declared on line {names[name]}")
            names[name] = line

        while (tok := self.peek()) is not None:
            kw = self.ident()
            if kw.text == "attribute":
                schema.attributes.add(self.string())
                self.expect(";")
            elif kw.text in ("file_identifier", "file_extension"):
                value = self.string()
                self.expect(";")
                setattr(schema, kw.text, value)
            elif kw.text == "root_type":
                schema.root_type = self.ident().text
                self.expect(";")
            elif kw.text == "enum":
                e = self.parse_enum(kw.line)
                declare(e.name, e.line)
                schema.enums[e.name] = e
            elif kw.text == "union":
                u = self.parse_union(kw.line)
                declare(u.name, u.line)
                schema.unions[u.name] = u
            elif kw.text == "table":
                t = self.parse_table(kw.line)
                declare(t.name, t.line)
                schema.tables[t.name] = t
            else:
                fail(f"rten.fbs:{tok.line}: unsupported declaration {kw.text!r}")
        return schema

    def parse_enum(self, line: int) -> EnumDef:
        name = self.ident().text
        self.expect(":")
        base = self.ident().text
        if SCALARS.get(base) not in INT_TYPES:
            fail(f"rten.fbs:{line}: enum {name} needs an integer base type, not {base}")
        self.parse_attr_list()
        self.expect("{")
        values: list[tuple[str, int]] = []
        nxt = 0
        while not self.accept("}"):
            vname = self.ident().text
            if self.accept("="):
                tok = self.next()
                if tok.kind != "number" or not re.fullmatch(r"[-+]?\d+", tok.text):
                    fail(f"rten.fbs:{tok.line}: bad value for {name}.{vname}")
                nxt = int(tok.text)
            if values and nxt <= values[-1][1]:
                fail(f"rten.fbs:{line}: values of enum {name} must increase")
            values.append((vname, nxt))
            nxt += 1
            if not self.accept(","):
                self.expect("}")
                break
        if not values:
            fail(f"rten.fbs:{line}: enum {name} is empty")
        if len({v for v, _ in values}) != len(values):
            fail(f"rten.fbs:{line}: enum {name} repeats a name")
        return EnumDef(name, base, values, line)

    def parse_union(self, line: int) -> UnionDef:
        name = self.ident().text
        self.parse_attr_list()
        self.expect("{")
        members: list[tuple[str, int]] = []
        nxt = 1
        while not self.accept("}"):
            mname = self.ident().text
            if self.accept(":"):
                fail(f"rten.fbs:{line}: aliased union members are not supported")
            if self.accept("="):
                tok = self.next()
                if tok.kind != "number" or not re.fullmatch(r"\d+", tok.text):
                    fail(f"rten.fbs:{tok.line}: bad tag for {name}.{mname}")
                nxt = int(tok.text)
            if nxt < 1 or (members and nxt <= members[-1][1]):
                fail(f"rten.fbs:{line}: tags of union {name} must start at 1 and increase")
            members.append((mname, nxt))
            nxt += 1
            if not self.accept(","):
                self.expect("}")
                break
        if len({m for m, _ in members}) != len(members):
            fail(f"rten.fbs:{line}: union {name} repeats a member")
        return UnionDef(name, members, line)

    def parse_table(self, line: int) -> TableDef:
        name = self.ident().text
        self.parse_attr_list()
        self.expect("{")
        fields: list[FieldDef] = []
        while not self.accept("}"):
            ftok = self.ident()
            self.expect(":")
            if self.accept("["):
                ftype = self.ident().text
                self.expect("]")
                is_vector = True
            else:
                ftype = self.ident().text
                is_vector = False
            default = None
            if self.accept("="):
                tok = self.next()
                if tok.kind not in ("number", "ident"):
                    fail(f"rten.fbs:{tok.line}: bad default for {name}.{ftok.text}")
                default = tok.text
            attrs = self.parse_attr_list()
            self.expect(";")
            if any(f.name == ftok.text for f in fields):
                fail(f"rten.fbs:{ftok.line}: {name}.{ftok.text} declared twice")
            fields.append(FieldDef(ftok.text, ftype, is_vector, default, attrs, ftok.line))
        return TableDef(name, fields, line)

    def parse_attr_list(self) -> dict[str, str | None]:
        attrs: dict[str, str | None] = {}
        if not self.accept("("):
            return attrs
        while True:
            key = self.ident()
            value = None
            if self.accept(":"):
                tok = self.next()
                if tok.kind == "string":
                    value = tok.text[1:-1]
                elif tok.kind in ("number", "ident"):
                    value = tok.text
                else:
                    fail(f"rten.fbs:{tok.line}: bad value for attribute {key.text}")
            if key.text in attrs:
                fail(f"rten.fbs:{key.line}: attribute {key.text} given twice")
            attrs[key.text] = value
            if self.accept(")"):
                return attrs
            self.expect(",")


# --------------------------------------------------------------------------
# Schema checks
# --------------------------------------------------------------------------

# Attributes this generator knows how to honour. `id` would change slot
# numbering and `deprecated` changes nothing on the wire but is not expected.
SUPPORTED_FIELD_ATTRS = {"required", "since"}


def check_schema(schema: Schema) -> None:
    builtin = {"required", "id", "deprecated", "key", "force_align", "bit_flags",
               "nested_flatbuffer", "flexbuffer", "hash", "original_order", "native_inline"}
    if schema.root_type is None or schema.root_type not in schema.tables:
        fail("rten.fbs: root_type must name a table")
    for table in schema.tables.values():
        for f in table.fields:
            where = f"rten.fbs:{f.line}: {table.name}.{f.name}"
            for key, value in f.attrs.items():
                if key not in SUPPORTED_FIELD_ATTRS:
                    fail(f"{where}: attribute {key!r} is not supported by this generator")
                if key not in builtin and key not in schema.attributes:
                    fail(f"{where}: attribute {key!r} is not declared with `attribute`")
            if "required" in f.attrs and f.attrs["required"] is not None:
                fail(f"{where}: `required` takes no value")
            if "since" in f.attrs:
                if f.since is None or not VERSION_RE.match(f.since):
                    fail(f"{where}: since must be a version like \"0.22.0\"")
            known = (f.type in SCALARS or f.type == "string" or f.type in schema.enums
                     or f.type in schema.unions or f.type in schema.tables)
            if not known:
                fail(f"{where}: unknown type {f.type}")
            if f.is_vector and f.type in schema.unions:
                fail(f"{where}: vectors of unions are not supported")
            if f.default is not None and (f.is_vector or f.type == "string"
                                          or f.type in schema.tables or f.type in schema.unions):
                fail(f"{where}: only scalar and enum fields can have a default")
            if f.required and not (f.is_vector or f.type == "string"
                                   or f.type in schema.tables or f.type in schema.unions):
                fail(f"{where}: only non-scalar fields can be required")
    for union in schema.unions.values():
        for member, _ in union.members:
            if member not in schema.tables:
                fail(f"rten.fbs:{union.line}: union {union.name} member {member} is not a table")


def field_slots(table: TableDef, schema: Schema) -> list[int]:
    """Vtable slot of each field (for unions: the value slot)."""
    slots = []
    next_id = 0
    for f in table.fields:
        if f.type in schema.unions and not f.is_vector:
            next_id += 1  # the hidden `<name>_type` field comes first
        slots.append(4 + 2 * next_id)
        next_id += 1
    return slots


# --------------------------------------------------------------------------
# Operator table
# --------------------------------------------------------------------------


@dataclasses.dataclass
class OpRow:
    value: int
    name: str
    attrs: str | None
    attrs_required: bool
    feature: str | None
    max_inputs: int | None
    since: str
    line: int


def parse_tsv(text: str) -> list[OpRow]:
    rows: list[OpRow] = []
    header_seen = False
    for lineno, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip() or raw.startswith("#"):
            continue
        cols = raw.split("\t")
        where = f"rten_ops.tsv:{lineno}"
        if not header_seen:
            if cols != TSV_COLUMNS:
                fail(f"{where}: header must be {' '.join(TSV_COLUMNS)} (tab-separated)")
            header_seen = True
            continue
        if len(cols) != len(TSV_COLUMNS):
            fail(f"{where}: expected {len(TSV_COLUMNS)} tab-separated columns, got {len(cols)}")
        if any(c != c.strip() or not c for c in cols):
            fail(f"{where}: empty column or stray whitespace")
        value, name, attrs, req, feature, max_inputs, since = cols
        if not value.isdigit():
            fail(f"{where}: value must be a non-negative integer")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            fail(f"{where}: bad operator name {name!r}")
        if req not in ("yes", "optional", "-"):
            fail(f"{where}: attrs_required must be yes, optional or -")
        if (attrs == "-") != (req == "-"):
            fail(f"{where}: attrs and attrs_required must both be `-` or both be set")
        if feature != "-" and feature not in KNOWN_FEATURES:
            fail(f"{where}: unknown feature {feature!r}")
        if max_inputs != "-" and not max_inputs.isdigit():
            fail(f"{where}: max_inputs must be a number or -")
        if not VERSION_RE.match(since):
            fail(f"{where}: since must be a version like 0.22.0")
        rows.append(OpRow(
            value=int(value),
            name=name,
            attrs=None if attrs == "-" else attrs,
            attrs_required=req == "yes",
            feature=None if feature == "-" else feature,
            max_inputs=None if max_inputs == "-" else int(max_inputs),
            since=since,
            line=lineno,
        ))
    if not header_seen:
        fail("rten_ops.tsv: header line missing")
    return rows


def check_ops(rows: list[OpRow], schema: Schema) -> dict[str, int]:
    """Cross-check the TSV against the schema; return attrs member -> tag."""
    if OP_ENUM not in schema.enums:
        fail(f"rten.fbs: enum {OP_ENUM} missing")
    if ATTRS_UNION not in schema.unions:
        fail(f"rten.fbs: union {ATTRS_UNION} missing")
    enum_values = schema.enums[OP_ENUM].values
    if [v for _, v in enum_values] != list(range(len(enum_values))):
        fail(f"rten.fbs: {OP_ENUM} values must be 0, 1, 2, ... without gaps")
    tags = dict(schema.unions[ATTRS_UNION].members)
    if sorted(tags.values()) != list(range(1, len(tags) + 1)):
        fail(f"rten.fbs: {ATTRS_UNION} tags must be 1, 2, 3, ... without gaps")

    errors = []
    if len(rows) != len(enum_values):
        errors.append(f"rten_ops.tsv has {len(rows)} operators, {OP_ENUM} has {len(enum_values)}")
    for i, row in enumerate(rows):
        where = f"rten_ops.tsv:{row.line}"
        if row.value != i:
            errors.append(f"{where}: value {row.value} out of order (expected {i})")
        if i < len(enum_values) and enum_values[i][0] != row.name:
            errors.append(f"{where}: value {row.value} is {row.name} here but "
                          f"{enum_values[i][0]} in {OP_ENUM}")
        if row.attrs is not None and row.attrs not in tags:
            errors.append(f"{where}: {row.attrs} is not a member of {ATTRS_UNION}")
    if errors:
        fail("operator table does not match the schema:\n  " + "\n  ".join(errors))

    used = {r.attrs for r in rows if r.attrs}
    for member in tags:
        if member not in used:
            print(f"gen_rten_tables: warning: {ATTRS_UNION} member {member} is used by no operator",
                  file=sys.stderr)
    return tags


# --------------------------------------------------------------------------
# Rust output
# --------------------------------------------------------------------------


def rust_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def rust_f32(text: str) -> str:
    try:
        float(text)
    except ValueError:
        fail(f"rten.fbs: bad float default {text!r}")
    if text.lower() in ("nan", "inf", "+inf", "-inf", "infinity", "-infinity"):
        fail(f"rten.fbs: non-finite float default {text!r} is not supported")
    t = text.lstrip("+")
    if t.startswith("."):
        t = "0" + t
    if t.startswith("-."):
        t = "-0" + t[1:]
    mantissa, _, exponent = t.lower().partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    elif mantissa.endswith("."):
        mantissa += "0"
    return mantissa + ("e" + exponent if exponent else "")


def rust_int(text: str, lo: int, hi: int, where: str) -> str:
    if not re.fullmatch(r"[-+]?\d+", text):
        fail(f"{where}: default {text!r} is not an integer")
    value = int(text)
    if not lo <= value <= hi:
        fail(f"{where}: default {value} out of range")
    return str(value)


def field_kind(table: TableDef, f: FieldDef, schema: Schema) -> str:
    where = f"rten.fbs:{f.line}: {table.name}.{f.name}"
    if f.is_vector:
        elem = SCALARS.get(f.type)
        if elem == "u32":
            return "FieldKind::VecU32"
        if elem == "i32":
            return "FieldKind::VecI32"
        fail(f"{where}: vector of {f.type} has no FieldKind")
    if f.type == "string":
        return "FieldKind::Str"
    if f.type == "Graph":
        return "FieldKind::Graph"
    if f.type == "Scalar" and f.type in schema.unions:
        return "FieldKind::Scalar"
    if f.type in schema.enums:
        enum = schema.enums[f.type]
        if SCALARS[enum.base] != "u8":
            fail(f"{where}: only ubyte enums have a FieldKind (got {enum.base})")
        if [v for _, v in enum.values] != list(range(len(enum.values))):
            fail(f"{where}: enum {enum.name} values must be 0, 1, 2, ...")
        names = "&[" + ", ".join(rust_str(n) for n, _ in enum.values) + "]"
        if f.is_null_default:
            return f"FieldKind::OptEnum {{ names: {names} }}"
        default = 0
        if f.default is not None:
            lookup = dict(enum.values)
            if f.default in lookup:
                default = lookup[f.default]
            elif re.fullmatch(r"\d+", f.default):
                default = int(f.default)
            else:
                fail(f"{where}: {f.default!r} is not a value of {enum.name}")
            if default not in lookup.values():
                fail(f"{where}: default {default} is not a value of {enum.name}")
        return f"FieldKind::Enum {{ names: {names}, default: {default} }}"
    scalar = SCALARS.get(f.type)
    if scalar == "bool":
        if f.is_null_default:
            return "FieldKind::OptBool"
        if f.default in (None, "false", "0"):
            return "FieldKind::Bool(false)"
        if f.default in ("true", "1"):
            return "FieldKind::Bool(true)"
        fail(f"{where}: bad bool default {f.default!r}")
    if scalar == "i32":
        if f.is_null_default:
            return "FieldKind::OptI32"
        return f"FieldKind::I32({rust_int(f.default or '0', -(2**31), 2**31 - 1, where)})"
    if scalar == "u32":
        if f.is_null_default:
            return "FieldKind::OptU32"
        return f"FieldKind::U32({rust_int(f.default or '0', 0, 2**32 - 1, where)})"
    if scalar == "f32":
        if f.is_null_default:
            return "FieldKind::OptF32"
        return f"FieldKind::F32({rust_f32(f.default or '0')})"
    fail(f"{where}: type {f.type} has no FieldKind")
    raise AssertionError  # unreachable


def source_sha1(path: str) -> str:
    """The SHA-1 of a source file (path from the repository root), recorded in the generated
    file so that tests/commands/generated.rs notices a source changed without regenerating."""
    root = Path(__file__).resolve().parent.parent
    return hashlib.sha1((root / path).read_bytes()).hexdigest()


def render(schema: Schema, rows: list[OpRow], tags: dict[str, int]) -> str:
    members = sorted(tags.items(), key=lambda kv: kv[1])
    out: list[str] = []
    w = out.append
    w("// @generated by schema/gen_rten_tables.py from schema/rten.fbs and")
    w("// schema/rten_ops.tsv. Do not edit: change those files and run schema/regen.sh.")
    for source in ("schema/rten.fbs", "schema/rten_ops.tsv"):
        w(f"// source {source} sha1 {source_sha1(source)}")
    w("")
    w("use super::table_types::{AttrTable, Field, FieldKind, OpInfo};")
    w("")
    w("/// Attribute tables in `OperatorAttrs` union order: index = union tag - 1.")
    w(f"pub static ATTR_TABLES: [AttrTable; {len(members)}] = [")
    for name, _tag in members:
        table = schema.tables[name]
        slots = field_slots(table, schema)
        if not table.fields:
            w(f"    AttrTable {{ name: {rust_str(name)}, fields: &[] }},")
            continue
        w(f"    AttrTable {{ name: {rust_str(name)}, fields: &[")
        for f, slot in zip(table.fields, slots):
            since = f"Some({rust_str(f.since)})" if f.since else "None"
            kind = field_kind(table, f, schema)
            w(f"        Field {{ name: {rust_str(f.name)}, slot: {slot}, kind: {kind}, since: {since} }},")
        w("    ] },")
    w("];")
    w("")
    w("/// Operators by `OperatorType` value.")
    w(f"pub static OPERATORS: [OpInfo; {len(rows)}] = [")
    for row in rows:
        attrs = f"Some({tags[row.attrs]})" if row.attrs else "None"
        feature = f"Some({rust_str(row.feature)})" if row.feature else "None"
        max_inputs = f"Some({row.max_inputs})" if row.max_inputs is not None else "None"
        w(f"    OpInfo {{ name: {rust_str(row.name)}, attrs: {attrs}, "
          f"attrs_required: {'true' if row.attrs_required else 'false'}, feature: {feature}, "
          f"max_inputs: {max_inputs}, since: {rust_str(row.since)} }},")
    w("];")
    w("")
    return "\n".join(out)


def rustfmt(path: Path) -> None:
    exe = shutil.which("rustfmt")
    if exe is None:
        fail("rustfmt not found on PATH (needed to format the generated file)")
    subprocess.run([exe, "--edition", "2021", str(path)], check=True)


def generate() -> str:
    schema = Parser(tokenize(FBS_PATH.read_text(encoding="utf-8"))).parse()
    check_schema(schema)
    rows = parse_tsv(TSV_PATH.read_text(encoding="utf-8"))
    tags = check_ops(rows, schema)
    return render(schema, rows, tags)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true",
                    help="exit 1 if tables_generated.rs is missing or differs from what would be generated")
    args = ap.parse_args()
    try:
        text = generate()
        # Format in a scratch directory inside the crate, so that rustfmt sees
        # the project's rustfmt.toml (if any) exactly as `cargo fmt` would.
        OUT_PATH.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=OUT_PATH.parent, prefix=".gen-") as tmp:
            tmp_path = Path(tmp) / OUT_PATH.name
            tmp_path.write_text(text, encoding="utf-8")
            rustfmt(tmp_path)
            formatted = tmp_path.read_text(encoding="utf-8")
    except SchemaError as e:
        print(f"gen_rten_tables: error: {e}", file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as e:
        print(f"gen_rten_tables: error: rustfmt failed ({e})", file=sys.stderr)
        return 1

    current = OUT_PATH.read_text(encoding="utf-8") if OUT_PATH.exists() else None
    rel = OUT_PATH.relative_to(ROOT)
    if args.check:
        if current != formatted:
            print(f"gen_rten_tables: {rel} is out of date; run schema/regen.sh", file=sys.stderr)
            return 1
        print(f"gen_rten_tables: {rel} is up to date")
        return 0
    if current != formatted:
        OUT_PATH.write_text(formatted, encoding="utf-8")
        print(f"gen_rten_tables: wrote {rel}")
    else:
        print(f"gen_rten_tables: {rel} unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
