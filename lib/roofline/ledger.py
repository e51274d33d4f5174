"""The lecture, claim by claim: each number in :mod:`roofline.lecture` beside what the library computes for it.

Every claim gets one :class:`Check`, and :func:`rows` gives its :class:`Row`: the lecture's value, the value
computed here (from the registries and the chapters' equations, in the claim's own unit), how it was computed,
and a verdict:

- **agrees**: within 2 % of the lecture's value, or inside the range the lecture gives;
- **rounded**: within 30 % (the lecture speaks in round numbers: 700B for 671B, 15 ms for 14.4 ms);
- **differs**: further off; the check says why (another chip's datasheet, a calibrated latency);
- **premise**: a number the lecture chooses to argue with (a hypothetical, a board drawing, a round input),
  or a fact about the world the library holds no data for: nothing to compute, and the check says which.

The appendix "The lecture, claim by claim" is this table, built with the book.

>>> r = {(x.chapter, x.key): x for x in rows()}
>>> print(r[1, "rubin_drain"].verdict, f"{r[1, 'rubin_drain'].computed:.1f}")
rounded 14.4
>>> print(r[1, "balance_batch"].verdict, r[4, "hop_ms"].verdict, r[7, "scrutiny_years"].verdict)
rounded differs premise
"""

import dataclasses
import math
import statistics

import numpy as np

from . import _check, decode, hardware, lecture, measured, models, moe, pipeline, prices, registry, training
from .deployment import Deployment

AGREES, ROUNDED, DIFFERS, PREMISE = "agrees", "rounded", "differs", "premise"
VERDICTS = (AGREES, ROUNDED, DIFFERS, PREMISE)
AGREE_WITHIN, ROUND_WITHIN = 0.02, 0.30


@dataclasses.dataclass(frozen=True)
class Check:
    """How one claim is checked: ``computed`` in the claim's unit (None for a premise) and ``basis``, a
    sentence saying how (or, for a premise, why there is nothing to compute)."""

    computed: float | None
    basis: str

    def __post_init__(self):
        _check.record(self)  # every field's type


@dataclasses.dataclass(frozen=True)
class Row:
    """One line of the ledger."""

    chapter: int
    key: str
    claim: lecture.Claim
    computed: float | None
    basis: str
    verdict: str

    def __post_init__(self):
        _check.record(self)  # every field's type

    @property
    def ratio(self):
        """Computed over the lecture's value (its range's middle, geometrically), or None for a premise."""
        if self.computed is None:
            return None
        v = self.claim.value
        mid = math.sqrt(v[0] * v[1]) if isinstance(v, tuple) else v
        return self.computed / mid


def verdict(value, computed):
    """The verdict for a lecture ``value`` (a number or a ``(low, high)`` range) and a ``computed`` one.

    >>> verdict(300, 302), verdict(2400, 2500), verdict((1.5, 2), 1.98), verdict(3, 0.064), verdict(5, None)
    ('agrees', 'rounded', 'agrees', 'differs', 'premise')
    """
    if isinstance(value, tuple) and len(value) == 2:
        lo, hi = (_check.check_value("value", v, "nonnegative") for v in value)
    else:
        lo = hi = _check.check_value("value", value, "nonnegative")
    if np.ndim(lo) or np.ndim(hi):
        raise ValueError(f"value must be a number or a (low, high) pair; got {_check.short(value)}")
    if computed is None:
        return PREMISE
    computed = _check.check_value("computed", computed, "nonnegative")
    if np.ndim(computed):
        raise ValueError(f"computed must be one number or None; got {_check.short(computed)}")
    if lo * (1 - AGREE_WITHIN) <= computed <= hi * (1 + AGREE_WITHIN):
        return AGREES
    if lo * (1 - ROUND_WITHIN) <= computed <= hi * (1 + ROUND_WITHIN):
        return ROUNDED
    return DIFFERS


def _premise(why):
    return Check(None, why)


def _lecture(chapter, key):
    v = lecture.CHAPTERS[chapter][key].value
    return math.sqrt(v[0] * v[1]) if isinstance(v, tuple) else v


