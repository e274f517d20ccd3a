from django.apps import AppConfig


class OpsConfig(AppConfig):
    """What an operator needs from each process: health and readiness for the proxy or load
    balancer, Prometheus metrics, log context, backups (docs/operations.md)."""

    name = "ops"

    def ready(self):
        from live import process
        from ops import draining, metrics

        process.on_start(metrics.start)
        process.on_start(draining.take_sigterm)
        process.on_stop(draining.begin)
        process.on_stop(metrics.stop)
        metrics.listen()
