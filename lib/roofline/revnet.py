"""Feistel networks and RevNets: invertible blocks, and the memory a training step keeps (lecture chapter 7,
02:04:02-02:13:40).

A Feistel round turns any function ``f``, invertible or not, into an invertible map of two
inputs: ``(x, y) -> (x, y + f(x))``, undone by ``z - f(x)`` (02:08:41-02:10:16). Ciphers use
XOR for the ``+``; RevNets (Gomez et al. 2017) use real addition with a transformer layer as
``f``, and swap the two streams, ``x' = y + f(x), y' = x`` (02:10:25-02:11:56). A stack of
such blocks can be run backwards, so training can rebuild each layer's activations during the
backward pass instead of keeping them (02:12:05-02:13:08).

The equations (sympy, registered with :func:`roofline.equations.family`):

* ``layer_activation_bytes``: the activations one transformer layer saves for its backward
  pass, Korthikanti et al. (2022) ``s b h (34 + 5 a s / h)`` bytes at 16-bit values. Their
  assumptions: a GPT-style layer with a 4h GeLU MLP, dropout (masks of one byte, counted here
  as half a value), the attention scores stored, no tensor or sequence parallelism, no
  recomputation. Variants: ``scores="flash"`` (FlashAttention keeps no s x s matrix; its per-row
  softmax statistics, a s b numbers, are left out),
  ``dropout="off"`` (no masks, as in most LLM pre-training).
* ``training_activation_bytes``: all layers' activations, ``activations="stored"`` (L layers),
  ``"checkpointed"`` (each layer's input, plus one layer rebuilt) or ``"reversible"`` (the two
  streams at the top, plus one layer rebuilt: O(1) layers).
* ``train_flops_per_token``: 6 N stored, 8 N when a layer's forward runs again in the backward.
* ``act_recompute_over_traffic``, ``kv_recompute_over_read``: each trade set against the
  hardware's FLOP/s per byte/s.

Plain numpy helpers measure mixing: the avalanche of SHA-256, of a toy Feistel cipher by
rounds, and of a small random MLP with and without residual connections and LayerNorm.

>>> f = lambda v: np.sin(3 * v) ** 2            # not invertible
>>> x, y = np.array([0.3, -1.2]), np.array([2.0, 0.5])
>>> back = revnet_block_inverse(*revnet_block(x, y, f), f)
>>> bool(np.allclose(back[0], x) and np.allclose(back[1], y))
True
>>> gpt3 = dict(len_ctx=2048, micro_batch=1, d_model=12288, n_heads=96, saved_act_bytes=2)
>>> print(f"{layer_activation_bytes(**gpt3) / 1e9:.2f} GB per layer")  # Korthikanti et al.'s GPT-3 shape
2.87 GB per layer
"""

import hashlib
import numbers

import numpy as np
import sympy as sp
from sympy.physics import units as u

from . import _check, equations, training
from ._check import check_value, short
from .equations import Spec
from .symbols import (N_active, d_model, flops, kv_bytes, len_ctx, mem_bw, micro_batch, n_heads, n_layers,
                      saved_act_bytes)

_B = u.byte


# -- the equations ------------------------------------------------------------------------------
def build(scores="stored", dropout="on", activations="stored"):
    """The chapter-7 equations under one choice of variants, as {numeric function name: Spec}."""
    equations.check_variant(__name__, scores=scores, dropout=dropout, activations=activations)
    s, b, h, a, bv, L = len_ctx, micro_batch, d_model, n_heads, saved_act_bytes, n_layers
    # Korthikanti et al. 2022, sec. 4.1, in values of bv bytes (16-bit: bv = 2):
    #   attention: LN output, Q, K, V, the projection's input: 5 sbh; softmax and its dropout: 2 a s^2 b
    #   MLP: input sbh, GeLU input 4 sbh, GeLU output 4 sbh: 9 sbh;  two LayerNorm inputs: 2 sbh
    values = 16 * s * b * h + (2 * a * s**2 * b if scores == "stored" else 0)
    # dropout masks, one byte each (half a 16-bit value): after attention, after the MLP, on the scores
    masks = 2 * s * b * h + (a * s**2 * b if scores == "stored" else 0)
    layer = bv * (values + (masks / 2 if dropout == "on" else 0))
    stream = s * b * h * bv                                   # one residual stream, a layer's input
    kept = {"stored": L * layer,                              # every layer's activations (02:12:05)
            "checkpointed": L * stream + layer,               # layer inputs; one layer rebuilt at a time
            "reversible": 2 * stream + layer}[activations]    # x and y at the top; one layer rebuilt
    fwd, bwd = training.FORWARD_FLOPS_PER_PARAM, training.BACKWARD_FLOPS_PER_PARAM  # 2 and 4 (chapter 5)
    again = 0 if activations == "stored" else fwd             # the forward runs again in the backward
    per_token = (fwd + bwd + again) * N_active
    saved = L * layer - (2 * stream + layer)                  # what reversibility saves over storing
    extra = fwd * N_active * s * b                            # one more forward pass of the micro-batch
    # time of the extra forward over the time to write the saved bytes and read them back
    act_ratio = sp.Piecewise((sp.oo, saved <= 0), ((extra / flops) / (2 * saved / mem_bw), True))
    kv_ratio = sp.Piecewise((sp.oo, sp.Eq(kv_bytes, 0)), ((fwd * N_active / flops) / (kv_bytes / mem_bw), True))
    return {
        "layer_activation_bytes": Spec(
            layer, "byte", "Activations one transformer layer saves for its backward pass: s b h (34 + 5 a s/h) "
            "at 16-bit values (Korthikanti et al. 2022).", _B, zero="0 for an empty sequence"),
        "training_activation_bytes": Spec(
            kept, "byte", "Activations a training step holds at its peak for one micro-batch: L layers stored, "
            "or layer inputs plus one layer (checkpointed), or two streams plus one layer (reversible) "
            "(02:12:05-02:13:08).", _B, zero="0 for an empty sequence"),
        "train_flops_per_token": Spec(
            per_token, "FLOP/token", "Training FLOPs per token: 6 N (forward 2 N, backward 4 N), 8 N when "
            "every layer's forward runs again in the backward pass.", 1),
        "act_recompute_over_traffic": Spec(
            act_ratio, "1", "Time to run the extra forward pass over time to write and read back the "
            "activations that reversibility saves (above 1: recomputing costs more than the traffic). A "
            "bound for the sake of argument: a layer's activations exceed on-chip memory, so recomputing "
            "still moves them through HBM, and the saving is capacity, not traffic.", 1,
            infinite="inf for one layer or less, where reversibility saves no memory"),
        "kv_recompute_over_read": Spec(
            kv_ratio, "1", "Time to recompute a context token's keys and values (one forward pass, 2 N "
            "FLOPs) over time to read its cached bytes, per decode step.", 1,
            infinite="inf for a model with no KV cache (kv_bytes = 0)"),
    }


