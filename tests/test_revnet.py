"""Chapter 7: Feistel rounds and RevNet blocks invert; activation memory against Korthikanti et al. 2022."""

import hashlib
import math

import numpy as np
import pytest

from roofline import Deployment, hardware, models, revnet

GPT3 = dict(len_ctx=2048, micro_batch=1, d_model=12288, n_heads=96, saved_act_bytes=2)


# -- invertibility ------------------------------------------------------------------------------------
def test_float_round_trip_to_machine_precision():
    """A non-invertible f (a squashed random map) inside a Feistel round and a 48-block stack: the round
    trip returns the inputs within a few ulps of the streams' size."""
    rng = np.random.default_rng(0)
    w = rng.standard_normal((32, 32))
    f = lambda v: np.tanh(v @ w) ** 2  # noqa: E731 - many-to-one: f(v) = f(-v)
    x, y = rng.standard_normal((2, 8, 32))
    x2, y2 = revnet.feistel_inverse(*revnet.feistel_round(x, y, f), f)
    assert np.array_equal(x2, x) and np.max(np.abs(y2 - y)) <= 4 * np.finfo(float).eps * np.max(np.abs(y) + 1)
    fs = [f] * 48
    top = revnet.revnet_stack(x, y, fs)
    back = revnet.revnet_stack_inverse(*top, fs)
    scale = max(np.max(np.abs(t)) for t in top)
    assert max(np.max(np.abs(b - a)) for a, b in zip((x, y), back)) <= 1e3 * np.finfo(float).eps * scale


def test_xor_inversion_is_exact():
    """Over GF(2) the round trip is bit for bit, for any f, through any depth: XOR is its own inverse."""
    rng = np.random.default_rng(1)
    x, y = rng.integers(0, 2**31, (2, 1000))
    fs = [lambda v, k=k: (v * 2654435761 + k) % 2**31 for k in range(100)]
    back = revnet.revnet_stack_inverse(*revnet.revnet_stack(x, y, fs, xor=True), fs, xor=True)
    assert np.array_equal(back[0], x) and np.array_equal(back[1], y)
    keys = revnet.toy_keys(12, seed=3)
    blocks = np.arange(0, 2**32, 2**20, dtype=np.uint64).astype(np.uint32)
    assert np.array_equal(revnet.toy_decrypt(revnet.toy_encrypt(blocks, keys), keys), blocks)


def test_revnet_block_by_hand():
    """x' = y + f(x), y' = x (02:10:48): with f(v) = v^2, (3, 5) -> (14, 3) and back."""
    sq = lambda v: v * v  # noqa: E731
    assert revnet.revnet_block(np.array([3.0]), np.array([5.0]), sq) == (14.0, 3.0)
    assert revnet.revnet_block_inverse(np.array([14.0]), np.array([3.0]), sq) == (3.0, 5.0)


def test_toy_cipher_is_a_permutation_of_small_inputs():
    """Distinct blocks encrypt to distinct blocks (an invertible map): 65,536 inputs, 65,536 outputs."""
    out = revnet.toy_encrypt(np.arange(2**16, dtype=np.uint32), revnet.toy_keys(4))
    assert len(np.unique(out)) == 2**16


# -- mixing -----------------------------------------------------------------------------------------------
def test_sha256_avalanche_is_one_half():
    """Every flipped bit changes about half of SHA-256's 256 output bits (Webster and Tavares' criterion)."""
    a = revnet.sha256_avalanche(n_messages=2, n_bytes=16)
    assert a.shape == (256,) and abs(a.mean() - 0.5) < 0.01 and a.min() > 0.3
    # one flip by hand, through hashlib directly
    m = bytes(16)
    d = int.from_bytes(hashlib.sha256(m).digest(), "big") ^ int.from_bytes(hashlib.sha256(b"\x01" + m[1:]).digest(),
                                                                               "big")
    assert 90 < bin(d).count("1") < 166


def test_toy_cipher_avalanche_grows_with_rounds():
    """One round moves a flip into one half and the S-boxes spread it a little; by three rounds the cipher
    changes half the bits, like SHA-256, and stays there."""
    one, two, three, four = (revnet.toy_avalanche(r) for r in (1, 2, 3, 4))
    assert one < 0.25 < two < 0.45 < three and abs(three - 0.5) < 0.01 and abs(four - 0.5) < 0.01


