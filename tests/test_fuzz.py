"""Every public callable of roofline, fed generated arguments: no hang, no bare exception, every error named.

The callables are found, not listed: every public function, class, method, property and registered equation
(every variant) of every public module of ``roofline``, the figure and web helpers included, so a new one is
covered without a new test. Each is called with arguments drawn by hypothesis from values that fit the
parameter's name (a deployment, a context length, a chip's name), with one argument or all of them swapped
for zero, negatives, NaN, infinities, huge integers, arrays, wrong types and unknown names. A call must

* return within :data:`LIMIT_S`, a second (a hang is a failure, whether a loop or one huge allocation; the few
  callables whose documented, bounded work takes longer, and live figures drawing a whole frame, have their
  own limits, :data:`SLOW_S` and :data:`FIGURE_S`);
* raise nothing but ``ValueError`` or ``TypeError``, and then with a message that names a parameter (or the
  unknown name it was given);
* return no NaN, and no negative value from an equation (every equation computes a physical magnitude).

The data files are fuzzed too: one row of each CSV table mutated (a missing or extra cell, text in a number,
a negative, NaN or infinite quantity, an empty key, a byte that is not UTF-8), or a column dropped or added,
must fail naming the file, the row and the column; and the HF configs under ``tests/data/hf_configs`` with one key altered must load or fail
with a ValueError naming the key.

Examples are derandomized, a fixed number per callable (:data:`EXAMPLES`), so the suite is fast and gives the
same answer on every run. ``ROOFLINE_FUZZ_EXAMPLES=200`` (and ``-s`` to see the counts) runs a deeper search
once; ``ROOFLINE_FUZZ_REPORT=1`` prints the counts of every group and ``ROOFLINE_FUZZ_LOG=path`` appends every
problem found to a file (for a deep run, which reports rather than stops).
"""

import contextlib
import csv
import dataclasses
import functools
import importlib
import inspect
import io
import json
import math
import os
import pathlib
import pkgutil
import re
import resource
import signal
import time
import traceback
import warnings

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import roofline  # noqa: E402
from roofline import Deployment, equations, hardware, models, registry  # noqa: E402

QUICK = 2
EXAMPLES = int(os.environ.get("ROOFLINE_FUZZ_EXAMPLES", str(QUICK)))
"""Examples per callable: 2 keeps the whole fuzz suite to a few seconds; raise it for a one-off deep run."""
LIMIT_S = float(os.environ.get("ROOFLINE_FUZZ_LIMIT_S", "1.0"))
"""The longest one call may take, s."""
REPORT = os.environ.get("ROOFLINE_FUZZ_REPORT") == "1" or EXAMPLES > QUICK
MEMORY_BYTES = 3 * 2**30
"""Address space a call may add before an allocation fails (a gigabyte-sized answer is a hang too)."""

SLOW_S = {
    "roofline.revnet.toy_differentials3_exact": 5.0,   # 2^26 pairs at its defaults: about a second
    "roofline.figures.revnet.avalanche_data": 10.0,    # 12 cipher sizes, SHA-256 and three 48-layer MLPs
    "roofline.figures.revnet.AvalancheFigure": 10.0,   # four 48-layer MLPs per frame
    "roofline.web.bundle": 5.0,                        # every live figure's data for the page: about 0.5 s
}
"""Callables whose documented work at their defaults takes longer than :data:`LIMIT_S`, bounded by its product
(see their docstrings), and the time each may take. A live figure's constructor, ``update``, ``render`` and
``to_png`` draw a whole figure at 100 dpi: :data:`FIGURE_S` each."""
FIGURE_S = 5.0

SKIP = {
    "roofline.figures.PlainLogFormatter": "a matplotlib formatter: matplotlib calls it, with matplotlib's contract",
    "roofline.figures.OneTwoFiveLocator": "a matplotlib locator: matplotlib calls it, with matplotlib's contract",
    "roofline.figures.InViewLogLocator": "a matplotlib locator: matplotlib calls it, with matplotlib's contract",
    "roofline.figures.PlainLogScale": "a matplotlib scale: matplotlib calls it, with matplotlib's contract",
    "roofline.web.write": "writes the page's script to a path",
    "roofline.web.main": "the command line: writes the generated script",
    "roofline.revnet.write_stored": "rewrites the package's stored results",
    "roofline.figures.use_style": "sets matplotlib's global style",
    "roofline.notebook.glue": "displays into a notebook",
    "roofline.notebook.glue_claims": "displays into a notebook",
    "roofline.notebook.keep": "prints and displays into a notebook",
}
"""Callables with side effects beyond their result; each is covered by its own tests."""


