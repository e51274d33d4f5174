"""Pipeline parallelism: layers cut across racks (lecture chapter 3, 00:47:12-01:03:37).

A pipeline cuts the layer stack between racks. At a cut each token is sent once, over
the scale-out network; inside a stage, each of its MoE layers sends ``K`` copies of it
out and back over the scale-up network (chapter 2). The cut costs less than the
stage's own traffic once ``2 K ell_s (1 - 1/G) W_out / W_up >= 1``: the lecture's
``1/8 x 2 x experts x layers >= 1`` (00:50:35-00:52:46), with the bandwidth ratio
taken from the registry and the ``1 - 1/G`` of copies that leave their chip kept.

In inference a stage hands its batch on and starts the next one, so a pipeline of
``P`` stages has no bubble: each stage does ``1/P`` of the work, one pass takes ``P``
stage times plus ``P - 1`` hops, and with enough batches in flight the throughput is
that of ``P G`` chips (00:56:40-00:58:09). In a decode loop with exactly ``P`` batches
in flight each batch goes round ``P`` stages, ``P - 1`` hops carrying activations and
the wrap-around from the last stage to the first, which carries only the sampled token
ids (its latency ``tau``); hiding the hops takes ``P + ((P - 1) hop + tau) / t_stage``
batches (:data:`pipeline_tokens_per_s`, :data:`neutral_batches_n`,
:data:`loop_token_time_s`). In training the backward
pass must wait for the forward pass of the whole batch: the *bubble*. :func:`schedule` builds the timeline of a schedule
(GPipe, 1F1B) from its dependencies; the bubble fractions of ``build`` are the
papers' closed forms, which the tests check against those timelines.

Schedules and splits beyond the lecture
---------------------------------------
Zero-bubble schedules split the backward pass into ``B`` (gradient of the input, on
the critical path) and ``W`` (gradient of the weights, free to move) and put ``W``
into the bubble. :func:`schedule_costs` gives the bubble time and memory of each
schedule in the forms of DeepSeek-V3's technical report, Table 2 (arXiv 2412.19437,
Dec 2024), ``F`` a forward chunk, ``B`` a full backward, ``W`` its weight part and
``F&B`` a forward and a backward chunk run overlapped: 1F1B ``(P - 1)(F + B)``, ZB1P
(ZB-H1 of Qi et al. 2024, arXiv 2401.10241) ``(P - 1)(F + B - 2W)``, DualPipe
``(P/2 - 1)(F&B + B - 3W)``; activations ``P``, ``P`` and ``P + 1`` micro-batches,
parameters once, once and twice. ``bubble_fraction`` under ``schedule='zb-h1'`` or
``'dualpipe'`` is the same bubble as a share of the step with ``F = W = 1``,
``B = 2`` and ``F&B = F + B`` (DualPipe hides communication behind computation, not
computation behind computation).

:data:`tp_max_degree` is the rule of *How to Scale Your Model* (Austin et al.,
jax-ml.github.io/scaling-book, "How to Think About GPUs", tensor parallelism): a
matmul of width ``F`` split ``Y`` ways does ``4 B D F / Y`` FLOPs per all-gather and
reduce-scatter of ``2 B D`` activations, so it stays compute-bound while
``Y < F W / C`` in BF16; with ``b_a`` bytes per value, ``Y < 2 F W / (b_a C)``. That
rule counts two matrices; a gated block (gate, up, down) does ``6 B D F / Y`` FLOPs
for the same activations, and the library uses it: ``Y < 3 F W / (b_a C)``.
The rule also drops the ``(Y - 1)/Y`` of each collective that leaves the chip;
:data:`tp_comm_over_math` keeps it, ``(Y - 1) b_a C / (3 F W)``, which reaches 1 at
``Y = 1 + 3 F W / (b_a C)``.

The cut condition counts ``K (1 - 1/G)`` copies per token leaving each chip, as the lecture
does. Kernels that send one copy per destination chip send fewer: :func:`chips_reached`
gives the chips a token's experts fall on.

>>> print(f"{cut_ratio(top_k=8, stage_layers=1, n_chips=64, scaleup_bw=900e9, scaleout_bw=50e9):.2f}")
0.88
>>> print(f"{bubble_fraction(n_stages=4, n_micro=4):.3f}")
0.429
>>> print(f"{tp_max_degree(d_ff=2048, scaleup_bw=450e9, act_bytes=2, flops=989.4e12):.2f}")
1.40
"""