def test_differential_of_one_round_is_constant():
    """A difference in the y half passes one round unchanged into x with probability 1 (a GF(2) derivative
    that is constant). Two rounds: exactly the share of u with F(u) ^ F(u ^ 1) at its most common value,
    2,048 of 65,536 = 1/32 for these keys. Four rounds: invisible in 4,096 samples, but 2^22 samples find
    a difference several times more often than chance gives (a sample limit, not a property of the cipher)."""
    p1, d1 = revnet.toy_differential(1, 1)
    assert p1 == 1.0 and d1 == 1 << 16
    u = np.arange(1 << 16, dtype=np.uint32)
    k2 = revnet.toy_keys(2)[1]
    d = revnet.toy_round_function(u, k2) ^ revnet.toy_round_function(u ^ 1, k2)
    exact = np.unique(d, return_counts=True)[1].max() / (1 << 16)
    assert exact == 2048 / 65536
    p2, _ = revnet.toy_differential(2, 1, n_blocks=1 << 16)
    assert p2 == pytest.approx(exact, rel=0.1)
    p4, _ = revnet.toy_differential(4, 1, n_blocks=4096)
    assert p4 <= 3 / 4096
    p4, _ = revnet.toy_differential(4, 1, n_blocks=1 << 22)
    assert p4 * (1 << 22) >= 6  # chance gives about 3 at this sample size


def test_most_common_agrees_with_numpy_unique():
    """The sort-and-run-length mode equals np.unique's counts (ties to the smallest value), on small samples
    with many repeats, with none, and all equal."""
    rng = np.random.default_rng(1)
    samples = [rng.integers(0, int(rng.integers(1, 50)), int(rng.integers(1, 300))) for _ in range(200)]
    samples += [np.arange(10), np.full(7, 5), rng.integers(0, 1 << 32, 1000, dtype=np.uint64)]
    for a in samples:
        values, counts = np.unique(a, return_counts=True)
        i = int(np.argmax(counts))
        assert revnet.most_common(a) == (int(counts[i]), int(values[i]))
    with pytest.raises(ValueError, match="values must not be empty"):
        revnet.most_common([])


def test_differentials_round_by_round_equal_separate_ciphers():
    """Encrypting once, round by round, gives what a separate cipher of each length gives (same keys, same
    sample), for both the small-sample and the table-lookup path."""
    for n in (1000, 5000):
        together = revnet.toy_differentials(5, 0x10001, n_blocks=n, seed=3)
        assert together == [revnet.toy_differential(r, 0x10001, n_blocks=n, seed=3) for r in range(1, 6)]
        keys = revnet.toy_keys(5, seed=3)  # and toy_encrypt on the same sample (drawn with seed + 2)
        x = np.random.default_rng(5).integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
        for r in range(1, 6):
            d = revnet.toy_encrypt(x, keys[:r]) ^ revnet.toy_encrypt(x ^ 0x10001, keys[:r])
            values, counts = np.unique(d, return_counts=True)
            assert together[r - 1] == (counts.max() / n, int(values[np.argmax(counts)]))


def test_residual_and_layernorm_keep_a_random_mlp_smooth():
    """At weight scale 3 a plain tanh MLP is chaotic: a 1% nudge of one input flips half the output signs
    by 48 layers; with residual connections and LayerNorm almost none flip and the sensitivity stays small."""
    plain, g_plain = revnet.mlp_avalanche(48, residual=False)
    res, g_res = revnet.mlp_avalanche(48, residual=True)
    assert plain[-1] > 0.4 and res[-1] < 0.02
    assert g_plain[-1] > 100 * g_res[-1]
    # the 1% nudge's gain saturates near sqrt(2) |x| / nudge; a tiny nudge's does not
    x = np.random.default_rng(0).standard_normal((64, 64))
    ceiling = np.mean(np.sqrt(2) * np.linalg.norm(x, axis=1)) / 1e-2
    assert g_plain[-1] == pytest.approx(ceiling, rel=0.05)
    _, g_tiny = revnet.mlp_avalanche(48, nudge=1e-8)
    assert g_tiny[-1] > 100 * g_plain[-1] and 1.2 < g_tiny[-1] ** (1 / 48) < 1.5
    _, g_res_tiny = revnet.mlp_avalanche(48, residual=True, nudge=1e-8)
    assert g_res_tiny.max() < 10  # bounded at every depth
    noln, _ = revnet.mlp_avalanche(48, residual=True, layernorm=False)
    assert res[-1] < noln[-1] < plain[-1]  # LayerNorm does part of the work
    calm, _ = revnet.mlp_avalanche(48, weight_scale=0.8)  # below the edge of chaos: nearby inputs converge
    assert calm[-1] < 0.01


