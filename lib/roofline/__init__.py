"""roofline: the lecture's roofline model of LLM serving, one equation at a time.

Modules
-------
symbols     the lecture's symbols with units
decode      the decode-step equations (sympy) and numeric functions generated from them
hardware    accelerator registry with sources
models      model registry; KV bytes per token from the architecture
hf          build a Model from a local Hugging Face ``config.json``
deployment  a model on hardware: the equations with every input but batch and context filled in
lecture     the numbers the lecture states, each once, with its timestamp and words
prices      API list prices (USD per million tokens) with sources; tier multipliers
measured    published decode throughput with its setup, set against the roofline
check       self-check helper for exercises
"""

from . import check, decode, deployment, hardware, hf, lecture, measured, models, prices, symbols
from .deployment import Deployment

__all__ = ["Deployment", "check", "decode", "deployment", "hardware", "hf", "lecture", "measured", "models", "prices", "symbols"]
__version__ = "0.1.0"
