"""Small helpers shared by the benchmark generators in this folder.

Each generator prints one complete C program (annotated loop chain plus
driver) to stdout; the generated C is committed next to the hand-written
programs, so building the benchmarks never needs Python.
"""
import re


def c_expr(e):
    """Formats an annotation expression ('2*x-1') as C ('2 * x - 1')."""
    toks = re.findall(r"[A-Za-z_][A-Za-z_0-9]*|\d+|[-+*/(),]|\S", e.replace(" ", ""))
    out = []
    for i, t in enumerate(toks):
        binary = t in "+-*/" and i > 0 and (toks[i - 1] not in "+-*/(,")
        if binary:
            out.append(" %s " % t)
        elif t == ",":
            out.append(", ")
        else:
            out.append(t)
    return "".join(out)


def wrap(line, indent, width=100):
    """Breaks a long statement after 'lhs = ' at the binary operators
    (' + ', ' - ', ' ? ', ' : ') of the shallowest parenthesis (or bracket)
    depth that has any; continuation lines are aligned after the '= '."""
    if len(line) <= width:
        return [line]
    m = re.match(r"^(\s*)(.*? = )(.*)$", line)
    if not m:
        return [line]
    lead, lhs, rhs = m.groups()
    cont = " " * (len(lead) + len(lhs))
    points = []  # (depth, index of the space before the operator)
    depth = 0
    for i, ch in enumerate(rhs):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif rhs[i:i + 3] in (" + ", " - ", " ? ", " : ") and i > 0 and rhs[i - 1] not in "(,":
            points.append((depth, i))
    if not points:
        return [line]
    d = min(p[0] for p in points)
    cuts = [i for dd, i in points if dd == d]
    pieces = []
    prev = 0
    for i in cuts:
        pieces.append(rhs[prev:i])
        prev = i + 1
    pieces.append(rhs[prev:])
    lines = []
    cur = lead + lhs + pieces[0]
    for p in pieces[1:]:
        if len(cur) + 1 + len(p) > width:
            lines.append(cur)
            cur = cont + p
        else:
            cur += " " + p
    lines.append(cur)
    return lines


class Chain:
    """Collects the nests of one loop chain."""

    def __init__(self, emit, indent="    "):
        self.emit = emit
        self.indent = indent
        self.count = 0

    def nest(self, domain, iters, accesses, body, comment=None):
        """domain: [(lo, hi)] annotation expressions; iters: names;
        accesses: [('read'|'write', name, [tuple strings])]; body: C lines
        (one statement, or several that become a compound statement; a line
        with embedded newlines is emitted as given, not wrapped)."""
        emit = self.emit
        self.count += 1
        if self.count > 1:
            emit("")
        if comment:
            emit("%s/* %s */" % (self.indent, comment))
        dom = ", ".join("%s:%s" % (lo.replace(" ", ""), hi.replace(" ", "")) for lo, hi in domain)
        head = "#pragma omplc for domain(%s) with (%s)" % (dom, ", ".join(iters))
        acc = ["%s %s {%s}" % (k, n, ", ".join("(%s)" % t.replace(" ", "") for t in ts))
               for k, n, ts in accesses]
        # pack the access clauses onto continuation lines of at most ~96 chars
        lines = [head]
        for i, a in enumerate(acc):
            a = a + ("," if i + 1 < len(acc) else "")
            if len(lines[-1]) + 1 + len(a) <= 94 and len(lines) > 1:
                lines[-1] += " " + a
            else:
                lines.append("    " + a)
        for i, l in enumerate(lines):
            emit(l + (" \\" if i + 1 < len(lines) else ""))
        ind = self.indent
        for k, ((lo, hi), it) in enumerate(zip(domain, iters)):
            last = k + 1 == len(iters)
            brace = " {" if last and len(body) > 1 else ""
            emit("%sfor (int %s = %s; %s <= %s; %s++)%s" % (ind, it, c_expr(lo), it, c_expr(hi), it, brace))
            ind += "  "
        for b in body:
            # a statement given on several lines ("\n") is emitted as is
            for l in (wrap(ind + b, ind) if "\n" not in b else [ind + x for x in b.split("\n")]):
                emit(l)
        if len(body) > 1:
            emit(ind[:-2] + "}")


def sub(name, *idx):
    """Array access text: sub('d1', 'c', '2*x-1', 'y') -> 'd1[c][2 * x - 1][y]'."""
    return name + "".join("[%s]" % c_expr(i) for i in idx)


def view(emit, ctype, name, dims, init, indent="  ", width=100):
    """Declares `name` as a pointer to rows of a C99 array, a variably
    modified type whose extents dims (C expressions in the parameters,
    outermost first; the outermost is not part of the type) describe the
    flat buffer `init`:
        float (*restrict d1)[H][W] = (float (*)[H][W])buf[3];"""
    arr = "".join("[%s]" % d for d in dims[1:])
    head = "%s%s (*restrict %s)%s =" % (indent, ctype, name, arr)
    cast = "(%s (*)%s)%s;" % (ctype, arr, init)
    if len(head) + 1 + len(cast) <= width:
        emit(head + " " + cast)
    else:
        emit(head)
        emit(indent + "    " + cast)