# -- activation memory ------------------------------------------------------------------------------
def test_layer_bytes_match_korthikanti_by_hand():
    """Korthikanti et al. 2022 (arXiv 2205.05198), eq. 1: s b h (34 + 5 a s / h) bytes per layer, GPT-3
    175B shape (s 2,048, h 12,288, a 96), b = 1: 855,638,016 + 2,013,265,920 = 2,868,903,936 B."""
    assert revnet.layer_activation_bytes(**GPT3) == 2_868_903_936
    # their "selective recomputation" drops the 5 a s^2 b term: FlashAttention keeps no s x s matrix
    flash = revnet.layer_activation_bytes.under(scores="flash")
    no_heads = {k: v for k, v in GPT3.items() if k != "n_heads"}  # nothing left depends on the heads
    assert flash(**no_heads) == 34 * 2048 * 12288
    no_dropout = revnet.layer_activation_bytes.under(scores="flash", dropout="off")
    assert no_dropout(**no_heads) == 32 * 2048 * 12288  # 16 values of 2 bytes per s b h


def test_full_recomputation_matches_korthikanti():
    """Their full recomputation stores 2 s b h L bytes (the layer inputs); we add the one layer rebuilt."""
    ck = revnet.training_activation_bytes.under(activations="checkpointed")
    layer = revnet.layer_activation_bytes(**GPT3)
    assert ck(n_layers=96, **GPT3) == 2 * 2048 * 12288 * 96 + layer


def test_stored_grows_with_layers_reversible_does_not():
    """O(L) against O(1): doubling the layers doubles the stored activations and leaves RevNet's alone."""
    stored = revnet.training_activation_bytes
    rev = revnet.training_activation_bytes.under(activations="reversible")
    assert stored(n_layers=80, **GPT3) == pytest.approx(2 * stored(n_layers=40, **GPT3))
    assert "n_layers" not in rev.args  # the layer count drops out altogether
    assert rev(**GPT3) == 2 * 2 * 2048 * 12288 + revnet.layer_activation_bytes(**GPT3)


def test_recompute_costs_one_more_forward():
    """6 N per token stored (2 forward + 4 backward), 8 N with one more forward: 6ND becomes 8ND."""
    for kind, per in (("stored", 6), ("checkpointed", 8), ("reversible", 8)):
        assert revnet.train_flops_per_token.under(activations=kind)(n_active=70e9) == per * 70e9


def test_kv_trade_for_llama_70b_on_h100_by_hand():
    """Llama 3.1 70B, BF16 cache: 80 layers x 2 x 8 heads x 128 x 2 B = 327,680 B per token. Recomputing a
    token's K and V takes 2 x 70.6e9 FLOPs at 989.4 TFLOP/s; reading 327,680 B takes it at 3.35 TB/s."""
    d = Deployment(models.get("Llama 3.1 70B"), hardware.get("H100"), precision="bf16")
    assert d.values["kv_bytes"] == 80 * 2 * 8 * 128 * 2
    want = (2 * 70.6e9 / 989.4e12) / (327_680 / 3.35e12)
    assert d.evaluate(revnet.kv_recompute_over_read) == pytest.approx(want, rel=1e-3)
    assert 1400 < want < 1500


def test_activation_trade_by_hand():
    """GPT-3 shape, 96 layers: the extra forward 2 N s b over writing and reading the saved bytes."""
    n, f, w = 175e9, 989.4e12, 3.35e12
    saved = 96 * 2_868_903_936 - (2 * 2 * 2048 * 12288 + 2_868_903_936)
    want = (2 * n * 2048 / f) / (2 * saved / w)
    got = revnet.act_recompute_over_traffic(n_layers=96, n_active=n, flops=f, mem_bw=w, **GPT3)
    assert got == pytest.approx(want)
    assert math.isinf(revnet.act_recompute_over_traffic(n_layers=1, n_active=n, flops=f, mem_bw=w, **GPT3))


