"""acmesim.run(): the values of `acmesim run`'s outputs, as DataFrames and a dict."""

import datetime
import json

import numpy as np
import pandas as pd
import pytest

import acmesim
from conftest import FAULTS_SCENARIO, FAULTS_SET, SMALL_SET, SOURCE_DIR, read_jobs_csv

TIMES = {"submit_time": "submit_s", "start_time": "start_s", "end_time": "end_s"}
# jobs.csv writes these with four decimals; the module keeps every digit.
FOUR_DECIMALS = {"ettr", "slowdown"}


def assert_same_column(name, ours: pd.Series, written: pd.Series):
    if name in FOUR_DECIMALS:
        np.testing.assert_allclose(ours.to_numpy(float), written.to_numpy(float), rtol=0, atol=5.01e-5, err_msg=name)
    elif pd.api.types.is_numeric_dtype(written) and not pd.api.types.is_bool_dtype(written):
        np.testing.assert_array_equal(ours.to_numpy(float), written.to_numpy(float), err_msg=name)
    elif pd.api.types.is_datetime64_any_dtype(written):
        assert ours.dt.tz_convert("UTC").equals(written.dt.tz_convert("UTC")), name
    else:  # text: a missing value is NaN in the CSV's frame, None or NaN in ours
        assert ours.astype(object).where(ours.notna(), None).tolist() == written.astype(object).where(
            written.notna(), None
        ).tolist(), name


KALOS_SCENARIO = SOURCE_DIR / "configs" / "kalos.yaml"


@pytest.mark.parametrize(
    "scenario, overrides",
    [(FAULTS_SCENARIO, FAULTS_SET), (FAULTS_SCENARIO, SMALL_SET), (KALOS_SCENARIO, {})],
    ids=["failures-and-recovery", "too-small-cluster", "kalos-columns"],
)
def test_a_run_returns_jobs_with_the_same_values_as_jobs_csv(command_run, scenario, overrides):
    written = read_jobs_csv(command_run(scenario, overrides, 3))
    jobs = acmesim.run(scenario, set=overrides, seed=3).jobs
    assert len(jobs) == len(written) > 1000
    assert list(jobs.columns) == list(written.columns)  # jobs.csv's, in its order
    for name in written.columns:
        assert_same_column(name, jobs[name], written[name])
    for time_name, seconds_name in TIMES.items():
        assert jobs[time_name].isna().equals(jobs[seconds_name].isna())
    if scenario is KALOS_SCENARIO:
        assert {"mem_per_pod_GB", "shared_mem_per_pod", "fail_time", "stop_time"} <= set(jobs.columns)
        assert jobs.fail_time.notna().any() and jobs.stop_time.notna().any()
    elif overrides is FAULTS_SET:
        for name in ("failure_log", "failure_reason"):
            assert jobs[name].notna().any(), name
        for name in ("preemptions", "failures", "lost_gpu_time", "checkpoint_gpu_time", "recovery_wait",
                     "manual_interventions", "switch_groups"):  # fmt: skip
            assert jobs[name].any(), name
    else:
        assert set(jobs.outcome) == {"ran", "unschedulable"}


def test_strings_with_few_values_are_categorical_and_counts_are_integers():
    jobs = acmesim.run(FAULTS_SCENARIO, set=FAULTS_SET).jobs
    for name in ("user", "type", "state", "outcome", "failure_reason"):
        assert isinstance(jobs[name].dtype, pd.CategoricalDtype), name
    for name in ("node_num", "gpu_num", "cpu_num", "attempts", "preemptions", "failures", "switch_groups"):
        assert pd.api.types.is_integer_dtype(jobs[name]), name
    # job_id: integers where every id is a plain integer, as pandas.read_csv reads the column.
    assert pd.api.types.is_integer_dtype(jobs.job_id)


def test_job_times_are_datetimes_in_the_trace_utc_offset(command_run):
    jobs = acmesim.run(FAULTS_SCENARIO, set=FAULTS_SET, seed=3).jobs
    assert jobs.submit_time.dt.tz.utcoffset(None) == datetime.timedelta(hours=8)  # Seren writes +08:00
    written = read_jobs_csv(command_run(FAULTS_SCENARIO, FAULTS_SET, 3))
    assert str(jobs.submit_time[0]) == str(written.submit_time[0])


