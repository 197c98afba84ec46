#!/usr/bin/env python3
"""Static consistency check of the omplc annotations in the benchmark programs.

Usage: python3 tools/check_annotations.py [file.c ...]   (default: every *.c
       in benchmarks/ that has a loop chain)
       VERBOSE=1 also lists over-approximations and the bodies flextile
       cannot analyse (with the reason).

flextile itself checks analysable bodies against their pragmas (an
under-declared access is an error); this script is a quick textual check of
every chain that needs no build, and it also covers the bodies flextile
cannot analyse (data-dependent gathers, MiniFluxDiv's macros).  For every
`#pragma omplc for` nest it checks that

  * the for-loop nest has the iterators of `with (...)`, in order, with
    bounds `it = lo; it <= hi` equal to the domain's ranges;
  * every array access in the body is covered by a declared tuple of the
    right kind: reads by a `read` clause, writes (left of `=`) by a `write`
    clause, compound assignments (`+=`, `*=`) by both.  Accesses are plain
    subscripts `name[e1]...[en]` of arrays declared outside the body, and
    calls of macros that expand to `array[...]` (possibly through other
    macros).  A tuple covers an access when each component is textually
    equal (spaces and outer parentheses ignored) or the declared component
    is `*`;
  * a subscript that is not affine in the iterators and the parameters (the
    identifiers of the chain's domain bounds; min/max of such expressions
    count as affine, as for flextile) is covered only by `*`;
  * a plain subscript has as many indices as its array has dimensions (for
    arrays declared in the file as `T (*restrict a)[..]..` or `T *a`);
  * every data set has one tuple arity throughout its region.

It also reports, per nest, whether flextile can analyse the body (the same
rules, approximately: plain subscripts only, affine ones, no function-like
macros, calls only to pure functions).  Declared tuples that no body access
uses are reported as notes (allowed over-approximations).  Exit status 1 on
any error.

Files may map macros to logical data set names with a comment line
    /* check_annotations: MACRO -> DATASET drop N */
(the first N macro arguments are not part of the data set tuple; used by
minifluxdiv.c, whose data sets are cells covering all five components).
"""
import ast
import glob
import os
import re
import sys

IDENT = r"[A-Za-z_][A-Za-z_0-9]*"


def strip_comments(src):
    src = re.sub(r"/\*.*?\*/", lambda m: " " * len(m.group(0)) if "\n" not in m.group(0)
                 else "\n" * m.group(0).count("\n"), src, flags=re.S)
    return re.sub(r"//[^\n]*", "", src)


