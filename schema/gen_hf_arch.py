#!/usr/bin/env python3
"""Write schema/hf_arch.tsv: what each Hugging Face transformers architecture expects to find in a
checkpoint folder, so that rtenx can say whether `from_pretrained` would load the weights a folder
holds, from tensor names, shapes and dtypes and config.json alone.

Usage (from the repo root; transformers 5.24.0, torch 2.15.0, safetensors 0.8.0):

    /work/venv-pickle/bin/python schema/gen_hf_arch.py          # writes schema/hf_arch.tsv
    /work/venv-pickle/bin/python schema/gen_hf_arch.py --check  # exits 1 if it would change

Nothing is written by hand: every tensor name, shape expression and condition is measured.

Method
------
For each class, the config class is built from five base configs whose sizes are distinct
(co-prime choices that still satisfy the config's divisibility rules) and from each variant of
the switches that change the set of keys (`tie_word_embeddings`, `attention_bias`, `q_lora_rank`
None, ...), one switch at a time. Each (variant, base) is a run. For every run:

* the model is built on the meta device (`with torch.device("meta")`) and its `state_dict()`
  gives the in-memory keys and shapes (non-persistent buffers are not in it);
* the same model is built for real on the CPU (tiny) and `save_pretrained` writes it to a
  temporary folder; the safetensors keys and shapes read back are what a checkpoint holds on
  disk. The table describes these, not the in-memory names (see below).

A layer key becomes a pattern with `%d` (the first numeric path component), an expert key a
second index `%e` (the number after `experts.`). For every tensor dimension the generator looks
for the simplest expression over the config's integer attributes that gives that dimension in
every run (bottom-up enumeration over attributes, the constants 1-4 and `+ - * /`, `/` exact;
then `A!=null ? A : E` for attributes that are null in some runs, like GPT-2's `n_inner`). Only
attributes the config honours are candidates: one that `__post_init__` recomputes whatever
config.json says (DeepSeek-V3's `head_dim`, `qk_head_dim`) is not. A key that is present in
some runs or layers only gets the simplest condition that predicts its presence exactly in all
runs and layers (a switch `A`/`!A`, `A==null`/`A!=null`, `A>0`, or a layer condition such as
`i>=first_k_dense_replace` or `(i+1)%decoder_sparse_step==0`, or a conjunction of two). Every
emitted expression is parsed and evaluated again with the grammar rtenx implements and checked
against every run; the script stops if one does not reproduce the measurement.

How transformers 5.24 resolves a checkpoint against a class (verified on tiny models)
------------------------------------------------------------------------------------
`PreTrainedModel.from_pretrained` builds the model from config.json on the meta device, then
`core_model_loading.convert_and_load_state_dict_in_model` walks the checkpoint keys:

1. Weight conversion (`conversion_mapping.get_model_conversion_mapping`): every `WeightRenaming`
   of the model's mapping is applied to the key (regex substitution), then at most one
   `WeightConverter`. Every model gets the "legacy" renamings (`LayerNorm.gamma`/`beta` ->
   `weight`/`bias`, `.weight_g`/`.weight_v` -> parametrizations, `model.language_model.model` ->
   `model.language_model`). MoE models (qwen2_moe, qwen3_moe, deepseek_v2/v3 and the others
   mapped to "qwen2_moe"; mixtral) hold their experts fused in memory as 3-D tensors
   `mlp.experts.gate_up_proj` [E, 2*I, H] and `mlp.experts.down_proj` [E, H, I]; the converter
   stacks the per-expert checkpoint tensors `mlp.experts.N.{gate,up,down}_proj.weight` (Mixtral:
   `block_sparse_moe.experts.N.w1/w3/w2.weight`, after the renaming `.block_sparse_moe.` ->
   `.mlp.`) into them; with one expert's tensor absent the stack is short and the load raises a
   size mismatch on the fused key, not a missing key. `save_pretrained` reverts the conversion (`revert_weight_conversion`), so
   what is on disk is the per-expert form: that is what the `tensor` records describe. A folder
   holding the fused in-memory form loads too (`fused` records); a checkpoint's mismatched-key
   report names the fused in-memory key.
2. Base-model prefix, per key: if the renamed key starts with `base_model_prefix.` and the model
   has the key without it, the prefix is stripped (a `*ForCausalLM` checkpoint loaded into the
   bare `*Model`: its `lm_head.weight` is then unexpected); else if the model has
   `base_model_prefix.` + key, the prefix is added (a bare-model checkpoint, `embed_tokens.weight`,
   loaded into `*ForCausalLM`: everything matches, and `lm_head.weight` is missing unless tied).
3. A key still not in the model's state dict is unexpected; a model key no checkpoint key
   reached is missing. Both only warn: missing weights are initialised at random. A key whose
   shape differs is mismatched: `from_pretrained` raises RuntimeError unless
   `ignore_mismatched_sizes=True`. Tensors are cast to the model's dtype (the config's `dtype`,
   or float32) whatever their dtype on disk, except `_keep_in_fp32_modules(_strict)`.
4. Missing/unexpected keys matching `_keys_to_ignore_on_load_missing` / `_unexpected` (gathered
   from the model and every sub-model) are dropped from the report. transformers adds two
   patterns of its own: `rotary_emb\\.inv_freq` when the model has such a buffer and
   `(^|\\.)position_ids$` when it has a `position_ids` buffer (both non-persistent now; old
   checkpoints hold them).
5. Tying (`_tied_weights_keys`, active only when `tie_word_embeddings` is true): the target
   (`lm_head.weight`) is not saved (`remove_tied_weights_from_state_dict`) and is filled from the
   source after loading. Tying is symmetric on load: if the source is missing and the target is
   present, the target fills the source. If both are present with different values, transformers
   warns and does not tie. If both are absent, both stay missing.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import json
import logging
import os
import re
import sys
import tempfile
import warnings
from pathlib import Path

warnings.filterwarnings("ignore")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TQDM_DISABLE", "1")

import torch  # noqa: E402
import transformers  # noqa: E402
from safetensors import safe_open  # noqa: E402
from transformers.conversion_mapping import get_model_conversion_mapping  # noqa: E402
from transformers.core_model_loading import WeightConverter, WeightRenaming, rename_source_key  # noqa: E402

transformers.logging.set_verbosity_error()
transformers.logging.disable_progress_bar()
logging.getLogger("transformers").setLevel(logging.ERROR)

TRANSFORMERS_VERSION = "5.24.0"
TORCH_VERSION = "2.15.0"
OUT = Path(__file__).resolve().parent / "hf_arch.tsv"

# ---------------------------------------------------------------------------------------------
# Expressions: the grammar rtenx evaluates. Integer/decimal literals, true, false, null, attribute
# names (and `i`, the layer index), + - * / % (`/` is integer division), == != < <= > >=,
# && || !, parentheses, c ? a : b, min(a,b), max(a,b).
# ---------------------------------------------------------------------------------------------

PREC = {"?": 1, "||": 2, "&&": 3, "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4,
        "+": 5, "-": 5, "*": 6, "/": 6, "%": 6}


def E_const(v):
    return ("const", v)


def E_attr(name):
    return ("attr", name)


def E_bin(op, a, b):
    return ("bin", op, a, b)


def E_not(a):
    return ("not", a)


def E_tern(c, a, b):
    return ("tern", c, a, b)


def prec(e) -> int:
    if e[0] == "bin":
        return PREC[e[1]]
    if e[0] == "tern":
        return 1
    if e[0] == "not":
        return 7
    return 8


def lit(v) -> str:
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, float):
        s = repr(v)
        m = re.fullmatch(r"(-?[0-9.]+)e([+-])0*([0-9]+)", s)
        if m:
            s = f"{m.group(1)}e{'-' if m.group(2) == '-' else ''}{m.group(3)}"
        return s
    return str(v)


def show(e) -> str:
    kind = e[0]
    if kind == "const":
        return lit(e[1])
    if kind == "attr":
        return e[1]
    if kind == "not":
        inner = show(e[1])
        return "!" + (inner if prec(e[1]) >= 7 else f"({inner})")
    if kind == "tern":
        c, a, b = (show(x) for x in e[1:])
        c = c if prec(e[1]) > 1 else f"({c})"
        a = a if prec(e[2]) > 1 else f"({a})"
        return f"{c} ? {a} : {b}"
    op, a, b = e[1], e[2], e[3]
    p = PREC[op]
    sa, sb = show(a), show(b)
    if prec(a) < p or (p == 4 and prec(a) == 4):
        sa = f"({sa})"
    same_assoc = b[0] == "bin" and b[1] == op and op in ("+", "*", "&&", "||")
    if prec(b) < p or (prec(b) == p and not same_assoc):
        sb = f"({sb})"
    return f"{sa}{op}{sb}" if p >= 5 else f"{sa} {op} {sb}" if p <= 3 else f"{sa}{op}{sb}"


_TOKEN = re.compile(r"\s*(?:(\d+\.\d*(?:[eE][-+]?\d+)?|\d+(?:[eE][-+]?\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|"
                    r"(==|!=|<=|>=|&&|\|\||[-+*/%<>!?:(),]))")


def parse(text: str):
    """Parse `text` with rtenx's expression grammar; returns an AST of the E_* forms."""
    toks, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ValueError(f"bad token in {text!r} at {pos}")
        num, name, op = m.groups()
        toks.append(("num", num) if num else ("name", name) if name else ("op", op))
        pos = m.end()
    toks.append(("end", None))
    i = 0

    def peek():
        return toks[i]

    def take(expect=None):
        nonlocal i
        t = toks[i]
        if expect is not None and t != ("op", expect):
            raise ValueError(f"expected {expect!r} in {text!r}, got {t}")
        i += 1
        return t

    def ternary():
        c = binary(2)
        if peek() == ("op", "?"):
            take("?")
            a = ternary()
            take(":")
            b = ternary()
            return E_tern(c, a, b)
        return c

    def binary(level):
        if level > 6:
            return unary()
        left = binary(level + 1)
        while peek()[0] == "op" and PREC.get(peek()[1]) == level and peek()[1] != "?":
            op = take()[1]
            right = binary(level + 1)
            left = E_bin(op, left, right)
        return left

    def unary():
        if peek() == ("op", "!"):
            take()
            return E_not(unary())
        if peek() == ("op", "-"):
            take()
            return E_bin("-", E_const(0), unary())
        return atom()

    def atom():
        kind, val = take()
        if kind == "num":
            return E_const(float(val) if any(c in val for c in ".eE") else int(val))
        if kind == "name":
            if val == "true":
                return E_const(True)
            if val == "false":
                return E_const(False)
            if val == "null":
                return E_const(None)
            if val in ("min", "max") and peek() == ("op", "("):
                take("(")
                a = ternary()
                take(",")
                b = ternary()
                take(")")
                return ("call", val, a, b)
            return E_attr(val)
        if (kind, val) == ("op", "("):
            e = ternary()
            take(")")
            return e
        raise ValueError(f"unexpected {val!r} in {text!r}")

    e = ternary()
    if peek()[0] != "end":
        raise ValueError(f"trailing input in {text!r}")
    return e


