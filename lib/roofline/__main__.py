"""The command line: ``python -m roofline report path/to/config.json --chip H100 --precision fp8``.

``report`` prints :func:`roofline.model_report.report`'s table (at most 88 columns), and can write its
numbers as JSON (``--json PATH``, or ``--json -`` for standard output) and the chapters' figures for the
model as PNGs (``--figures DIR``). A bad input (a config or chip file that cannot be read, an unknown chip
or precision) prints one line naming the field and what is accepted, and exits with status 2.
"""

import argparse
import shutil
import sys
import textwrap

from . import hardware, model_report, registry
from .notebook import human

EPILOG = """\
what it prints
  Setup      parameters, weight bytes, the fewest chips whose HBM holds them, and the
             chips a replica takes (chapter 1's default: whole scale-up domains)
  Chapter 1  the decode balance batch (weight fetch = compute; and with the KV fetch at
             chapter 1's context of {ch1_context_tokens:,.0f} tokens), the context past which decode is
             KV-bound at any batch, the cost floor and the memory wall
  Chapter 2  the expert-parallel layout in one scale-up domain and its all-to-all time a
             step in one rack and across two ({ch2_links} links, {ch2_dispatch} out and {ch2_combine} back,
             context {ch2_context_tokens:,.0f}); a dense model's rows read "dense: no experts"
  Chapter 3  MoE layers a stage needs for a cheap cut, the stages that fit micro-batches
             of {ch4_micro_batch:,.0f} sequences at {ch4_context_tokens:,.0f} tokens, one hop and a token's loop
  Chapter 4  memory per GPU with those stages: weights against KV
  Chapter 5  the compute-optimal and the serving-aware size for the quality the
             lecture's equal-cost training reaches ({traffic} tokens/s for {ch5_months:g}
             months, decode MFU {ch5_decode_mfu:.3g}, the {ch5_law} loss law)
  Chapter 6  KV bytes per token and the long-context price step they imply (the
             lecture's step: {ch6_step_tokens:,.0f} tokens)
  Every default is the chapter's own, and the table names it; prices are ${gpu_price_usd_per_hour:g} per
  GPU-hour (the lecture's) unless --price is given.

a chip file (--chip my_chip.yaml or .json)
  One mapping of roofline.hardware.Hardware's fields, in SI units, checked as the
  registry's rows are. Without 'base' it needs {required}
  and one of flops_bf16, flops_fp8, flops_fp4. With 'base: H100' it starts from that
  chip and changes the fields it gives. Example:
      key: MyChip
      flops_fp8: 2.5e15        # dense FLOP/s
      hbm_bytes: 1.44e11       # bytes per chip
      hbm_bw: 8.0e12           # bytes/s per chip
      scaleup_domain: 8        # chips in one node or rack
      scaleup_bw: 9.0e11       # bytes/s per chip, one direction
      scaleout_bw: 5.0e10      # bytes/s per chip, one direction
  Fields:
  {fields}.

registry chips
  {chips}

exit status
  0 on success; 2 for a bad input (a config or chip file that cannot be read, a missing
  or malformed field, an unknown chip or precision), with one line naming the field and
  what is expected.
"""


class _Parser(argparse.ArgumentParser):
    """argparse, with its usage errors on one line (and exit status 2, as argparse's)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {_one_line(message)} (see --help)\n")


def _formatter(prog):
    """argparse's help as written (the epilog's layout kept), no wider than 88 columns or the terminal."""
    return argparse.RawDescriptionHelpFormatter(prog, width=min(model_report.WIDTH,
                                                                shutil.get_terminal_size().columns))


def _one_line(message):
    return " ".join(str(message).split())


def parser():
    """The ``python -m roofline`` argument parser, with its ``report`` command.

    Returns
    -------
    argparse.ArgumentParser
    """
    top = _Parser(prog="python -m roofline", description="The roofline book's companion library, from the shell.",
                  formatter_class=_formatter)
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)
    d = model_report.defaults()
    epilog = EPILOG.format(**d, traffic=human(d["ch5_traffic_tokens_per_s"]),
                           required=", ".join(model_report.CHIP_REQUIRED),
                           fields="\n  ".join(textwrap.wrap(", ".join(model_report.CHIP_FIELDS), 84)),
                           chips="\n  ".join(textwrap.wrap(", ".join(hardware.names()), 84)))
    rep = commands.add_parser(
        "report", help="every chapter's key results for your model on your chip",
        description=textwrap.fill("Every chapter's key results for a model (a Hugging Face config.json) on a chip "
                                  "(a registry name or a chip file), printed as a table of at most 88 columns.", 88),
        epilog=epilog, formatter_class=_formatter)
    rep.add_argument("config", help="a Hugging Face config.json, or a directory holding one (read locally; "
                                    "nothing is downloaded)")
    rep.add_argument("--chip", required=True, metavar="CHIP",
                     help="a registry chip (H100, GB200, ...: see below) or a chip file (.json, .yaml, .yml)")
    rep.add_argument("--precision", metavar="P", default=None,
                     help=f"the weights' precision, one of {', '.join(registry.PRECISIONS)} the chip has a rate for "
                          "(default: the chip's lowest)")
    rep.add_argument("--kv-precision", metavar="P", default="bf16",
                     help="the KV cache's precision (default: bf16, the chapters')")
    rep.add_argument("--price", metavar="USD", type=float, default=None,
                     help=f"USD per GPU-hour (default: {d['gpu_price_usd_per_hour']:g}, the lecture's)")
    rep.add_argument("--json", metavar="PATH", default=None,
                     help="also write the numbers as JSON to PATH ('-': to standard output, instead of the table)")
    rep.add_argument("--figures", metavar="DIR", default=None,
                     help="also write the chapters' figures for this model as PNGs into DIR (chapter 1's decode, "
                          "chapter 2's all-to-all for an MoE model, chapter 4's memory, chapter 5's training, "
                          "chapter 6's serving)")
    return top


def _fail(message):
    print(f"python -m roofline report: error: {_one_line(message)}", file=sys.stderr)
    return 2


def main(argv=None):
    """Run the command line on ``argv`` (default: ``sys.argv[1:]``); returns the exit status.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after ``python -m roofline``.

    Returns
    -------
    int
        0 on success, 2 for a bad input (after one line on standard error naming it).
    """
    args = parser().parse_args(argv)
    try:
        return _run(args)
    except BrokenPipeError:  # the reader went away (| head): nothing more to say
        sys.stderr.close()
        return 0


def _run(args):
    try:
        r = model_report.report(args.config, args.chip, args.precision, kv_precision=args.kv_precision,
                                price_usd_per_hour=args.price)
    except (ValueError, TypeError) as err:
        return _fail(err)
    if args.json != "-":
        print(r.table())
    if args.json is not None:
        text = r.to_json()
        if args.json == "-":
            print(text)
        else:
            try:
                with open(args.json, "w", encoding="utf-8") as fh:
                    fh.write(text + "\n")
            except OSError as err:
                return _fail(f"--json: cannot write {args.json!r} ({err.strerror or type(err).__name__}); "
                             "give a file you can write, or '-'")
    if args.figures is not None:
        try:
            paths = model_report.write_figures(r, args.figures)
        except ValueError as err:
            return _fail(f"--figures: {err}")
        print(f"figures: {', '.join(str(p) for p in paths)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
