"""The numbers the lecture states, each kept once with its timestamp and words.

Every figure that Reiner Pope or Dwarkesh Patel says aloud and that the book
quotes lives here, so a chapter computes with it and cites it instead of typing
it. A :class:`Claim` keeps the value **in the unit it was said in** (20 ms,
288 GB, 37 billion parameters), the unit, the timestamp in the episode
(``hh:mm:ss``, or a range ``hh:mm:ss–hh:mm:ss`` where the figure is built up
over several sentences) and a short quote or paraphrase. Convert units where
you compute, e.g. ``CH1["rubin_hbm_bw"].value * 1e12`` for bytes per second.

A value is a number, or a ``(low, high)`` pair where the lecture gives a range
("double or triple", "hundreds of millions"). Some values are implied rather
than spoken (the balance batch 2,400 is the "300 times sparsity" rule at
sparsity 8); the quote says so.

Timestamps follow ``shared/lecture/notes.md`` (tables 1(a) and 1(b)), which
takes them from a line-by-line timestamped copy of the transcript.

Chapters are dictionaries keyed by a short name: ``CH1`` for chapter 1
(00:00:00–00:32:09); ``CHAPTERS`` maps chapter numbers to them.

>>> c = CH1["hardware_ratio"]
>>> print(f"{c.value:g} ({c.unit}) at {c.timestamp}: {c.said}")
300 (dimensionless: (multiplies/s x bytes per weight) / (bytes/s)) at 00:18:32: "on most GPUs, this ends up being somewhere around 300"
>>> CH1["expert_sparsity"].value == CH1["experts_total"].value / CH1["experts_active"].value
True
"""

import dataclasses

from . import _check


@dataclasses.dataclass(frozen=True)
class Claim:
    """One number as the lecture states it."""

    value: float | tuple[float, float]  # in ``unit``; a (low, high) pair for a stated range
    unit: str                           # the unit it was said in
    timestamp: str                      # hh:mm:ss in the episode, or hh:mm:ss–hh:mm:ss
    said: str                           # short quote (in quotation marks) or paraphrase, with the speaker if not Reiner

    def __post_init__(self):
        _check.record(self)  # every field's type