def split_args(s):
    """Splits 'a, f(b, c), d' at top-level commas."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def match_paren(s, i):
    """s[i] == '('; returns the index of the matching ')'."""
    depth = 0
    for j in range(i, len(s)):
        if s[j] == "(":
            depth += 1
        elif s[j] == ")":
            depth -= 1
            if depth == 0:
                return j
    raise ValueError("unbalanced parentheses")


def norm(e):
    e = re.sub(r"\s+", "", e)
    # drop redundant outer parentheses
    while e.startswith("(") and match_paren(e, 0) == len(e) - 1:
        e = e[1:-1]
    return e


class Macros:
    def __init__(self, src, overrides):
        self.defs = {}
        for m in re.finditer(r"^#define\s+(%s)\(([^)]*)\)\s+(.*)$" % IDENT, src, flags=re.M):
            params = [p.strip() for p in m.group(2).split(",")]
            self.defs[m.group(1)] = (params, m.group(3).strip())
        self.overrides = overrides

    def resolve(self, name, args):
        """Macro call -> (data set, index args) if it is an array access, else None."""
        if name in self.overrides:
            ds, drop = self.overrides[name]
            return ds, args[drop:]
        if name not in self.defs:
            return None
        params, body = self.defs[name]
        if len(params) != len(args):
            return None
        # body `ptr[...]`: a direct array access; the tuple is the macro's arguments
        m = re.match(r"^(%s)\[" % IDENT, body)
        if m:
            ptr = m.group(1)
            if ptr in params:  # generic macro: first argument is the array
                k = params.index(ptr)
                return args[k], args[:k] + args[k + 1:]
            return ptr, args
        # body `OTHER(p1, p2, ...)`: substitute and resolve again
        m = re.match(r"^(%s)\((.*)\)$" % IDENT, body)
        if m:
            sub = dict(zip(params, args))
            inner = [sub.get(a.strip(), a.strip()) for a in split_args(m.group(2))]
            return self.resolve(m.group(1), inner)
        return None


def find_accesses(body, macros):
    """Yields (dataset, [args], is_read, is_write) for every array access."""
    i = 0
    while True:
        m = re.compile(r"\b(%s)\s*\(" % IDENT).search(body, i)
        if not m:
            return
        name = m.group(1)
        lp = body.index("(", m.start(1))
        rp = match_paren(body, lp)
        args = split_args(body[lp + 1:rp])
        r = macros.resolve(name, args)
        if r is None:
            i = lp + 1
            continue
        ds, idx = r
        after = body[rp + 1:].lstrip()
        is_write = bool(re.match(r"^(=(?!=)|\+=|-=|\*=|/=)", after))
        compound = bool(re.match(r"^(\+=|-=|\*=|/=)", after))
        yield ds, idx, (not is_write) or compound, is_write
        # nested accesses inside the index expressions
        for a in args:
            for x in find_accesses(a, macros):
                yield x
        i = rp + 1


# Functions flextile treats as pure (src/frontend/body.rs), and the C types
# of body-local declarations.
PURE = {"sqrt", "sqrtf", "cbrt", "cbrtf", "fabs", "fabsf", "abs", "labs", "exp", "expf",
        "exp2", "exp2f", "expm1", "log", "logf", "log2", "log2f", "log10", "log10f", "log1p",
        "pow", "powf", "floor", "floorf", "ceil", "ceilf", "round", "roundf", "trunc",
        "truncf", "fmod", "fmodf", "fmin", "fminf", "fmax", "fmaxf", "min", "max", "sin",
        "sinf", "cos", "cosf", "tan", "tanf", "atan2", "atan2f", "tanh", "tanhf", "hypot",
        "hypotf", "fma", "fmaf", "copysign", "copysignf"}
CTYPES = r"(?:const\s+)?(?:unsigned\s+)?(?:int|float|double|long|short|char|int8_t|int16_t|int32_t|" \
         r"int64_t|uint8_t|uint16_t|uint32_t|uint64_t|size_t)"
KEYWORDS = {"if", "else", "for", "while", "do", "return", "sizeof", "switch"}


def array_ranks(src):
    """Rank of every array declared as `T (*restrict a)[d1]...[dk]` (k+1) or
    as a plain pointer `T *restrict a =` / `T *a` (1)."""
    ranks = {}
    for m in re.finditer(r"\(\s*\*\s*(?:restrict\s+)?(%s)\s*\)\s*((?:\[[^\]]*\]\s*)+)" % IDENT, src):
        ranks[m.group(1)] = 1 + m.group(2).count("[")
    for m in re.finditer(r"%s\s*\*\s*(?:const\s+)?(?:restrict\s+)?(%s)\s*[=;,)]" % (CTYPES, IDENT), src):
        ranks.setdefault(m.group(1), 1)
    return ranks


def body_locals(body):
    """Names declared in the body (`float v = ..., w;`)."""
    out = set()
    for m in re.finditer(r"(?:^|[;{}(])\s*%s\s+([^;]*);" % CTYPES, body):
        for d in split_args(m.group(1)):
            n = re.match(r"\s*(%s)" % IDENT, d)
            if n:
                out.add(n.group(1))
    return out


def find_subscripts(body, local):
    """Yields (array, [index texts], is_read, is_write, start) for every plain
    subscript `a[e1]...[en]` of an array not local to the body, outermost
    first, then the ones nested in its indices."""
    i = 0
    while True:
        m = re.compile(r"\b(%s)\s*\[" % IDENT).search(body, i)
        if not m:
            return
        name = m.group(1)
        j = m.end() - 1
        idx = []
        while j < len(body) and body[j] == "[":
            depth = 0
            for e in range(j, len(body)):
                if body[e] == "[":
                    depth += 1
                elif body[e] == "]":
                    depth -= 1
                    if depth == 0:
                        break
            idx.append(body[j + 1:e])
            j = e + 1
            while j < len(body) and body[j] in " \t\n":
                j += 1
        if name not in local:
            after = body[j:].lstrip()
            is_write = bool(re.match(r"^(=(?!=)|\+=|-=|\*=|/=|\+\+|--)", after)) or \
                bool(re.search(r"(\+\+|--)\s*$", body[:m.start()]))
            compound = is_write and not re.match(r"^=(?!=)", after)
            yield name, idx, (not is_write) or compound, is_write, m.start()
        for x in idx:
            for y in find_subscripts(x, local):
                yield y
        i = j


def affine(e, names):
    """True when the C expression e is affine in `names` (integer literals,
    + - *, parentheses, min/max of affine expressions)."""
    try:
        tree = ast.parse(e.strip(), mode="eval").body
    except SyntaxError:
        return False

    def deg(n):
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return 0
        if isinstance(n, ast.Name):
            return 1 if n.id in names else None
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            return deg(n.operand)
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub, ast.Mult)):
            a, b = deg(n.left), deg(n.right)
            if a is None or b is None:
                return None
            if isinstance(n.op, ast.Mult):
                return a + b if a + b <= 1 else None
            return max(a, b)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("min", "max") \
                and len(n.args) >= 2 and not n.keywords:
            ds = [deg(a) for a in n.args]
            return None if None in ds else max(ds)
        return None

    return deg(tree) is not None


def parse_pragma(text):
    m = re.match(r"^omplc\s+for\s+domain\s*\((.*?)\)\s*with\s*\((.*?)\)\s*(.*)$", text, flags=re.S)
    if not m:
        raise ValueError("cannot parse pragma: " + text)
    domain = [tuple(norm(x) for x in r.split(":")) for r in split_args(m.group(1))]
    iters = [x.strip() for x in m.group(2).split(",")]
    acc = []
    for a in re.finditer(r"\b(read|write)\s+(%s)\s*\{(.*?)\}" % IDENT, m.group(3), flags=re.S):
        tuples = []
        s = a.group(3)
        j = 0
        while True:
            k = s.find("(", j)
            if k < 0:
                break
            e = match_paren(s, k)
            tuples.append([norm(x) for x in split_args(s[k + 1:e])])
            j = e + 1
        acc.append((a.group(1), a.group(2), tuples))
    return domain, iters, acc


def covers(decl, use):
    return len(decl) == len(use) and all(d == "*" or d == norm(u) for d, u in zip(decl, use))


def check_file(path):
    raw = open(path).read()
    overrides = {}
    for m in re.finditer(r"check_annotations:\s*(%s)\s*->\s*(%s)\s+drop\s+(\d+)" % (IDENT, IDENT), raw):
        overrides[m.group(1)] = (m.group(2), int(m.group(3)))
    src = strip_comments(raw)
    # join pragma continuation lines; \x01 keeps the line count
    src = src.replace("\\\n", "\x01")
    macros = Macros(src, overrides)
    errors, notes, opaque = [], [], []
    seen = set()
    ranks = array_ranks(src)

    def lineno(off):
        return 1 + src.count("\n", 0, off) + src.count("\x01", 0, off)

    regions = [m.start() for m in re.finditer(r"^\s*#pragma\s+omplc\s+loopchain\b", src, flags=re.M)]
    nests_total = 0
    for rstart in regions:
        brace = src.index("{", src.index("\n", rstart))
        end = brace
        depth = 0
        for end in range(brace, len(src)):
            if src[end] == "{":
                depth += 1
            elif src[end] == "}":
                depth -= 1
                if depth == 0:
                    break
        region = src[brace:end + 1]
        arity = {}
        pragmas = list(re.finditer(r"^\s*#pragma\s+(omplc\s+for\b[^\n]*)$", region, flags=re.M))
        # parameters: the identifiers of the region's domain bounds
        params = set()
        for p in pragmas:
            try:
                domain, iters, _ = parse_pragma(p.group(1).replace("\x01", " ").strip())
            except ValueError:
                continue
            for lo, hi in domain:
                params |= set(re.findall(IDENT, lo + " " + hi))
        for n, p in enumerate(pragmas):
            where = "%s:%d" % (os.path.basename(path), lineno(brace + p.start(1)))
            try:
                domain, iters, acc = parse_pragma(p.group(1).replace("\x01", " ").strip())
            except ValueError as e:
                errors.append("%s: %s" % (where, e))
                continue
            # the loop nest
            k = p.end()
            loops = []
            for it in iters:
                m = re.compile(r"\s*for\s*\(\s*(?:int\s+)?(%s)\s*=\s*([^;]*);\s*(%s)\s*<=\s*([^;]*);\s*(%s)\+\+\s*\)"
                               % (IDENT, IDENT, IDENT)).match(region, k)
                if not m:
                    errors.append("%s: expected `for (%s = lo; %s <= hi; %s++)`" % (where, it, it, it))
                    break
                loops.append((m.group(1), norm(m.group(2)), norm(m.group(4))))
                if not (m.group(1) == m.group(3) == m.group(5)):
                    errors.append("%s: loop on %s is not of the form it = lo; it <= hi; it++" % (where, m.group(1)))
                k = m.end()
            else:
                for (it, lo, hi), (dlo, dhi), wit in zip(loops, domain, iters):
                    if it != wit:
                        errors.append("%s: loop iterator %s, pragma says %s" % (where, it, wit))
                    if lo != dlo or hi != dhi:
                        errors.append("%s: loop %s runs %s..%s, domain says %s..%s" % (where, it, lo, hi, dlo, dhi))
            if len(domain) != len(iters):
                errors.append("%s: %d ranges for %d iterators" % (where, len(domain), len(iters)))
            # the body: a compound statement or a single statement
            s = region[k:].lstrip()
            off = len(region) - len(s)
            if s.startswith("{"):
                d = 0
                for e in range(len(s)):
                    if s[e] == "{":
                        d += 1
                    elif s[e] == "}":
                        d -= 1
                        if d == 0:
                            break
                body = s[:e + 1]
            else:
                body = s[:s.index(";") + 1]
            used = set()
            local = body_locals(body)
            why = []  # reasons flextile cannot analyse the body
            accesses = []
            for ds, idx, is_read, is_write in find_accesses(body, macros):
                accesses.append((ds, idx, is_read, is_write, "%s(%s)" % (ds, ", ".join(norm(x) for x in idx))))
                if "macro accesses" not in why:
                    why.append("macro accesses")
            for ds, idx, is_read, is_write, _ in find_subscripts(body, local):
                text = ds + "".join("[%s]" % norm(x) for x in idx)
                if ds in ranks and len(idx) != ranks[ds]:
                    errors.append("%s: %s has %d indices, %s has %d dimensions"
                                  % (where, text, len(idx), ds, ranks[ds]))
                accesses.append((ds, idx, is_read, is_write, text))
            for m in re.finditer(r"\b(%s)\s*\(" % IDENT, body):
                f = m.group(1)
                if f in KEYWORDS or f in macros.defs or f in macros.overrides or f in CTYPES:
                    continue
                if f not in PURE and "call to %s" % f not in why:
                    why.append("call to %s" % f)
            names = set(iters) | params
            for ds, idx, is_read, is_write, text in accesses:
                arity.setdefault(ds, set()).add(len(idx))
                nonaffine = [k for k, x in enumerate(idx) if not affine(x, names)]
                if nonaffine and "non-affine subscripts of " + ds not in why:
                    why.append("non-affine subscripts of " + ds)
                for kind, flag in (("read", is_read), ("write", is_write)):
                    if not flag:
                        continue
                    ok = False
                    for ai, (akind, aname, tuples) in enumerate(acc):
                        if akind == kind and aname == ds:
                            for ti, t in enumerate(tuples):
                                if covers(t, idx) and all(t[k] == "*" for k in nonaffine):
                                    ok = True
                                    used.add((ai, ti))
                    if not ok and (kind, text, where) not in seen:
                        seen.add((kind, text, where))
                        errors.append("%s: %s %s not covered by the declared %s accesses%s"
                                      % (where, kind, text, kind,
                                         " (a non-affine index is covered only by *)" if nonaffine else ""))
            if why:
                opaque.append("%s: body not analysable by flextile: %s" % (where, "; ".join(why)))
            for ai, (akind, aname, tuples) in enumerate(acc):
                for ti, t in enumerate(tuples):
                    arity.setdefault(aname, set()).add(len(t))
                    if (ai, ti) not in used:
                        notes.append("%s: declared %s %s(%s) is not used by the body (over-approximation)"
                                     % (where, akind, aname, ",".join(t)))
        for ds, ar in sorted(arity.items()):
            if len(ar) > 1:
                errors.append("%s: data set %s used with arities %s in one region"
                              % (os.path.basename(path), ds, sorted(ar)))
        nests_total += len(pragmas)
    return len(regions), nests_total, errors, notes, opaque


def main(argv):
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = argv[1:] or sorted(glob.glob(os.path.join(here, "*.c")))
    bad = False
    for f in files:
        nreg, nnest, errors, notes, opaque = check_file(f)
        if nreg == 0:
            continue
        print("%-24s %d region(s), %3d nests (%3d analysable), %d error(s), %d over-approximation note(s)"
              % (os.path.basename(f), nreg, nnest, nnest - len(opaque), len(errors), len(notes)))
        for e in errors:
            print("  ERROR " + e)
        if os.environ.get("VERBOSE"):
            for n in opaque:
                print("  opaque " + n)
            for n in notes:
                print("  note  " + n)
        bad |= bool(errors)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
