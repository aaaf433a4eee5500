"""The log lines of a compose project's containers that say why a stack test failed.

On a failure the stack fixture (and deploy/local/stack-test.sh, when pytest itself was cut
off) prints them, so a CI failure can be diagnosed from the CI output alone: every line
with "rpc failed" (an INTERNAL answer and its traceback), a traceback or an ERROR/CRITICAL
level, from every container of the project (killed and restarted ones too), in time order,
bounded. `python -m tests.stack.logdump PROJECT` prints them for a project that is still up.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass

MAX_LINES = 300  # lines printed in all
MAX_CHARS = 1500  # characters of one line: its head and its tail (a traceback ends with the error)
HEAD_CHARS = 300
FIRST = re.compile(r"rpc failed|Traceback")  # kept before the other lines when over MAX_LINES
WANTED = re.compile(r"rpc failed|Traceback|ERROR|CRITICAL|FATAL|[Pp]anic")


@dataclass(frozen=True)
class Line:
    """One log line of a container (docker's timestamp first)."""

    at: str
    container: str
    text: str


def _docker(*args: str, timeout: float = 60) -> tuple[str, str]:
    """Return a docker command's stdout and stderr (a failure is in stderr; no raise)."""
    try:
        done = subprocess.run(
            ["docker", *args], capture_output=True, text=True, timeout=timeout, check=False,
            errors="replace",
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return "", f"docker {args[0]}: no answer in {timeout:.0f} s"
    return done.stdout, done.stderr


def containers(project: str) -> dict[str, str]:
    """Return id -> name of every container of a compose project, running or not."""
    out, _ = _docker(
        "ps", "-a", "--no-trunc", "--format", "{{.ID}} {{.Names}}",
        "--filter", f"label=com.docker.compose.project={project}",
    )  # fmt: skip
    pairs = (line.split(" ", 1) for line in out.splitlines() if " " in line)
    return {cid: name for cid, name in pairs}


def wanted(name: str, log: str) -> list[Line]:
    """Return a container log's lines worth reading after a failure.

    A plain-text traceback (not a JSON log record) spans several lines: it is kept whole,
    up to the line that names the exception.
    """
    out: list[Line] = []
    in_traceback = False
    for raw in log.splitlines():
        at, _, text = raw.partition(" ")
        if in_traceback:
            out.append(Line(at, name, text))
            in_traceback = text[:1].isspace() or text.startswith("Traceback")
        elif WANTED.search(text):
            out.append(Line(at, name, text))
            in_traceback = text.startswith("Traceback")
    return out


def cut(text: str) -> str:
    """Return a line bounded to MAX_CHARS: its head and its tail."""
    if len(text) <= MAX_CHARS:
        return text
    left = len(text) - MAX_CHARS
    return f"{text[:HEAD_CHARS]} ...[{left} chars]... {text[-(MAX_CHARS - HEAD_CHARS) :]}"


def select(lines: list[Line], limit: int = MAX_LINES) -> tuple[list[Line], int]:
    """Return at most limit lines in time order ("rpc failed" and tracebacks first when
    there are more), and how many were left out."""
    if len(lines) <= limit:
        return sorted(lines, key=lambda x: x.at), 0
    first = [x for x in lines if FIRST.search(x.text)]
    rest = [x for x in lines if not FIRST.search(x.text)]
    kept = sorted(first, key=lambda x: x.at)[-limit:]
    room = limit - len(kept)
    if room > 0:
        kept += sorted(rest, key=lambda x: x.at)[-room:]
    return sorted(kept, key=lambda x: x.at), len(lines) - len(kept)


def report(project: str, limit: int = MAX_LINES) -> str:
    """Return the wanted log lines of a project's containers as text, bounded."""
    names = containers(project)
    lines: list[Line] = []
    for cid, name in sorted(names.items(), key=lambda kv: kv[1]):
        for log in _docker("logs", "--timestamps", cid):  # its stdout, then its stderr
            lines += wanted(name, log)
    kept, left = select(lines, limit)
    head = (
        f"--- {len(lines)} log lines with rpc failed / Traceback / ERROR of the "
        f"{len(names)} containers of {project}"
        + (f" ({left} left out, the oldest first)" if left else "")
        + " ---"
    )
    body = [f"{x.at[:23]} {x.container}: {cut(x.text)}" for x in kept]
    return "\n".join([head, *body, f"--- end of the log lines of {project} ---"])


if __name__ == "__main__":
    for project in sys.argv[1:]:
        print(report(project), flush=True)