EQUATIONS = equations.family(__name__, build, scores=("stored", "flash"), dropout=("on", "off"),
                             activations=("stored", "checkpointed", "reversible"))

layer_activation_bytes = EQUATIONS["layer_activation_bytes"]
training_activation_bytes = EQUATIONS["training_activation_bytes"]
train_flops_per_token = EQUATIONS["train_flops_per_token"]
act_recompute_over_traffic = EQUATIONS["act_recompute_over_traffic"]
kv_recompute_over_read = EQUATIONS["kv_recompute_over_read"]


# -- Feistel rounds and RevNet blocks -----------------------------------------------------------
def _callable(f, name="f"):
    if not callable(f):
        raise ValueError(f"{name} must be a callable (the round function); got {short(f)}")
    return f


def _pair(x, y, xor, names=("x", "y")):
    """x and y as arrays of one shape; integer arrays when xor is set."""
    if not isinstance(xor, (bool, np.bool_)):
        raise ValueError(f"xor must be True or False; got {short(xor)}")
    out = []
    for name, v in zip(names, (x, y)):
        if isinstance(v, (str, bytes, bool)) or v is None:
            raise ValueError(f"{name} must be a number or an array of numbers; got {short(v)}")
        try:
            arr = np.asarray(v)
        except (TypeError, ValueError):  # ragged lists
            raise ValueError(f"{name} must be a number or an array of numbers; got {short(v)}") from None
        if xor and arr.dtype.kind not in "iu":
            raise ValueError(f"{name} must be an integer array for xor=True (XOR is exact on integers); "
                             f"got dtype {arr.dtype}")
        if not xor and arr.dtype.kind not in "iuf":
            raise ValueError(f"{name} must be a real number or array of them; got dtype {arr.dtype}")
        out.append(arr)
    if out[0].shape != out[1].shape:
        raise ValueError(f"{names[0]} and {names[1]} must have one shape; got {out[0].shape} and {out[1].shape}")
    return out


def _mix(y, fx, xor, sign=1):
    fx = np.asarray(fx)
    if fx.shape != y.shape:
        raise ValueError(f"f(x) must have the shape of y, {y.shape}; got {fx.shape}")
    if xor:
        if fx.dtype.kind not in "iu":
            raise ValueError(f"f must return integers for xor=True; got dtype {fx.dtype}")
        return y ^ fx.astype(y.dtype)
    return y + sign * fx


def feistel_round(x, y, f, xor=False):
    """One Feistel round, ``(x, y) -> (x, y + f(x))`` (XOR for ``+`` when ``xor``) (02:08:41).

    ``f`` need not be invertible; the round is, by :func:`feistel_inverse`.

    >>> feistel_round(np.array([5]), np.array([9]), lambda v: v * v, xor=True)
    (array([5]), array([16]))
    """
    x, y = _pair(x, y, xor)
    return x, _mix(y, _callable(f)(x), xor)


def feistel_inverse(x, z, f, xor=False):
    """Undo :func:`feistel_round`: ``x`` is read off, ``y = z - f(x)`` (XOR again when ``xor``) (02:09:50)."""
    x, z = _pair(x, z, xor, ("x", "z"))
    return x, _mix(z, _callable(f)(x), xor, sign=-1)


def revnet_block(x, y, f, xor=False):
    """A RevNet block, ``x' = y + f(x)``, ``y' = x`` (02:10:48): a Feistel round and a swap."""
    x, z = feistel_round(x, y, f, xor)
    return z, x


def revnet_block_inverse(x_out, y_out, f, xor=False):
    """Undo :func:`revnet_block`: ``x = y'``, ``y = x' - f(y')``."""
    _pair(x_out, y_out, xor, ("x_out", "y_out"))
    x, y = feistel_inverse(y_out, x_out, f, xor)
    return x, y


def gomez_block(x1, x2, F, G):
    """Gomez et al.'s reversible block with two functions: ``y1 = x1 + F(x2)``, ``y2 = x2 + G(y1)``.

    It is two of the lecture's blocks (:func:`revnet_block`), first with ``F`` and then with ``G``,
    started from the streams ``(x2, x1)``: each half is one additive coupling of NICE (Dinh et al.
    2014), that is one Feistel round. Returns ``(y1, y2)``.

    >>> gomez_block(np.array([1.0]), np.array([2.0]), lambda v: 10 * v, lambda v: v * v)
    (array([21.]), array([443.]))
    """
    _pair(x1, x2, False, ("x1", "x2"))
    y2, y1 = revnet_stack(x2, x1, [_callable(F, "F"), _callable(G, "G")])
    return y1, y2


def gomez_block_inverse(y1, y2, F, G):
    """Undo :func:`gomez_block`: ``x2 = y2 - G(y1)``, then ``x1 = y1 - F(x2)``. Returns ``(x1, x2)``."""
    _pair(y1, y2, False, ("y1", "y2"))
    x2, x1 = revnet_stack_inverse(y2, y1, [_callable(F, "F"), _callable(G, "G")])
    return x1, x2


def _functions(fs):
    fs = list(fs) if not callable(fs) and isinstance(fs, (list, tuple)) else None
    if not fs or not all(callable(f) for f in fs):
        raise ValueError(f"fs must be a non-empty sequence of callables (one per block); got {short(fs)}")
    return fs


def revnet_stack(x, y, fs, xor=False):
    """Run blocks ``fs[0], fs[1], ...`` forwards; returns the two streams at the top."""
    for f in _functions(fs):
        x, y = revnet_block(x, y, f, xor)
    return x, y


def revnet_stack_inverse(x, y, fs, xor=False):
    """Run the blocks of :func:`revnet_stack` backwards, layer by layer, from the top streams to the input."""
    for f in reversed(_functions(fs)):
        x, y = revnet_block_inverse(x, y, f, xor)
    return x, y