# Chapter 1: how batch size affects token cost and speed (00:00:00–00:32:09).
CH1 = {
    # The opening questions (Dwarkesh)
    "fast_mode_price": Claim(6, "x the standard price", "00:01:01",
                             'Dwarkesh: Fast Mode, "for 6x the price"'),
    "fast_mode_speed": Claim(2.5, "x the speed", "00:01:01",
                             'Dwarkesh: "they\'ll stream you tokens at 2.5x the speed"'),
    "pay_more": Claim(100, "x the price", "00:01:19",
                      'Dwarkesh: "Could you pay 100x more and somehow get much faster speeds?"'),
    # The setup
    "rack_gpus": Claim(72, "GPUs", "00:02:10", '"Blackwell NVL72 cluster, so a rack of 72 GPUs"'),
    "unbatched_penalty": Claim(1000, "x the cost", "00:04:23",
                               'without batching, the economics "can be a thousand times worse"'),
    "deepseek_active": Claim(37, "billion parameters", "00:04:40", '"about 37 billion active parameters"'),
    "deepseek_total": Claim(700, "billion parameters", "00:04:40", '"and 700 billion total parameters"'),
    # Context length and MFU (Dwarkesh asks, Reiner agrees at 00:12:02)
    "balanced_context": Claim(100_000, "tokens", "00:11:40",
                              'Dwarkesh: "suppose the optimal is 100K context length"'),
    "doubled_context": Claim(200_000, "tokens", "00:11:40", 'Dwarkesh: "and you go to 200K context length"'),
    "mfu_at_doubled_context": Claim(0.5, "MFU", "00:11:40",
                                    'Dwarkesh: "Does your MFU go down to 50%?"; Reiner: '
                                    '"That is true as modeled here"'),
    # Cost
    "gpu_price": Claim(2, "USD per GPU-hour", "00:12:59", '"$2/hour per GPU or something like that"'),
    # The balance batch
    "fp4_bytes": Claim(0.5, "byte per weight", "00:18:09", '"each FP4 is half a byte"'),
    "hardware_ratio": Claim(300, "dimensionless: (multiplies/s x bytes per weight) / (bytes/s)", "00:18:32",
                            '"on most GPUs, this ends up being somewhere around 300"'),
    "experts_active": Claim(32, "experts", "00:19:16", '"in DeepSeek I activate 32 out of 256 experts"'),
    "experts_total": Claim(256, "experts", "00:19:16", '"in DeepSeek I activate 32 out of 256 experts"'),
    "expert_sparsity": Claim(8, "total / active", "00:19:16", '"so this would be 8 for DeepSeek"'),
    "balance_batch": Claim(2400, "sequences", "00:19:27",
                           'implied: "300 times sparsity" at sparsity 8, "a ballpark which is remarkably '
                           'accurate to practice"'),
    "headroom": Claim((2, 3), "x the balance batch", "00:19:31–00:19:41",
                      'people "go a little bit larger": "take this and maybe double or triple it"'),
    "practical_batch": Claim((2000, 3000), "sequences", "00:19:44",
                             'Dwarkesh: "two to three thousand tokens per batch"'),
    "batch_sequences": Claim(2000, "sequences", "00:20:24", '"It\'s actually 2,000 unique sequences"'),
    # The train schedule
    "train_period": Claim(20, "ms", "00:22:30",
                          '"20 milliseconds, which is a common place this ends up landing"'),
    "worst_latency": Claim(40, "ms", "00:23:25", '"So the worst-case latency is 40 milliseconds"'),
    "rubin_hbm": Claim(288, "GB", "00:24:13", 'Rubin: "something like 288 gigabytes"'),
    "rubin_hbm_bw": Claim(20, "TB/s", "00:24:13", '"divided by 20 terabytes per second"'),
    "rubin_drain": Claim(15, "ms", "00:24:13–00:24:32", '"This comes out to about 15 milliseconds"'),
    "double_read_period": Claim(30, "ms", "00:25:09", '"In around 30 milliseconds, I can read all of HBM twice"'),
    # What one deployment serves
    "steps_per_second": Claim(64, "steps per second", "00:26:48", '"batch size times about 60, so 64 x B"'),
    "throughput": Claim(128_000, "tokens/s", "00:26:48–00:27:09",
                        '"around 2,000 x 64, so 128,000 tokens per second"'),
    "gemini_traffic": Claim((1e8, 1e9), "tokens/s", "00:27:28",
                            'Gemini announcements: "hundreds of millions of tokens per second worldwide"'),
    "gemini_traffic_guess": Claim(5e8, "tokens/s", "01:29:49",
                                  '"Maybe it\'s five hundred million tokens a second now"'),
    "deployment_share": Claim(1 / 1000, "of Gemini's traffic", "00:27:34–00:27:49",
                              '"This is one-thousandth of that"'),
    # How far can sparsity go (Unified Scaling Laws for Routed Language Models)
    "moe_experts": Claim(64, "experts", "00:29:37", '"the 64-expert 370-million activated parameter model"'),
    "moe_active": Claim(370, "million parameters", "00:29:37",
                        '"the 64-expert 370-million activated parameter model"'),
    "moe_dense_equivalent": Claim(1.3, "billion parameters", "00:29:37", '"is as good as a dense 1.3-billion model"'),
    "moe_total_gain": Claim(64, "x total parameters", "00:30:11", '"64x for 4x"'),
    "moe_active_gain": Claim(4, "x effective active parameters", "00:30:11", '"64x for 4x"'),
}

