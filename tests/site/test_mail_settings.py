"""Mail is configured from the environment (console by default, SMTP at scale); each case
runs in a fresh interpreter because settings are read once per process."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("EMAIL_BACKEND", "EMAIL_HOST", "EMAIL_PORT", "EMAIL_HOST_USER", "EMAIL_HOST_PASSWORD",
         "EMAIL_USE_TLS", "EMAIL_USE_SSL", "EMAIL_TIMEOUT", "DEFAULT_FROM_EMAIL", "SITE_URL")
PRINT = ("import json, django; from django.conf import settings; django.setup(); "
         f"print(json.dumps({{n: getattr(settings, n) for n in {NAMES!r}}}))")


def mail_settings(**env_vars):
    env = {k: v for k, v in os.environ.items() if not k.startswith("EMAIL_")
           and k not in {"DEFAULT_FROM_EMAIL", "SITE_URL"}}
    env.update(env_vars, SECRET_KEY="mail-settings-test-key-0123456789-abcdefghijklmnopqrstuv",
               DJANGO_SETTINGS_MODULE="tessera.settings",
               PYTHONPATH=os.pathsep.join([str(ROOT / "site"), str(ROOT)]))
    result = subprocess.run([sys.executable, "-c", PRINT], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_mail_is_printed_unless_configured():
    found = mail_settings()
    assert found["EMAIL_BACKEND"] == "django.core.mail.backends.console.EmailBackend"
    assert found["DEFAULT_FROM_EMAIL"] == "Tessera <tessera@localhost>"
    assert found["SITE_URL"] == "http://127.0.0.1:8000"


def test_an_email_url_configures_smtp():
    found = mail_settings(EMAIL_URL="smtp://mailer:s3cret@smtp.example.org:587/?tls=True",
                          DEFAULT_FROM_EMAIL="Tessera <play@tessera.example>",
                          SITE_URL="https://tessera.example/")
    assert found["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert (found["EMAIL_HOST"], found["EMAIL_PORT"]) == ("smtp.example.org", 587)
    assert (found["EMAIL_HOST_USER"], found["EMAIL_HOST_PASSWORD"]) == ("mailer", "s3cret")
    assert found["EMAIL_USE_TLS"] is True and found["EMAIL_USE_SSL"] is False
    assert found["DEFAULT_FROM_EMAIL"] == "Tessera <play@tessera.example>"
    assert found["SITE_URL"] == "https://tessera.example"


def test_email_host_and_friends_configure_smtp_too():
    found = mail_settings(EMAIL_HOST="mail.example.org", EMAIL_PORT="465", EMAIL_USE_SSL="1",
                          EMAIL_HOST_USER="u", EMAIL_HOST_PASSWORD="p", EMAIL_TIMEOUT="5")
    assert found["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert (found["EMAIL_HOST"], found["EMAIL_PORT"], found["EMAIL_TIMEOUT"]) == (
        "mail.example.org", 465, 5)
    assert found["EMAIL_USE_SSL"] is True and found["EMAIL_USE_TLS"] is False


def test_memory_by_url_for_a_test_server():
    found = mail_settings(EMAIL_URL="memory:")
    assert found["EMAIL_BACKEND"] == "django.core.mail.backends.locmem.EmailBackend"
