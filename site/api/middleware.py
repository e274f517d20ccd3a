"""Every answer under /api/ is JSON, the ones Django or ninja would give as HTML or empty
included: an unknown address (404), a method the address does not take (405), a body over
API_MAX_BODY (413, refused before anything reads it)."""
import json

from django.conf import settings
from django.http import JsonResponse

PREFIX = "/api/"
PLAIN = {404: ("not_found", "there is no such API endpoint"),
         405: ("method_not_allowed", "this endpoint does not take this method")}


def too_large(request):
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return True
    return length > settings.API_MAX_BODY


class ApiJsonErrorsMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.path.startswith(PREFIX):
            return self.get_response(request)
        if too_large(request):
            return JsonResponse({"error": "too_large",
                                 "message": f"the body is over {settings.API_MAX_BODY} bytes"},
                                status=413)
        response = self.get_response(request)
        if response.status_code in PLAIN and not is_json(response):
            code, message = PLAIN[response.status_code]
            answer = JsonResponse({"error": code, "message": message},
                                  status=response.status_code)
            if response.has_header("Allow"):
                answer["Allow"] = response["Allow"]
            return answer
        return response


def is_json(response):
    if not response.get("Content-Type", "").startswith("application/json"):
        return False
    try:
        return "error" in json.loads(response.content)
    except (ValueError, AttributeError):
        return False
