#!/usr/bin/env python3
"""Snapshots of flextile's generated code (`make snapshot`; `tests/snapshots.rs`).

Every run flextile makes in the testsuite and the benchmarks is listed with
the hash of what it wrote, in `tests/snapshots/manifest.tsv`:

- each program of `testsuite/programs` under every option set of its
  `options:` and `falls-back:` lines, as C (`out.c`), and under every set the
  testsuite also checks as CUDA (`out.cu`; the rule is `cuda_sets` in
  `tests/testsuite.rs`: the sets without C-only options, and the first
  `--rectangle` and `--scalene` sets again under the other GPU schemes);
- each benchmark of `benchmarks/` under the variants of `bench/run.py` (C) and
  of `bench/gpu.py` (CUDA).

One row per run: the input, the target, the options, flextile's exit status
and the SHA-256 of the output (`-` where nothing was written). For review,
`tests/snapshots/text/` keeps the full text of one output per input and target
(its first option set, else the first that writes one).

    tools/snapshot.py --write [--flextile BIN]   rewrite the manifest and texts
    tools/snapshot.py --check [--flextile BIN]   compare; exit 1 and name the
                                                 runs that changed
    tools/snapshot.py --check --sample           only the first run of each input
                                                 and target (make check's tier)
    tools/snapshot.py --check --only REGEX       only the inputs REGEX finds
    tools/snapshot.py --check --share K/N        the sample and one share in N of
                                                 the other runs (make test's tier)

Runs use the fixed machine of `cargo test` (`FLEXTILE_MACHINE`, from
`.cargo/config.toml`) and paths relative to the repository, so that the
outputs do not depend on the machine or the checkout's place.
"""
import argparse
import concurrent.futures
import hashlib
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SNAP = ROOT / "tests" / "snapshots"
MANIFEST = SNAP / "manifest.tsv"
TEXT = SNAP / "text"
sys.path.insert(0, str(ROOT / "bench"))
import run as bench_cpu  # noqa: E402  (the benchmarks' programs and CPU variants)
import gpu as bench_gpu  # noqa: E402  (their CUDA variants)

META = re.compile(r"flextile-test:\s*([a-z-]+):\s*(.*)")
# Options of the C target only, or of the CPU's cost model: such sets do not
# run as CUDA (`runs_as_cuda` in tests/testsuite.rs).
C_ONLY = {"--no-openmp", "--stack-limit", "--cores", "--cache-sizes", "--cost-weights"}
# The other GPU schemes the testsuite runs the first set of each shape under.
SCHEMES = {
    "--rectangle": [["--gpu-tiling", "warp"], ["--gpu-tiling", "hybrid"]],
    "--scalene": [["--gpu-tiling", "block"], ["--gpu-tiling", "hybrid", "--reg-fraction", "1"]],
}


def machine():
    """The FLEXTILE_MACHINE value of .cargo/config.toml."""
    text = (ROOT / ".cargo" / "config.toml").read_text()
    m = re.search(r'FLEXTILE_MACHINE\s*=\s*"([^"]+)"', text)
    if not m:
        sys.exit("tools/snapshot.py: no FLEXTILE_MACHINE in .cargo/config.toml")
    return m.group(1)


def option_sets(value):
    """The option sets of a `options:` line ('default' is no options)."""
    return [[] if alt.strip() == "default" else shlex.split(alt) for alt in value.split("|")]


def cuda_sets(options):
    """The option sets the testsuite also checks as CUDA (tests/testsuite.rs, cuda_sets)."""
    out, done = [], set()
    for o in options:
        if any(w in C_ONLY for w in o):
            continue
        out.append(o)
        shape = next((s for s in ("--rectangle", "--scalene") if s in o), None)
        if shape and shape not in done and "--gpu-tiling" not in o:
            done.add(shape)
            for scheme in SCHEMES[shape]:
                kept = [w for w in o if "hybrid" not in scheme or w != "--fatal-warnings"]
                out.append(kept + scheme)
    return out


