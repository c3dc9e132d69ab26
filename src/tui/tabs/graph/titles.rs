//! The titles both views of the Graph tab show: where the graph is, and how the search went.

use super::query::Query;
use super::rows::{kind, name, tail};
use super::GraphTab;
use crate::inventory::{GraphId, Inventory};

/// The search's match count, or what is wrong with the query; empty without a search.
pub fn search_status(tab: &GraphTab) -> String {
    let filter = tab.list.filter().text();
    if filter.is_empty() {
        return String::new();
    }
    match Query::parse(filter) {
        Ok(_) => match tab.list.rows().len() {
            1 => "· 1 match ".to_owned(),
            n => format!("· {n} matches "),
        },
        Err(e) => format!("· {} ", crate::escape::sanitize(&e)),
    }
}

/// Where `graph` is: the operators and subgraphs leading to it from a graph with no parent,
/// such as `main › If "if" › graph 1 "then"`.
pub fn breadcrumb(inv: &Inventory, graph: GraphId) -> String {
    let mut steps = vec![graph_name(inv, graph)];
    let mut at = graph;
    // Bounded, so that parents that loop in a hostile file cannot hang the frame.
    for _ in 0..128 {
        let Some(parent) = inv.graphs.get(at).and_then(|g| g.parent) else {
            break;
        };
        if let Some(g) = inv.graphs.get(parent.graph) {
            steps.push(format!(
                "{} \"{}\"",
                kind(g, parent.node),
                name(g, parent.node)
            ));
        }
        steps.push(graph_name(inv, parent.graph));
        at = parent.graph;
    }
    steps.reverse();
    steps.join(" › ")
}

/// `main` for graph 0, else `graph N`, with the graph's name if it has one.
fn graph_name(inv: &Inventory, graph: GraphId) -> String {
    let base = match graph {
        0 => "main".to_owned(),
        g => format!("graph {g}"),
    };
    match inv.graphs.get(graph).map(|g| &g.name) {
        Some(n) if !n.is_empty() => format!("{base} \"{}\"", tail(&n.display(), 32)),
        _ => base,
    }
}
