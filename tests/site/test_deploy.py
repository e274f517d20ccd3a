"""The README's production example passes `manage.py check --deploy` with no warning: the
environment in its "In production" block is run as written (with a real secret key in place of
the file it reads), and without the HTTPS variables the same check does warn."""
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from django.core.management.utils import get_random_secret_key

ROOT = Path(__file__).resolve().parents[2]
SETTINGS_VARIABLES = {"SECRET_KEY", "DEBUG", "ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS",
                      "DATABASE_URL", "REDIS_URL", "REDIS_PREFIX", "TRUSTED_PROXY_COUNT"}


def readme_production_block():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("### In production", 1)[1]
    return re.search(r"```sh\n(.+?)\n```", section, re.S)[1].splitlines()


def readme_production_env():
    """The variables the README's production block exports, with a fresh secret key."""
    env = {}
    for line in readme_production_block():
        if line.startswith("export "):
            for word in shlex.split(line[len("export "):], comments=True):
                name, _, value = word.partition("=")
                env[name] = value
    assert env["SECRET_KEY"].startswith("$("), "the README reads the key from somewhere safe"
    env["SECRET_KEY"] = get_random_secret_key()
    return env


def clean_environment(**variables):
    env = {k: v for k, v in os.environ.items()
           if k not in SETTINGS_VARIABLES and not k.startswith(("SECURE_", "SESSION_", "CSRF_"))}
    env.update(variables, PYTHONPATH=str(ROOT / "site"))
    return env


def readme_check_command():
    line = next(line for line in readme_production_block() if "check --deploy" in line)
    words = shlex.split(line)
    assert words[0] == "python"
    return [sys.executable, *words[1:]]


def test_the_readme_production_example_passes_check_deploy():
    result = subprocess.run(readme_check_command(), cwd=ROOT,
                            env=clean_environment(**readme_production_env()),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout
    assert "WARNINGS" not in result.stdout + result.stderr


def test_without_the_https_variables_check_deploy_warns():
    env = {k: v for k, v in readme_production_env().items()
           if not k.startswith(("SECURE_", "SESSION_", "CSRF_COOKIE"))}
    result = subprocess.run(readme_check_command(), cwd=ROOT, env=clean_environment(**env),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    for warning in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert warning in result.stderr, result.stderr


def test_the_readme_starts_daphne_with_the_site_on_the_path():
    block = "\n".join(readme_production_block())
    assert "python manage.py migrate" in block
    assert "PYTHONPATH=site daphne -b 127.0.0.1 -p 8001 tessera.asgi:application" in block