def tanh_block(weights, dtype=np.float64):
    """The block function ``v -> tanh(v @ weights)``, rounded to ``dtype`` (float64 or float32).

    The product and the tanh are computed in extended precision (``np.longdouble``, numpy's own loops, no
    BLAS) and only the result is rounded to ``dtype``: a round trip through :func:`revnet_stack` and
    :func:`revnet_stack_inverse` then shows the error of storing the streams in ``dtype``, and the same error
    on every machine (a BLAS kernel's summation order, which differs between processors, does not enter).

    >>> f = tanh_block(np.eye(2), np.float32)
    >>> f(np.array([[0.5, -1.0]])).dtype, float(f(np.array([[0.5, -1.0]]))[0, 0])
    (dtype('float32'), 0.46211716532707214)
    """
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        raise ValueError(f"dtype must be float64 or float32; got {short(dtype)}") from None
    if dtype not in (np.dtype(np.float64), np.dtype(np.float32)):
        raise ValueError(f"dtype must be float64 or float32; got {short(dtype)}")
    try:
        w = np.asarray(weights, dtype=np.longdouble)
    except (TypeError, ValueError):
        raise ValueError(f"weights must be a finite 2-D array; got {short(weights)}") from None
    if w.ndim != 2 or not np.all(np.isfinite(w)):
        raise ValueError(f"weights must be a finite 2-D array; got shape {np.shape(weights)}")
    return lambda v: np.tanh(np.asarray(v, dtype=np.longdouble) @ w).astype(dtype)


def round_bf16(values):
    """``values`` rounded to bfloat16's precision (8 significant bits, float32's exponent range), returned as
    float32: round to nearest, ties to even, on float32's bit pattern, as a BF16 conversion does. For emulating
    BF16 storage in numpy, which has no BF16 type.

    >>> round_bf16(np.array([1 + 2**-8, 1 + 3 * 2**-9, 1 / 3, -3.14159])).tolist()
    [1.0, 1.0078125, 0.333984375, -3.140625]
    """
    try:
        v = np.asarray(values, dtype=np.float32)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"values must be real numbers or an array of them; got {short(values)}") from None
    if not np.all(np.isfinite(v)) or (v.size and np.abs(v).max() >= 3.3e38):
        raise ValueError(f"values must be finite and below 3.3e38 in size; got {short(values)}")
    bits = v.view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000  # round half to even on the 16 bits dropped
    return bits.astype(np.uint32).view(np.float32)


# -- a toy Feistel cipher on 32-bit blocks --------------------------------------------------------
SBOX = np.array([0xC, 5, 6, 0xB, 9, 0, 0xA, 0xD, 3, 0xE, 0xF, 8, 4, 7, 1, 2], dtype=np.uint32)
"""The 4-bit S-box of the PRESENT cipher (Bogdanov et al. 2007), the toy round function's non-linearity."""


def _rotl16(v, r):
    return ((v << r) | (v >> (16 - r))) & 0xFFFF


def toy_round_function(r, k):
    """The toy cipher's round function on 16-bit halves: key XOR, four S-boxes, then ``v + rotl(v, 5)``
    (mod 2^16) XOR ``rotl(v, 11)``.

    Not invertible (several inputs share an output), nor meant to be: the Feistel structure makes the
    cipher invertible.
    """
    v = (_halves(r, "r") ^ np.uint32(_key(k))) & 0xFFFF
    v = SBOX[v & 0xF] | SBOX[(v >> 4) & 0xF] << 4 | SBOX[(v >> 8) & 0xF] << 8 | SBOX[v >> 12] << 12
    return ((v + _rotl16(v, 5)) & 0xFFFF) ^ _rotl16(v, 11)  # a modular add: mixes, and loses information


def _halves(values, name):
    """``values`` as a uint32 array after checking they are 16-bit halves, integers in [0, 2**16)."""
    arr = np.asarray(values) if not isinstance(values, (str, bytes)) else np.asarray(None)
    if arr.dtype.kind not in "iu" or (arr.size and (arr.min() < 0 or arr.max() >= 1 << 16)):
        raise ValueError(f"{name} must be integers in [0, 2**16) (16-bit halves); got {short(values)}")
    return arr.astype(np.uint32)


def _key(k, name="k"):
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral) or not 0 <= k < 1 << 16:
        raise ValueError(f"{name} must be an integer in [0, 2**16) (a 16-bit round key); got {short(k)}")
    return int(k)


def _keys(keys):
    """Round keys as a uint32 array: one or more 16-bit integers."""
    arr = np.atleast_1d(np.asarray(keys) if not isinstance(keys, (str, bytes)) else np.asarray(None))
    if arr.ndim != 1 or arr.size == 0 or arr.dtype.kind not in "iu" or arr.min() < 0 or arr.max() >= 1 << 16 \
            or arr.size > 64:
        raise ValueError(f"keys must be 1 to 64 integers in [0, 2**16) (16-bit round keys, see toy_keys); "
                         f"got {short(keys)}")
    return arr.astype(np.uint32)


def _seed(seed):
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral) or not 0 <= seed < 1 << 62:
        raise ValueError(f"seed must be an integer in [0, 2**62); got {short(seed)}")
    return int(seed)


def _rounds(rounds):
    if isinstance(rounds, bool) or not isinstance(rounds, numbers.Integral) or not 1 <= rounds <= 64:
        raise ValueError(f"rounds must be an integer in [1, 64]; got {short(rounds)}")
    return int(rounds)


def toy_keys(rounds, seed=0):
    """``rounds`` 16-bit round keys drawn from a seeded generator."""
    return np.random.default_rng(_seed(seed)).integers(0, 1 << 16, _rounds(rounds)).astype(np.uint32)


def ideal_round_tables(rounds, seed=0):
    """``rounds`` independent uniformly random functions on 16-bit halves, each as a table of 2^16 values
    (seeded): the round functions of Luby and Rackoff's theorem (1988), in place of the toy's key-XOR-S-box
    round function."""
    rng = np.random.default_rng(_seed(seed) + 3)
    return [rng.integers(0, 1 << 16, 1 << 16).astype(np.uint16) for _ in range(_rounds(rounds))]


def _round_functions(rounds, seed, ideal, dtype=np.uint32):
    """The toy cipher's round functions as table lookups: keyed (:func:`toy_round_function`) or ideal."""
    if not isinstance(ideal, (bool, np.bool_)):
        raise ValueError(f"ideal must be True or False; got {short(ideal)}")
    if ideal:
        return [lambda v, t=t.astype(dtype): t[v] for t in ideal_round_tables(rounds, seed)]
    return _round_tables(toy_keys(rounds, seed), dtype)


def _blocks(blocks, name="blocks"):
    try:
        arr = np.asarray(blocks) if not isinstance(blocks, (str, bytes)) else np.asarray(None)
    except (TypeError, ValueError):
        arr = np.asarray(None)
    if arr.dtype.kind not in "iu" or (arr.size and (arr.min() < 0 or arr.max() >= 1 << 32)):
        raise ValueError(f"{name} must be integers in [0, 2**32); got {short(blocks)}")
    if arr.size > 1 << 24:
        raise ValueError(f"{name} must hold at most 2**24 blocks; got {arr.size:,}")
    return arr.astype(np.uint32)


