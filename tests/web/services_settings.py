"""The settings of the servers and commands that the services tests start (``live_harness``):
the app's own, read from the same environment, with a fast password hasher. Every PIN try and
admin login hashes once, and PBKDF2's million rounds cost a second or more each on a busy
2-core machine (twenty-odd of them in one test); what those tests prove (limits, counts,
lock-outs, restarts) does not depend on the hash's cost. The tests' own process uses the
same hasher for the same reason (``test_security``'s fixture)."""
from scoreboard.settings import *  # noqa: F403 - the app's settings, whole

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
