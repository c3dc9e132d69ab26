//! Browser benchmarks on large synthetic models (written once under `target/bench-data/`):
//! - `tui/frame-1m-nodes`: one frame of the Graph tab's operator list of a 1M-node model
//!   while paging down;
//! - `tui/neighbourhood-1m-nodes`: one frame of the neighbourhood view of the same model,
//!   centred on the next operator down the chain each time;
//! - `tui/first-frame-4gib`: open a 4 GiB model and draw the first frame;
//! - `tui/first-frame-1m-nodes`: open the 1M-node model and draw the first frame, while the
//!   model is read on the background thread, as `rtenx inspect` does.
//!
//! - `tui/scope-tree-build-1m-nodes`: build the scope tree of the 1M-node model named in
//!   10,100 scopes as a PyTorch export names them (`/block.3/layer.12/Relu_7`);
//! - `tui/scope-tree-tabs-1m-nodes`: build every tab of that model, as the background load
//!   does after reading it, the scope tree included;
//! - `tui/scope-tree-frame-1m-nodes`: one frame of its scope tree while opening the next
//!   scope down and paging through it.
//! - `tui/scope-box-1m-nodes`: `v` on the one top-level scope of an in-memory chain of
//!   1,000,001 nodes (`rtenx::synth::chain_in_one_scope`): its boundary found over its 500,000
//!   operators, the box and what crosses its edge drawn, and `v` back to the tree;
//! - `tui/scope-box-frame-1m-nodes`: one frame of that box, once open.
//!
//! It also prints what building the producer/consumer index costs on the 1M-node model.

/// The allocator the `rtenx` binary uses, so that the figures match the command line.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{criterion_group, criterion_main, Criterion};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use rtenx::inventory::ScopeTree;
use rtenx::synth::rten::{four_gib, million_nodes, million_scoped_nodes};
use rtenx::tui::keys::Action;
use rtenx::tui::loader::Loader;
use rtenx::tui::tabs::Tabs;
use rtenx::tui::{draw, App, Tab, Theme};
use std::time::{Duration, Instant};

fn frames(c: &mut Criterion) {
    let path = million_nodes();
    let mut app = App::new(rtenx::analyze(&path).unwrap(), Tab::Graph);
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
    let theme = Theme { color: true };
    let start = std::time::Instant::now();
    terminal.draw(|f| draw(f, &mut app, theme)).unwrap(); // builds the graph index once
    let nodes = app.analysis.inventory.graphs[0].nodes.len();
    let bytes = app.tabs.graph.index_bytes().unwrap_or(0);
    eprintln!(
        "first Graph frame (builds the index): {:.1} ms; index: {bytes} bytes for {nodes} nodes, \
         {:.1} bytes a node",
        start.elapsed().as_secs_f64() * 1e3,
        bytes as f64 / nodes as f64
    );
    c.bench_function("tui/frame-1m-nodes", |b| {
        b.iter(|| {
            app.apply(Action::PageDown);
            terminal.draw(|f| draw(f, &mut app, theme)).unwrap();
        })
    });
    app.apply(Action::Top);
    app.apply(Action::View);
    terminal.draw(|f| draw(f, &mut app, theme)).unwrap();
    c.bench_function("tui/neighbourhood-1m-nodes", |b| {
        b.iter(|| {
            // Choose the consumer below the centre and make it the centre.
            app.apply(Action::Down);
            app.apply(Action::Follow);
            terminal.draw(|f| draw(f, &mut app, theme)).unwrap();
        })
    });
    let (centre, _) = app.tabs.graph.neighbourhood().unwrap_or_default();
    eprintln!("the neighbourhood moved down the chain to node {centre}");
}

fn first_frame(c: &mut Criterion) {
    let path = four_gib();
    let mut group = c.benchmark_group("tui");
    group.sample_size(20);
    group.bench_function("first-frame-4gib", |b| {
        b.iter(|| {
            let mut app = App::new(rtenx::analyze(&path).unwrap(), Tab::Overview);
            let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
            terminal
                .draw(|f| draw(f, &mut app, Theme { color: true }))
                .unwrap();
        })
    });
    group.finish();
}