_HALVES = np.arange(1 << 16, dtype=np.uint32)


def _round_tables(keys, dtype=np.uint32):
    """Each round function as a table over all 2^16 half-blocks: one lookup per block instead of the S-box
    arithmetic (the same values; large samples run several times faster). ``dtype`` np.uint16 halves the
    memory traffic where the halves are 16-bit arrays too."""
    return [lambda v, t=toy_round_function(_HALVES, k).astype(dtype): t[v]
            for k in np.asarray(keys, dtype=np.uint32)]


def toy_encrypt(blocks, keys):
    """Encrypt 32-bit ``blocks`` with one RevNet block over GF(2) per round key: (x, y) -> (y ^ F(x, k), x)."""
    b, keys = _blocks(blocks), _keys(keys)
    # a table costs 2^16 evaluations of F, so it pays only for more blocks than that
    fs = _round_tables(keys) if np.size(b) > 1 << 16 else [lambda v, k=k: toy_round_function(v, k)
                                                            for k in keys.tolist()]
    x, y = revnet_stack(b >> 16, b & 0xFFFF, fs, xor=True)
    return (x << 16) | y


def toy_decrypt(blocks, keys):
    """Invert :func:`toy_encrypt` exactly, the round keys in reverse."""
    b = _blocks(blocks)
    fs = [lambda v, k=k: toy_round_function(v, k) for k in _keys(keys).tolist()]
    x, y = revnet_stack_inverse(b >> 16, b & 0xFFFF, fs, xor=True)
    return (x << 16) | y


def _sequence(values, name):
    """``values`` as a list (one number counts as one), 1 to 64 of them."""
    if isinstance(values, (numbers.Number, np.number)):
        values = [values]
    out = _check.items(name, values, 64, "numbers")
    if not out:
        raise ValueError(f"{name} must be 1 to 64 numbers; got {short(values)}")
    return out


TOY_WORK = 1 << 27
"""The most block-rounds one toy-cipher call may encrypt (rounds x blocks x the encryptions a block takes):
about a second; the stored 6-round run over 2^22 blocks is 2^24.6."""


def _count(n, name, low=1, high=1 << 20):
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or not low <= n <= high:
        raise ValueError(f"{name} must be an integer in [{low}, {high}]; got {short(n)}")
    return int(n)


def toy_avalanche(rounds, n_blocks=256, seed=0):
    """Mean fraction of the 32 output bits that change when one input bit flips, over every input bit and
    ``n_blocks`` random blocks. A good cipher reaches 1/2."""
    keys = toy_keys(rounds, seed)
    rng = np.random.default_rng(seed + 1)
    n_blocks = _count(n_blocks, "n_blocks")
    _check.work("toy_avalanche", TOY_WORK, {"rounds": len(keys), "n_blocks": n_blocks}, 33, "block-rounds")
    blocks = rng.integers(0, 1 << 32, n_blocks, dtype=np.uint64).astype(np.uint32)
    flips = np.uint32(1) << np.arange(32, dtype=np.uint32)
    base = toy_encrypt(blocks, keys)[:, None]
    changed = toy_encrypt(blocks[:, None] ^ flips[None, :], keys) ^ base
    return float(np.bitwise_count(changed).mean() / 32)


def toy_sac(rounds, n_blocks=4096, seed=0, ideal=False):
    """The strict avalanche criterion (Webster and Tavares 1985) bit by bit: a 32 x 32 array whose entry
    ``[i, j]`` is the share of ``n_blocks`` random blocks for which flipping input bit ``i`` flips output bit
    ``j`` (bit 0 the lowest; bits 0-15 the ``y`` half, 16-31 the ``x`` half). A cipher meets the criterion
    when every entry is 1/2, within the sample's noise, ``0.5 / sqrt(n_blocks)``; its mean is
    :func:`toy_avalanche`'s measure. ``ideal`` replaces the round function by independent random
    functions (:func:`ideal_round_tables`).

    >>> m = toy_sac(1, n_blocks=64)
    >>> float(m[0, 16]), float(m[0, 0])   # one round moves y's bit 0 to x's bit 0, and only there
    (1.0, 0.0)
    """
    fs = _round_functions(rounds, seed, ideal)
    rng = np.random.default_rng(seed + 1)
    n_blocks = _count(n_blocks, "n_blocks", 1, 1 << 16)
    _check.work("toy_sac", TOY_WORK, {"rounds + 32 bits": len(fs) + 32, "n_blocks": n_blocks}, 33, "block-steps")
    blocks = rng.integers(0, 1 << 32, n_blocks, dtype=np.uint64).astype(np.uint32)
    flips = np.uint32(1) << np.arange(32, dtype=np.uint32)

    def enc(b):
        x, y = revnet_stack(b >> 16, b & 0xFFFF, fs, xor=True)
        return (x << 16) | y

    changed = enc(blocks[:, None] ^ flips[None, :]) ^ enc(blocks)[:, None]    # n x 32 input flips
    # each output bit, lowest first, unpacked from the words' bytes (little-endian) and counted: the same shares as
    # shifting out 32 x 32 bits a block and averaging them, in a third of the time
    bits = np.unpackbits(changed.astype("<u4").view(np.uint8).reshape(n_blocks, 32, 4), axis=-1, bitorder="little")
    return bits.sum(axis=0) / n_blocks


def most_common(values):
    """The most common value of ``values`` and how often it occurs, as ``(count, value)``; of equally common
    values, the smallest. One sort (``np.unique`` with counts takes ten times as long on millions), of a copy in
    32 bits where the values fit (the blocks of 32-bit ciphers, often held as 64-bit integers): on 2^22 values
    14 ms against 24 ms.

    >>> most_common(np.array([7, 3, 7, 3, 9]))
    (2, 3)
    """
    v = np.asarray(values) if not isinstance(values, (str, bytes)) else np.asarray(None)
    if v.size == 0:
        raise ValueError("values must not be empty")
    if v.dtype.kind not in "iu":
        raise ValueError(f"values must be an array of integers; got {short(values)}")
    v = np.ravel(v)
    if v.dtype.itemsize > 4 and v.min() >= 0 and v.max() < 1 << 32:
        v = v.astype(np.uint32)
    else:
        v = v.copy()
    v.sort()
    same = np.flatnonzero(v[1:] == v[:-1])  # v[i + 1] repeats v[i]; few, where values are spread out
    if same.size == 0:
        return 1, int(v[0])
    breaks = np.flatnonzero(np.diff(same) != 1)  # a run of equal values ends at each break
    starts = np.concatenate(([0], breaks + 1))
    lengths = np.concatenate((breaks, [same.size - 1])) - starts + 1
    i = int(np.argmax(lengths))
    return int(lengths[i]) + 1, int(v[same[starts[i]]])