# -- discovery -------------------------------------------------------------------------------------
def public_modules():
    """Every public module of the package, imported, in a fixed order."""
    names = sorted(m.name for m in pkgutil.walk_packages(roofline.__path__, "roofline.")
                   if not any(part.startswith("_") for part in m.name.split(".")))
    return [importlib.import_module(n) for n in names]


@dataclasses.dataclass
class Target:
    """One thing to call: ``kind`` is 'function', 'class', 'method', 'property', 'equation' or 'replace'."""

    name: str
    kind: str
    obj: object
    owner: type = None

    def params(self):
        if self.kind == "equation":
            return [inspect.Parameter(a, inspect.Parameter.KEYWORD_ONLY) for a in self.obj.args]
        if self.kind == "property":
            return []
        if self.kind == "replace":
            return [inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY) for f in dataclasses.fields(self.obj)
                    if f.init]
        try:
            sig = inspect.signature(self.obj)
        except (TypeError, ValueError):
            return []
        ps = list(sig.parameters.values())
        return ps[1:] if self.kind == "method" else ps


def _mro_members(cls):
    """Public methods and properties of ``cls`` and its roofline base classes."""
    seen = {}
    for base in reversed(cls.__mro__):
        if not base.__module__.startswith("roofline"):
            continue
        for name, value in vars(base).items():
            if name.startswith("_"):
                continue
            if isinstance(value, (property, functools.cached_property)):
                seen[name] = "property"
            elif inspect.isfunction(value):
                seen[name] = "method"
    return seen


def discover(module):
    """The targets defined in ``module``: functions, classes, their members, equations and their variants."""
    out = []
    for name, obj in sorted(vars(module).items()):
        qual = f"{module.__name__}.{name}"
        if name.startswith("_") or qual in SKIP:
            continue
        if isinstance(obj, equations.Equation) and f"roofline.{obj.module}" == module.__name__:
            out.append(Target(qual, "equation", obj))
        elif inspect.isfunction(obj) and obj.__module__ == module.__name__:
            out.append(Target(qual, "function", obj))
        elif inspect.isclass(obj) and obj.__module__ == module.__name__:
            if "_changing" not in vars(obj) or not _raises(vars(obj)["_changing"]):  # not an abstract base
                out.append(Target(qual, "class", obj))
            if dataclasses.is_dataclass(obj) and obj in entry_classes():  # a data row, one field altered
                out.append(Target(qual + " (replace)", "replace", obj, obj))
            for member, kind in sorted(_mro_members(obj).items()):
                out.append(Target(f"{qual}.{member}", kind, getattr(obj, member, None), obj))
    if module is equations:  # every variant of every family, which no module attribute holds
        for eq in equations.every_variant():
            if eq.options:
                opts = ",".join(f"{k}={v}" for k, v in eq.options.items())
                out.append(Target(f"roofline.{eq.module}.{eq.name}[{opts}]", "equation", eq))
    return out


def _raises(method):
    try:
        method(None)
    except NotImplementedError:
        return True
    except Exception:  # noqa: BLE001
        return False
    return False


@functools.cache
def entry_classes():
    """The classes of the registries' rows (Hardware, Model, Measurement, ...)."""
    return {type(entry) for module in MODULES for obj in vars(module).values() if isinstance(obj, registry.Registry)
            for entry in obj}


MODULES = public_modules()


# -- values ----------------------------------------------------------------------------------------
@functools.cache
def samples():
    """Objects of the library's classes to call methods on, and to pass where a parameter wants one."""
    dsv3, gb200, h100 = models.get("DeepSeek-V3"), hardware.get("GB200"), hardware.get("H100")
    out = [dsv3, models.get("Llama 3.1 70B") if "Llama 3.1 70B" in models.REGISTRY else models.REGISTRY.names()[0],
           gb200, h100, Deployment(dsv3, gb200), Deployment(dsv3, h100, precision="fp8", n_chips=16),
           Deployment(models.get("DeepSeek (lecture)"), gb200, attention="sqrt", price_usd_per_hour=2.0)]
    for module in MODULES:
        for name, obj in sorted(vars(module).items()):
            if isinstance(obj, registry.Registry):
                out.append(obj)
                out.extend(list(obj)[:3])
    out.extend(list(equations.REGISTRY.values())[::7])
    return out


def of_type(cls):
    return [s for s in samples() if isinstance(s, cls)]


