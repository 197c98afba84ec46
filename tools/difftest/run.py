#!/usr/bin/env python3
"""Differential testing of flextile on random loop-chain programs (gen.py).

For each generated program: compile the original once (the oracle) and run it
for each of its argument sets; then, for each of the program's option sets,
run flextile, compile its output with the same gcc command, run it with
OMP_NUM_THREADS=1, =2, and =2 under the reverse-start shim
(testsuite/omp_reverse_start.c: threads' shares run last to first, so a loop
wrongly marked parallel gives different bits whatever the machine's load),
and compare stdout byte for byte with the original's.

A *case* is one (program, option set) pair. Failures:
  mismatch         generated program's stdout differs from the original's
  run-error        generated program exits non-zero or is killed
  timeout          generated program runs past the time limit
  flextile-crash   flextile exits 2 (internal error) or dies on a signal
  flextile-reject  flextile exits 1 on a program the generator made valid
  flextile-timeout flextile runs past its time limit
  flextile-memory  flextile needs more than 3 GB
  cc-error         the generated C does not compile
  cc-timeout       the generated C takes more than CC_TIMEOUT s to compile
  generator        the original itself does not compile or run (a gen.py bug)
Each failing case is minimised (regions, nests, statements, terms, argument
sets, sizes, offsets, domains and schedule items are cut while the same kind
of failure remains) and, unless --no-save, written to
testsuite/programs/regress_<seed>_<n>.c with its `flextile-test:` metadata
(add its name to the `programs` list in tests/testsuite.rs).

Usage: run.py [-n CASES] [--seed SEED] [-j JOBS] [--keep] [--no-save]
The last line is `N passed, M failed`; the exit status is 1 when M > 0.
"""

import argparse
import json
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import gen  # noqa: E402