import dataclasses
import math

import sympy as sp
from sympy.physics import units as u

from . import _check, decode, equations
from .equations import Spec
from .symbols import (B, act_bytes, d_ff, d_model, flops, hop_latency, n_chips, n_chunks, n_micro, n_stages,
                      scaleout_bw, scaleup_bw, stage_layers, top_k, tp_ways)

SCHEDULES = ("gpipe", "1f1b", "interleaved", "zb-h1", "dualpipe")  # the variant axis, default first
_S = u.second


def build(schedule="gpipe"):
    """The chapter-3 equations under one schedule, as {numeric function name: Spec}."""
    equations.check_variant(__name__, schedule=schedule)
    # per token: the stage's all-to-alls (out and back, K copies, 1 - 1/G leave the chip) on the scale-up
    # network, against one send across the cut on the scale-out network; D b_a cancels
    stage_time = 2 * top_k * stage_layers * (1 - 1 / n_chips) / scaleup_bw
    cut_time = 1 / scaleout_bw
    ratio = stage_time / cut_time
    if schedule == "interleaved":  # Narayanan et al. 2021: the bubble shrinks by the v chunks per stage
        bubble = (n_stages - 1) / (n_chunks * n_micro + n_stages - 1)
    elif schedule == "zb-h1":  # Qi et al. 2024: (P - 1)(F + B - 2W) idle against m (F + B) of work, F = W = 1, B = 2
        bubble = (n_stages - 1) / (3 * n_micro + n_stages - 1)
    elif schedule == "dualpipe":  # DeepSeek-V3, Table 2: (P/2 - 1)(F&B + B - 3W), F&B = F + B = 3; P even, >= 2
        bubble = sp.Piecewise((0, n_stages <= 2), ((n_stages - 2) / (3 * n_micro + n_stages - 2), True))
    else:  # GPipe (Huang et al. 2019) and 1F1B (PipeDream-Flush, Narayanan et al. 2021) idle alike:
        # (P - 1) of m + P - 1 slots; Megatron-LM writes it over useful time instead, (P - 1)/m
        bubble = (n_stages - 1) / (n_micro + n_stages - 1)
    stage = decode.step_time_s.expr.subs(n_chips, n_stages * n_chips)  # 1/P of the model on G chips
    hop = hop_latency + (B / n_chips) * d_model * act_bytes / scaleout_bw  # one cut: latency + the batch's bytes
    # tensor parallelism over a gated feed-forward block of width F (gate, up, down: three matrices; How to Scale
    # Your Model counts two): 3 x 2 B D F / Y FLOPs against an all-gather and a reduce-scatter of B D values of
    # b_a bytes; compute-bound while Y is below
    tp_max = 3 * d_ff * scaleup_bw / (act_bytes * flops)
    # the same split with the (Y - 1)/Y of each collective that leaves the chip kept: communication over math
    tp_ratio = (tp_ways - 1) * act_bytes * flops / (3 * d_ff * scaleup_bw)
    # a decode loop with exactly P batches in flight: each goes round P stages, P - 1 hops carrying activations and
    # one wrap-around hop from the last stage to the first carrying only the sampled token ids (latency tau);
    # none on one stage. A cycle of P batches: P t_stage + (P - 1) hop + tau
    loop_hops = sp.Piecewise((0, n_stages <= 1), ((n_stages - 1) * hop + hop_latency, True))
    # B / (t_stage + hop), written per sequence so that the unit check's expansion keeps one unit per term
    return {
        "cut_ratio": Spec(ratio, "dimensionless", "A stage's scale-up all-to-all time over one scale-out send per "
                          "token across the cut; the cut is cheap at 1 or more (00:52:38).", 1,
                          zero="0 on one chip: the stage sends nothing over the scale-up network"),
        "min_stage_layers": Spec(sp.solve(sp.Eq(ratio, 1), stage_layers)[0], "layers",
                                 "MoE layers per stage at which the cut costs as much as the stage's own "
                                 "all-to-alls.", 1, infinite="inf on one chip: no all-to-all to set against the cut"),
        "bubble_fraction": Spec(bubble, "dimensionless", "Share of a training step each stage sits idle: "
                                "(P - 1)/(m + P - 1), or (P - 1)/(v m + P - 1) interleaved, (P - 1)/(3 m + P - 1) "
                                "ZB-H1, (P - 2)/(3 m + P - 2) DualPipe.", 1,
                                zero="0 for one stage (DualPipe: two): no pipeline, no bubble"),
        "stage_time_s": Spec(stage, "s", "Time of one pipeline stage: chapter 1's step with the model spread "
                             "over P G chips (each stage holds 1/P of it).", _S),
        "hop_time_s": Spec(hop, "s", "One hop across a pipeline cut: the latency tau plus each chip's share of "
                           "the batch's activations, (B/G) D b_a bytes, at the scale-out bandwidth. At a "
                           "tiny message's latency and line rate it is a floor; measured.fit_link('scale-out') "
                           "gives a latency and bandwidth calibrated on measured all-to-alls.", _S),
        "pipeline_token_latency_s": Spec(n_stages * stage + (n_stages - 1) * hop, "s",
                                         "Time for one pass through all P stages (a prefill or a first "
                                         "token): P stage times plus P - 1 hops (latency and the batch's "
                                         "activations); a decode loop adds the hop back, roofline.memory.", _S),
        "tp_max_degree": Spec(tp_max, "chips", "Most tensor-parallel ways over the scale-up network at which a "
                              "gated feed-forward block (gate, up, down) of width d_ff stays compute-bound: "
                              "3 d_ff W_up / (b_a F); How to Scale Your Model's F W / C counts two matrices.", 1),
        "tp_comm_over_math": Spec(tp_ratio, "dimensionless", "Communication over math time of a feed-forward "
                                  "block of width d_ff split n_TP ways, the (n_TP - 1)/n_TP of each all-gather and "
                                  "reduce-scatter kept: (n_TP - 1) b_a F / (3 d_ff W_up) for a gated block; compute-bound below 1.", 1,
                                  zero="0 on one chip: nothing to communicate"),
        "pipeline_tokens_per_s": Spec(1 / (stage / B + loop_hops / (n_stages * B)), "token/s", "Tokens per second "
                                      "of a decode loop with exactly P batches in flight: P B per cycle of P stage "
                                      "times, P - 1 hops and the wrap-around's latency tau (token ids only; "
                                      "B / t_stage on one stage).", 1 / _S),
        "neutral_batches_n": Spec(n_stages + loop_hops / stage, "batches", "Batches in flight that keep "
                                  "every stage of a decode loop busy while the hops run: P + ((P - 1) hop + tau) "
                                  "/ t_stage; with that many the throughput is B / t_stage, and the KV cache grows "
                                  "alike.", 1),
        "loop_token_time_s": Spec(n_stages * stage + loop_hops, "s", "Time per token of a decode loop over P "
                                  "stages with a batch of B per stage: P stage times, P - 1 hops carrying "
                                  "activations and the wrap-around hop's latency tau (the last stage sends back "
                                  "token ids, not activations). roofline.memory.token_time_with_hops_s counts "
                                  "the wrap-around as a full hop, an upper bound by hop - tau.", _S),
    }


