"""Settings of the server bench/pages_load.py measures: the site's own (tessera.settings, from
the environment) with one more page, the plain view (bench/pages_urls.py), so that it is never
reachable on a deployed site."""
from tessera.settings import *  # noqa: F401,F403

ROOT_URLCONF = "pages_urls"