def toy_differentials(rounds, delta, n_blocks=4096, seed=0, ideal=False):
    """:func:`toy_differential` after each of 1, 2, ..., ``rounds`` rounds, as a list of ``(share, difference)``.

    The round keys of a shorter cipher are the first ones of a longer one (:func:`toy_keys`) and the sample
    is the same, so the blocks are encrypted once, round by round, and measured after every round.
    ``ideal`` replaces the round function by independent random functions (:func:`ideal_round_tables`).
    """
    delta = _blocks(delta, "delta")
    if delta.ndim or int(delta) == 0:
        raise ValueError(f"delta must be one non-zero 32-bit integer; got {short(delta)}")
    fs = _round_functions(rounds, seed, ideal, np.uint16)  # 16-bit halves: half the memory traffic
    n_blocks = _count(n_blocks, "n_blocks", 1, 1 << 24)
    _check.work("toy_differentials", TOY_WORK, {"rounds": len(fs), "n_blocks": n_blocks}, 1, "block-rounds")
    rng = np.random.default_rng(seed + 2)
    x = rng.integers(0, 1 << 32, n_blocks, dtype=np.uint64).astype(np.uint32)
    halves = lambda v: ((v >> 16).astype(np.uint16), (v & 0xFFFF).astype(np.uint16))  # noqa: E731
    a, b = halves(x), halves(x ^ delta)
    out = []
    for f in fs:
        a, b = revnet_block(*a, f, xor=True), revnet_block(*b, f, xor=True)
        count, value = most_common((a[0] ^ b[0]).astype(np.uint32) << 16 | (a[1] ^ b[1]))
        out.append((count / x.size, value))
    return out


def _exact_tables(delta, top, seed, ideal):
    """The exact differentials' checked arguments and rounds 2 and 3's functions as tables over 2^16 halves."""
    if isinstance(delta, bool) or not isinstance(delta, numbers.Integral) or not 1 <= delta < 1 << 16:
        raise ValueError(f"delta must be an integer in [1, 2**16) (a difference in the y half); got {short(delta)}")
    top = _count(top, "top", 1, 1 << 16)
    seed = _seed(seed)
    if not isinstance(ideal, (bool, np.bool_)):
        raise ValueError(f"ideal must be True or False; got {short(ideal)}")
    if ideal:
        t2, t3 = (t.astype(np.uint32) for t in ideal_round_tables(3, seed)[1:])
    else:
        t2, t3 = (toy_round_function(_HALVES, k) for k in toy_keys(3, seed)[1:])
    return top, t2, t3


def toy_differentials3_exact(delta=1, top=16, seed=0, ideal=False):
    """The ``top`` most likely three-round output differences for an input difference ``delta`` in the
    ``y`` half (1 to 2^16 - 1), computed exactly rather than sampled, as ``(probabilities, differences)``,
    most likely first (ties: the smaller difference first); the keys (or ``ideal`` tables) are those of
    :func:`toy_differentials` with the same ``seed``.

    With no difference in ``x``, round 1 moves ``delta`` into ``x``; round 2 turns it into
    ``v = F2(u) ^ F2(u ^ delta)`` with ``u`` uniform; round 3 gives ``(delta ^ F3(s) ^ F3(s ^ v), v)`` with
    ``s`` uniform and independent of ``u`` (``s`` is the input's ``x`` XOR ``F2(u)``). So the right half of
    the output difference fixes ``v`` and P(w) = P2(v) P3(v -> left half): a table over the 2^16 values of
    ``s`` for each of round 2's possible ``v``.

    The work is round 2's possible ``v`` times 2^16; a ``delta`` (or ``ideal`` tables) that spreads round 2 over
    more than 2,048 of them (ideal: some 25,000) is refused: sample it with :func:`toy_differentials`.

    >>> p, d = toy_differentials3_exact(top=2)
    >>> [hex(v) for v in d], [float(x * 2**32) for x in p]   # 1024 x 52 and 2048 x 24 of 2^32
    (['0x94501861', '0x12821821'], [53248.0, 49152.0])
    """
    top, t2, t3 = _exact_tables(delta, top, seed, ideal)
    c2 = np.bincount(t2 ^ t2[_HALVES ^ np.uint32(delta)], minlength=1 << 16)   # round 2: counts of v
    vs = np.flatnonzero(c2)
    _check.work("toy_differentials3_exact", 1 << 27, {"round 2's possible v": vs.size, "inputs s": 1 << 16}, 1,
                "pairs", "this delta (or ideal) spreads round 2 too widely to enumerate; sample it with "
                "toy_differentials(3, delta) instead")
    vs = vs[np.argsort(-c2[vs], kind="stable")].astype(np.uint32)   # likeliest v first: a high bar early
    counts, diffs, bar = np.zeros(0, np.int64), np.zeros(0, np.uint64), 1
    for i in range(0, vs.size, 64):   # 64 values of v at a time: 4M pairs (s, v)
        vb = vs[i:i + 64]
        h = t3[None, :] ^ t3[_HALVES[None, :] ^ vb[:, None]]                   # round 3's F difference
        c3 = np.bincount((np.arange(vb.size)[:, None] << 16 | h).ravel(), minlength=vb.size << 16)
        c = c3.reshape(vb.size, 1 << 16) * c2[vb][:, None]                     # P in units of 2^-32
        row, col = np.nonzero(c >= bar)
        counts = np.concatenate((counts, c[row, col]))
        diffs = np.concatenate((diffs, ((col.astype(np.uint64) ^ delta) << 16) | vb[row]))
        if counts.size >= top:
            bar = np.partition(counts, counts.size - top)[counts.size - top]   # the top-th largest so far
            keep = counts >= bar
            counts, diffs = counts[keep], diffs[keep]
    order = np.lexsort((diffs, -counts))[:top]
    return counts[order] / 2.0**32, diffs[order].astype(np.uint32)