# -- Gomez et al.'s block, the strict avalanche criterion, Luby-Rackoff, the edge of chaos ----------------
def test_gomez_block_by_hand_and_back():
    """y1 = x1 + F(x2), y2 = x2 + G(y1): with F(v) = 10 v, G(v) = v^2, (1, 2) -> (21, 443), and back."""
    F, G = (lambda v: 10 * v), (lambda v: v * v)
    y1, y2 = revnet.gomez_block(np.array([1.0]), np.array([2.0]), F, G)
    assert (float(y1[0]), float(y2[0])) == (21.0, 443.0)
    x1, x2 = revnet.gomez_block_inverse(y1, y2, F, G)
    assert (float(x1[0]), float(x2[0])) == (1.0, 2.0)
    rng = np.random.default_rng(4)  # the paper's formula, written out, on random arrays
    w1, w2 = rng.standard_normal((2, 8, 8))
    F, G = (lambda v: np.tanh(v @ w1)), (lambda v: np.sin(v @ w2))
    a, b = rng.standard_normal((2, 3, 8))
    got = revnet.gomez_block(a, b, F, G)
    assert np.allclose(got[0], a + F(b)) and np.allclose(got[1], b + G(a + F(b)))


def test_sac_of_one_round_by_hand():
    """One round, (x, y) -> (y ^ F(x), x): a flip of y's bit i flips the output's bit 16 + i and nothing else; a
    flip of x's bit i flips the output's bit i (the old x is the new y) every time."""
    m = revnet.toy_sac(1, n_blocks=256)
    assert m.shape == (32, 32)
    for i in range(16):
        assert m[i, 16 + i] == 1 and m[i].sum() == 1
        assert m[16 + i, i] == 1 and m[16 + i, :16].sum() == 1


def test_sac_mean_is_the_avalanche():
    """The mean of the per-bit table is toy_avalanche's measure on the same blocks and keys."""
    for r in (2, 3, 5):
        assert revnet.toy_sac(r, n_blocks=256).mean() == pytest.approx(revnet.toy_avalanche(r, n_blocks=256))


def test_luby_rackoff_random_round_functions_pass_sac_at_three_rounds_the_toy_does_not():
    """Three rounds of independent random functions meet the criterion bit by bit, within 6 standard errors
    (0.5 / sqrt(n)); two rounds never do, whatever F (the y half of a y flip is carried, not mixed); the toy's
    round function still leaves bits that flip always or never after three rounds."""
    n = 4096
    noise = 0.5 / math.sqrt(n)
    ideal3 = revnet.toy_sac(3, n_blocks=n, ideal=True)
    assert np.abs(ideal3 - 0.5).max() < 6 * noise
    ideal2 = revnet.toy_sac(2, n_blocks=n, ideal=True)
    assert ideal2[0, 0] == 1 and ideal2[0, 1:16].sum() == 0  # y's bit 0 comes back as y's bit 0
    toy3 = revnet.toy_sac(3, n_blocks=n)
    assert ((toy3 == 0) | (toy3 == 1)).any()
    assert np.abs(revnet.toy_sac(4, n_blocks=n) - 0.5).max() < 6 * noise


def test_ideal_differentials_look_random_from_three_rounds():
    """With random round functions the 2-round top difference is rare (F(u) ^ F(u ^ 1) is a random value for
    each pair) and from three rounds the top count is what chance gives; the y half after 2 rounds is fixed."""
    n = 2**18
    by_round = revnet.toy_differentials(4, 1, n_blocks=n, ideal=True)
    assert by_round[0] == (1.0, 1 << 16)
    assert by_round[1][1] & 0xFFFF == 1 and by_round[1][0] < 0.01
    assert all(p * n <= 6 for p, _ in by_round[2:])


def test_mean_field_by_hand_and_by_sampling():
    """No bias, sigma_w <= 1: q* = 0 and chi_1 = sigma_w^2 (tanh'(0) = 1). sigma_w = 3 against the same fixed
    point found by Monte Carlo (a million normal samples), and against the measured per-layer growth of a
    small change in a width-64 net (finite width lowers it a few per cent)."""
    assert revnet.tanh_mean_field(0.8) == (0.0, 0.64)
    assert revnet.tanh_mean_field(1.0) == (0.0, 1.0)
    z = np.random.default_rng(0).standard_normal(1_000_000)
    q = 1.0
    for _ in range(200):
        q = 9 * np.mean(np.tanh(np.sqrt(q) * z) ** 2)
    chi = 9 * np.mean(1 / np.cosh(np.sqrt(q) * z) ** 4)
    q_mf, chi_mf = revnet.tanh_mean_field(3.0)
    assert q_mf == pytest.approx(q, rel=0.01) and chi_mf == pytest.approx(chi, rel=0.01)
    _, gain = revnet.mlp_avalanche(48, weight_scale=3.0, nudge=1e-8)
    assert (gain[47] / gain[23]) ** (1 / 24) == pytest.approx(math.sqrt(chi_mf), rel=0.05)
    assert revnet.tanh_mean_field(1.0, 0.05)[1] < 1  # a bias moves the edge above sigma_w = 1


