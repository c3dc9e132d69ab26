//! A group's links: an old-style group's symbol table (a version 1 B-tree whose leaves are
//! symbol table nodes, names in a local heap), or a new-style group's link messages.

use super::heap::LocalHeap;
use super::object::kind;
use super::rules::{HDF5_LOOP, HDF5_NOT_READ};
use super::superblock::File;
use super::{byte, need, number, signature, Failed, Object, Problem};
use crate::check::Place;
use crate::escape::excerpt;
use crate::formats::shared::bytes::Stop;
use crate::formats::shared::context::Context;
use crate::inventory::hashing::HashSet;

/// A hard link: a name and the object header it leads to.
#[derive(Debug, Clone, Copy)]
pub struct Link<'a> {
    /// The name.
    pub name: &'a [u8],
    /// The object header's address.
    pub target: u64,
    /// Where the link is recorded.
    pub at: u64,
}

/// The hard links of the group `object` (nothing if it is not a group), each paid from the
/// budget. Links the reader does not follow are reported (HD004).
pub fn links<'a>(
    cx: &mut Context<'_>,
    file: &File<'a>,
    object: &Object<'a>,
) -> Result<Vec<Link<'a>>, Failed> {
    let mut links = Vec::new();
    if let Some(m) = object.message(kind::SYMBOL_TABLE) {
        let mut c = m.cursor(file);
        let tree = file.address(&mut c, "a symbol table's B-tree address")?;
        let heap_at = c.pos();
        let heap = file.address(&mut c, "a symbol table's local heap address")?;
        let heap = LocalHeap::read(file, heap.unwrap_or(u64::MAX), heap_at)?;
        if let Some(tree) = tree {
            btree(cx, file, &heap, tree, m.at, &mut links)?;
        }
    }
    if let Some(m) = object.message(kind::LINK_INFO) {
        let mut c = m.cursor(file);
        byte(&mut c, "a link info message")?;
        let flags = byte(&mut c, "a link info message")?;
        if flags & 1 != 0 {
            need(&mut c, 8, "a link info message")?;
        }
        if file
            .address(&mut c, "a link info message's fractal heap")?
            .is_some()
        {
            let message = format!("the group at {} keeps its links in dense storage (a fractal heap, link info at {}), which rtenx does not read: its members are not listed", object.at, m.at);
            cx.report(&HDF5_NOT_READ, Place::at(m.at), message);
        }
    }
    for m in object.all(kind::LINK) {
        if let Some(link) = link(cx, file, m)? {
            if !cx.spend(1, Place::at(m.at)) {
                return Err(Stop::Reported);
            }
            links.push(link);
        }
    }
    Ok(links)
}

/// A link message: its hard link, or `None` for a soft or external one (reported).
fn link<'a>(
    cx: &mut Context<'_>,
    file: &File<'a>,
    m: &super::Message<'a>,
) -> Result<Option<Link<'a>>, Failed> {
    let mut c = m.cursor(file);
    let what = "a link message";
    let version = byte(&mut c, what)?;
    if version != 1 {
        let message = format!(
            "a link message's version at {} is {version}; HDF5 defines version 1",
            m.at
        );
        return Err(Stop::Problem(Problem::malformed(m.at, message)));
    }
    let flags = byte(&mut c, what)?;
    let link_type = if flags & 0x8 != 0 {
        byte(&mut c, what)?
    } else {
        0
    };
    if flags & 0x4 != 0 {
        need(&mut c, 8, what)?;
    }
    if flags & 0x10 != 0 {
        byte(&mut c, what)?;
    }
    let len = number(&mut c, 1 << (flags & 3), what)?;
    let name = need(&mut c, len, "a link's name")?;
    if link_type != 0 {
        let kind = if link_type == 1 {
            "a soft link"
        } else {
            "an external link"
        };
        let message = format!(
            "link \"{}\" at {} is {kind} (type {link_type}), which rtenx does not follow",
            excerpt(name, 100),
            m.at
        );
        cx.report(&HDF5_NOT_READ, Place::at(m.at), message);
        return Ok(None);
    }
    let from = c.pos();
    let target = file.address(&mut c, "a hard link's address")?;
    Ok(target.map(|target| Link {
        name,
        target,
        at: from,
    }))
}

/// The links of the group B-tree at `root` (named at `from`), names from `heap`.
fn btree<'a>(
    cx: &mut Context<'_>,
    file: &File<'a>,
    heap: &LocalHeap<'a>,
    root: u64,
    from: u64,
    links: &mut Vec<Link<'a>>,
) -> Result<(), Failed> {
    let mut seen = HashSet::default();
    let mut stack = vec![(root, from)];
    while let Some((at, from)) = stack.pop() {
        if !seen.insert(at) {
            let message = format!("a group's B-tree points at {from} to the node at {at}, which it has visited already: the tree loops");
            return Err(Stop::Problem(Problem::new(&HDF5_LOOP, from, message)));
        }
        if !cx.spend(1, Place::at(at)) {
            return Err(Stop::Reported);
        }
        let mut c = file.at(at, "a B-tree node", from)?;
        let node = c.rest().starts_with(b"TREE");
        if !node {
            symbols(cx, file, heap, at, from, links)?;
            continue;
        }
        signature(&mut c, b"TREE", "a B-tree node")?;
        let node_type = byte(&mut c, "a B-tree node's type")?;
        if node_type != 0 {
            let message = format!(
                "a group's B-tree node at {at} has type {node_type}; a group's nodes have type 0"
            );
            return Err(Stop::Problem(Problem::malformed(at + 4, message)));
        }
        byte(&mut c, "a B-tree node's level")?;
        let entries = number(&mut c, 2, "a B-tree node's entries")?;
        file.address(&mut c, "a B-tree node's left sibling")?;
        file.address(&mut c, "a B-tree node's right sibling")?;
        let mut children = Vec::new();
        for _ in 0..entries {
            file.length(&mut c, "a B-tree node's key")?;
            let child_at = c.pos();
            if let Some(child) = file.address(&mut c, "a B-tree node's child")? {
                children.push((child, child_at));
            }
        }
        // Visited in order: the stack takes the last first.
        stack.extend(children.into_iter().rev());
    }
    Ok(())
}

/// The entries of the symbol table node at `at` (named at `from`).
fn symbols<'a>(
    cx: &mut Context<'_>,
    file: &File<'a>,
    heap: &LocalHeap<'a>,
    at: u64,
    from: u64,
    links: &mut Vec<Link<'a>>,
) -> Result<(), Failed> {
    let mut c = file.at(at, "a symbol table node", from)?;
    signature(&mut c, b"SNOD", "a symbol table node")?;
    let version = byte(&mut c, "a symbol table node's version")?;
    if version != 1 {
        let message = format!(
            "a symbol table node's version at {} is {version}; HDF5 defines version 1",
            at + 4
        );
        return Err(Stop::Problem(Problem::malformed(at + 4, message)));
    }
    byte(&mut c, "a symbol table node")?;
    let count = number(&mut c, 2, "a symbol table node's count")?;
    for _ in 0..count {
        let entry = c.pos();
        let name = number(
            &mut c,
            file.sb.offset_size,
            "a symbol table entry's name offset",
        )?;
        let target = file.address(&mut c, "a symbol table entry's object header")?;
        need(&mut c, 24, "a symbol table entry")?;
        let name = heap.name(name, entry)?;
        if !cx.spend(1, Place::at(entry)) {
            return Err(Stop::Reported);
        }
        if let Some(target) = target {
            links.push(Link {
                name,
                target,
                at: entry,
            });
        }
    }
    Ok(())
}
