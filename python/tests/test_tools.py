"""acmesim.compare(), synth() and stats(): what `acmesim compare`, `synth` and `stats` give."""

import json
import subprocess

import numpy as np
import pandas as pd
import pytest

import acmesim
from conftest import BINARY, FAULTS_SCENARIO, FAULTS_SET, SOURCE_DIR, set_arguments

WEEK = {"trace": FAULTS_SET["trace"]}


def command(*arguments):
    return subprocess.run([str(BINARY), *map(str, arguments)], check=True, cwd=SOURCE_DIR, capture_output=True).stdout


def test_compare_gives_the_table_of_compare_csv_with_the_fingerprints_of_separate_runs(tmp_path):
    table = acmesim.compare(FAULTS_SCENARIO, schedulers=["fifo", "sjf"], placements=["pack", "spread"], set=WEEK)
    command("compare", FAULTS_SCENARIO, "--schedulers", "fifo,sjf", "--placements", "pack,spread", "-o", tmp_path,
            "--quiet", *set_arguments(WEEK))  # fmt: skip
    pd.testing.assert_frame_equal(table, pd.read_csv(tmp_path / "compare.csv"))
    variants = table[table.type == "all"]
    assert list(zip(variants.scheduler, variants.placement)) == [
        ("fifo", "pack"), ("fifo", "spread"), ("sjf", "pack"), ("sjf", "spread"),
    ]  # fmt: skip
    sjf = acmesim.run(FAULTS_SCENARIO, set={**WEEK, "scheduler": "sjf"})
    assert variants.fingerprint.iloc[2] == sjf.fingerprint


def test_compare_without_lists_runs_the_scenario_policies():
    table = acmesim.compare(FAULTS_SCENARIO, set=WEEK, seed=2, threads=1)
    assert set(table.scheduler) == {"slurm"} and set(table.placement) == {"pack"}
    assert table.fingerprint.iloc[0] == acmesim.run(FAULTS_SCENARIO, set=WEEK, seed=2).fingerprint


def test_compare_with_an_unknown_placement_raises_input_error():
    with pytest.raises(acmesim.InputError, match="placement.*'packk'"):
        acmesim.compare(FAULTS_SCENARIO, placements=["packk"], set=WEEK)


def test_synth_returns_the_jobs_of_the_trace_acmesim_synth_writes(tmp_path):
    jobs = acmesim.synth("seren", days=2, seed=3, out=tmp_path / "ours.csv")
    command("synth", "--profile", "seren", "--days", 2, "--seed", 3, "-o", tmp_path / "theirs.csv")
    assert (tmp_path / "ours.csv").read_bytes() == (tmp_path / "theirs.csv").read_bytes()
    written = pd.read_csv(tmp_path / "theirs.csv", parse_dates=["submit_time", "start_time", "end_time"],
                          dtype={"user": str})  # fmt: skip
    assert len(jobs) == len(written) > 1000
    for name in written.columns:
        ours, theirs = jobs[name], written[name]
        if pd.api.types.is_datetime64_any_dtype(theirs):
            assert ours.dt.tz_convert("UTC").equals(theirs.dt.tz_convert("UTC")), name
        elif pd.api.types.is_numeric_dtype(theirs):
            np.testing.assert_array_equal(ours.to_numpy(float), theirs.to_numpy(float), err_msg=name)
        else:
            assert ours.astype(str).tolist() == theirs.astype(str).tolist(), name


def test_a_synthesized_trace_replays_with_run(tmp_path):
    trace = tmp_path / "week.csv.gz"
    jobs = acmesim.synth("kalos", days=1, seed=5, out=trace)
    result = acmesim.run(SOURCE_DIR / "configs" / "kalos.yaml", set={"trace": str(trace)})
    assert len(result.jobs) == len(jobs)
    # Kalos ids are text ("dlc..."): a str per job.
    assert result.jobs.job_id.tolist() == jobs.job_id.tolist()
    assert all(isinstance(job_id, str) and job_id.startswith("dlc") for job_id in jobs.job_id)


def test_synth_with_a_bad_option_raises_input_error():
    with pytest.raises(acmesim.InputError, match="--days"):
        acmesim.synth("seren", days=-1)
    with pytest.raises(acmesim.InputError, match="nowhere.yaml"):
        acmesim.synth("nowhere.yaml")


def test_stats_of_a_trace_are_those_of_acmesim_stats_json():
    trace = FAULTS_SET["trace"]
    assert acmesim.stats(trace) == json.loads(command("stats", trace, "--format", "json"))
    against = acmesim.stats(trace, compare="seren")
    assert against == json.loads(command("stats", trace, "--format", "json", "--compare", "seren"))
    assert against["reference"]["name"] == "Seren (paper)"
    assert set(against["metrics"]["avg_run_time_gpu"]) >= {"value", "reference", "diff", "target_met"}


def test_stats_of_a_jobs_dataframe_are_those_of_its_jobs_csv(command_run):
    written = command_run(FAULTS_SCENARIO, WEEK, 1) / "jobs.csv"
    ours = acmesim.stats(acmesim.run(FAULTS_SCENARIO, set=WEEK, seed=1).jobs)["metrics"]
    theirs = acmesim.stats(written)["metrics"]
    assert ours.keys() == theirs.keys()
    for key, value in theirs.items():
        assert ours[key] == pytest.approx(value, rel=1e-9, nan_ok=True), key
