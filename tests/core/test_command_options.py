"""Bad command-line values are refused before anything runs, with a clear message and no
traceback: ports, counts, seconds and the files a long run writes at its end."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from callbreak.cli import build_parser, main


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run ``callbreak argv``; assert that it stopped with status 2, printing no traceback
    and no result; return what it said on stderr."""
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    out, err = capsys.readouterr()
    assert "Traceback" not in err and out == "", (out, err)
    return err


def test_ports_out_of_range_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    # the parser alone: a check that regressed would start a server here, not fail
    for argv in (["serve", "--port", "99999"], ["bot", "serve", "--port", "-1"], ["serve", "--port", "http"]):
        with pytest.raises(SystemExit) as stop:
            build_parser().parse_args(argv)
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert "a port from 0 (any free one) to 65535 is needed" in err and "Traceback" not in err, err


def test_bot_check_refuses_a_check_that_asks_nothing(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    url = "http://127.0.0.1:9"
    assert "a whole number from 1 is needed, not '0'" in refused(["bot", "check", url, "--positions", "0"], capsys)
    assert "above 0 is needed, not '0'" in refused(["bot", "check", url, "--time-budget", "0"], capsys)
    missing = tmp_path / "no" / "report.json"
    assert f"cannot write {missing}: no folder" in refused(["bot", "check", url, "--json", str(missing)], capsys)


def test_arena_says_what_it_cannot_write_before_the_matches(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bots = ["random", "random", "random", "random"]
    for option in ("--json", "--plot", "--ratings"):
        missing = tmp_path / "no" / "out"
        err = refused(["arena", *bots, "-n", "1", option, str(missing)], capsys)
        assert f"cannot write {missing}: no folder" in err, err
    # a ratings file that is not ratings: said at once, the file left as it was
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes")
    code = main(["arena", *bots, "-n", "1", "--ratings", str(notes)])
    out, err = capsys.readouterr()
    assert code == 2 and "does not hold ratings" in err and "points/match" not in out, (out, err)
    assert notes.read_text() == "my notes"


def test_arena_refuses_counts_and_seconds_it_cannot_use(capsys: pytest.CaptureFixture[str]) -> None:
    bots = ["random", "random", "random", "random"]
    for option, value, said in (
        ("--matches", "0", "a whole number from 1 is needed, not '0'"),
        ("--jobs", "-2", "a whole number from 1 is needed, not '-2'"),
        ("--rounds", "0", "a whole number from 1 is needed, not '0'"),
        ("--seed", "x", "a whole number from 0 is needed, not 'x'"),
        ("--time-budget", "0", "a number of seconds above 0 is needed, not '0'"),
        ("--think", "nan", "a number of seconds above 0 is needed, not 'nan'"),
    ):
        err = refused(["arena", *bots, option, value], capsys)
        assert f"argument {option}" in err and said in err, err


def test_seeds_and_counts_are_checked_by_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    # the parser alone: a check that regressed would start the command here, not fail
    for argv, said in (
        (["analyse", "game.json", "--seed", "-1"], "argument --seed: a whole number from 0 is needed, not '-1'"),
        (["analyse", "game.json", "--budget", "0"], "argument --budget: a whole number from 1 is needed, not '0'"),
        (["bot", "serve", "--seed", "one"], "argument --seed: a whole number from 0 is needed, not 'one'"),
        (["bot", "check", "http://127.0.0.1:9", "--seed", "-5"], "argument --seed: a whole number from 0"),
        (["bot-worker", "--processes", "0"], "argument --processes: a whole number from 1 is needed, not '0'"),
        (["play", "--seed", "1.5"], "argument --seed: a whole number from 0 is needed, not '1.5'"),
        (["replay", "--demo", "-3"], "argument --demo: a whole number from 0 is needed, not '-3'"),
        (["serve", "--workers", "0"], "argument --workers: a whole number from 1 is needed, not '0'"),
    ):
        with pytest.raises(SystemExit) as stop:
            build_parser().parse_args(argv)
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert said in err and "Traceback" not in err, (argv, err)


@pytest.mark.parametrize("option", ["--port", "--status-port"])
def test_serve_on_a_taken_port_says_so_before_claiming_to_serve(tmp_path: Path, option: str) -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    ports = ["--port", str(port)] if option == "--port" else ["--port", "0", "--status-port", str(port)]
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "callbreak", "serve", *ports, "--db", str(tmp_path / "t.db")],
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        taken.close()
    assert proc.returncode != 0
    assert "being served" not in proc.stdout, proc.stdout
    assert f"cannot listen on 127.0.0.1 port {port}" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_what_a_run_writes_at_its_end_is_checked_before_it(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # Found in a newcomer's try: the matches or the analysis ran to the end, then the file could not be written.
    bots = ["random", "random", "random", "random"]
    assert main(["arena", *bots, "-n", "1", "--plot", str(tmp_path / "chart.txt")]) == 2
    out, err = capsys.readouterr()
    assert "points/match" not in out, out
    assert f"cannot draw {tmp_path / 'chart.txt'}: a chart is one of" in err and ".png" in err, err
    assert not (tmp_path / "chart.txt").exists()
    assert f"cannot write {tmp_path}: it is a folder" in refused(["analyse", "game.json", "--json", str(tmp_path)], capsys)
    assert f"cannot write {tmp_path}: it is a folder" in refused(["replay", "--demo", "1", "--save", str(tmp_path)], capsys)


def test_bot_serve_names_the_address_it_cannot_listen_on(capsys: pytest.CaptureFixture[str]) -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    try:
        assert main(["bot", "serve", "--bot", "random", "--port", str(port)]) == 2
    finally:
        taken.close()
    err = capsys.readouterr().err
    assert f"error: cannot listen on 127.0.0.1 port {port}: " in err and "Errno" not in err, err


@pytest.mark.parametrize(("ports", "said"), [
    (["--port", "8101", "--status-port", "8101"], "the status port is 8101, the server's own --port"),
    (["--port", "8101", "--status-port", "8100", "--workers", "2", "--redis", "redis://127.0.0.1:1/0"],
     "worker 1's status port (--status-port + 1) is 8101, the server's own --port"),
])  # fmt: skip
def test_serve_says_when_a_status_port_is_its_own_port(tmp_path: Path, ports: list[str], said: str) -> None:
    """Found in an operator's try: both said only 'cannot listen on ... 8101: Address already in use'."""
    proc = subprocess.run(
        [sys.executable, "-m", "callbreak", "serve", *ports, "--db", str(tmp_path / "t.db")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode != 0 and said in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert "being served" not in proc.stdout, proc.stdout


@pytest.mark.parametrize(("argv", "env", "said"), [
    (["--bot-processes", "-1"], {}, "bot_processes (--bot-processes, CALLBREAK_BOT_PROCESSES) must not be negative"),
    ([], {"CALLBREAK_LEASE_TTL": "0"}, "lease_ttl (CALLBREAK_LEASE_TTL) must be at least 0.3 seconds"),
    ([], {"CALLBREAK_BOT_QUEUE": "kafka"}, "bot_queue (--bot-queue, CALLBREAK_BOT_QUEUE) must be local or redis, not 'kafka'"),
])  # fmt: skip
def test_serve_names_a_bad_setting_as_the_operator_gave_it(
    tmp_path: Path, argv: list[str], env: dict[str, str], said: str
) -> None:
    """Found in an operator's try: 'bot_processes must not be negative' named no option or variable."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CALLBREAK_")}
    proc = subprocess.run(
        [sys.executable, "-m", "callbreak", "serve", "--port", "0", *argv, "--db", str(tmp_path / "t.db")],
        capture_output=True,
        text=True,
        timeout=120,
        env={**clean, **env},
    )
    assert proc.returncode == 1 and said in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
