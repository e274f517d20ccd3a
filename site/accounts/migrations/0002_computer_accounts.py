"""The computer players' accounts, one per level, made with the database: a name such as
`computer-level-3` is never free for a person to take, even before anyone has played that level
(bots.accounts.bot_for still makes a level added later when it is first needed)."""
from django.contrib.auth.hashers import make_password
from django.db import migrations

from games import bots as engine_bots

PREFIX = "computer-level-"


def make_computer_accounts(apps, schema_editor):
    User = apps.get_model("auth", "User")
    Profile = apps.get_model("accounts", "Profile")
    Bot = apps.get_model("bots", "Bot")
    for level in sorted(engine_bots.LEVELS):
        user, made = User.objects.get_or_create(username=f"{PREFIX}{level}",
                                                defaults={"password": make_password(None)})
        Profile.objects.update_or_create(user=user, defaults={"is_bot": True})
        if not Bot.objects.filter(level=level).exists():
            Bot.objects.create(user=user, level=level)


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0001_initial"),
        ("bots", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(make_computer_accounts, migrations.RunPython.noop),
    ]
