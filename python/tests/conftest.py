"""Fixtures of the acmesim module's tests: where the source tree and the `acmesim` binary are, and
the command's own outputs to hold the module's values against (CTest sets ACMESIM_BINARY and
ACMESIM_SOURCE_DIR; by hand, they default to this tree and its build/)."""

import os
import pathlib
import subprocess

import pandas as pd
import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("ACMESIM_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
BINARY = pathlib.Path(os.environ.get("ACMESIM_BINARY", SOURCE_DIR / "build" / "acmesim"))

# The bundled Seren week with failures, recovery, switch groups and, on 200 of Seren's 286 nodes,
# preemptions by quota, so that every column of jobs.csv holds more than its default.
FAULTS_SCENARIO = SOURCE_DIR / "configs" / "seren.yaml"
FAULTS_SET = {
    "trace": str(SOURCE_DIR / "traces" / "seren_week.csv.gz"),
    "cluster.nodes": 200,
    "outcomes": "trace-reasons",
    "failures": {"name": "node-mtbf", "rate_per_day": 0.02},
    "recovery": "auto",
}
# The same week on a cluster too small for some of its jobs: unschedulable rows.
SMALL_SET = {"trace": str(SOURCE_DIR / "traces" / "seren_week.csv.gz"), "cluster.nodes": 4, "cluster.cpu_nodes": 0}


def set_arguments(overrides: dict) -> list:
    """`--set KEY=VALUE` arguments for the command, with the YAML text acmesim.run sends."""
    import acmesim

    arguments = []
    for key, value in overrides.items():
        arguments += ["--set", f"{key}={acmesim._yaml_text(value)}"]
    return arguments


@pytest.fixture(scope="session")
def command_run(tmp_path_factory):
    """command_run(scenario, overrides, seed) -> the folder where `acmesim run` wrote its outputs."""
    done = {}

    def run(scenario, overrides, seed):
        key = (str(scenario), repr(sorted(overrides.items())), seed)
        if key not in done:
            out = tmp_path_factory.mktemp("run")
            command = [str(BINARY), "run", str(scenario), "-o", str(out), "--quiet", "--seed", str(seed)]
            subprocess.run(command + set_arguments(overrides), check=True, cwd=SOURCE_DIR)
            done[key] = out
        return done[key]

    return run


def read_jobs_csv(folder) -> pd.DataFrame:
    """jobs.csv as docs/usage.md reads it."""
    return pd.read_csv(
        folder / "jobs.csv",
        parse_dates=["submit_time", "start_time", "end_time", "fail_time", "stop_time"]
        if "fail_time" in pd.read_csv(folder / "jobs.csv", nrows=0).columns
        else ["submit_time", "start_time", "end_time"],
        dtype={"user": str, "failure_reason": str, "failure_log": str},
    )
