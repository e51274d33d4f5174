"""Your model, your hardware: every chapter's key results for one model on one chip, in one table.

:func:`report` takes a model (a local Hugging Face ``config.json``, read by
:func:`roofline.hf.from_hf_config`, or a :class:`~roofline.models.Model`) and a chip (a name of
:mod:`roofline.hardware`'s registry, a :class:`~roofline.hardware.Hardware`, or a chip file read by
:func:`load_chip`) and returns a :class:`Report`: each chapter's key numbers, computed by the same
library calls the chapter's notebook makes, with the defaults the chapter uses (context length,
batch, links, price per GPU-hour) named beside them. Printed, it is a table of at most 88 columns;
``python -m roofline report config.json --chip H100`` prints the same table from the shell.

========  ==================================================================================
Chapter   What the report gives, and the library call it comes from
========  ==================================================================================
setup     the parameters, the fewest chips whose HBM holds the weights, and the chips a replica
          takes (:func:`roofline.deployment.default_chips`: whole scale-up domains)
1         the decode balance batch (:meth:`~roofline.Deployment.balance_batch`), the context past
          which no batch balances (:meth:`~roofline.Deployment.balance_context`), the cost floor
          (:data:`roofline.decode.cost_floor_usd`) and the memory wall
          (:meth:`~roofline.Deployment.max_batch`) at chapter 1's context
2         the expert-parallel layout (:func:`roofline.moe.ep_chips`,
          :func:`roofline.moe.layout_chips`) and its all-to-all (:data:`roofline.moe.comm_time_s`)
          in one rack and across two, on calibrated links (:func:`roofline.moe_data.link_values`)
3         the MoE layers a cheap cut needs (:data:`roofline.pipeline.min_stage_layers`), the
          stages that fit (:data:`roofline.memory.stages_to_fit`), one hop
          (:data:`roofline.pipeline.hop_time_s`) and a token's loop through the stages
          (:data:`roofline.pipeline.loop_token_time_s`)
4         memory per GPU with those stages, weights against KV
          (:data:`roofline.memory.weights_per_gpu_bytes`, :data:`roofline.memory.kv_per_gpu_bytes`)
5         the compute-optimal and the serving-aware size for the quality the lecture's
          equal-cost heuristic reaches (:func:`roofline.training.compare`,
          :func:`roofline.training.optimal_for_loss`)
6         KV bytes per token and the long-context price step they imply
          (:meth:`~roofline.Deployment.balance_context`,
          :data:`roofline.serving.kv_bytes_at_crossover`)
========  ==================================================================================

A dense model's expert rows read "dense: no experts"; a chip without a figure a row needs (no
scale-out network, say) reads "n/a" with the reason. Every number is in SI units in
:attr:`Report.numbers` (None where it does not apply or is unbounded; the row's text says which).

>>> r = report(models.get("Llama 3.1 70B"), "H100", precision="fp8")
>>> r.numbers["ch1_balance_batch"] == Deployment(r.model, r.hardware, "fp8", price_usd_per_hour=2.0).balance_batch()
True
>>> r.numbers["ch2_ep_chips"] is None
True
"""

import dataclasses
import functools
import html
import json
import math
import numbers
import os
import pathlib
import textwrap

from . import _check, decode, hardware, hf, lecture, measured, memory, models, moe, moe_data, pipeline, registry
from . import serving, training
from .deployment import Deployment

WIDTH = 88
"""The widest line :meth:`Report.table` writes by default, in characters."""

CHAPTERS = {0: "Setup", 1: "Chapter 1: the decode batch", 2: "Chapter 2: experts over a rack",
            3: "Chapter 3: pipeline stages", 4: "Chapter 4: memory per GPU", 5: "Chapter 5: training for serving",
            6: "Chapter 6: API prices"}
"""The report's sections, by chapter number; section 0 is the model and the chip."""

DENSE = "dense: no experts"
"""What an expert row says for a dense model."""

MAX_CHIP_FILE_BYTES = 2**20
"""The largest chip file :func:`load_chip` reads (a chip row is a few hundred bytes)."""

CHIP_FIELDS = {
    "key": "the chip's name in the report (default: the file's name)",
    "name": "its full name (default: key)",
    "vendor": "who makes it", "unit": "gpu, chip or gpu_package (default: gpu)",
    "year": "first availability, a whole number",
    "flops_bf16": "dense BF16 FLOP/s per chip (a multiply-add is 2 FLOPs)",
    "flops_fp8": "dense FP8 FLOP/s per chip", "flops_fp4": "dense FP4 FLOP/s per chip",
    "flops_fp4_training": "dense FP4 training FLOP/s, where it differs",
    "hbm_bytes": "usable HBM per chip, bytes", "hbm_bytes_headline": "the vendor's headline HBM, bytes",
    "hbm_bw": "HBM bandwidth per chip, bytes/s",
    "scaleup_interconnect": "the scale-up network's name",
    "scaleup_domain": "chips in one scale-up domain (a node, a rack), a whole number",
    "scaleup_bw": "scale-up bandwidth per chip and direction, bytes/s",
    "scaleup_latency_s": "scale-up hop latency, s",
    "scaleout_interconnect": "the scale-out network's name",
    "scaleout_bw": "scale-out (NIC) bandwidth per chip and direction, bytes/s",
    "scaleout_latency_s": "scale-out hop latency, s",
    "ddr_bytes": "host memory per chip, bytes", "ddr_bw": "host memory bandwidth per chip, bytes/s",
    "flash_bytes": "local flash per chip, bytes", "flash_bw": "flash bandwidth per chip, bytes/s",
    "tdp_w": "power, W", "tco_usd_per_hour": "cost of ownership, USD per chip-hour",
    "price_usd_per_hour": "rental price, USD per chip-hour",
    "source": "where the numbers come from", "confidence": "high, medium or low (default: user)",
    "notes": "anything else",
}
"""The fields of a chip file, as :func:`load_chip` reads it, with what each holds (those of
:class:`~roofline.hardware.Hardware`)."""

