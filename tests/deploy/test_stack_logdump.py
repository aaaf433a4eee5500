"""The stack test's failure report: which container log lines it keeps, and its bounds."""

from __future__ import annotations

from tests.stack.logdump import MAX_CHARS, Line, cut, select, wanted


def at(second: int) -> str:
    return f"2026-12-01T23:34:{second:02d}.000000000Z"


def test_given_a_container_log_then_errors_and_whole_tracebacks_are_kept_and_noise_is_not():
    # given a log with an INTERNAL answer (one JSON line), a plain traceback and noise
    log = "\n".join(
        [
            f'{at(1)} {{"level": "INFO", "message": "serving"}}',
            f'{at(2)} {{"level": "ERROR", "message": "rpc failed", "exc_info": "Traceback..."}}',
            f"{at(3)} Traceback (most recent call last):",
            f'{at(3)}   File "x.py", line 1, in <module>',
            f"{at(3)} RuntimeError: boom",
            f'{at(4)} {{"level": "WARNING", "message": "bot move failed: ABORTED"}}',
        ]
    )
    # when the lines worth reading are picked
    kept = [x.text for x in wanted("rules-fallen_1", log)]
    # then
    assert kept == [
        '{"level": "ERROR", "message": "rpc failed", "exc_info": "Traceback..."}',
        "Traceback (most recent call last):",
        '  File "x.py", line 1, in <module>',
        "RuntimeError: boom",
    ]


def test_given_too_many_lines_then_rpc_failures_come_first_in_time_order():
    errors = [Line(at(i), "deck_1", f"ERROR {i}") for i in range(10)]
    failed = [Line(at(20 + i), "dice_1", "rpc failed") for i in range(3)]
    kept, left = select(errors + failed, limit=5)
    assert left == 8
    assert [x.text for x in kept] == ["ERROR 8", "ERROR 9", *["rpc failed"] * 3]
    assert [x.at for x in kept] == sorted(x.at for x in kept)


def test_a_long_line_keeps_its_head_and_its_tail():
    text = "head " + "x" * 5000 + " ValueError: the cause"
    short = cut(text)
    assert len(short) < MAX_CHARS + 40
    assert short.startswith("head ") and short.endswith("ValueError: the cause")
