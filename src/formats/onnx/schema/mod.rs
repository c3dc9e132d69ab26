//! Operator schemas of the standard ONNX domains and onnxruntime's contrib domains, and
//! which version of them a node follows.

mod check;
pub mod table;

pub(super) use check::check_node;
pub use table::Schema;

use crate::inventory::hashing::Seeded;
use crate::inventory::NodeId;

/// The domains whose operators ONNX itself defines, and onnx.checker holds to them.
const STANDARD: [&str; 3] = ["ai.onnx", "ai.onnx.ml", "ai.onnx.training"];

/// Other domains in the table, whose unknown operators onnx.checker lets pass: ONNX's
/// preview domains and onnxruntime's contrib domains (as `schema/gen_onnx_ops.py` lists them).
const OTHERS: [&str; 4] = [
    "ai.onnx.preview.training",
    "ai.onnx.preview",
    "com.microsoft",
    "com.microsoft.nchwc",
];

/// A domain name as the table spells it: the default domain is `ai.onnx`.
pub fn canonical(domain: &[u8]) -> &[u8] {
    if domain.is_empty() {
        b"ai.onnx"
    } else {
        domain
    }
}

/// The opset imports that apply to a graph: the model's, or a function's own.
#[derive(Debug, Default, Clone)]
pub struct Opsets {
    imports: Vec<Import>,
}

/// One domain's opset import.
#[derive(Debug, Clone)]
struct Import {
    /// The domain, canonical.
    domain: Box<[u8]>,
    version: i64,
    /// The domain's operators in the table, looked up once rather than for every node.
    ops: Option<&'static table::Ops>,
}

/// What a node's (domain, op_type) resolves to under a graph's opset imports.
#[derive(Debug)]
pub enum Resolved {
    /// The schema in force: the latest version at or below the imported one.
    Found(&'static Schema),
    /// The node's domain has no opset import.
    NotImported,
    /// A standard or contrib domain that has no such operator at the imported version;
    /// `first` is the earliest version that has it, if any.
    Unknown { version: i64, first: Option<i64> },
    /// A domain rtenx knows nothing about, such as a model-local function's.
    Custom,
}

impl Opsets {
    /// Opsets from (domain, version) pairs as a ModelProto or FunctionProto lists them; the
    /// last import of a domain wins, as in onnx.
    pub fn new<'b>(pairs: impl IntoIterator<Item = (&'b [u8], i64)>) -> Self {
        let mut imports: Vec<Import> = Vec::new();
        for (domain, version) in pairs {
            let domain = canonical(domain);
            imports.retain(|i| &i.domain[..] != domain);
            imports.push(Import {
                domain: domain.into(),
                version,
                ops: table::table().get(domain),
            });
        }
        Opsets { imports }
    }

    /// Whether nothing is imported (which OX004 reports for the model).
    pub fn is_empty(&self) -> bool {
        self.imports.is_empty()
    }

    fn import(&self, domain: &[u8]) -> Option<&Import> {
        let domain = canonical(domain);
        self.imports.iter().find(|i| &i.domain[..] == domain)
    }

    /// The imported version of `domain`.
    pub fn version(&self, domain: &[u8]) -> Option<i64> {
        self.import(domain).map(|i| i.version)
    }

    /// The schema `op_type` of `domain` follows here.
    pub fn resolve(&self, domain: &[u8], op_type: &[u8]) -> Resolved {
        let Some(import) = self.import(domain) else {
            return Resolved::NotImported;
        };
        let version = import.version;
        match import
            .ops
            .and_then(|ops| ops.get(op_type))
            .map(table::Versions::all)
        {
            Some(versions) => match versions.iter().rev().find(|s| s.since <= version) {
                Some(schema) => Resolved::Found(schema),
                None => Resolved::Unknown {
                    version,
                    first: versions.first().map(|s| s.since),
                },
            },
            None if is_known_domain(&import.domain) => Resolved::Unknown {
                version,
                first: None,
            },
            None => Resolved::Custom,
        }
    }
}

