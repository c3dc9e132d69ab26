//! Browser benchmarks on large synthetic models (written once under `target/bench-data/`):
//! - `tui/frame-1m-nodes`: one Graph-view frame of a 1M-node model while scrolling;
//! - `tui/first-frame-4gib`: open a 4 GiB model and draw the first frame;
//! - `tui/first-frame-1m-nodes`: open the 1M-node model and draw the first frame, while the
//!   model is read on the background thread, as `rtenx inspect` does.

/// The allocator the `rtenx` binary uses, so that the figures match the command line.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{criterion_group, criterion_main, Criterion};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use rtenx::synth::rten::{bench_file, Spec};
use rtenx::tui::keys::Action;
use rtenx::tui::loader::Loader;
use rtenx::tui::{draw, App, Tab, Theme};
use std::time::{Duration, Instant};

fn frames(c: &mut Criterion) {
    let path = bench_file(
        "nodes1m.rten",
        Spec {
            layers: 500_000,
            weight_bytes: 0,
        },
    );
    let mut app = App::new(rtenx::analyze(&path).unwrap(), Tab::Graph);
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
    let theme = Theme { color: true };
    terminal.draw(|f| draw(f, &mut app, theme)).unwrap(); // builds the graph index once
    c.bench_function("tui/frame-1m-nodes", |b| {
        b.iter(|| {
            app.apply(Action::PageDown);
            terminal.draw(|f| draw(f, &mut app, theme)).unwrap();
        })
    });
}

fn first_frame(c: &mut Criterion) {
    let path = bench_file(
        "big4g.rten",
        Spec {
            layers: 4000,
            weight_bytes: 1_073_741,
        },
    );
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
    let path = bench_file(
        "nodes1m.rten",
        Spec {
            layers: 500_000,
            weight_bytes: 0,
        },
    );
    let mut group = c.benchmark_group("tui");
    group.sample_size(10);
    group.bench_function("first-frame-1m-nodes", |b| {
        b.iter_custom(|iterations| {
            let mut timed = Duration::ZERO;
            for _ in 0..iterations {
                let start = Instant::now();
                let preview = rtenx::analysis::preview(&path).unwrap();
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

criterion_group!(benches, frames, first_frame, first_frame_while_loading);
criterion_main!(benches);