EQUATIONS = equations.family(__name__, build, schedule=SCHEDULES)

cut_ratio = EQUATIONS["cut_ratio"]
min_stage_layers = EQUATIONS["min_stage_layers"]
bubble_fraction = EQUATIONS["bubble_fraction"]
stage_time_s = EQUATIONS["stage_time_s"]
hop_time_s = EQUATIONS["hop_time_s"]
pipeline_token_latency_s = EQUATIONS["pipeline_token_latency_s"]
pipeline_tokens_per_s = EQUATIONS["pipeline_tokens_per_s"]
tp_max_degree = EQUATIONS["tp_max_degree"]
tp_comm_over_math = EQUATIONS["tp_comm_over_math"]
neutral_batches_n = EQUATIONS["neutral_batches_n"]
loop_token_time_s = EQUATIONS["loop_token_time_s"]

TABLE2 = ("1f1b", "zb1p", "dualpipe")


def schedule_costs(kind, n_stages, fwd=1.0, bwd=2.0, wgrad=1.0, overlapped=None):
    """Bubble time and memory of a training pipeline schedule, as DeepSeek-V3's technical report gives them.

    DeepSeek-AI, "DeepSeek-V3 Technical Report", arXiv 2412.19437 (Dec 2024), Table 2 (also the
    DualPipe repository's README): with ``fwd`` = F a forward chunk, ``bwd`` = B a full backward
    chunk, ``wgrad`` = W its "backward for weights" part and ``overlapped`` = F&B a forward and a
    backward chunk run together (default F + B),

    ========  =========================  ==========  ===========
    kind      bubble                     parameters  activations
    ========  =========================  ==========  ===========
    1f1b      (P - 1)(F + B)             1x          P
    zb1p      (P - 1)(F + B - 2W)        1x          P
    dualpipe  (P/2 - 1)(F&B + B - 3W)    2x          P + 1
    ========  =========================  ==========  ===========

    ZB1P is ZB-H1 of Qi et al. (arXiv 2401.10241). Activations count the micro-batches whose
    activations one stage holds at its peak. Returns ``dict(bubble=, parameters=, activations=)``.

    >>> schedule_costs("dualpipe", 16)
    {'bubble': 14.0, 'parameters': 2, 'activations': 17}
    """
    kind = _check.choice("kind", kind, {k: k for k in TABLE2})
    P = _whole("n_stages", n_stages, 2 if kind == "dualpipe" else 1)
    if kind == "dualpipe" and P % 2:
        raise ValueError(f"n_stages must be even for DualPipe (two directions); got {n_stages!r}")
    f, b, w = (_check.scalar(n, x) for n, x in (("fwd", fwd), ("bwd", bwd), ("wgrad", wgrad)))
    if w > b:
        raise ValueError(f"wgrad must not exceed bwd (W is part of the backward pass); got {wgrad!r} > {bwd!r}")
    fb = f + b if overlapped is None else _check.scalar("overlapped", overlapped)
    if kind == "1f1b":
        return dict(bubble=(P - 1) * (f + b), parameters=1, activations=P)
    if kind == "zb1p":
        return dict(bubble=(P - 1) * (f + b - 2 * w), parameters=1, activations=P)
    return dict(bubble=(P / 2 - 1) * (fb + b - 3 * w), parameters=2, activations=P + 1)


