from ops import context, metrics


class OpsMiddleware:
    """Counts error answers by status, and tells the log lines the request's user and game.
    After AuthenticationMiddleware (it reads request.user)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        metrics.http_answered(response.status_code)
        return response

    def process_view(self, request, view_func, view_args, view_kwargs):
        context.request_started(request, view_kwargs)
