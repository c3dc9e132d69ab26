//! The neighbourhood of one node, laid out as boxes: producers in the rows above, the node in
//! the middle with its subgraphs beside it, consumers in the rows below, one or two hops each
//! way. A second-hop box sits above (or below) the first-hop box it links to, so every line
//! joins a box to one box of the next row. Rows hold what fits; the rest is one `+N more` box.
//! A scope drawn as one box has its boundary ([`Boundary`]) in the rows next to it instead.

use super::boundary::Boundary;
use super::index::GraphIndex;
use crate::inventory::{Graph, GraphId, NodeId, NodeKind, ScopeId};
use ratatui::layout::Rect;

/// Neighbours of one node looked at (repeats count): a node with more is shown in part, so
/// that a hostile file listing millions of links cannot slow a frame.
const SCAN: usize = 4096;
/// Height of a neighbour's box.
const BOX_H: u16 = 4;
/// Height of the centre's box and its subgraphs' boxes.
pub const CENTRE_H: u16 = 5;
/// Narrowest first-hop and second-hop boxes.
const MIN_W: u16 = 16;
const MIN_W2: u16 = 12;
/// Widest neighbour box, centre box and subgraph box.
const MAX_W: u16 = 30;
const CENTRE_W: u16 = 60;
const SUB_W: u16 = 20;

/// Producers (up) or consumers (down).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// Towards producers.
    Up,
    /// Towards consumers.
    Down,
}

/// What a box shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    /// A node of the graph.
    Node(NodeId),
    /// A subgraph of the centre.
    Graph(GraphId),
    /// A scope of the main graph, drawn as one box.
    Scope(ScopeId),
    /// Neighbours left out: how many, and whether links past [`SCAN`] were not read (so
    /// there may be more).
    More {
        /// Distinct neighbours found and not shown.
        count: usize,
        /// Some links were not read.
        partial: bool,
    },
}

/// A box on screen: its row (negative above the centre) and place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placed {
    /// What it shows.
    pub item: Item,
    /// Hops from the centre: -2 to 2.
    pub level: i8,
    /// Where it is.
    pub rect: Rect,
}

/// Lines joining the boxes above a screen row to the boxes below it: the columns where the
/// upper boxes come down and the lower boxes go up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Joint {
    /// The screen row between the boxes.
    pub row: u16,
    /// Columns of the upper boxes' middles.
    pub uppers: Vec<u16>,
    /// Columns of the lower boxes' middles.
    pub lowers: Vec<u16>,
}

/// The boxes (the centre first) and the lines between them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    /// Every box; the centre is the first.
    pub boxes: Vec<Placed>,
    /// The lines.
    pub joints: Vec<Joint>,
}

/// Up to `limit` distinct neighbours of `id`, and how many more there are (at least, for a
/// node with more than [`SCAN`] links). The producers of
/// an operator are the operators writing its inputs, and the inputs no operator writes except
/// constants (graph inputs); its consumers are the operators reading its outputs, and the
/// outputs nothing reads (graph outputs). A value's are its writer and readers.
pub fn neighbours(
    graph: &Graph,
    index: &GraphIndex,
    id: NodeId,
    dir: Dir,
    limit: usize,
) -> (Vec<NodeId>, More) {
    let op = match graph.node(id).map(|n| n.kind) {
        Some(NodeKind::Operator(op)) => Some(op),
        Some(_) => None,
        None => return (Vec::new(), More::default()),
    };
    // Every neighbour found, repeats too, in order; each costs one of the `SCAN` looked at.
    let candidates: Box<dyn Iterator<Item = NodeId>> = match (op, dir) {
        (Some(op), Dir::Up) => Box::new(op.inputs().iter().flatten().filter_map(|&input| {
            let kind = graph.node(input).map(|n| n.kind);
            match index.producer(input) {
                Some(p) => Some(p),
                None => matches!(kind, Some(NodeKind::Value(_))).then_some(input),
            }
        })),
        (Some(op), Dir::Down) => Box::new(op.outputs().iter().flatten().flat_map(|&output| {
            // An output nothing reads stands for itself (a graph output).
            let readers = index.consumers(output);
            let alone = readers.is_empty().then_some(output);
            readers.iter().copied().chain(alone)
        })),
        (None, Dir::Up) => Box::new(index.producer(id).into_iter()),
        (None, Dir::Down) => Box::new(index.consumers(id).iter().copied()),
    };
    let mut found: Vec<NodeId> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut looked = 0;
    for n in candidates.take(SCAN + 1) {
        looked += 1;
        if looked <= SCAN && seen.insert(n) {
            found.push(n);
        }
    }
    let more = More {
        count: found.len().saturating_sub(limit),
        partial: looked > SCAN,
    };
    found.truncate(limit);
    (found, more)
}

