"""The README's start command works: its manage.py steps (migrate, runserver) are run as
written, except for a throw-away database and a free port."""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def readme_start_command():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Start the site", 1)[1]
    return re.search(r"```sh\n(.+?)\n```", section, re.S)[1].strip()


def manage_steps(command):
    """The command's manage.py steps; creating the venv and installing the requirements are
    already done in the environment running the tests."""
    steps = [step.strip() for step in command.split("&&")]
    assert steps[0].startswith("python3.11 -m venv") and "pip install -r requirements.txt" in command
    return [step for step in steps if "manage.py" in step]


def test_readme_start_command_shape():
    steps = manage_steps(readme_start_command())
    assert steps == [
        "DEBUG=1 python manage.py migrate",
        "DEBUG=1 python manage.py runserver 127.0.0.1:8000",
    ]


def test_readme_server_serves_the_home_page(unused_port):
    port = unused_port
    steps = [s.replace("127.0.0.1:8000", f"127.0.0.1:{port}") for s in manage_steps(readme_start_command())]
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "REDIS_URL"}}
        env["DATABASE_URL"] = f"sqlite:///{tmp}/db.sqlite3"
        # `python` in the README is the venv's interpreter: the one running these tests.
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
        server = subprocess.Popen(
            ["bash", "-c", " && ".join(steps)], cwd=ROOT, env=env, start_new_session=True,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )
        try:
            page = fetch_when_up(f"http://127.0.0.1:{port}/", server)
        except AssertionError as error:
            page = str(error)
        finally:
            # runserver's autoreloader runs the server in a child process: stop the group.
            os.killpg(server.pid, signal.SIGTERM)
            output = server.communicate(timeout=20)[0].decode(errors="replace")
        assert "Tessera" in page and "/rules/hadron/" in page, f"{page[:500]}\n{output}"
        assert Path(tmp, "db.sqlite3").exists()


def fetch_when_up(url, process, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the server exited with {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return response.read().decode()
        except urllib.error.HTTPError as error:
            raise AssertionError(f"{url} answered {error.code}") from error  # up, but broken
        except OSError:
            time.sleep(0.3)
    raise AssertionError(f"{url} did not answer within {timeout}s")
