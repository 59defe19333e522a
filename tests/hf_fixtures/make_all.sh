#!/bin/sh
# Regenerates every fixture in this folder: the 5.x-style ones under
# transformers 5.x, the 4.x-style ones under transformers 4.x, then VERSIONS.
# usage: tests/hf_fixtures/make_all.sh   (override the interpreters below)
set -eu
HF5_PYTHON=${HF5_PYTHON:-/tmp/hf5/bin/python}
HF4_PYTHON=${HF4_PYTHON:-/tmp/hf5/bin/python}
HF4_PYTHONPATH=${HF4_PYTHONPATH:-/tmp/hf4lib}
here=$(cd "$(dirname "$0")" && pwd)
versions='import sys, torch, transformers; print("python %s, torch %s, transformers %s" % (sys.version.split()[0], torch.__version__, transformers.__version__))'

"$HF5_PYTHON" "$here/make_fixtures.py" --style 5 "$@"
PYTHONPATH=$HF4_PYTHONPATH "$HF4_PYTHON" "$here/make_fixtures.py" --style 4 "$@"
{
  printf 'style 5: '; "$HF5_PYTHON" -c "$versions"
  printf 'style 4: '; PYTHONPATH=$HF4_PYTHONPATH "$HF4_PYTHON" -c "$versions"
} > "$here/VERSIONS"
cat "$here/VERSIONS"