/// What [`neighbours`] left out: see [`Item::More`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct More {
    count: usize,
    partial: bool,
}

/// Up to `fit` items for `ids`, the last one `+N more` if they do not all fit or some links
/// were not read.
fn capped(mut ids: Vec<NodeId>, more: More, fit: usize) -> Vec<Item> {
    let total = ids.len() + more.count;
    if total > fit || (more.partial && ids.len() >= fit) {
        ids.truncate(fit.saturating_sub(1));
    }
    let mut items: Vec<Item> = ids.into_iter().map(Item::Node).collect();
    if (total > items.len() || more.partial) && fit > 0 {
        items.push(Item::More {
            count: total - items.len(),
            partial: more.partial,
        });
    }
    items
}

/// `items` in a row of boxes spread over `width` columns from `x`: each item gets an equal
/// slot and a box at most [`MAX_W`] wide in its middle.
fn spread(items: &[Item], level: i8, x: u16, width: u16, y: u16, h: u16) -> Vec<(Placed, Rect)> {
    let n = items.len().max(1) as u16;
    let slot = width / n;
    let w = slot.saturating_sub(1).min(MAX_W);
    (0..)
        .zip(items)
        .map(|(i, &item)| {
            let sx = x + i * slot;
            let rect = Rect::new(sx + (slot - w) / 2, y, w, h);
            let slot = Rect::new(sx, y, slot, h);
            (Placed { item, level, rect }, slot)
        })
        .collect()
}

/// The middle column of a box.
pub fn middle(r: Rect) -> u16 {
    r.x + r.width / 2
}

/// What the neighbourhood is drawn around.
#[derive(Debug, Clone, Copy)]
pub enum Centre<'a> {
    /// A node, with its subgraphs beside it.
    Node(NodeId),
    /// A scope as one box, with what crosses its edge.
    Scope(&'a Boundary),
}

/// Lays out the neighbourhood of `centre` in `area`: two hops each way if the height allows,
/// one if not, none in very little room.
pub fn layout(graph: &Graph, index: &GraphIndex, centre: Centre, area: Rect) -> Layout {
    let hops: u16 = match area.height {
        h if h >= CENTRE_H + 4 * (BOX_H + 1) => 2,
        h if h >= CENTRE_H + 2 * (BOX_H + 1) => 1,
        _ => 0,
    };
    let mut out = Layout::default();
    let centre_y = area.y + hops * (BOX_H + 1);
    let (item, subgraphs): (Item, &[GraphId]) = match centre {
        Centre::Node(id) => match graph.node(id).map(|n| n.kind) {
            Some(NodeKind::Operator(op)) => (Item::Node(id), op.subgraphs()),
            _ => (Item::Node(id), &[]),
        },
        Centre::Scope(b) => (Item::Scope(b.scope), &[]),
    };
    // The centre, with as many subgraph boxes on its right as leave it 24 columns.
    let fit = (area.width.saturating_sub(24) / (SUB_W + 1)) as usize;
    let shown = subgraphs.iter().take(fit).map(|&g| g as NodeId).collect();
    let left = More {
        count: subgraphs.len().saturating_sub(fit),
        partial: false,
    };
    let subs: Vec<Item> = capped(shown, left, fit)
        .into_iter()
        .map(|item| match item {
            Item::Node(g) => Item::Graph(g as GraphId),
            more => more,
        })
        .collect();
    let subs_w = subs.len() as u16 * (SUB_W + 1);
    let cw = area.width.saturating_sub(subs_w).min(CENTRE_W);
    let cx = area.x + area.width.saturating_sub(cw + subs_w) / 2;
    let centre_rect = Rect::new(cx, centre_y, cw, CENTRE_H.min(area.height));
    out.boxes.push(Placed {
        item,
        level: 0,
        rect: centre_rect,
    });
    for (i, item) in (0..).zip(subs) {
        let rect = Rect::new(
            cx + cw + 1 + i * (SUB_W + 1),
            centre_y,
            SUB_W,
            centre_rect.height,
        );
        out.boxes.push(Placed {
            item,
            level: 0,
            rect,
        });
    }
    if hops == 0 {
        return out;
    }
    for dir in [Dir::Up, Dir::Down] {
        let sign: i8 = if dir == Dir::Up { -1 } else { 1 };
        let (y1, y2, joint1) = match dir {
            Dir::Up => (
                centre_y - BOX_H - 1,
                centre_y.saturating_sub(2 * (BOX_H + 1)),
                centre_y - 1,
            ),
            Dir::Down => (
                centre_y + CENTRE_H + 1,
                centre_y + CENTRE_H + BOX_H + 2,
                centre_y + CENTRE_H,
            ),
        };
        let fit = (area.width / MIN_W).max(1) as usize;
        let (ids, more) = match centre {
            Centre::Node(id) => neighbours(graph, index, id, dir, fit),
            Centre::Scope(b) => {
                let ends = if dir == Dir::Up {
                    &b.producers
                } else {
                    &b.consumers
                };
                let more = More {
                    count: ends.len().saturating_sub(fit),
                    partial: false,
                };
                (ends.iter().take(fit).copied().collect(), more)
            }
        };
        let first = spread(&capped(ids, more, fit), sign, area.x, area.width, y1, BOX_H);
        if first.is_empty() {
            continue;
        }
        let mids: Vec<u16> = first.iter().map(|(p, _)| middle(p.rect)).collect();
        let (uppers, lowers) = match dir {
            Dir::Up => (mids, vec![middle(centre_rect)]),
            Dir::Down => (vec![middle(centre_rect)], mids),
        };
        out.joints.push(Joint {
            row: joint1,
            uppers,
            lowers,
        });
        for (placed, slot) in first {
            out.boxes.push(placed);
            let Item::Node(id) = placed.item else {
                continue;
            };
            if hops < 2 {
                continue;
            }
            let fit = (slot.width / MIN_W2) as usize;
            let (ids, more) = neighbours(graph, index, id, dir, fit);
            let second = spread(
                &capped(ids, more, fit),
                2 * sign,
                slot.x,
                slot.width,
                y2,
                BOX_H,
            );
            if second.is_empty() {
                continue;
            }
            let mids: Vec<u16> = second.iter().map(|(p, _)| middle(p.rect)).collect();
            let (row, uppers, lowers) = match dir {
                Dir::Up => (y1 - 1, mids, vec![middle(placed.rect)]),
                Dir::Down => (y2 - 1, vec![middle(placed.rect)], mids),
            };
            out.joints.push(Joint {
                row,
                uppers,
                lowers,
            });
            out.boxes.extend(second.into_iter().map(|(p, _)| p));
        }
    }
    out
}