class EvalError(Exception):
    pass


def evaluate(e, env: dict):
    kind = e[0]
    if kind == "const":
        return e[1]
    if kind == "attr":
        return env.get(e[1])  # an attribute the config lacks is null
    if kind == "not":
        v = evaluate(e[1], env)
        if not isinstance(v, bool):
            raise EvalError("! of non-bool")
        return not v
    if kind == "tern":
        c = evaluate(e[1], env)
        if not isinstance(c, bool):
            raise EvalError("?: of non-bool")
        return evaluate(e[2] if c else e[3], env)
    if kind == "call":
        a, b = evaluate(e[2], env), evaluate(e[3], env)
        return min(a, b) if e[1] == "min" else max(a, b)
    op = e[1]
    a = evaluate(e[2], env)
    if op in ("&&", "||"):
        if not isinstance(a, bool):
            raise EvalError("logic of non-bool")
        if op == "&&" and not a:
            return False
        if op == "||" and a:
            return True
        b = evaluate(e[3], env)
        if not isinstance(b, bool):
            raise EvalError("logic of non-bool")
        return b
    b = evaluate(e[3], env)
    if op in ("==", "!="):
        return (a == b and type(a) is type(b) or a is b) == (op == "==")
    for v in (a, b):
        if v is None or isinstance(v, bool):
            raise EvalError(f"{op} on {v!r}")
    if op == "<":
        return a < b
    if op == "<=":
        return a <= b
    if op == ">":
        return a > b
    if op == ">=":
        return a >= b
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        if b == 0:
            raise EvalError("division by zero")
        return a // b
    if op == "%":
        if b == 0:
            raise EvalError("modulo by zero")
        return a % b
    raise EvalError(op)


def holds(text: str, env: dict):
    try:
        return evaluate(parse(text), env)
    except EvalError:
        return EvalError


# ---------------------------------------------------------------------------------------------
# Search for the simplest arithmetic expression matching a vector of measurements.
# ---------------------------------------------------------------------------------------------