def registry_names():
    names = []
    for s in samples():
        if isinstance(s, registry.Registry):
            names.extend(s.names()[:2])
    return names


BAD = [0, -1, -0.5, math.nan, math.inf, -math.inf, 10**400, -10**400, 10**18, 1e308, 0.5, 3.7, "bogus", "",
       "64", None, True, False, 1j, [1.0, 2.0], [], (), {}, np.array([1.0, -1.0]), np.array([[2.0, 3.0]]),
       np.array([math.nan]), np.zeros(0), np.array(["a"]), b"x", object(), {"bogus": 1.0}, [[1], [2, 3]],
       range(10**9), 2**63, np.int64(7), np.float32(2.5)]
"""Values no parameter should choke on: each must be accepted or refused with a named ValueError/TypeError."""

COUNT = [1, 2, 4, 8, 64]
SIZE = [64.0, 4096.0, 1e9, 2.0, np.array([1.0, 64.0, 4096.0])]
FRACTION = [0.5, 0.1, 0.9, 1.0]

VALID = {
    "len_ctx": [4096, 0, 131072.0, np.array([1024.0, 8192.0])], "batch": [64, 1, 2048.0, np.array([1.0, 64.0])],
    "seed": [0, 1], "precision": ["fp8", "bf16", "FP4"], "kv_precision": ["bf16", "FP8"],
    "activation_precision": ["bf16", "fp8", "FP4"], "weight_precision": ["fp8"], "dpi": [40], "figsize": [(3, 2)],
    "law_name": ["epoch", "chinchilla"], "rounds": [1, 2, 4], "delta": [1, 0x10000], "path": ["tests/data/hf_configs/deepseek_v3"],
    "chip": ["GB200", "H100"], "hardware": ["GB200"], "model": ["DeepSeek-V3"], "provider": ["OpenAI", "Anthropic"],
    "column": ["output", "input"], "name": ["DeepSeek-V3", "GB200", "decode.step_time_s", "epoch"],
    "key": ["DeepSeek-V3", "decode"], "kind": ["gpipe", "1f1b", "inference"], "text": ["1.5", ""],
    "values": [{"n_active": 37e9}], "label": ["x"], "unit": ["s"], "x": [1.0, np.array([1.0, 2.0])],
    "decode_mfu": FRACTION, "accept_rate": FRACTION, "share": FRACTION, "mfu": FRACTION, "premium": FRACTION,
    "rel_tol": [0.05], "nudge": [0.01], "weight_scale": [3.0, 1.0], "depth": [2, 8], "width": [8, 64],
    "n_inputs": [8, 64], "n_messages": [2, 8], "n_bytes": [8, 64], "n_blocks": [64, 256], "top": [4, 16],
    "ep": [8, 64], "domain": [72, 8], "n_experts": [256, 8], "top_k": [8, 2], "n_stages": [4, 2, 8],
    "n_micro": [4, 8], "n_racks": [1, 2], "n_chips": [8, 64], "n_gpus": [4, 8], "n_layers": [6, 61],
    "usage_flops_per_param": [1e3, 1e6], "loss": [2.0, 1.9], "n_active": [37e9, 1e11], "tokens_pre": [1e12],
    "tokens_inf": [1e13], "deploy_s": [5e6], "traffic": [5e7], "micro_batch": [8.0, 1.0], "chips": [8, 72],
    "ops": ["schedule"], "xor": [False, True], "f": [np.tanh], "F": [np.tanh], "G": [np.sin], "fs": [[np.tanh, np.sin]],
    "fn": ["mlp_avalanche"], "equation": ["equation"], "eq": ["equation"], "mapping": [{"batch": 2.0}],
    "tiers": ["tiers"], "ledger": [None], "rows": ["rows"],
}
"""Values that fit a parameter's name, tried first and among the bad ones (strings name library objects)."""

COUNTS = re.compile(r"^(n_|num_)|_count$|^(top_k|layers|stages|blocks|racks|chips|experts)$")


def valid_values(target, param):
    """Values that fit ``param`` of ``target``: its default, then those its name suggests."""
    out = []
    if param.default is not inspect.Parameter.empty:
        out.append(param.default)
    name = param.name
    if name in ("ax", "axes"):
        out.append("ax" if name == "ax" else "axes")
    elif name in ("deployment", "d"):
        out.extend(of_type(Deployment))
    elif name in VALID:
        for v in VALID[name]:
            out.append(v)
        if name in ("model", "hardware", "chip"):
            out.extend(of_type(models.Model if name == "model" else hardware.Hardware)[:1])
    elif COUNTS.search(name):
        out.extend(COUNT)
    else:
        out.extend(SIZE)
    return out