/// A move between boxes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    /// To the nearest box of the row above.
    Up,
    /// To the nearest box of the row below.
    Down,
    /// To the box on the left in the same row.
    Left,
    /// To the box on the right in the same row.
    Right,
}

impl Layout {
    /// The box reached from box `from` by `step`; `from` itself if there is none that way.
    pub fn step(&self, from: usize, step: Move) -> usize {
        let Some(at) = self.boxes.get(from) else {
            return 0;
        };
        let x = middle(at.rect);
        let row = |level: i8| (0..self.boxes.len()).filter(move |&i| self.boxes[i].level == level);
        let found = match step {
            Move::Up | Move::Down => {
                let level = at.level + if step == Move::Up { -1 } else { 1 };
                row(level).min_by_key(|&i| middle(self.boxes[i].rect).abs_diff(x))
            }
            Move::Left => row(at.level)
                .filter(|&i| self.boxes[i].rect.x < at.rect.x)
                .max_by_key(|&i| self.boxes[i].rect.x),
            Move::Right => row(at.level)
                .filter(|&i| self.boxes[i].rect.x > at.rect.x)
                .min_by_key(|&i| self.boxes[i].rect.x),
        };
        found.unwrap_or(from)
    }
}

#[cfg(test)]
mod tests {
    use super::super::index::tests::diamond;
    use super::*;

    fn exact(count: usize) -> More {
        More {
            count,
            partial: false,
        }
    }

    #[test]
    fn neighbours_skip_constants_and_merge_repeats() {
        let (inv, m) = diamond();
        let g = &inv.graphs[0];
        let index = GraphIndex::build(&inv, 0);
        assert_eq!(neighbours(g, &index, m, Dir::Up, 9), (vec![1, 2], exact(0)));
        assert_eq!(
            neighbours(g, &index, 1, Dir::Up, 9),
            (vec![0], exact(0)),
            "a graph input"
        );
        let (readers, more) = neighbours(g, &index, m, Dir::Down, 4);
        assert_eq!((readers, more), (vec![7, 9, 10, 11], exact(27)));
        assert_eq!(neighbours(g, &index, 7, Dir::Down, 4), (vec![], exact(0)));
        assert_eq!(
            neighbours(g, &index, 0, Dir::Down, 4),
            (vec![1, 2], exact(0))
        );
    }

