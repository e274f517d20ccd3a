"""Health, readiness and metrics for the proxy, the load balancer and the monitoring."""
import hmac
import ipaddress
import logging

from django.conf import settings
from django.db import connection
from django.http import Http404, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache

from ops import draining, metrics

logger = logging.getLogger(__name__)


@never_cache
def healthz(request):
    """The process answers: nothing else is asked, so a slow database never gets a healthy
    process restarted."""
    return JsonResponse({"status": "ok"})


@never_cache
def readyz(request):
    """Whether to send this process new work: not draining after SIGTERM, the database and
    the channel layer's Redis answer. 503 with what failed otherwise."""
    problems = {}
    if draining.is_draining():
        problems["process"] = "draining: it got SIGTERM and is stopping"
    for name, check in (("database", database_answers), ("redis", redis_answers)):
        try:
            check()
        except Exception as error:
            logger.warning("readiness: %s does not answer: %s", name, type(error).__name__)
            problems[name] = f"does not answer ({type(error).__name__})"
    status = 503 if problems else 200
    return JsonResponse({"status": "ready" if not problems else "not ready", **problems},
                        status=status)


def database_answers():
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def redis_answers():
    """The channel layer's Redis (REDIS_URL); without it the layer is in memory."""
    if not settings.REDIS_URL:
        return
    import redis

    client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)
    try:
        client.ping()
    finally:
        client.close()


def metrics_allowed(request):
    """A bearer token equal to METRICS_TOKEN, or a peer address in METRICS_ALLOWED_ADDRESSES.
    The peer is the connection's own address, never X-Forwarded-For: behind a proxy every
    request comes from the proxy, which must therefore refuse /metrics itself (deploy/)."""
    token = settings.METRICS_TOKEN
    given = request.headers.get("Authorization", "")
    if token and given.startswith("Bearer ") and hmac.compare_digest(
            given[len("Bearer "):].strip().encode(), token.encode()):
        return True
    try:
        peer = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    return any(peer in network for network in settings.METRICS_ALLOWED_ADDRESSES)


@never_cache
def metrics_page(request):
    if not settings.METRICS_TOKEN and not settings.METRICS_ALLOWED_ADDRESSES:
        raise Http404("metrics are off: set METRICS_TOKEN or METRICS_ALLOWED_ADDRESSES")
    if not metrics_allowed(request):
        return HttpResponse("metrics need a token or an internal address\n", status=403,
                            content_type="text/plain")
    for _ in range(3):
        # The registry belongs to the event loop; read from this thread, a socket opening
        # meanwhile may change it under the count: count again (the loop's refresh, every
        # few seconds, is exact either way).
        try:
            metrics.count_sockets()
            break
        except RuntimeError:
            continue
    metrics.count_redis_jobs()
    body, content_type = metrics.exposition()
    return HttpResponse(body, content_type=content_type)
