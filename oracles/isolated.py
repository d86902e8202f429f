"""One oracle load per child process, shared by the golden scripts that need it.

A golden script that loads a model file in an oracle (Drake, DART) runs each load through
`run_one`: a fresh Python child process in a temporary directory runs the same script with
`--one --result RESULT` and the script's own arguments, writes its result as JSON to RESULT and
exits. A crash, an abort or a hang of the oracle then costs one file, not the run: it is
recorded as `{"load_error": ...}` and the next file goes on. Whatever the child printed is kept
as the result's `log` (its first 20 lines, ANSI colours and the given absolute roots left out,
so that the golden files do not depend on where the checkout lies).

The module holds no oracle-specific code: each script says how to load a file and what to
record; this only isolates the load.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

ANSI = re.compile(r"\x1b\[[0-9;]*m")

LOG_LINES = 20


def clean(text, roots):
    """Text without ANSI colours and with the given absolute roots left out, as lines."""
    text = ANSI.sub("", text)
    for root in roots:
        text = text.replace("/" + root + os.sep, "").replace(root + os.sep, "")
    return [line.rstrip() for line in text.splitlines() if line.strip()]


def roots_of(root):
    """The spellings of an absolute `root` to leave out of logs (as given and resolved),
    longest first."""
    return sorted({root, os.path.realpath(root)}, key=len, reverse=True)


def run_one(script, args, roots, timeout, line_filter=None):
    """Runs `python SCRIPT --one --result RESULT ARGS...` in a child process and returns the
    JSON object it wrote to RESULT, with `log` added (what the child printed, cleaned by
    `clean` and then by `line_filter`, a function of one line, when given). A child that
    writes no result or runs longer than `timeout` seconds gives `{"load_error": ...}`; a
    `load_error` the child wrote is cleaned like the log."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "result.json")
        log = os.path.join(tmp, "log.txt")
        command = [sys.executable, script, "--one", "--result", out] + list(args)
        with open(log, "w") as logfile:
            try:
                proc = subprocess.run(
                    command, stdout=logfile, stderr=subprocess.STDOUT, timeout=timeout, cwd=tmp
                )
                code = proc.returncode
            except subprocess.TimeoutExpired:
                code = None
        with open(log, errors="replace") as f:
            printed = clean(f.read(), roots)
        if line_filter is not None:
            printed = [line_filter(line) for line in printed]
        if code is None:
            result = {"load_error": f"no answer within {timeout} s"}
        elif not os.path.exists(out):
            result = {"load_error": f"the process died (exit status {code})"}
        else:
            with open(out) as f:
                result = json.load(f)
            if "load_error" in result:
                result["load_error"] = "\n".join(clean(result["load_error"], roots))
    result["log"] = printed[:LOG_LINES]
    return result