def realize(value, made):
    """Turn a placeholder into the object it stands for (a fresh axes, a schedule, an equation)."""
    if isinstance(value, str):
        if value == "ax":
            made.setdefault("fig", Figure(figsize=(3, 2), dpi=40))
            return made["fig"].subplots()
        if value == "axes":
            made.setdefault("fig", Figure(figsize=(3, 2), dpi=40))
            return made["fig"].subplots(1, 2)
        if value == "schedule":
            return roofline.pipeline.schedule(3, 4)
        if value == "equation":
            return roofline.decode.step_time_s
        if value == "tiers":
            return hardware.get("GB200").memory_tiers()
        if value == "rows":
            return roofline.scoreboard.entries()[:3]
    return value


@st.composite
def arguments(draw, target, params):
    """Keyword (and positional) arguments for ``target``: all plausible, or one or all swapped for bad ones.

    In the quick run a slow callable (:data:`SLOW_S`, a live figure) gets only bad arguments: its checks are
    what the quick run is for; the deep run draws its valid calls too."""
    slow = EXAMPLES <= QUICK and limit_of(target) > LIMIT_S
    mode = draw(st.sampled_from(["one", "all"] if slow else ["valid", "one", "all"]))
    named = [p for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    bad_at = draw(st.integers(0, max(len(named) - 1, 0))) if named else -1
    args, kwargs = [], {}
    for i, p in enumerate(named):
        bad = mode == "all" or (mode == "one" and i == bad_at)
        if p.default is not inspect.Parameter.empty and not bad and draw(st.booleans()):
            continue  # leave an optional argument at its default
        pool = valid_values(target, p)
        if bad:
            value = draw(st.one_of(st.sampled_from(BAD), st.floats(), st.integers(-2**70, 2**70),
                                   st.sampled_from(pool), st.text(max_size=8),
                                   st.lists(st.floats(-1e3, 1e6), max_size=4)))
        else:
            value = draw(st.sampled_from(pool))
        if p.kind == p.POSITIONAL_ONLY:
            args.append(value)
        else:
            kwargs[p.name] = value
    for p in params:
        if p.kind == p.VAR_KEYWORD and draw(st.booleans()):
            key = draw(st.sampled_from(["batch", "len_ctx", "n_chips", "bogus", "attention", "kv_bytes"]))
            kwargs[key] = draw(st.sampled_from([2.0, 0.0, -1.0, math.nan, "sqrt", "bogus"]))
    return args, kwargs


# -- one call, watched ----------------------------------------------------------------------------
class Hang(BaseException):
    """Raised by the alarm when a call runs past the limit (a BaseException: no ``except Exception`` hides it)."""


def _alarm(signum, frame):
    raise Hang


@contextlib.contextmanager
def watchdog(limit_s=None):
    """An alarm after ``limit_s`` (default :data:`LIMIT_S`), and an address-space limit, around one call."""
    old = signal.signal(signal.SIGALRM, _alarm)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    used = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
    cap = used + MEMORY_BYTES
    resource.setrlimit(resource.RLIMIT_AS, (cap if hard == resource.RLIM_INFINITY else min(cap, hard), hard))
    signal.setitimer(signal.ITIMER_REAL, limit_s or LIMIT_S, 0.25)  # again every 0.25 s: a Hang swallowed by
    # an ``except BaseException`` or raised inside a finalizer is raised again until the call ends
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def names_in(target, params, kwargs, instance):
    """What an error message may name: the parameters, the keywords given, an instance's fields, the names
    (strings) it was given, and the keywords of the symbol table (the parameters of every equation)."""
    names = {p.name for p in params} | set(kwargs) | set(roofline.symbols.TABLE)
    if instance is not None and dataclasses.is_dataclass(instance):
        names |= {f.name for f in dataclasses.fields(instance)}
    if target.kind == "replace":
        names |= {f.name for f in dataclasses.fields(target.obj)}
    strings = {v for v in kwargs.values() if isinstance(v, str) and v.strip()}
    return {n for n in names if isinstance(n, str)}, strings


def is_named(message, names, strings):
    """Whether ``message`` names one of ``names`` (as a word; "law name" names ``law_name``) or quotes one of
    ``strings`` (an unknown name it was given)."""
    spaced = message.replace("_", " ")
    for n in names:
        if re.search(rf"(?<![A-Za-z0-9_]){re.escape(n)}(?![A-Za-z0-9_])", message) or \
                re.search(rf"(?<![A-Za-z0-9]){re.escape(n.replace('_', ' '))}(?![A-Za-z0-9])", spaced):
            return True
    return any(repr(s) in message or repr(s.lower()) in message for s in strings)


def has_nan(value):
    try:
        if isinstance(value, dict):
            return any(has_nan(v) for v in list(value.values())[:50])
        if isinstance(value, (float, np.floating, np.ndarray)):
            return bool(np.isnan(np.asarray(value, dtype=float)).any())
    except (TypeError, ValueError):
        return False
    return False


class Log:
    """The problems of one run, by kind."""

    KINDS = ("hang", "uncaught", "unnamed", "nan", "negative", "silent")

    def __init__(self):
        self.calls, self.problems, self.seen = 0, {k: [] for k in self.KINDS}, set()

    def add(self, kind, target, detail):
        key = (kind, target.name, detail.split("\n")[0][:60] if kind != "hang" else "")
        if key not in self.seen:
            self.seen.add(key)
            self.problems[kind].append(f"{target.name}: {detail}")

    def counts(self):
        return {k: len(v) for k, v in self.problems.items()}


def limit_of(target):
    """The time ``target`` may take: :data:`SLOW_S`, a live figure's :data:`FIGURE_S`, else :data:`LIMIT_S`."""
    owner = target.owner or (target.obj if target.kind == "class" else None)
    if target.name in SLOW_S:
        return SLOW_S[target.name]
    if owner is not None and issubclass(owner, roofline.figures.live.LiveFigure):
        return FIGURE_S
    return LIMIT_S


def call(target, instance, args, kwargs, made, log, pool):
    """Call ``target`` once under the watchdog and log what went wrong."""
    args = [realize(a, made) for a in args]
    kwargs = {k: realize(v, made) for k, v in kwargs.items()}
    params = target.params()
    log.calls += 1
    limit = limit_of(target)
    start = time.perf_counter()
    try:
        with watchdog(limit), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if target.kind == "property":
                out = getattr(instance, target.name.rsplit(".", 1)[-1])
            elif target.kind == "method":
                out = getattr(instance, target.name.rsplit(".", 1)[-1])(*args, **kwargs)
            elif target.kind == "replace":
                out = dataclasses.replace(instance, **kwargs)
            else:
                out = target.obj(*args, **kwargs)
    except Hang:
        log.add("hang", target, f"over {limit} s with {_show(args, kwargs)}")
        return
    except (ValueError, TypeError) as err:
        names, strings = names_in(target, params, kwargs, instance)
        if not is_named(_message(err), names, strings):
            log.add("unnamed", target, f"{type(err).__name__}: {_message(err)[:200]!r} for {_show(args, kwargs)}"
                    f"{_where(err)}")
        return
    except MemoryError:
        log.add("hang", target, f"MemoryError (over {MEMORY_BYTES / 2**30:.0f} GiB) with {_show(args, kwargs)}")
        return
    except Exception as err:  # noqa: BLE001 - what the fuzz looks for
        log.add("uncaught", target, f"{type(err).__name__}: {_message(err)[:200]!r} for {_show(args, kwargs)}"
                f"{_where(err)}")
        return
    finally:
        if "fig" in made:
            made.pop("fig").clear()
    if time.perf_counter() - start > limit:
        log.add("hang", target, f"{time.perf_counter() - start:.1f} s with {_show(args, kwargs)}")
    if has_nan(out):
        log.add("nan", target, f"NaN returned for {_show(args, kwargs)}")
    if target.kind == "equation" and np.any(np.asarray(out) < 0):
        log.add("negative", target, f"{out!r} for {_show(args, kwargs)}")
    if type(out).__module__.startswith("roofline"):
        pool.setdefault("new", []).append(out)  # kept after this hypothesis run: its draws must not change


def _message(err):
    """``str(err)``, or what is known of it where even that fails (an error built with arguments of wrong types)."""
    try:
        return str(err)
    except Exception:  # noqa: BLE001
        return f"<{type(err).__name__} whose message cannot be shown>"


def _where(err):
    """The innermost line of the library the error passed through, to find it by."""
    frames = [f for f in traceback.extract_tb(err.__traceback__) if "/roofline/" in f.filename]
    return f" (at {pathlib.Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""


def _show(args, kwargs):
    from roofline._check import short
    return ", ".join([short(a, 40) for a in args] + [f"{k}={short(v, 40)}" for k, v in kwargs.items()])


def instances(pool, cls):
    return [o for t, objs in pool.items() if t != "new" and issubclass(t, cls) for o in objs] + of_type(cls)


def keep_new(pool):
    """Objects the last run made join the pool (at most four of a class) for the next run's methods."""
    for out in pool.pop("new", []):
        objs = pool.setdefault(type(out), [])
        if len(objs) < 4:
            objs.append(out)


def run_group(targets, data, log, pool):
    """One example: every target of a group called once (constructors first, so methods have objects)."""
    made = {}
    for target in targets:
        params = target.params()
        instance = None
        if target.kind in ("method", "property", "replace"):
            objs = instances(pool, target.owner)
            if not objs:
                continue
            instance = data.draw(st.sampled_from(objs))
        if target.kind == "replace":
            field = data.draw(st.sampled_from(params)) if params else None
            if field is None:
                continue
            params = [field]
        args, kwargs = data.draw(arguments(target, params))
        call(target, instance, args, kwargs, made, log, pool)


FUZZ = settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None, phases=[Phase.generate],
                suppress_health_check=list(HealthCheck))
