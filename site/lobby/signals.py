"""What other apps hear of the lobby.

`challenge_made` (sender=Challenge, challenge_id=<id>) is sent once a new challenge has
committed, on the thread that made it: the opt-in challenge mail (notifications) queues its
notice there. The lobby does not know who listens.
"""
from django.dispatch import Signal

challenge_made = Signal()
