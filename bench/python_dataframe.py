#!/usr/bin/env python3
"""How long the Python module takes to hand a run's jobs to pandas, against reading the jobs.csv of
the same run (docs/performance.md "Python module").

    PYTHONPATH=build/python python3 bench/python_dataframe.py [--jobs 1000000] [--repeats 3]

Generates a Seren trace of --jobs jobs with `acmesim synth` (once, kept in --work), runs it under
configs/default.yaml (fifo + pack) with `acmesim run` for its jobs.csv, then times, in this process,
median of --repeats each: the module's jobs DataFrame made from a finished run (the C++ filling
numpy arrays and pandas wrapping them), pd.read_csv of jobs.csv, and pd.read_csv with the
parse_dates docs/usage.md shows. Also the whole acmesim.run() against `acmesim run` + read_csv.
"""

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import time

import pandas as pd

import acmesim

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[1]
SCENARIO = SOURCE_DIR / "configs" / "default.yaml"
PARSE_DATES = ["submit_time", "start_time", "end_time"]


def median_seconds(work, repeats):
    """Median wall and CPU seconds of `work` (single-threaded, so on a machine shared with other
    work the CPU time is what an idle machine's wall time would be)."""
    wall, cpu = [], []
    for _ in range(repeats):
        started, started_cpu = time.perf_counter(), time.process_time()
        work()
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    return statistics.median(wall), statistics.median(cpu)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--work", type=pathlib.Path, default=pathlib.Path("/tmp/acmesim-python-bench"))
    parser.add_argument("--binary", default=os.environ.get("ACMESIM_BINARY", SOURCE_DIR / "build" / "acmesim"))
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    trace = args.work / f"seren_{args.jobs}.csv"
    if not trace.exists():
        subprocess.run(
            [args.binary, "synth", "--profile", "seren", "--jobs", str(args.jobs), "--seed", "1", "-o", trace],
            check=True,
        )
    out = args.work / "out"
    overrides = {"trace": str(trace)}
    command = [args.binary, "run", SCENARIO, "-o", out, "--force", "--quiet", "--set", f"trace={trace}"]
    started = time.perf_counter()
    subprocess.run(command, check=True)
    command_seconds = time.perf_counter() - started
    jobs_csv = out / "jobs.csv"

    finished = acmesim._acmesim.simulate(str(SCENARIO), acmesim._overrides(overrides, None), os.getcwd(), "bench")
    rows = len(acmesim._jobs_frame(finished))
    to_frame = median_seconds(lambda: acmesim._jobs_frame(finished), args.repeats)
    del finished
    read_csv = median_seconds(lambda: pd.read_csv(jobs_csv), args.repeats)
    read_csv_dates = median_seconds(lambda: pd.read_csv(jobs_csv, parse_dates=PARSE_DATES), args.repeats)
    whole_run = median_seconds(lambda: acmesim.run(SCENARIO, set=overrides), args.repeats)

    print(f"jobs: {rows:,} ({jobs_csv.stat().st_size / 2**20:.0f} MiB of jobs.csv); medians of {args.repeats}")
    print(f"{'':48} {'wall':>8} {'CPU':>8} {'CPU ratio':>10}")
    rows_out = [
        ("module: finished run -> jobs DataFrame", to_frame),
        ("pd.read_csv(jobs.csv)", read_csv),
        ("pd.read_csv(jobs.csv, parse_dates=[3 times])", read_csv_dates),
        ("acmesim.run(): read, simulate, all DataFrames", whole_run),
    ]
    for label, (wall, cpu) in rows_out:
        print(f"{label:48} {wall:7.3f}s {cpu:7.3f}s {cpu / to_frame[1]:9.1f}x")
    print(f"{'`acmesim run` (one run, whole process)':48} {command_seconds:7.3f}s")
    return 0 if read_csv[1] / to_frame[1] >= 10 else 1


if __name__ == "__main__":
    sys.exit(main())