CHUNK = 8
GROUPS = [(m.__name__, discover(m)) for m in MODULES]
GROUPS = [(name, targets) for name, targets in GROUPS if targets]


def fuzz_chunk(chunk, log, pool):
    @FUZZ
    @given(st.data())
    def run(data):
        run_group(chunk, data, log, pool)

    run()
    keep_new(pool)


def report(name, log, n_targets):
    counts = log.counts()
    if REPORT:
        print(f"\nfuzz {name}: {n_targets} callables, {log.calls} calls, "
              + ", ".join(f"{v} {k}" for k, v in counts.items()))
    lines = [f"{k}: {p}" for k, ps in log.problems.items() for p in ps]
    if os.environ.get("ROOFLINE_FUZZ_LOG"):
        with open(os.environ["ROOFLINE_FUZZ_LOG"], "a") as f:
            f.write(f"== {name}: {log.calls} calls {counts}\n" + "".join(x + "\n" for x in lines))
    assert not lines, f"{len(lines)} problems in {name}:\n" + "\n".join(lines[:60])


@pytest.mark.parametrize("name, targets", GROUPS, ids=[g[0] for g in GROUPS])
def test_every_callable(name, targets):
    """Every public callable of the module, called with generated arguments: no hang, no exception but a
    ValueError or TypeError, and that one naming a parameter; no NaN, no negative equation."""
    log, pool = Log(), {}
    rc = dict(matplotlib.rcParams)

    ordered = sorted(targets, key=lambda t: t.kind in ("method", "property", "replace"))
    try:
        for i in range(0, len(ordered), CHUNK):  # a few targets a hypothesis run: no example outgrows its buffer
            fuzz_chunk(ordered[i:i + CHUNK], log, pool)
    finally:
        matplotlib.rcParams.update(rc)
    report(name, log, len(targets))


