"""`python -m games`: random games, replays of text and JSON records, errors, in a subprocess."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

import games
from games import records

ROOT = Path(__file__).resolve().parents[2]
GAMES = [name for name in games.names() if importlib.util.find_spec(f"games.{name}")]


def cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "games", *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, timeout=120)


def record_part(stdout):
    return stdout[stdout.index('[Game "'):]


def test_random_hadron_prints_the_board_and_a_record_that_replays():
    run = cli("random", "hadron", "--seed", "1")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("5 ") and lines[5].split() == list("abcde")
    record = records.parse(record_part(run.stdout))
    state = record.state
    assert state.is_over and f"-  {state.result_text()}" in lines[6]
    assert cli("random", "hadron", "--seed", "1").stdout == run.stdout   # repeatable


def test_replay_a_file_to_the_end_and_to_a_ply(tmp_path):
    run = cli("random", "hadron", "--seed", "1", "--size", "7")
    text = record_part(run.stdout)
    state = records.parse(text).state
    path = tmp_path / "game.txt"
    path.write_text(text)
    end = cli("replay", str(path))
    assert end.returncode == 0, end.stderr
    assert end.stdout.splitlines()[0] == "Hadron size=7"
    assert end.stdout.rstrip().endswith(
        f"after {state.ply} of {state.ply} actions: {state.result_text()}")
    early = cli("replay", str(path), "--ply", "2")
    assert early.returncode == 0
    board = early.stdout.splitlines()[1:9]
    assert sum(line.count("R") + line.count("B") for line in board) == 2
    assert early.stdout.rstrip().endswith(f"after 2 of {state.ply} actions: Red to place a tile")


def test_replay_json_from_stdin_with_players():
    run = cli("random", "copolymer", "--seed", "3", "--json")
    data = json.loads(record_part_json(run.stdout))
    data["players"] = {"X": "alice", "O": "bob"}
    replay = cli("replay", "-", stdin=json.dumps(data))
    assert replay.returncode == 0, replay.stderr
    assert replay.stdout.splitlines()[0] == "Copolymer size=5, X alice vs O bob"
    assert replay.stdout.rstrip().endswith(data["result"])


def record_part_json(stdout):
    return stdout[stdout.index("{"):]


@pytest.mark.parametrize("name", GAMES)
def test_random_game_of_every_game(name):
    run = cli("random", name, "--seed", "2")
    assert run.returncode == 0, run.stderr
    record = records.parse(record_part(run.stdout))
    assert record.game.name == name and record.state.is_over
    assert run.stdout.index(record.state.text().splitlines()[0]) == 0


def test_list():
    run = cli("list")
    assert run.returncode == 0
    listed = [line.split()[0] for line in run.stdout.splitlines()]
    assert listed == games.names()
    assert "Hadron by Mark Steere (2022); Red vs Blue; size 5/7/9/11 (default 5)" in run.stdout


def test_errors_go_to_stderr_with_a_failing_status(tmp_path):
    bad_size = cli("random", "hadron", "--size", "6")
    assert bad_size.returncode == 1
    assert bad_size.stderr.strip() == "error: Hadron size must be one of 5, 7, 9, 11, not 6"
    unknown = cli("random", "chess")
    assert unknown.returncode == 1 and "there is no game 'chess'" in unknown.stderr
    path = tmp_path / "bad.txt"
    path.write_text('[Game "hadron"]\n\n1. c3 c3\n')
    bad_record = cli("replay", str(path))
    assert bad_record.returncode == 1
    assert bad_record.stderr.strip() == "error: line 3: action 2 (c3): c3 is not empty"
    path.write_text('[Game "hadron"]\n\n1. c3 a1\n')
    assert "--ply must be between 0 and 2" in cli("replay", str(path), "--ply", "3").stderr
    assert cli("frobnicate").returncode == 2   # argparse's usage error
