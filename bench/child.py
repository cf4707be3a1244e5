"""Run one program in this process, then record its peak RSS: the harness's fresh-process wrapper.

    python bench/child.py RSS_FILE -m MODULE [ARGS...]    # like python -m MODULE ARGS
    python bench/child.py RSS_FILE -c CODE [ARGS...]      # like python -c CODE ARGS
    python bench/child.py RSS_FILE SCRIPT [ARGS...]       # like python SCRIPT ARGS

RSS_FILE gets ``{"self": KiB, "children": KiB, "exit": status}``: ``ru_maxrss`` of this process and
of its largest waited-for child (``-j``/``-n`` workers). It imports nothing heavy, so the checker
and the floor pay the same start-up.
"""

import json
import resource
import runpy
import sys


def run(mode: str, target: str, arguments: list[str]) -> int:
    try:
        if mode == "-m":
            sys.argv = [target, *arguments]
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        elif mode == "-c":
            sys.argv = ["-c", *arguments]
            exec(compile(target, "<bench>", "exec"), {"__name__": "__main__"})
        else:
            sys.argv = [target, *arguments]
            runpy.run_path(target, run_name="__main__")
    except SystemExit as stop:
        code = stop.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return 0


def main() -> None:
    rss_file, mode, *rest = sys.argv[1:]
    status = run(mode, rest[0], rest[1:]) if mode in ("-m", "-c") else run("script", mode, rest)
    sys.stdout.flush()
    peak = {"self": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            "children": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "exit": status}
    with open(rss_file, "w") as stream:
        json.dump(peak, stream)
    sys.exit(status)


if __name__ == "__main__":
    main()
