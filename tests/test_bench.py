"""benchmarks/bench.py's notebook transforms: what it times must be like for like."""

import importlib.util
import pathlib

import nbformat
import pytest

BENCH = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "bench.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("roofline_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_joined_runs_a_chapters_code_as_one_cell_showing_what_each_cell_showed(bench):
    code = nbformat.v4.new_code_cell
    nb = nbformat.v4.new_notebook(cells=[
        code("import math"),                                   # the import cell
        nbformat.v4.new_markdown_cell("prose"),
        code("x = 2\nx * 3"),                                  # shown: 6
        code("y = [x,\n     4]; (y[0] +\n  y[1])  # a comment"),  # shown: 6, its value over two lines
        code("s = '×é'; len(s)"),                              # shown: 2, after characters of two bytes each
        code("print('no value')"),                             # None: nothing shown
        code("z = x\nz;"),                                     # a trailing semicolon: nothing shown
        code("def f():\n    return 7\nf()"),                   # shown: 7
        code("w = f()"),                                       # an assignment: nothing shown
    ])
    one = bench.joined(nb, 0)
    assert [c.cell_type for c in one.cells] == ["code", "code"]  # the markdown left out
    shown, printed = [], []
    exec(one.cells[-1].source, {"display": shown.append, "print": printed.append})
    assert shown == [6, 6, 2, 7]
    assert printed == ["no value"]


def test_joined_refuses_a_cell_that_is_not_plain_python(bench):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import math"),
                                         nbformat.v4.new_code_cell("%timeit math.sqrt(2)")])
    with pytest.raises(ValueError, match="cell 1 is not plain Python"):
        bench.joined(nb, 0)
