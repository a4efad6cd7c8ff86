"""`manage.py ensure_admin`: make sure a superuser login exists; say where its password is."""

from __future__ import annotations

import os
import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import CommandParser

from sites.cli import Command as WebauditCommand


class Command(WebauditCommand):
    help = "Create the admin superuser if missing (password from WEBAUDIT_ADMIN_PASSWORD or generated)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", default=os.environ.get("WEBAUDIT_ADMIN_USERNAME", "admin"))

    def handle(self, *args, **options) -> None:
        username = options["username"]
        password_file = settings.VAR_DIR / "admin-password.txt"
        User = get_user_model()
        user = User.objects.filter(username=username).first()
        if user is not None and user.has_usable_password():
            hint = f" (first password in {password_file})" if password_file.exists() else ""
            self.stdout.write(f"Admin login exists: {username}{hint}.")
            return
        password = os.environ.get("WEBAUDIT_ADMIN_PASSWORD") or secrets.token_urlsafe(12)
        if user is None:
            User.objects.create_superuser(username=username, email="", password=password)
        else:
            user.is_staff = user.is_superuser = True
            user.set_password(password)
            user.save()
        if os.environ.get("WEBAUDIT_ADMIN_PASSWORD"):
            self.stdout.write(
                f"Created admin login {username!r} with the password from WEBAUDIT_ADMIN_PASSWORD."
            )
            return
        password_file.write_text(password + "\n")
        password_file.chmod(0o600)
        self.stdout.write(f"Created admin login {username!r}; its password is in {password_file}: {password}")