# Chapter 2: how MoE models are laid out across GPU racks (00:32:09–00:47:12).
CH2 = {
    "routed_fraction": Claim(1 / 32, "of the experts", "00:32:38", 'the router picks "a small fraction of them, '
                             'maybe 1 in 32"'),
    "experts": Claim(256, "experts", "00:33:54", "DeepSeek's 256 experts per layer"),
    "rack_gpus": Claim(72, "GPUs", "00:34:00", "a Blackwell rack of 72 GPUs"),
    "used_gpus": Claim(64, "GPUs", "00:34:10", '"we\'re only going to use 64 of them. Just ignore the other eight"'),
    "experts_per_gpu": Claim(4, "experts per GPU", "00:34:18", '"So we have four experts per GPU"'),
    "experts_per_gpu_drawn": Claim(2, "experts per GPU", "00:34:25", '"let\'s just say we have two experts per GPU"'),
    "rack_xpus": Claim(64, "GPUs or XPUs per rack", "00:37:20", '"which is typically about 64"'),
    "hops": Claim(2, "hops", "00:38:35", '"in just two hops: going to the switch, going to the other GPU"'),
    "network_ratio": Claim(8, "x (scale-up over scale-out bandwidth)", "00:38:47–00:39:35",
                           '"it tends to be about 8x slower in bandwidth"'),
    "cross_rack_share": Claim(0.5, "of the tokens", "00:39:39–00:40:10",
                              '"half the tokens are going to want to leave the rack"'),
    "domain_hopper": Claim(8, "GPUs", "00:40:47", 'Dwarkesh: "Hopper, which was 8"'),
    "domain_blackwell": Claim(72, "GPUs", "00:40:47", 'Dwarkesh: "then Blackwell is 72"'),
    "domain_rubin": Claim(500, "GPUs (\"500 and something\")", "00:40:55", '"Yeah, 500 and something"'),
    "domain_from": Claim(64, "GPUs", "00:41:21", '"Switching from 64 to 500 or so"'),
    "genuine_gain": Claim(4, "x", "00:41:21–00:41:38", '"there is at least a genuine 4x increase"'),
    "trays_per_side": Claim(2, "trays", "00:42:04", '"two trays of GPUs on each side"'),
    "cables_per_tray": Claim(2, "cables", "00:42:04", '"each tray wants to have two cables coming out of it"'),
    "gpt4_params": Claim(1, "trillion parameters (more than)", "00:44:53",
                         'Dwarkesh: GPT-4 "was rumored to be over one trillion parameters"'),
    "big_model": Claim(5, "trillion parameters", "00:45:11", 'Dwarkesh: "a five-trillion parameter model"'),
    "hopper_domain_memory": Claim(640, "GB", "00:45:30", 'Dwarkesh: "eight Hoppers, and I think that\'s 640 '
                                  'gigabytes"'),
    "blackwell_domain_memory": Claim((10, 20), "TB", "00:45:44", 'Dwarkesh: "a scale-up on the order of 10-20 '
                                     'terabytes, which is enough for a 5T model plus KV cache"'),
}

# Chapter 3: how pipeline parallelism moves model layers across racks (00:47:12–01:03:37).
CH3 = {
    "more_layers": Claim(100, "layers", "00:48:34", '"I\'m going to have a hundred more layers up above"'),
    "network_ratio": Claim(8, "x (scale-up over scale-out)", "00:51:09", '"scale-up is 8x faster than scale-out '
                           'generally"'),
    "experts_high": Claim(32, "activated experts", "00:51:34", '"in the DeepSeek case maybe 32 experts or 16 '
                          'experts"'),
    "experts_mid": Claim(16, "activated experts", "00:51:34", '"maybe 32 experts or 16 experts"'),
    "experts_low": Claim(8, "activated experts", "00:52:53", '"It could be 8 by itself"'),
    "up_and_down": Claim(2, "x (dispatch and combine)", "00:52:19", 'Dwarkesh: "multiply the whole thing by two"; '
                         '"For the up and down. Yes"'),
    "cut_product": Claim(8, "(2 x experts x layers at least)", "00:52:38–00:52:46",
                         '"we need the product of these three things to be bigger than 8"'),
    "racks": Claim(4, "racks", "00:57:07", "the pipeline diagram's four racks"),
    "naive_idle": Claim(0.75, "of the time idle", "00:57:34", '"three-quarters of the time each of the racks is '
                        'doing nothing"'),
    "model_share": Claim(0.25, "of the model per rack", "01:01:23", '"you only need a quarter of the model"'),
    "trillion_model_tb": Claim(1, "TB for a trillion-parameter model", "01:01:44",
                               '"A trillion parameter model only needs one terabyte"'),
    "weight_racks": Claim(8, "racks", "01:02:22", '"I can fit the weights in eight racks"'),
}