CHIP_REQUIRED = ("hbm_bytes", "hbm_bw", "scaleup_domain")
"""The fields a chip file without ``base`` must give (and one of ``flops_bf16``, ``flops_fp8``, ``flops_fp4``)."""
_CHIP_TEXT = {"vendor": "", "unit": "gpu", "scaleup_interconnect": "", "scaleout_interconnect": "",
              "confidence": "user", "notes": ""}


# -- the chapters' defaults ------------------------------------------------------------------------------------
@functools.cache
def defaults():
    """The defaults the report takes from the chapters, by name: each chapter's live figure's starting controls
    and the lecture's numbers, so that a report and the chapter agree wherever the chapter chose a value.

    Returns
    -------
    dict
        ``ch1_context_tokens`` (chapter 1's board context), ``gpu_price_usd_per_hour`` (the lecture's
        $2), ``ch2_context_tokens``, ``ch2_links`` and ``ch2_layout`` (chapter 2's figure),
        ``ch2_dispatch`` and ``ch2_combine`` (its activations' precisions), ``ch4_micro_batch`` and
        ``ch4_context_tokens`` (chapter 4's figure, also used for chapter 3's stages),
        ``ch5_traffic_tokens_per_s``, ``ch5_months``, ``ch5_month_s``, ``ch5_decode_mfu`` and
        ``ch5_law`` (chapter 5's figure), and ``ch6_step_tokens`` (the price step the lecture discusses).
    """
    from .figures import decode as fdec
    from .figures import memory as fmem
    from .figures import moe as fmoe
    from .figures import training as ftr

    ch1, ch2, ch4, ch5 = (m.live().defaults for m in (fdec, fmoe, fmem, ftr))
    dispatch, combine = fmoe.LIVE_ACTIVATIONS
    return {
        "ch1_context_tokens": float(ch1["context"]),
        "gpu_price_usd_per_hour": float(lecture.CH1["gpu_price"].value),
        "ch2_context_tokens": float(ch2["context"]), "ch2_links": ch2["links"], "ch2_layout": ch2["layout"],
        "ch2_dispatch": dispatch, "ch2_combine": combine,
        "ch4_micro_batch": float(ch4["micro"]), "ch4_context_tokens": float(ch4["context"]),
        "ch5_traffic_tokens_per_s": float(ch5["traffic"]), "ch5_months": float(ch5["months"]),
        "ch5_month_s": float(ftr.MONTH), "ch5_decode_mfu": float(ch5["decode_mfu"]), "ch5_law": ch5["law_name"],
        "ch6_step_tokens": float(lecture.CH6["price_step_tokens"].value),
    }


# -- the report's rows -----------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Row:
    """One line of a :class:`Report`: a number, its key in :attr:`Report.numbers`, and how the table writes it.

    Parameters
    ----------
    key : str
        The number's name in :attr:`Report.numbers` and the JSON (``ch1_balance_batch``).
    chapter : int
        0 (the model and chip) to 6.
    label : str
        What the number is, as the table's left column writes it.
    value : float or None
        The number in SI units (sequences, seconds, bytes, USD per token), or None where the row does
        not apply (a dense model's experts) or the quantity is unbounded.
    text : str
        The number as the table's right column writes it, with its unit, or why there is none.
    """

    key: str
    chapter: int
    label: str
    value: float | None
    text: str

    def __post_init__(self):
        _check.record(self)
        if not self.key.isidentifier():
            raise ValueError(f"Row: key must be a name of letters, digits and underscores; got {self.key!r}")
        _check.whole("chapter", self.chapter, 0, max(CHAPTERS), where="Row")
        if self.value is not None:
            object.__setattr__(self, "value", _check.scalar("value", self.value, "nonnegative", "Row"))


