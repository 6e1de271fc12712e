"""acmesim for notebooks: run scenarios, compare policies, generate and characterize traces,
with results as pandas DataFrames (docs/usage.md "Python").

    import acmesim
    result = acmesim.run("configs/seren.yaml", set={"scheduler": "sjf", "cluster.nodes": 250}, seed=2)
    result.jobs.groupby("type")["queue"].mean()

Every function does what the `acmesim` command of its name does, in the same C++ (the extension
`_acmesim`): tables come back as columns of numpy arrays, never through CSV text. Bad input raises
`acmesim.InputError` (a ValueError) whose message names its place, as the command prints it.
"""

from __future__ import annotations

import datetime as _datetime
import io as _io
import json as _json
import numbers as _numbers
import os as _os
import tempfile as _tempfile
from collections.abc import Mapping as _Mapping
from dataclasses import dataclass as _dataclass

import numpy as _np
import pandas as _pd

from . import _acmesim
from ._acmesim import InputError, __version__

__all__ = ["InputError", "Result", "run", "compare", "synth", "stats", "__version__"]

_default_scenario = _acmesim.default_scenario


@_dataclass(frozen=True, eq=False)  # eq: DataFrames have no single truth value
class Result:
    """One run: what `acmesim run` writes, as Python values.

    jobs: jobs.csv's columns in its order (docs/usage.md "Outputs"): times as datetimes in the
        trace's UTC offset (submit_time, start_time, end_time) and, last, as seconds since the
        trace's epoch (submit_s, start_s, end_s); NaN, NaT or None where jobs.csv leaves a cell
        empty.
    timeline: timeline.csv's columns.
    summary: summary.json's content.
    """

    jobs: _pd.DataFrame
    timeline: _pd.DataFrame
    summary: dict
    fingerprint: str
    events: int


def _yaml_text(value, top_level=True) -> str:
    """A Python value as the YAML text `--set KEY=VALUE` takes. A top-level str is passed as is,
    as on the command line (so "{name: sjf}" works); nested strings are quoted."""
    if isinstance(value, str):
        return value if top_level else _json.dumps(value)
    if value is None:
        return "null"
    if isinstance(value, (bool, _np.bool_)):
        return "true" if value else "false"
    if isinstance(value, _numbers.Integral):
        return str(int(value))
    if isinstance(value, _numbers.Real):
        number = float(value)
        if number != number:
            return ".nan"
        if number in (float("inf"), float("-inf")):
            return ".inf" if number > 0 else "-.inf"
        return repr(number)
    if isinstance(value, _Mapping):
        items = (f"{_json.dumps(str(k))}: {_yaml_text(v, False)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_yaml_text(v, False) for v in value) + "]"
    raise TypeError(f"acmesim: cannot pass a {type(value).__name__} as a scenario value: {value!r}")


def _overrides(set, seed) -> list:
    overrides = [f"{key}={_yaml_text(value)}" for key, value in (set or {}).items()]
    if seed is not None:
        overrides.append(f"seed={_yaml_text(seed)}")
    return overrides


def _scenario_path(scenario) -> str:
    return _os.fspath(scenario) if scenario is not None else _default_scenario


def _timezone(minutes: int) -> _datetime.timezone:
    return _datetime.timezone(_datetime.timedelta(minutes=minutes))


def _datetimes(seconds: _np.ndarray, epoch_unix_seconds: int, tz: _datetime.timezone):
    """Instants `seconds` after the epoch, in whole seconds as the CSV outputs write them; NaN -> NaT.
    In place where numpy allows: each temporary array of a million rows is memory to fault in."""
    whole = _np.multiply(seconds, 1000.0)
    _np.round(whole, out=whole)  # the simulator's milliseconds again, exactly
    _np.divide(whole, 1000.0, out=whole)  # then floor: exact for whole milliseconds (floor_divide is slow)
    _np.floor(whole, out=whole)
    missing = _np.isnan(whole)
    whole[missing] = 0
    ns = whole.astype(_np.int64)
    ns += epoch_unix_seconds
    ns *= 1_000_000_000
    ns[missing] = _np.iinfo(_np.int64).min  # NaT
    # The values are UTC instants; the dtype shows them in the trace's offset.
    return _pd.arrays.DatetimeArray(ns.view("M8[ns]"), dtype=_pd.DatetimeTZDtype(tz=tz))