def peak_activations(kind, n_stages, n_micro, n_chunks=1):
    """Micro-batches' activations the first stage holds at its peak, in units of one micro-batch through one
    stage, for the schedules the chapter draws.

    * ``gpipe``: every micro-batch, ``m`` (all forwards run before any backward).
    * ``1f1b`` and ``zb-h1``: ``min(P, m)`` (PipeDream-Flush; Qi et al. keep ZB-H1 at 1F1B's peak).
    * ``zb-h2``: ``min(2P - 1, m)`` (Qi et al., section 2.2).
    * ``interleaved``: Megatron-LM warms up ``2(P - 1) + (v - 1) P`` chunks of ``1/v`` of a stage
      on the first stage and holds one more in steady state: ``P + (P - 1)/v`` (``v >= 2``).
    * ``dualpipe``: ``P + 1`` (DeepSeek-V3, Table 2).
    """
    P, M = _whole("n_stages", n_stages), _whole("n_micro", n_micro)
    v = _whole("n_chunks", n_chunks)
    table = {"gpipe": M, "1f1b": min(P, M), "zb-h1": min(P, M), "zb-h2": min(2 * P - 1, M),
             "dualpipe": P + 1}
    kind = _check.choice("kind", kind, {k: k for k in (*table, "interleaved")})
    if kind == "interleaved":
        if v < 2:
            raise ValueError(f"n_chunks must be >= 2 for the interleaved schedule; got {n_chunks!r}")
        return min(P + (P - 1) / v, M)
    return table[kind]