def test_mean_field_against_adaptive_quadrature():
    """sigma_w = 3 and 1.5 against mpmath's adaptive tanh-sinh quadrature at 20 digits, an independent
    integrator: q* by the same fixed-point iteration, then chi_1."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 20

    def gauss(g, q):
        f = lambda z: g(mpmath.sqrt(q) * z) * mpmath.exp(-z * z / 2)  # noqa: E731
        return mpmath.quad(f, [-mpmath.inf, -1, 0, 1, mpmath.inf]) / mpmath.sqrt(2 * mpmath.pi)

    for sw in (3.0, 1.5):
        q = mpmath.mpf(1)
        for _ in range(300):  # the fixed point, to 1e-15
            q, q_was = sw**2 * gauss(lambda u: mpmath.tanh(u) ** 2, q), q
            if abs(q - q_was) < 1e-15 * q:
                break
        chi = sw**2 * gauss(lambda u: mpmath.sech(u) ** 4, q)
        q_lib, chi_lib = revnet.tanh_mean_field(sw)
        assert q_lib == pytest.approx(float(q), rel=1e-9) and chi_lib == pytest.approx(float(chi), rel=1e-9)


def test_round_bf16_by_hand():
    """BF16 keeps float32's top 16 bits, rounded to nearest, ties to even: 1/3 is 0x3EAB (0.333984375),
    1 + 2^-8 is a tie that goes down to 1, 1 + 3 * 2^-9 goes up to 1 + 2^-7; the sign is kept."""
    out = revnet.round_bf16(np.array([1 / 3, 1 + 2**-8, 1 + 3 * 2**-9, 1 + 2**-7, -2.0, 0.0]))
    assert out.dtype == np.float32
    assert int(out[:1].view(np.uint32)[0]) == 0x3EAB0000
    assert out.tolist() == [0.333984375, 1.0, 1 + 2**-7, 1 + 2**-7, -2.0, 0.0]
    v = np.random.default_rng(0).standard_normal(10_000).astype(np.float32)
    r = revnet.round_bf16(v)
    assert np.all(r.view(np.uint32) & 0xFFFF == 0)  # 8 significant bits
    assert np.all(np.abs(r - v) <= np.abs(v) * 2**-8)  # within half a unit in the last place


# -- bad input --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("call, match", [
    (lambda: revnet.feistel_round(np.ones(2), np.ones(2), "f"), r"f must be a callable"),
    (lambda: revnet.feistel_round(np.ones(2), np.ones(3), np.sin), r"x and y must have one shape; got \(2,\)"),
    (lambda: revnet.feistel_round(np.ones(2), np.ones(2), np.sin, xor=True), r"x must be an integer array"),
    (lambda: revnet.feistel_round(np.ones(2, int), np.ones(2, int), np.sin, xor=True), r"f must return integers"),
    (lambda: revnet.revnet_block(np.ones(2), np.ones(2), lambda v: v[:1]), r"f\(x\) must have the shape of y"),
    (lambda: revnet.revnet_stack(np.ones(2), np.ones(2), []), r"fs must be a non-empty sequence"),
    (lambda: revnet.toy_keys(0), r"rounds must be an integer in \[1, 64\]; got 0"),
    (lambda: revnet.toy_encrypt([-1], revnet.toy_keys(2)), r"blocks must be integers in \[0, 2\*\*32\)"),
    (lambda: revnet.toy_differential(2, 0), r"delta must be one non-zero"),
    (lambda: revnet.mlp_avalanche(0), r"depth must be an integer in \[1, 1024\]; got 0"),
    (lambda: revnet.mlp_avalanche(4, weight_scale=-1), r"weight_scale must be a finite number > 0; got -1"),
    (lambda: revnet.sha256_avalanche(n_bytes=0), r"n_bytes must be an integer in \[1, 4096\]; got 0"),
    (lambda: revnet.toy_sac(3, n_blocks=0), r"n_blocks must be an integer in \[1, 65536\]; got 0"),
    (lambda: revnet.toy_sac(0), r"rounds must be an integer in \[1, 64\]; got 0"),
    (lambda: revnet.tanh_mean_field(0), r"weight_scale must be a finite number > 0; got 0"),
    (lambda: revnet.tanh_mean_field(1, -0.1), r"bias_scale must be a finite number >= 0; got -0.1"),
    (lambda: revnet.tanh_mean_field(200), r"weight_scale and bias_scale must be at most 100; got 200"),
    (lambda: revnet.round_bf16([1.0, np.inf]), r"values must be finite"),
    (lambda: revnet.gomez_block(np.ones(2), np.ones(2), "F", np.sin), r"F must be a callable"),
    (lambda: revnet.layer_activation_bytes(**(GPT3 | {"d_model": 0})), r"d_model must be a finite number > 0; got 0"),
    (lambda: revnet.training_activation_bytes(n_layers=-2, **GPT3), r"n_layers must be a finite number >= 1; got -2"),
    (lambda: revnet.layer_activation_bytes.under(scores="sparse"), r"scores must be one of 'stored', 'flash'"),
])
def test_bad_input_names_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# -- the figures ----------------------------------------------------------------------------------------
LLAMA_SHAPE = dict(d_model=8192, n_heads=64, micro_batch=1, len_ctx=4096, saved_act_bytes=2)


@pytest.mark.parametrize("kind", ["stored", "checkpointed", "reversible"])
def test_timeline_peaks_at_the_librarys_total(kind):
    """The drawn timeline's peak is training_activation_bytes of the same kind (Llama 3.1 70B's shape);
    stored lasts 3 L forward-layer units, recomputing 4 L (6ND against 8ND)."""
    from roofline.figures import revnet as fr

    t, held = fr.memory_timeline(80, **LLAMA_SHAPE, kind=kind)
    eq = revnet.training_activation_bytes.under(activations=kind, scores="flash", dropout="off")
    given = {k: v for k, v in (LLAMA_SHAPE | {"n_layers": 80}).items() if k in eq.args}
    assert held.max() == pytest.approx(eq(**given))
    assert t[-1] == (3 if kind == "stored" else 4) * 80
    assert held[-1] == pytest.approx(2 * 4096 * 8192 * 2 if kind == "reversible" else 0)
    # by hand: 80 layers x 32 B x 4,096 tokens x 8,192 = 85.9 GB stored
    layer = 32 * 4096 * 8192
    if kind == "stored":
        assert held.max() == 80 * layer
        # held[i] holds over (t[i-1], t[i]]: layer 79's backward still has all 80 layers' activations,
        # and layer 0's backward still has layer 0's
        assert held[81] == 80 * layer and t[81] - t[80] == 2
        assert held[160] == layer and held[161] == 0 and t[161] == t[160]
    else:  # the layer being rebuilt stays through its own backward pass
        assert held[-2] == pytest.approx(held[-3]) and held[-2] > held[-1]


def test_live_timeline_updates_in_place():
    from matplotlib.figure import Figure

    from roofline.figures import revnet as fr

    fig = fr.TimelineFigure(n_layers=80, **LLAMA_SHAPE)
    line = fig.lines["stored"]
    before = np.asarray(line.get_ydata()).max()
    assert fig.update(n_layers=40) == pytest.approx(before / 2)
    assert fig.lines["stored"] is line and fig.to_png()[:4] == b"\x89PNG"
    with pytest.raises(ValueError, match="update\\(\\) takes"):
        fig.update(layers=3)
    with pytest.raises(ValueError, match="n_layers must be a whole number"):
        fr.memory_timeline(2.5, **LLAMA_SHAPE)
    with pytest.raises(ValueError, match="kind must be one of"):
        fr.memory_timeline(4, **LLAMA_SHAPE, kind="sparse")
    axes = Figure().subplots(1, 3)
    fr.draw_feistel(axes[0]), fr.draw_residual(axes[1]), fr.draw_revnet(axes[2], blocks=3)
    art = fr.draw_avalanche(Figure().subplots(1, 2), fr.avalanche_data(rounds=range(1, 4), depth=4))
    assert set(art) == {"sha", "cipher", "plain", "residual", "residual_noln"}


def test_live_avalanche_figure_matches_the_library_and_refuses_bad_controls():
    """The live MLP figure draws mlp_avalanche's numbers and the mean-field line; its axes stay put."""
    from roofline.figures.revnet import AvalancheFigure
    fig = AvalancheFigure(weight_scale=3.0, depth=48)
    flips = revnet.mlp_avalanche(48, weight_scale=3.0)[0]
    assert fig.update() == pytest.approx(flips[-1])
    assert fig.update(weight_scale=1.5, depth=64) == pytest.approx(revnet.mlp_avalanche(64, weight_scale=1.5)[0][-1])
    y = fig.lines["mean_field"].get_ydata()
    assert y[-1] == pytest.approx(math.sqrt(revnet.tanh_mean_field(1.5)[1]) ** 64)
    assert fig.axes[0].get_xlim() == (0, 128) and fig.to_png()[:4] == b"\x89PNG"
    with pytest.raises(ValueError, match=r"depth must be a whole number in \[1, 128\]; got 0"):
        fig.update(depth=0)
    with pytest.raises(ValueError, match=r"depth must be a whole number in \[1, 128\]; got 200"):
        fig.update(depth=200)
    with pytest.raises(ValueError, match=r"weight_scale must lie in \[0.05, 10\]; got 20"):
        fig.update(weight_scale=20)