fn first_frame_while_loading(c: &mut Criterion) {
    let path = million_nodes();
    let mut group = c.benchmark_group("tui");
    group.sample_size(10);
    group.bench_function("first-frame-1m-nodes", |b| {
        b.iter_custom(|iterations| {
            let mut timed = Duration::ZERO;
            for _ in 0..iterations {
                let start = Instant::now();
                let preview = rtenx::preview(&path).unwrap();
                let reading = path.clone();
                let loader =
                    Loader::spawn(move || rtenx::analyze(&reading).map_err(|e| e.to_string()));
                let mut app = App::loading(preview, Tab::Overview, loader);
                let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
                terminal
                    .draw(|f| draw(f, &mut app, Theme { color: true }))
                    .unwrap();
                timed += start.elapsed();
                // Not timed: let the load finish, so that runs do not overlap.
                while app.loader.is_some() {
                    app.poll();
                    std::thread::sleep(Duration::from_millis(10));
                }
            }
            timed
        })
    });
    group.finish();
}

fn scope_tree(c: &mut Criterion) {
    let path = million_scoped_nodes();
    let analysis = rtenx::analyze(&path).unwrap();
    let mut group = c.benchmark_group("tui");
    group.sample_size(10);
    group.bench_function("scope-tree-build-1m-nodes", |b| {
        b.iter(|| ScopeTree::build(&analysis.inventory))
    });
    group.bench_function("scope-tree-tabs-1m-nodes", |b| {
        b.iter(|| Tabs::new(&analysis))
    });
    // What the background load does from the path to a browser whose every tab works.
    group.bench_function("load-1m-nodes", |b| {
        b.iter(|| {
            let analysis = rtenx::analyze(&path).unwrap();
            let tabs = Tabs::new(&analysis);
            (analysis, tabs)
        })
    });
    group.finish();
    let tree = ScopeTree::build(&analysis.inventory);
    eprintln!(
        "scope tree: {} scopes over {} nodes",
        tree.scopes.len(),
        analysis.inventory.graphs[0].nodes.len()
    );
    let mut app = App::new(analysis, Tab::Graph);
    assert!(app.tabs.graph.scope_tree().is_some(), "opens on the tree");
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
    let theme = Theme { color: true };
    c.bench_function("tui/scope-tree-frame-1m-nodes", |b| {
        b.iter(|| {
            // Open the scope selected (a block, then a layer), and move on.
            app.apply(Action::NextLink);
            app.apply(Action::Down);
            terminal.draw(|f| draw(f, &mut app, theme)).unwrap();
        })
    });
    let rows = app.tabs.graph.scope_tree().map_or(0, |t| t.row_count());
    eprintln!("the tree shows {rows} rows after the frames");
}

fn scope_box(c: &mut Criterion) {
    let mut app = App::new(rtenx::synth::chain_in_one_scope(500_000), Tab::Graph);
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
    let theme = Theme { color: true };
    terminal.draw(|f| draw(f, &mut app, theme)).unwrap();
    let start = Instant::now();
    app.apply(Action::View); // builds the producer/consumer index on first use
    terminal.draw(|f| draw(f, &mut app, theme)).unwrap();
    eprintln!(
        "first scope box (index built too): {:.1} ms; boundary {:?}",
        start.elapsed().as_secs_f64() * 1e3,
        app.tabs.graph.scope_box()
    );
    app.apply(Action::View);
    let mut group = c.benchmark_group("tui");
    group.sample_size(20);
    group.bench_function("scope-box-1m-nodes", |b| {
        b.iter(|| {
            app.apply(Action::View);
            terminal.draw(|f| draw(f, &mut app, theme)).unwrap();
            app.apply(Action::View);
        })
    });
    app.apply(Action::View);
    group.bench_function("scope-box-frame-1m-nodes", |b| {
        b.iter(|| {
            terminal.draw(|f| draw(f, &mut app, theme)).unwrap();
        })
    });
    group.finish();
    assert!(app.tabs.graph.scope_box().is_some(), "the box stayed open");
}

criterion_group!(
    benches,
    frames,
    first_frame,
    first_frame_while_loading,
    scope_tree,
    scope_box
);
criterion_main!(benches);
