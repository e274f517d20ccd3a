"""The jobs' settings are named JOBS_*; the BOT_* names they had while the computer players were
the only jobs still set them (deployments' environment files keep working), and a JOBS_* name
given beside its BOT_* alias wins."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

READ = ("import json, django; django.setup(); from django.conf import settings; "
        "print(json.dumps({name: getattr(settings, name) for name in ('JOBS_MODE', "
        "'JOBS_WORKERS', 'JOBS_WORKERS_AT_START', 'JOBS_SWEEP', 'JOBS_LEASE', "
        "'JOBS_CPUS')}))")


def settings_with(**environment):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JOBS_", "BOT_"))}
    env.update(environment, DJANGO_SETTINGS_MODULE="tessera.settings",
               PYTHONPATH=str(ROOT / "site"))
    out = subprocess.run([sys.executable, "-c", READ], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_the_bot_names_still_set_the_jobs_settings():
    found = settings_with(BOT_JOBS="eager", BOT_WORKERS="5", BOT_WORKERS_AT_START="0",
                          BOT_SWEEP="0.5", BOT_LEASE="9", BOT_CPUS="1")
    assert found == {"JOBS_MODE": "eager", "JOBS_WORKERS": 5, "JOBS_WORKERS_AT_START": False,
                     "JOBS_SWEEP": 0.5, "JOBS_LEASE": 9.0, "JOBS_CPUS": "1"}


def test_a_jobs_name_wins_over_its_bot_alias():
    found = settings_with(BOT_JOBS="eager", JOBS_MODE="pool", BOT_WORKERS="5", JOBS_WORKERS="3",
                          BOT_LEASE="9", JOBS_LEASE="3")
    assert (found["JOBS_MODE"], found["JOBS_WORKERS"], found["JOBS_LEASE"]) == ("pool", 3, 3.0)
