"""What is being handled on this thread or task: the socket message (its receipt time, for the
latency histograms) and the game and user it concerns (for the log lines, ops.logs).

Context variables, so the values follow a message from the event loop into the database thread
that runs its change (live.lanes runs each job in a copy of the caller's context), and the
message's record is one mutable object, so what the thread notes (an action stored) is seen
back on the loop."""
import contextvars
import time

current_message = contextvars.ContextVar("current_message", default=None)
game_id = contextvars.ContextVar("game_id", default=None)
user_id = contextvars.ContextVar("user_id", default=None)


class Message:
    __slots__ = ("received", "stored")

    def __init__(self):
        self.received = time.perf_counter()
        self.stored = False


def message_received(socket):
    """Heard from live.sockets (message_received) as a socket message arrives (in the socket's own task, so the
    values last until its next message)."""
    current_message.set(Message())
    user_id.set(socket.user_id())
    game_id.set(socket.scope.get("url_route", {}).get("kwargs", {}).get("game_id"))


def request_started(request, view_kwargs):
    user = getattr(request, "user", None)
    user_id.set(user.pk if user is not None and user.is_authenticated else None)
    game_id.set(view_kwargs.get("game_id"))