@dataclasses.dataclass(frozen=True)
class Report:
    """Every chapter's key results for one model on one chip: what :func:`report` returns.

    ``print(r)`` writes the table (:meth:`table`); a notebook shows it as HTML; :attr:`numbers` holds
    the numbers by key and :meth:`to_dict` everything, ready for JSON.

    Parameters
    ----------
    model : roofline.models.Model
        The model reported on.
    hardware : roofline.hardware.Hardware
        The chip.
    precision : str
        The weights' precision ('fp4', 'fp8' or 'bf16').
    kv_precision : str
        The KV cache's precision.
    defaults : dict
        The defaults taken from the chapters and the lecture, by name (:func:`defaults`), with the
        report's own choices (the price, the chips of each layout).
    notes : dict
        Chapter number -> what that chapter's rows assume, as the table writes it under the heading.
    rows : tuple of Row
        The rows, in the table's order; their keys are distinct.
    """

    model: models.Model
    hardware: hardware.Hardware
    precision: str
    kv_precision: str
    defaults: dict
    notes: dict
    rows: tuple

    def __post_init__(self):
        _check.record(self)
        for name in ("precision", "kv_precision"):
            with _check.naming(name):
                object.__setattr__(self, name, registry.precision_name(getattr(self, name)))
        if not self.rows or not all(isinstance(r, Row) for r in self.rows):
            raise ValueError(f"Report: rows must be a non-empty tuple of Row; got {_check.short(self.rows)}")
        keys = [r.key for r in self.rows]
        if len(set(keys)) != len(keys):
            twice = sorted(k for k in set(keys) if keys.count(k) > 1)
            raise ValueError(f"Report: rows must have distinct keys; {twice} repeat")
        if not all(isinstance(k, int) and k in CHAPTERS and isinstance(v, str) for k, v in self.notes.items()):
            raise ValueError(f"Report: notes must map chapter numbers ({min(CHAPTERS)} to {max(CHAPTERS)}) to text; "
                             f"got {_check.short(self.notes)}")
        if not all(isinstance(k, str) and (isinstance(v, str) or _finite(v)) for k, v in self.defaults.items()):
            raise ValueError(f"Report: defaults must map names to text or finite numbers; "
                             f"got {_check.short(self.defaults)}")

    @property
    def numbers(self):
        """Every row's number by key, in SI units; None where a row does not apply or is unbounded."""
        return {r.key: r.value for r in self.rows}

    @property
    def title(self):
        """The table's first line, naming the model, the chip and the precisions."""
        return (f"{self.model.name} on {self.hardware.key}: {self.precision.upper()} weights, "
                f"{self.kv_precision.upper()} KV cache")

    def table(self, width=WIDTH):
        """The report as plain text, no line longer than ``width`` characters (60 to 400).

        Each chapter is a heading, what its rows assume (wrapped), and one row per number: the label on
        the left, the value with its unit on the right.
        """
        width = _check.whole("width", width, 60, 400)
        value_w = min(34, width // 2 - 6)
        label_w = width - value_w - 3
        out = textwrap.wrap(self.title, width) + ["=" * width]
        for chapter in sorted({r.chapter for r in self.rows}):
            out.append("")
            out.extend(textwrap.wrap(CHAPTERS[chapter], width))
            note = self.notes.get(chapter)
            if note:
                out.extend(textwrap.wrap(f"({note})", width, initial_indent="  ", subsequent_indent="   "))
            for r in (r for r in self.rows if r.chapter == chapter):
                labels = textwrap.wrap(r.label, label_w, subsequent_indent="  ") or [""]
                texts = textwrap.wrap(r.text, value_w) or [""]
                n = max(len(labels), len(texts))
                labels += [""] * (n - len(labels))
                texts = [""] * (n - len(texts)) + texts if len(texts) < n else texts
                out.extend(f"  {a:<{label_w}} {b:>{value_w}}".rstrip() for a, b in zip(labels, texts))
        return "\n".join(out)

    def __str__(self):
        return self.table()

    def _repr_html_(self):
        parts = [f"<p><b>{html.escape(self.title)}</b></p>", "<table>"]
        for chapter in sorted({r.chapter for r in self.rows}):
            note = self.notes.get(chapter)
            note = f"<br><small>{html.escape(note)}</small>" if note else ""
            parts.append(f'<tr><th colspan="2" style="text-align:left">{html.escape(CHAPTERS[chapter])}{note}</th>'
                         "</tr>")
            parts.extend(f'<tr><td style="text-align:left">{html.escape(r.label)}</td>'
                         f'<td style="text-align:right">{html.escape(r.text)}</td></tr>'
                         for r in self.rows if r.chapter == chapter)
        return "".join(parts) + "</table>"

    def to_dict(self):
        """Everything as JSON-ready values: the model, chip and precisions, the defaults, the notes, the numbers by
        key and the rows (chapter, key, label, value, text)."""
        return {"model": self.model.name, "chip": self.hardware.key, "precision": self.precision,
                "kv_precision": self.kv_precision, "defaults": dict(self.defaults),
                "notes": {str(k): v for k, v in self.notes.items()}, "numbers": self.numbers,
                "rows": [dataclasses.asdict(r) for r in self.rows]}

    def to_json(self, indent=2):
        """:meth:`to_dict` as JSON text (strict JSON: no NaN or infinity), indented by ``indent`` (0 to 8) spaces."""
        indent = _check.whole("indent", indent, 0, 8)
        return json.dumps(self.to_dict(), indent=indent or None, allow_nan=False, ensure_ascii=False)

    def figures(self):
        """The chapters' static figures for this model and chip, by file stem: chapter 1's step time and cost
        against batch (:class:`roofline.figures.decode.DecodeFigure`), chapter 2's step with the all-to-all (an
        MoE model on a chip with a scale-out network), chapter 4's memory per GPU against stages, chapter 5's
        costs and over-training, chapter 6's cost against context (at the balance batch and chapter 6's
        context), each at the report's defaults.

        Returns
        -------
        dict
            Name (``ch1_decode``, ...) -> the chapter's :class:`roofline.figures.live.LiveFigure`; its ``.fig``
            is the matplotlib figure (``roofline.figures.sharp_png(f.fig)`` gives a PNG).
        """
        from .figures import decode as fdec
        from .figures import memory as fmem
        from .figures import moe as fmoe
        from .figures import serving as fsv
        from .figures import training as ftr

        s, n, out = self.defaults, self.numbers, {}
        d1 = _deploy(self, self.defaults["ch1_chips"])
        marker = n["ch1_balance_batch_with_kv"] or n["ch1_balance_batch"]
        out["ch1_decode"] = fdec.DecodeFigure(d1, len_ctx=s["ch1_context_tokens"], marker_batch=marker)
        if n.get("ch2_ep_chips") and n.get("ch2_a2a_one_rack_s") is not None:
            ep = _deploy(self, n["ch2_ep_chips"])
            out["ch2_moe"] = fmoe.MoeFigure(ep, len_ctx=s["ch2_context_tokens"], marker_batch=n["ch2_batch"],
                                            act_bytes=moe_data.act_bytes_per_value(s["ch2_dispatch"], s["ch2_combine"]),
                                            **moe_data.link_values(self.hardware, 1, s["ch2_links"]))
        stage = _deploy(self, n["ch3_stage_chips"])
        out["ch4_memory"] = fmem.MemoryFigure(stage, micro_batch=s["ch4_micro_batch"], len_ctx=s["ch4_context_tokens"],
                                              n_stages=n["ch3_stages_to_fit"] or 1)
        out["ch5_training"] = ftr.TrainingFigure(n_active=self.model.active_params,
                                                 traffic=s["ch5_traffic_tokens_per_s"], months=s["ch5_months"],
                                                 decode_mfu=s["ch5_decode_mfu"], law_name=s["ch5_law"])
        out["ch6_serving"] = fsv.ServingFigure(d1.values, batch=n["ch1_balance_batch"],
                                               len_ctx=fsv.live().defaults["context"], step_tokens=s["ch6_step_tokens"])
        return out


def _finite(x):
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(x)


def _deploy(r, n_chips):
    """The report's deployment on ``n_chips`` chips: its model, chip, precisions and price."""
    return Deployment(r.model, r.hardware, precision=r.precision, kv_precision=r.kv_precision,
                      n_chips=int(n_chips), price_usd_per_hour=r.defaults["gpu_price_usd_per_hour"])


# -- reading the inputs ----------------------------------------------------------------------------------------
def _model(config):
    if isinstance(config, models.Model):
        return config
    if isinstance(config, (str, os.PathLike)):
        try:
            return hf.from_hf_config(config)
        except ValueError as err:  # the file and the key, under the name the caller knows
            raise ValueError(f"config: {err}") from None
    raise ValueError(f"config must be a path to a Hugging Face config.json (or a directory holding one) or a "
                     f"roofline Model; got {_check.short(config)} of type {type(config).__name__}")


def _chip(chip):
    if isinstance(chip, hardware.Hardware):
        return chip
    if isinstance(chip, os.PathLike) or isinstance(chip, str) and chip.lower().endswith((".json", ".yaml", ".yml")):
        with _check.naming("chip"):
            return load_chip(chip)
    if isinstance(chip, str):
        with _check.naming("chip"):
            return hardware.get(chip)
    raise ValueError(f"chip must be a chip's name ({', '.join(hardware.names())}), a chip file (.json, .yaml) or "
                     f"a roofline Hardware; got {_check.short(chip)} of type {type(chip).__name__}")


@functools.cache
def _yaml_loader():
    """A PyYAML SafeLoader that reads ``3.35e12`` as a number, as JSON does (YAML 1.1 wants ``3.35e+12``)."""
    import re

    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_implicit_resolver(
        "tag:yaml.org,2002:float",
        re.compile(r"^[-+]?(?:[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?|\.[0-9_]+(?:[eE][-+]?[0-9]+)?"
                   r"|[0-9][0-9_]*[eE][-+]?[0-9]+|\.inf|\.Inf|\.INF|\.nan|\.NaN|\.NAN)$"),
        list("-+0123456789."))
    return Loader


def load_chip(path):
    """A :class:`~roofline.hardware.Hardware` from a small JSON or YAML file: a user's own chip row.

    The file holds one mapping of :class:`~roofline.hardware.Hardware`'s fields (:data:`CHIP_FIELDS`), in
    SI units, and is checked exactly as the registry's rows are (``Hardware``'s own checks): a missing,
    negative, zero or non-numeric figure fails naming its field. Without ``base`` it must give
    :data:`CHIP_REQUIRED` and one FLOP rate; with ``base: <registry chip>`` it starts from that row and
    changes the fields it gives (``base: H100`` and ``hbm_bw: 4.8e12``). Figures left out are unknown
    (None), and the report says so where it needs one.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.json``, ``.yaml`` or ``.yml`` file of at most 1 MiB (YAML needs PyYAML).

    Returns
    -------
    roofline.hardware.Hardware
        The chip, ``key`` the file's ``key`` or its name without the suffix.

    Raises
    ------
    ValueError
        Naming the file and the field, with what is accepted.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"path must be a chip file (.json, .yaml or .yml); got {_check.short(path)} of type "
                         f"{type(path).__name__}")
    file = pathlib.Path(path)
    shown = repr(str(file))
    if file.suffix.lower() not in (".json", ".yaml", ".yml"):
        raise ValueError(f"path must be a chip file ending in .json, .yaml or .yml; got {shown}")
    try:
        with open(file, "rb") as fh:
            raw = fh.read(MAX_CHIP_FILE_BYTES + 1)
    except OSError as err:
        raise ValueError(f"path: cannot read the chip file {shown} ({err.strerror or type(err).__name__}); "
                         "give a readable .json or .yaml file") from None
    if len(raw) > MAX_CHIP_FILE_BYTES:
        raise ValueError(f"path: the chip file {shown} is larger than {MAX_CHIP_FILE_BYTES // 2**20} MiB; a chip "
                         "row is a few hundred bytes")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError(f"path: the chip file {shown} is not UTF-8 text") from None
    if file.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as err:
            raise ValueError(f"path: the chip file {shown} is not valid JSON: {_check.short(str(err), 120)}") \
                from None
    else:
        try:
            import yaml
        except ImportError:
            raise ValueError(f"path: reading the YAML chip file {shown} needs PyYAML (pip install pyyaml); "
                             "or give the chip as JSON") from None
        try:
            data = yaml.load(text, Loader=_yaml_loader())  # noqa: S506 (a SafeLoader)
        except (yaml.YAMLError, RecursionError) as err:
            raise ValueError(f"path: the chip file {shown} is not valid YAML: "
                             f"{_check.short(' '.join(str(err).split()), 120)}") from None
    return _chip_from_fields(data, file)


def _chip_from_fields(data, file):
    where = f"chip file {str(file)!r}"
    if not isinstance(data, dict):
        raise ValueError(f"{where} must hold one mapping of field: value (the fields of roofline.hardware.Hardware); "
                         f"got {type(data).__name__}")
    unknown = [k for k in data if k not in CHIP_FIELDS and k != "base"]
    if unknown:
        raise ValueError(f"{where}: field {_check.short(unknown[0])} is not a chip field; accepted: base, "
                         f"{', '.join(CHIP_FIELDS)}")
    fields = dict(data)
    for name, value in fields.items():
        if name in ("year", "scaleup_domain") and isinstance(value, float) and value.is_integer():
            fields[name] = int(value)  # YAML and JSON write 8 as 8; a spreadsheet's export may write 8.0
    base = fields.pop("base", None)
    try:
        if base is not None:
            if not isinstance(base, str):
                raise ValueError(f"base must be a registry chip's name ({', '.join(hardware.names())}); "
                                 f"got {_check.short(base)}")
            with _check.naming("base"):
                start = hardware.get(base)
            return dataclasses.replace(start, **fields)
        missing = [k for k in CHIP_REQUIRED if fields.get(k) is None]
        if missing:
            raise ValueError(f"field {missing[0]} is missing; expected {CHIP_FIELDS[missing[0]]}, a number > 0 "
                             f"(required: {', '.join(CHIP_REQUIRED)} and one of flops_bf16, flops_fp8, flops_fp4; "
                             f"or 'base: <registry chip>' to start from one)")
        key = fields.get("key", file.stem)
        row = {f.name: None for f in dataclasses.fields(hardware.Hardware)} | _CHIP_TEXT | {
            "key": key, "name": key, "source": f"chip file {file.name}"}
        return hardware.Hardware(**(row | fields))
    except ValueError as err:
        raise ValueError(f"{where}: {err}") from None


# -- the report ------------------------------------------------------------------------------------------------
def report(config, chip, precision=None, *, kv_precision="bf16", price_usd_per_hour=None):
    """Every chapter's key results for a model on a chip, with the chapters' defaults named.

    Parameters
    ----------
    config : str, os.PathLike or roofline.models.Model
        A Hugging Face ``config.json`` (or a directory holding one), read by
        :func:`roofline.hf.from_hf_config`; or a Model.
    chip : str or roofline.hardware.Hardware
        A chip of the registry (``"H100"``; ``roofline.hardware.names()`` lists them), a chip file
        (``.json``, ``.yaml``: :func:`load_chip`), or a Hardware.
    precision : str, optional
        The weights' precision, 'fp4', 'fp8' or 'bf16', one the chip has a dense rate for; default the
        chip's lowest (as every chapter's deployment).
    kv_precision : str
        The KV cache's precision (default 'bf16', the chapters' default).
    price_usd_per_hour : float, optional
        USD per GPU-hour; default the lecture's $2 (00:12:59), as the chapters take it.

    Returns
    -------
    Report
        The rows of every chapter; ``print`` it for the table.

    Raises
    ------
    ValueError
        Naming the parameter (and, for a config or chip file, the file and the field) and what is accepted.
    """
    model = _model(config)
    chip = _chip(chip)
    if precision is not None:
        with _check.naming("precision"):
            chip.flops(registry.precision_name(precision))  # a rate the chip publishes
    with _check.naming("kv_precision"):
        kv_precision = registry.precision_name(kv_precision)
    s = dict(defaults())
    if price_usd_per_hour is not None:
        s["gpu_price_usd_per_hour"] = _check.scalar("price_usd_per_hour", price_usd_per_hour, where="report")
    d1 = Deployment(model, chip, precision=precision, kv_precision=kv_precision,
                    price_usd_per_hour=s["gpu_price_usd_per_hour"])
    rows, notes = [], {}
    _setup(d1, s, rows, notes)
    _chapter1(d1, s, rows, notes)
    ep = _chapter2(d1, s, rows, notes)
    stage, p_fit = _chapter3(d1, ep, s, rows, notes)
    _chapter4(stage, p_fit, s, rows, notes)
    _chapter5(model, s, rows, notes)
    _chapter6(d1, s, rows, notes)
    return Report(model, chip, d1.weight_precision, kv_precision, s, notes, tuple(rows))


# -- the chapters, each as its notebook computes it ---------------------------------------------------------------
def _row(rows, key, chapter, label, value, text=None, unit=None):
    """Append a row; ``value`` inf or None gives None (its ``text`` says why)."""
    if value is not None and not math.isfinite(value):
        value = None
    if text is None:
        text = "" if value is None else unit(value)
    rows.append(Row(key, chapter, label, None if value is None else float(value), text))


def _count(x, what=""):
    from .notebook import human

    text = f"{x:,.0f}" if x < 1e7 else human(x, 3)
    if 0 < x < 10 and not float(x).is_integer():
        text = f"{x:.2f}"
    if text == "1" and what.endswith("s"):
        what = what[:-1]  # 1 stage, 1 sequence
    return f"{text} {what}".strip()


def _tokens(x):
    return _count(x, "tokens")


def _seconds(t):
    if t >= 1:
        return f"{t:,.2f} s"
    if t >= 1e-3:
        return f"{t * 1e3:.3g} ms"
    return f"{t * 1e6:.3g} µs"


def _bytes(b):
    for scale, unit in ((1e12, "TB"), (1e9, "GB"), (1e6, "MB")):
        if b >= scale:
            return f"{b / scale:,.3g} {unit}" if b / scale < 1000 else f"{b / scale:,.0f} {unit}"
    return f"{b:,.0f} B"


def _usd_per_m(usd_per_token):
    return f"${usd_per_token * 1e6:,.4g} per M tokens"


def _hbm(h):
    """A chip's HBM in GB and GiB (85.5 GB (79.6 GiB), an H100's, sold as 80 GB)."""
    return f"{h.hbm_bytes / 1e9:,.3g} GB ({h.hbm_bytes / 2**30:,.3g} GiB)"


def _chips(d):
    return f"{d.n_chips_used:,} x {d.hardware.key}"


def _setup(d, s, rows, notes):
    m, h = d.model, d.hardware
    kind = f"{m.routed_experts} routed experts, top {m.active_routed_experts}" if m.routed_experts else "dense"
    whose = "the lecture's" if s["gpu_price_usd_per_hour"] == defaults()["gpu_price_usd_per_hour"] else "given"
    notes[0] = (f"{m.name}: {m.attention}, {m.layers} layers, {kind}. {h.key}: "
                f"{h.flops(d.weight_precision) / 1e12:,.0f} TFLOP/s {d.weight_precision.upper()}, "
                f"{_hbm(h)} HBM at {h.hbm_bw / 1e12:.3g} TB/s, scale-up domain of "
                f"{h.scaleup_domain:,}. Price ${s['gpu_price_usd_per_hour']:g} per GPU-hour "
                f"({whose})")
    _row(rows, "total_params", 0, "parameters, total", m.total_params, unit=lambda x: _count(x))
    _row(rows, "active_params", 0, "parameters, active per token", m.active_params, unit=lambda x: _count(x))
    weights = d.evaluate(memory.weights_per_gpu_bytes, n_chips=1, n_stages=1)
    _row(rows, "weight_bytes", 0, f"weights in {d.weight_precision.upper()}", weights, unit=_bytes)
    _row(rows, "weight_chips", 0, "fewest chips whose HBM holds the weights", math.ceil(weights / h.hbm_bytes),
         unit=lambda n: f"{n:,.0f} x {h.key}")
    n, size = d.n_chips_used, h.scaleup_domain
    what = ("a slice of a scale-up domain" if size > 72 else "one scale-up domain" if n == size
            else f"{n // size:,} scale-up domains")
    _row(rows, "n_chips", 0, "chips a replica takes (chapter 1)", n, text=f"{n:,} x {h.key}, {what}")
    s["ch1_chips"] = float(d.n_chips_used)


def _chapter1(d, s, rows, notes):
    L = s["ch1_context_tokens"]
    notes[1] = f"context {L:,.0f} tokens, chapter 1's; {d.n_chips_reason}"
    _row(rows, "ch1_balance_batch", 1, "balance batch: weight fetch = compute", d.balance_batch(),
         unit=lambda x: _count(x, "sequences"))
    b_kv = d.balance_batch(len_ctx=L)
    _row(rows, "ch1_balance_batch_with_kv", 1, f"balance batch at {L:,.0f} tokens, KV fetch kept", b_kv,
         text=None if math.isfinite(b_kv) else "never: the KV fetch outruns compute",
         unit=lambda x: _count(x, "sequences"))
    _row(rows, "ch1_cost_floor_usd_per_token", 1, f"cost floor at {L:,.0f} tokens (a huge batch)",
         d.evaluate(decode.cost_floor_usd, len_ctx=L), unit=_usd_per_m)
    cross = d.balance_context()
    _row(rows, "ch1_kv_bound_context", 1, "KV-bound at any batch past this context", cross,
         text=None if math.isfinite(cross) else "none: no KV cache", unit=_tokens)
    most = d.max_batch(L)
    _row(rows, "ch1_max_batch", 1, f"memory wall: most sequences of {L:,.0f} tokens in HBM", most,
         text="0: the weights alone do not fit" if most == 0 else None, unit=lambda x: _count(x, "sequences"))


def _needs_links(h):
    missing = [f for f in ("scaleup_bw", "scaleout_bw") if getattr(h, f) is None]
    return f"n/a: {h.key} has no {' or '.join(missing)}" if missing else None


def _chapter2(d1, s, rows, notes):
    """The expert-parallel group (a Deployment) or None for a dense model."""
    m, h = d1.model, d1.hardware
    L = s["ch2_context_tokens"]
    notes[2] = (f"experts over one scale-up domain; batch: the group's balance batch; context {L:,.0f} tokens; "
                f"activations {s['ch2_dispatch'].upper()} out, {s['ch2_combine'].upper()} back; "
                f"{s['ch2_links']} links; across two racks: layout '{s['ch2_layout']}', chapter 2's")
    keys = (("ch2_ep_chips", "GPUs holding experts, one rack"), ("ch2_experts_per_chip", "experts per GPU"),
            ("ch2_batch", "batch: the group's balance batch"), ("ch2_max_batch", f"memory wall at {L:,.0f} tokens"),
            ("ch2_step_s", "chapter 1's step at that batch"), ("ch2_a2a_one_rack_s", "all-to-all a step, one rack"),
            ("ch2_a2a_two_racks_s", "all-to-all a step, across two racks"))
    if not m.routed_experts:
        for key, label in keys:
            _row(rows, key, 2, label, None, DENSE)
        return None
    chips, _ = moe.layout_chips(m.routed_experts, h.scaleup_domain, 1, s["ch2_layout"])
    ep = dataclasses.replace(d1, n_chips=int(chips))
    b = ep.balance_batch()
    _row(rows, "ch2_ep_chips", 2, keys[0][1], chips, text=_chips(ep))
    _row(rows, "ch2_experts_per_chip", 2, keys[1][1],
         moe.experts_per_chip(n_experts=m.routed_experts, n_chips=chips), unit=lambda x: _count(x))
    _row(rows, "ch2_batch", 2, keys[2][1], b, unit=lambda x: _count(x, "sequences"))
    most = ep.max_batch(L)
    _row(rows, "ch2_max_batch", 2, keys[3][1], most,
         text="0: the weights do not fit (chapter 4)" if most == 0 else None, unit=lambda x: _count(x, "sequences"))
    _row(rows, "ch2_step_s", 2, keys[4][1], ep.step_time_s(b, L), unit=_seconds)
    why = _needs_links(h) or (None if m.moe_layers and m.hidden_size else
                              "n/a: the model gives no MoE layer count or hidden size")
    act = moe_data.act_bytes_per_value(s["ch2_dispatch"], s["ch2_combine"])
    for n_racks, (key, label) in zip((1, 2), keys[5:]):
        if why:
            _row(rows, key, 2, label, None, why)
            continue
        g, racks = moe.layout_chips(m.routed_experts, h.scaleup_domain, n_racks, s["ch2_layout"])
        if racks < n_racks:
            _row(rows, key, 2, label, None, f"n/a: {g} GPU{'s' if g > 1 else ''} cannot span {n_racks} racks")
            continue
        group = dataclasses.replace(d1, n_chips=int(g))
        t = group.evaluate(moe.comm_time_s, batch=b, n_racks=racks, act_bytes=act,
                           **moe_data.link_values(h, racks, s["ch2_links"]))
        _row(rows, key, 2, label, t, unit=_seconds)
    return ep


def _stage_chips(d1, ep):
    """A pipeline stage: the expert-parallel group in one scale-up domain (chapter 4's 8 H100s or 64 GB200s for
    DeepSeek-V3), or for a dense model one domain (a slice of a pod, as chapter 1's default takes it)."""
    if ep is not None:
        return ep.n_chips_used
    return min(d1.hardware.scaleup_domain, d1.n_chips_used)


def _chapter3(d1, ep, s, rows, notes):
    m, h = d1.model, d1.hardware
    b, L = s["ch4_micro_batch"], s["ch4_context_tokens"]
    fit = measured.fit_link("scale-out")
    calibrated = dict(hop_latency=fit.alpha_s, scaleout_bw=fit.beta_bytes_per_s)
    g = _stage_chips(d1, ep)
    stage = dataclasses.replace(d1, n_chips=int(g))
    s["ch3_stage_chips"] = float(g)
    notes[3] = (f"a stage: {'the expert-parallel group' if ep is not None else 'one scale-up domain'}; "
                f"micro-batches of {b:,.0f} sequences at {L:,.0f} tokens, chapter 4's; hops on the scale-out link "
                f"fitted to DeepEP's all-to-alls ({fit.alpha_s * 1e6:.0f} µs + bytes at "
                f"{fit.beta_bytes_per_s / 1e9:.1f} GB/s)")
    _row(rows, "ch3_stage_chips", 3, "chips in one stage", g, text=_chips(stage))
    label = "MoE layers a stage needs for a cheap cut"
    if not m.routed_experts:
        _row(rows, "ch3_min_stage_layers", 3, label, None, DENSE)
    elif _needs_links(h):
        _row(rows, "ch3_min_stage_layers", 3, label, None, _needs_links(h))
    else:
        _row(rows, "ch3_min_stage_layers", 3, label,
             pipeline.min_stage_layers(top_k=m.active_routed_experts, n_chips=g, scaleup_bw=h.scaleup_bw,
                                       scaleout_bw=h.scaleout_bw), unit=lambda x: _count(x, "layers"))
    need = stage.evaluate(memory.stages_to_fit, micro_batch=b, len_ctx=L)
    p_fit = math.ceil(need) if math.isfinite(need) else None
    _row(rows, "ch3_stages_to_fit", 3, "stages for weights and a micro-batch's cache", p_fit,
         text=None if p_fit else "never: the cache alone fills a stage", unit=lambda x: _count(x, "stages"))
    _row(rows, "ch3_hop_s", 3, "one hop between stages", stage.evaluate(pipeline.hop_time_s, batch=b, **calibrated),
         unit=_seconds)
    p = p_fit or 1
    at = dict(batch=b, len_ctx=L, n_stages=p)
    token = stage.evaluate(pipeline.loop_token_time_s, **at, **calibrated)
    _row(rows, "ch3_token_s", 3, f"a token's loop through {p} stage{'s' if p > 1 else ''}", token, unit=_seconds)
    _row(rows, "ch3_loop_hops_s", 3, "of which hops",
         token - p * stage.evaluate(pipeline.stage_time_s, **at), unit=_seconds)
    return stage, p_fit


def _chapter4(stage, p_fit, s, rows, notes):
    b, L = s["ch4_micro_batch"], s["ch4_context_tokens"]
    p = p_fit or 1
    h = stage.hardware
    notes[4] = (f"{stage.n_chips_used:,} x {h.key} a stage, {p} stage{'s' if p > 1 else ''} "
                f"({'the fewest that fit' if p_fit else 'none fits'}); micro-batches of {b:,.0f} sequences at "
                f"{L:,.0f} tokens; {_hbm(h)} HBM per GPU")
    at = dict(micro_batch=b, len_ctx=L)
    w = stage.evaluate(memory.weights_per_gpu_bytes, n_stages=p)
    kv = stage.evaluate(memory.kv_per_gpu_bytes, **at)
    _row(rows, "ch4_weights_per_gpu_bytes", 4, f"weights per GPU, {p} stage{'s' if p > 1 else ''}", w, unit=_bytes)
    _row(rows, "ch4_kv_per_gpu_bytes", 4, "KV cache per GPU, any number of stages", kv, unit=_bytes)
    _row(rows, "ch4_memory_per_gpu_bytes", 4, f"together, {p} stage{'s' if p > 1 else ''}",
         stage.evaluate(memory.memory_per_gpu_bytes, **at, n_stages=p),
         unit=lambda x: f"{_bytes(x)} ({x / h.hbm_bytes:.0%} of HBM)")
    _row(rows, "ch4_memory_one_stage_bytes", 4, "together, with no pipeline (1 stage)",
         stage.evaluate(memory.memory_per_gpu_bytes, **at, n_stages=1),
         unit=lambda x: f"{_bytes(x)} ({x / h.hbm_bytes:.0%} of HBM)")
    _row(rows, "ch4_kv_crossover_stages", 4, "stages at which weights per GPU fall to the KV",
         stage.evaluate(memory.kv_crossover_stages, **at), unit=lambda x: _count(x, "stages"))


def _chapter5(m, s, rows, notes):
    law = s["ch5_law"]
    served = training.tokens_served(traffic=s["ch5_traffic_tokens_per_s"], deploy_s=s["ch5_months"] * s["ch5_month_s"])
    notes[5] = (f"N = the model's active parameters; {_count(s['ch5_traffic_tokens_per_s'])} tokens/s for "
                f"{s['ch5_months']:g} months, the lecture's; decode MFU {s['ch5_decode_mfu']:.3g} of training's; "
                f"{training.law(law).name}, chapter 5's")
    cmp = training.compare(m.active_params, served, decode_mfu=s["ch5_decode_mfu"], law_name=law)
    chin = training.optimal_for_loss(cmp.loss, 0.0, law)
    _row(rows, "ch5_tokens_served", 5, "tokens served", served, unit=_tokens)
    _row(rows, "ch5_equal_cost_tokens", 5, "pre-training tokens, equal costs (the lecture's)",
         cmp.heuristic.tokens_pre, unit=lambda x: f"{_tokens(x)} ({cmp.overtraining_heuristic:,.3g}x)")
    _row(rows, "ch5_chinchilla_tokens", 5, "compute-optimal tokens for this N", cmp.chinchilla_heuristic,
         unit=_tokens)
    _row(rows, "ch5_loss", 5, "loss reached with the equal-cost tokens", cmp.loss, unit=lambda x: f"{x:.4g} nat/token")
    _row(rows, "ch5_compute_optimal_params", 5, "compute-optimal size for that loss", chin.n_active,
         unit=lambda x: _count(x, "parameters"))
    _row(rows, "ch5_compute_optimal_tokens", 5, "  trained on", chin.tokens_pre, unit=_tokens)
    _row(rows, "ch5_serving_aware_params", 5, "serving-aware size for that loss", cmp.optimum.n_active,
         unit=lambda x: _count(x, "parameters"))
    _row(rows, "ch5_serving_aware_tokens", 5, "  trained on", cmp.optimum.tokens_pre,
         unit=lambda x: f"{_tokens(x)} ({cmp.overtraining_optimum:,.3g}x)")
    _row(rows, "ch5_excess_cost", 5, "the equal-cost choice costs more by", cmp.excess_cost,
         unit=lambda x: f"{x:.1%}")


def _chapter6(d, s, rows, notes):
    step = s["ch6_step_tokens"]
    m = d.model
    notes[6] = (f"chapter 1's replica; KV cache in {d.kv_precision.upper()}; the lecture's price step at "
                f"{step:,.0f} tokens")
    _row(rows, "ch6_kv_bytes_per_token", 6, "KV bytes per token of a long context", d.values["kv_bytes"],
         unit=lambda x: f"{x:,.0f} B")
    _row(rows, "ch6_kv_bytes_at_step", 6, f"KV bytes per token at {step:,.0f} tokens" + (
        " (windows capped)" if m.window_layers else ""), d.kv_bytes_at(step), unit=lambda x: f"{x:,.0f} B")
    cross = d.balance_context()
    beyond = f" (beyond its {m.context_tokens:,}-token context)" if m.context_tokens and cross > m.context_tokens \
        else ""
    _row(rows, "ch6_price_step_tokens", 6, "price step they imply: KV fetch = compute", cross,
         text=None if math.isfinite(cross) else "none: no KV cache", unit=lambda x: _tokens(x) + beyond)
    _row(rows, "ch6_kv_bytes_for_step", 6, f"KV bytes per token a {step:,.0f} step implies here",
         d.evaluate(serving.kv_bytes_at_crossover, len_ctx=step), unit=lambda x: f"{x:,.0f} B")


def write_figures(r, directory):
    """Write :meth:`Report.figures` as PNGs (``roofline.figures.sharp_png``) into ``directory`` (made if
    missing); returns the paths written.

    Parameters
    ----------
    r : Report
        The report to draw.
    directory : str or os.PathLike
        Where the PNGs go, one per figure: ``ch1_decode.png``, ``ch4_memory.png``, ...

    Returns
    -------
    list of pathlib.Path
    """
    if not isinstance(r, Report):
        raise ValueError(f"r must be a Report (roofline.report(...)); got {_check.short(r)}")
    if not isinstance(directory, (str, os.PathLike)) or not str(directory).strip():
        raise ValueError(f"directory must be a path to a folder; got {_check.short(directory)}")
    from .figures import sharp_png

    folder = pathlib.Path(directory)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ValueError(f"directory {str(folder)!r} cannot be made ({err.strerror or type(err).__name__}); "
                         "give a folder you can write") from None
    written = []
    for name, fig in r.figures().items():
        png, _ = sharp_png(fig.fig)
        path = folder / f"{name}.png"
        try:
            path.write_bytes(png)
        except OSError as err:
            raise ValueError(f"directory: cannot write {str(path)!r} ({err.strerror or type(err).__name__})") \
                from None
        written.append(path)
    return written


__all__ = ["CHAPTERS", "CHIP_FIELDS", "CHIP_REQUIRED", "DENSE", "Report", "Row", "WIDTH", "defaults", "load_chip",
           "report", "write_figures"]