def test_toy_differentials3_exact_against_a_sample():
    """The exact three-round table against an independent 2^21-block sample, to Poisson noise (the
    random-function case, slow exactly, is the notebook's sampled 20-seed table)."""
    # the toy: the exact probabilities predict the counts of a 2^21-block sample to Poisson noise
    p, d = revnet.toy_differentials3_exact(top=8)
    assert (np.diff(p) <= 0).all() and len(set(d.tolist())) == 8
    keys = revnet.toy_keys(3)
    x = np.random.default_rng(9).integers(0, 1 << 32, 1 << 21, dtype=np.uint64).astype(np.uint32)
    out = revnet.toy_encrypt(x, keys) ^ revnet.toy_encrypt(x ^ 1, keys)
    for pi, di in zip(p, d):
        n, mu = int((out == di).sum()), pi * x.size
        assert abs(n - mu) < 4 * mu**0.5 + 1, (hex(int(di)), n, mu)
    for bad in (0, 1 << 16, True, 1.5):
        with pytest.raises(ValueError, match="delta"):
            revnet.toy_differentials3_exact(bad)


def test_differential4_counts_by_hand_and_exhaustively():
    """P(v, 0) = P2(delta -> v) P3(v -> delta): worked by hand for 2-bit halves, and counted over every
    input of 4-round Feistel ciphers on 6-bit halves with random round tables (the formula is exact,
    not an average: the map from an input to rounds 2 and 3's inputs is a bijection)."""
    # by hand, halves of 2 bits, delta = 1: round 2's F = [0, 0, 1, 3] sends u, u ^ 1 to v = 0 for
    # u = 0, 1 and to v = 1 ^ 3 = 2 for u = 2, 3: c2 = [2, 0, 2, 0]; round 3's F = [0, 1, 1, 2] has
    # F(s) ^ F(s ^ v) = 1 for s = 0, 1 at v = 1 and for s = 0, 2 at v = 2: c3 = [0, 2, 2, 0]
    t2, t3 = np.array([0, 0, 1, 3], np.uint32), np.array([0, 1, 1, 2], np.uint32)
    assert revnet._pair_counts(t3, 1).tolist() == [0, 2, 2, 0]
    assert revnet._differential4_counts(t2, t3, 1).tolist() == [0, 0, 4, 0]   # P(2, 0) = 4 of 16
    rng = np.random.default_rng(4)
    h = np.arange(64, dtype=np.uint32)
    for delta in (1, 5, 63):
        ts = [rng.integers(0, 64, 64).astype(np.uint32) for _ in range(4)]
        fs = [lambda v, t=t: t[v] for t in ts]
        x, y = np.repeat(h, 64), np.tile(h, 64)                               # all 4,096 inputs
        a = revnet.revnet_stack(x, y, fs, xor=True)
        b = revnet.revnet_stack(x, y ^ np.uint32(delta), fs, xor=True)
        dx, dy = a[0] ^ b[0], a[1] ^ b[1]
        counted = np.bincount(dx[dy == 0], minlength=64)
        assert np.array_equal(revnet._differential4_counts(ts[1], ts[2], delta), counted)
        # and the grouping against the plain loop over v
        loop = [int((ts[2] ^ ts[2][h ^ v] == delta).sum()) for v in range(64)]
        assert revnet._pair_counts(ts[2], delta).tolist() == loop