class Searcher:
    """Bottom-up enumeration of `+ - * /` expressions over `atoms` (name -> value per data point),
    deduplicated by value vector; meet-in-the-middle for the larger sizes."""

    CONSTS = (1, 2, 3, 4)

    def __init__(self, atoms: dict[str, tuple]):
        self.n = len(next(iter(atoms.values()))) if atoms else 0
        # operand order of commutative operations: constants, then attributes in config field order
        self.rank = {show(E_const(c)): j for j, c in enumerate(self.CONSTS)}
        self.rank.update({name: len(self.CONSTS) + j for j, name in enumerate(atoms)})
        self.best: dict[tuple, tuple] = {}  # vector -> (size, expr)
        self.levels: dict[int, list[tuple]] = {}  # size -> [(vector, expr)]
        lvl = []
        for c in self.CONSTS:
            self._add(1, (c,) * self.n, E_const(c), lvl)
        for name, vec in atoms.items():
            self._add(1, vec, E_attr(name), lvl)
        self.levels[1] = lvl

    def _add(self, size, vec, expr, lvl):
        if any(v <= 0 for v in vec):
            return
        if vec in self.best:
            return
        self.best[vec] = (size, expr)
        lvl.append((vec, expr))

    @staticmethod
    def _combine(op, a, b):
        if op == "+":
            return tuple(x + y for x, y in zip(a, b))
        if op == "-":
            return tuple(x - y for x, y in zip(a, b))
        if op == "*":
            return tuple(x * y for x, y in zip(a, b))
        if any(y == 0 or x % y for x, y in zip(a, b)):
            return None
        return tuple(x // y for x, y in zip(a, b))

    def _level(self, size):
        if size in self.levels:
            return self.levels[size]
        lvl = []
        self.levels[size] = lvl
        for sa in range(1, size - 1, 2):
            sb = size - 1 - sa
            for va, ea in self._level(sa):
                for vb, eb in self._level(sb):
                    for op in ("*", "+", "/", "-"):
                        if op in ("+", "*") and sa == sb == 1 and self.rank[show(ea)] > self.rank[show(eb)]:
                            continue
                        v = self._combine(op, va, vb)
                        if v is not None:
                            self._add(size, v, E_bin(op, ea, eb), lvl)
        return lvl

    def find(self, target: tuple, max_size: int = 9):
        target = tuple(target)
        if target in self.best and self.best[target][0] <= 1:
            return self.best[target][1]
        for size in range(3, max_size + 1, 2):
            if size <= 5:
                self._level(size)
                hit = self.best.get(target)
                if hit and hit[0] <= size:
                    return hit[1]
                continue
            # meet in the middle: target = X op Y, X from a stored level, Y looked up
            found = None
            for sa in range(1, size - 1, 2):
                sb = size - 1 - sa
                if sa > 5 or sb > 5:
                    continue
                small = {v: e for v, (s, e) in self.best.items() if s <= sb}
                for va, ea in self._level(sa):
                    cands = []
                    # X + Y, X * Y, Y - X, X - Y, Y / X, X / Y
                    cands.append(("+", True, tuple(t - x for t, x in zip(target, va))))
                    cands.append(("-", False, tuple(t + x for t, x in zip(target, va))))  # Y - X
                    cands.append(("-", True, tuple(x - t for t, x in zip(target, va))))  # X - Y
                    if all(x and t % x == 0 for t, x in zip(target, va)):
                        cands.append(("*", True, tuple(t // x for t, x in zip(target, va))))
                    cands.append(("/", False, tuple(t * x for t, x in zip(target, va))))  # Y / X
                    if all(t and x % t == 0 for t, x in zip(target, va)):
                        cands.append(("/", True, tuple(x // t for t, x in zip(target, va))))  # X / Y
                    for op, x_left, vb in cands:
                        eb = small.get(vb)
                        if eb is None:
                            continue
                        expr = E_bin(op, ea, eb) if x_left else E_bin(op, eb, ea)
                        if found is None or len(show(expr)) < len(show(found)):
                            found = expr
                if found is not None:
                    return found
        return None


# ---------------------------------------------------------------------------------------------
# The classes and their configs.
# ---------------------------------------------------------------------------------------------

# Five base configs (and a sixth, held out: the finished table must predict what
# save_pretrained writes for it, in every switch combination). Values are chosen so that no two attributes give the same vector and no
# simple combination of them gives another: heads/kv ratios 2,6,2,3,3; head_dim differs from
# hidden/heads; primes where nothing divides.
N_BASE = 5
B = {
    "vocab_size": [97, 89, 83, 79, 101, 113],
    "num_attention_heads": [6, 12, 10, 12, 9, 8],
    "num_key_value_heads": [3, 2, 5, 4, 4, 2],  # 9/4: no rule needs heads % kv == 0 to build
    "hd": [8, 4, 6, 4, 12, 14],  # hidden_size / num_attention_heads
    "head_dim": [10, 6, 4, 14, 8, 6],  # explicit head_dim, where the config has one
    "intermediate_size": [23, 29, 31, 37, 41, 43],
    "num_hidden_layers": [2, 3, 2, 3, 4, 3],
    "max_position_embeddings": [61, 67, 71, 53, 59, 47],
    # MoE
    "num_experts": [5, 3, 7, 4, 6, 9],
    "num_experts_per_tok": [2, 2, 3, 2, 3, 2],
    "moe_intermediate_size": [13, 17, 19, 11, 15, 7],
    "shared_expert_intermediate_size": [21, 25, 27, 33, 35, 39],
    "decoder_sparse_step": [1, 2, 1, 3, 2, 3],
    # DeepSeek MLA
    "first_k_dense_replace": [1, 2, 0, 1, 2, 1],
    "kv_lora_rank": [12, 14, 18, 20, 22, 26],
    "q_lora_rank": [15, 22, 26, 10, 28, 18],
    "qk_rope_head_dim": [4, 6, 2, 8, 10, 12],
    "qk_nope_head_dim": [5, 3, 7, 9, 11, 13],
    "v_head_dim": [6, 10, 4, 12, 14, 16],
    "n_shared_experts": [1, 2, 1, 3, 2, 1],
    # BERT
    "type_vocab_size": [2, 5, 3, 7, 4, 6],
}
B["hidden_size"] = [h * d for h, d in zip(B["num_attention_heads"], B["hd"])]
IDS = {"pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2}


def base(*names, **renamed):
    """Five config kwargs dicts: the named entries of B, plus renamed ones (json_name=B key)."""
    out = []
    for j in range(N_BASE + 1):
        d = dict(IDS)
        for n in names:
            d[n] = B[n][j]
        for k, n in renamed.items():
            d[k] = B[n][j]
        out.append(d)
    return out


LLAMA = ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
         "num_key_value_heads", "max_position_embeddings")
MOE = ("num_experts", "num_experts_per_tok", "moe_intermediate_size")
MLA = ("first_k_dense_replace", "kv_lora_rank", "q_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim",
       "v_head_dim", "n_shared_experts", "moe_intermediate_size", "num_experts_per_tok")
TIE = {"tie_word_embeddings": (True, False)}
UNSET = object()  # switch value: the config's default
OMIT = object()  # switch value: leave the key out of the config kwargs, as a config.json without it
HD_OMIT = {"head_dim": [OMIT]}  # configs that have head_dim: without it
HD_SET = {"head_dim": ["@head_dim"]}  # configs without a head_dim field: a config.json that has one

# class name -> (base configs, switches {attr: [values]} tried one at a time, extra variants)
SPECS = {
    "LlamaForCausalLM": (base(*LLAMA, "head_dim"),
                         {**TIE, "attention_bias": [True], "mlp_bias": [True], **HD_OMIT}, []),
    "LlamaModel": (base(*LLAMA, "head_dim"), {"attention_bias": [True], "mlp_bias": [True], **HD_OMIT}, []),
    "MistralForCausalLM": (base(*LLAMA, "head_dim"), {**TIE, **HD_OMIT}, []),
    "MistralModel": (base(*LLAMA, "head_dim"), HD_OMIT, []),
    "MixtralForCausalLM": (base(*LLAMA, "head_dim", "num_experts_per_tok",
                                num_local_experts="num_experts", intermediate_size="moe_intermediate_size"),
                           {**TIE, **HD_OMIT}, []),
    "Qwen2ForCausalLM": (base(*LLAMA), {**TIE, **HD_SET}, []),
    "Qwen2Model": (base(*LLAMA), HD_SET, []),
    "Qwen3ForCausalLM": (base(*LLAMA, "head_dim"), {**TIE, "attention_bias": [True], **HD_OMIT}, []),
    "Qwen3Model": (base(*LLAMA, "head_dim"), {"attention_bias": [True], **HD_OMIT}, []),
    "Qwen2MoeForCausalLM": (base(*LLAMA, *MOE, "shared_expert_intermediate_size", "decoder_sparse_step"),
                            {**TIE, "qkv_bias": [False], **HD_SET}, []),
    "Qwen3MoeForCausalLM": (base(*LLAMA, "head_dim", *MOE, "decoder_sparse_step"),
                            {**TIE, "attention_bias": [True], **HD_OMIT}, []),
    "Gemma2ForCausalLM": (base(*LLAMA, "head_dim"), {**TIE, "attention_bias": [True], **HD_OMIT}, []),
    "Gemma3ForCausalLM": (base(*LLAMA, "head_dim"), {**TIE, "attention_bias": [True], **HD_OMIT}, []),
    "Phi3ForCausalLM": (base(*LLAMA), {**TIE, **HD_SET}, []),
    "DeepseekV2ForCausalLM": (base(*LLAMA, *MLA, n_routed_experts="num_experts"),
                              {**TIE, "attention_bias": [True], "mlp_bias": [True], "q_lora_rank": [None]}, []),
    "DeepseekV3ForCausalLM": (base(*LLAMA, *MLA, n_routed_experts="num_experts"),
                              {**TIE, "attention_bias": [True], "q_lora_rank": [None]}, []),
    "CohereForCausalLM": (base(*LLAMA), {**TIE, "attention_bias": [True], "use_qk_norm": [True], **HD_SET}, []),
    "Olmo2ForCausalLM": (base(*LLAMA), {**TIE, "attention_bias": [True], **HD_SET}, []),
    "GraniteForCausalLM": (base(*LLAMA), {**TIE, "attention_bias": [True], "mlp_bias": [True], **HD_SET}, []),
    "Starcoder2ForCausalLM": (base(*LLAMA), {**TIE, "use_bias": [False], **HD_SET}, []),
    "GPT2LMHeadModel": (base("vocab_size", n_embd="hidden_size", n_layer="num_hidden_layers",
                             n_head="num_attention_heads", n_positions="max_position_embeddings"),
                        {**TIE, "n_inner": ["@intermediate_size"], "add_cross_attention": [True]}, []),
    "GPT2Model": (base("vocab_size", n_embd="hidden_size", n_layer="num_hidden_layers",
                       n_head="num_attention_heads", n_positions="max_position_embeddings"),
                  {"n_inner": ["@intermediate_size"], "add_cross_attention": [True]}, []),
    "BertModel": (base("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
                       "intermediate_size", "max_position_embeddings", "type_vocab_size"),
                  {"is_decoder": [True], "add_cross_attention": [True]}, []),
    "BertForMaskedLM": (base("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
                             "intermediate_size", "max_position_embeddings", "type_vocab_size"),
                        TIE, []),
}

# Config attributes never used as a size: token ids and the like.
NOT_SIZES = re.compile(r".*_token_id$|^transformers_version$")


def quiet():
    return contextlib.ExitStack()


def build_config(cls, kw):
    return cls.config_class(**kw)


def named_layers_key(key):
    """Pattern of a state-dict key: first index -> %d, index after `experts.` -> %e."""
    parts = key.split(".")
    layer = expert = None
    out = []
    for j, p in enumerate(parts):
        if p.isdigit():
            if j > 0 and parts[j - 1] == "experts" and layer is not None:
                if expert is not None:
                    raise SystemExit(f"two expert indices in {key}")
                expert = int(p)
                out.append("%e")
                continue
            if layer is not None:
                raise SystemExit(f"unexpected second index in {key}")
            layer = int(p)
            out.append("%d")
            continue
        out.append(p)
    return ".".join(out), layer, expert


class Run:
    """One config: in-memory and on-disk keys of the class built from it."""

    def __init__(self, cls, kw, variant_name, base_index, tmp):
        self.variant, self.base, self.kw = variant_name, base_index, kw
        cfg = build_config(cls, kw)
        d = cfg.to_dict()
        self.attrs = {k: v for k, v in d.items()
                      if isinstance(v, (int, float, bool, type(None))) and not NOT_SIZES.match(k)}
        self.layers = cfg.num_hidden_layers
        with torch.device("meta"):
            meta = cls(cfg)
        self.mem = {k: tuple(v.shape) for k, v in meta.state_dict().items()}
        torch.manual_seed(0)
        model = cls(cfg)
        self.tied = dict(model.all_tied_weights_keys)
        self.ign_missing = sorted(model._keys_to_ignore_on_load_missing or [])
        self.ign_unexpected = sorted(model._keys_to_ignore_on_load_unexpected or [])
        bufs = [k for k, _ in model.named_buffers()]
        implicit = []
        if any(b.endswith("rotary_emb.inv_freq") for b in bufs):
            implicit.append(r"rotary_emb\.inv_freq")
        if any(b.endswith("position_ids") for b in bufs):
            implicit.append(r"(^|\.)position_ids$")
        self.ign_implicit = implicit
        self.fp32 = (sorted(model._keep_in_fp32_modules or []),
                     sorted(getattr(model, "_keep_in_fp32_modules_strict", None) or []))
        self.transforms = []
        mapping = get_model_conversion_mapping(model)
        renamings = [t for t in mapping if isinstance(t, WeightRenaming)]
        converters = [t for t in mapping if isinstance(t, WeightConverter)]
        for t in mapping:
            if isinstance(t, WeightConverter):
                self.transforms.append(("convert", tuple(t.source_patterns), tuple(t.target_patterns)))
            elif isinstance(t, WeightRenaming):
                self.transforms.append(("rename", tuple(t.source_patterns), tuple(t.target_patterns)))
        out = Path(tmp) / f"{variant_name}-{base_index}"
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            model.save_pretrained(out)
        self.disk = {}
        files = sorted(out.glob("*.safetensors"))
        for f in files:
            with safe_open(f, "pt") as h:
                for k in h.keys():
                    self.disk[k] = tuple(h.get_slice(k).get_shape())
        # where transformers puts each checkpoint key on load: (in-memory key, converter pattern)
        self.disk_to_mem = {k: rename_source_key(k, renamings, converters) for k in self.disk}
        saved = json.loads((out / "config.json").read_text())
        self.saved_config = saved
        self.model_type = cfg.model_type
        self.prefix = cls.base_model_prefix


def honoured(cls, kw, attr, value):
    """Does the config keep `attr` as given? (False: __post_init__ recomputes it.)"""
    for trial in (value * 3 if isinstance(value, int) else None, value + 2 if isinstance(value, int) else None):
        if trial is None:
            continue
        try:
            c = build_config(cls, {**kw, attr: trial})
        except Exception:
            continue
        return c.to_dict().get(attr) == trial
    return True


class ClassTable:
    def __init__(self, name, tmp):
        self.name = name
        self.cls = getattr(transformers, name)
        bases, switches, extras = SPECS[name]
        bases, self.held_out = bases[:N_BASE], bases[N_BASE]
        self.bases = bases
        self.combos = []
        self.switch_attrs = set(switches) | {k for e in extras for k in e}
        # Every combination of the switches (a list also tries the config's default, a tuple
        # only its values), so that interactions show (q_a_proj.bias needs attention_bias AND
        # q_lora_rank set).
        options = []
        for attr, values in switches.items():
            vals = list(values) if isinstance(values, tuple) else [UNSET] + list(values)
            options.append([(attr, v) for v in vals])
        self.runs, self.skipped = [], []
        for combo in itertools.product(*options):
            overrides = {a: v for a, v in combo if v is not UNSET}
            self.combos.append(overrides)
            vname = ",".join(f"{a}={'omitted' if v is OMIT else v}" for a, v in overrides.items()) or "default"
            runs = []
            try:
                for j, b in enumerate(bases):
                    # "@name": the base config's own value of B[name]
                    o = {k: B[v[1:]][j] if isinstance(v, str) and v.startswith("@") else v
                         for k, v in overrides.items()}
                    kw = {k: v for k, v in {**b, **o}.items() if v is not OMIT}
                    runs.append(Run(self.cls, kw, vname, j, tmp))
            except Exception as e:  # a combination the config or the model refuses
                self.skipped.append(f"{vname} ({type(e).__name__}: ...{str(e).strip().splitlines()[-1][-70:]})")
                continue
            self.runs += runs
        self.variants = len(self.runs) // N_BASE
        self.notes = []
        self.null_differs = []
        self._cond_cache = {}
        self.check_transforms()
        self.find_atoms()

    # -- attributes usable in expressions ------------------------------------------------------
    def find_atoms(self):
        """Integer attributes usable in expressions: those the base configs or the switches set
        and the config keeps as given. An attribute the config derives from others (DeepSeek-V3's
        `head_dim` = qk_rope_head_dim, `qk_head_dim`) is left out: the model may not read it."""
        amap = self.cls.config_class.attribute_map
        given = {amap.get(k, k) for b in self.bases for k in b} | {amap.get(k, k) for k in self.switch_attrs}
        names = list(dict.fromkeys(k for r in self.runs for k in r.attrs))
        self.field_order = names
        self.int_attrs, self.derived, self.constant = [], [], []
        base_runs = [r for r in self.runs if r.variant == self.runs[0].variant]
        for k in names:
            runs = [r for r in self.runs if r.attrs.get(k) is not None]
            vals = [r.attrs[k] for r in runs]
            if not vals or not all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
                continue
            varies = len(set(vals)) > 1
            if k in given and honoured(self.cls, runs[0].kw, k, vals[0]):
                self.int_attrs.append(k)
                if not varies:
                    self.constant.append(k)
            elif varies:
                self.derived.append(k)
        vecs = {}
        for k in self.int_attrs:
            if k in self.constant:
                continue
            vec = tuple(r.attrs.get(k) for r in base_runs)
            if vec in vecs and None not in vec:
                raise SystemExit(f"{self.name}: {k} and {vecs[vec]} have the same values in every base config")
            vecs[vec] = k

    def atoms_for(self, runs):
        atoms = {}
        for k in self.int_attrs:
            if k in self.constant:
                continue
            vec = tuple(r.attrs.get(k) for r in runs)
            if any(v is None or isinstance(v, bool) for v in vec):
                continue
            atoms[k] = vec
        return atoms

    def check_transforms(self):
        first = self.runs[0].transforms
        for r in self.runs:
            if r.transforms != first:
                raise SystemExit(f"{self.name}: conversion mapping differs between runs")

    # -- dims ----------------------------------------------------------------------------------
    def dims_expr(self, points):
        """points: list of (run, shape). Returns list of expression strings."""
        runs = [r for r, _ in points]
        ndim = {len(s) for _, s in points}
        if len(ndim) != 1:
            raise SystemExit(f"{self.name}: rank differs between runs")
        out = []
        atoms = self.atoms_for(runs)
        searcher = Searcher(atoms) if atoms else None
        for d in range(ndim.pop()):
            target = tuple(s[d] for _, s in points)
            expr = None
            if len(set(target)) == 1 and target[0] in Searcher.CONSTS:
                expr = E_const(target[0])
            elif searcher is not None:
                expr = searcher.find(target)
                if expr is not None and expr[0] == "const" and expr[1] > 4:
                    expr = None
            if expr is None:
                expr = self.nullable_dims(points, d)
            if expr is None:
                out.append("?")
                self.notes.append(f"no expression for dim {d}: {target}")
                continue
            text = show(expr)
            for (r, s) in points:
                if holds(text, r.attrs) != s[d]:
                    raise SystemExit(f"{self.name}: {text} gives {holds(text, r.attrs)} not {s[d]} in {r.variant}")
            out.append(text)
        return out

    def nullable_dims(self, points, d):
        """`A!=null ? F : E` for an attribute A that is null in some runs (GPT-2's n_inner,
        Mixtral's head_dim): F found where A is set, E where it is null."""
        for k in self.int_attrs:
            vals = [r.attrs.get(k) for r, _ in points]
            if None not in vals or all(v is None for v in vals):
                continue
            parts = []
            for want_null in (False, True):
                sub = [(r, s) for v, (r, s) in zip(vals, points) if (v is None) == want_null]
                atoms = self.atoms_for([r for r, _ in sub])
                target = tuple(s[d] for _, s in sub)
                if len(set(target)) == 1 and target[0] in Searcher.CONSTS:
                    parts.append(E_const(target[0]))
                    continue
                e = Searcher(atoms).find(target) if atoms else None
                if e is None or e[0] == "const":
                    break
                parts.append(e)
            if len(parts) == 2:
                return E_tern(E_bin("!=", E_attr(k), E_const(None)), parts[0], parts[1])
        return None

    # -- conditions ----------------------------------------------------------------------------
    def condition_atoms(self, layered):
        runs = self.runs
        atoms = []
        names = self.field_order
        for k in names:
            vals = [r.attrs.get(k) for r in runs]
            distinct = set(map(repr, vals))
            if len(distinct) < 2:
                continue
            if all(isinstance(v, bool) for v in vals):
                if len(distinct) > 1:
                    atoms += [k, f"!{k}"]
            elif any(v is None for v in vals) and any(v is not None for v in vals):
                atoms += [f"{k}!=null", f"{k}==null"]
            elif all(isinstance(v, int) and not isinstance(v, bool) for v in vals) and k not in self.constant:
                if len(distinct) > 1 and k in self.int_attrs:
                    atoms += [f"{k}>0", f"{k}==0"]
        if layered:
            for k in self.int_attrs:
                if k in self.constant:
                    continue
                atoms += [f"i>={k}", f"i<{k}", f"(i+1)%{k}==0", f"(i+1)%{k}!=0"]
        return atoms

    def condition(self, observations, layered):
        """observations: list of (env, present), the same envs for every record of a kind
        (runs, or runs x layers). The simplest condition reproducing them all."""
        if all(p for _, p in observations):
            return "-"
        atoms = self.condition_atoms(layered)
        key = (layered, len(observations))
        if key not in self._cond_cache:
            vecs = {}
            for a in atoms:
                e = parse(a)
                try:
                    vals = [evaluate(e, env) for env, _ in observations]
                except EvalError:
                    continue
                if all(isinstance(v, bool) for v in vals):
                    vecs[a] = sum(1 << j for j, v in enumerate(vals) if v)
            self._cond_cache[key] = vecs
        vecs = self._cond_cache[key]
        want = sum(1 << j for j, (_, p) in enumerate(observations) if p)
        names = [a for a in atoms if a in vecs]
        for a in names:
            if vecs[a] == want:
                return a
        for x, y in itertools.combinations(names, 2):
            if vecs[x] & vecs[y] == want:
                return show(E_bin("&&", parse(x), parse(y)))
            if vecs[x] | vecs[y] == want:
                return show(E_bin("||", parse(x), parse(y)))
        raise SystemExit(f"{self.name}: no condition for {[(e.get('i'), p) for e, p in observations[:8]]}...")

    # -- records -------------------------------------------------------------------------------
    def build(self):
        # Per run, tensors by (pattern, need) -> {layer -> shape}, experts checked separately.
        entries = {}  # (pattern, need) -> {run index: {layer: shape}}
        order = []
        expert_counts = []  # (run, count) for %e loops
        fused = {}
        fused_sources = {}
        for ri, r in enumerate(self.runs):
            tied_targets = set(r.tied)
            reached = {}
            per_layer_experts = {}
            for k, shape in r.disk.items():
                target, conv = r.disk_to_mem[k]
                if target not in r.mem:
                    raise SystemExit(f"{self.name}: {k} loads as {target}, which the model lacks")
                reached[target] = conv
                if conv is not None:
                    fused_sources.setdefault(named_layers_key(target)[0], []).append(named_layers_key(k)[0])
                if conv is None and r.mem[target] != shape:
                    raise SystemExit(f"{self.name}: {k} is {shape} on disk, {r.mem[target]} in memory")
                pat, layer, expert = named_layers_key(k)
                self._add(entries, order, (pat, "required"), ri, layer, expert, shape)
                if expert is not None:
                    per_layer_experts.setdefault((pat, layer), set()).add(expert)
            for (pat, layer), ex in per_layer_experts.items():
                if ex != set(range(len(ex))):
                    raise SystemExit(f"{self.name}: experts {sorted(ex)} of {pat}")
                expert_counts.append((r, len(ex)))
            for k, shape in r.mem.items():
                pat, layer, expert = named_layers_key(k)
                if k in reached:
                    if reached[k] is not None:
                        fused.setdefault(pat, {}).setdefault(ri, {})[layer] = shape
                elif k in tied_targets:
                    self._add(entries, order, (pat, "optional"), ri, layer, expert, shape)
                else:
                    raise SystemExit(f"{self.name}: {k} is in memory, not on disk, and neither tied nor converted")
        self.entries, self.fused_mem = entries, fused
        self.order = order = self.merged_order()

        # loop variables
        lvec = tuple(r.layers for r in self.runs)
        self.loop_d = self.single_attr(lvec, self.runs)
        self.loop_e = None
        if expert_counts:
            runs = [r for r, _ in expert_counts]
            self.loop_e = self.single_attr(tuple(c for _, c in expert_counts), runs)

        self.tensor_records = []
        for key in order:
            pat, need = key
            per_run = entries[key]
            layered = "%d" in pat
            points = []
            for ri, layers in per_run.items():
                shapes = set(layers.values())
                if len(shapes) != 1:
                    raise SystemExit(f"{self.name}: {pat} has different shapes across layers: {layers}")
                points.append((self.runs[ri], shapes.pop()))
            dims = self.dims_expr(points)
            obs = []
            for ri, r in enumerate(self.runs):
                have = per_run.get(ri, {})
                if layered:
                    for i in range(r.layers):
                        obs.append(({**r.attrs, "i": i}, i in have))
                else:
                    obs.append((r.attrs, ri in per_run))
            cond = self.condition(obs, layered)
            self.tensor_records.append((pat, dims, need, cond))

        self.fused_records = []
        for pat, per_run in fused.items():
            points = []
            for ri, layers in per_run.items():
                shapes = set(layers.values())
                points.append((self.runs[ri], shapes.pop()))
            dims = self.dims_expr(points)
            obs = []
            for ri, r in enumerate(self.runs):
                have = per_run.get(ri, {})
                for i in range(r.layers):
                    obs.append(({**r.attrs, "i": i}, i in have))
            cond = self.condition(obs, True)
            sources = [p for p, _ in self.order if p in set(fused_sources[pat])]
            self.fused_records.append((pat, dims, cond, sources))

        # tied
        tied = {}
        for ri, r in enumerate(self.runs):
            for t, s in r.tied.items():
                tied.setdefault((t, s), set()).add(ri)
        self.tied_records = []
        for (t, s), rs in tied.items():
            obs = [(r.attrs, ri in rs) for ri, r in enumerate(self.runs)]
            self.tied_records.append((t, s, self.condition(obs, False)))

        ign = {(tuple(r.ign_missing), tuple(r.ign_unexpected), tuple(r.ign_implicit)) for r in self.runs}
        if len(ign) != 1:
            raise SystemExit(f"{self.name}: ignore lists differ between runs")
        self.ignore_missing, self.ignore_unexpected, self.ignore_implicit = ign.pop()
        self.fp32 = self.runs[0].fp32
        self.renames = [(s, t) for kind, src, tgt in self.runs[0].transforms if kind == "rename"
                        for s, t in zip(src, itertools.cycle(tgt))]

    def merged_order(self):
        """Record order: the model's own (state_dict) order, keys of later variants inserted after
        the key that precedes them in their run."""
        merged = []
        for r in self.runs:
            mem = list(r.mem)

            def position(k):
                if k in r.mem:
                    return (mem.index(k), k)
                common = max(range(len(mem)), key=lambda j: (len(os.path.commonprefix([k, mem[j]])), -j))
                return (common, k)

            seq = []
            for k in sorted(r.disk, key=position):
                seq.append((named_layers_key(k)[0], "required"))
            for k in mem:
                if k in r.tied and k not in r.disk:
                    seq.append((named_layers_key(k)[0], "optional"))
            seq = list(dict.fromkeys(seq))
            prev = None
            for key in seq:
                if key not in merged:
                    merged.insert(merged.index(prev) + 1 if prev is not None else 0, key)
                prev = key
        return merged

    def single_attr(self, vec, runs):
        for k in self.int_attrs:
            if tuple(r.attrs.get(k) for r in runs) == vec:
                return k
        raise SystemExit(f"{self.name}: no attribute counts {vec}")

    @staticmethod
    def _add(entries, order, key, ri, layer, expert, shape):
        if key not in entries:
            entries[key] = {}
            order.append(key)
        layers = entries[key].setdefault(ri, {})
        if layer in layers and layers[layer] != shape:
            raise SystemExit(f"{key} differs between experts")
        layers[layer] = shape

    # -- attribute records ---------------------------------------------------------------------
    def used_attrs(self):
        texts = [self.loop_d] + ([self.loop_e] if self.loop_e else [])
        for _, dims, _, cond in self.tensor_records:
            texts += dims + [cond]
        for _, dims, cond, _ in self.fused_records:
            texts += dims + [cond]
        texts += [c for _, _, c in self.tied_records]
        names = set()
        for t in texts:
            names.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", t))
        names -= {"true", "false", "null", "min", "max", "i"}
        return sorted(names, key=lambda n: self.field_order.index(n) if n in self.field_order else 10**6)

    def default_of(self, attr):
        """What the config class uses when config.json lacks `attr`."""
        cfg_cls = self.cls.config_class
        aliases = {k for k, v in cfg_cls.attribute_map.items() if v == attr}
        values, runs_kw = [], []
        for kw in self.bases:
            kw = {k: v for k, v in kw.items() if k != attr and k not in aliases}
            try:
                c = build_config(self.cls, kw)
            except Exception:
                # Without it, the rest of this config breaks a rule (hidden_size % heads): the
                # class's own default, from a config built from nothing.
                try:
                    c = cfg_cls()
                except Exception:
                    return "required"
                return lit(c.to_dict().get(attr, getattr(c, attr, None)))
            values.append(c.to_dict().get(attr, getattr(c, attr, None)))
            runs_kw.append(c.to_dict())
        if len(set(map(repr, values))) == 1:
            return lit(values[0])
        # derived: an expression over the other attributes of the same configs
        atoms = {}
        for k in self.int_attrs:
            if k == attr or k in self.constant:
                continue
            vec = tuple(d.get(k) for d in runs_kw)
            if all(isinstance(v, int) and not isinstance(v, bool) for v in vec):
                atoms[k] = vec
        e = Searcher(atoms).find(tuple(values)) if atoms else None
        if e is None:
            raise SystemExit(f"{self.name}: default of {attr} is {values}, no expression")
        text = show(e)
        for d, v in zip(runs_kw, values):
            if holds(text, d) != v:
                raise SystemExit(f"{self.name}: default {text} of {attr} fails")
        # config.json may say null (Mistral's do): the config fills it in the same way
        for kw, v in zip(self.bases, values):
            kw = {k: x for k, x in kw.items() if k != attr and k not in aliases}
            got = build_config(self.cls, {**kw, attr: None}).to_dict().get(attr)
            if got != v:
                self.notes.append(f"{attr}: null in config.json gives {got}, absent gives {v}")
                self.null_differs.append(attr)
                break
        return text

    def lines(self):
        r0 = self.runs[0]
        out = [f"class\t{self.name}\t{r0.model_type}\t{r0.prefix}\t{self.loop_d}"]
        used = self.used_attrs()
        for a in used:
            out.append(f"attr\t{self.name}\t{a}\t{self.default_of(a)}")
        amap = self.cls.config_class.attribute_map
        for k, v in sorted(amap.items()):
            if v in used:
                out.append(f"alias\t{self.name}\t{k}\t{v}")
        if self.loop_e:
            out.append(f"loop\t{self.name}\t%e\t{self.loop_e}")
        for pat, dims, need, cond in self.tensor_records:
            out.append(f"tensor\t{self.name}\t{pat}\t{','.join(dims)}\t{need}\t{cond}")
        for pat, dims, cond, sources in self.fused_records:
            out.append(f"fused\t{self.name}\t{pat}\t{','.join(dims)}\t{cond}\t{','.join(sources)}")
        for t, s, cond in self.tied_records:
            out.append(f"tied\t{self.name}\t{t}\t{s}\t{cond}")
        for p in self.ignore_missing:
            out.append(f"ignore\t{self.name}\tmissing\t{p}")
        for p in self.ignore_unexpected:
            out.append(f"ignore\t{self.name}\tunexpected\t{p}")
        for p in self.ignore_implicit:
            out.append(f"ignore\t{self.name}\tunexpected\t{p}")
        for s, t in self.renames:
            out.append(f"rename\t{self.name}\t{s}\t{t}")
        loose, strict = self.fp32
        for m in strict:
            out.append(f"fp32\t{self.name}\t{m}\tstrict")
        for m in loose:
            out.append(f"fp32\t{self.name}\t{m}\tloose")
        return out


HEADER = f"""\
# Generated by schema/gen_hf_arch.py from transformers {TRANSFORMERS_VERSION} (torch {TORCH_VERSION}); do not edit.
#
# What each transformers architecture expects in a checkpoint folder (config.json + weights), for
# rtenx to tell whether `from_pretrained` would load it with the weights it holds. Tab-separated;
# `#` lines are comments. Records, by first field:
#
#   version  transformers X.Y.Z
#   class    <Class> <model_type> <base_model_prefix> <loop var of %d>
#   attr     <Class> <name> <default>
#            a config attribute that an expression or condition below uses, under the name
#            config.json uses (`to_dict`). <default>: what the config class takes when config.json
#            lacks the key: a literal (int, decimal, true, false, null), an expression of other attrs
#            (num_key_value_heads -> num_attention_heads), or `required`.
#   alias    <Class> <json key> <attr>
#            config.json may name <attr> <json key> (the config's `attribute_map`, e.g. Qwen3-MoE's
#            `num_experts` for num_local_experts, GPT-2's `hidden_size` for n_embd).
#   loop     <Class> %e <attr>        expert index %e runs over 0..<attr>-1 (%d runs over the class's
#                                     loop var, the layer count).
#   tensor   <Class> <key pattern> <dims> <need> <condition>
#            a tensor of the checkpoint AS SAVED (save_pretrained's keys, after the weight
#            conversion is reverted), shape in torch order, dims comma-separated (no dim expression
#            holds a comma).
#            need: `required` (missing -> transformers initialises it at random) or `optional`
#            (a tied target, which transformers fills from its source). condition: `-`, or when the
#            key exists; `i` is the layer index of %d.
#   fused    <Class> <key pattern> <dims> <condition> <tensor patterns>
#            the in-memory form of MoE experts (one 3-D tensor per layer). transformers stacks the
#            listed per-expert tensors into it on load; a checkpoint holding this key instead of them
#            loads too. Mismatch reports name this key. One per-expert tensor missing is NOT a
#            missing key: the stack comes out one expert short and from_pretrained raises a size
#            mismatch on this key (tests/fixtures/hf/bad/HF003-moe-expert-missing).
#   tied     <Class> <key> <source key> <condition>
#            when <condition>, <key> is tied to <source key>: saved once, under the source. Tying is
#            symmetric on load: either of the two keys is enough; both present with different values
#            -> not tied (warning).
#   ignore   <Class> missing|unexpected <python regex>
#            missing/unexpected keys matching (re.search) are not reported (_keys_to_ignore_on_load_*,
#            plus transformers' own `rotary_emb\\.inv_freq` / `(^|\\.)position_ids$` when the model
#            has such buffers).
#   rename   <Class> <python regex> <replacement>
#            checkpoint key renamings applied on load before matching: the first match of the regex
#            (re.search) is replaced, in record order. Compare keys after renaming both the checkpoint
#            keys and the tensor patterns: Mixtral saves `block_sparse_moe.`, holds `mlp.` in memory,
#            and a checkpoint with either loads. The "legacy" ones apply to every class.
#   fp32     <Class> <module name> strict|loose
#            _keep_in_fp32_modules(_strict): these stay float32 whatever the config's dtype.
#
# Expressions (dims, conditions, defaults): integer/decimal literals, true, false, null, attr names,
# + - * / % (`/` is integer division), == != < <= > >=, && || !, parentheses, c ? a : b,
# min(a,b), max(a,b).
#
# Matching a checkpoint key against a class: apply the `rename` records; then, when the key starts
# with `<base_model_prefix>.` and the class has no such key, strip the prefix; when the class has
# `<base_model_prefix>.` + key, add it. A base-model checkpoint (keys without `model.`) loads into
# *ForCausalLM, and a *ForCausalLM checkpoint into the base model, whose `lm_head.weight` is then
# unexpected. Only a shape mismatch makes from_pretrained raise; missing keys are initialised at
# random and unexpected ones dropped, with a warning. Tensor dtypes do not matter: everything is
# cast to the config's `dtype` (or float32).
#
# A null in config.json acts like an absent key for every attr whose default is an expression
# (the config's __post_init__ fills it in), unless a comment below says otherwise.
#
# Not expressible here: Qwen2-MoE/Qwen3-MoE `mlp_only_layers` (a list; layers in it are dense: the
# conditions below assume it empty), config.json keys unknown to the config class (kept as
# attributes, e.g. a stray `head_dim` in a Phi-3 config.json does change its shapes).
"""


def parse_records(lines, name):
    """The records of class `name`, as rtenx would read them."""
    rec = {"attrs": {}, "aliases": {}, "tensors": []}
    for line in lines:
        f = line.split("\t")
        if line.startswith("#") or len(f) < 2 or f[1] != name:
            continue
        if f[0] == "class":
            rec["loop_d"] = f[4]
        elif f[0] == "attr":
            rec["attrs"][f[2]] = f[3]
        elif f[0] == "alias":
            rec["aliases"][f[2]] = f[3]
        elif f[0] == "loop":
            rec["loop_e"] = f[3]
        elif f[0] == "tensor":
            rec["tensors"].append((f[2], f[3].split(","), f[4], f[5]))
    return rec


def predict(rec, config_json):
    """Keys -> (shape, need) that the records say a checkpoint for this config.json holds."""
    env = {}
    for json_key, attr in rec["aliases"].items():
        if json_key in config_json:
            env[attr] = config_json[json_key]
    for attr in rec["attrs"]:
        if attr in config_json:
            env[attr] = config_json[attr]
    for _ in range(len(rec["attrs"])):
        for attr, default in rec["attrs"].items():
            if default == "required":
                continue
            literal = default in ("null", "true", "false") or re.fullmatch(r"-?[0-9.e-]+", default)
            if attr not in env or (env[attr] is None and not literal):
                try:
                    env[attr] = evaluate(parse(default), env)
                except EvalError:
                    pass
    out = {}
    layers = range(env[rec["loop_d"]])
    for pat, dims, need, cond in rec["tensors"]:
        for i in layers if "%d" in pat else [None]:
            e = {**env, "i": i}
            if cond != "-" and evaluate(parse(cond), e) is not True:
                continue
            shape = tuple(evaluate(parse(d), e) for d in dims)
            for x in range(env[rec["loop_e"]]) if "%e" in pat else [None]:
                key = pat.replace("%d", str(i)).replace("%e", str(x))
                if key in out:
                    raise SystemExit(f"two records give {key}")
                out[key] = (shape, need)
    return out


def verify(table: ClassTable, lines, tmp):
    """The held-out config, in every switch combination: what the records predict from the
    config.json save_pretrained writes is what it writes."""
    rec = parse_records(lines, table.name)
    checked = 0
    for overrides in table.combos:
        o = {k: B[v[1:]][N_BASE] if isinstance(v, str) and v.startswith("@") else v for k, v in overrides.items()}
        kw = {k: v for k, v in {**table.held_out, **o}.items() if v is not OMIT}
        try:
            run = Run(table.cls, kw, "held-out", N_BASE, tmp)
        except Exception:
            continue
        expected = predict(rec, run.saved_config)
        # the same from a config.json without the keys whose value is the default
        slim = dict(run.saved_config)
        for attr in rec["attrs"]:
            if attr in slim:
                without = {k: v for k, v in slim.items() if k != attr}
                env = {**without, attr: None}
                if rec["attrs"][attr] != "required":
                    try:
                        dflt = evaluate(parse(rec["attrs"][attr]), without)
                    except EvalError:
                        continue
                    if dflt == slim[attr] and type(dflt) is type(slim[attr]):
                        slim = without
                del env
        if predict(rec, slim) != expected:
            raise SystemExit(f"{table.name} {overrides}: defaults do not reproduce {sorted(set(run.saved_config) - set(slim))}")
        for k, (shape, need) in expected.items():
            if need == "required" and k not in run.disk:
                raise SystemExit(f"{table.name} {overrides}: predicted {k}, not saved")
            if k in run.disk and run.disk[k] != shape:
                raise SystemExit(f"{table.name} {overrides}: {k} predicted {shape}, saved {run.disk[k]}")
        for k in run.disk:
            if k not in expected:
                raise SystemExit(f"{table.name} {overrides}: {k} saved, not predicted")
        checked += 1
    return checked


def generate(tmp) -> str:
    lines = [HEADER.rstrip("\n"), f"version\ttransformers {TRANSFORMERS_VERSION}"]
    for name in SPECS:
        t = ClassTable(name, tmp)
        t.build()
        lines.append(f"# {name}: {len(t.runs)} runs ({t.variants} variants x {N_BASE} configs)"
                     + (f"; refused: {'; '.join(t.skipped)}" if t.skipped else "")
                     + (f"; derived by the config, not used: {', '.join(t.derived)}" if t.derived else ""))
        class_lines = t.lines()
        checked = verify(t, class_lines, tmp)
        lines.append(f"# {name}: held-out config checked in {checked} switch combinations")
        lines += class_lines
        for a in t.null_differs:
            lines.append(f"# {name}: `{a}: null` in config.json is not the same as no {a}")
        for note in t.notes:
            print(f"{name}: {note}", file=sys.stderr)
        print(f"{name}: {len(t.tensor_records)} tensor records", file=sys.stderr)
    return "\n".join(lines) + "\n"


def self_check(text: str):
    """Every expression field parses with the grammar."""
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        f = line.split("\t")
        exprs = []
        if f[0] == "tensor":
            exprs = f[3].split(",") + ([f[5]] if f[5] != "-" else [])
        elif f[0] == "fused":
            exprs = f[3].split(",") + ([f[4]] if f[4] != "-" else [])
        elif f[0] == "tied":
            exprs = [f[4]] if f[4] != "-" else []
        elif f[0] == "attr" and f[3] != "required":
            exprs = [f[3]]
        for e in exprs:
            if e != "?":
                parse(e)
        if f[0] in ("tensor", "fused") and ("min(" in f[3] or "max(" in f[3]):
            raise SystemExit(f"a comma inside a dim: {line}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if schema/hf_arch.tsv is not current")
    ap.add_argument("--only", nargs="+", help="print these classes' records only (debugging; writes nothing)")
    args = ap.parse_args()
    if args.only:
        for name in list(SPECS):
            if name not in args.only:
                del SPECS[name]
    if transformers.__version__ != TRANSFORMERS_VERSION or not torch.__version__.startswith(TORCH_VERSION):
        raise SystemExit(f"need transformers {TRANSFORMERS_VERSION} and torch {TORCH_VERSION}, have "
                         f"{transformers.__version__} and {torch.__version__}")
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        text = generate(tmp)
    self_check(text)
    if args.only:
        sys.stdout.write("\n".join(l for l in text.splitlines() if not l.startswith("# ")) + "\n")
        return
    if args.check:
        if OUT.read_text() != text:
            print("schema/hf_arch.tsv is stale; run schema/gen_hf_arch.py", file=sys.stderr)
            sys.exit(1)
        return
    OUT.write_text(text)
    print(f"wrote {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