def chips_reached(top_k, n_experts, n_chips):
    """Expected number of chips that hold at least one of a token's ``top_k`` experts.

    ``n_experts`` are spread evenly, ``n_experts / n_chips`` to a chip, and a token picks
    ``top_k`` distinct experts, all choices alike (uniform routing, drawn without
    replacement). A chip holds none of them with probability
    ``C(E - E/G, K) / C(E, K)``, so ``G (1 - C(E - E/G, K) / C(E, K))`` chips hold one
    or more. By symmetry the token's own chip is among them as often as any other, so
    ``(G - 1) / G`` of that count are *other* chips: the copies a kernel sends that
    sends one copy per destination chip (DeepEP's normal kernels, or a reduce before the
    combine), where the lecture's accounting sends ``K (1 - 1/G)``. With nodes as the
    groups it counts the nodes a token reaches.

    >>> print(f"{chips_reached(8, 256, 8) * 7 / 8:.2f} other GPUs of an 8-GPU node, not 7")
    4.63 other GPUs of an 8-GPU node, not 7
    """
    K, E, G = _whole("top_k", top_k), _whole("n_experts", n_experts), _whole("n_chips", n_chips)
    if K > E:
        raise ValueError(f"top_k must not exceed n_experts ({n_experts!r}); got {top_k!r}")
    if E % G:
        raise ValueError(f"n_chips must divide n_experts ({n_experts!r}) evenly; got {n_chips!r}")
    return G * (1 - math.comb(E - E // G, K) / math.comb(E, K))


@dataclasses.dataclass(frozen=True)
class Op:
    """One block of a pipeline timeline: stage, micro-batch, 'F' or 'B', start and end."""

    stage: int
    micro: int
    kind: str
    start: float
    end: float

    def __post_init__(self):  # quick: schedule() makes thousands
        if not (type(self.stage) is int and type(self.micro) is int and self.stage >= 0 and self.micro >= 0
                and self.kind in ("F", "B") and isinstance(self.start, (int, float))
                and isinstance(self.end, (int, float)) and 0 <= self.start <= self.end < math.inf):
            raise ValueError(f"Op: stage and micro must be whole numbers >= 0, kind 'F' or 'B', 0 <= start <= end "
                             f"finite; got {self!r}")


def _whole(name, value, minimum=1):
    return _check.whole(name, value, minimum)


SCHEDULE_OPS = 20_000
"""The most operations :func:`schedule` lays out (stages x micro-batches, x 2 with backward passes): a timeline
of more cannot be drawn, and this many take a few tenths of a second."""


def schedule(n_stages, n_micro, kind="gpipe", fwd=1.0, bwd=2.0):
    """The timeline of a training step (``kind`` 'gpipe' or '1f1b') or an inference run ('inference'), as Ops.

    Each stage runs its operations in the schedule's order, each as soon as its stage is free
    and its input is ready: a forward pass on stage ``s`` needs the same micro-batch's forward
    on ``s - 1``; a backward pass needs the backward on ``s + 1`` and its own forward.

    * ``gpipe``: every forward, a hard stop, then every backward in reverse order (00:58:48).
    * ``1f1b``: ``P - s - 1`` forwards to warm up, then one forward and one backward in turn.
    * ``inference``: forwards only; micro-batch ``i`` enters stage 0 as soon as it is free.
    * ``naive``: forwards only, one micro-batch through all stages before the next starts (00:57:34).
    """
    P, M = _whole("n_stages", n_stages), _whole("n_micro", n_micro)
    f, b = _check.scalar("fwd", fwd), _check.scalar("bwd", bwd)
    if not isinstance(kind, str) or kind not in ("gpipe", "1f1b", "inference", "naive"):
        raise ValueError(f"kind must be 'gpipe', '1f1b', 'inference' or 'naive'; got {_check.short(kind)}")
    _check.work("schedule", SCHEDULE_OPS, {"n_stages": P, "n_micro": M}, 1 if kind in ("inference", "naive") else 2,
                "operations")
    orders = []
    for s in range(P):
        if kind in ("inference", "naive"):
            order = [("F", i) for i in range(M)]
        elif kind == "gpipe":
            order = [("F", i) for i in range(M)] + [("B", i) for i in reversed(range(M))]
        else:
            warm = min(P - s - 1, M)
            order = [("F", i) for i in range(warm)]
            nf, nb = warm, 0
            while nb < M:
                if nf < M:
                    order.append(("F", nf))
                    nf += 1
                order.append(("B", nb))
                nb += 1
        orders.append(order)
    # Each operation starts when its stage is free and its inputs are ready; that fixes every time whatever the
    # order they are worked out in. Sweeps alternate up and down the stages (forwards flow up, backwards down)
    # and run each stage as far as it can go, so the work is linear in the operations. The list comes out in
    # rounds: round r holds each stage's next operation once its inputs were done by round r, on a lower stage,
    # or by round r - 1 (a stage waits a round for a higher one).
    done, rounds, free, pos, last = {}, {}, [0.0] * P, [0] * P, [-1] * P
    rows, remaining, sweep = [], sum(len(o) for o in orders), 0
    while remaining:
        progressed = False
        for s in (range(P) if sweep % 2 == 0 else range(P - 1, -1, -1)):
            while pos[s] < len(orders[s]):
                op, i = orders[s][pos[s]]
                deps = [("F", s - 1, i)] if op == "F" and s > 0 else []
                if kind == "naive" and s == 0 and i > 0:
                    deps = [("F", P - 1, i - 1)]  # the previous micro-batch has left the last stage
                if op == "B":
                    deps = [("F", s, i)] + ([("B", s + 1, i)] if s < P - 1 else [])
                if not all(d in done for d in deps):
                    break
                start = max([free[s]] + [done[d] for d in deps])
                end = start + (f if op == "F" else b)
                r = max([last[s] + 1] + [rounds[d] + (d[1] >= s) for d in deps])
                done[(op, s, i)], rounds[(op, s, i)], free[s], last[s] = end, r, end, r
                rows.append((r, s, i, op, start, end))
                pos[s] += 1
                remaining -= 1
                progressed = True
        sweep += 1
        if not progressed:  # cannot happen for these orders; a guard against a wrong one
            raise RuntimeError("schedule deadlocked")
    rows.sort(key=lambda row: row[:2])
    return [Op(s, i, op, start, end) for _, s, i, op, start, end in rows]


def idle_fraction(ops):
    """Share of the timeline the stages sit idle: 1 - busy time / (stages x makespan)."""
    if isinstance(ops, (str, bytes)) or not hasattr(ops, "__iter__"):
        raise ValueError(f"ops must be a list of pipeline Ops (see schedule()); got {_check.short(ops)}")
    ops = _check.items("ops", ops, 10 * SCHEDULE_OPS, "Ops")
    if not ops or not all(isinstance(o, Op) for o in ops):
        raise ValueError(f"ops must hold at least one pipeline Op (see schedule()); got {_check.short(ops)}")
    stages = {o.stage for o in ops}
    span = max(o.end for o in ops) - min(o.start for o in ops)
    if not span > 0:
        raise ValueError(f"ops must span some time (an end after a start); got a span of {span!r}")
    return 1 - sum(o.end - o.start for o in ops) / (len(stages) * span)

