"""The notebook-style example in docs/ runs as written and prints the table it promises."""

import subprocess
import sys

import pytest

from conftest import SOURCE_DIR


def test_the_notebook_example_reproduces_its_validation_table_and_draws_its_figure(tmp_path):
    pytest.importorskip("matplotlib")  # setup.sh --test installs it
    figure = tmp_path / "queueing.png"
    done = subprocess.run(
        [sys.executable, str(SOURCE_DIR / "docs" / "notebook_example.py"), str(figure)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    # docs/validation.md's 150-node rows: acme's Eval mean 660 s and 1,599 preemptions; fifo's Pretrain 64,751 s.
    acme = next(line for line in done.stdout.splitlines() if line.startswith("acme "))
    fifo = next(line for line in done.stdout.splitlines() if line.startswith("fifo "))
    assert acme.split()[2] == "660"
    assert acme.split()[-1] == "1599.0"
    assert fifo.split()[1] == "64751"
    assert "acme: longest mean wait of the non-pretraining types: Eval" in done.stdout
    assert figure.stat().st_size > 10_000
