# lit configuration: the regression suite drives the installed programs and checks
# their output with FileCheck. Run through ctest (tests/CMakeLists.txt passes the
# parameters) or by hand:
#   python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv \
#     --param warp_bin=build/bin --param filecheck=/usr/lib/llvm-19/bin/FileCheck tests/lit
import os
import lit.formats

config.name = "warp"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".w2", ".s", ".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(lit_config.params.get("warp_bin", "build/bin"), "..", "lit")

bindir = os.path.abspath(lit_config.params.get("warp_bin", "build/bin"))
filecheck = lit_config.params.get("filecheck", "/usr/lib/llvm-19/bin/FileCheck")
llvm_bindir = os.path.dirname(filecheck)

# FileCheck and not come from LLVM's bin directory, our programs from the build.
config.environment["PATH"] = os.pathsep.join([bindir, llvm_bindir, config.environment.get("PATH", "/usr/bin:/bin")])
config.substitutions.append(("%examples", os.path.join(os.path.dirname(__file__), "..", "..", "examples")))
config.substitutions.append(("%inputs", os.path.join(os.path.dirname(__file__), "Inputs")))

# Standard DWARF readers, where installed: tests that need one say REQUIRES: and
# are reported unsupported (skipped) elsewhere.
import shutil
for tool, feature in (("llvm-dwarfdump-19", "llvm-dwarfdump"), ("gdb-multiarch", "gdb-multiarch")):
    if shutil.which(tool, path=config.environment["PATH"]):
        config.available_features.add(feature)

# A memory ulimit cannot hold under the sanitizers (ASan reserves terabytes of
# address space for its shadow memory): tests write %{vmem_limit} where a plain
# build is limited to 1.2 GB of address space, and a sanitizer build is not.
sanitized = lit_config.params.get("sanitized", "OFF").upper() in ("ON", "1", "TRUE", "YES")
if sanitized:
    config.available_features.add("sanitizers")
config.substitutions.append(("%{vmem_limit}", "true" if sanitized else "ulimit -v 1200000"))
# CPU limits stand for "fast enough" in a release build. The sanitizer build is
# a Debug build with every access checked, ten times slower or more, so it gets
# ten times the seconds: it is there to find faults, not to time the compiler.
config.substitutions.append(("%{cpu_limit_20}", "ulimit -t 200" if sanitized else "ulimit -t 20"))
config.substitutions.append(("%{cpu_limit_4}", "ulimit -t 40" if sanitized else "ulimit -t 4"))
config.substitutions.append(("%{cpu_limit_8}", "ulimit -t 80" if sanitized else "ulimit -t 8"))
