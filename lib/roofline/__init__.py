"""roofline: the lecture's roofline model of LLM serving and training, one equation at a time.

Modules, lowest first (each imports only modules above it in this list)
------------------------------------------------------------------------
symbols     the symbol table: sympy symbol, keyword, unit, meaning, chapter
equations   an expression becomes a checked numeric function, registered once; variants
decode      chapter 1: the decode-step equations
moe         chapter 2: experts over the chips of a rack, the all-to-all, capacity bounds
pipeline    chapter 3: the cut condition, pipeline bubbles, inference through P stages
memory      chapter 4: weights and KV per GPU with pipelining; the token's hops
training    chapter 5: 6ND, RL and inference compute, Chinchilla's law, over-training
serving     chapter 6: KV bytes from a price step, prefill vs decode, cache tiers and drain times
prefill     chapter 8: a pass with causal attention and its cache written; prefill, chunks, pool shares
speculation chapter 8: speculative decoding's tokens a step, the verify pass's cost, the break-even batch
revnet      chapter 7: Feistel rounds and RevNet blocks; activation memory stored or recomputed
registry    one Registry class for the CSV tables; precisions
hardware    accelerator chips with memory and network tiers, with sources
models      model registry; experts and KV-cache bytes from the architecture
hf          build a Model from a local Hugging Face ``config.json``
lecture     the numbers the lecture states, each once, with its timestamp and words
prices      API list prices (USD per million tokens), one per row with date and source
deployment  a model on hardware: values by symbol; evaluates any registered equation
measured    published decode throughput and all-to-all times with their setups; links calibrated on them
moe_data    chapter 2's data: the all-to-all's links (floor or calibrated), bytes per value, racks in dies
scoreboard  every measurement beside the library's prediction of it (the scoreboard appendix)
figures     one module per chapter: draw_* helpers and live figures (matplotlib only)
notebook    helpers every chapter notebook uses (glue, claims, deploy, the Colab cell)
web         the published page's live figures: equations as JavaScript, registry data, controls
model_report  your model on your chip: every chapter's key numbers in one table (roofline.report)
check       self-check helper for exercises
"""

from . import (check, decode, deployment, equations, figures, hardware, hf, lecture, measured, memory, model_report,
               models, moe, notebook, pipeline, prefill, prices, registry, revnet, scoreboard, serving, speculation,
               symbols, training, web)
from .deployment import Deployment
from .model_report import report

__all__ = ["Deployment", "check", "decode", "deployment", "equations", "figures", "hardware", "hf", "lecture",
           "measured", "memory", "model_report", "models", "moe", "notebook", "pipeline", "prefill", "prices",
           "registry", "report", "revnet", "scoreboard", "serving", "speculation", "symbols", "training", "web"]
__version__ = "0.2.0"
