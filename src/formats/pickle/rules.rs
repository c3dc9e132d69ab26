//! Rules of plain pickle files and Paddle checkpoints (codes PY001..). The pickle machine's
//! own rules (PK) and the zip rules (ZP) apply too. References: `paddle.save`/`paddle.load`
//! (`python/paddle/framework/io.py`, paddlepaddle 3.3.1) and CPython's `pickle`;
//! `tests/fixtures/pickle/verdicts.tsv` records what paddle and the scanners say.

crate::rules! {
    group = ("PY", "Pickle files and Paddle checkpoints");
    /// `builtins.eval` is called with something other than Paddle's bare-tensor form.
    ///
    /// ## What it does
    /// `paddle.save` of a bare `DenseTensor` writes `builtins.eval('data', {'data': array})`:
    /// it evaluates the name `data` in a namespace that holds the array, and runs nothing
    /// else. rtenx recognises exactly that call (the import is then trusted as recognised and
    /// the array listed) and reports every other `eval(expression, namespace)` call at the
    /// `REDUCE` that makes it, naming the entry it fills. An `eval` of any other shape is an
    /// unsafe import (PK001).
    ///
    /// ## Why
    /// `paddle.load` calls `pickle.load` without restriction, so the expression runs when the
    /// file is loaded: `eval("__import__('os').system(...)", {})` in a `.pdparams` runs a
    /// command. picklescan reports every `builtins.eval` as dangerous, Paddle's own form
    /// included; modelscan does not scan `.pdparams` at all.
    ///
    /// ## How to fix
    /// Do not load the file. Save parameters with `paddle.save(layer.state_dict(), path)`.
    EVAL_NOT_PADDLE = ("PY001", "eval-not-paddle", Error);
}