# Chapter 4: why pipelining does not save KV memory, and why scale-up size matters (01:03:37–01:18:59).
CH4 = {
    "phone_volume_drop": Claim(0.30, "of smartphone volume", "01:03:36", 'Dwarkesh: "Smartphone volume will go down '
                               '30% because there\'s not enough memory"'),
    "capex_memory_share": Claim(0.50, "of hyperscaler CapEx", "01:03:41", 'Dwarkesh: Dylan said hyperscalers spend '
                                '"50% of their CapEx this year on memory"; Reiner: "That\'s believable"'),
    "expert_extent": Claim(64, "GPUs (E)", "01:05:42", "the expert-parallel extent in the example"),
    "pipeline_extent": Claim(4, "stages (P)", "01:06:01", "the pipeline extent in the example"),
    "micro_batches": Claim(4, "micro-batches", "01:08:55–01:09:57", 'micro-batches 0 to 3: "proof by visual"'),
    "enough_stages": Claim(2, "stages", "01:11:40", '"even two is often enough"'),
    "deepseek_stages": Claim(2, "stages at most", "01:12:54–01:13:12", 'DeepSeek: "very little pipelining. Maybe none '
                             'at all, maybe two"'),
    "hop_ms": Claim(3, "ms per rack hop (\"a few\")", "01:15:13", '"probably on the order of a few milliseconds, but '
                    'it could be off by an order of magnitude"'),
    "realistic_stages": Claim(4, "stages", "01:15:26", 'Dwarkesh: "Is 4 a realistic number"; Reiner: "Yes"'),
    "added_latency_ms": Claim(10, "ms per token", "01:15:34", 'Dwarkesh: "10 milliseconds per token"; Reiner: '
                              '"That\'s right"'),
    "step_before_ms": Claim(20, "ms", "01:15:46", '"If it goes from 20 to 30"'),
    "step_after_ms": Claim(30, "ms", "01:15:46", '"If it goes from 20 to 30"'),
    "bw_growth_per_gen": Claim((1.5, 2), "x per generation (HBM bandwidth per GPU)", "01:18:10",
                               '"It maybe increases 1.5 or 2x per generation"'),
    "scaleup_growth": Claim(8, "x (scale-up size since Hopper)", "01:18:14",
                            '"this one increased by a factor of 8 from Hopper"'),
}

# Chapter 7: convergent evolution between neural nets and cryptography (02:04:02–02:13:40).
CH7 = {
    "field_elements": Claim(2, "elements (GF(2))", "02:06:26–02:06:38", 'ciphers "run in the field of two '
                            'elements, so just binary", neural nets "in the field of real numbers"'),
    "scrutiny_years": Claim(10, "years", "02:08:02", "a new cipher without about 10 years of scrutiny is probably "
                            "broken (seated part, dropped from the edited transcript)"),
    "broken_share": Claim(0.99, "of new ciphers", "02:08:29", '"99% of them are broken"'),
    "revnet_year": Claim(2017, "year", "02:10:25", '"There\'s a 2017 paper called RevNets"'),
    "example_layers": Claim(4, "layers", "02:12:05–02:12:13", '"Let\'s say I have four layers and I run them in '
                            'zero, one, two, three order"'),
}