def testsuite_runs():
    """(input, target, options) of every testsuite program's runs."""
    runs = []
    for src in sorted((ROOT / "testsuite" / "programs").glob("*.c")):
        meta = {}
        for line in src.read_text(errors="replace").splitlines():
            m = META.search(line)
            if m:
                meta[m.group(1)] = m.group(2).strip()
        rel = str(src.relative_to(ROOT))
        options = option_sets(meta.get("options", "default"))
        fallback = option_sets(meta["falls-back"]) if "falls-back" in meta else []
        runs += [(rel, "c", o) for o in options + fallback]
        runs += [(rel, "cuda", o) for o in cuda_sets(options)]
    return runs


def bench_runs():
    """(input, target, options) of every benchmark variant of make bench and make bench-gpu."""
    runs = []
    for prog in bench_cpu.PROGRAMS:
        rel = f"benchmarks/{prog}.c"
        for name, opts in bench_cpu.VARIANTS:
            if opts is None or name in bench_cpu.ALL_STORED:
                continue
            if any("{D}" in o for o in opts) and prog not in bench_cpu.OVERLAP_DIMS:
                continue
            sizes = bench_cpu.tiles_for(prog, name)
            dims = bench_cpu.OVERLAP_DIMS.get(prog, "")
            runs.append((rel, "c", [o.replace("{T}", sizes).replace("{D}", dims) for o in opts]))
        runs += [(rel, "cuda", list(opts)) for _, opts in bench_gpu.VARIANTS]
    return runs


def extra_args(src):
    """Arguments every run of src takes (the benchmarks include their common header)."""
    return ["-I", "benchmarks"] if src.startswith("benchmarks/") else []


def run_one(flextile, env, job):
    """Runs one job; returns (job, exit status, sha256 or '-', output text or None)."""
    src, target, opts = job
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / ("out.cu" if target == "cuda" else "out.c")
        cmd = [flextile, src, "-o", str(out)] + extra_args(src) + opts
        r = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if not out.exists():
            return job, r.returncode, "-", None
        data = out.read_bytes().replace(str(out).encode(), b"OUT")
        return job, r.returncode, hashlib.sha256(data).hexdigest(), data


def key(job):
    """A manifest row's key: input, target, options."""
    src, target, opts = job
    return f"{src}\t{target}\t{shlex.join(opts) or 'default'}"


def text_name(src, target):
    """The file name of the review text of src's output for target."""
    stem = src.replace("/", "__").removesuffix(".c")
    return f"{stem}.{'cu' if target == 'cuda' else 'c'}"


def selected(jobs, sample, share, only):
    """The jobs to run: with sample, the first of each input and target; with
    share, those and the share's others; with only, of the inputs it finds."""
    if sample or share:
        first = first_of_each(jobs)
        jobs = [j for j in jobs if j in first or (share and in_share(j, share))]
    return [j for j in jobs if not only or re.search(only, j[0])]


def first_of_each(jobs):
    """The first job of each input and target (the runs the review texts show)."""
    seen, out = set(), []
    for job in jobs:
        if (job[0], job[1]) not in seen:
            seen.add((job[0], job[1]))
            out.append(job)
    return out


def in_share(job, share):
    """Whether job is in share (k, n): a stable hash of its key, modulo n."""
    k, n = share
    return int(hashlib.sha256(key(job).encode()).hexdigest()[:8], 16) % n == k


def run_all(flextile, jobs_n, select):
    """Every run, or those select keeps (see `selected`), in order:
    [(job, status, hash, data)]."""
    env = dict(os.environ, FLEXTILE_MACHINE=machine())
    jobs = selected(testsuite_runs() + bench_runs(), *select)
    done = 0
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs_n) as pool:
        for res in pool.map(lambda j: run_one(flextile, env, j), jobs):
            results.append(res)
            done += 1
            if done % 200 == 0 or done == len(jobs):
                print(f"snapshot: {done}/{len(jobs)} runs", file=sys.stderr, flush=True)
    return results


