#!/usr/bin/env python3
"""Write ~20,000-node ONNX models made by the real upstream exporters, for benchmarking
`rtenx check` against `onnx.checker.check_model(path, full_check=True)`.

The models are Hugging Face `transformers` architectures built from small configs in code with
random weights (fixed seed: nothing is downloaded), exported with `torch.onnx.export`:

    OUT/gpt_inline.onnx          GPT-2 (GPT2LMHeadModel, n_embd 64, vocab 1000, 92 layers),
                                 classic TorchScript exporter (dynamo=False), opset 17,
                                 dynamic batch/seq axes, weights inline (~25 MB)
    OUT/gpt_external/model.onnx  the same ModelProto re-saved with
        + model.onnx.data        onnx.save_model(..., save_as_external_data=True,
                                 all_tensors_to_one_file=True, location="model.onnx.data",
                                 size_threshold=1024)
    OUT/llama_dynamo/model.onnx  Llama (LlamaForCausalLM, hidden 64, 4 heads / 2 KV heads,
        + model.onnx.data        vocab 1000, 281 layers), new torch.export-based exporter
                                 (dynamo=True), opset 18, saved by the exporter itself with its
                                 default external data (ONNXProgram.save(external_data=True))
    OUT/llama_dynamo_inline.onnx the same ONNXProgram saved with external_data=False

Both graphs take `input_ids` and `attention_mask` (int64 [batch, seq]) and return `logits`.
Passing attention_mask also keeps transformers off its packed-sequence path (torch.diff),
which the TorchScript exporter cannot export.

Install (CPU is enough; plain PyPI `torch` works if the PyTorch CPU index is unreachable):

    python3 -m venv /tmp/torchvenv
    /tmp/torchvenv/bin/pip install torch onnx==1.23.2 onnxscript numpy transformers

Run:

    /tmp/torchvenv/bin/python benches/make_real_onnx.py /tmp/realonnx
    # options: --gpt-layers N  --llama-layers N  --skip-gpt  --skip-llama  --seed S

It prints, for each file: producer, opset, node count (main graph, plus nodes inside
subgraphs and model-local functions), initializer count, and the sizes on disk. Takes about
a minute on 2 cores (the dynamo export dominates). The GPT files are byte-identical from run
to run for a given torch/transformers version.
"""

from __future__ import annotations

import argparse
import logging
import os
import time
import warnings
from collections import Counter
from pathlib import Path

import onnx
import torch


class LogitsOnly(torch.nn.Module):
    """Wraps a causal LM so the exported graph is (input_ids, attention_mask) -> logits."""

    def __init__(self, lm: torch.nn.Module):
        super().__init__()
        self.lm = lm

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.lm(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).logits


def example_inputs(vocab: int) -> tuple[torch.Tensor, torch.Tensor]:
    input_ids = torch.randint(0, vocab, (1, 16), dtype=torch.int64)
    attention_mask = torch.ones(1, 16, dtype=torch.int64)
    return input_ids, attention_mask


def build_gpt(layers: int, seed: int) -> torch.nn.Module:
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(seed)
    cfg = GPT2Config(
        vocab_size=1000,
        n_positions=256,
        n_embd=64,
        n_layer=layers,
        n_head=4,
        bos_token_id=0,
        eos_token_id=0,
        use_cache=False,
        attn_implementation="sdpa",
    )
    return LogitsOnly(GPT2LMHeadModel(cfg).eval()).eval()


def build_llama(layers: int, seed: int) -> torch.nn.Module:
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    cfg = LlamaConfig(
        vocab_size=1000,
        hidden_size=64,
        intermediate_size=172,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        bos_token_id=0,
        eos_token_id=0,
        use_cache=False,
        attn_implementation="sdpa",
    )
    return LogitsOnly(LlamaForCausalLM(cfg).eval()).eval()


def count_nodes(graph: onnx.GraphProto) -> tuple[int, int]:
    """(nodes in this graph, nodes in nested subgraphs)."""
    nested = 0
    for node in graph.node:
        for attr in node.attribute:
            subs = [attr.g] if attr.type == onnx.AttributeProto.GRAPH else list(attr.graphs)
            for sub in subs:
                top, deeper = count_nodes(sub)
                nested += top + deeper
    return len(graph.node), nested


def file_size(path: Path) -> int:
    return path.stat().st_size if path.exists() else 0


