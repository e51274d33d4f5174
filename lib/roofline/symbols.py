"""The lecture's symbols, declared once, each with its unit.

Every equation in :mod:`roofline` is written with these symbols. ``UNITS`` and
``MEANINGS`` feed the book's notation page, so a symbol added here shows up
there without being retyped.
"""

import sympy as sp

# -- the decode step (chapter 1) ---------------------------------------------
B = sp.Symbol("B", positive=True)                          # sequences decoded together in one step
N_total = sp.Symbol("N_total", positive=True)              # parameters stored, all experts
N_active = sp.Symbol("N_active", positive=True)            # parameters used per token
bytes_per_param = sp.Symbol("b_w", positive=True)          # byte per stored weight (FP4: 0.5)
flops_per_mac = sp.Symbol("c_mac", positive=True)          # FLOP counted per multiply-add (datasheets: 2, lecture: 1)
flops = sp.Symbol("F", positive=True)                      # FLOP/s of one chip at the chosen precision
mem_bw = sp.Symbol("W", positive=True)                     # HBM bandwidth of one chip, byte/s
n_chips = sp.Symbol("G", positive=True)                    # chips sharing the work (one scale-up domain)
len_ctx = sp.Symbol("L", positive=True)                    # context length, tokens
kv_bytes = sp.Symbol("k", positive=True)                   # KV-cache bytes per token of context, byte
price = sp.Symbol("p", positive=True)                      # rental price, USD per chip-hour
hbm_bytes = sp.Symbol("M", positive=True)                  # HBM capacity of one chip, byte
t = sp.Symbol("t", positive=True)                          # time of one decode step, s

UNITS = {
    B: "sequences",
    N_total: "parameters",
    N_active: "parameters",
    bytes_per_param: "byte/parameter",
    flops_per_mac: "FLOP/multiply-add",
    flops: "FLOP/s per chip",
    mem_bw: "byte/s per chip",
    n_chips: "chips",
    len_ctx: "tokens",
    kv_bytes: "byte/token",
    price: "USD/(chip·h)",
    hbm_bytes: "byte per chip",
    t: "s",
}

MEANINGS = {
    B: "batch size: sequences that each get one new token per decode step",
    N_total: "total parameters, every expert included",
    N_active: "parameters one token passes through (active experts only)",
    bytes_per_param: "bytes of one stored weight (FP4 0.5, FP8 1, BF16 2)",
    flops_per_mac: "FLOPs counted per multiply-add (datasheets 2; the lecture counts multiplies, 1)",
    flops: "dense matrix throughput of one chip at the weight precision",
    mem_bw: "HBM bandwidth of one chip",
    n_chips: "chips that hold the model and share each step",
    len_ctx: "context length each sequence attends over",
    kv_bytes: "KV-cache bytes stored per token of context",
    price: "rental price of one chip for one hour",
    hbm_bytes: "HBM capacity of one chip",
    t: "wall time of one decode step",
}

ALL = tuple(UNITS)