def test_discovery_finds_everything():
    """Discovery reaches the figure and web helpers, the registries' classes and every equation variant."""
    found = {t.name for _, ts in GROUPS for t in ts}
    for name in ("roofline.figures.moe.draw_moe_layer", "roofline.figures.declare.int_slider",
                 "roofline.pipeline.schedule", "roofline.deployment.Deployment.subs",
                 "roofline.hardware.MemoryTier.drain_time_s", "roofline.decode.step_time_s",
                 "roofline.measured.Measurement (replace)"):
        assert name in found, name
    assert len(found) > 400


# -- data files -------------------------------------------------------------------------------------
def registries():
    out = []
    for module in MODULES:
        for name, obj in sorted(vars(module).items()):
            if isinstance(obj, registry.Registry):
                out.append(obj)
    return out


def numeric_columns(header, rows):
    """Columns whose every non-empty cell is a number (at least one non-empty)."""
    out = []
    for i, col in enumerate(header):
        cells = [r[i] for r in rows if i < len(r) and r[i].strip()]
        if cells and all(_is_number(c) for c in cells):
            out.append(col)
    return out


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


MUTATIONS = ("drop cell", "extra cell", "text", "nan", "inf", "negative", "empty key", "bad byte", "drop column",
             "extra column")


@pytest.mark.parametrize("reg", registries(), ids=lambda r: r.filename)
def test_corrupt_rows_fail_naming_file_row_and_field(reg, tmp_path):
    """One cell of one row mutated: the table fails to load, naming the file, the row and the field; or the
    mutation left the table valid (a negative in a signed column)."""
    text = (pathlib.Path(registry.__file__).parent / "data" / reg.filename).read_text(encoding="utf-8")
    header, *rows = list(csv.reader(io.StringIO(text)))
    numeric = numeric_columns(header, rows)
    log = Log()
    target = Target(reg.filename, "csv", reg)

    @settings(FUZZ, max_examples=max(3 * EXAMPLES, 6))
    @given(st.sampled_from(MUTATIONS), st.integers(0, len(rows) - 1), st.sampled_from(header),
           st.sampled_from(numeric or header))
    def run(mutation, index, column, number_column):
        hdr, body = list(header), [list(r) for r in rows]
        row, line = body[index], index + 2
        col = number_column if mutation in ("text", "nan", "inf", "negative") else column
        if mutation == "empty key":
            col = "key"
            if col not in hdr:
                return
        j = hdr.index(col)
        raw = None
        if mutation == "drop cell":
            del row[-1]
            col = hdr[-1]
        elif mutation == "extra cell":
            row.append("surplus")
            col = hdr[-1]
        elif mutation == "text":
            row[j] = "twelve"
        elif mutation == "nan":
            row[j] = "nan"
        elif mutation == "inf":
            row[j] = "inf"
        elif mutation == "negative":
            if not row[j].strip() or float(row[j]) <= 0 or col in reg.signed:
                return
            row[j] = "-" + row[j].strip()
        elif mutation == "empty key":
            row[j] = ""
        elif mutation == "drop column":
            if col in ("aliases",):
                return
            del hdr[j]
            for r in body:
                del r[j]
            line = 1
        elif mutation == "extra column":  # a misspelt or unknown column, a value in every row
            hdr.append("surplus_column")
            for r in body:
                r.append("1")
            col, line = "surplus_column", 1
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows([hdr, *body])
        raw = buf.getvalue().encode()
        if mutation == "bad byte":
            lines = raw.split(b"\n")
            cells = lines[index + 1].split(b",")
            cells[0] += b"\xff"
            lines[index + 1] = b",".join(cells)
            raw = b"\n".join(lines)
            col = hdr[0]
        path = tmp_path / reg.filename
        path.write_bytes(raw)
        log.calls += 1
        try:
            registry.Registry(reg.filename, reg.make, reg.kind, path=path, signed=reg.signed)
        except ValueError as err:
            msg = str(err)
            where = f"row {line}" if line > 1 else "column"
            if reg.filename not in msg or where not in msg or col not in msg:
                log.add("unnamed", target, f"{mutation} in {col!r}, line {line}: {msg[:200]!r}")
        except Exception as err:  # noqa: BLE001
            log.add("uncaught", target, f"{mutation} in {col!r}, line {line}: {type(err).__name__}: {err}")
        else:
            log.add("silent", target, f"{mutation} in {col!r}, line {line} loaded without an error")

    run()
    report(reg.filename, log, 1)


