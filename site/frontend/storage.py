"""Where the pages' static files are: Django's storage for them, with each file's URL worked
out once per process. A page names a dozen ({% static %}: style sheets, scripts, the logo),
and joining and quoting each URL again was a seventh of the Watch page's template time."""
from django.conf import settings
from django.contrib.staticfiles.storage import StaticFilesStorage

# A page's files are a few dozen; a name a template did not write is not kept past these.
KEPT = 2048


class StaticFiles(StaticFilesStorage):
    def url(self, name):
        if settings.DEBUG:
            return super().url(name)
        urls = self.__dict__.setdefault("_urls", {})
        found = urls.get(name)
        if found is None:
            found = super().url(name)
            # The base URL is read once per storage anyway (FileSystemStorage.base_url).
            if len(urls) < KEPT:
                urls[name] = found
        return found
