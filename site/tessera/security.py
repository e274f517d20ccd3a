"""The Content-Security-Policy header on every page (django-csp, policy in settings).

The policy allows scripts, styles, images and fonts from this site only, no inline code and no
inline style attributes (the pages' scripts style through the CSSOM, which CSP allows), and
connections to this site and its websockets only.
"""
from csp.middleware import CSPMiddleware
from django.core.exceptions import DisallowedHost


def websocket_origin(request):
    """The websocket origin of the page's own host (wss: when the page came over HTTPS), or
    None when the Host header is not one of ALLOWED_HOSTS."""
    try:
        host = request.get_host()
    except DisallowedHost:
        return None
    return f"{'wss' if request.is_secure() else 'ws'}://{host}"


class ContentSecurityPolicyMiddleware(CSPMiddleware):
    """django-csp's middleware, with the page's websocket origin added to connect-src: CSP
    level 3 browsers count ws:/wss: of the page's own host as 'self', level 2 ones do not."""

    def get_policy_parts(self, request, response, report_only=False):
        parts = super().get_policy_parts(request, response, report_only=report_only)
        origin = websocket_origin(request)
        if origin:
            update = dict(parts.update or {})
            update["connect-src"] = [*update.get("connect-src", ()), origin]
            parts.update = update
        return parts