# Chapter 5: because of RL, models may be 100x over-trained beyond Chinchilla (01:18:59–01:33:02).
CH5 = {
    "flops_pretrain": Claim(6, "FLOP per parameter per token", "01:22:13", '"the famous 6ND formula"'),
    "flops_forward": Claim(2, "FLOP per parameter per token", "01:22:13–01:23:48", '"The inference cost is two"'),
    "flops_rl": Claim((2, 6), "FLOP per parameter per token", "01:23:28–01:23:46", '"Somewhere in the range of two to six"'),
    "split": Claim(1 / 3, "of compute to each of pre-training, RL, inference", "01:24:04–01:24:36",
                   '"a good ballpark is a 33% split between each of them"'),
    "split_alt": Claim(0.25, "of compute to pre-training (Dwarkesh's 50/50)", "01:24:04–01:24:36",
                       '"Thirty-three versus twenty-five is only a small factor off"'),
    "inefficiency": Claim(0.30, "decode MFU relative to training", "01:25:28–01:26:05",
                          '"an inefficiency term, which I would say is maybe in the range of 30%"'),
    "alpha_first": Claim(0.1, "(alpha, first sizing)", "01:25:28–01:26:05", '"So this alpha is going to be something like '
                         '1/10"'),
    "beta_first": Claim(0.1, "(beta, first sizing)", "01:25:28–01:26:05", '"It\'s one third times 30%. So it also equals '
                        '1/10"'),
    "alpha_bumped": Claim(0.2, "(alpha, bumped)", "01:26:05–01:26:20", '"we can make this 2/10"'),
    "alpha_final": Claim(1.5, "(alpha, corrected)", "01:27:15–01:27:47", '"This is like 1.5, and this is one"'),
    "beta_final": Claim(1, "(beta, corrected)", "01:27:15–01:27:47", '"This is like 1.5, and this is one"'),
    "traffic_all": Claim(500e6, "tokens/s (all models)", "01:29:49–01:29:56", '"Maybe it\'s five hundred million tokens a '
                         'second now, I don\'t really know"'),
    "deploy_months": Claim(2, "months", "01:29:58", '"A model is deployed for two months before it becomes '
                           'obsolete?"'),
    "tokens_all": Claim(2.6e15, "tokens", "01:30:08–01:30:15", 'Dwarkesh, typed into a computer: "2.6 x 10^15"'),
    "family_split": Claim((5, 10), "models per family (divide by)", "01:30:25–01:30:41", '"Let\'s make it 5x smaller or '
                          '10x smaller"'),
    "traffic_model": Claim(50e6, "tokens/s (one model)", "01:30:25–01:30:41", '"maybe fifty million tokens per second, per '
                           'specific model"'),
    "tokens_inf": Claim(200e12, "tokens", "01:30:46", '"This comes out to around two hundred trillion tokens"'),
    "rumoured_pretrain": Claim(150e12, "tokens", "01:31:01–01:31:12", 'Dwarkesh: "Somebody told me a hundred and fifty '
                               'trillion" (tokens; "not well-cited")'),
    "n_active": Claim(100e9, "active parameters", "01:31:17–01:31:31", '"in the range of a hundred billion, something like '
                      'that. Maybe a bit larger"'),
    "chinchilla_ratio": Claim(20, "tokens per parameter", "01:31:31–01:31:43", '"multiply by 20 to get the Chinchilla token '
                              'count"'),
    "chinchilla_tokens": Claim(2e12, "tokens", "01:31:31–01:31:43", '"Chinchilla ... would be around two trillion"'),
    "overtraining": Claim(100, "x Chinchilla's tokens", "01:31:43–01:32:12", '"Which is a factor of a hundred over-trained"'),
    "error_bar": Claim(0.5, "(fraction off)", "01:32:34", 'Dwarkesh: "Even if it\'s 50% off or something"'),
}