CC = os.environ.get("CC", "gcc")
CFLAGS = ["-O2", "-std=gnu99", "-fopenmp", "-ffp-contract=off", "-fno-fast-math", "-Wno-unknown-pragmas"]
FLEXTILE_TIMEOUT = 60
CC_TIMEOUT = 120
RUN_TIMEOUT = 20
MEMORY_LIMIT = 3 << 30  # address space for one flextile run
MODES = [("1", False), ("2", False), ("2", True)]  # OMP_NUM_THREADS, reverse-start shim
SAN_FLAGS = ["-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]
CASES_PER_PROGRAM = 3
# Where overlapped tiling does not apply (in-place updates in time,
# accumulations, nests of different depths, ...: see the restrictions in
# src/transform/overlap.rs and time_blocks.rs), flextile compiles the region
# without it and warns: such cases are compared like any other. It still
# exits 1 on options a program cannot use (an --overlap-dims or tile size
# that does not fit its nests); such a refusal under these options is
# counted as "declined", not as a failure, unless --strict.
OVERLAP_OPTIONS = ("--rectangle", "--scalene")


# ---------------------------------------------------------------------------
# Option sets


def detect_option_sets(flextile):
    """Option-set templates flextile offers (read from --help). `{sizes}`
    stands for a program's tile sizes."""
    try:
        help_text = subprocess.run([flextile, "--help"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError) as e:
        sys.exit(f"difftest: cannot run {flextile} --help: {e}")
    has = lambda opt: any(w.strip(",") == opt for w in help_text.split())  # noqa: E731
    sets = [[], ["--no-openmp"], ["--tile"], ["--tile", "--tile-sizes", "{sizes}"],
            ["--tile", "--tile-sizes", "{sizes}", "--no-openmp"]]
    if has("--assume"):
        # every argument set has N >= 1, and every region uses N
        sets += [["--assume", "N >= 1"], ["--tile", "--tile-sizes", "{sizes}", "--assume", "N >= 1"]]
    for shape in ("--rectangle", "--scalene"):
        if has(shape):
            # Without sizes the cost model groups and sizes the tiles; with
            # tiny caches its tiles are smaller than the programs' extents.
            sets.append([shape])
            if has("--cache-sizes"):
                sets.append([shape, "--cache-sizes", "512,2K", "--cores", "3"])
            sets.append([shape, "--tile-sizes", "{sizes}"])
            if has("--overlap-dims"):
                sets.append([shape, "--overlap-dims", "{dims}", "--tile-sizes", "{sizes}"])
    global OVERLAP_DIMS
    if has("--overlap-dims") and has("--rectangle"):
        OVERLAP_DIMS = probe_overlap_dims(flextile)
        if not OVERLAP_DIMS:
            sets = [t for t in sets if "--overlap-dims" not in t]
            print("difftest: --overlap-dims accepts none of the probed values; not used", file=sys.stderr)
    return sets, help_text


PROBE_2D = """
void f(int N, double A[N][N], double B[N][N], double C[N][N])
{
#pragma omplc loopchain schedule()
    {
#pragma omplc for domain(1:N-2, 1:N-2) with (i, j) read A {(i-1,j),(i,j+1)}, write B {(i,j)}
        for (int i = 1; i <= N - 2; i++)
            for (int j = 1; j <= N - 2; j++)
                B[i][j] = A[i-1][j] + A[i][j+1];
#pragma omplc for domain(1:N-2, 1:N-2) with (i, j) read B {(i,j-1),(i+1,j)}, write C {(i,j)}
        for (int i = 1; i <= N - 2; i++)
            for (int j = 1; j <= N - 2; j++)
                C[i][j] = B[i][j-1] * B[i+1][j];
    }
}
"""
OVERLAP_DIMS = []  # accepted --overlap-dims values for a 2-D chain, found by probe_overlap_dims


def probe_overlap_dims(flextile):
    """The --overlap-dims spellings flextile accepts on a 2-D chain (its syntax
    and numbering are read from what works, not assumed)."""
    import tempfile
    ok = []
    with tempfile.TemporaryDirectory() as t:
        src = os.path.join(t, "probe.c")
        with open(src, "w") as f:
            f.write(PROBE_2D)
        for v in ["0", "1", "2", "0,1", "1,2"]:
            rc, _, _ = run([flextile, "--rectangle", "--overlap-dims", v, src, "-o", os.path.join(t, "o.c")], 60)
            if rc == 0:
                ok.append(v)
    return ok


def options_text(opts):
    """The option set as the testsuite metadata writes it (double quotes group words)."""
    return " ".join(f'"{w}"' if " " in w else w for w in opts) or "default"


def instantiate(template, prog, k):
    sizes = prog.tile_options[k % len(prog.tile_options)]
    depth = max((n.depth for r in prog.regions for n in r.nests), default=1)
    if any(o in OVERLAP_OPTIONS for o in template) and k % 4 != 0:
        # Overlapped tiling refuses untiled loops (sizes align on the innermost
        # loops): mostly give every loop a size, so that it has work to do.
        sizes = sizes + [sizes[-1]] * (depth - len(sizes))
    out = []
    for w in template:
        if w == "{sizes}":
            out.append(",".join(map(str, sizes)))
        elif w == "{dims}":
            # a single dimension valid for any depth when the probe found one, else the first value
            singles = [v for v in OVERLAP_DIMS if "," not in v]
            out.append(singles[0] if singles and k % 2 == 0 else (OVERLAP_DIMS or ["1"])[k % max(1, len(OVERLAP_DIMS))])
        else:
            out.append(w)
    return out


def option_sets_for(prog_index, prog, templates, per_program):
    """The option sets of one program: a rotation through the templates
    (pipeline and time-stencil programs, those overlapped tiling handles,
    mostly get the overlapped-tiling ones)."""
    overlap = [t for t in templates if any(o in OVERLAP_OPTIONS for o in t)]
    classic = [t for t in templates if t not in overlap]
    sets = []
    for j in range(per_program):
        pool = classic
        if prog.flavor in ("pipeline", "stencil"):
            want_overlap = j < per_program - 1 or per_program == 1
        else:
            want_overlap = j == per_program - 1 and prog_index % 3 == 0
        if overlap and want_overlap:
            pool = overlap
        t = pool[(prog_index * per_program + j) % len(pool)]
        opts = instantiate(t, prog, prog_index + j)
        if opts not in sets:
            sets.append(opts)
    return sets


# ---------------------------------------------------------------------------
# Running things


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run(cmd, timeout, env=None, cwd=None, limit=False):
    """(returncode or 'timeout', stdout bytes, stderr text). `limit`: at most
    MEMORY_LIMIT bytes of address space."""
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout, env=env, cwd=cwd,
                           preexec_fn=limit_memory if limit else None)
        return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        return "timeout", e.stdout or b"", (e.stderr or b"").decode("utf-8", "replace")


def compile_c(src, exe):
    return run([CC] + CFLAGS + ["-o", exe, src, "-lm"], CC_TIMEOUT)


def build_shim(work):
    so = os.path.join(work, "libomp_reverse_start.so")
    if not os.path.exists(so):
        tmp = so + f".{os.getpid()}"
        rc, _, err = run([CC, "-O2", "-shared", "-fPIC", "-fopenmp", "-o", tmp,
                          os.path.join(ROOT, "testsuite", "omp_reverse_start.c"), "-ldl"], CC_TIMEOUT)
        if rc != 0:
            sys.exit(f"difftest: cannot build the reverse-start shim:\n{err}")
        os.replace(tmp, so)
    return so


def first_difference(a, b):
    la, lb = a.decode("utf-8", "replace").splitlines(), b.decode("utf-8", "replace").splitlines()
    for k in range(max(len(la), len(lb))):
        x = la[k] if k < len(la) else "<end of output>"
        y = lb[k] if k < len(lb) else "<end of output>"
        if x != y:
            return f"line {k + 1}: expected '{x}', got '{y}'"
    return "outputs differ"


def cc_failure(rc, stderr, what=""):
    """The failure of a C compile that returned `rc`: a build that ran past
    CC_TIMEOUT is a "cc-timeout" (an output too large to compile in time),
    any other a "cc-error"."""
    if rc == "timeout":
        return ("cc-timeout", f"{what}the C compiler ran past {CC_TIMEOUT} s")
    return ("cc-error", what + first_error(stderr))


def first_error(stderr):
    for ln in stderr.splitlines():
        if "error" in ln:
            return ln.strip()
    lines = stderr.strip().splitlines()
    return lines[0] if lines else "(no message)"


def run_env(threads, shim):
    env = dict(os.environ)
    env["OMP_NUM_THREADS"] = threads
    env.pop("LD_PRELOAD", None)
    if shim:
        env["LD_PRELOAD"] = shim
    return env


class Checker:
    """Runs one program (a gen.Program) against flextile under option sets."""

    def __init__(self, flextile, work, shim, strict=False):
        self.flextile = flextile
        self.work = work
        self.shim = shim
        self.strict = strict

    def original(self, prog, d):
        """Expected stdout per argument set, or a ('generator', detail) failure."""
        src = os.path.join(d, "orig.c")
        with open(src, "w") as f:
            f.write(gen.render(prog))
        exe = os.path.join(d, "orig")
        rc, _, err = compile_c(src, exe)
        if rc != 0:
            return None, ("generator", f"the original does not compile: {first_error(err)}")
        expected = []
        for env in prog.argsets:
            rc, out, err = run([exe] + gen.args_of(env), RUN_TIMEOUT, env=run_env("1", None), cwd=d)
            if rc != 0:
                return None, ("generator", f"the original fails with args {' '.join(gen.args_of(env))}: rc={rc} {err.strip()[:300]}")
            expected.append(out)
        return expected, None

    def generator_check(self, prog, expected, d):
        """The original must compile without warnings (but unused names and
        comparisons of unsigned iterators with int bounds), and
        print the same at -O0 with ASan and UBSan as at -O2: else a gen.py bug."""
        exe = os.path.join(d, "orig_check")
        flags = ["-O0", "-std=gnu99", "-fopenmp", "-ffp-contract=off", "-Wall", "-Wextra", "-Werror",
                 "-Wno-unknown-pragmas", "-Wno-unused-parameter", "-Wno-unused-variable",
                 "-Wno-unused-function", "-Wno-sign-compare"] + SAN_FLAGS
        rc, _, err = run([CC] + flags + ["-o", exe, os.path.join(d, "orig.c"), "-lm"], CC_TIMEOUT)
        if rc != 0:
            return ("generator", f"the original has warnings: {first_error(err)}")
        env = run_env("1", None)
        env["ASAN_OPTIONS"] = "detect_leaks=1"
        for a, exp in zip(prog.argsets, expected):
            rc, out, err = run([exe] + gen.args_of(a), RUN_TIMEOUT * 3, env=env, cwd=d)
            if rc != 0:
                return ("generator", f"the original fails under sanitizers: {err.strip()[:300]}")
            if out != exp:
                return ("generator", f"the original prints differently at -O0: {first_difference(exp, out)}")
        return None

    def case(self, prog, opts, expected, d, tag, sanitize=False):
        """None when the case passes, else (kind, detail). `sanitize`: also
        run the output built with -fsanitize=address,undefined."""
        src = os.path.join(d, "orig.c")
        out_c = os.path.join(d, f"out{tag}.c")
        if os.path.exists(out_c):
            os.remove(out_c)
        rc, _, err = run([self.flextile] + opts + [src, "-o", out_c], FLEXTILE_TIMEOUT, limit=True)
        if rc == "timeout":
            return ("flextile-timeout", f"flextile ran past {FLEXTILE_TIMEOUT} s")
        # Past the limit, malloc fails: Rust aborts, isl's imath asserts, or a null pointer is used.
        if rc in (-6, -11) and ("memory allocation" in err or "imath" in err or "out of memory" in err or not err.strip()):
            return ("flextile-memory", f"flextile needs more than {MEMORY_LIMIT >> 30} GB (rc={rc}): {first_error(err)}")
        if rc == 1:
            if any(o in OVERLAP_OPTIONS for o in opts) and not self.strict:
                return ("declined", first_error(err))
            if prog.may_reject:
                return ("declined", "free-form schedule: " + first_error(err))
            return ("flextile-reject", first_error(err))
        if rc != 0:
            return ("flextile-crash", f"rc={rc}: {first_error(err)}")
        exe = os.path.join(d, f"out{tag}")
        rc, _, err = compile_c(out_c, exe)
        if rc != 0:
            return cc_failure(rc, err)
        # Without OpenMP the thread count changes nothing: one run is enough.
        modes = MODES[:1] if "--no-openmp" in opts else MODES
        for env, exp in zip(prog.argsets, expected):
            args = gen.args_of(env)
            for threads, shim in modes:
                rc, out, err = run([exe] + args, RUN_TIMEOUT, env=run_env(threads, self.shim if shim else None), cwd=d)
                mode = f"OMP_NUM_THREADS={threads}{' reverse-start' if shim else ''}"
                if rc == "timeout":
                    return ("timeout", f"args {' '.join(args)}, {mode}: past {RUN_TIMEOUT} s")
                if rc != 0:
                    return ("run-error", f"args {' '.join(args)}, {mode}: rc={rc} {err.strip()[:200]}")
                if out != exp:
                    return ("mismatch", f"args {' '.join(args)}, {mode}: {first_difference(exp, out)}")
        fail = self.sentinel(prog, out_c, d, tag)
        if fail:
            return fail
        if sanitize:
            return self.sanitized(prog, out_c, d, tag)
        return None

    def sentinel(self, prog, out_c, d, tag):
        """The temporaries the output's banners say are never stored must be
        untouched: the output built with -DFT_SENTINEL fills them with a
        sentinel and reports them (gen.py)."""
        with open(out_c) as f:
            text = f.read()
        to_array = {}
        for reg in prog.regions:
            for a in reg.temporaries:
                to_array[reg.aliases.get(a, a)] = a
        claimed = set()
        for m in re.finditer(r"temporaries never stored: ([^\n]*)", text):
            for word in m.group(1).split(", "):
                word = word.strip().removesuffix("*/").strip()
                if word.endswith(" (proved)"):
                    # flextile proved it temporary: an array its function
                    # owns, which main cannot see
                    continue
                word = word.removesuffix(" (declared)")
                if word not in to_array:
                    break
                claimed.add(to_array[word])
        # An array another region writes as a plain array is stored there
        # (seed 2030, program 203000066: 'A' written by one chain and
        # declared temporary in the next): nothing to check for it.
        for reg in prog.regions:
            plain = {arr for nest in reg.nests
                     for kind, arr, _ in gen.performed_accesses(nest) if kind == "write"}
            claimed -= plain - set(reg.temporaries)
        if not claimed:
            return None
        # Where the parameters pass a banner's int-range bound, the region
        # runs its original code, which stores its temporaries as written:
        # the claim is about the transformed loops, so take an argument set
        # within every bound (none: nothing to check).
        bounds = [int(b) for b in re.findall(r"for a parameter beyond \u00b1(\d+)", text)]
        limit = min(bounds) if bounds else None
        within = [a for a in prog.argsets
                  if limit is None or all(abs(int(v)) <= limit for v in gen.args_of(a))]
        if not within:
            return None
        exe = os.path.join(d, f"out{tag}_sentinel")
        rc, _, err = run([CC] + CFLAGS + ["-DFT_SENTINEL", "-o", exe, out_c, "-lm"], CC_TIMEOUT)
        if rc != 0:
            return cc_failure(rc, err, "with -DFT_SENTINEL: ")
        args = gen.args_of(within[0])
        rc, out, err = run([exe] + args, RUN_TIMEOUT, env=run_env("2", None), cwd=d)
        if rc != 0:
            return ("run-error", f"with -DFT_SENTINEL, args {' '.join(args)}: rc={rc} {err.strip()[:200]}")
        if isinstance(out, bytes):
            out = out.decode(errors="replace")
        for name in sorted(claimed):
            if f"SENTINEL {name} untouched: yes" not in out:
                return ("stored-temporary", f"args {' '.join(args)}: '{name}' is said never stored, but its array was written")
        return None

    def sanitized(self, prog, out_c, d, tag):
        """Builds the output with ASan and UBSan and runs it on every argument set."""
        exe = os.path.join(d, f"out{tag}_san")
        rc, _, err = run([CC] + CFLAGS + SAN_FLAGS + ["-o", exe, out_c, "-lm"], CC_TIMEOUT)
        if rc != 0:
            return cc_failure(rc, err, "with sanitizers: ")
        env = run_env("2", None)
        env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=0"
        env["UBSAN_OPTIONS"] = "print_stacktrace=0"
        for a in prog.argsets:
            args = gen.args_of(a)
            rc, _, err = run([exe] + args, RUN_TIMEOUT * 3, env=env, cwd=d)
            if rc != 0:
                lines = [ln for ln in err.splitlines() if "runtime error" in ln or "ERROR: AddressSanitizer" in ln]
                what = lines[0].strip() if lines else f"rc={rc}"
                return ("sanitizer", f"args {' '.join(args)}: {what}")
        return None

    def check(self, prog, opts, d, tag="m", sanitize=False):
        """Evaluates one candidate program from scratch (for minimisation)."""
        os.makedirs(d, exist_ok=True)
        expected, fail = self.original(prog, d)
        if fail:
            return fail
        return self.case(prog, opts, expected, d, tag, sanitize)


def same_failure(a, b):
    if a is None or b is None or a[0] != b[0]:
        return False
    if a[0] == "flextile-reject":
        strip = lambda s: s.split("error:", 1)[-1].strip()  # noqa: E731
        return strip(a[1]) == strip(b[1])
    return True


def minimise(checker, prog, opts, failure, d, budget_s=300, max_tries=150):
    """Greedy reduction of `prog` keeping a failure like `failure`. After a
    successful cut, the next pass starts near the same candidate (the earlier
    ones were just tried), and a last pass goes over all of them."""
    start = time.time()
    tries = 0
    best = prog

    def out_of_budget():
        return tries >= max_tries or time.time() - start > budget_s

    def attempt(cand):
        nonlocal tries
        tries += 1
        return checker.check(cand, opts, os.path.join(d, "min"), sanitize=failure[0] == "sanitizer")

    # First keep only the argument set that failed, when the detail names it.
    for env in prog.argsets:
        if len(prog.argsets) > 1 and f"args {' '.join(gen.args_of(env))}," in failure[1]:
            cand = gen.copy.deepcopy(prog)
            cand.argsets = [dict(env)]
            got = attempt(cand)
            if same_failure(got, failure):
                best, failure = cand, got
            break
    resume = 0
    full_pass = False
    while not out_of_budget():
        progress = False
        for k, cand in enumerate(gen.shrink_candidates(best)):
            if k < resume:
                continue
            if out_of_budget():
                break
            if gen.validate(cand) is not None:
                continue
            got = attempt(cand)
            if same_failure(got, failure):
                best, failure = cand, got
                progress = True
                resume = max(0, k - 1)
                break
        if not progress:
            if full_pass or resume == 0:
                break
            resume, full_pass = 0, True
        else:
            full_pass = False
    return best, failure, tries


# ---------------------------------------------------------------------------
# Workers


def program_seed(seed, index):
    return seed * 100000 + index


def work_program(job):
    """Runs all cases of one program; returns a list of result dicts."""
    cfg, index, opt_sets_templates = job
    seed = cfg["program"] if cfg.get("program") is not None else program_seed(cfg["seed"], index)
    d = os.path.join(cfg["work"], f"p{seed}")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    checker = Checker(cfg["flextile"], cfg["work"], cfg["shim"], cfg["strict"])
    results = []
    try:
        prog = gen.generate(seed)
    except Exception as e:  # a generator bug
        return [dict(seed=seed, opts="", status="fail", kind="generator", detail=f"gen.py raised {e!r}")]
    if cfg.get("options") is not None:
        opt_sets = [shlex.split(cfg["options"])]
    else:
        opt_sets = option_sets_for(index, prog, opt_sets_templates, cfg["per_program"])[: cfg["limit"]]
    expected, fail = checker.original(prog, d)
    if cfg.get("check_generator") and fail is None:
        fail = checker.generator_check(prog, expected, d)
    all_pass = True
    minimised = 0  # at most two minimisations per program (each up to 5 minutes)
    sanitized_overlap = False
    for k, opts in enumerate(opt_sets):
        r = dict(seed=seed, opts=options_text(opts))
        # Sanitised runs: the first overlapped-tiling case of a program (scratchpads), and the
        # first case of one program in five.
        overlap = any(o in OVERLAP_OPTIONS for o in opts)
        sanitize = cfg["sanitize"] and ((overlap and not sanitized_overlap) or (index % 5 == 0 and k == 0))
        sanitized_overlap = sanitized_overlap or (overlap and sanitize)
        f = fail or checker.case(prog, opts, expected, d, str(k), sanitize)
        if f is None:
            r["status"] = "pass"
        elif f[0] == "declined":
            r.update(status="declined", detail=f[1])
        else:
            all_pass = False
            r.update(status="fail", kind=f[0], detail=f[1])
            # Timeouts and memory exhaustion take a minute per try: not minimised.
            slow = f[0] in ("generator", "flextile-timeout", "flextile-memory")
            if slow:
                r["program"] = os.path.join(d, "orig.c")
            if cfg["minimise"] and not slow and minimised < 2:
                minimised += 1
                small, f2, tries = minimise(checker, prog, opts, f, d)
                r["min_detail"] = f2[1]
                r["min_tries"] = tries
                r["min_source"] = gen.render(small, metadata=[
                    f"Found by tools/difftest/run.py ({f[0]}): {f2[1]}",
                    "flextile-test: args: " + " | ".join(" ".join(gen.args_of(e)) for e in small.argsets),
                    "flextile-test: options: " + options_text(opts),
                ])
        results.append(r)
    if all_pass and not cfg["keep"]:
        shutil.rmtree(d, ignore_errors=True)
    return results


def save_regression(res, n):
    name = f"regress_{res['seed']}_{n}"
    path = os.path.join(ROOT, "testsuite", "programs", name + ".c")
    with open(path, "w") as f:
        f.write(res["min_source"])
    return name, path


def main():
    ap = argparse.ArgumentParser(description="Differential testing of flextile on random programs.")
    ap.add_argument("-n", type=int, default=200, help="number of cases (program x option set)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--flextile", default=os.path.join(ROOT, "target", "release", "flextile"))
    ap.add_argument("--work", default=os.path.join(ROOT, "target", "difftest"))
    ap.add_argument("--per-program", type=int, default=CASES_PER_PROGRAM, help="option sets per program")
    ap.add_argument("--keep", action="store_true", help="keep the work folders of passing programs")
    ap.add_argument("--no-minimise", action="store_true")
    ap.add_argument("--no-save", action="store_true", help="do not write regression tests into testsuite/programs")
    ap.add_argument("--log", help="append one JSON line per case to this file")
    ap.add_argument("--strict", action="store_true", help="count refusals of overlapped tiling as failures")
    ap.add_argument("--no-sanitize", action="store_true",
                    help="skip the -fsanitize=address,undefined runs (overlapped-tiling cases and one program in five)")
    ap.add_argument("--program", type=int, help="run only the program of this (full) seed, e.g. 300014")
    ap.add_argument("--options", help='with --program: this option set only (e.g. "--tile --tile-sizes 4")')
    ap.add_argument("--check-generator", action="store_true",
                    help="also build each original at -O0 with -Wall -Wextra -Werror and sanitizers, and compare")
    ap.add_argument("-q", "--quiet", action="store_true")
    a = ap.parse_args()

    flextile = os.path.abspath(a.flextile)
    if not os.access(flextile, os.X_OK):
        sys.exit(f"difftest: no flextile binary at {flextile} (cargo build --release)")
    work = os.path.abspath(os.path.join(a.work, f"seed{a.seed}"))
    os.makedirs(work, exist_ok=True)
    shim = build_shim(work)
    templates, _ = detect_option_sets(flextile)
    cfg = dict(seed=a.seed, work=work, flextile=flextile, shim=shim, keep=a.keep, strict=a.strict,
               sanitize=not a.no_sanitize, check_generator=a.check_generator,
               minimise=not a.no_minimise, per_program=a.per_program, limit=a.per_program)
    names = [options_text(t) for t in templates]
    print(f"difftest: {a.n} cases, seed {a.seed}, {a.jobs} workers, option sets: {' | '.join(names)}", flush=True)

    nprog = (a.n + a.per_program - 1) // a.per_program
    jobs = []
    left = a.n
    if a.program is not None:
        nprog = 1
        c = dict(cfg, program=a.program, options=a.options)
        jobs.append((c, a.program % 100000, templates))
    for i in range(nprog if a.program is None else 0):
        c = dict(cfg)
        c["limit"] = min(a.per_program, left)
        left -= c["limit"]
        jobs.append((c, i, templates))
    passed = failed = 0
    kinds = {}
    declined = {}
    saved = []
    t0 = time.time()
    log = open(a.log, "a") if a.log else None
    done = 0
    with ProcessPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        futs = [pool.submit(work_program, j) for j in jobs]
        for fut in as_completed(futs):
            for r in fut.result():
                done += 1
                if log:
                    log.write(json.dumps({k: v for k, v in r.items() if k != "min_source"}) + "\n")
                    log.flush()
                if r["status"] == "pass":
                    passed += 1
                    continue
                if r["status"] == "declined":
                    msg = re.sub(r"\d+", "#", r["detail"].split("error:", 1)[-1].strip())
                    declined[msg] = declined.get(msg, 0) + 1
                    continue
                failed += 1
                kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
                print(f"FAIL seed {r['seed']} [{r['opts']}] {r['kind']}: {r['detail']}", flush=True)
                if "program" in r:
                    print(f"  program: {r['program']}", flush=True)
                if "min_source" in r:
                    print(f"  minimised ({r['min_tries']} tries): {r['min_detail']}", flush=True)
                    if not a.no_save:
                        name, path = save_regression(r, len(saved) + 1)
                        saved.append(name)
                        print(f"  saved {os.path.relpath(path, ROOT)}", flush=True)
                    else:
                        p = os.path.join(work, f"min_{r['seed']}_{failed}.c")
                        with open(p, "w") as f:
                            f.write(r["min_source"])
                        print(f"  minimised program: {p}", flush=True)
            if not a.quiet and done and done % 100 < a.per_program:
                print(f"  ... {done}/{a.n} cases, {failed} failed, {time.time() - t0:.0f} s", flush=True)
    if log:
        log.close()
    if declined:
        print(f"{sum(declined.values())} cases declined (exit 1 with a diagnostic under overlapped tiling or on a free-form schedule; not counted):")
        for msg, c in sorted(declined.items(), key=lambda x: -x[1]):
            print(f"  {c:5d}  {msg}")
    if kinds:
        print("failures by kind: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    if saved:
        print("new regression tests (add them to the programs list in tests/testsuite.rs): " + ", ".join(saved))
    print(f"time {time.time() - t0:.0f} s, {nprog} programs")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
