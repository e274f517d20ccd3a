#!/usr/bin/env bash
# Builds .devkit/ (ignored): what bench/scaling_device.sh needs on a bare x86-64 machine that has
# Python 3.12 and nothing else of Tessera's: the site's and the bench's packages, installed from
# cp312 manylinux wheels into a tree (site.tar.xz), and PostgreSQL 15 and Redis 7 with their
# libraries, from Debian 12's packages (root.tar.xz).
#
#     bash bench/scaling_kit.sh            # on a Debian 12 machine with pip and apt reaching their registries
#     PYTHON312=~/.pyenv/versions/3.12.1/bin/python3.12 bash bench/scaling_kit.sh
#
# Installed trees, not the wheels: the wheels are 41 MB (zip) where their installed tree packs
# to 27 MB with xz, and the kit travels with the working tree under a 64 MiB limit.
# The test and browser tools of requirements.txt (pytest, hypothesis, playwright, locust, the
# OpenAPI validator and what only they pull in) are left out: no server or bench imports them.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KIT="$ROOT/.devkit"
PYTHON312=${PYTHON312:-python3.12}
WORK=$(mktemp -d /tmp/tessera-kit-build.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$KIT" "$WORK/whl" "$WORK/deb" "$WORK/site" "$WORK/root"

grep -v -e '^#' -e '^$' "$ROOT/requirements.txt" | sed 's/\[.*\]//' \
  | grep -v -i -E '^(pytest|pytest-django|pytest-env|pytest-xdist|hypothesis|playwright|axe-playwright-python|locust|openapi-spec-validator|jsonschema|jsonschema-path|jsonschema-specifications|lazy-object-proxy|openapi-schema-validator|pathable|referencing|rfc3339-validator|rpds-py|iniconfig|pluggy|Pygments|sortedcontainers|greenlet|PyYAML)==' \
  > "$WORK/requirements.txt"
# psycopg[binary]'s extra, pinned to psycopg's own version.
echo "psycopg-binary==$(grep -i '^psycopg\[binary\]==' "$ROOT/requirements.txt" | sed 's/.*==//')" >> "$WORK/requirements.txt"
# Kit only: zone files for Python's zoneinfo (TIME_ZONE) and PostgreSQL (built to read
# /usr/share/zoneinfo) on a machine without the tzdata package.
echo "tzdata==2026.6" >> "$WORK/requirements.txt"
python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  -d "$WORK/whl" -r "$WORK/requirements.txt" > "$WORK/pip.log" 2>&1 || { cat "$WORK/pip.log"; exit 1; }
"$PYTHON312" -m pip install -q --no-index --no-deps --no-compile --target "$WORK/site" "$WORK"/whl/*.whl \
  > "$WORK/pip.log" 2>&1 || { cat "$WORK/pip.log"; exit 1; }
rm -rf "$WORK/site/bin"
tar -C "$WORK/site" -cf - . | xz -T0 -6 > "$KIT/site.tar.xz"

# PostgreSQL, Redis and every library they link but glibc's and the C++ runtime's (which any
# machine with a python3 has); an Ubuntu 24.04 lacks libicu72 and libldap-2.5 at least.
(cd "$WORK/deb" && apt-get download postgresql-15 postgresql-client-15 libpq5 redis-server \
  redis-tools libjemalloc2 liblzf1 libatomic1 libaudit1 libcap-ng0 libcap2 libcom-err2 libffi8 \
  libgcrypt20 libgmp10 libgnutls30 libgpg-error0 libgssapi-krb5-2 libhogweed6 libicu72 libidn2-0 \
  libk5crypto3 libkeyutils1 libkrb5-3 libkrb5support0 libldap-2.5-0 liblz4-1 liblzma5 libnettle8 \
  libp11-kit0 libpam0g libsasl2-2 libssl3 libsystemd0 libtasn1-6 libunistring2 libxml2 libzstd1 \
  zlib1g >/dev/null 2>&1)
for deb in "$WORK"/deb/*.deb; do dpkg-deb -x "$deb" "$WORK/root"; done
# What the bench does not run: the JIT (jit=off), other client tools, documentation.
R="$WORK/root"
rm -rf "$R/usr/lib/postgresql/15/lib/bitcode" "$R"/usr/lib/postgresql/15/lib/llvmjit* "$R/usr/share/doc" \
  "$R/usr/share/man" "$R/usr/share/locale" "$R/usr/share/lintian" "$R/usr/share/postgresql/15/man" \
  "$R"/usr/lib/x86_64-linux-gnu/libicutest* "$R"/usr/lib/x86_64-linux-gnu/libicutu* "$R"/usr/lib/x86_64-linux-gnu/libicuio*
find "$R/usr/lib/postgresql/15/bin" -mindepth 1 -not -name postgres -not -name initdb -not -name pg_ctl \
  -not -name psql -not -name pg_isready -not -name postmaster -delete
tar -C "$R" -cf - . | xz -T0 -6 > "$KIT/root.tar.xz"

{ echo "built $(date -u +%FT%TZ) from $(git -C "$ROOT" rev-parse --short HEAD)"
  echo "python packages:"; sed 's/^/  /' "$WORK/requirements.txt"
  echo "debian packages:"; (cd "$WORK/deb" && ls *.deb | sed 's/^/  /'); } > "$KIT/MANIFEST"
du -sh "$KIT"