def _pair_counts(t, delta):
    """For a round function given as a table ``t`` over all n half-blocks (n a power of 2), the number of
    inputs ``s`` with ``t[s] ^ t[s ^ v] == delta``, for every ``v``, as an array of n counts.

    No loop over the n^2 pairs (s, v): an ``s`` pairs only with the ``s'`` whose value is ``t[s] ^ delta``,
    so the inputs are grouped by value (one sort) and each ``s`` meets its group, ``v = s ^ s'``.
    """
    h = np.arange(t.size, dtype=np.uint32)
    order = np.argsort(t, kind="stable").astype(np.uint32)      # inputs grouped by their value
    size = np.bincount(t, minlength=t.size)
    first = np.cumsum(size) - size                               # where each value's group starts
    want = t ^ np.uint32(delta)                                  # the value s's partners must have
    m = size[want]
    s = np.repeat(h, m)
    within = np.arange(s.size) - np.repeat(np.cumsum(m) - m, m)  # 0, 1, ... inside each group
    return np.bincount(s ^ order[np.repeat(first[want], m) + within], minlength=t.size)


def _differential4_counts(t2, t3, delta):
    """Rounds 2 and 3's share of :func:`toy_differentials4_exact`: for every ``v``, the number of the n^2
    inputs whose four-round output difference is ``(v, 0)``, P2(delta -> v) P3(v -> delta) n^2."""
    c2 = np.bincount(t2 ^ t2[np.arange(t2.size, dtype=np.uint32) ^ np.uint32(delta)], minlength=t2.size)
    return c2.astype(np.int64) * _pair_counts(t3, delta)


def toy_differentials4_exact(delta=1, top=16, seed=0, ideal=False):
    """The ``top`` most likely four-round output differences of the form ``(v, 0)`` (``v`` in the ``x``
    half, none in ``y``) for an input difference ``delta`` in the ``y`` half (1 to 2^16 - 1), computed
    exactly, as ``(probabilities, differences)``, most likely first (ties: the smaller difference first);
    the keys (or ``ideal`` tables) are those of :func:`toy_differentials` with the same ``seed``.

    The rounds carry the difference (0, delta) -> (delta, 0) -> (v, delta) -> (delta ^ w, v)
    -> (v ^ F4's difference, delta ^ w). The output's ``y`` half is 0 only if round 3's F difference is
    ``w = delta``; round 4's F then sees no difference, and the output is ``(v, 0)``: one path, so
    P(v, 0) = P2(delta -> v) P3(v -> delta), round 3's input independent of round 2's
    (:func:`toy_differentials3_exact`). Round 4's key plays no part. P3(v -> delta) comes for all 2^16
    ``v`` at once by pairing inputs whose F values differ by ``delta`` (no 2^32 loop): about 10 ms.

    The first probability is a lower bound on that of the best four-round difference of any form. For
    the toy's F(u, k) = G(u ^ k), F's difference table does not depend on the key, so neither do these
    probabilities.

    >>> p, d = toy_differentials4_exact(top=2)
    >>> [hex(v) for v in d], [float(x * 2**32) for x in p]   # 32 x 132 and 32 x 128 of 2^32
    (['0x6f6f0000', '0x68ff0000'], [4224.0, 4096.0])
    """
    top, t2, t3 = _exact_tables(delta, top, seed, ideal)
    c = _differential4_counts(t2, t3, delta)
    order = np.lexsort((_HALVES, -c))[:top]
    return c[order] / 2.0**32, _HALVES[order] << 16


def toy_differential(rounds, delta, n_blocks=4096, seed=0, ideal=False):
    """The GF(2) derivative of the toy cipher in direction ``delta``: ``E(x) ^ E(x ^ delta)`` over random x.

    Returns the share of blocks that give the most common output difference (1: the derivative is a
    constant, as for a linear map; a few times 1/n_blocks: it looks random at this sample size), and that
    difference. A sample estimate: it cannot see probabilities much below 1/n_blocks, nor tell a random
    permutation's 2^-32 from anything else that small (``n_blocks`` up to 2^24).
    """
    return toy_differentials(rounds, delta, n_blocks, seed, ideal)[-1]