# -- HF configs -------------------------------------------------------------------------------------
HF = pathlib.Path(__file__).parent / "data" / "hf_configs"
CONFIGS = sorted(p for p in HF.iterdir() if (p / "config.json").is_file())
ALTERED = [None, -1, 0, 1, 1.5, "x", [], {}, 10**400, 1e308, True, [1, "a"], 2**53 + 1]


@pytest.mark.parametrize("base", CONFIGS, ids=lambda p: p.name)
def test_altered_hf_configs_load_or_name_the_key(base, tmp_path):
    """A config with one key removed, retyped or out of range loads, or fails with a ValueError naming the key."""
    config = json.loads((base / "config.json").read_text())
    keys = sorted(config)
    log = Log()
    target = Target(base.name, "hf", None)

    @settings(FUZZ, max_examples=max(3 * EXAMPLES, 6))
    @given(st.sampled_from(keys + ["bogus_key"]), st.one_of(st.just("delete"), st.sampled_from(ALTERED)))
    def run(key, value):
        altered = dict(config)
        if value == "delete":
            altered.pop(key, None)
        else:
            altered[key] = value
        path = tmp_path / "config.json"
        path.write_text(json.dumps(altered))
        for fn in (roofline.hf.from_hf_config, roofline.hf.count_params):
            log.calls += 1
            try:
                with watchdog():
                    fn(path)
            except Hang:
                log.add("hang", target, f"{fn.__name__} with {key}={value!r}")
            except ValueError as err:
                if key not in str(err) and "model_type" not in str(err):
                    log.add("unnamed", target, f"{fn.__name__} with {key}={value!r}: {str(err)[:200]!r}")
            except Exception as err:  # noqa: BLE001
                log.add("uncaught", target, f"{fn.__name__} with {key}={value!r}: {type(err).__name__}: {err}")

    run()
    report(f"hf {base.name}", log, 2)


