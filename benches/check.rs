//! Benchmarks on large synthetic model files (written once, as sparse files, under
//! `target/bench-data/`). The `check/` ones run the analysis as `rtenx check` does, without
//! what only `inspect` and `dump` show (`ReadOptions::views`):
//! - `check/4gib-12k-nodes`: rtenx's check of a 4 GiB V2 file with 12k nodes,
//!   beside `rten::Model::load_mmap` on the same file;
//! - `dump/1m-nodes`: `dump --json` of a 1M-node graph into a sink;
//! - `diff/1m-nodes`: `rtenx diff` of the 1M-node graph and one a layer shorter (both read
//!   side by side, as the command reads them), beside checking one of them,
//!   and the comparison alone;
//! - `check/onnx-20k-nodes`: an ONNX chain of 20,000 Add nodes, each with a 4 KiB external weight;
//! - `check/executorch-100k-instructions`: a `.pte` of 100,000 kernel calls whose 1,024
//!   external weights of 4 MiB fill a 4 GiB `.ptd`;
//! - `check/gguf-40gb`: a llama-shaped GGUF of 40 GB (80 blocks of Q8_0 tensors, sparse),
//!   `check/gguf-40gb-20-parts` the same split into 20 parts, and `check/gguf-150k-vocabulary`
//!   a small model whose `tokenizer.ggml.tokens` holds 150,000 strings;
//! - `check/safetensors-40gb-20-shards`: a sharded LlamaForCausalLM checkpoint with its
//!   config.json (80 layers of 7 BF16 matrices of 6,144²), 42 GB in
//!   20 shards with its index (sparse);
//! - `check/pytorch-5gb-10k-tensors`: a zip checkpoint laid out as `torch.save` writes it,
//!   10,000 float32 tensors of 500 KiB (5.1 GB): its pickle read and judged, every storage
//!   placed.

/// The allocator the `rtenx` binary uses, so that the figures match the command line.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{criterion_group, criterion_main, Criterion};
use rtenx::synth::{
    self,
    rten::{four_gib, million_nodes},
};
use rtenx::{Analysis, ReadOptions};
use std::path::Path;

/// The analysis `rtenx check` runs.
fn as_check(path: &Path) -> Analysis {
    let options = ReadOptions {
        views: false,
        ..ReadOptions::default()
    };
    rtenx::analyze_with(path, &options).unwrap()
}

fn check(c: &mut Criterion) {
    let path = four_gib();
    let mut group = c.benchmark_group("check/4gib-12k-nodes");
    group.bench_function("rtenx check", |b| {
        b.iter(|| {
            let a = as_check(&path);
            assert_eq!(a.inventory.graphs[0].nodes.len(), 12_001);
        })
    });
    group.bench_function("rten load_mmap", |b| {
        // SAFETY: the benchmark file is not modified while mapped.
        b.iter(|| unsafe { rten::Model::load_mmap(&path) }.unwrap())
    });
    group.finish();
}

fn dump(c: &mut Criterion) {
    let path = million_nodes();
    let mut group = c.benchmark_group("dump/1m-nodes");
    group.sample_size(10);
    group.bench_function("rtenx analyze + dump --json", |b| {
        b.iter(|| {
            let a = rtenx::analyze(&path).unwrap();
            rtenx::json_dump::write(std::io::sink(), &a).unwrap();
        })
    });
    group.finish();
}

fn diff(c: &mut Criterion) {
    let a = million_nodes();
    let b = synth::rten::bench_file(
        "nodes1m-short.rten",
        synth::rten::Spec {
            layers: 499_999,
            weight_bytes: 0,
            scoped: false,
        },
    );
    let mut group = c.benchmark_group("diff/1m-nodes");
    group.sample_size(10);
    group.bench_function("rtenx check (one file)", |bench| {
        bench.iter(|| as_check(&a))
    });
    group.bench_function("rtenx diff", |bench| {
        bench.iter(|| {
            let [x, y] = std::thread::scope(|s| {
                [&a, &b]
                    .map(|p| s.spawn(|| as_check(p)))
                    .map(|h| h.join().unwrap())
            });
            let d = rtenx::diff::Diff::of(&x, &y, &rtenx::diff::Options::default());
            assert_eq!(d.graph.removed.len(), 1);
            d
        })
    });
    let (x, y) = (as_check(&a), as_check(&b));
    group.bench_function("Diff::of (the comparison alone)", |bench| {
        bench.iter(|| rtenx::diff::Diff::of(&x, &y, &rtenx::diff::Options::default()))
    });
    group.finish();
}

fn onnx(c: &mut Criterion) {
    let path = synth::bench_data("onnx20k/model.onnx", |path| {
        synth::onnx::write(path.parent().unwrap(), 20_000, 4096)
    });
    c.bench_function("check/onnx-20k-nodes", |b| {
        b.iter(|| {
            let a = as_check(&path);
            assert_eq!(a.inventory.tensors.len(), 20_000);
        })
    });
}

fn executorch(c: &mut Criterion) {
    let path = synth::bench_data("et100k/model.pte", |path| {
        synth::executorch::write(path.parent().unwrap(), 100_000, 1024, 4 << 20)
    });
    c.bench_function("check/executorch-100k-instructions", |b| {
        b.iter(|| {
            let a = as_check(&path);
            assert_eq!(a.inventory.tensors.len(), 1024);
            assert!(a.findings.is_empty(), "{:?}", a.findings.first());
        })
    });
}

fn gguf(c: &mut Criterion) {
    let split = synth::gguf::bench_file(
        "llama40g-split/model-00001-of-00020.gguf",
        &synth::gguf::Spec {
            layers: 80,
            width: 8_192,
            vocabulary: 32_000,
            parts: 20,
        },
    );
    for (name, path) in [
        ("check/gguf-40gb", synth::gguf::forty_gb()),
        ("check/gguf-40gb-20-parts", split),
        (
            "check/gguf-150k-vocabulary",
            synth::gguf::large_vocabulary(),
        ),
    ] {
        c.bench_function(name, |b| {
            b.iter(|| {
                let a = as_check(&path);
                assert!(a.findings.is_empty(), "{:?}", a.findings.first());
            })
        });
    }
}

fn safetensors(c: &mut Criterion) {
    let path = synth::safetensors::forty_gb_sharded();
    c.bench_function("check/safetensors-40gb-20-shards", |b| {
        b.iter(|| {
            let a = as_check(&path);
            assert_eq!(a.inventory.tensors.len(), 80 * 9 + 3);
            assert!(a.findings.is_empty(), "{:?}", a.findings.first());
        })
    });
}

fn pytorch(c: &mut Criterion) {
    let path = synth::bench_data("pytorch10k/model.pt", |path| {
        synth::pytorch::write(path, 10_000, 500 << 10)
    });
    c.bench_function("check/pytorch-5gb-10k-tensors", |b| {
        b.iter(|| {
            let a = as_check(&path);
            assert_eq!(a.inventory.tensors.len(), 10_000);
            assert!(a.findings.is_empty(), "{:?}", a.findings.first());
        })
    });
}

criterion_group!(
    benches,
    check,
    dump,
    diff,
    onnx,
    executorch,
    gguf,
    safetensors,
    pytorch
);
criterion_main!(benches);