def test_a_run_returns_the_timeline_of_timeline_csv(command_run):
    written = pd.read_csv(command_run(FAULTS_SCENARIO, FAULTS_SET, 3) / "timeline.csv", parse_dates=["time"])
    timeline = acmesim.run(FAULTS_SCENARIO, set=FAULTS_SET, seed=3).timeline
    assert list(timeline.columns) == list(written.columns)
    for name in written.columns:
        if name == "gpu_allocation":  # four decimals in timeline.csv
            np.testing.assert_allclose(timeline[name], written[name], rtol=0, atol=5.01e-5)
        else:
            assert_same_column(name, timeline[name], written[name])


def test_a_run_has_the_fingerprint_and_summary_of_summary_json(command_run):
    summary = json.loads((command_run(FAULTS_SCENARIO, FAULTS_SET, 3) / "summary.json").read_text())
    result = acmesim.run(FAULTS_SCENARIO, set=FAULTS_SET, seed=3)
    assert result.fingerprint == summary["fingerprint"]
    assert result.events == summary["events"]
    # The same content but for how the run was asked for (provenance: a command line, or a Python call).
    assert result.summary.keys() == summary.keys()
    for key in summary.keys() - {"provenance"}:
        assert result.summary[key] == summary[key], key
    assert result.summary["provenance"]["scenario_id"] == summary["provenance"]["scenario_id"]
    assert result.summary["scenario"]["seed"] == 3


def test_set_cluster_nodes_changes_the_result():
    week = {"trace": FAULTS_SET["trace"]}
    default = acmesim.run(FAULTS_SCENARIO, set=week)
    smaller = acmesim.run(FAULTS_SCENARIO, set={**week, "cluster.nodes": 150})
    assert smaller.summary["scenario"]["cluster"]["nodes"] == 150
    assert smaller.fingerprint != default.fingerprint
    assert smaller.jobs.queue.mean() > default.jobs.queue.mean()


def test_set_takes_python_values_as_the_command_line_takes_yaml(command_run):
    # FAULTS_SET holds a dict (a flow mapping on the command line) and plain strings.
    summary = json.loads((command_run(FAULTS_SCENARIO, FAULTS_SET, 3) / "summary.json").read_text())
    assert acmesim.run(FAULTS_SCENARIO, set=FAULTS_SET, seed=3).fingerprint == summary["fingerprint"]
    as_text = {**FAULTS_SET, "failures": "{name: node-mtbf, rate_per_day: 0.02}"}
    assert acmesim.run(FAULTS_SCENARIO, set=as_text, seed=3).fingerprint == summary["fingerprint"]
    assert acmesim._yaml_text({"a": [1, 2.5, True, None, "x y"]}) == '{"a": [1, 2.5, true, null, "x y"]}'


def test_the_seed_changes_the_result():
    faults = {**FAULTS_SET, "failures": {"name": "node-mtbf", "rate_per_day": 0.05}}
    one, two = (acmesim.run(FAULTS_SCENARIO, set=faults, seed=seed) for seed in (1, 2))
    assert one.fingerprint != two.fingerprint
    assert one.summary["scenario"]["seed"] == 1 and two.summary["scenario"]["seed"] == 2
    assert acmesim.run(FAULTS_SCENARIO, set=faults, seed=1).fingerprint == one.fingerprint


def test_without_a_scenario_the_bundled_default_runs():
    result = acmesim.run(set={"trace": FAULTS_SET["trace"]})
    assert result.summary["scenario"]["name"] == "default"
    provenance = result.summary["provenance"]
    assert provenance["scenario_source"] == str(SOURCE_DIR / "configs" / "default.yaml")
    assert provenance["command_line"].startswith("acmesim.run(None, set={'trace': ")


def test_an_unknown_scheduler_raises_input_error_naming_the_place():
    with pytest.raises(acmesim.InputError, match=r"--set scheduler.*'fifoo'.*did you mean 'fifo'") as error:
        acmesim.run(FAULTS_SCENARIO, set={"scheduler": "fifoo"})
    assert isinstance(error.value, ValueError)


def test_a_bad_value_in_the_scenario_file_names_its_line_and_column(tmp_path):
    scenario = tmp_path / "bad.yaml"
    scenario.write_text(f"trace: {FAULTS_SET['trace']}\ncluster:\n  nodes: many\n")
    with pytest.raises(acmesim.InputError, match=rf"{scenario}:3:10: cluster.nodes"):
        acmesim.run(scenario)


def test_a_missing_trace_raises_input_error():
    with pytest.raises(acmesim.InputError, match="nothing.csv"):
        acmesim.run(FAULTS_SCENARIO, set={"trace": "nothing.csv"})


def test_a_value_that_is_no_yaml_raises_type_error():
    with pytest.raises(TypeError, match="cannot pass a object"):
        acmesim.run(FAULTS_SCENARIO, set={"seed": object()})
