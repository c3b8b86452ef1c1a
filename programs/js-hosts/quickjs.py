"""langbench's host for a QuickJS engine that PyPI ships as a Python extension.

Usage: python3 -I -S quickjs.py LIB (--version | PROGRAM ARGS...)

LIB is the directory its wheel was unpacked into by `langbench toolchains
install` (PyPI's quickjs: Bellard's QuickJS; quickjs-ng: the quickjs-ng
fork); the wheel's `_quickjs` extension has the C engine compiled in. This
host is all the Python there is around it: one `_quickjs.Context` (one
QuickJS runtime and context), two globals defined before the program runs
(process.argv as node gives it, console.log writing a line to stdout), then
the program's source evaluated unchanged as a global script, so its own
"use strict" applies. An exception the program throws is printed as the
engine reports it and exits 1. The package's Python module (`quickjs`,
threads for its Function helper) is not imported.
"""

import sys

lib, *args = sys.argv[1:]
sys.path.insert(0, lib)
import _quickjs  # noqa: E402

if args == ["--version"]:
    import ctypes
    import glob
    import re

    meta = open(glob.glob(f"{lib}/*.dist-info/METADATA")[0], encoding="utf-8").read()
    name = re.search(r"^Name: (.+)$", meta, re.M).group(1)
    wheel = re.search(r"^Version: (.+)$", meta, re.M).group(1)
    so = ctypes.CDLL(_quickjs.__file__)
    if hasattr(so, "JS_GetVersion"):
        so.JS_GetVersion.restype = ctypes.c_char_p
        engine = "QuickJS-ng " + so.JS_GetVersion().decode()
    else:
        # Bellard's QuickJS has no version call; its CONFIG_VERSION is in
        # the memory-usage report's format string.
        data = open(_quickjs.__file__, "rb").read()
        engine = "QuickJS " + re.search(rb"(\d{4}-\d\d-\d\d) version", data).group(1).decode()
    print(f"{engine} (PyPI {name} {wheel})")
    sys.exit(0)

import json  # noqa: E402

src, *rest = args
with open(src, encoding="utf-8") as f:
    code = f.read()
ctx = _quickjs.Context()
ctx.add_callable("__langbench_print", lambda line: sys.stdout.write(line + "\n"))
ctx.eval(
    "var process = { argv: " + json.dumps(["quickjs", src] + rest) + " },"
    " console = { log: (...a) => __langbench_print(a.join(' ')) };"
)
try:
    ctx.eval(code)
except _quickjs.JSException as e:
    sys.stdout.flush()
    sys.exit(f"{src}: {e}")