/// Whether onnx.checker refuses an unknown operator of `domain`: it does for ai.onnx,
/// ai.onnx.ml and ai.onnx.training, not for the preview domains.
pub fn refuses_unknown(domain: &str) -> bool {
    STANDARD.contains(&domain)
}

/// Whether the table lists operators of `domain` (standard or contrib).
fn is_known_domain(domain: &[u8]) -> bool {
    (STANDARD.iter().chain(&OTHERS)).any(|d| d.as_bytes() == domain)
}

/// A function's (canonical domain, name).
type FunctionId = (Box<[u8]>, Box<[u8]>);

/// What the schema checks need to know about a model: the opset imports of each graph and
/// the model-local functions, which nodes may call in any domain.
#[derive(Debug, Default)]
pub struct Context {
    /// The model's opsets first, then each function's.
    pub opsets: Vec<Opsets>,
    /// Index into `opsets` for each graph, by graph id.
    pub graph_opsets: Vec<usize>,
    /// (canonical domain, name) of each model-local function.
    pub functions: std::collections::HashSet<FunctionId, Seeded>,
    /// The schema each operator node follows, by graph id, in node order: what
    /// [`check_node`] resolved, kept for the type inference.
    found: Vec<Vec<(NodeId, &'static Schema)>>,
}

impl Context {
    /// Records that graph `graph` follows the opsets at index `opsets`.
    pub fn assign(&mut self, graph: usize, opsets: usize) {
        if self.graph_opsets.len() <= graph {
            self.graph_opsets.resize(graph + 1, 0);
        }
        if let Some(slot) = self.graph_opsets.get_mut(graph) {
            *slot = opsets;
        }
    }

    /// The opsets graph `graph` follows.
    pub fn of(&self, graph: usize) -> &Opsets {
        let index = self.graph_opsets.get(graph).copied().unwrap_or(0);
        static NONE: Opsets = Opsets {
            imports: Vec::new(),
        };
        self.opsets.get(index).unwrap_or(&NONE)
    }

    /// Records that node `node` of graph `graph` follows `schema`.
    pub fn found(&mut self, graph: usize, node: NodeId, schema: &'static Schema) {
        if self.found.len() <= graph {
            self.found.resize_with(graph + 1, Vec::new);
        }
        if let Some(found) = self.found.get_mut(graph) {
            found.push((node, schema));
        }
    }

    /// The schemas the operators of graph `graph` follow, in node order.
    pub fn schemas(&self, graph: usize) -> &[(NodeId, &'static Schema)] {
        self.found.get(graph).map_or(&[], Vec::as_slice)
    }

    /// Whether a model-local function is named (`domain`, `name`).
    pub fn is_function(&self, domain: &[u8], name: &[u8]) -> bool {
        !self.functions.is_empty()
            && self
                .functions
                .contains(&(canonical(domain).into(), name.into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn since(opsets: &Opsets, domain: &[u8], op: &[u8]) -> Option<i64> {
        match opsets.resolve(domain, op) {
            Resolved::Found(schema) => Some(schema.since),
            _ => None,
        }
    }

    #[test]
    fn an_operator_follows_its_latest_version_at_or_below_the_import() {
        let opsets = Opsets::new([(&b""[..], 12), (b"ai.onnx.ml", 3)]);
        assert_eq!(since(&opsets, b"", b"Cast"), Some(9));
        assert_eq!(since(&opsets, b"ai.onnx", b"Cast"), Some(9));
        let later = Opsets::new([(&b"ai.onnx"[..], 5), (b"", 13)]);
        assert_eq!(
            since(&later, b"", b"Cast"),
            Some(13),
            "the last import wins"
        );
        assert!(matches!(
            opsets.resolve(b"", b"Gelu"),
            Resolved::Unknown {
                version: 12,
                first: Some(20)
            }
        ));
        assert!(matches!(
            opsets.resolve(b"com.example", b"Gelu"),
            Resolved::NotImported
        ));
        let custom = Opsets::new([(&b"com.example"[..], 1)]);
        assert!(matches!(
            custom.resolve(b"com.example", b"Gelu"),
            Resolved::Custom
        ));
    }
}