def manifest_text(results):
    """The manifest: a header line and one row per run."""
    rows = ["# input\ttarget\toptions\texit\tsha256 (tools/snapshot.py --write rewrites this file)"]
    rows += [f"{key(job)}\t{status}\t{digest}" for job, status, digest, _ in results]
    return "\n".join(rows) + "\n"


def review_texts(results):
    """{file name: text}: one output per input and target, the first run that wrote one."""
    texts = {}
    for (src, target, _), _, _, data in results:
        name = text_name(src, target)
        if data is not None and name not in texts:
            texts[name] = data
    return texts


def write(results):
    """Rewrites the manifest and the review texts."""
    SNAP.mkdir(parents=True, exist_ok=True)
    MANIFEST.write_text(manifest_text(results))
    TEXT.mkdir(exist_ok=True)
    texts = review_texts(results)
    for old in TEXT.iterdir():
        if old.name not in texts:
            old.unlink()
    for name, data in texts.items():
        (TEXT / name).write_bytes(data)
    print(f"snapshot: wrote {MANIFEST.relative_to(ROOT)} ({len(results)} runs) and {len(texts)} texts")


def parse_manifest(text):
    """{key: (exit, hash)} of a manifest's rows."""
    rows = {}
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        src, target, opts, status, digest = line.split("\t")
        rows[f"{src}\t{target}\t{opts}"] = (status, digest)
    return rows


def check(results, partial=False):
    """Compares with the manifest (partial: only the rows run); returns the
    number of differences, printed one per line."""
    if not MANIFEST.exists():
        print(f"snapshot: no {MANIFEST.relative_to(ROOT)}: run `make snapshot`")
        return 1
    old = parse_manifest(MANIFEST.read_text())
    new = {key(job): (str(status), digest) for job, status, digest, _ in results}
    diffs = []
    for k in new.keys() | (set() if partial else old.keys()):
        if old.get(k) != new.get(k):
            was, now = old.get(k, ("-", "absent")), new.get(k, ("-", "absent"))
            diffs.append(f"  {k.replace(chr(9), ' | ')}: exit {was[0]} -> {now[0]}, "
                         f"output {was[1][:12]} -> {now[1][:12]}")
    texts = review_texts(results)
    stale = [n for n, data in texts.items() if not (TEXT / n).exists() or (TEXT / n).read_bytes() != data]
    diffs += [f"  tests/snapshots/text/{n}: differs from the output it reviews" for n in sorted(stale)]
    if diffs:
        print(f"snapshot: {len(diffs)} of {len(new)} runs differ from tests/snapshots/manifest.tsv:")
        print("\n".join(sorted(diffs)))
        print("To see a diff: build the previous commit's flextile and run both on the input with the\n"
              "options shown (from the repository root, FLEXTILE_MACHINE as in .cargo/config.toml), then\n"
              "diff the outputs. Once reviewed, `make snapshot` records the new outputs.")
    else:
        print(f"snapshot: all {len(new)} runs match tests/snapshots/manifest.tsv")
    return len(diffs)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--check", action="store_true")
    ap.add_argument("--flextile", default=str(ROOT / "target" / "release" / "flextile"))
    ap.add_argument("--sample", action="store_true", help="--check: the first run of each input and target")
    ap.add_argument("--share", metavar="K/N", help="--check: the sample and one share in N of the rest")
    ap.add_argument("--only", metavar="REGEX", help="--check: the inputs whose path REGEX finds")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    share = None
    if a.share:
        m = re.fullmatch(r"(\d+)/(\d+)", a.share)
        if not m or int(m.group(2)) == 0 or int(m.group(1)) >= int(m.group(2)):
            ap.error(f"--share {a.share}: expected K/N with 0 <= K < N")
        share = (int(m.group(1)), int(m.group(2)))
    partial = a.sample or bool(share) or bool(a.only)
    if a.write and partial:
        ap.error("--sample, --share and --only go with --check: the manifest lists every run")
    results = run_all(a.flextile, a.j, (a.sample, share, a.only))
    if a.write:
        write(results)
        return 0
    return 1 if check(results, partial) else 0


if __name__ == "__main__":
    sys.exit(main())