# -- the issue's examples, one by one --------------------------------------------------------------
def _deployment(**kw):
    return Deployment(models.get("DeepSeek-V3"), hardware.get("GB200"), **kw)


def _ax():
    return Figure(figsize=(3, 2), dpi=40).subplots()


REFUSED = [  # (call, the parameter its message must name)
    (lambda: roofline.pipeline.schedule(10**6, 10**6), "n_stages"),
    (lambda: roofline.pipeline.schedule(1e9, 1), "n_stages"),
    (lambda: roofline.revnet.sha256_avalanche(4096, 4096), "n_messages"),
    (lambda: roofline.revnet.mlp_avalanche(1024, width=4096, n_inputs=65536), "n_inputs"),
    (lambda: roofline.revnet.toy_differentials3_exact(ideal=True), "delta"),
    (lambda: roofline.figures.declare.int_slider("c", "l", 0, 10**9, 1), "high"),
    (lambda: roofline.figures.moe.draw_moe_layer(_ax(), 10**6), "n_experts"),
    (lambda: _deployment().subs(bogus=1.0), "bogus"),
    (lambda: roofline.decode.step_time_s.subs({"bogus": 1}), "bogus"),
    (lambda: roofline.decode.build(attention="bogus"), "attention"),
    (lambda: roofline.revnet.build(activations="bogus"), "activations"),
    (lambda: dataclasses.replace(roofline.measured.REGISTRY.get("LMSYS H100 EP72"), kv_bytes_per_elem=1.5),
     "kv_bytes_per_elem"),
    (lambda: roofline.deployment.default_chips(None, hardware.get("GB200"), 1.0), "model"),
    (lambda: roofline.revnet.toy_round_function(5, -1), "k"),
    (lambda: roofline.revnet.toy_keys(4, seed=-1), "seed"),
    (lambda: hardware.MemoryTier("HBM", 80e9, 0.0), "bandwidth"),
    (lambda: dataclasses.replace(roofline.measured.SPEED_COST.get("InferenceX B200 R1"), slow_user_tok_s=0.0),
     "slow_user_tok_s"),
    (lambda: roofline.pipeline.idle_fraction([roofline.pipeline.Op(0, 0, "F", 0.0, 0.0)]), "ops"),
    (lambda: roofline.figures.serving.per_token({"n_active": 37e9}, 64, 4096), "values"),
    (lambda: roofline.training.allocation_at(1e300, 1e10, 0.0), "n_active"),
    (lambda: roofline.training.optimal_for_loss(1.9, 1e60), "usage_flops_per_param"),
    (lambda: roofline.decode.step_time_s(batch=64, n_total=1e9, n_active=1e9, bytes_per_param=1, flops=1e15,
                                         mem_bw=1e12, n_chips=0.5, len_ctx=1, kv_bytes=1), "n_chips"),
    (lambda: roofline.moe.cross_rack_fraction(n_racks=0.5), "n_racks"),
    (lambda: roofline.pipeline.bubble_fraction(n_stages=4, n_micro=0.5), "n_micro"),
]


@pytest.mark.parametrize("call, name", REFUSED, ids=[n for _, n in REFUSED])
def test_the_issues_examples_are_refused_at_once_and_named(call, name):
    """Issue 23's hangs, bare exceptions and silent wrong answers: each is now a ValueError naming the parameter,
    raised at the boundary (well inside a second)."""
    start = time.perf_counter()
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        call()
    assert time.perf_counter() - start < 1


def test_the_issues_examples_that_now_return():
    """The other half: work bounded by its product returns, and precisions are stored by their canonical names."""
    start = time.perf_counter()
    assert len(roofline.pipeline.schedule(3000, 1)) == 6000          # was 5 s: quadratic in the stages
    assert roofline.moe.ep_chips(10**12, 10**12) == 10**12            # was a walk over every divisor candidate
    assert roofline.moe.ep_chips(10**12 - 1, 10**6) == 999_999
    assert time.perf_counter() - start < 1
    assert _deployment(activation_precision="FP4").values["act_bytes"] == 0.5   # was a KeyError
    fp8 = _deployment(kv_precision="FP8")                                        # was the attention rate dropped
    assert fp8.kv_precision == "fp8" and fp8.values["attn_flops_rate"] == hardware.get("GB200").flops("fp8")