def test_toy_differentials4_exact_against_a_sample_and_every_key():
    """The toy's exact four-round (v, 0) table: its top entries against the formula computed by a loop
    over the 2^16 halves; all of it against a 2^22-block sample of four rounds (its 284 possible v hold
    every sampled (v, 0), and their total, 81.5 blocks expected, matches the count to Poisson noise); the
    same for any key; a bad delta refused."""
    p, d = revnet.toy_differentials4_exact(top=1 << 16)
    assert (np.diff(p) <= 0).all() and len(set(d.tolist())) == 1 << 16 and not (d & 0xFFFF).any()
    keys = revnet.toy_keys(4)
    u = np.arange(1 << 16, dtype=np.uint32)
    f2, f3 = (revnet.toy_round_function(u, k) for k in keys[1:3])
    for pi, di in zip(p[:4], d[:4]):
        v = int(di) >> 16
        p2 = ((f2 ^ f2[u ^ 1]) == v).mean()
        p3 = ((f3 ^ f3[u ^ v]) == 1).mean()
        assert pi == p2 * p3
    x = np.random.default_rng(11).integers(0, 1 << 32, 1 << 22, dtype=np.uint64).astype(np.uint32)
    out = revnet.toy_encrypt(x, keys) ^ revnet.toy_encrypt(x ^ 1, keys)
    sampled = out[(out & 0xFFFF) == 0]
    assert np.isin(sampled, d[p > 0]).all()                   # no (v, 0) of probability 0 occurs
    n, mu = sampled.size, p.sum() * x.size
    assert abs(n - mu) < 4 * mu**0.5, (n, mu)
    other = revnet.toy_differentials4_exact(top=1 << 16, seed=7)   # other keys, same table
    assert np.array_equal(other[0], p) and np.array_equal(other[1], d)
    for bad in (0, 1 << 16, True, 1.5):
        with pytest.raises(ValueError, match="delta"):
            revnet.toy_differentials4_exact(bad)
    with pytest.raises(ValueError, match=r"top must be an integer in \[1, 65536\]; got 0"):
        revnet.toy_differentials4_exact(top=0)