    #[test]
    fn a_node_with_many_readers_costs_a_bounded_look() {
        use super::super::index::tests::{inventory, node, op};
        use crate::inventory::NewKind;
        let mut nodes = vec![node(NewKind::Value(Default::default()))];
        nodes.extend((0..10_000).map(|_| op(&[0], &[])));
        let inv = inventory(nodes);
        let index = GraphIndex::build(&inv, 0);
        let (shown, more) = neighbours(&inv.graphs[0], &index, 0, Dir::Down, 5);
        assert_eq!(shown, [1, 2, 3, 4, 5]);
        let looked = More {
            count: SCAN - 5,
            partial: true,
        };
        assert_eq!(more, looked, "the rest counted as far as looked at");
    }

    #[test]
    fn two_hops_fit_in_rows_with_the_rest_counted() {
        let (inv, m) = diamond();
        let g = &inv.graphs[0];
        let index = GraphIndex::build(&inv, 0);
        let out = layout(g, &index, Centre::Node(m), Rect::new(0, 0, 80, 25));
        let level = |l: i8| -> Vec<Item> {
            out.boxes
                .iter()
                .filter(|b| b.level == l)
                .map(|b| b.item)
                .collect()
        };
        assert_eq!(level(0), [Item::Node(m)]);
        assert_eq!(level(-1), [Item::Node(1), Item::Node(2)]);
        assert_eq!(
            level(-2),
            [Item::Node(0), Item::Node(0)],
            "x above each of its readers"
        );
        // 80 columns hold 5 first-hop boxes: 4 readers and "+27 more".
        assert_eq!(level(1).len(), 5);
        assert_eq!(
            level(1)[4],
            Item::More {
                count: 27,
                partial: false
            }
        );
        for b in &out.boxes {
            assert!(b.rect.right() <= 80 && b.rect.bottom() <= 25, "{b:?}");
        }
        // Every line joins rows that exist, and no two boxes overlap.
        for (i, a) in out.boxes.iter().enumerate() {
            for b in &out.boxes[i + 1..] {
                assert!(!a.rect.intersects(b.rect), "{a:?} {b:?}");
            }
        }
        assert_eq!(
            out.joints.len(),
            2 + 2,
            "centre up and down, and one per producer"
        );
        // One hop in less height; the centre alone in very little.
        let one = layout(g, &index, Centre::Node(m), Rect::new(0, 0, 80, 24));
        assert!(one.boxes.iter().all(|b| b.level.abs() <= 1));
        assert!(one.boxes.iter().any(|b| b.level == 1));
        assert_eq!(
            layout(g, &index, Centre::Node(m), Rect::new(0, 0, 80, 14))
                .boxes
                .len(),
            1
        );
        assert_eq!(
            layout(g, &index, Centre::Node(m), Rect::new(0, 0, 0, 0))
                .boxes
                .len(),
            1
        );
    }

    #[test]
    fn a_scope_box_has_its_boundary_in_the_rows_beside_it_with_the_rest_counted() {
        let (inv, _) = diamond();
        let g = &inv.graphs[0];
        let index = GraphIndex::build(&inv, 0);
        let b = Boundary {
            scope: 3,
            producers: (0..100).collect(),
            consumers: vec![7],
            edges_in: 150,
            edges_out: 1,
        };
        let out = layout(g, &index, Centre::Scope(&b), Rect::new(0, 0, 80, 25));
        let level = |l: i8| -> Vec<Item> {
            (out.boxes.iter().filter(|b| b.level == l))
                .map(|b| b.item)
                .collect()
        };
        assert_eq!(level(0), [Item::Scope(3)]);
        let above = level(-1);
        assert_eq!(above.len(), 5, "80 columns hold 5 boxes");
        assert_eq!(above[..4], (0..4).map(Item::Node).collect::<Vec<_>>()[..]);
        let more = Item::More {
            count: 96,
            partial: false,
        };
        assert_eq!(above[4], more);
        assert_eq!(level(1), [Item::Node(7)]);
        assert!(level(2).is_empty(), "r reads nothing onwards");
    }

    #[test]
    fn moves_go_to_the_nearest_box_and_stop_at_the_edges() {
        let (inv, m) = diamond();
        let index = GraphIndex::build(&inv, 0);
        let out = layout(
            &inv.graphs[0],
            &index,
            Centre::Node(m),
            Rect::new(0, 0, 80, 25),
        );
        let up = out.step(0, Move::Up);
        assert_eq!(out.boxes[up].level, -1);
        let right = out.step(up, Move::Right);
        assert!(out.boxes[right].rect.x > out.boxes[up].rect.x);
        assert_eq!(out.step(right, Move::Right), right, "the last of its row");
        assert_eq!(out.boxes[out.step(0, Move::Down)].level, 1);
        assert_eq!(out.step(0, Move::Left), 0);
        let top = out.step(up, Move::Up);
        assert_eq!(out.step(top, Move::Up), top);
        assert_eq!(out.step(99, Move::Up), 0);
    }
}