# Chapter 6: deducing long-context memory costs from API pricing (01:33:02–02:04:02).
CH6 = {
    "long_context_premium": Claim(0.5, "more above the threshold", "01:33:03–01:33:27", 'Dwarkesh: "Gemini 3.1 is '
                                  '50% more expensive if you go over 200k tokens"'),
    "price_step_tokens": Claim(200e3, "tokens", "01:33:03–01:33:27", 'Dwarkesh: "if you go over 200k tokens"'),
    "ratio_inverse": Claim(1 / 300, "(memory bandwidth over FLOPs)", "01:37:36–01:37:40", '"This is 1/300, which is '
                           'reasonably stable across many different hardware platforms"'),
    "n_active": Claim(100e9, "active parameters", "01:37:47–01:37:54", '"maybe the number of activated parameters '
                      'is a hundred billion"'),
    "kv_bytes_implied": Claim(1667, "bytes per token", "01:38:22", 'Dwarkesh: "1667. Almost two kilobytes"'),
    "head_dim": Claim(128, "(d_head)", "01:39:06–01:40:52", '"a d-head of 128, which is typical"'),
    "kv_heads_range": Claim((1, 8), "KV heads", "01:39:06–01:40:52", '"The number of KV heads is typically in the '
                            'range of 1 to 8"'),
    "kv_heads": Claim(8, "KV heads", "01:40:52", '"having 8 KV heads and a d-head of 128. That gives you exactly this '
                      'number"'),
    "unique_kv_layers": Claim(1, "layer with its own cache", "01:40:20", '"In the Character AI-like models, this '
                              'number is one"'),
    "output_input_dwarkesh": Claim(0.5, "more for output (Dwarkesh's memory)", "01:41:33", 'Dwarkesh: "I think last '
                                   'I checked it\'s 50% more expensive or something like that?"'),
    "output_input_range": Claim((3, 5), "x input price", "01:41:38", '"What I\'ve seen in the past is 3-5x more '
                                'expensive"'),
    "output_input": Claim(5, "x input price", "01:41:45", 'Dwarkesh: "So let\'s say it\'s 5x more expensive"'),
    "decode_compute": Claim(1, "(compute time at decode, relative)", "01:48:16", '"this would be at 1, and this would '
                            'be at 5"'),
    "decode_memory": Claim(5, "(memory time at decode, relative)", "01:48:16", '"this would be at 1, and this would '
                           'be at 5"'),
    "cache_hit_discount": Claim(10, "x cheaper (cache hit)", "01:48:52–01:49:13", 'Dwarkesh: "if you do hit a cache, '
                                'it\'s 10x"'),
    "quadratic_tokens": Claim(1e6, "tokens (attention FLOPs noticeable)", "01:52:15–01:52:18", '"You start to notice '
                              'the effect of the quadratic or the linear term up in the millions of tokens"'),
    "dario_context": Claim(100e6, "tokens", "01:53:01–01:53:33", 'Dwarkesh: "a hundred-million-token context length '
                           'to have an employee that is the equivalent of working with you for a month"'),
    "context_before": Claim(8e3, "tokens (GPT-3 era)", "01:53:46–01:54:08", '"they shot up from about 8K to '
                            '100-200K"'),
    "context_plateau": Claim((100e3, 200e3), "tokens", "01:53:46–01:54:08", '"they shot up from about 8K to '
                             '100-200K"'),
    "base_input_usd": Claim(5, "USD per million input tokens", "01:59:59–02:00:08", 'Dwarkesh: "The base input '
                            'tokens is $5 per million tokens"; Reiner: "Base, which means remat"'),
    "write_5min_usd": Claim(6.25, "USD per million tokens", "02:00:12–02:00:21", '"to write, presumably HBM, for '
                            'five minutes is 6.25"'),
    "short_cache_s": Claim(300, "s (five minutes)", "01:59:32–01:59:38", '"Five minutes versus one hour"'),
    "long_cache_s": Claim(3600, "s (one hour)", "02:00:35", '"Five minutes versus one hour"'),
    "drain_hbm_s": Claim(0.020, "s", "02:01:16", '"For HBM, we know that this number is 20 milliseconds"'),
    "drain_ddr_s": Claim((1, 10), "s", "02:01:25", '"this is probably on the order of seconds, like 1 to 10 '
                         'seconds"'),
    "drain_flash_s": Claim(60, "s", "02:01:40", '"flash is plausibly on the order of one minute"'),
    "drain_disk_s": Claim(3600, "s", "02:01:52", '"spinning disk, which is massively different, is on the order of '
                          'one hour"'),
    "device_share": Claim(0.10, "of the device", "02:02:27", '"Let\'s say I\'m using 10% of the device"'),
}

CHAPTERS = {1: CH1, 2: CH2, 3: CH3, 4: CH4, 5: CH5, 6: CH6, 7: CH7}