# -- SHA-256 ----------------------------------------------------------------------------------------
def sha256_avalanche(n_messages=8, n_bytes=64, seed=0):
    """Fractions of SHA-256's 256 output bits that change when one message bit flips, for every bit of
    ``n_messages`` random messages of ``n_bytes`` bytes (an array of n_messages x 8 n_bytes fractions)."""
    rng = np.random.default_rng(_seed(seed))
    n_bytes = _count(n_bytes, "n_bytes", 1, 4096)
    n_messages = _count(n_messages, "n_messages", 1, 4096)
    # one hash per message bit, each over n_bytes bytes: 2^20 bytes hashed take about a tenth of a second
    _check.work("sha256_avalanche", 1 << 23, {"n_messages": n_messages, "8 n_bytes": 8 * n_bytes, "n_bytes": n_bytes},
                1, "bytes hashed")
    out = []
    for _ in range(n_messages):
        msg = bytearray(rng.integers(0, 256, n_bytes, dtype=np.uint8).tobytes())
        base = np.frombuffer(hashlib.sha256(msg).digest(), dtype=np.uint8)
        for bit in range(8 * n_bytes):
            msg[bit // 8] ^= 1 << (bit % 8)
            h = np.frombuffer(hashlib.sha256(msg).digest(), dtype=np.uint8)
            msg[bit // 8] ^= 1 << (bit % 8)
            out.append(np.bitwise_count(h ^ base).sum() / 256)
    return np.array(out)


# -- a small random MLP, with and without residual connections and LayerNorm ----------------------
def _layernorm(v):
    mu = v.mean(axis=-1, keepdims=True)
    return (v - mu) / np.sqrt(v.var(axis=-1, keepdims=True) + 1e-5)


def tanh_mean_field(weight_scale, bias_scale=0.0):
    """The mean-field theory of a wide random tanh net (Poole et al. 2016, Schoenholz et al. 2017):
    returns ``(q_star, chi_1)``.

    Weights have standard deviation ``weight_scale / sqrt(width)``, biases ``bias_scale``. ``q_star`` is
    the fixed point of the pre-activations' variance, ``q = sigma_w^2 E[tanh(sqrt(q) z)^2] + sigma_b^2``;
    ``chi_1 = sigma_w^2 E[tanh'(sqrt(q*) z)^2]`` (z standard normal) is the factor by which each layer
    multiplies the squared length of a small change of its input. Above 1 the net is chaotic (nearby
    inputs drift apart, by ``sqrt(chi_1)`` per layer), below 1 ordered; 1 is the edge of chaos. Without
    biases the transition is at ``weight_scale`` 1 exactly, where ``q* = 0`` and ``chi_1 = sigma_w^2``.
    Expectations by the trapezoidal rule on a grid of step 1e-3 over [-12, 12] standard deviations (for a
    smooth integrand that decays this fast the rule converges faster than any power of the step; a
    101-point Gauss-Hermite rule is off in the third digit at ``weight_scale`` 3, where ``1/cosh^4`` is
    sharply peaked), the fixed point by iteration.

    >>> tanh_mean_field(0.8)
    (0.0, 0.64)
    >>> round(tanh_mean_field(3.0)[1], 4)
    1.8599
    """
    sw = _check.scalar("weight_scale", weight_scale)
    sb = _check.scalar("bias_scale", bias_scale, "nonnegative")
    if sw > 100 or sb > 100:
        raise ValueError(f"weight_scale and bias_scale must be at most 100; got {sw:g} and {sb:g}")
    z = np.linspace(-12.0, 12.0, 24_001)  # step 1e-3
    w = np.exp(-z * z / 2)
    w = w / w.sum()
    q = 0.0  # no bias and sigma_w <= 1: tanh(u)^2 < u^2 pulls every q > 0 down to 0
    if sb > 0 or sw > 1:
        q = 1.0 + sb**2
        for _ in range(2_000):
            q_new = sw**2 * float(np.sum(w * np.tanh(np.sqrt(q) * z) ** 2)) + sb**2
            done = abs(q_new - q) <= 1e-14 * q_new
            q = q_new
            if done:
                break
        else:  # near the edge of chaos the iteration crawls: bisect instead (the excess is < 0 above q*, > 0 below)
            q = _bisect_fixed_point(lambda v: sw**2 * float(np.sum(w * np.tanh(np.sqrt(v) * z) ** 2)) + sb**2 - v,
                                    q, sb > 0)
    a = np.exp(-2 * np.sqrt(q) * np.abs(z))  # 1/cosh(u) = 2 e^-|u| / (1 + e^-2|u|), without overflow
    chi = sw**2 * float(np.sum(w * (4 * a / (1 + a) ** 2) ** 2))
    return round(q, 12), round(chi, 12)


def _bisect_fixed_point(excess, hi, zero_is_below):
    """The q in (0, hi] where ``excess(q)`` changes sign from + to -, to 1e-14 relative; ``excess(hi)`` <= 0.

    Without biases q = 0 is a fixed point too, so the bracket's low end is found by halving ``hi`` until the
    excess turns positive; with biases the excess at 0 is sigma_b^2 > 0.
    """
    lo = 0.0
    if not zero_is_below:
        lo = hi
        for _ in range(2_000):
            lo /= 2
            if excess(lo) > 0:
                break
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if excess(mid) > 0 else (lo, mid)
        if hi - lo <= 1e-14 * hi:
            break
    return 0.5 * (lo + hi)


def mlp_avalanche(depth, width=64, residual=False, weight_scale=3.0, nudge=1e-2, n_inputs=64, seed=0,
                  layernorm=True):
    """How a random tanh MLP spreads a small change of one input, layer by layer.

    Each layer is ``v -> tanh(W v)`` plain, or
    ``v -> v + W2 tanh(W1 LayerNorm(v))`` with ``residual=True`` (pre-norm, as in a transformer;
    ``layernorm=False`` drops the LayerNorm, ``v -> v + W2 tanh(W1 v)``);
    weights are Gaussian with standard deviation ``weight_scale / sqrt(width)``, seeded.
    One coordinate of ``n_inputs`` standard-normal inputs moves by ``nudge``.

    Returns ``(flipped, gain)``, arrays of length ``depth``: after each layer, the mean fraction of
    output signs that flip (a cipher's avalanche reaches 1/2) and the mean sensitivity, the output's
    relative change over the input's (a finite-difference derivative along the nudged coordinate, scaled by the norms of
    output and input so that the residual stream's growth divides out).

    ``weight_scale`` 3 puts the plain tanh net in its chaotic phase (above 1, Poole et al. 2016),
    where nearby inputs drift apart layer by layer; below 1 (no biases) the signal and its changes shrink alike
    towards a linear map, and 1 is the edge of chaos (for tanh; ReLU's is at 2**0.5).

    The gain of a finite ``nudge`` saturates once the two outputs are unrelated (their distance stops
    growing, at about sqrt(2) times the output's norm), near ``sqrt(2) |x| / nudge``; take a small
    ``nudge`` (1e-8, say) for the relative gain of an infinitesimal change, the Jacobian's scaled by the norms.
    """
    nudge, seed = _check.scalar("nudge", nudge), _count(seed, "seed", 0, 1 << 31)
    flipped, gain = mlp_avalanche_runs(depth, width, residual, weight_scale, (nudge,), n_inputs, (seed,),
                                       layernorm)
    return flipped[0, 0], gain[0, 0]


def mlp_avalanche_runs(depth, width=64, residual=False, weight_scale=3.0, nudges=(1e-2,), n_inputs=64,
                       seeds=(0,), layernorm=True):
    """:func:`mlp_avalanche` for several seeds and nudges at once, as arrays of shape
    ``(len(seeds), len(nudges), depth)``: the same numbers, one batched pass (each seed draws its inputs
    and then its layers' weights in the same order; every nudge of a seed shares its weights).

    >>> f, g = mlp_avalanche_runs(4, nudges=(1e-2, 1e-8), seeds=(0, 1))
    >>> f.shape, bool(np.allclose(g[1, 1], mlp_avalanche(4, nudge=1e-8, seed=1)[1]))
    ((2, 2, 4), True)
    """
    depth = _count(depth, "depth", 1, 1024)
    width = _count(width, "width", 2, 4096)
    weight_scale = check_value("weight_scale", weight_scale)
    nudges = np.array([_check.scalar("nudges", v) for v in _sequence(nudges, "nudges")])
    seeds = [_count(sd, "seeds", 0, 1 << 31) for sd in _sequence(seeds, "seeds")]
    n_inputs = _count(n_inputs, "n_inputs", 1, 1 << 16)
    for name, flag in (("residual", residual), ("layernorm", layernorm)):
        if not isinstance(flag, (bool, np.bool_)):
            raise ValueError(f"{name} must be True or False; got {short(flag)}")
    n_w = 2 if residual else 1
    # multiply-adds, and the values held at once: the stored 32-seed run (1.3e10, 2.4 s) is the largest admitted
    _check.work("mlp_avalanche", 1 << 34, {"depth": depth, "weight matrices": n_w, "seeds": len(seeds),
                                           "(1 + nudges)": len(nudges) + 1, "n_inputs": n_inputs, "width^2": width**2},
                1, "multiply-adds")
    _check.work("mlp_avalanche", 1 << 25, {"seeds": len(seeds), "width": width,
                                           "(1 + nudges) n_inputs + weight matrices x width":
                                           (len(nudges) + 1) * n_inputs + n_w * width}, 1, "values held")
    rngs = [np.random.default_rng(sd) for sd in seeds]
    x = np.stack([r.standard_normal((n_inputs, width)) for r in rngs])  # seeds x n x width
    # each layer's w1 (and w2), drawn in the order mlp_avalanche draws them
    scale = np.array([weight_scale, 1.0][:n_w])[:, None, None] / np.sqrt(width)
    v = np.repeat(x[:, None], len(nudges) + 1, axis=1)  # seeds x (1 + nudges) x n x width
    v[:, 1:, :, 0] += nudges[None, :, None]
    rel_in = nudges[None, :, None] / np.linalg.norm(x, axis=-1)[:, None, :]
    norm = _layernorm if layernorm else (lambda u: u)
    flipped = np.empty((len(seeds), len(nudges), depth))
    gain = np.empty_like(flipped)
    shape, flat = v.shape, (len(seeds), -1, width)  # one stacked product per seed (BLAS, no broadcast)
    for i in range(depth):
        u = v.reshape(flat)
        w = np.stack([r.standard_normal((n_w, width, width)) * scale for r in rngs])
        u = u + np.tanh(norm(u) @ w[:, 0]) @ w[:, 1] if residual else np.tanh(u @ w[:, 0])
        v = u.reshape(shape)
        flipped[:, :, i] = np.mean(np.sign(v[:, :1]) != np.sign(v[:, 1:]), axis=(2, 3))
        # relative change out over relative change in: the residual stream's growth divides out
        rel_out = np.linalg.norm(v[:, 1:] - v[:, :1], axis=-1) / np.linalg.norm(v[:, :1], axis=-1)
        gain[:, :, i] = np.mean(rel_out / rel_in, axis=-1)
    return flipped, gain


# -- stored runs --------------------------------------------------------------------------------
STORED_FILE = "revnet_runs.npz"
"""The results of :data:`STORED_CALLS`, in ``roofline/data``; :func:`write_stored` writes it."""


def _stored_calls():
    yield mlp_avalanche_runs, (384,), dict(residual=True, nudges=(1e-8,), seeds=tuple(range(32)))
    yield toy_differentials, (6, 1), dict(n_blocks=1 << 22)
    yield toy_differentials, (4, 1), dict(n_blocks=1 << 22, ideal=True)
    yield toy_differentials3_exact, (), dict(top=64)
    for sd in range(20):
        yield toy_differentials, (3, 1, 1 << 20), dict(seed=sd, ideal=True)


STORED_CALLS = tuple(_stored_calls())
"""The seeded runs chapter 7 shows that take a tenth of a second or more, as ``(function, args, kwargs)``:
the 32-seed fit of the residual net's growth with depth (2.4 s), the toy cipher's differentials by round
over 2^22 blocks, exactly for 3 rounds, and with random round functions (1.7 s together)."""


def _plain(value):
    """An argument as JSON: ranges, tuples and arrays as lists, numpy scalars as Python numbers."""
    if isinstance(value, (range, tuple, list, np.ndarray)):
        return [_plain(v) for v in (value.tolist() if isinstance(value, np.ndarray) else value)]
    return value.item() if isinstance(value, np.generic) else value


def _call_key(fn, args, kwargs):
    """One text for one call, whatever mix of positions, keywords and defaults spells it."""
    import inspect
    import json
    bound = inspect.signature(fn).bind(*args, **kwargs)
    bound.apply_defaults()
    return f"{fn.__name__}{json.dumps({k: _plain(v) for k, v in bound.arguments.items()}, sort_keys=True)}"


def _pack(value, leaves):
    """``value``'s nesting of tuples and lists as JSON-able data, its arrays and numbers put in ``leaves``."""
    if isinstance(value, (tuple, list)):
        return {"tuple" if isinstance(value, tuple) else "list": [_pack(v, leaves) for v in value]}
    leaves.append(np.asarray(value))
    return {"array" if isinstance(value, np.ndarray) else "number": len(leaves) - 1}


def _unpack(tree, leaves):
    (kind, inner), = tree.items()
    if kind in ("tuple", "list"):
        items = [_unpack(t, leaves) for t in inner]
        return tuple(items) if kind == "tuple" else items
    return leaves[inner] if kind == "array" else leaves[inner].item()


def _stored_results():
    """{call key: result} from the package's file, read once per process."""
    global _STORED
    if _STORED is None:
        import json
        from importlib import resources
        with resources.files("roofline").joinpath("data", STORED_FILE).open("rb") as f, \
                np.load(f, allow_pickle=False) as npz:
            index = json.loads(str(npz["index"]))
            leaves = [npz[f"leaf{i}"] for i in range(len(npz.files) - 1)]
            _STORED = {key: _unpack(tree, leaves) for key, tree in index.items()}
    return _STORED


_STORED = None


def stored(fn, *args, **kwargs):
    """``fn(*args, **kwargs)``, read from the results stored with the package when the call is one of
    :data:`STORED_CALLS` (however its arguments are spelt), computed otherwise.

    The stored results are these functions' own output, seeded, written by :func:`write_stored`;
    a test recomputes every one and requires the same numbers (exactly for the integer ciphers, to a
    millionth for the floating-point nets, whose last bits depend on the machine's BLAS). Call ``fn``
    directly to recompute.

    >>> p, d = stored(toy_differentials3_exact, top=64)   # read, not recomputed
    >>> hex(int(d[0])), float(p[0] * 2**32)
    ('0x94501861', 53248.0)
    """
    if not callable(fn):
        raise TypeError(f"fn must be a function of roofline.revnet; got {short(fn)}")
    key = _call_key(fn, args, kwargs)
    results = _stored_results()
    return results[key] if key in results else fn(*args, **kwargs)


def write_stored(path=None):
    """Compute every call of :data:`STORED_CALLS` and write them to ``path`` (default: the package's file)."""
    import json
    import pathlib
    path = pathlib.Path(path) if path is not None else pathlib.Path(__file__).parent / "data" / STORED_FILE
    index, leaves = {}, []
    for fn, args, kwargs in STORED_CALLS:
        index[_call_key(fn, args, kwargs)] = _pack(fn(*args, **kwargs), leaves)
    arrays = {f"leaf{i}": v for i, v in enumerate(leaves)}
    with open(path, "wb") as f:
        np.savez_compressed(f, index=np.array(json.dumps(index, sort_keys=True)), **arrays)
    return path