# -- stored runs: the package's file holds exactly what the functions compute ------------------
def _same(a, b):
    """Equal in structure; integers exactly, floats to a millionth (BLAS may differ in the last bits)."""
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype.kind != b.dtype.kind:
        return False
    if a.dtype.kind == "f":
        return bool(np.allclose(a, b, rtol=1e-6, atol=0))
    return bool(np.array_equal(a, b))


@pytest.mark.parametrize("call", revnet.STORED_CALLS,
                         ids=lambda c: f"{c[0].__name__}{c[1]}{sorted(c[2].items())}"[:60])
def test_stored_runs_are_what_the_functions_compute(call):
    fn, args, kwargs = call
    assert _same(revnet.stored(fn, *args, **kwargs), fn(*args, **kwargs))


def test_stored_file_holds_the_stored_calls_and_nothing_else(tmp_path):
    keys = {revnet._call_key(fn, a, k) for fn, a, k in revnet.STORED_CALLS}
    assert set(revnet._stored_results()) == keys


def test_stored_reads_any_spelling_and_computes_the_rest():
    fn, args, kwargs = revnet.STORED_CALLS[0]   # the depth fit, spelt another way
    other = revnet._call_key(fn, (), dict(depth=384, residual=True, nudges=[1e-8], seeds=range(32), width=64))
    assert other == revnet._call_key(fn, args, kwargs)
    small = revnet.stored(revnet.toy_differentials, 2, 1, n_blocks=64)   # not stored: computed
    assert small == revnet.toy_differentials(2, 1, n_blocks=64)
    with pytest.raises(TypeError, match="fn"):
        revnet.stored("toy_differentials", 2, 1)
    with pytest.raises(TypeError):
        revnet.stored(revnet.toy_differentials, 2, 1, bogus=3)   # not a keyword of fn


def test_pack_and_unpack_keep_types():
    leaves = []
    value = [(0.5, 7), (np.arange(3.0), (np.uint32(5),))]
    back = revnet._unpack(revnet._pack(value, leaves), leaves)
    assert back[0] == (0.5, 7) and isinstance(back[0][1], int)
    assert np.array_equal(back[1][0], np.arange(3.0)) and back[1][1] == (5,)