def report(path: Path) -> None:
    model = onnx.load(str(path), load_external_data=False)
    top, nested = count_nodes(model.graph)
    fn_nodes = 0
    for fn in model.functions:
        fn_nodes += len(fn.node)
        for node in fn.node:
            for attr in node.attribute:
                subs = [attr.g] if attr.type == onnx.AttributeProto.GRAPH else list(attr.graphs)
                for sub in subs:
                    a, b = count_nodes(sub)
                    fn_nodes += a + b
    inits = model.graph.initializer
    n_ext = sum(1 for t in inits if t.data_location == onnx.TensorProto.EXTERNAL)
    data_files = sorted(
        {e.value for t in inits for e in t.external_data if e.key == "location"}
    )
    opsets = ", ".join(f"{o.domain or 'ai.onnx'}:{o.version}" for o in model.opset_import)
    ops = Counter(n.op_type for n in model.graph.node).most_common(6)
    print(f"{path}")
    print(f"  producer      {model.producer_name} {model.producer_version}, ir_version {model.ir_version}, opset {opsets}")
    print(f"  nodes         {top + nested + fn_nodes} total = {top} main graph + {nested} in subgraphs"
          f" + {fn_nodes} in {len(model.functions)} local functions")
    print(f"  top ops       {', '.join(f'{k} {v}' for k, v in ops)}")
    print(f"  initializers  {len(inits)} ({n_ext} external), inputs {len(model.graph.input)},"
          f" outputs {len(model.graph.output)}, value_info {len(model.graph.value_info)}")
    print(f"  size          {file_size(path):,} B", end="")
    for loc in data_files:
        print(f" + {loc} {file_size(path.parent / loc):,} B", end="")
    print()


def export_gpt(out: Path, layers: int, seed: int) -> None:
    model = build_gpt(layers, seed)
    args = example_inputs(1000)
    dyn = {0: "batch", 1: "seq"}
    inline = out / "gpt_inline.onnx"
    t = time.perf_counter()
    torch.onnx.export(
        model,
        args,
        str(inline),
        dynamo=False,
        opset_version=17,
        input_names=["input_ids", "attention_mask"],
        output_names=["logits"],
        dynamic_axes={"input_ids": dyn, "attention_mask": dyn, "logits": dyn},
        do_constant_folding=True,
    )
    print(f"[gpt] TorchScript export: {time.perf_counter() - t:.1f} s")

    ext_dir = out / "gpt_external"
    ext_dir.mkdir(parents=True, exist_ok=True)
    for stale in (ext_dir / "model.onnx", ext_dir / "model.onnx.data"):
        stale.unlink(missing_ok=True)  # save_model appends to an existing data file
    proto = onnx.load(str(inline))
    onnx.save_model(
        proto,
        str(ext_dir / "model.onnx"),
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location="model.onnx.data",
        size_threshold=1024,
    )


def export_llama(out: Path, layers: int, seed: int) -> None:
    model = build_llama(layers, seed)
    args = example_inputs(1000)
    batch, seq = torch.export.Dim("batch"), torch.export.Dim("seq")
    t = time.perf_counter()
    program = torch.onnx.export(
        model,
        args,
        dynamo=True,
        opset_version=18,
        input_names=["input_ids", "attention_mask"],
        output_names=["logits"],
        dynamic_shapes=({0: batch, 1: seq}, {0: batch, 1: seq}),
    )
    print(f"[llama] dynamo export: {time.perf_counter() - t:.1f} s")
    ext_dir = out / "llama_dynamo"
    ext_dir.mkdir(parents=True, exist_ok=True)
    for stale in (ext_dir / "model.onnx", ext_dir / "model.onnx.data"):
        stale.unlink(missing_ok=True)
    program.save(str(ext_dir / "model.onnx"), external_data=True)
    program.save(str(out / "llama_dynamo_inline.onnx"), external_data=False)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="output folder (created)")
    ap.add_argument("--gpt-layers", type=int, default=92, help="92 -> ~20,000 nodes")
    ap.add_argument("--llama-layers", type=int, default=281, help="281 -> ~20,000 nodes")
    ap.add_argument("--skip-gpt", action="store_true")
    ap.add_argument("--skip-llama", action="store_true")
    ap.add_argument("--seed", type=int, default=20000)
    a = ap.parse_args()

    warnings.filterwarnings("ignore")
    logging.getLogger("transformers").setLevel(logging.ERROR)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    torch.use_deterministic_algorithms(True)
    a.out.mkdir(parents=True, exist_ok=True)
    import transformers

    print(f"torch {torch.__version__}, onnx {onnx.__version__}, transformers {transformers.__version__}")

    written = []
    if not a.skip_gpt:
        export_gpt(a.out, a.gpt_layers, a.seed)
        written += [a.out / "gpt_inline.onnx", a.out / "gpt_external" / "model.onnx"]
    if not a.skip_llama:
        export_llama(a.out, a.llama_layers, a.seed)
        written += [a.out / "llama_dynamo" / "model.onnx", a.out / "llama_dynamo_inline.onnx"]
    for path in written:
        report(path)


if __name__ == "__main__":
    main()