def _checks():
    """Every claim's check, keyed ``(chapter, key)``. Computed here, from the registries and equations."""
    c = {}
    gb200, h100, a100, b200 = (hardware.get(n) for n in ("GB200", "H100", "A100", "B200"))
    v3, lec_model, llama70 = (models.get(n) for n in ("DeepSeek-V3", "DeepSeek (lecture)", "Llama 3.1 70B"))
    board = Deployment(lec_model, gb200, precision="fp4")
    ratio = board.ratio()
    months2_s = 60 * 86_400  # the lecture's two months as 60 days, as chapter 5 reads them (2.6e15 tokens)

    # chapter 1
    fast = prices.get("Anthropic", "claude-opus-4.6", "fast")
    c[1, "fast_mode_price"] = Check(prices.multiplier("Anthropic", "claude-opus-4.6", "fast"),
                                    "Anthropic's price list: Opus 4.6 fast mode output price over standard.")
    c[1, "fast_mode_speed"] = _premise("the vendor's own speed claim (" + fast.tier + " tier); no measurement "
                                       "in the library")
    c[1, "pay_more"] = _premise("Dwarkesh's question")
    c[1, "rack_gpus"] = Check(gb200.scaleup_domain, "GB200's scale-up domain in the hardware registry.")
    penalty = board.cost_per_token_usd(1, 256) / board.cost_per_token_usd(10 * board.balance_batch(256), 256)
    c[1, "unbatched_penalty"] = Check(
        float(penalty), "the lecture's deployment (700B, 37B active, FP4, 72 GB200s), 256 tokens of context: cost "
        "per token at batch 1 over at ten times the balance batch: the balance batch with the parameters' "
        "sparsity (700B over 37B), several thousand; the lecture's thousand is an order of magnitude.")
    c[1, "deepseek_active"] = Check(v3.active_params / 1e9, "DeepSeek-V3's activated parameters (its report).")
    c[1, "deepseek_total"] = Check(v3.total_params / 1e9, "DeepSeek-V3's total parameters (its report).")
    c[1, "balanced_context"] = _premise("Dwarkesh's hypothetical balance context")
    c[1, "doubled_context"] = _premise("Dwarkesh's hypothetical: twice the balance context")
    c[1, "mfu_at_doubled_context"] = Check(
        0.5, "at a large batch MFU is L*/L (chapter 1's limit of compute over the KV-bound step): 1/2 at twice "
        "the balance context.")
    c[1, "gpu_price"] = Check(gb200.tco_usd_per_hour, "GB200's total cost of ownership per GPU-hour in the "
                              "hardware registry (SemiAnalysis' model; its rental price is higher).")
    c[1, "fp4_bytes"] = Check(registry.PRECISIONS["fp4"], "FP4's bytes per weight.")
    c[1, "hardware_ratio"] = Check(ratio, "GB200 in FP4: multiplies per second (half the dense FP4 FLOPs) "
                                   "times half a byte, over HBM bandwidth.")
    c[1, "experts_active"] = _premise("the lecture's round DeepSeek (32 of 256); DeepSeek-V3 routes 8 of 256 "
                                      "plus a shared expert")
    c[1, "experts_total"] = Check(v3.routed_experts, "DeepSeek-V3's routed experts.")
    c[1, "expert_sparsity"] = Check(_lecture(1, "experts_total") / _lecture(1, "experts_active"),
                                    "256 / 32, the lecture's own experts.")
    lecture_sparsity = _lecture(1, "experts_total") / _lecture(1, "experts_active")
    c[1, "balance_batch"] = Check(ratio * lecture_sparsity, "GB200's FP4 ratio times the lecture's sparsity, 8 "
                                  "(experts). With the parameters' sparsity, 700B over 37B, the library's "
                                  "balance batch is 2.4 times larger.")
    c[1, "headroom"] = _premise("a rule of thumb: run above the balance batch")
    c[1, "practical_batch"] = Check(ratio * lecture_sparsity, "Dwarkesh's two to three thousand brackets the "
                                    "balance batch itself.")
    c[1, "batch_sequences"] = _premise("the lecture's round batch")
    c[1, "train_period"] = _premise("the lecture's round period of a batch train")
    c[1, "worst_latency"] = Check(2 * _lecture(1, "train_period"), "wait one period, ride one: 2 x 20 ms.")
    rubin = hardware.get("Rubin")
    c[1, "rubin_hbm"] = Check(rubin.hbm_bytes_headline / 1e9, "Rubin's HBM capacity in the hardware registry.")
    c[1, "rubin_hbm_bw"] = Check(rubin.hbm_bw / 1e12, "Rubin's HBM bandwidth in the hardware registry.")
    rubin_drain_ms = 1e3 * decode.drain_time_s(hbm_bytes=_lecture(1, "rubin_hbm") * 1e9,
                                               mem_bw=_lecture(1, "rubin_hbm_bw") * 1e12)
    c[1, "rubin_drain"] = Check(rubin_drain_ms, "288 GB over 20 TB/s (decode.drain_time_s), in ms.")
    c[1, "double_read_period"] = Check(2 * rubin_drain_ms, "two reads of Rubin's HBM: 2 x 14.4 ms.")
    c[1, "steps_per_second"] = Check(1e3 / rubin_drain_ms, "one step per read of Rubin's HBM: 1,000 / 14.4 ms.")
    c[1, "throughput"] = Check(_lecture(1, "batch_sequences") * _lecture(1, "steps_per_second"),
                               "2,000 sequences x 64 steps a second.")
    c[1, "gemini_traffic"] = _premise("a guess at Google's traffic; the library holds no measurement of it")
    c[1, "gemini_traffic_guess"] = _premise("a guess at Google's traffic; the library holds no measurement of it")
    c[1, "deployment_share"] = Check(_lecture(1, "throughput") / lecture.CH1["gemini_traffic"].value[0],
                                     "128,000 tokens/s over 100M tokens/s, the low end of the lecture's "
                                     "hundreds of millions.")
    c[1, "moe_experts"] = _premise("the scaling-law paper's configuration, as the lecture quotes it")
    c[1, "moe_active"] = _premise("the scaling-law paper's configuration, as the lecture quotes it")
    c[1, "moe_dense_equivalent"] = _premise("the scaling-law paper's result, as the lecture quotes it")
    c[1, "moe_total_gain"] = Check(_lecture(1, "moe_experts"), "64 experts: 64 x the parameters.")
    c[1, "moe_active_gain"] = Check(_lecture(1, "moe_dense_equivalent") * 1e3 / _lecture(1, "moe_active"),
                                    "1.3B dense equivalent over 370M active.")

    # chapter 2
    c[2, "routed_fraction"] = Check(v3.active_routed_experts / v3.routed_experts,
                                    "DeepSeek-V3's 8 routed of 256.")
    c[2, "experts"] = Check(v3.routed_experts, "DeepSeek-V3's routed experts.")
    c[2, "rack_gpus"] = Check(gb200.scaleup_domain, "GB200's scale-up domain.")
    ep = moe.ep_chips(v3.routed_experts, gb200.scaleup_domain)
    c[2, "used_gpus"] = Check(ep, "the most GPUs of a 72-GPU domain that 256 experts divide evenly over.")
    c[2, "experts_per_gpu"] = Check(v3.routed_experts / ep, "256 experts over 64 GPUs.")
    c[2, "experts_per_gpu_drawn"] = _premise("the board's drawing, smaller than the real layout")
    c[2, "rack_xpus"] = Check(ep, "the GPUs an expert layer uses in one rack.")
    c[2, "hops"] = _premise("dispatch and combine: two all-to-alls per MoE layer, by construction")
    network = gb200.scaleup_bw / gb200.scaleout_bw
    c[2, "network_ratio"] = Check(network, "GB200's NVLink (900 GB/s a direction) over its 400 Gb/s NIC per GPU "
                                  "(50 GB/s): the datasheets give 18, the lecture's 8 is a round premise.")
    c[2, "cross_rack_share"] = Check(1 - 1 / 2, "experts over two racks: half the tokens' experts are in the "
                                     "other rack.")
    c[2, "domain_hopper"] = Check(h100.scaleup_domain, "H100's NVLink domain (an HGX node).")
    c[2, "domain_blackwell"] = Check(gb200.scaleup_domain, "GB200's NVL72 domain.")
    c[2, "domain_rubin"] = _premise("Rubin Ultra's NVL576 (576 dies), announced, not in the hardware "
                                    "registry, whose Rubin row is the 72-package NVL144")
    c[2, "domain_from"] = Check(ep, "the 64 GPUs of an NVL72 an expert layer uses.")
    c[2, "genuine_gain"] = Check(144 * 4 / (gb200.scaleup_domain * 2), "NVIDIA's announced NVL576: 144 "
                                 "packages of 4 dies, against NVL72's 72 of 2: 4x in dies, 2x in packages.")
    c[2, "trays_per_side"] = _premise("the board's sketch of a rack")
    c[2, "cables_per_tray"] = _premise("the board's sketch of a rack")
    c[2, "gpt4_params"] = _premise("a reported size; no published figure in the library")
    c[2, "big_model"] = _premise("a hypothetical model")
    c[2, "hopper_domain_memory"] = Check(h100.scaleup_domain * h100.hbm_bytes_headline / 1e9,
                                         "8 H100s of 80 GB (the headline capacity).")
    c[2, "blackwell_domain_memory"] = Check(gb200.scaleup_domain * gb200.hbm_bytes_headline / 1e12,
                                            "72 GB200s of 186 GB (the headline capacity).")

    # chapter 3
    c[3, "more_layers"] = _premise("a round count of layers")
    c[3, "network_ratio"] = Check(network, c[2, "network_ratio"].basis)
    for key in ("experts_high", "experts_mid", "experts_low"):
        c[3, key] = _premise("a choice of activated experts to argue with")
    c[3, "up_and_down"] = _premise("dispatch and combine, by construction")
    g = ep
    c[3, "cut_product"] = Check(network / (1 - 1 / g), "2 K l_s at which a cut costs as much as the stage's "
                                "all-to-alls on 64 GB200s, with the datasheets' 18x rather than the lecture's 8x.")
    c[3, "racks"] = _premise("a four-rack pipeline to draw")
    c[3, "naive_idle"] = Check(1 - 1 / _lecture(3, "racks"), "one batch at a time over four racks: each rack "
                               "works one slot in four.")
    c[3, "model_share"] = Check(1 / _lecture(3, "racks"), "a quarter of the layers per rack.")
    c[3, "trillion_model_tb"] = Check(1e12 * registry.PRECISIONS["fp8"] / 1e12, "a trillion parameters at one "
                                      "byte (FP8).")
    c[3, "weight_racks"] = _premise("a hypothetical spread of the weights")

    # chapter 4
    c[4, "phone_volume_drop"] = _premise("a market figure; the library holds none")
    c[4, "capex_memory_share"] = _premise("a market figure; the library holds none")
    c[4, "expert_extent"] = Check(ep, "the 64 GPUs of a rack an expert layer uses.")
    c[4, "pipeline_extent"] = _premise("a four-stage pipeline to argue with")
    c[4, "micro_batches"] = Check(_lecture(4, "pipeline_extent"), "P stages need P micro-batches in flight.")
    c[4, "enough_stages"] = _premise("a judgement; chapter 4 shows the weights per GPU against the stages")
    c[4, "deepseek_stages"] = _premise("Reiner's account of DeepSeek's serving; DeepSeek publishes expert "
                                       "parallelism across nodes (EP32 to EP320), not its pipeline depth")
    fit = measured.fit_link("scale-out")
    d64 = Deployment(v3, gb200, precision="fp4", n_chips=64)
    hop = d64.evaluate(pipeline.hop_time_s, batch=8192, hop_latency=fit.alpha_s, scaleout_bw=fit.beta_bytes_per_s)
    c[4, "hop_ms"] = Check(hop * 1e3, "one hop calibrated on DeepEP's measured InfiniBand all-to-alls (intercept "
                           f"{fit.alpha_s * 1e6:.0f} us, {fit.beta_bytes_per_s / 1e9:.1f} GB/s), 8,192 "
                           "sequences of DeepSeek-V3 over 64 GB200s: tens of microseconds of network time. The engine's own "
                           "overheads are not modelled, and the lecture gives its few milliseconds as good to an order "
                           "of magnitude.")
    c[4, "realistic_stages"] = _premise("a four-stage pipeline to argue with")
    stages = _lecture(4, "realistic_stages")
    c[4, "added_latency_ms"] = Check(stages * hop * 1e3, "four calibrated hops.")
    c[4, "step_before_ms"] = _premise("the lecture's round step")
    c[4, "step_after_ms"] = Check(_lecture(4, "step_before_ms") + stages * hop * 1e3,
                                  "20 ms plus four calibrated hops.")
    c[4, "bw_growth_per_gen"] = Check(math.sqrt(b200.hbm_bw / a100.hbm_bw), "HBM bandwidth per GPU, A100 to "
                                      "B200 over two generations, per generation.")
    c[4, "scaleup_growth"] = Check(gb200.scaleup_domain / h100.scaleup_domain, "GB200's domain over H100's.")

    # chapter 5
    c[5, "flops_pretrain"] = Check(training.PRETRAIN_FLOPS_PER_PARAM, "forward 2 plus backward 4 per parameter "
                                   "per token.")
    c[5, "flops_forward"] = Check(training.FORWARD_FLOPS_PER_PARAM, "a multiply-add per parameter per token.")
    c[5, "flops_rl"] = _premise("a range between forward-only and full training passes")
    c[5, "split"] = _premise("a hypothetical split of compute")
    c[5, "split_alt"] = _premise("Dwarkesh's alternative split")
    c[5, "inefficiency"] = _premise("a guess at decode MFU relative to training")
    for key in ("alpha_first", "beta_first", "alpha_bumped", "alpha_final", "beta_final"):
        c[5, key] = _premise("the board's sizing of the cost model, revised in the lecture")
    c[5, "traffic_all"] = _premise("a guess at a lab's traffic")
    c[5, "deploy_months"] = _premise("a guess at a model's serving life")
    c[5, "tokens_all"] = Check(_lecture(5, "traffic_all") * months2_s, "500M tokens/s for two months.")
    c[5, "family_split"] = _premise("a guess at the models sharing the traffic")
    c[5, "traffic_model"] = Check(_lecture(5, "traffic_all") / lecture.CH5["family_split"].value[1],
                                  "500M tokens/s over ten models.")
    c[5, "tokens_inf"] = Check(_lecture(5, "traffic_model") * months2_s, "50M tokens/s for two months (the "
                               "lecture says around two hundred trillion).")
    c[5, "rumoured_pretrain"] = _premise("a rumoured figure; no published one in the library")
    c[5, "n_active"] = _premise("a round frontier model")
    c[5, "chinchilla_ratio"] = Check(training.CHINCHILLA_RULE, "Chinchilla's rule of thumb, tokens per "
                                     "parameter.")
    c[5, "chinchilla_tokens"] = Check(training.CHINCHILLA_RULE * _lecture(5, "n_active"),
                                      "20 tokens per parameter x 100B.")
    c[5, "overtraining"] = Check(_lecture(5, "traffic_model") * months2_s
                                 / (training.CHINCHILLA_RULE * _lecture(5, "n_active")),
                                 "two months of 50M tokens/s over Chinchilla's 2T tokens: the lecture rounds "
                                 "the 259T tokens to 200T first (and states a 50% error bar).")
    c[5, "error_bar"] = _premise("the lecture's own error bar")

    # chapter 6
    gem_lo = prices.get("Google", "gemini-2.5-pro", context="prompt<=200k")
    gem_hi = prices.get("Google", "gemini-2.5-pro", context="prompt>200k")
    c[6, "long_context_premium"] = Check(gem_hi.output_usd_per_mtok / gem_lo.output_usd_per_mtok - 1,
                                         "Gemini 2.5 Pro's output price above 200K tokens over below (its input "
                                         "price doubles).")
    c[6, "price_step_tokens"] = Check(200_000, "Gemini 2.5 Pro's price list steps at a 200K-token prompt.")
    gb_fp8 = Deployment(lec_model, gb200, precision="fp8")
    c[6, "ratio_inverse"] = Check(1 / gb_fp8.ratio(), "GB200's bytes per multiply at FP8.")
    c[6, "n_active"] = _premise("a round frontier model")
    c[6, "kv_bytes_implied"] = Check(_lecture(6, "n_active") / (gb_fp8.ratio() * _lecture(6, "price_step_tokens")),
                                     "KV bytes per token that balance 100B active FP8 weights at 200K tokens "
                                     "on GB200.")
    c[6, "head_dim"] = Check(llama70.head_dim, "Llama 3.1 70B's head dimension.")
    c[6, "kv_heads_range"] = Check(llama70.n_kv_heads, "Llama 3.1 70B's KV heads.")
    c[6, "kv_heads"] = Check(llama70.n_kv_heads, "Llama 3.1 70B's KV heads.")
    c[6, "unique_kv_layers"] = _premise("a hypothetical: one layer with its own cache")
    c[6, "output_input_dwarkesh"] = _premise("Dwarkesh's recollection, corrected in the lecture")
    anthropic = prices.get("Anthropic", "claude-opus-4.6")
    out_in = anthropic.output_usd_per_mtok / anthropic.input_usd_per_mtok
    c[6, "output_input_range"] = Check(out_in, "Anthropic's Opus 4.6: output over input price.")
    c[6, "output_input"] = Check(out_in, "Anthropic's Opus 4.6: output over input price.")
    c[6, "decode_compute"] = _premise("a relative time to argue with")
    c[6, "decode_memory"] = _premise("a relative time to argue with")
    c[6, "cache_hit_discount"] = Check(anthropic.input_usd_per_mtok / anthropic.cached_input_usd_per_mtok,
                                       "Anthropic's Opus 4.6: input over cache-read price.")
    c[6, "quadratic_tokens"] = _premise("an order of magnitude; chapter 6 computes where attention FLOPs "
                                        "overtake the weights' for each model")
    c[6, "dario_context"] = _premise("a hoped-for context length")
    c[6, "context_before"] = _premise("a recollection of GPT-3-era context")
    windows = [models.get(n).context_tokens for n in models.names() if models.get(n).context_tokens]
    c[6, "context_plateau"] = Check(statistics.median(windows), "the median of the registry models' "
                                    "published context windows.")
    c[6, "base_input_usd"] = Check(anthropic.input_usd_per_mtok, "Anthropic's Opus 4.6 input price.")
    c[6, "write_5min_usd"] = Check(anthropic.cache_write_usd_per_mtok, "Anthropic's Opus 4.6 five-minute cache "
                                   "write price.")
    c[6, "short_cache_s"] = Check(300, "Anthropic's default cache lifetime, five minutes.")
    c[6, "long_cache_s"] = Check(3600, "Anthropic's extended cache lifetime, one hour.")
    c[6, "drain_hbm_s"] = Check(decode.drain_time_s(hbm_bytes=gb200.hbm_bytes, mem_bw=gb200.hbm_bw),
                                "GB200: its HBM over its HBM bandwidth.")
    c[6, "drain_ddr_s"] = Check(decode.drain_time_s(hbm_bytes=gb200.ddr_bytes, mem_bw=gb200.ddr_bw),
                                "GB200: its share of Grace's LPDDR over its bandwidth.")
    c[6, "drain_flash_s"] = _premise("the library holds no flash tier with both capacity and bandwidth")
    c[6, "drain_disk_s"] = _premise("the library holds no disk tier")
    c[6, "device_share"] = _premise("a guess at the device share a cache may take")

    # chapter 7
    c[7, "field_elements"] = Check(2, "GF(2): the bits 0 and 1.")
    c[7, "scrutiny_years"] = _premise("a judgement of cryptographers' practice")
    c[7, "broken_share"] = _premise("a judgement of cryptographers' practice")
    c[7, "revnet_year"] = Check(2017, "Gomez et al., The Reversible Residual Network, NeurIPS 2017.")
    c[7, "example_layers"] = _premise("a small network to draw")
    return c


def rows():
    """Every claim of every chapter as a :class:`Row`, in the lecture's order.

    Raises ``ValueError`` naming a claim that has no check (a claim added to :mod:`roofline.lecture` must
    be checked here too)."""
    checks = _checks()
    out = []
    for chapter, claims in lecture.CHAPTERS.items():
        for key, claim in claims.items():
            if (chapter, key) not in checks:
                raise ValueError(f"claim {key!r} of chapter {chapter} has no check in roofline.ledger")
            ch = checks[chapter, key]
            computed = None if ch.computed is None else float(ch.computed)
            out.append(Row(chapter, key, claim, computed, ch.basis, verdict(claim.value, computed)))
    return out


def summary(ledger=None):
    """How many claims of each chapter get each verdict: ``{chapter: {verdict: n}}``."""
    out = {}
    if ledger is not None and (not isinstance(ledger, (list, tuple)) or not all(isinstance(r, Row) for r in ledger)):
        raise ValueError(f"ledger must be a list of ledger Rows (see rows()) or None; got {_check.short(ledger)}")
    for r in ledger if ledger is not None else rows():
        out.setdefault(r.chapter, dict.fromkeys(VERDICTS, 0))[r.verdict] += 1
    return out