def _frame(table: dict, epoch_unix_seconds: int, utc_offset_minutes: int) -> _pd.DataFrame:
    """A DataFrame of one of the extension's tables ({"columns", "times"}): (codes, categories)
    pairs become Categoricals and the datetime columns (None among the columns) are made from
    their seconds in "times"."""
    tz = _timezone(utc_offset_minutes)
    data = {}
    for name, values in table["columns"].items():
        if values is None:
            values = _datetimes(table["times"][name], epoch_unix_seconds, tz)
        elif isinstance(values, tuple):
            codes, categories = values
            values = _pd.Categorical.from_codes(codes, categories=categories)
        data[name] = values
    return _pd.DataFrame(data, copy=False)


def run(scenario=None, *, set=None, seed=None) -> Result:
    """Runs a scenario as `acmesim run SCENARIO --set KEY=VALUE ... --seed SEED` does.

    scenario: a scenario YAML file (default: the bundled configs/default.yaml).
    set: {key: value} overrides, keys dotted as for --set ("cluster.nodes"); values are str
        (YAML text, as typed after --set KEY=), numbers, bools, dicts or lists.
    seed: the seed of every random stream.
    Paths in `set` (trace=...) are relative to the working directory, as on the command line.
    """
    call = f"acmesim.run({scenario!r}, set={set!r}, seed={seed!r})"  # summary.json's provenance
    return _result(_acmesim.simulate(_scenario_path(scenario), _overrides(set, seed), _os.getcwd(), call))


def _result(finished) -> Result:
    return Result(
        jobs=_jobs_frame(finished),
        timeline=_frame(finished.timeline(), finished.epoch_unix_seconds, finished.utc_offset_minutes),
        summary=_json.loads(finished.summary_json()),
        fingerprint=finished.fingerprint,
        events=finished.events,
    )


def _jobs_frame(finished) -> _pd.DataFrame:
    return _frame(finished.jobs(), finished.epoch_unix_seconds, finished.utc_offset_minutes)


def compare(scenario=None, *, schedulers=None, placements=None, set=None, seed=None, threads=None) -> _pd.DataFrame:
    """Runs every scheduler x placement on one trace, as `acmesim compare` does, in `threads`
    threads (default: one per core; results do not depend on it). Returns compare.csv's table:
    one row per variant and job type, then the variant's `all` row (df[df.type == "all"] holds
    one row per variant). An empty or absent list means the scenario's own policy."""
    text = _acmesim.compare(
        _scenario_path(scenario),
        _overrides(set, seed),
        _os.getcwd(),
        list(schedulers or []),
        list(placements or []),
        int(threads or 0),
    )
    return _pd.read_csv(_io.StringIO(text))


def synth(profile="seren", *, days=None, jobs=None, load=1.0, seed=1, out=None) -> _pd.DataFrame:
    """Generates a trace as `acmesim synth` does and returns its jobs: the trace file's columns,
    times as in run()'s jobs (submit_s/submit_time, ...). `out` also writes the trace file (.csv,
    or .csv.gz), which run(set={"trace": out}) replays."""
    raw = _acmesim.synth(
        _os.fspath(profile), days, jobs, float(load), int(seed), None if out is None else _os.fspath(out)
    )
    return _frame(raw["jobs"], raw["epoch_unix_seconds"], raw["utc_offset_minutes"])


_TRACE_COLUMNS = [
    "job_id", "user", "node_num", "gpu_num", "cpu_num", "type", "state",
    "submit_time", "start_time", "end_time", "duration", "queue", "gpu_time",
]  # fmt: skip


def stats(trace, *, compare=None, skip_bad_rows=False) -> dict:
    """The paper's characterization of a trace, as `acmesim stats --format json` gives it.

    trace: a trace file (AcmeTrace CSV, plain or gzip, or a jobs.csv), or a jobs DataFrame from
        run() or synth() (written to a temporary trace file first).
    compare: "seren", "kalos" or a reference YAML file: each metric then holds its value, the
        reference, the difference and whether the target is met.
    """
    if isinstance(trace, _pd.DataFrame):
        with _tempfile.TemporaryDirectory(prefix="acmesim-") as folder:
            path = _os.path.join(folder, "trace.csv")
            _write_trace(trace, path)
            return _json.loads(_acmesim.stats(path, compare, skip_bad_rows))
    return _json.loads(_acmesim.stats(_os.fspath(trace), compare, skip_bad_rows))


def _write_trace(jobs: _pd.DataFrame, path: str) -> None:
    """The jobs' AcmeTrace columns as a trace file the reader takes (times in UTC)."""
    trace = jobs[_TRACE_COLUMNS].copy()
    for name in ("submit_time", "start_time", "end_time"):
        trace[name] = trace[name].dt.tz_convert("UTC").dt.tz_localize(None)
    trace.to_csv(path, index=False, date_format="%Y-%m-%d %H:%M:%S")
