"""langbench's host for ChakraCore, whose Linux library PyPI's pyChakraCore ships.

Usage: python3 -I -S chakracore.py LIB [--disable-background-work] (--version | PROGRAM ARGS...)

LIB is the directory the pyChakraCore wheel was unpacked into by `langbench
toolchains install`; its pyChakraCore/linux/libChakraCore.so is Microsoft's
ChakraCore release build (interpreter and JIT). This host calls the
library's own embedding API (JSRT) through ctypes, as ChakraCore's `ch`
shell does in C, and imports none of pyChakraCore's Python: one runtime
(default attributes, or JsRuntimeAttributeDisableBackgroundWork with the
flag: the JIT then compiles on the main thread), one context, two globals
defined before the program runs (process.argv as node gives it, console.log
writing a line to stdout), then the program's source run unchanged as a
script, so its own "use strict" applies. An exception the program throws
is printed as the engine reports it and exits 1.
"""

import ctypes
import os
import sys

lib, *args = sys.argv[1:]
attributes = 0
if args[:1] == ["--disable-background-work"]:
    attributes = 0x1  # JsRuntimeAttributeDisableBackgroundWork
    args = args[1:]

if args == ["--version"]:
    import glob
    import re

    meta = open(glob.glob(f"{lib}/*.dist-info/METADATA")[0], encoding="utf-8").read()
    wheel = re.search(r"^Version: (.+)$", meta, re.M).group(1)
    # JSRT has no version call: the package's README names the release.
    readme = open(f"{lib}/pyChakraCore/README_EN.md", encoding="utf-8").read()
    release = re.search(r"ChakraCore\]\([^)]*\) v(\d+\.\d+\.\d+)", readme).group(1)
    print(f"ChakraCore {release} (PyPI pyChakraCore {wheel})")
    sys.exit(0)

src, *rest = args
cc = ctypes.CDLL(os.path.join(lib, "pyChakraCore", "linux", "libChakraCore.so"))
# Outside Windows the embedder calls DllMain itself (as `ch` does).
cc.DllMain(0, 1, 0)  # DLL_PROCESS_ATTACH
cc.DllMain(0, 2, 0)  # DLL_THREAD_ATTACH

Ref = ctypes.c_void_p


def check(code, what):
    if code == 0:
        return
    if code == 0x30001:  # JsErrorScriptException: the program threw
        exc = Ref()
        cc.JsGetAndClearException(ctypes.byref(exc))
        stack = Ref()
        name = Ref()
        cc.JsCreatePropertyId(b"stack", 5, ctypes.byref(name))
        cc.JsGetProperty(exc, name, ctypes.byref(stack))
        kind = ctypes.c_int()
        cc.JsGetValueType(stack, ctypes.byref(kind))
        text = to_str(stack if kind.value == 3 else exc)  # 3: JsString
        sys.stdout.flush()
        sys.exit(f"{src}: {text}")
    sys.stdout.flush()
    sys.exit(f"{src}: ChakraCore {what} failed: JsErrorCode 0x{code:x}")


def to_str(value):
    s = Ref()
    cc.JsConvertValueToString(value, ctypes.byref(s))
    n = ctypes.c_size_t()
    cc.JsCopyString(s, None, 0, ctypes.byref(n))
    buf = ctypes.create_string_buffer(n.value + 1)
    cc.JsCopyString(s, buf, n.value, None)
    return buf.raw[: n.value].decode("utf-8")


def run(code_bytes, url, cookie):
    script = Ref()
    check(cc.JsCreateExternalArrayBuffer(code_bytes, len(code_bytes), None, None, ctypes.byref(script)), "JsCreateExternalArrayBuffer")
    name = Ref()
    cc.JsCreateString(url.encode(), len(url.encode()), ctypes.byref(name))
    result = Ref()
    check(cc.JsRun(script, cookie, name, 0, ctypes.byref(result)), "JsRun")


Native = ctypes.CFUNCTYPE(Ref, Ref, ctypes.c_bool, ctypes.POINTER(Ref), ctypes.c_ushort, Ref)
undefined = Ref()


@Native
def log(callee, construct, argv, argc, state):
    sys.stdout.write(" ".join(to_str(Ref(argv[i])) for i in range(1, argc)) + "\n")
    return undefined.value


runtime = Ref()
check(cc.JsCreateRuntime(attributes, None, ctypes.byref(runtime)), "JsCreateRuntime")
context = Ref()
check(cc.JsCreateContext(runtime, ctypes.byref(context)), "JsCreateContext")
cc.JsSetCurrentContext(context)
cc.JsGetUndefinedValue(ctypes.byref(undefined))
glob_obj = Ref()
cc.JsGetGlobalObject(ctypes.byref(glob_obj))
fn = Ref()
check(cc.JsCreateFunction(log, None, ctypes.byref(fn)), "JsCreateFunction")
pid = Ref()
cc.JsCreatePropertyId(b"__langbench_print", 17, ctypes.byref(pid))
cc.JsSetProperty(glob_obj, pid, fn, True)

import json  # noqa: E402

prelude = ("var process = { argv: " + json.dumps(["chakracore", src] + rest) + " }, console = { log: __langbench_print };").encode()
run(prelude, "prelude", 0)
with open(src, "rb") as f:
    program = f.read()
run(program, src, 1)
sys.stdout.flush()
cc.JsSetCurrentContext(None)
cc.JsDisposeRuntime(runtime)
